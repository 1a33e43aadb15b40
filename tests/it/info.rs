//! `fsfit info` parsers against real volumes: images made by each mkfs tool
//! at several cluster sizes, whole-disk images partitioned by sfdisk
//! (checked against the kernel's own partition scan), corrupted copies,
//! a corpus of recorded reads under tests/fixtures/info-corpus/ with
//! snapshots, a mutation fuzzer over that corpus, and FIEMAP fragmentation
//! on real mounts (ext4 loop mount, exfat-fuse).
//!
//! The parsers are called through the library's API; `fsfit info` itself is
//! tested at the end.
use crate::common;

use fsfit::info;

use common::{have, run, sfdisk, Image};
use info::{Partition, VolumeInfo};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

const K: u64 = 1 << 10;
const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

// ---------------------------------------------------------------- helpers

#[cfg(target_os = "linux")]
fn probe_img(path: &Path) -> VolumeInfo {
    info::probe_path(path, 0).unwrap_or_else(|e| panic!("probe {}: {e}", path.display()))
}

/// `blkid -p` (low-level probe, no cache) value of one tag.
#[cfg(target_os = "linux")]
fn blkid(path: &Path, tag: &str) -> Option<String> {
    let out = Command::new("blkid")
        .args(["-p", "-o", "value", "-s", tag])
        .arg(path)
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The number after `key` on the first line that starts with it
/// ("Free blocks:   123", "fdblocks = 5", "user_block_count [0x 10 : 16]").
#[cfg(target_os = "linux")]
fn number_after(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().map(str::trim).find(|l| l.starts_with(key))?;
    let rest = &line[key.len()..];
    let rest = rest.rsplit_once(" : ").map_or(rest, |(_, r)| r);
    let digits: String = rest
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

#[cfg(target_os = "linux")]
fn output(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[cfg(target_os = "linux")]
fn check(v: &VolumeInfo, fs: &str, cluster: u64, volume: u64, label: &str) {
    assert_eq!(v.fs, fs, "{v:#?}");
    assert_eq!(v.cluster_bytes, cluster, "{v:#?}");
    assert_eq!(v.volume_bytes, volume, "{v:#?}");
    assert_eq!(v.label.as_deref(), Some(label), "{v:#?}");
    if let (Some(f), Some(u)) = (v.free_bytes, v.used_bytes) {
        assert!(f <= volume && u <= volume, "{v:#?}");
    }
}

#[cfg(target_os = "linux")]
fn check_uuid(v: &VolumeInfo, path: &Path) {
    if let Some(want) = blkid(path, "UUID") {
        assert_eq!(v.uuid.as_deref(), Some(want.as_str()), "{v:#?}");
    }
}

// -------------------------------------------------------------- builders

fn mk_fat(bits: u32, size: u64, spc: u64, sector: u64, label: &str) -> Image {
    let img = Image::new(size);
    let (b, s, ss) = (bits.to_string(), spc.to_string(), sector.to_string());
    run(
        "mkfs.fat",
        &["-F", &b, "-s", &s, "-S", &ss, "-n", label, img.path_str()],
    );
    img
}

fn mk_exfat(size: u64, cluster: u64, label: &str) -> Image {
    let img = Image::new(size);
    run(
        "mkfs.exfat",
        &["-c", &cluster.to_string(), "-L", label, img.path_str()],
    );
    img
}

fn mk_ntfs(size: u64, cluster: u64, label: &str) -> Image {
    let img = Image::new(size);
    run(
        "mkntfs",
        &[
            "-Q",
            "-F",
            "-c",
            &cluster.to_string(),
            "-L",
            label,
            img.path_str(),
        ],
    );
    img
}

fn mk_ext(kind: &str, size: u64, block: u64, extra: &[&str], label: &str) -> Image {
    let img = Image::new(size);
    let b = block.to_string();
    let mut args = vec!["-F", "-q", "-t", kind, "-b", &b, "-L", label];
    args.extend_from_slice(extra);
    args.push(img.path_str());
    run("mke2fs", &args);
    img
}

fn mk_xfs(size: u64, block: u64, label: &str) -> Image {
    let img = Image::new(size);
    let b = format!("size={block}");
    run(
        "mkfs.xfs",
        &["-f", "-q", "-b", &b, "-L", label, img.path_str()],
    );
    img
}

fn mk_btrfs(size: u64, node: u64, label: &str) -> Image {
    let img = Image::new(size);
    let n = node.to_string();
    run(
        "mkfs.btrfs",
        &[
            "-f",
            "-q",
            "-s",
            "4096",
            "-n",
            &n,
            "-L",
            label,
            img.path_str(),
        ],
    );
    img
}

fn mk_f2fs(size: u64, label: &str) -> Image {
    let img = Image::new(size);
    run("mkfs.f2fs", &["-f", "-q", "-l", label, img.path_str()]);
    img
}

fn mk_udf(size: u64, block: u64, label: &str) -> Image {
    let img = Image::new(size);
    let b = format!("--blocksize={block}");
    let l = format!("--label={label}");
    run("mkudffs", &["--media-type=hd", &b, &l, img.path_str()]);
    img
}

/// Offset of the root directory of a FAT12/16 image.
fn fat16_root(path: &Path) -> u64 {
    let b = std::fs::read(path).unwrap();
    let bps = u64::from(u16::from_le_bytes([b[11], b[12]]));
    let rsvd = u64::from(u16::from_le_bytes([b[14], b[15]]));
    let fatsz = u64::from(u16::from_le_bytes([b[22], b[23]]));
    (rsvd + u64::from(b[16]) * fatsz) * bps
}

fn write_at(path: &Path, off: u64, bytes: &[u8]) {
    use std::io::{Seek, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(std::io::SeekFrom::Start(off)).unwrap();
    f.write_all(bytes).unwrap();
}

// ------------------------------------------------------ real-image tests

#[cfg(target_os = "linux")]
#[test]
fn fat_images_by_cluster_count() {
    if !have(&["mkfs.fat", "fsck.fat", "blkid"]) {
        return;
    }
    // (FAT bits, image size, sectors per cluster, sector size)
    let cases = [
        (12, 2 * M, 1, 512),
        (12, 4 * M, 4, 512),
        (12, 8 * M, 8, 512),
        (16, 16 * M, 1, 512),
        (16, 64 * M, 4, 512),
        (16, 256 * M, 16, 512),
        (16, 64 * M, 1, 4096),
        (16, G, 64, 512),
        (32, 64 * M, 1, 512),
        (32, 512 * M, 8, 512),
        (32, 4 * G, 64, 512),
        (32, 300 * M, 1, 4096),
    ];
    for (bits, size, spc, ss) in cases {
        let label = format!("F{bits}S{spc}");
        let img = mk_fat(bits, size, spc, ss, &label);
        let v = probe_img(&img.path);
        let what = format!("FAT{bits} {size} -s {spc} -S {ss}");
        // mkfs.fat may leave a few sectors off the end (1 GiB FAT16 at
        // -s 64: BPB_TotSec32 = 2097144, 8 short of the image).
        assert!(
            v.volume_bytes <= size && size - v.volume_bytes <= 64 * K,
            "{what}: {v:#?}"
        );
        check(&v, &format!("fat{bits}"), spc * ss, v.volume_bytes, &label);
        assert_eq!(v.sector_bytes, ss, "{what}");
        check_uuid(&v, &img.path);
        // fsck.fat -n -v: "N files, USED/TOTAL clusters".
        let out = output("fsck.fat", &["-n", "-v", img.path_str()]);
        let tail = out.lines().last().unwrap_or("");
        let (used, total) = tail
            .rsplit_once(", ")
            .and_then(|(_, r)| r.split_once(" clusters"))
            .and_then(|(r, _)| r.split_once('/'))
            .map(|(u, t)| (u.parse::<u64>().unwrap(), t.parse::<u64>().unwrap()))
            .unwrap_or_else(|| panic!("fsck.fat output: {out}"));
        assert_eq!(v.total_clusters, Some(total), "{what}: {v:#?}");
        assert_eq!(
            v.free_bytes,
            Some((total - used) * spc * ss),
            "{what}: {v:#?}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn fat32_layout_with_too_few_clusters_is_fat32_with_the_spec_warning() {
    if !have(&["mkfs.fat"]) {
        return;
    }
    // mkfs.fat -F 32 on 32 MiB warns and writes a FAT32 BPB with < 65525
    // clusters; Linux, Windows and blkid call it FAT32 (as `fsfit usage`
    // does), fatgen103's count says FAT16: that goes in a warning.
    let img = mk_fat(32, 32 * M, 1, 512, "SMALL32");
    let v = probe_img(&img.path);
    assert_eq!(v.fs, "fat32", "{v:#?}");
    assert!(
        v.warnings
            .iter()
            .any(|w| w.contains("fatgen103") && w.contains("FAT16")),
        "{v:#?}"
    );
    assert_eq!(v.label.as_deref(), Some("SMALL32"));
    if have(&["blkid"]) {
        assert_eq!(blkid(&img.path, "VERSION").as_deref(), Some("FAT32"));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn exfat_images() {
    if !have(&["mkfs.exfat", "dump.exfat", "blkid"]) {
        return;
    }
    for (size, cluster) in [
        (64 * M, 512),
        (64 * M, 4 * K),
        (256 * M, 32 * K),
        (G, 128 * K),
        (4 * G, M),
        (4 * G, 32 * M),
    ] {
        let label = format!("EX{}K", cluster / K);
        let img = mk_exfat(size, cluster, &label);
        let v = probe_img(&img.path);
        check(&v, "exfat", cluster, size, &label);
        check_uuid(&v, &img.path);
        let out = output("dump.exfat", &[img.path_str()]);
        let free = number_after(&out, "Free Clusters:").expect("dump.exfat free");
        let total = number_after(&out, "Total Clusters:").expect("dump.exfat total");
        assert_eq!(v.total_clusters, Some(total), "{v:#?}");
        assert_eq!(v.free_bytes, Some(free * cluster), "{v:#?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ntfs_images() {
    if !have(&["mkntfs", "ntfsinfo", "blkid"]) {
        return;
    }
    for (size, cluster) in [
        (64 * M, 512),
        (64 * M, 4 * K),
        (128 * M, 64 * K),
        (256 * M, 128 * K),
        (512 * M, 2 * M),
    ] {
        let label = format!("NT{}K", cluster / K);
        let img = mk_ntfs(size, cluster, &label);
        let v = probe_img(&img.path);
        // number_of_sectors leaves out the backup boot sector at the end.
        check(&v, "ntfs", cluster, size - 512, &label);
        check_uuid(&v, &img.path);
        let out = output("ntfsinfo", &["-m", img.path_str()]);
        let free = number_after(&out, "Free Clusters:").expect("ntfsinfo free");
        let total = number_after(&out, "Volume Size in Clusters:").expect("ntfsinfo total");
        assert_eq!(v.total_clusters, Some(total), "{v:#?}");
        assert_eq!(v.free_bytes, Some(free * cluster), "{v:#?}\n{out}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ext_images() {
    if !have(&["mke2fs", "dumpe2fs", "blkid"]) {
        return;
    }
    let cases: [(&str, u64, u64, &[&str], u64); 6] = [
        ("ext2", 64 * M, 1024, &[], 1024),
        ("ext3", 64 * M, 4096, &[], 4096),
        ("ext4", 64 * M, 1024, &[], 1024),
        ("ext4", 256 * M, 4096, &[], 4096),
        ("ext4", 256 * M, 2048, &["-O", "^has_journal"], 2048),
        (
            "ext4",
            512 * M,
            4096,
            &["-O", "bigalloc", "-C", "65536"],
            65536,
        ),
    ];
    for (kind, size, block, extra, unit) in cases {
        let label = format!("{kind}b{block}");
        let img = mk_ext(kind, size, block, extra, &label);
        let v = probe_img(&img.path);
        check(&v, kind, unit, size, &label);
        check_uuid(&v, &img.path);
        assert_eq!(blkid(&img.path, "TYPE").as_deref(), Some(kind));
        let out = output("dumpe2fs", &["-h", img.path_str()]);
        let free = number_after(&out, "Free blocks:").expect("dumpe2fs free");
        assert_eq!(v.free_bytes, Some(free * block), "{v:#?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn xfs_images() {
    if !have(&["mkfs.xfs", "xfs_db", "blkid"]) {
        return;
    }
    for block in [1024, 4096, 65536] {
        let label = format!("x{block}");
        let size = 320 * M;
        let img = mk_xfs(size, block, &label);
        let v = probe_img(&img.path);
        check(&v, "xfs", block, size, &label);
        check_uuid(&v, &img.path);
        let out = output(
            "xfs_db",
            &["-r", "-c", "sb 0", "-c", "p fdblocks", img.path_str()],
        );
        let free = number_after(&out, "fdblocks =").expect("xfs_db fdblocks");
        assert_eq!(v.free_bytes, Some(free * block), "{v:#?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn btrfs_images() {
    if !have(&["mkfs.btrfs", "btrfs", "blkid"]) {
        return;
    }
    for (size, node) in [(256 * M, 16384), (512 * M, 65536), (256 * M, 4096)] {
        let label = format!("bt{node}");
        let img = mk_btrfs(size, node, &label);
        let v = probe_img(&img.path);
        check(&v, "btrfs", 4096, size, &label);
        check_uuid(&v, &img.path);
        let out = output("btrfs", &["inspect-internal", "dump-super", img.path_str()]);
        let used = number_after(&out, "bytes_used").expect("dump-super bytes_used");
        assert_eq!(v.used_bytes, Some(used), "{v:#?}");
        assert!(v.details.contains(&("nodesize".into(), node.to_string())));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn f2fs_images() {
    if !have(&["mkfs.f2fs", "dump.f2fs", "blkid"]) {
        return;
    }
    for size in [64 * M, 256 * M, G] {
        let label = format!("f2fs{}M", size / M);
        let img = mk_f2fs(size, &label);
        let v = probe_img(&img.path);
        check(&v, "f2fs", 4096, size, &label);
        check_uuid(&v, &img.path);
        let out = output("dump.f2fs", &["-d", "1", img.path_str()]);
        let user = number_after(&out, "user_block_count").expect("user_block_count");
        let valid = number_after(&out, "valid_block_count").expect("valid_block_count");
        assert_eq!(v.free_bytes, Some((user - valid) * 4096), "{v:#?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn udf_images() {
    if !have(&["mkudffs", "udfinfo", "blkid"]) {
        return;
    }
    for block in [512, 1024, 2048, 4096] {
        let label = format!("UDF{block}");
        let size = 64 * M;
        let img = mk_udf(size, block, &label);
        let v = probe_img(&img.path);
        check(&v, "udf", block, size, &label);
        check_uuid(&v, &img.path);
        let out = output("udfinfo", &[img.path_str()]);
        let free = number_after(&out, "freeblocks=").expect("udfinfo freeblocks");
        assert_eq!(v.free_bytes, Some(free * block), "{v:#?}\n{out}");
    }
}

// ------------------------------------------------------------ partitions

/// Copy the non-zero 64 KiB blocks of `src` into `dst` at `offset`.
fn copy_into(src: &Path, dst: &Path, offset: u64) {
    let mut s = std::fs::File::open(src).unwrap();
    let mut d = std::fs::OpenOptions::new().write(true).open(dst).unwrap();
    let mut buf = vec![0u8; 64 * K as usize];
    let mut pos = 0u64;
    loop {
        let n = s.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        if buf[..n].iter().any(|&b| b != 0) {
            d.seek(SeekFrom::Start(offset + pos)).unwrap();
            d.write_all(&buf[..n]).unwrap();
        }
        pos += n as u64;
    }
}

fn parts_of(path: &Path) -> Vec<Partition> {
    let f = std::fs::File::open(path).unwrap();
    let mut r = info::file_reader(&f, 0);
    info::partitions(&mut r).unwrap_or_else(|e| panic!("partitions: {e}"))
}

/// libfdisk's view: `sfdisk -J`, (start, size) in bytes, containers left out.
#[cfg(target_os = "linux")]
fn sfdisk_parts(disk: &Path) -> Vec<(u64, u64)> {
    let v: Value = serde_json::from_str(&output("sfdisk", &["-J", disk.to_str().unwrap()]))
        .expect("sfdisk -J");
    let t = &v["partitiontable"];
    let ss = t["sectorsize"].as_u64().unwrap_or(512);
    t["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !matches!(p["type"].as_str(), Some("5" | "f" | "85")))
        .map(|p| {
            (
                p["start"].as_u64().unwrap() * ss,
                p["size"].as_u64().unwrap() * ss,
            )
        })
        .collect()
}

/// The kernel's view (root only): losetup -P, then sysfs start/size.
#[cfg(target_os = "linux")]
fn kernel_parts(disk: &Path) -> Option<Vec<(u64, u64)>> {
    if !fsfit::device::is_root() || !Path::new("/dev/loop-control").exists() {
        common::skip("root and loop devices for the kernel partition cross-check");
        return None;
    }
    let dev = run("losetup", &["-P", "-f", "--show", disk.to_str().unwrap()])
        .trim()
        .to_string();
    let _lo = common::Loop { dev: dev.clone() };
    let name = dev.trim_start_matches("/dev/").to_string();
    let mut out = vec![];
    for i in 1..16 {
        let base = format!("/sys/class/block/{name}p{i}");
        let Ok(start) = std::fs::read_to_string(format!("{base}/start")) else {
            continue;
        };
        let size = std::fs::read_to_string(format!("{base}/size")).unwrap();
        let s: u64 = start.trim().parse().unwrap();
        let z: u64 = size.trim().parse().unwrap();
        // Extended partition containers show up with a size of 1 or 2 sectors.
        if z > 2 {
            out.push((s * 512, z * 512));
        }
    }
    if out.is_empty() {
        eprintln!(
            "SKIP: this kernel found no partitions on {dev} (built without \
             CONFIG_MSDOS_PARTITION / CONFIG_EFI_PARTITION?)"
        );
        return None;
    }
    Some(out)
}

#[cfg(target_os = "linux")]
fn cross_check(d: &Disk) {
    let ours: Vec<(u64, u64)> = d
        .parts
        .iter()
        .map(|p| (p.start_bytes, p.size_bytes))
        .collect();
    assert_eq!(ours, sfdisk_parts(&d.img.path), "against sfdisk -J");
    if let Some(k) = kernel_parts(&d.img.path) {
        assert_eq!(ours, k, "against the kernel");
    }
}

/// A disk image with partitions from an sfdisk script; one filesystem
/// image copied into each listed partition.
struct Disk {
    img: Image,
    parts: Vec<Partition>,
}

fn disk(size: u64, script: &str, fill: &[(u32, Image)]) -> Disk {
    let img = Image::new(size);
    sfdisk(&img.path, script);
    let parts = parts_of(&img.path);
    for (index, fsimg) in fill {
        let p = parts
            .iter()
            .find(|p| p.index == *index)
            .unwrap_or_else(|| panic!("no partition {index}: {parts:?}"));
        copy_into(&fsimg.path, &img.path, p.start_bytes);
    }
    Disk { img, parts }
}

fn mbr_script() -> &'static str {
    // 1: 1 MiB aligned; 2: an unaligned start; 3: an extended partition
    // holding logicals 5 and 6.
    "label: dos\n\
     start=2048, size=32768, type=c\n\
     start=36001, size=20000, type=7\n\
     start=65536, size=95000, type=5\n\
     start=67584, size=32768, type=83\n\
     start=102401, size=40000, type=c\n"
}

fn gpt_script() -> &'static str {
    "label: gpt\n\
     start=2048, size=6144, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name=\"data one\"\n\
     start=8192, size=32768, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4\n\
     start=53249, size=20000, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7\n"
}

#[test]
#[cfg(target_os = "linux")]
fn mbr_disk_with_logical_partitions() {
    if !have(&["sfdisk", "mkfs.fat", "mkntfs"]) {
        return;
    }
    let d = disk(
        80 * M,
        mbr_script(),
        &[
            (1, mk_fat(16, 32768 * 512, 1, 512, "P1FAT")),
            (2, mk_ntfs(20000 * 512, 4096, "P2NTFS")),
            (6, mk_fat(16, 40000 * 512, 2, 512, "P6FAT")),
        ],
    );
    let got: Vec<(u32, u64, u64, bool, bool)> = d
        .parts
        .iter()
        .map(|p| {
            (
                p.index,
                p.start_bytes / 512,
                p.size_bytes / 512,
                p.aligned_1m,
                p.aligned_4m,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 2048, 32768, true, false),
            (2, 36001, 20000, false, false),
            (5, 67584, 32768, true, false),
            (6, 102401, 40000, false, false),
        ],
        "{:#?}",
        d.parts
    );
    assert_eq!(d.parts[0].kind, "mbr:0x0c FAT32 (LBA)");
    if let Some(k) = kernel_parts(&d.img.path) {
        let ours: Vec<(u64, u64)> = d
            .parts
            .iter()
            .map(|p| (p.start_bytes, p.size_bytes))
            .collect();
        assert_eq!(ours, k);
    }
    let v = info::probe_path(&d.img.path, 2048 * 512).unwrap();
    check(&v, "fat16", 512, 32768 * 512, "P1FAT");
    let v = info::probe_path(&d.img.path, 36001 * 512).unwrap();
    check(&v, "ntfs", 4096, 20000 * 512 - 512, "P2NTFS");
    let v = info::probe_path(&d.img.path, 102401 * 512).unwrap();
    check(&v, "fat16", 1024, 40000 * 512, "P6FAT");
    // The whole disk is not a volume; the error says where to look.
    let e = info::probe_path(&d.img.path, 0).unwrap_err().to_string();
    assert!(
        e.contains("partition table") && e.contains("1048576"),
        "{e}"
    );
}

#[test]
#[cfg(target_os = "linux")]
fn gpt_disk_aligned_and_unaligned() {
    if !have(&["sfdisk", "mkfs.exfat", "mke2fs"]) {
        return;
    }
    let d = disk(
        64 * M,
        gpt_script(),
        &[
            (1, mk_exfat(6144 * 512, 4096, "GPTEX")),
            (2, mk_ext("ext4", 32768 * 512, 4096, &[], "gptext")),
            (3, mk_exfat(20000 * 512, 512, "ODD")),
        ],
    );
    let got: Vec<(u32, u64, bool, bool)> = d
        .parts
        .iter()
        .map(|p| (p.index, p.start_bytes, p.aligned_1m, p.aligned_4m))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, M, true, false),
            (2, 4 * M, true, true),
            (3, 53249 * 512, false, false),
        ]
    );
    assert_eq!(d.parts[0].kind, "gpt:Microsoft basic data \"data one\"");
    assert_eq!(d.parts[1].kind, "gpt:Linux filesystem");
    if let Some(k) = kernel_parts(&d.img.path) {
        let ours: Vec<(u64, u64)> = d
            .parts
            .iter()
            .map(|p| (p.start_bytes, p.size_bytes))
            .collect();
        assert_eq!(ours, k);
    }
    let v = info::probe_path(&d.img.path, M).unwrap();
    check(&v, "exfat", 4096, 6144 * 512, "GPTEX");
    let v = info::probe_path(&d.img.path, 4 * M).unwrap();
    check(&v, "ext4", 4096, 32768 * 512, "gptext");
    let v = info::probe_path(&d.img.path, 53249 * 512).unwrap();
    check(&v, "exfat", 512, 20000 * 512, "ODD");
    let e = info::probe_path(&d.img.path, 0).unwrap_err().to_string();
    assert!(e.contains("partition table"), "{e}");
}

fn udf_disk() -> Disk {
    // UDF at an unaligned start inside a larger disk: its size comes from
    // the anchors after its partition, not from the device end.
    disk(
        48 * M,
        "label: dos\nstart=2049, size=40000, type=83\n",
        &[(1, mk_udf(40000 * 512, 2048, "InsideUDF"))],
    )
}

#[test]
#[cfg(target_os = "linux")]
fn udf_inside_a_partition() {
    if !have(&["sfdisk", "mkudffs"]) {
        return;
    }
    let d = udf_disk();
    cross_check(&d);
    let v = info::probe_path(&d.img.path, 2049 * 512).unwrap();
    check(&v, "udf", 2048, 40000 * 512, "InsideUDF");
}

#[cfg(target_os = "linux")]
#[test]
fn superfloppy_has_no_partitions() {
    if !have(&["mkfs.fat", "mkfs.exfat"]) {
        return;
    }
    assert!(parts_of(&mk_fat(32, 64 * M, 1, 512, "SUPER").path).is_empty());
    assert!(parts_of(&mk_exfat(64 * M, 4096, "SUPER").path).is_empty());
    assert!(parts_of(&Image::new(M).path).is_empty());
}

/// The exFAT volume Windows made with its Russian default label, its
/// label entry ten clusters into the root directory (see the README in
/// tests/fixtures/windows).
pub fn windows_exfat() -> Image {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/windows/exfat-label-after-files.img.xz");
    let img = Image::new(0);
    let out = Command::new("xz")
        .arg("-dc")
        .arg(&src)
        .output()
        .expect("run xz");
    assert!(out.status.success(), "xz -dc {}", src.display());
    std::fs::write(&img.path, &out.stdout).unwrap();
    img
}

#[test]
// The fixture is unpacked with xz, run as a Linux program.
#[cfg(target_os = "linux")]
fn exfat_label_entry_found_past_the_first_cluster() {
    if !have(&["xz"]) {
        return;
    }
    let img = windows_exfat();
    let f = std::fs::File::open(&img.path).unwrap();
    let v = info::probe(&mut info::file_reader(&f, 0)).unwrap();
    assert_eq!(v.fs, "exfat");
    assert_eq!(v.cluster_bytes, 1024);
    assert_eq!(v.label.as_deref(), Some("Новый том"), "{v:#?}");
    assert_eq!(v.label_error, None);
    assert_eq!(v.uuid.as_deref(), Some("9C23-8877"));
}

// ------------------------------------------------ corpus: recorded reads

const CORPUS_MAGIC: &[u8; 8] = b"FSFITSP1";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/info-corpus")
}

/// An image kept as its non-zero 512-byte blocks: the regions the parsers
/// read on the real image, plus its first 128 KiB. Reads elsewhere (below
/// `len`) see zeros, as on the sparse original.
#[derive(Clone)]
struct Sparse {
    len: u64,
    chunks: BTreeMap<u64, Vec<u8>>,
}

impl Sparse {
    fn load(path: &Path) -> Sparse {
        let b = std::fs::read(path).unwrap();
        assert_eq!(&b[..8], CORPUS_MAGIC, "{}", path.display());
        let len = u64::from_le_bytes(b[8..16].try_into().unwrap());
        let mut chunks = BTreeMap::new();
        let mut p = 16;
        while p < b.len() {
            let off = u64::from_le_bytes(b[p..p + 8].try_into().unwrap());
            let n = u32::from_le_bytes(b[p + 8..p + 12].try_into().unwrap()) as usize;
            chunks.insert(off, b[p + 12..p + 12 + n].to_vec());
            p += 12 + n;
        }
        Sparse { len, chunks }
    }

    fn save(&self, path: &Path) {
        let mut b = CORPUS_MAGIC.to_vec();
        b.extend_from_slice(&self.len.to_le_bytes());
        for (off, data) in &self.chunks {
            b.extend_from_slice(&off.to_le_bytes());
            b.extend_from_slice(&(data.len() as u32).to_le_bytes());
            b.extend_from_slice(data);
        }
        std::fs::write(path, b).unwrap();
    }

    fn read(&self, off: u64, len: usize) -> Vec<u8> {
        if off >= self.len {
            return vec![];
        }
        let n = (len as u64).min(self.len - off) as usize;
        let mut out = vec![0u8; n];
        let end = off + n as u64;
        // Chunks starting before `end`, last ones first until they end before `off`.
        for (&c, data) in self.chunks.range(..end).rev() {
            let cend = c + data.len() as u64;
            if cend <= off {
                if c + (64 * M) < off {
                    break; // no chunk is longer than this
                }
                continue;
            }
            let from = off.max(c);
            let to = end.min(cend);
            out[(from - off) as usize..(to - off) as usize]
                .copy_from_slice(&data[(from - c) as usize..(to - c) as usize]);
        }
        out
    }

    /// Overwrite bytes (a new chunk if nothing is stored there yet).
    fn write(&mut self, off: u64, bytes: &[u8]) {
        for (i, &b) in bytes.iter().enumerate() {
            let at = off + i as u64;
            let hit = self
                .chunks
                .range_mut(..=at)
                .next_back()
                .filter(|(c, d)| at < **c + d.len() as u64);
            match hit {
                Some((c, d)) => {
                    let c = *c;
                    d[(at - c) as usize] = b;
                }
                None => {
                    // Grow the chunk that ends right here, or start one.
                    match self.chunks.range_mut(..at).next_back() {
                        Some((c, d)) if *c + d.len() as u64 == at => d.push(b),
                        _ => {
                            self.chunks.insert(at, vec![b]);
                        }
                    }
                }
            }
        }
    }

    fn reader(&self) -> impl FnMut(u64, usize) -> std::io::Result<Vec<u8>> + '_ {
        move |off, len| Ok(self.read(off, len))
    }
}

/// Record every read the parsers make on a real image.
fn record(path: &Path, offsets: &[u64]) -> Vec<(u64, usize)> {
    let f = std::fs::File::open(path).unwrap();
    let mut reads = vec![];
    for &base in offsets {
        let mut inner = info::file_reader(&f, base);
        let mut rec = |o: u64, l: usize| {
            let v = inner(o, l)?;
            reads.push((base + o, v.len()));
            Ok(v)
        };
        let _ = info::probe(&mut rec);
        if base == 0 {
            let _ = info::partitions(&mut rec);
        }
    }
    reads
}

fn sparse_from(path: &Path, reads: &[(u64, usize)]) -> Sparse {
    let len = std::fs::metadata(path).unwrap().len();
    let mut f = std::fs::File::open(path).unwrap();
    let mut blocks = std::collections::BTreeSet::new();
    for &(off, n) in reads.iter().chain([(0u64, 128 * K as usize)].iter()) {
        let end = (off + n as u64).min(len);
        if off >= end {
            continue;
        }
        let (first, last) = (off / 512, end.div_ceil(512));
        blocks.extend(first..last);
    }
    let mut chunks: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let mut run: Option<(u64, Vec<u8>)> = None;
    for b in blocks {
        let mut buf = vec![0u8; 512];
        f.seek(SeekFrom::Start(b * 512)).unwrap();
        let n = f.read(&mut buf).unwrap();
        buf.truncate(n);
        if buf.iter().all(|&x| x == 0) {
            continue;
        }
        match &mut run {
            Some((start, data)) if *start + data.len() as u64 == b * 512 => data.extend(buf),
            _ => {
                if let Some((s, d)) = run.take() {
                    chunks.insert(s, d);
                }
                run = Some((b * 512, buf));
            }
        }
    }
    if let Some((s, d)) = run {
        chunks.insert(s, d);
    }
    Sparse { len, chunks }
}

/// What the parsers say about an image: probe at each offset, partitions.
fn snapshot(s: &Sparse, offsets: &[u64]) -> Value {
    let mut m = serde_json::Map::new();
    for &base in offsets {
        let mut r = s.reader();
        let mut shifted = |o: u64, l: usize| r(base + o, l);
        let v = match info::probe(&mut shifted) {
            Ok(v) => serde_json::to_value(v).unwrap(),
            Err(e) => json!({ "error": e }),
        };
        m.insert(format!("probe@{base}"), v);
    }
    let mut r = s.reader();
    let p = match info::partitions(&mut r) {
        Ok(p) => serde_json::to_value(p).unwrap(),
        Err(e) => json!({ "error": e }),
    };
    m.insert("partitions".into(), p);
    Value::Object(m)
}

/// The images the corpus keeps: one per filesystem and interesting
/// geometry, and two partitioned disks. Returns (name, image, offsets).
#[allow(clippy::type_complexity)]
fn corpus_builders() -> Vec<(
    &'static str,
    &'static [&'static str],
    Box<dyn Fn() -> (Image, Vec<u64>)>,
)> {
    fn one(img: Image) -> (Image, Vec<u64>) {
        (img, vec![0])
    }
    vec![
        (
            "fat12-s4",
            &["mkfs.fat"],
            Box::new(|| one(mk_fat(12, 4 * M, 4, 512, "CORPUS12"))),
        ),
        (
            "fat16-s4",
            &["mkfs.fat"],
            Box::new(|| one(mk_fat(16, 64 * M, 4, 512, "CORPUS16"))),
        ),
        (
            "fat16-4kn",
            &["mkfs.fat"],
            Box::new(|| one(mk_fat(16, 64 * M, 1, 4096, "CORPUS4K"))),
        ),
        (
            "fat32-s8",
            &["mkfs.fat"],
            Box::new(|| one(mk_fat(32, 512 * M, 8, 512, "CORPUS32"))),
        ),
        (
            "exfat-4k",
            &["mkfs.exfat"],
            Box::new(|| one(mk_exfat(64 * M, 4 * K, "CorpusEx"))),
        ),
        (
            "exfat-128k",
            &["mkfs.exfat"],
            Box::new(|| one(mk_exfat(G, 128 * K, "CorpusEx128"))),
        ),
        (
            "ntfs-4k",
            &["mkntfs"],
            Box::new(|| one(mk_ntfs(64 * M, 4 * K, "CorpusNTFS"))),
        ),
        (
            "ntfs-128k",
            &["mkntfs"],
            Box::new(|| one(mk_ntfs(256 * M, 128 * K, "CorpusNT128"))),
        ),
        (
            "ext2-1k",
            &["mke2fs"],
            Box::new(|| one(mk_ext("ext2", 16 * M, 1024, &[], "corpus2"))),
        ),
        (
            "ext3-4k",
            &["mke2fs"],
            Box::new(|| one(mk_ext("ext3", 64 * M, 4096, &[], "corpus3"))),
        ),
        (
            "ext4-4k",
            &["mke2fs"],
            Box::new(|| one(mk_ext("ext4", 64 * M, 4096, &[], "corpus4"))),
        ),
        (
            "ext4-bigalloc",
            &["mke2fs"],
            Box::new(|| {
                one(mk_ext(
                    "ext4",
                    256 * M,
                    4096,
                    &["-O", "bigalloc", "-C", "65536"],
                    "corpusba",
                ))
            }),
        ),
        (
            "xfs-4k",
            &["mkfs.xfs"],
            Box::new(|| one(mk_xfs(320 * M, 4096, "corpusxfs"))),
        ),
        (
            "btrfs-16k",
            &["mkfs.btrfs"],
            Box::new(|| one(mk_btrfs(256 * M, 16384, "corpusbtrfs"))),
        ),
        (
            "f2fs",
            &["mkfs.f2fs"],
            Box::new(|| one(mk_f2fs(128 * M, "corpusf2fs"))),
        ),
        (
            "udf-512",
            &["mkudffs"],
            Box::new(|| one(mk_udf(16 * M, 512, "CorpusUDF512"))),
        ),
        (
            "udf-2048",
            &["mkudffs"],
            Box::new(|| one(mk_udf(16 * M, 2048, "CorpusUDF2k"))),
        ),
        // The classes of issue 12, each as a real tool makes it, then
        // hand-edited where no tool makes it.
        (
            "fat16-erased-label",
            &["mkfs.fat"],
            Box::new(|| {
                let img = mk_fat(16, 16 * M, 4, 512, "ERASED");
                write_at(&img.path, fat16_root(&img.path), &[0xE5]);
                one(img)
            }),
        ),
        (
            "fat16-cp850-label",
            &["mkfs.fat"],
            Box::new(|| {
                let img = mk_fat(16, 16 * M, 4, 512, "PLAIN");
                write_at(&img.path, fat16_root(&img.path), b"S\x9DREN \x90T\xE9  ");
                one(img)
            }),
        ),
        (
            "fat32-small",
            &["mkfs.fat"],
            Box::new(|| one(mk_fat(32, 32 * M, 1, 512, "SMALL32"))),
        ),
        (
            "exfat-windows-ru",
            &["xz"],
            Box::new(|| one(windows_exfat())),
        ),
        (
            "exfat-256k",
            &["mkfs.exfat"],
            Box::new(|| {
                let img = Image::new(256 * K);
                run(
                    "mkfs.exfat",
                    &["-b", "4096", "-c", "4096", "-L", "Tiny", img.path_str()],
                );
                one(img)
            }),
        ),
        (
            "udf-vsidtext-512",
            &["mkudffs", "udflabel"],
            Box::new(|| {
                let img = mk_udf(16 * M, 512, "SetText");
                run("udflabel", &["--fullvsid=Untitled", img.path_str()]);
                one(img)
            }),
        ),
        (
            "udf-vsidhex8-2048",
            &["mkudffs", "udflabel"],
            Box::new(|| {
                let img = mk_udf(16 * M, 2048, "SetHex8");
                run(
                    "udflabel",
                    &["--fullvsid=4C2B1A09 Wörterbuch", img.path_str()],
                );
                one(img)
            }),
        ),
        (
            "ext4-truncated",
            &["mke2fs"],
            Box::new(|| {
                let img = mk_ext("ext4", 64 * M, 1024, &[], "cut");
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&img.path)
                    .unwrap();
                f.set_len(4096).unwrap();
                one(img)
            }),
        ),
        (
            "disk-mbr",
            &["sfdisk", "mkfs.fat", "mkntfs"],
            Box::new(|| {
                let d = disk(
                    80 * M,
                    mbr_script(),
                    &[
                        (1, mk_fat(16, 32768 * 512, 1, 512, "P1FAT")),
                        (2, mk_ntfs(20000 * 512, 4096, "P2NTFS")),
                        (6, mk_fat(16, 40000 * 512, 2, 512, "P6FAT")),
                    ],
                );
                let offs = std::iter::once(0)
                    .chain(d.parts.iter().map(|p| p.start_bytes))
                    .collect();
                (d.img, offs)
            }),
        ),
        (
            "disk-udf",
            &["sfdisk", "mkudffs"],
            Box::new(|| {
                let d = udf_disk();
                let offs = std::iter::once(0)
                    .chain(d.parts.iter().map(|p| p.start_bytes))
                    .collect();
                (d.img, offs)
            }),
        ),
        (
            "disk-gpt",
            &["sfdisk", "mkfs.exfat", "mke2fs"],
            Box::new(|| {
                let d = disk(
                    64 * M,
                    gpt_script(),
                    &[
                        (1, mk_exfat(6144 * 512, 4096, "GPTEX")),
                        (2, mk_ext("ext4", 32768 * 512, 4096, &[], "gptext")),
                        (3, mk_exfat(20000 * 512, 512, "ODD")),
                    ],
                );
                let offs = std::iter::once(0)
                    .chain(d.parts.iter().map(|p| p.start_bytes))
                    .collect();
                (d.img, offs)
            }),
        ),
    ]
}

/// FSFIT_REGEN_CORPUS=1 cargo test --test it info::regenerate_corpus
/// (or FSFIT_REGEN_CORPUS=name,name to rebuild only those entries)
#[test]
fn regenerate_corpus() {
    let Some(which) = std::env::var_os("FSFIT_REGEN_CORPUS") else {
        eprintln!("SKIP: set FSFIT_REGEN_CORPUS=1 to rebuild tests/fixtures/info-corpus");
        return;
    };
    let which = which.to_string_lossy().into_owned();
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir).unwrap();
    for (name, tools, build) in corpus_builders() {
        if which != "1" && !which.split(',').any(|w| w == name) {
            continue;
        }
        if !have(tools) {
            continue;
        }
        let (img, offsets) = build();
        let reads = record(&img.path, &offsets);
        let s = sparse_from(&img.path, &reads);
        // The kept blocks alone must answer exactly as the full image.
        let full = {
            let bytes_len = std::fs::metadata(&img.path).unwrap().len();
            let f = std::fs::File::open(&img.path).unwrap();
            let mut m = serde_json::Map::new();
            for &base in &offsets {
                let mut r = info::file_reader(&f, base);
                let v = match info::probe(&mut r) {
                    Ok(v) => serde_json::to_value(v).unwrap(),
                    Err(e) => json!({ "error": e }),
                };
                m.insert(format!("probe@{base}"), v);
            }
            let mut r = info::file_reader(&f, 0);
            let p = match info::partitions(&mut r) {
                Ok(p) => serde_json::to_value(p).unwrap(),
                Err(e) => json!({ "error": e }),
            };
            m.insert("partitions".into(), p);
            assert_eq!(s.len, bytes_len);
            Value::Object(m)
        };
        let snap = snapshot(&s, &offsets);
        assert_eq!(
            snap, full,
            "{name}: corpus blocks answer differently from the image"
        );
        s.save(&dir.join(format!("{name}.sparse")));
        let meta = json!({ "offsets": offsets, "expect": snap });
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(&meta).unwrap() + "\n",
        )
        .unwrap();
        eprintln!("corpus: {name}");
    }
}

fn corpus() -> Vec<(String, Sparse, Vec<u64>, Value)> {
    let dir = corpus_dir();
    let mut out = vec![];
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return out;
    };
    let mut names: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sparse"))
        .collect();
    names.sort();
    for p in names {
        let meta: Value =
            serde_json::from_str(&std::fs::read_to_string(p.with_extension("json")).unwrap())
                .unwrap();
        let offsets: Vec<u64> = meta["offsets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        out.push((name, Sparse::load(&p), offsets, meta["expect"].clone()));
    }
    out
}

#[test]
fn corpus_matches_snapshots() {
    let all = corpus();
    assert!(all.len() >= 15, "corpus missing: {} files", all.len());
    let total: u64 = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total < 2 * M, "corpus is {total} bytes");
    // FSFIT_UPDATE_SNAPSHOTS=1: rewrite the expected answers from the
    // kept blocks (after a deliberate change of output; review the diff).
    let update = std::env::var_os("FSFIT_UPDATE_SNAPSHOTS").is_some();
    for (name, s, offsets, expect) in all {
        let got = snapshot(&s, &offsets);
        if update && got != expect {
            let meta = json!({ "offsets": offsets, "expect": got });
            std::fs::write(
                corpus_dir().join(format!("{name}.json")),
                serde_json::to_string_pretty(&meta).unwrap() + "\n",
            )
            .unwrap();
            eprintln!("snapshot updated: {name}");
            continue;
        }
        assert_eq!(got, expect, "{name}");
        // Every plain image parses (the disks parse at their partitions).
        let first = &got[format!("probe@{}", offsets[offsets.len().min(2) - 1])];
        assert!(first.get("fs").is_some(), "{name}: {first}");
    }
}

// ------------------------------------------------------ corrupted copies

fn probe_sparse(s: &Sparse) -> Result<VolumeInfo, String> {
    let mut r = s.reader();
    info::probe(&mut r).map_err(|e| e.to_string())
}

/// Deterministic xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn expect_err(name: &str, what: &str, s: &Sparse, needle: &str) {
    match probe_sparse(s) {
        Ok(v) => panic!("{name}: {what}: parsed anyway: {v:#?}"),
        Err(e) => assert!(
            e.to_lowercase().contains(&needle.to_lowercase()),
            "{name}: {what}: error does not mention {needle:?}: {e}"
        ),
    }
}

#[test]
fn corrupted_copies_are_errors_naming_the_field() {
    let all = corpus();
    assert!(!all.is_empty(), "corpus missing");
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    for (name, s, _, _) in all.iter().filter(|(n, ..)| !n.starts_with("disk")) {
        let fs = name.split('-').next().unwrap();
        // Truncated to 100 bytes.
        let mut t = s.clone();
        t.len = 100;
        assert!(
            probe_sparse(&t).is_err(),
            "{name}: truncated to 100 bytes parsed"
        );
        // (offset, bytes, what the error must name) per filesystem.
        let le32max = u32::MAX.to_le_bytes();
        let le64max = u64::MAX.to_le_bytes();
        let w = |off: u64, b: &[u8]| vec![(off, b.to_vec())];
        type Writes = Vec<(u64, Vec<u8>)>;
        let cases: Vec<(Writes, &str)> = match fs {
            "fat12" | "fat16" => vec![
                // Without 0x55AA, the type string alone still says FAT (as
                // blkid and the kernel read it); without both, nothing.
                (
                    [w(510, &[0, 0]), w(0x36, &[0; 8])].concat(),
                    "no filesystem fsfit knows",
                ),
                (w(13, &[3]), "BPB_SecPerClus"),
                (w(11, &[0, 0x30]), "BPB_BytsPerSec"),
                ([w(19, &[0, 0]), w(32, &le32max)].concat(), "cannot map"),
                (w(22, &[0xFF, 0xFF]), "no data region"),
            ],
            "fat32" => vec![
                (
                    [w(510, &[0, 0]), w(0x52, &[0; 8])].concat(),
                    "no filesystem fsfit knows",
                ),
                (w(32, &le32max), "cannot map"),
                (w(14, &[0, 0]), "BPB_RsvdSecCnt"),
            ],
            "exfat" => vec![
                (w(3, &[0; 8]), "BPB_BytsPerSec"),
                (w(109, &[40]), "SectorsPerClusterShift"),
                (w(72, &le64max), "VolumeLength"),
                (w(92, &le32max), "ClusterCount"),
                (w(100, &[1, 2, 3, 4]), "boot checksum"),
            ],
            "ntfs" => vec![
                // Without "NTFS    " the boot sector is judged as FAT, and fails.
                (w(3, &[0; 8]), "fat:"),
                (w(0x0D, &[0x81]), "sectors_per_cluster"),
                (w(0x28, &le64max), "overflows"),
                (w(0x40, &[0x70]), "clusters_per_mft_record"),
                (w(0x30, &le64max), "mft_lcn"),
            ],
            "ext2" | "ext3" | "ext4" => vec![
                (w(1024 + 0x38, &[0, 0]), "no filesystem fsfit knows"),
                (w(1024 + 0x18, &[40, 0, 0, 0]), "s_log_block_size"),
                (w(1024 + 0x04, &[0; 4]), "s_blocks_count"),
                (w(1024 + 0x58, &[3, 0]), "s_inode_size"),
            ],
            "xfs" => vec![
                (w(0, &[0; 4]), "no filesystem fsfit knows"),
                (w(4, &[0; 4]), "sb_blocksize"),
                (w(8, &le64max), "sb_dblocks"),
                (w(88, &[0; 4]), "sb_agcount"),
            ],
            "btrfs" => vec![
                (w(0x10040, &[0; 8]), "no filesystem fsfit knows"),
                (w(0x10090, &[0, 0x30, 0, 0]), "sectorsize"),
                (w(0x10070, &le64max), "checksum mismatch"),
            ],
            "f2fs" => vec![
                (w(1024, &[0; 4]), "no filesystem fsfit knows"),
                (w(1024 + 16, &[40, 0, 0, 0]), "log_blocksize"),
                (w(1024 + 36, &le64max), "overflows"),
            ],
            "udf" => {
                let bs: u64 = name.rsplit('-').next().unwrap().parse().unwrap();
                vec![
                    (w(32768 + 1, b"XXXXX"), "no filesystem fsfit knows"),
                    (w(256 * bs + 12, &[9, 9, 9, 9]), "anchor"),
                ]
            }
            other => panic!("no corruption cases for {other}"),
        };
        for (writes, needle) in cases {
            let mut c = s.clone();
            for (off, bytes) in &writes {
                c.write(*off, bytes);
            }
            expect_err(name, &format!("writes {writes:?}"), &c, needle);
        }
        // Random bytes over the boot sector / superblock fields (the
        // signature left intact, so the parser has to notice).
        let (from, to) = match fs {
            "fat12" | "fat16" | "fat32" => (11, 62),
            "exfat" => (64, 112),
            "ntfs" => (11, 0x48),
            "ext2" | "ext3" | "ext4" => (1024, 1024 + 0x38),
            "xfs" => (4, 100),
            "btrfs" => (0x10070, 0x100A0),
            "f2fs" => (1024 + 8, 1024 + 40),
            _ => continue,
        };
        for _ in 0..20 {
            let mut c = s.clone();
            c.write(from, &rng.bytes((to - from) as usize));
            assert!(
                catch_unwind(AssertUnwindSafe(|| probe_sparse(&c))).is_ok_and(|r| r.is_err()),
                "{name}: random bytes over {from}..{to} parsed or panicked"
            );
        }
    }
}

// ------------------------------------------------------------ fuzzing

fn iterations() -> u64 {
    std::env::var("FSFIT_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Run probe and partitions on `s`; on a panic, keep the input and fail.
fn must_not_panic(s: &Sparse, tag: &str) {
    let res = catch_unwind(AssertUnwindSafe(|| {
        let _ = probe_sparse(s);
        let mut r = s.reader();
        let _ = info::partitions(&mut r);
    }));
    if res.is_err() {
        let keep = std::env::temp_dir().join(format!("fsfit-info-crash-{tag}.sparse"));
        s.save(&keep);
        panic!("{tag}: panicked; input kept at {}", keep.display());
    }
}

const INTERESTING: [u64; 12] = [
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0xFFFF,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    0x8000_0000_0000_0000,
    u64::MAX,
];

fn mutate(rng: &mut Rng, s: &mut Sparse) {
    let keys: Vec<u64> = s.chunks.keys().copied().collect();
    for _ in 0..1 + rng.below(6) {
        // Mostly inside stored (non-zero) blocks: that is where the fields are.
        let off = if !keys.is_empty() && rng.below(10) < 9 {
            let k = keys[rng.below(keys.len() as u64) as usize];
            k + rng.below(s.chunks[&k].len() as u64)
        } else {
            rng.below(s.len.min(128 * K))
        };
        match rng.below(6) {
            0 => {
                let b = s.read(off, 1).first().copied().unwrap_or(0);
                s.write(off, &[b ^ (1 << rng.below(8))]);
            }
            1 => s.write(off, &[INTERESTING[rng.below(12) as usize] as u8]),
            2 => {
                let v = INTERESTING[rng.below(12) as usize] as u32;
                s.write(off & !3, &v.to_le_bytes());
            }
            3 => {
                let v = INTERESTING[rng.below(12) as usize];
                let v = if rng.below(2) == 0 {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                s.write(off & !7, &v);
            }
            4 => {
                let n = 1 + rng.below(64) as usize;
                let b = rng.bytes(n);
                s.write(off, &b);
            }
            _ => {
                if rng.below(4) == 0 {
                    s.len = rng.below(s.len + 1);
                } else {
                    let v = rng.next();
                    s.write(off & !7, &v.to_le_bytes());
                }
            }
        }
    }
}

#[test]
fn fuzz_mutated_corpus() {
    let all = corpus();
    assert!(!all.is_empty(), "corpus missing");
    let n = iterations();
    for (i, (name, s, offsets, _)) in all.iter().enumerate() {
        let mut rng = Rng(0xF022_0000 + i as u64);
        for it in 0..n {
            let mut m = s.clone();
            mutate(&mut rng, &mut m);
            must_not_panic(&m, &format!("{name}-{it}"));
            // Partitions inside disk images too.
            for &base in offsets.iter().skip(1) {
                let res = catch_unwind(AssertUnwindSafe(|| {
                    let mut r = m.reader();
                    let mut shifted = |o: u64, l: usize| r(base + o, l);
                    let _ = info::probe(&mut shifted);
                }));
                assert!(res.is_ok(), "{name}-{it}@{base} panicked");
            }
        }
    }
}

// proptest: random edits of the recorded volumes (byte runs written at
// offsets inside what the parsers read, and truncation), shrunk to a
// minimal failing edit if a parser ever panics.
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: iterations() as u32,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]
    #[test]
    fn proptest_edits_never_panic(
        pick in 0usize..64,
        edits in proptest::collection::vec(
            (0u64..(256 * K), proptest::collection::vec(proptest::prelude::any::<u8>(), 1..16)),
            1..8,
        ),
        cut in proptest::option::of(0u64..(512 * K)),
    ) {
        let all = corpus();
        proptest::prop_assume!(!all.is_empty());
        let (name, s, _, _) = &all[pick % all.len()];
        let mut m = s.clone();
        // Land most edits inside the blocks the parsers actually read.
        let keys: Vec<u64> = m.chunks.keys().copied().collect();
        for (i, (off, bytes)) in edits.iter().enumerate() {
            let at = if keys.is_empty() { *off } else { keys[i % keys.len()] + off % 4096 };
            m.write(at, bytes);
        }
        if let Some(c) = cut {
            m.len = m.len.min(c);
        }
        must_not_panic(&m, &format!("proptest-{name}"));
    }
}

#[test]
fn fuzz_random_boot_sectors() {
    // Random sectors with one signature planted, and plausible geometry
    // half of the time, so the parsers get past their first checks.
    let mut rng = Rng(0xB007_5EC7);
    for it in 0..iterations() * 10 {
        let mut s = Sparse {
            len: 1 + rng.below(1 << 24),
            chunks: BTreeMap::new(),
        };
        let region = match rng.below(7) {
            0 => 0,
            1 => 1024,
            2 => 0x10000,
            3 => 32768,
            _ => 0,
        };
        s.write(region, &rng.bytes(4096));
        let plausible = rng.below(2) == 0;
        match rng.below(9) {
            0 => {
                s.write(3, b"EXFAT   ");
                s.write(11, &[0; 53]);
                if plausible {
                    s.write(108, &[9, rng.below(8) as u8, 1]);
                    s.write(80, &24u32.to_le_bytes());
                }
            }
            1 => {
                s.write(3, b"NTFS    ");
                if plausible {
                    s.write(11, &512u16.to_le_bytes());
                    s.write(13, &[8]);
                    s.write(14, &[0; 7]);
                    s.write(0x16, &[0; 2]);
                    s.write(0x20, &[0; 4]);
                    s.write(0x40, &[0xF6]);
                }
            }
            2 => {
                s.write(0, b"XFSB");
                if plausible {
                    s.write(4, &4096u32.to_be_bytes());
                    s.write(120, &[12, 9]);
                    s.write(102, &512u16.to_be_bytes());
                }
            }
            3 => {
                s.write(1024 + 0x38, &0xEF53u16.to_le_bytes());
                if plausible {
                    s.write(1024 + 0x18, &[2, 0, 0, 0]);
                    s.write(1024 + 0x14, &[0; 4]);
                    s.write(1024 + 0x4C, &[1, 0, 0, 0]);
                    s.write(1024 + 0x58, &256u16.to_le_bytes());
                }
            }
            4 => {
                s.write(1024, &0xF2F5_2010u32.to_le_bytes());
                if plausible {
                    s.write(1024 + 8, &[9, 0, 0, 0, 3, 0, 0, 0, 12, 0, 0, 0, 9, 0, 0, 0]);
                }
            }
            5 => {
                s.write(0x10040, b"_BHRfS_M");
                s.write(0x10030, &0x10000u64.to_le_bytes());
            }
            6 => {
                s.write(32768 + 1, b"BEA01");
                s.write(34816 + 1, b"NSR02");
                s.write(36864 + 1, b"TEA01");
                if plausible {
                    let bs = 512u64 << rng.below(4);
                    let mut tag = rng.bytes(16);
                    tag[0..2].copy_from_slice(&2u16.to_le_bytes());
                    tag[12..16].copy_from_slice(&256u32.to_le_bytes());
                    tag[4] = tag
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != 4)
                        .fold(0u8, |a, (_, &x)| a.wrapping_add(x));
                    s.write(256 * bs, &tag);
                }
            }
            7 => {
                s.write(510, &[0x55, 0xAA]);
                s.write(446, &rng.bytes(64));
                if plausible {
                    s.write(446 + 4, &[0xEE]);
                    s.write(512, b"EFI PART");
                }
            }
            8 if rng.below(2) == 0 => {
                // A foreign signature over a FAT-looking sector.
                s.write(510, &[0x55, 0xAA]);
                let sigs: [(u64, &[u8]); 8] = [
                    (3, b"-FVE-FS-"),
                    (0, b"LUKS\xba\xbe"),
                    (32, b"NXSB"),
                    (1024, b"H+"),
                    (4086, b"SWAPSPACE2"),
                    (512, b"LABELONE"),
                    (32769, b"CD001"),
                    (544, b"1SFB"),
                ];
                let (off, sig) = sigs[rng.below(8) as usize];
                s.write(off, sig);
            }
            _ => {
                s.write(510, &[0x55, 0xAA]);
                if plausible {
                    s.write(11, &512u16.to_le_bytes());
                    s.write(13, &[1 << rng.below(8)]);
                    s.write(14, &[1, 0, 2]);
                }
            }
        }
        must_not_panic(&s, &format!("random-{it}"));
    }
}

// ------------------------------------------------------ fragmentation

#[cfg(target_os = "linux")]
fn ready_to_mount(tools: &[&str]) -> bool {
    have(tools) && common::can_mount()
}

#[test]
#[cfg(target_os = "linux")]
fn fragmentation_on_ext4_loop_mount() {
    if !ready_to_mount(&["mkfs.ext4", "losetup", "mount", "umount", "filefrag"]) {
        return;
    }
    let img = mk_ext("ext4", 64 * M, 4096, &["-m", "0"], "frag");
    let lo = common::Loop::attach(&img.path);
    let mnt = common::Mount::kernel(&lo.dev, "ext4", None);
    let root = mnt.path();
    // Fill the volume with 1 MiB files, free every other one, then write a
    // file that can only go into the holes.
    let chunk = vec![0xA5u8; M as usize];
    let mut n = 0;
    loop {
        let p = root.join(format!("fill{n:03}"));
        let mut f = std::fs::File::create(&p).unwrap();
        if f.write_all(&chunk).and_then(|_| f.sync_all()).is_err() {
            drop(f);
            std::fs::remove_file(&p).unwrap();
            break;
        }
        n += 1;
    }
    assert!(n > 20, "only {n} fill files");
    for i in (0..n).step_by(2) {
        std::fs::remove_file(root.join(format!("fill{i:03}"))).unwrap();
    }
    run("sync", &[]);
    let big = root.join("big");
    let mut f = std::fs::File::create(&big).unwrap();
    for _ in 0..(n / 2 - 2) {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    // The brief's other recipe: two files written interleaved, fsync between.
    let (mut a, mut b) = (
        std::fs::File::create(root.join("inter_a")).unwrap(),
        std::fs::File::create(root.join("inter_b")).unwrap(),
    );
    let small = vec![0x5Au8; 16 * K as usize];
    for _ in 0..16 {
        a.write_all(&small).unwrap();
        a.sync_all().unwrap();
        b.write_all(&small).unwrap();
        b.sync_all().unwrap();
    }
    drop((a, b));
    let r = info::fragmentation(root, 10_000).unwrap();
    eprintln!("{r:#?}");
    assert!(r.supported, "{r:?}");
    assert_eq!(r.files_examined as usize, n / 2 + 1 + 2, "{r:?}");
    assert!(r.files_fragmented >= 1 && r.max_fragments >= 2, "{r:?}");
    assert!(r.max_extents >= r.max_fragments);
    assert!(
        r.max_extents_path.as_deref().unwrap().ends_with("/big"),
        "{r:?}"
    );
    // filefrag merges physically contiguous extents, as `fragments` does.
    let ff = output("filefrag", &[big.to_str().unwrap()]);
    let found = number_after(&ff, &format!("{}:", big.display())).expect("filefrag count");
    assert_eq!(found, r.max_fragments, "{ff}");
    // The limit stops the walk.
    let r = info::fragmentation(root, 3).unwrap();
    assert!(r.truncated && r.files_examined == 3, "{r:?}");
}

#[test]
#[cfg(target_os = "linux")]
fn fragmentation_on_exfat_fuse_is_unsupported() {
    if !ready_to_mount(&["mkfs.exfat", "mount.exfat-fuse", "losetup"]) || !common::can_fuse() {
        return;
    }
    let img = mk_exfat(64 * M, 4 * K, "FUSE");
    let lo = common::Loop::attach(&img.path);
    let mnt = common::Mount::fuse("mount.exfat-fuse", &[], &lo.dev);
    std::fs::write(mnt.path().join("file.bin"), vec![1u8; 100_000]).unwrap();
    let r = info::fragmentation(mnt.path(), 100).unwrap();
    eprintln!("{r:#?}");
    assert!(!r.supported, "{r:?}");
    assert!(r.reason.as_deref().unwrap().contains("FIEMAP"), "{r:?}");
    // An empty FUSE directory still answers "unsupported".
    std::fs::remove_file(mnt.path().join("file.bin")).unwrap();
    let r = info::fragmentation(mnt.path(), 100).unwrap();
    assert!(!r.supported, "{r:?}");
}

// ------------------------------------------------------------- the command

#[cfg(target_os = "linux")]
#[test]
fn fsfit_info_reads_an_image_and_refuses_garbage() {
    if !have(&["mkfs.exfat"]) {
        return;
    }
    let img = Image::new(256 * M);
    run("mkfs.exfat", &["-c", "16K", "-L", "CAMERA", img.path_str()]);
    let out = common::fsfit()
        .args(["info", "--json", img.path_str()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "fsfit.info/1");
    assert_eq!(v["kind"], "image");
    assert_eq!(v["volume"]["fs"], "exfat");
    assert_eq!(v["volume"]["cluster_bytes"], 16384);
    assert_eq!(v["volume"]["label"], "CAMERA");
    let text = common::fsfit()
        .args(["info", img.path_str()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("exfat") && text.contains("16K") && text.contains("CAMERA"),
        "{text}"
    );

    // Random bytes: a clear error, exit 1, no panic.
    let junk = img.dir.path().join("junk.img");
    std::fs::write(
        &junk,
        (0..65536u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let out = common::fsfit().args(["info"]).arg(&junk).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && err.contains("junk.img"),
        "{err}"
    );
    let out = common::fsfit()
        .args(["info", "/no/such/thing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
#[cfg(target_os = "linux")]
fn fsfit_info_on_a_mounted_path() {
    if !common::can_mount() || !have(&["mkfs.ext4"]) {
        return;
    }
    let img = Image::new(256 * M);
    run(
        "mkfs.ext4",
        &["-q", "-F", "-b", "4096", "-L", "BACKUP", img.path_str()],
    );
    let lp = common::Loop::attach(&img.path);
    let m = common::Mount::kernel(&lp.dev, "ext4", None);
    common::write_file(&m.path().join("a/b.bin"), 300_000);
    let out = common::fsfit()
        .args(["info", "--json"])
        .arg(m.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "mounted");
    assert_eq!(v["mounted"]["fstype"], "ext4");
    assert_eq!(v["mounted"]["block_bytes"], 4096);
    assert_eq!(v["volume"]["label"], "BACKUP", "{v}");
    assert_eq!(v["fragmentation"]["supported"], true);
    assert!(v["fragmentation"]["files_examined"].as_u64().unwrap() >= 1);
}
