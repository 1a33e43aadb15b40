//! A documented example filesystem to copy when adding one, as fio's
//! `engines/skeleton_external.c` is: it compiles and passes the registry's
//! checks, but it is NOT registered in [`super::all`], so fsfit never
//! offers it. docs/adding-a-filesystem.md walks through each part.
//!
//! "skeletonfs" is imaginary: every file takes whole clusters (none when
//! empty), every directory takes one cluster per 64 entries, and mkfs
//! reserves 1 MiB plus one bitmap bit per cluster. A real model replays
//! what the real mkfs and driver do, with the source file and function each
//! number comes from (see ../exfat/mod.rs), and tests it against real
//! volumes before `exact` becomes true.

// A real filesystem keeps its on-disk parser for `fsfit info` here:
// pub mod probe;

use super::{
    powers_of_two, round_up, Acc, Checker, Drivers, ExitCodes, Filesystem, Formats, FsInfo, Magic,
    Model, Signature, POSIX_LIMITS,
};
use crate::fs::probe::bytes::Dev;
use crate::fs::probe::VolumeInfo;
use crate::scan::{Dir, Kind};

/// Space mkfs keeps for itself (boot area, superblock, root directory).
const RESERVED: u64 = 1 << 20;
/// Directory entries per cluster-sized directory block.
const ENTRIES_PER_BLOCK: u64 = 64;
/// The signature `fsfit info` looks for at byte 0.
const MAGIC: &[u8] = b"SKELETON";

/// The static facts. Every field is required: the registry test fails on
/// an empty name, note or label flag, on a kernel driver without modules,
/// and on mount options without `sync`.
pub const INFO: FsInfo = FsInfo {
    // The --fs name and JSON "fs" value: lowercase, unique.
    name: "skeleton",
    title: "SkeletonFS",
    // False until a test compares the model with real volumes to the byte.
    exact: false,
    // What it can store, for the compatibility findings (usage/problems.rs).
    limits: POSIX_LIMITS,
    drivers: Drivers {
        // `mount -t` type, and the module(s) the kernel lab must load.
        kernel: Some("skeletonfs"),
        kernel_modules: &["skeletonfs"],
        // Or Some(FuseDriver { program, args, slow }) for a FUSE driver.
        fuse: None,
        windows: None,
        kernel_sync: None,
    },
    // Options worth comparing in bench and crash runs; `sync` always.
    mount_options: &["sync", "dirsync"],
    // udisks2 data/builtin_mount_options.conf has no `skeletonfs_defaults`: a
    // desktop adds only the options every mount gets.
    desktop_options: super::DesktopOptions {
        kernel: &[],
        fuse: &[],
    },
    // Mounting copies of one volume at once: extra options, or None if the
    // kernel refuses a second copy.
    copies_mount: Some(""),
    // The mkfs option that sets the label (`-L LABEL`; `--label=` glues).
    label_flag: "-L",
    formats: Formats {
        // `format X: /FS:<this>` if Windows formats it, with a caveat.
        windows: None,
        windows_note: None,
        // The macOS command with {cluster}, {sectors} and {label} filled in.
        macos: None,
    },
    robustness: "no journal: an example, not a filesystem",
    // The fsck program, read-only check and repair arguments, and what its
    // exit codes mean (ExitCodes::Fsck, ZeroOne or ZeroClean). None says
    // Linux has no checker, which `fsfit crash` reports as a finding.
    checker: Some(Checker {
        program: "fsck.skeleton",
        check_args: &["-n"],
        repair_args: &["-y"],
        repair_stdin: "",
        exit_codes: ExitCodes::Fsck,
    }),
    // Names from src/advise/systems.rs.
    // Rank in advise when speed was not measured (1 best; unique).
    preference: 200,
    // How info recognises it: see SIGNATURE below.
    signature: SIGNATURE,
};

pub struct Skeleton;

