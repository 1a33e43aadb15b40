//! A tree copy as a block trace, for `advise --flash` (nothing was run on a
//! device): a fresh volume written in one pass, file after file, each
//! file's clusters contiguous and sent in requests of the profile's largest
//! transfer, each file followed by the 4 KiB metadata block that records it
//! (directory entry / allocation table near the volume's start: where FAT
//! keeps its tables), as a copy that syncs every file does (Windows'
//! "quick removal" policy, `cp` + `sync` per file). What it leaves out: each
//! filesystem's own metadata pattern (journals, inode tables), and
//! writeback merging metadata of many files: bench --flash traces the real
//! drivers for that.

use super::{replay, Op, Profile, Request};
use crate::scan::TreeCounts;

/// Files simulated per size class; the rest is scaled from them.
const SAMPLE: u64 = 2000;

/// Where the metadata blocks go: the first MiB after the partition start.
const META_BYTES: u64 = 1 << 20;

/// Simulated MB/s (decimal) of writing `tree` with `cluster`-byte clusters
/// on `profile`, the volume starting `offset` bytes into the flash.
pub fn tree_write_mb_s(
    tree: &TreeCounts,
    cluster: u64,
    profile: &Profile,
    offset: u64,
) -> Option<f64> {
    let mut dev = profile.device();
    let max = profile.max_transfer_bytes();
    let cluster = cluster.max(512);
    let mut data_at = offset + META_BYTES;
    let (mut secs, mut bytes) = (0.0, 0u64);
    for class in tree.by_size.iter().filter(|c| c.files > 0) {
        let n = class.files.min(SAMPLE);
        let size = (class.bytes / class.files).max(1);
        let on_disk = size.div_ceil(cluster) * cluster;
        let mut trace = Vec::with_capacity(n as usize * (on_disk / max + 2) as usize);
        for i in 0..n {
            let mut off = 0;
            while off < on_disk {
                let len = max.min(on_disk - off);
                trace.push(Request {
                    op: Op::Write,
                    offset: data_at + off,
                    len,
                    t_ns: 0,
                });
                off += len;
            }
            data_at += on_disk;
            let meta = offset + (i * 32 / 4096 * 4096) % META_BYTES;
            trace.push(Request {
                op: Op::Write,
                offset: meta,
                len: 4096,
                t_ns: 0,
            });
        }
        let r = replay(&mut *dev, &trace);
        secs += r.device_seconds * class.files as f64 / n as f64;
        bytes += class.bytes;
    }
    (secs > 0.0).then(|| bytes as f64 / 1e6 / secs)
}

/// The profile `advise` simulates when `--flash` is not given: from what
/// the volume will be used for and its size. Returns the name and why.
pub fn default_drive(volume: u64, systems: &[&str]) -> (&'static str, String) {
    let card = systems
        .iter()
        .any(|s| matches!(*s, "camera" | "car" | "android" | "console"));
    let (name, why) = if card {
        ("microsd-a1", "--for names a device that takes SD cards")
    } else if volume > 512 << 30 {
        (
            "nvme-usb-sn570",
            "volumes over 512 GB are external SSDs more often than sticks",
        )
    } else if volume > 64 << 30 {
        (
            "usb3-stick",
            "volumes over 64 GB are USB 3 sticks more often than USB 2",
        )
    } else {
        ("usb2-stick", "the most common small flash drive")
    };
    (name, format!("{name} (no --flash given: {why}; choose one with --flash, see fsfit bench --list-profiles)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::profile;
    use crate::scan::SizeClass;

    fn tree(classes: [(u64, u64); 3]) -> TreeCounts {
        let mut t = TreeCounts::default();
        for (c, (files, bytes)) in t.by_size.iter_mut().zip(classes) {
            *c = SizeClass { files, bytes };
            t.files += files;
            t.apparent_bytes += bytes;
        }
        t
    }

    #[test]
    fn small_files_write_slower_than_big_ones_and_never_above_pw() {
        let p = profile("usb2-stick").unwrap();
        let small = tree([(10_000, 10_000 * 6_000), (0, 0), (0, 0)]);
        let big = tree([(0, 0), (0, 0), (4, 4 * (200 << 20))]);
        let s = tree_write_mb_s(&small, 32 << 10, &p, 1 << 20).unwrap();
        let b = tree_write_mb_s(&big, 32 << 10, &p, 1 << 20).unwrap();
        assert!(s < b / 5.0, "small {s} MB/s, big {b} MB/s");
        assert!(
            b <= p.params.write_mb_s && b > p.params.write_mb_s * 0.8,
            "{b}"
        );
        // Slack: 6 KB files in 64 KiB clusters write more bytes than in 4 KiB.
        let s4 = tree_write_mb_s(&small, 4 << 10, &p, 1 << 20).unwrap();
        let s64 = tree_write_mb_s(&small, 64 << 10, &p, 1 << 20).unwrap();
        assert!(s4 > s64, "4K {s4} vs 64K {s64}");
        assert_eq!(tree_write_mb_s(&TreeCounts::default(), 4096, &p, 0), None);
    }

    #[test]
    fn the_default_drive_follows_size_and_use() {
        assert_eq!(default_drive(32_000_000_000, &[]).0, "usb2-stick");
        assert_eq!(default_drive(128_000_000_000, &["windows"]).0, "usb3-stick");
        assert_eq!(default_drive(1_000_000_000_000, &[]).0, "nvme-usb-sn570");
        assert_eq!(default_drive(32_000_000_000, &["car"]).0, "microsd-a1");
        for (v, s) in [(1u64 << 30, vec![]), (1 << 40, vec!["camera"])] {
            let (name, why) = default_drive(v, &s);
            assert!(profile(name).is_ok() && why.contains("--flash"));
        }
    }
}
