//! The Kingston SD card's fragmentation test (the second half of
//! shared/seeds/003_945c015160d0daec.txt: a Kingston 512 MB SD card of
//! 2006, FAT32 with 4 KiB clusters) replayed through the `sd-2006-small-eb`
//! profile.
//!
//! The seed's procedure on a real FAT32 image made by mkfs.fat and filled
//! with mtools: write 124 KiB and 4 KiB files interleaved until the volume
//! is full, delete the 4 KiB ones, write a 15.2 MB file into the holes. The
//! block trace is generated from the real layout (the clusters mshowfat
//! reports, offsets from the image's own boot sector) the way Linux's vfat
//! writes it after `sync`: each run of clusters in requests of the profile's
//! largest transfer, then the FAT blocks the allocation dirtied. The seed
//! measured 54x slower fragmented writes and 2.2x slower fragmented reads.

use crate::common::{have, run, Image};
use fsfit::flash::{profile, replay, Op, Request};
use std::path::Path;

const PART: u64 = 1 << 20;
const CLUSTER: u64 = 4096;

struct Layout {
    data_start: u64,
    fat_start: u64,
    fat_bytes: u64,
    fats: u64,
}

fn layout(img: &Path) -> Layout {
    let b = std::fs::read(img).unwrap()[..512].to_vec();
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as u64;
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as u64;
    let bps = u16_at(11);
    assert_eq!(bps * b[13] as u64, CLUSTER, "mkfs.fat made 4 KiB clusters");
    let (reserved, fats, fat_sectors) = (u16_at(14), b[16] as u64, u32_at(36));
    Layout {
        fat_start: reserved * bps,
        fat_bytes: fat_sectors * bps,
        fats,
        data_start: (reserved + fats * fat_sectors) * bps,
    }
}

/// Fill the image with interleaved 124 KiB / 4 KiB files until it is full,
/// in directories of 400 entries, by mcopy batches.
fn fill(img: &str, src: &Path) -> u64 {
    let free = free_bytes(img);
    let pairs = free / (128 * 1024) - 2;
    std::fs::write(src.join("big"), vec![0xa5u8; 124 * 1024]).unwrap();
    std::fs::write(src.join("small"), vec![0x5au8; 4096]).unwrap();
    for d in 0..pairs.div_ceil(200) {
        let dir = src.join(format!("D{d:03}"));
        std::fs::create_dir(&dir).unwrap();
        for i in (d * 200)..((d + 1) * 200).min(pairs) {
            std::fs::hard_link(src.join("big"), dir.join(format!("B{i:05}"))).unwrap();
            std::fs::hard_link(src.join("small"), dir.join(format!("S{i:05}"))).unwrap();
        }
        run("mmd", &["-i", img, &format!("::/D{d:03}")]);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        // B00007 before S00007 before B00008: the seed's interleaving.
        names.sort_by_key(|n| (n[1..].to_string(), n[..1].to_string()));
        let paths: Vec<String> = names
            .iter()
            .map(|n| dir.join(n).to_string_lossy().into_owned())
            .collect();
        let target = format!("::/D{d:03}/");
        let mut args = vec!["-i", img];
        args.extend(paths.iter().map(String::as_str));
        args.push(&target);
        run("mcopy", &args);
    }
    pairs
}

/// The cluster runs `mshowfat` prints for one file: `<3-5> <9> ...`.
fn runs_of(img: &str, file: &str) -> Vec<(u64, u64)> {
    let out = run("mshowfat", &["-i", img, file]);
    out.split('<')
        .skip(1)
        .map(|r| {
            let r = r.split('>').next().unwrap();
            let mut it = r.split('-').map(|n| n.trim().parse::<u64>().unwrap());
            let first = it.next().unwrap();
            (first, it.next().unwrap_or(first))
        })
        .collect()
}

fn requests(op: Op, start: u64, len: u64, max: u64, out: &mut Vec<Request>) {
    let mut off = 0;
    while off < len {
        let n = max.min(len - off);
        out.push(Request {
            op,
            offset: start + off,
            len: n,
            t_ns: 0,
        });
        off += n;
    }
}

