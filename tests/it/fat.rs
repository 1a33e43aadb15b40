//! FAT12/16/32 model against real volumes: images made by mkfs.fat
//! (dosfstools 4.2) with `-F 12|16|32 [-s N]`, filled by mtools' `mcopy`
//! (this kernel has no vfat driver) and measured by reading the FAT itself:
//! free = zero entries among clusters 2..N+1, times the cluster size, which
//! is what statvfs reports on a vfat mount (f_bfree × f_frsize).
//!
//! mtools decides differently from the Linux driver which names need long
//! names, so the trees are compared twice: every tree under the model's
//! mtools rule (`FSFIT_FAT_NAMES=mtools`), and trees whose names both rules
//! treat alike under the default (kernel, shortname=mixed) rule.

use crate::common;

use common::{contents, fsfit, have, mixed_tree, write_file, Image};
use serde_json::Value;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::Command;

const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

/// The boot sector and first FAT of an image, as the Linux driver reads them
/// (fs/fat/inode.c fat_fill_super).
struct FatImage {
    bits: u32,
    cluster: u64,
    clusters: u64,
    root_entries: u64,
    fat: Vec<u8>,
}

impl FatImage {
    fn read(path: &Path) -> FatImage {
        let mut f = File::open(path).unwrap();
        let mut bs = [0u8; 512];
        f.read_exact(&mut bs).unwrap();
        let u16at = |o: usize| u16::from_le_bytes([bs[o], bs[o + 1]]) as u64;
        let u32at = |o: usize| u32::from_le_bytes([bs[o], bs[o + 1], bs[o + 2], bs[o + 3]]) as u64;
        let (bps, spc, reserved, nfats) = (u16at(11), bs[13] as u64, u16at(14), bs[16] as u64);
        let root_entries = u16at(17);
        let total = if u16at(19) != 0 { u16at(19) } else { u32at(32) };
        let fat16_len = u16at(22);
        let fat_len = if fat16_len != 0 { fat16_len } else { u32at(36) };
        let data = reserved + nfats * fat_len + (root_entries * 32).div_ceil(bps);
        let clusters = (total - data) / spc;
        // fat_fill_super: FAT32 when the 16-bit FAT length is 0, else FAT12
        // up to MAX_FAT12 (0xFF4) clusters.
        let bits = if fat16_len == 0 {
            32
        } else if clusters <= 0xFF4 {
            12
        } else {
            16
        };
        let mut fat = vec![0u8; (fat_len * bps) as usize];
        f.seek(SeekFrom::Start(reserved * bps)).unwrap();
        f.read_exact(&mut fat).unwrap();
        FatImage {
            bits,
            cluster: bps * spc,
            clusters,
            root_entries,
            fat,
        }
    }

    fn entry(&self, c: u64) -> u32 {
        let f = &self.fat;
        match self.bits {
            32 => {
                let o = (c * 4) as usize;
                u32::from_le_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]]) & 0x0FFF_FFFF
            }
            16 => {
                let o = (c * 2) as usize;
                u16::from_le_bytes([f[o], f[o + 1]]) as u32
            }
            _ => {
                let o = (c * 3 / 2) as usize;
                let v = u16::from_le_bytes([f[o], f[o + 1]]) as u32;
                if c & 1 == 1 {
                    v >> 4
                } else {
                    v & 0xFFF
                }
            }
        }
    }

    /// statvfs f_bfree × f_frsize of a vfat mount of this image.
    fn free_bytes(&self) -> u64 {
        (2..self.clusters + 2)
            .filter(|&c| self.entry(c) == 0)
            .count() as u64
            * self.cluster
    }
}

/// `mkfs.fat -F BITS [-s SECTORS] IMAGE`; false when mkfs.fat refuses.
fn mkfs(img: &Image, bits: u32, cluster: Option<u64>) -> bool {
    let mut cmd = Command::new("mkfs.fat");
    cmd.arg("-F").arg(bits.to_string());
    if let Some(c) = cluster {
        cmd.arg("-s").arg((c / 512).to_string());
    }
    let out = cmd.arg(img.path_str()).output().expect("run mkfs.fat");
    out.status.success()
}

fn mtools(cmd: &str) -> Command {
    let mut c = Command::new(cmd);
    c.env("MTOOLS_SKIP_CHECK", "1").env("LC_ALL", "C.UTF-8");
    c
}

