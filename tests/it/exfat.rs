//! exFAT model against real volumes: mkfs.exfat (exfatprogs) images mounted
//! with exfat-fuse, statvfs before and after `cp -r`, compared with
//! `fsfit usage --json` to the byte, for free_bytes and tree_bytes.
use crate::common;

use common::volume::{Cp, EXFAT};
use common::*;
use std::path::Path;
use std::process::Command;

const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

fn ready() -> bool {
    have(&["mkfs.exfat", "mount.exfat-fuse", "losetup", "cp", "sync"]) && can_mount() && can_fuse()
}

/// Format, mount, copy `tree`, and compare with the model: free_bytes and
/// tree_bytes to the byte.
fn check(size: u64, cluster: Option<u64>, tree: &Path, label: &str, copy: Cp) {
    let row = EXFAT.row(size, cluster, tree, label, copy);
    row.check(0.0);
    assert!(row.exact, "{label}: exact");
}

/// 3000 files with long names (40 to 130 characters, some non-ASCII) in one
/// directory, 200 more in the root, so both span many clusters.
fn wide_tree(root: &Path) {
    let stem = "a_long_descriptive_file_name_like_cameras_and_phones_never_make_".repeat(2);
    for i in 0..3000usize {
        let len = 40 + (i * 7) % 90;
        let mut name: String = stem.chars().take(len).collect();
        if i % 5 == 0 {
            name.push_str("_é€");
        }
        name.push_str(&format!("_{i:04}.txt"));
        write_file(&root.join("wide").join(name), (i as u64 * 13) % 700 + 1);
    }
    for i in 0..200usize {
        let name = format!("{}{i}", &stem[..(i % 60) + 1]);
        write_file(&root.join(name), 0);
    }
}

/// The model's edge cases: name lengths around the 15-unit entry boundary,
/// surrogate pairs, exact cluster multiples, empty files and directories,
/// a directory that ends exactly on a cluster, names and types the driver
/// refuses (symlink, `?` and `:` names, a non-UTF-8 name, a refused
/// directory with a file in it), FIFO and socket (exfat-fuse leaves empty
/// files), trailing dot and space, deep nesting.
fn edge_tree(root: &Path) {
    for n in [1usize, 14, 15, 16, 29, 30, 31, 45, 46, 200, 255] {
        write_file(&root.join("lens").join("n".repeat(n)), n as u64);
    }
    write_file(&root.join("lens").join("😀".repeat(7) + "x"), 3); // 15 units
    write_file(&root.join("lens").join("😀".repeat(8)), 3); // 16 units
    for (i, size) in [512u64, 1024, 4096, 32768, 131072, 1 << 20, (1 << 20) + 1]
        .iter()
        .enumerate()
    {
        write_file(&root.join(format!("mult/m{i}")), *size);
    }
    for i in 0..7 {
        write_file(&root.join(format!("empties/e{i}")), 0);
        std::fs::create_dir_all(root.join(format!("empties/d{i}"))).unwrap();
    }
    // 16 one-letter names: 48 entries = 1536 bytes, 3 clusters of 512 exactly.
    for i in 0..16u8 {
        write_file(
            &root.join("exact").join(((b'a' + i) as char).to_string()),
            1,
        );
    }
    // odd/: 5 storable names (15 entries) + FIFO and socket, which exfat-fuse
    // leaves as empty files (6 more): 2 clusters of 512 rather than 1.
    for p in ["pad1", "pad2", "pad3"] {
        write_file(&root.join("odd").join(p), 1);
    }
    write_file(&root.join("odd/trailing.dot."), 10);
    write_file(&root.join("odd/trailing space "), 10);
    write_file(&root.join("odd/what?.txt"), 10);
    write_file(&root.join("odd/a:b"), 10);
    write_file(&root.join("odd/bad|dir/inside.txt"), 5000);
    {
        use std::os::unix::ffi::OsStrExt;
        let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9.txt"); // not UTF-8
        write_file(&root.join("odd").join(latin1), 5000);
    }
    std::os::unix::fs::symlink("target", root.join("odd/link")).unwrap();
    run("mkfifo", &[root.join("odd/fifo").to_str().unwrap()]);
    let _sock = std::os::unix::net::UnixListener::bind(root.join("odd/sock")).unwrap();
    let mut deep = root.join("deep");
    for d in 0..12 {
        deep = deep.join(format!("level_{d}_with_a_longer_name"));
    }
    write_file(&deep.join("bottom.bin"), 70000);
}

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsfit-exfat-tree-")
        .tempdir()
        .unwrap()
}

