//! `usage --driver windows`: Windows' own NTFS, exFAT and FAT drivers in the
//! models, named for Windows and never called exact (no volume Windows
//! filled checks them). What each is assumed to share with a Linux driver
//! (fs/ntfs, fs/exfat, fs/fat) is checked here: NTFS is laid out as under
//! ntfs-3g, exFAT as under exfat-fuse, and FAT names follow the NT case
//! bits (vfat's `shortname=winnt`), not vfat's default.
use crate::common;

use common::{config, usage_json, write_file};
use serde_json::Value;

/// A config's figures without the fields naming who wrote them.
fn figures(c: &Value) -> Value {
    let mut c = c.clone();
    let o = c.as_object_mut().unwrap();
    o.remove("driver");
    o.remove("exact");
    c
}

#[test]
fn windows_drivers_are_named_modelled_and_not_exact() {
    let dir = tempfile::tempdir().unwrap();
    // 200 lowercase 8.3 names: one 32-byte entry each under the NT case
    // bits, two (8.3 + one LFN slot) under vfat's default.
    for i in 0..200 {
        write_file(&dir.path().join(format!("low/f{i:03}.txt")), 700 + i);
    }
    write_file(&dir.path().join("Mixed Case Name.txt"), 5000);
    let root = dir.path().to_str().unwrap();
    let fs = [
        "--fs", "fat32:4K", "--fs", "exfat:4K", "--fs", "ntfs:4K", "--fs", "ext4:4K",
    ];
    let args = |d: &'static str| [&[root, "--driver", d][..], &fs[..]].concat();
    let win = usage_json(&args("windows"));
    let fuse = usage_json(&args("fuse"));
    let kernel = usage_json(&args("kernel"));
    for (f, name) in [
        ("fat32", "windows:fastfat"),
        ("exfat", "windows:exfat"),
        ("ntfs", "windows:ntfs"),
    ] {
        let c = config(&win, f, 4096);
        assert_eq!(c["driver"], name);
        assert_eq!(c["exact"], false, "{f}: nothing checks it against Windows");
    }
    // A filesystem Windows has no driver for keeps the Linux one.
    assert_eq!(config(&win, "ext4", 4096)["driver"], "kernel:ext4");
    assert_eq!(config(&win, "ext4", 4096)["exact"], true);
    // Assumed equal to a Linux driver: NTFS to ntfs-3g, exFAT to exfat-fuse.
    assert_eq!(
        figures(config(&win, "ntfs", 4096)),
        figures(config(&fuse, "ntfs", 4096))
    );
    assert_eq!(
        figures(config(&win, "exfat", 4096)),
        figures(config(&fuse, "exfat", 4096))
    );
    // FAT: the lowercase names cost half the directory space vfat gives them.
    let meta = |v: &Value| config(v, "fat32", 4096)["metadata_bytes"].as_u64().unwrap();
    assert!(
        meta(&win) < meta(&kernel),
        "{} !< {}",
        meta(&win),
        meta(&kernel)
    );
    let out = common::fsfit()
        .args(["usage", "--json", "--quiet"])
        .args(args("kernel"))
        .env("FSFIT_FAT_NAMES", "winnt")
        .output()
        .unwrap();
    let winnt: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(meta(&win), meta(&winnt));
}