/// `mcopy -s` every top-level entry of `tree` into the image's root (the
/// `cp -r TREE/. MOUNT/` of the contract). `-D s` skips name clashes.
fn mcopy(img: &Image, tree: &Path, may_fail: bool) {
    let mut names: Vec<_> = std::fs::read_dir(tree)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let out = mtools("mcopy")
        .args(["-s", "-D", "s", "-i", img.path_str()])
        .args(&names)
        .arg("::/")
        .output()
        .expect("run mcopy");
    assert!(
        may_fail || out.status.success(),
        "mcopy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `fsfit usage --json --volume V --fs FS:CLUSTER TREE` with the name rule
/// `rule` (None: the default, kernel rule). Err(stderr) when fsfit refuses.
fn usage(
    volume: u64,
    fs: &str,
    cluster: Option<u64>,
    tree: &Path,
    rule: Option<&str>,
) -> Result<Value, String> {
    let spec = match cluster {
        Some(c) => format!("{fs}:{c}"),
        None => format!("{fs}:default"),
    };
    let mut cmd = fsfit();
    match rule {
        Some(r) => cmd.env("FSFIT_FAT_NAMES", r),
        None => cmd.env_remove("FSFIT_FAT_NAMES"),
    };
    let out = cmd
        .args([
            "usage",
            "--json",
            "--quiet",
            "--volume",
            &volume.to_string(),
            "--fs",
            &spec,
        ])
        .arg(tree)
        .output()
        .expect("run fsfit");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    Ok(v["configs"][0].clone())
}

fn tools() -> bool {
    have(&["mkfs.fat", "mcopy"])
}

fn human(n: u64) -> String {
    format!("{n} ({:.2} MiB)", n as f64 / M as f64)
}

/// Format, measure free, copy the tree, measure again; compare with fsfit
/// under each rule in `rules`. Returns the printed report line.
pub(crate) fn check_tree(
    bits: u32,
    volume: u64,
    cluster: Option<u64>,
    tree: &Path,
    rules: &[Option<&str>],
    may_fail: bool,
) {
    let img = Image::new(volume);
    assert!(
        mkfs(&img, bits, cluster),
        "mkfs.fat -F {bits} {cluster:?} on {volume} refused"
    );
    let before = FatImage::read(&img.path);
    assert_eq!(before.bits, bits);
    let free_before = before.free_bytes();
    mcopy(&img, tree, may_fail);
    let after = FatImage::read(&img.path);
    let tree_bytes = free_before - after.free_bytes();
    for &rule in rules {
        let c = usage(volume, &format!("fat{bits}"), cluster, tree, rule).unwrap();
        assert_eq!(c["cluster_bytes"], before.cluster, "cluster size");
        let (pf, pt) = (
            c["free_bytes"].as_u64().unwrap(),
            c["tree_bytes"].as_u64().unwrap(),
        );
        eprintln!(
            "fat{bits} {} cluster {} tree {} rule {}: free real {} predicted {}; tree real {} predicted {}; error {}",
            human(volume),
            before.cluster,
            tree.file_name().unwrap().to_string_lossy(),
            rule.unwrap_or("kernel"),
            free_before,
            pf,
            human(tree_bytes),
            human(pt),
            pt as i64 - tree_bytes as i64
        );
        assert_eq!(pf, free_before, "free_bytes fat{bits} {volume} {cluster:?}");
        assert_eq!(
            pt, tree_bytes,
            "tree_bytes fat{bits} {volume} {cluster:?} rule {rule:?}"
        );
    }
}

#[test]
fn free_space_and_defaults_match_mkfs_fat() {
    if !tools() {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let configs: &[(u32, u64, &[Option<u64>])] = &[
        (12, M + 512 * 3, &[None, Some(512), Some(65536)]),
        (12, 1440 * 1024, &[None, Some(1024)]),
        (
            12,
            16 * M,
            &[None, Some(512), Some(4096), Some(8192), Some(65536)],
        ),
        (12, 255 * M, &[None, Some(32768)]),
        (12, 300 * M, &[None, Some(65536)]),
        (16, 6 * M, &[None, Some(512)]),
        (16, 16 * M, &[None, Some(512), Some(8192)]),
        (16, 100_000_000, &[None, Some(2048), Some(16384)]),
        (16, 256 * M, &[None, Some(2048), Some(32768), Some(65536)]),
        (16, 2 * G, &[None, Some(32768)]),
        (16, 64 * G, &[None, Some(65536)]),
        (32, 33 * M, &[None, Some(65536)]),
        (32, 300 * M, &[None, Some(512)]),
        (32, G, &[None, Some(512), Some(65536)]),
        (32, 8 * G, &[None, Some(4096)]),
        (32, 8 * G + M, &[None]),
        (32, 64 * G, &[None, Some(16384), Some(65536)]),
    ];
    for &(bits, volume, clusters) in configs {
        for &cluster in clusters {
            let img = Image::new(volume);
            let made = mkfs(&img, bits, cluster);
            let fs = format!("fat{bits}");
            let predicted = usage(volume, &fs, cluster, empty.path(), None);
            match (made, predicted) {
                (true, Ok(c)) => {
                    let real = FatImage::read(&img.path);
                    assert_eq!(real.bits, bits);
                    let free = real.free_bytes();
                    eprintln!(
                        "{fs} {volume} {cluster:?}: cluster {} clusters {} root {} free real {free} predicted {}",
                        real.cluster, real.clusters, real.root_entries, c["free_bytes"]
                    );
                    assert_eq!(
                        c["cluster_bytes"], real.cluster,
                        "{fs} {volume} {cluster:?}"
                    );
                    assert_eq!(c["free_bytes"], free, "{fs} {volume} {cluster:?}");
                    assert_eq!(c["tree_bytes"], 0);
                }
                (false, Err(why)) => {
                    eprintln!("{fs} {volume} {cluster:?}: refused by both: {}", why.trim());
                    assert!(
                        why.contains("clusters") || why.contains("too small"),
                        "{why}"
                    );
                }
                (made, p) => {
                    panic!("{fs} {volume} {cluster:?}: mkfs.fat made={made}, fsfit says {p:?}")
                }
            }
        }
    }
}

#[test]
fn refusals_name_the_limit() {
    let empty = tempfile::tempdir().unwrap();
    let e = usage(64 * G, "fat16", Some(32768), empty.path(), None).unwrap_err();
    assert!(
        e.contains("64 GiB at 32 KiB clusters makes 2096893, over FAT16's 65524"),
        "{e}"
    );
    let e = usage(G, "fat12", Some(4096), empty.path(), None).unwrap_err();
    assert!(e.contains("over FAT12's 4084"), "{e}");
    let e = usage(16 * M, "fat16", Some(65536), empty.path(), None).unwrap_err();
    assert!(
        e.contains("under the 4087 mkfs.fat makes FAT16 with"),
        "{e}"
    );
    // With no --fs the refused configs are listed, not fatal.
    let out = fsfit()
        .args(["usage", "--json", "--quiet", "--volume", "64G"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let refused = v["refused"].as_array().unwrap();
    assert!(refused.iter().any(|r| r["fs"] == "fat12"));
    assert!(refused
        .iter()
        .any(|r| r["fs"] == "fat16" && r["cluster_bytes"] == 65536));
    assert!(v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["fs"] == "fat32"
            && c["cluster_bytes"] == 32768
            && c["default_cluster"] == true));
}

/// Names both rules store alike: uppercase 8.3 names (no long name) and
/// names too long for 8.3 without `'` or characters beyond ASCII.
fn agreeing_tree(root: &Path) {
    for (i, size) in [
        1u64, 511, 512, 513, 2048, 4096, 4097, 32768, 65536, 65537, 1_000_000,
    ]
    .iter()
    .enumerate()
    {
        write_file(&root.join(format!("SIZES/F{i}_{size}.BIN")), *size);
    }
    for i in 0..4 {
        write_file(&root.join(format!("EMPTY/E{i}")), 0);
    }
    std::fs::create_dir_all(root.join("NOTHING")).unwrap();
    for n in [
        "Mixed Case Name.txt",
        "a_rather_long_name_13",
        "a_rather_long_name_14_",
        "exactly_twenty_six_chars_x",
        "twenty_seven_characters_xyz",
        "README.TXT",
        "IMG_0001.JPG",
        "Ünïcödé Nämé.txt",
    ] {
        write_file(&root.join("NAMES").join(n), 100);
    }
    for i in 0..3000 {
        write_file(
            &root.join(format!("MANY/{i:04}_a_long_entry_name.txt")),
            (i * 37) % 3000 + 1,
        );
    }
    let mut deep = root.join("DEEP");
    for d in 0..25 {
        deep = deep.join(format!("LEVEL{d:02}"));
    }
    write_file(&deep.join("BOTTOM.TXT"), 42);
    write_file(&root.join("BIG/VIDEO.MP4"), 5 * M + 123);
}

#[test]
fn kernel_rule_on_names_both_rules_agree_on() {
    if !tools() {
        return;
    }
    let tree = tempfile::Builder::new().prefix("agree").tempdir().unwrap();
    agreeing_tree(tree.path());
    let both = &[None, Some("mtools")];
    check_tree(16, 64 * M, Some(2048), tree.path(), both, false);
    check_tree(32, G, Some(512), tree.path(), both, false);
    check_tree(32, 64 * G, None, tree.path(), both, false);
}

#[test]
fn mixed_tree_under_the_mtools_rule() {
    if !tools() {
        return;
    }
    let tree = tempfile::Builder::new().prefix("mixed").tempdir().unwrap();
    // mcopy numbers clashing 8.3 aliases one probe at a time: keep `many` small.
    mixed_tree(tree.path(), 60);
    let m = &[Some("mtools")];
    check_tree(12, 32 * M, Some(16384), tree.path(), m, false);
    check_tree(16, 64 * M, Some(2048), tree.path(), m, false);
    check_tree(32, G, Some(512), tree.path(), m, false);
    check_tree(32, 64 * G, None, tree.path(), m, false);
}

/// Names where the rules part: lowercase 8.3, `'`, code-page letters,
/// spaces, dots; directories whose slots end exactly on a 512-byte cluster.
fn edge_tree(root: &Path) {
    for n in [
        "short.txt",
        "noext",
        "UPPER.TXT",
        "lower.TXT",
        "two.dots.name",
        ".hidden",
        "it's.txt",
        "with space.txt",
        "a+b.txt",
        "Ä.txt",
        "aé.txt",
        "ファイル.txt",
        "abcdefghijklm",
        "abcdefghijklmn",
    ] {
        write_file(&root.join("names").join(n), 7);
    }
    // . and .. + 14 = 16 slots: one 512-byte cluster; 15 spills into two.
    for i in 0..14 {
        write_file(&root.join(format!("FULL14/F{i:02}")), 1);
    }
    for i in 0..15 {
        write_file(&root.join(format!("FULL15/F{i:02}")), 1);
    }
    // 2 + 10 × 3 slots = 32: long names straddle the cluster boundary.
    for i in 0..10 {
        write_file(&root.join(format!("STRADDLE/ABCDEFGHIJKLMNOPQRS{i}")), 1);
    }
    for size in [32768u64, 65536, 131072, 131071, 131073] {
        write_file(&root.join(format!("EXACT/S{size}")), size);
    }
    std::fs::create_dir_all(root.join("emptydir")).unwrap();
    let mut deep = root.join("deep");
    for d in 0..30 {
        deep = deep.join(format!("d{d}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("x"), contents(1, 3)).unwrap();
}

#[test]
fn edge_tree_under_the_mtools_rule() {
    if !tools() {
        return;
    }
    let tree = tempfile::Builder::new().prefix("edge").tempdir().unwrap();
    edge_tree(tree.path());
    let m = &[Some("mtools")];
    check_tree(12, 32 * M, Some(16384), tree.path(), m, false);
    check_tree(16, 256 * M, None, tree.path(), m, false);
    check_tree(32, 64 * M, Some(512), tree.path(), m, false);
    check_tree(32, 8 * G, Some(65536), tree.path(), m, false);
}

#[test]
fn root_directories() {
    if !tools() {
        return;
    }
    // FAT16's fixed root holds 512 entries at 2 KiB clusters: 88 files fail.
    let full = tempfile::Builder::new()
        .prefix("rootfull")
        .tempdir()
        .unwrap();
    for i in 0..600 {
        write_file(&full.path().join(format!("F{i:03}")), 1);
    }
    check_tree(
        16,
        16 * M,
        Some(2048),
        full.path(),
        &[None, Some("mtools")],
        true,
    );
    // FAT32's root grows from its one cluster: 100 short names and 40 long
    // ones at 512 bytes.
    let grow = tempfile::Builder::new()
        .prefix("rootgrow")
        .tempdir()
        .unwrap();
    for i in 0..100 {
        write_file(&grow.path().join(format!("F{i:03}")), 1);
    }
    for i in 0..40 {
        write_file(
            &grow
                .path()
                .join(format!("{i:02}_long_file_name_in_root.dat")),
            600,
        );
    }
    check_tree(
        32,
        64 * M,
        Some(512),
        grow.path(),
        &[None, Some("mtools")],
        false,
    );
}
