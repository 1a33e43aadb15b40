//! UDF and F2FS against the real tools. This machine's kernel has neither
//! driver and no FUSE driver exists for them, so nothing is mounted:
//! - free space is compared with what the mkfs tools record on a fresh
//!   volume (udfinfo's free blocks = the integrity descriptor udf_statfs
//!   reports; F2FS checkpoint user_block_count − valid_block_count, what
//!   f2fs_statfs reports);
//! - the per-file rules are compared with userland writers: udfclient for UDF
//!   (up to ~20 new files per image, ASCII names only, sizes other than
//!   exactly bs − 216 where it and Linux differ) and sload.f2fs for F2FS
//!   (a flat tree in the root, whose dentry block mkfs made like sload does,
//!   sizes outside 3345 … 3488 where its inline limit differs from Linux's);
//! - a generated tree checks the figures' internal consistency.

use crate::common;

use common::{config, have, run, usage_json, write_file, Image};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const UDF_BLOCKS: [u64; 4] = [512, 1024, 2048, 4096];

fn usage(volume: u64, fs: &str, tree: &Path) -> Value {
    usage_json(&[
        "--volume",
        &volume.to_string(),
        "--fs",
        fs,
        tree.to_str().unwrap(),
    ])
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// `KEY=number` from udfinfo's output.
fn udfinfo(img: &Path, key: &str) -> u64 {
    let out = run("udfinfo", &[img.to_str().unwrap()]);
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("udfinfo has no {key}: {out}"))
        .trim()
        .parse()
        .unwrap()
}

fn mkudffs(img: &Image, bs: u64) {
    run(
        "mkudffs",
        &[
            "--media-type=hd",
            &format!("--blocksize={bs}"),
            img.path_str(),
        ],
    );
}