/// Data requests for `runs`, then (for writes) the FAT blocks they dirtied.
fn trace(op: Op, runs: &[(u64, u64)], l: &Layout, max: u64) -> Vec<Request> {
    let mut out = Vec::new();
    let mut fat_blocks = std::collections::BTreeSet::new();
    for &(a, b) in runs {
        let start = PART + l.data_start + (a - 2) * CLUSTER;
        requests(op, start, (b - a + 1) * CLUSTER, max, &mut out);
        for c in [a, b] {
            fat_blocks.insert(c * 4 / 4096);
        }
    }
    if op == Op::Write {
        for copy in 0..l.fats {
            for blk in &fat_blocks {
                let at = PART + l.fat_start + copy * l.fat_bytes + blk * 4096;
                out.push(Request {
                    op,
                    offset: at,
                    len: 4096,
                    t_ns: 0,
                });
            }
        }
    }
    out
}

fn free_bytes(img: &str) -> u64 {
    run("mdir", &["-i", img, "::"])
        .lines()
        .find(|l| l.contains("bytes free"))
        .map(|l| l.chars().filter(char::is_ascii_digit).collect::<String>())
        .and_then(|s| s.parse().ok())
        .expect("mdir says how many bytes are free")
}

fn mb_s(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e6
}

#[test]
fn kingston_card_fragmented_fat32_write_is_25_to_100x_slower_on_the_2006_card() {
    if !have(&["mkfs.fat", "mcopy", "mdel", "mmd", "mdir", "mshowfat"]) {
        return;
    }
    let image = Image::new(511 << 20);
    let img = image.path_str();
    run("mkfs.fat", &["-F", "32", "-s", "8", "-S", "512", img]);
    let l = layout(&image.path);
    let src = tempfile::tempdir().unwrap();
    let before = free_bytes(img);
    let pairs = fill(img, src.path());
    let used = (before - free_bytes(img)) / CLUSTER;
    for d in 0..pairs.div_ceil(200) {
        run("mdel", &["-i", img, &format!("::/D{d:03}/S*")]);
    }
    let big = src.path().join("BIG");
    std::fs::write(&big, vec![0x3cu8; 15_200_000]).unwrap();
    run("mcopy", &["-i", img, big.to_str().unwrap(), "::/BIG"]);
    let frag = runs_of(img, "::/BIG");
    assert!(
        frag.len() > 3000,
        "the 15.2 MB file should lie in ~3,700 holes, not {} runs",
        frag.len()
    );

    let p = profile("sd-2006-small-eb").unwrap();
    let max = p.max_transfer_bytes();
    let mut dev = p.device();
    let fill_trace = trace(Op::Write, &[(2, 2 + used - 1)], &l, max);
    let fill_r = replay(&mut *dev, &fill_trace);
    let frag_r = replay(&mut *dev, &trace(Op::Write, &frag, &l, max));
    let contiguous_w = mb_s(used * CLUSTER, fill_r.device_seconds);
    let fragmented_w = mb_s(15_200_000, frag_r.device_seconds);
    let n = 15_200_000u64.div_ceil(CLUSTER);
    let read_c = replay(&mut *dev, &trace(Op::Read, &[(2, 2 + n - 1)], &l, max));
    let read_f = replay(&mut *dev, &trace(Op::Read, &frag, &l, max));
    let (contiguous_r, fragmented_r) = (
        mb_s(n * CLUSTER, read_c.device_seconds),
        mb_s(n * CLUSTER, read_f.device_seconds),
    );
    let (w, r) = (contiguous_w / fragmented_w, contiguous_r / fragmented_r);
    eprintln!(
        "the Kingston card test (003_945c015160d0daec.txt) on sd-2006-small-eb: {} fragments; write {contiguous_w:.2} vs {fragmented_w:.3} MB/s = {w:.1}x \
         (seed 1.67 vs 0.031 = 54x); read {contiguous_r:.2} vs {fragmented_r:.2} MB/s = {r:.2}x (seed 7.2 vs 3.3 = 2.2x); \
         {} AU copies",
        frag.len(),
        frag_r.au_copies
    );
    assert!(
        (25.0..=100.0).contains(&w),
        "fragmented write {w:.1}x slower, the seed says 25-100x"
    );
    assert!(
        (1.5..=4.0).contains(&r),
        "fragmented read {r:.2}x slower, the seed says 1.5-4x"
    );
}