impl Filesystem for Skeleton {
    fn info(&self) -> &'static FsInfo {
        &INFO
    }

    fn cluster_range(&self) -> (u64, u64) {
        // Cite where the mkfs tool checks its option.
        (512, 65536)
    }

    fn default_cluster(&self, _volume: u64) -> u64 {
        // Replay the mkfs tool's choice for this volume size.
        4096
    }

    fn sweep(&self, volume: u64) -> Vec<u64> {
        // What `fsfit usage` shows with no --fs: the default plus the sizes
        // people choose between. Must contain the default.
        let mut v = powers_of_two(512, 65536);
        let d = self.default_cluster(volume);
        if !v.contains(&d) {
            v.push(d);
        }
        v
    }

    fn bench_sweep(&self, _volume: u64) -> Vec<u64> {
        // Clusters `fsfit bench` adds to the default with no --fs. Each is
        // minutes of benchmarking: leave it empty unless the cluster size is
        // the question for this filesystem (exFAT's is).
        Vec::new()
    }

    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        // Refuse what mkfs refuses, with mkfs's reason.
        let (lo, hi) = self.cluster_range();
        if !cluster.is_power_of_two() || !(lo..=hi).contains(&cluster) {
            return Err(crate::Error::input(format!(
                "mkfs.skeleton takes clusters of {lo} to {hi} bytes"
            )));
        }
        let clusters = volume / cluster;
        let bitmap = round_up(clusters.div_ceil(8), cluster);
        let used = RESERVED + bitmap;
        if used >= volume {
            return Err(crate::Error::input(format!(
                "mkfs.skeleton needs more than {used} bytes"
            )));
        }
        Ok(Box::new(SkeletonModel {
            cluster,
            free: round_up(volume - used, cluster) - cluster,
        }))
    }

    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // Program first; the device is appended. No -q in the label-less
        // form advise prints (it drops -q itself).
        Some(super::argv(&["mkfs.skeleton", "-b", &cluster.to_string()]))
    }
}

/// How `fsfit info` recognises it (a real one declares this in its
/// probe.rs): magic bytes at offsets from the volume's start, and the parse
/// info calls only when one of them matched, whose errors name the field.
pub const SIGNATURE: Signature = Signature {
    // When info tries it: strong signatures (magic numbers) low, weak ones
    // (FAT's bare 0x55AA) last.
    order: 200,
    weak: false,
    magics: &[Magic::at(0, MAGIC)],
    parse: |dev, _head, _opts| Some(Ok(parse(dev))),
    // Filesystems with a boot sector say how to tell it from an MBR.
    boot_sector: None,
    damaged: None,
};

/// The parse (a real one's is probe::parse(dev, head)).
fn parse(dev: &mut Dev) -> VolumeInfo {
    let size = dev.size();
    VolumeInfo {
        fs: INFO.name.to_string(),
        cluster_bytes: 4096,
        sector_bytes: 512,
        volume_bytes: size,
        total_clusters: Some(size / 4096),
        // Labels, free counts, details and warnings where it keeps them.
        ..VolumeInfo::default()
    }
}

/// One config: what the fresh volume has free, what a copy takes.
struct SkeletonModel {
    cluster: u64,
    free: u64,
}

impl Model for SkeletonModel {
    fn free_bytes(&self) -> u64 {
        self.free
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        // Called once per directory from several threads, each with its own
        // `acc`: only add. Non-additive work goes in Model::finish.
        let blocks = (dir.entries.len() as u64)
            .div_ceil(ENTRIES_PER_BLOCK)
            .max(1);
        acc.meta += blocks * self.cluster;
        for e in dir.entries.iter().filter(|e| e.kind == Kind::File) {
            acc.add_content(e.size, self.cluster);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skeleton_is_a_template_not_a_filesystem() {
        assert!(super::super::by_name(INFO.name).is_none());
        let m = Skeleton.model(1 << 30, 4096).unwrap();
        assert!(m.free_bytes() > 0 && m.free_bytes() < 1 << 30);
        assert!(Skeleton.model(1 << 30, 3000).is_err());
    }

    #[test]
    fn the_probe_answers_only_to_its_signature() {
        let mut img = vec![0u8; 1 << 16];
        img[..MAGIC.len()].copy_from_slice(MAGIC);
        let mut read = crate::fs::probe::bytes::slice_reader(&img);
        let mut dev = Dev::new(&mut read);
        let opts = crate::fs::probe::ProbeOptions::default();
        let v = (SIGNATURE.parse)(&mut dev, &img[..4096], &opts)
            .unwrap()
            .unwrap();
        assert_eq!((v.fs.as_str(), v.volume_bytes), ("skeleton", 1 << 16));
    }
}