#[test]
fn udf_free_space_matches_mkudffs() {
    if !have(&["mkudffs", "udfinfo"]) {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for volume in [
        2u64 << 20,
        (7 << 20) + 12_345,
        64 << 20,
        1 << 30,
        (16 << 30) + 4096,
        256 << 30,
    ] {
        // mkudffs writes a bitmap of one bit per block: keep the big-volume
        // runs to the big block sizes. Under 770 blocks fsfit does not model.
        let sizes: Vec<u64> = UDF_BLOCKS
            .into_iter()
            .filter(|&bs| volume / bs <= 70_000_000 && volume / bs >= 770)
            .collect();
        let list: Vec<String> = sizes.iter().map(|b| b.to_string()).collect();
        let v = usage(volume, &format!("udf:{}", list.join(",")), empty.path());
        for bs in sizes {
            let img = Image::new(volume);
            mkudffs(&img, bs);
            let real = udfinfo(&img.path, "freeblocks") * bs;
            let c = config(&v, "udf", bs);
            rows.push(format!(
                "udf  {volume:>13} {bs:>5}  free real {real:>13} predicted {:>13}",
                u(c, "free_bytes")
            ));
            assert_eq!(u(c, "free_bytes"), real, "udf:{bs} on {volume} bytes");
            assert_eq!(u(c, "tree_bytes"), 0);
        }
    }
    eprintln!("{}", rows.join("\n"));
}

/// A fresh UDF image with `entries` (top-level names of `tree`) written by
/// udfclient; returns the blocks they took.
fn udfclient_put(tree: &Path, bs: u64, volume: u64, entries: &[String]) -> u64 {
    let img = Image::new(volume);
    mkudffs(&img, bs);
    let before = udfinfo(&img.path, "usedblocks");
    let udfclient = |cmds: &str, write: bool| {
        let mut c = Command::new("udfclient");
        if write {
            c.arg("-W");
        }
        let mut child = c
            .args(["-b", &bs.to_string(), img.path_str()])
            .current_dir(tree)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run udfclient");
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(cmds.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "udfclient failed: {text}");
        assert!(
            !text.contains("full") && !text.contains("Assertion"),
            "udfclient: {text}"
        );
        text
    };
    // The volume shows up as a directory named after its identifiers.
    let listing = udfclient("ls\nquit\n", false);
    let vol = listing
        .split_whitespace()
        .find(|w| w.contains("LinuxUDF:"))
        .expect("volume directory")
        .to_string();
    let mut cmds = format!("cd {vol}\n");
    for e in entries {
        cmds += &format!("put {e}\n");
    }
    cmds += "quit\n";
    udfclient(&cmds, true);
    udfinfo(&img.path, "usedblocks") - before
}

#[test]
fn udf_file_rules_match_udfclient() {
    if !have(&["mkudffs", "udfinfo", "udfclient"]) {
        return;
    }
    // udfclient puts file entries and directories in the first 1/1024 of
    // the partition only: a 16 GiB (sparse) volume leaves it room.
    let volume = 16u64 << 30;
    let mut rows = Vec::new();
    for bs in UDF_BLOCKS {
        let inline = bs - 216;
        let t = tempfile::tempdir().unwrap();
        let mut top = Vec::new();
        // Sizes around the in-ICB limit (not exactly bs − 216, where
        // udfclient uses a block and Linux does not), block multiples, big files.
        for (i, size) in [
            0u64,
            1,
            100,
            inline - 1,
            inline + 1,
            bs,
            bs + 1,
            3 * bs,
            1_000_000,
            5 * 1024 * 1024 + 123,
        ]
        .iter()
        .enumerate()
        {
            let name = format!("f{i}_{size}");
            write_file(&t.path().join(&name), *size);
            top.push(name);
        }
        let long = format!("long_{}", "n".repeat(200));
        write_file(&t.path().join(&long), 10);
        top.push(long);
        std::fs::create_dir(t.path().join("emptydir")).unwrap();
        // Where udfclient and Linux disagree: a file of exactly bs − 216 bytes.
        let size = |s: u64| if s == inline { s + 1 } else { s };
        // 17 FIDs of 240 bytes outgrow the EFE at every block size.
        for i in 0..17u64 {
            write_file(
                &t.path()
                    .join(format!("longnames/{i:02}_{}", "y".repeat(197))),
                size(i * 97),
            );
        }
        // 150 FIDs of 56 bytes: several directory blocks.
        for i in 0..150u64 {
            write_file(
                &t.path().join(format!("many/file_{i:05}.txt")),
                size(i * 37 % 3000),
            );
        }
        write_file(&t.path().join("n1/n2/n3/n4/n5/n6/leaf"), 42);
        top.extend(["emptydir", "longnames", "many", "n1"].map(String::from));

        let real = udfclient_put(t.path(), bs, volume, &top) * bs;
        let v = usage(volume, &format!("udf:{bs}"), t.path());
        let c = config(&v, "udf", bs);
        let predicted = u(c, "tree_bytes");
        rows.push(format!(
            "udf  {volume:>11} {bs:>5}  files {:>3} dirs {:>2}  tree real {real:>9} predicted {predicted:>9}",
            u(&v["tree"], "files"),
            u(&v["tree"], "dirs")
        ));
        assert_eq!(predicted, real, "udf:{bs}");
    }
    eprintln!("{}", rows.join("\n"));
}

/// `name [0x… : N]` from `fsck.f2fs -d 1`'s checkpoint dump.
fn f2fs_checkpoint(img: &Path) -> (u64, u64) {
    let out = Command::new("fsck.f2fs")
        .args(["-d", "1", img.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |key: &str| -> u64 {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .and_then(|l| l.rsplit(':').next())
            .map(|n| n.trim().trim_end_matches(']').trim().parse().unwrap())
            .unwrap_or_else(|| panic!("fsck.f2fs shows no {key}: {text}"))
    };
    (field("user_block_count"), field("valid_block_count"))
}

#[test]
fn f2fs_free_space_matches_mkfs() {
    if !have(&["mkfs.f2fs", "fsck.f2fs"]) {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for volume in [
        52u64 << 20,
        64 << 20,
        (100 << 20) + 4097,
        530 << 20,
        1 << 30,
        (8 << 30) + 12_345,
        64 << 30,
        200 << 30,
    ] {
        let img = Image::new(volume);
        run("mkfs.f2fs", &["-f", "-q", img.path_str()]);
        let (user, valid) = f2fs_checkpoint(&img.path);
        let real = (user - valid) * 4096;
        let v = usage(volume, "f2fs", empty.path());
        let c = config(&v, "f2fs", 4096);
        rows.push(format!(
            "f2fs {volume:>13}  4096  free real {real:>13} predicted {:>13}",
            u(c, "free_bytes")
        ));
        assert_eq!(u(c, "free_bytes"), real, "f2fs on {volume} bytes");
        assert_eq!(u(c, "tree_bytes"), 0);
    }
    eprintln!("{}", rows.join("\n"));
    // Too small: mkfs.f2fs refuses, and so does fsfit for an explicit config.
    let img = Image::new(50 << 20);
    let mkfs = Command::new("mkfs.f2fs")
        .args(["-f", "-q", img.path_str()])
        .output()
        .unwrap();
    assert!(!mkfs.status.success(), "mkfs.f2fs took 50 MiB");
    let out = common::fsfit()
        .args([
            "usage", "--json", "--quiet", "--volume", "50M", "--fs", "f2fs",
        ])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "fsfit should refuse f2fs on 50 MiB");
}

#[test]
fn f2fs_file_rules_match_sload() {
    if !have(&["mkfs.f2fs", "sload.f2fs", "fsck.f2fs"]) {
        return;
    }
    // A flat tree: Linux keeps the root's dentries in the block mkfs made,
    // as sload does, and ~200 names stay within hash level 0, so the order
    // names are added in does not matter.
    let t = tempfile::tempdir().unwrap();
    let mut sizes = vec![
        0u64,
        1,
        100,
        3000,
        3344,
        3489,
        4095,
        4096,
        4097,
        8192,
        65536,
        1_000_000,
        // 873 blocks fit in the inode, 874 need a direct node block.
        873 * 4096,
        873 * 4096 + 1,
        5 * 1024 * 1024 + 123,
    ];
    sizes.extend(
        (0..180u64)
            .map(|i| (i * 7919) % 20_000)
            .filter(|s| !(3345..=3488).contains(s)),
    );
    for (i, s) in sizes.iter().enumerate() {
        write_file(&t.path().join(format!("file_{i:03}_{s}")), *s);
    }
    let volume = 1u64 << 30;
    let img = Image::new(volume);
    run("mkfs.f2fs", &["-f", "-q", img.path_str()]);
    let (_, before) = f2fs_checkpoint(&img.path);
    run(
        "sload.f2fs",
        &["-f", t.path().to_str().unwrap(), "-t", "/", img.path_str()],
    );
    let (_, after) = f2fs_checkpoint(&img.path);
    let real = (after - before) * 4096;
    let v = usage(volume, "f2fs", t.path());
    let c = config(&v, "f2fs", 4096);
    eprintln!(
        "f2fs {volume:>13}  4096  files {}  tree real {real} predicted {}",
        sizes.len(),
        u(c, "tree_bytes")
    );
    assert_eq!(u(c, "tree_bytes"), real);
}

/// Expected data and slack: files above `inline` bytes take whole `unit`s.
fn walk_files(root: &Path, inline: u64, unit: u64) -> (u64, u64) {
    let (mut data, mut apparent) = (0, 0);
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() && m.len() > inline {
                data += m.len().div_ceil(unit) * unit;
                apparent += m.len();
            }
        }
    }
    (data, data - apparent)
}

#[test]
fn figures_are_consistent_on_a_mixed_tree() {
    let t = tempfile::tempdir().unwrap();
    common::mixed_tree(t.path(), 3000);
    std::os::unix::fs::symlink("sizes/f0_1.bin", t.path().join("link")).unwrap();
    let volume = 64u64 << 30;
    let v = usage_json(&[
        "--volume",
        "64G",
        "--fs",
        "udf:512,1024,2048,4096",
        "--fs",
        "f2fs",
        t.path().to_str().unwrap(),
    ]);
    let files = u(&v["tree"], "files");
    let dirs = u(&v["tree"], "dirs");
    let mut checks: Vec<(&str, u64, u64)> =
        UDF_BLOCKS.iter().map(|&b| ("udf", b, b - 216)).collect();
    checks.push(("f2fs", 4096, 3488));
    for (fs, unit, inline) in checks {
        let c = config(&v, fs, unit);
        let (data, slack) = walk_files(t.path(), inline, unit);
        let tree = u(c, "tree_bytes");
        assert_eq!(
            tree,
            u(c, "data_bytes") + u(c, "metadata_bytes"),
            "{fs}:{unit}"
        );
        assert_eq!(
            u(c, "data_bytes"),
            data,
            "{fs}:{unit}: files above {inline} B in blocks"
        );
        assert_eq!(u(c, "slack_bytes"), slack, "{fs}:{unit}");
        // Every file, directory and the symlink has its own EFE / inode block.
        let meta = u(c, "metadata_bytes");
        assert!(meta >= (files + dirs + 1) * unit, "{fs}:{unit}: {meta}");
        // ... and the rest (directory blocks, index nodes) is modest here.
        assert!(meta < (files + dirs + 1) * unit * 2, "{fs}:{unit}: {meta}");
        assert!(u(c, "free_bytes") > volume / 100 * 90, "{fs}:{unit}");
        // Checked against the kernel drivers in the lab (tests/it/lab.rs).
        assert_eq!(c["exact"], true);
        assert_eq!(c["fits"], true);
    }
}