#[test]
fn free_bytes_of_fresh_volumes() {
    if !ready() {
        return;
    }
    let empty = tempdir();
    for (size, cluster) in [
        (3 * M, None),
        (5 * M, Some(M)),
        (3 * M, Some(256 << 10)),
        (64 * M, None),
        (64 * M, Some(512)),
        (100 * M + 512, Some(2048)),
        (256 * M, None),
        (256 * M + M, None),
        (G, Some(32 * M)),
        (G, Some(8 * M)),
        (2 * G, Some(512)),
        (32 * G, None),
        (33 * G, None),
        (100 * G, Some(4096)),
    ] {
        let vol = EXFAT.volume(size, cluster);
        let real = free_bytes(vol.mount.path());
        drop(vol);
        let p = EXFAT.predict(size, cluster, empty.path());
        eprintln!(
            "exfat {size:>12} {:>8} (empty) free {real:>14} / {:>14}",
            p.cluster, p.free
        );
        assert_eq!(p.free, real, "{size} {cluster:?}");
    }
}

#[test]
fn refuses_what_mkfs_refuses() {
    if !have(&["mkfs.exfat"]) {
        return;
    }
    // mkfs.exfat fails on these; fsfit must refuse them with a reason.
    for (size, cluster) in [(2 * M, 4096u64), (600 * G, 512)] {
        let img = Image::new(size);
        let ok = Command::new("mkfs.exfat")
            .args(["-c", &cluster.to_string(), img.path_str()])
            .output()
            .unwrap()
            .status
            .success();
        assert!(!ok, "mkfs.exfat accepted {size}/{cluster}");
        let out = fsfit()
            .args(["usage", "--json", "--quiet", "--volume", &size.to_string()])
            .args(["--fs", &format!("exfat:{cluster}"), "."])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("mkfs.exfat"), "reason: {err}");
    }
}

#[test]
fn mixed_tree_small_volumes() {
    if !ready() {
        return;
    }
    let t = tempdir();
    mixed_tree(t.path(), 300);
    for (size, cluster) in [(64 * M, None), (64 * M, Some(512)), (256 * M, Some(16384))] {
        check(size, cluster, t.path(), "mixed_tree", Cp::All);
    }
}

#[test]
fn mixed_tree_large_volumes() {
    if !ready() {
        return;
    }
    let t = tempdir();
    mixed_tree(t.path(), 300);
    for (size, cluster) in [
        (G, None),
        (G, Some(128 << 10)),
        (G, Some(M)),
        (32 * G, None),
    ] {
        check(size, cluster, t.path(), "mixed_tree", Cp::All);
    }
}

#[test]
fn wide_directories() {
    if !ready() {
        return;
    }
    let t = tempdir();
    wide_tree(t.path());
    for (size, cluster) in [
        (64 * M, Some(512)),
        (G, Some(4096)),
        (32 * G, Some(128 << 10)),
    ] {
        check(size, cluster, t.path(), "wide 3000+200", Cp::All);
    }
}

#[test]
fn edge_cases() {
    if !ready() || !have(&["mkfifo"]) {
        return;
    }
    let t = tempdir();
    edge_tree(t.path());
    for (size, cluster) in [(64 * M, Some(512)), (G, Some(4096)), (2 * G, Some(M))] {
        check(size, cluster, t.path(), "edge_tree", Cp::Tolerant);
    }
}

/// The root holds mkfs's 3 entries: names that fill its first cluster
/// exactly, then the same with one entry more (one 1-character name made a
/// 16-character one), which makes it grow by a cluster.
#[test]
fn root_directory_boundary() {
    if !ready() {
        return;
    }
    for (cluster, threes, fours) in [(512u64, 3usize, 1usize), (4096, 39, 2)] {
        for (extra, label) in [(0, "root full"), (1, "root full + 1 entry")] {
            let t = tempdir();
            for i in 0..threes - extra {
                write_file(&t.path().join(format!("f{i}")), 1); // 3 entries
            }
            for i in 0..fours + extra {
                let name = format!("{i:02}{}", "x".repeat(14)); // 4 entries
                write_file(&t.path().join(name), 1);
            }
            check(64 * M, Some(cluster), t.path(), label, Cp::All);
        }
    }
}

#[test]
fn huge_clusters() {
    if !ready() {
        return;
    }
    let t = tempdir();
    write_file(&t.path().join("a.bin"), 1);
    write_file(&t.path().join("d/b.bin"), 40 * M + 1);
    write_file(&t.path().join("d/e"), 0);
    check(4 * G, Some(32 * M), t.path(), "3 files, 1 dir", Cp::All);
    check(2 * G, Some(16 * M), t.path(), "3 files, 1 dir", Cp::All);
}
