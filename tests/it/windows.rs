//! fsfit.exe (the release zip's) under wine against the Linux build: the
//! same answers where the systems agree, and Windows' links reported and
//! never followed.

use crate::common::{self, fsfit, wine_path, write_file, Wine};
use crate::release::windows_exe;
use std::path::{Path, PathBuf};

/// The unpacked exe and a wine prefix, or None after a skip.
fn setup(dir: &Path) -> Option<(PathBuf, &'static Wine)> {
    let exe = windows_exe(dir)?;
    Some((exe, common::wine()?))
}

/// `ARGS` run by both builds in `cwd` (relative paths, so both print the
/// same ones), their stdout with the run's date line left out.
fn both(exe: &Path, wine: &Wine, cwd: &Path, args: &[&str]) -> (String, String) {
    let drop_date = |s: &str| {
        s.lines()
            .filter(|l| !l.trim_start().starts_with("\"date\":"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let win = wine
        .command(exe)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        win.status.success(),
        "{}",
        String::from_utf8_lossy(&win.stderr)
    );
    let lin = fsfit().args(args).current_dir(cwd).output().unwrap();
    assert!(
        lin.status.success(),
        "{}",
        String::from_utf8_lossy(&lin.stderr)
    );
    let text = |b: Vec<u8>| drop_date(&String::from_utf8(b).unwrap());
    (text(win.stdout), text(lin.stdout))
}

/// The same text, or the first line where the exe's differs.
fn same(win: &str, lin: &str) {
    let (w, l): (Vec<&str>, Vec<&str>) = (win.lines().collect(), lin.lines().collect());
    if let Some(i) = (0..w.len().max(l.len())).find(|&i| w.get(i) != l.get(i)) {
        let from = i.saturating_sub(8);
        panic!(
            "line {i}: exe {:?}, Linux {:?}; Linux before it:\n{}",
            w.get(i),
            l.get(i),
            l[from..i.min(l.len())].join("\n")
        );
    }
}

/// Nested folders with long and non-ASCII names (NTFS sizes each folder's
/// index from its name), files of many sizes, every mtime even (so no
/// finding lists a path, which Windows shows with `\`).
fn tree_without_links(root: &Path) {
    let deep = root.join("Documents/Projekte 2024/Fotos — été/raw");
    for (i, size) in [0u64, 1, 700, 4096, 5000, 70_000, 1 << 20]
        .iter()
        .enumerate()
    {
        write_file(&deep.join(format!("bild_{i}.dat")), *size);
        write_file(&root.join(format!("Documents/note {i}.txt")), size / 3);
    }
    for i in 0..300 {
        write_file(&root.join(format!("many/file_{i:04}.txt")), i * 13);
    }
    let even = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    for e in walk(root) {
        if e.is_file() {
            let f = std::fs::File::options().write(true).open(&e).unwrap();
            f.set_modified(even).unwrap();
        }
    }
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// Every filesystem, NTFS included: the exe's JSON is the Linux build's.
/// NTFS took the whole relative path for a folder's name on Windows, and
/// came out kilobytes larger, before the walk split names at `\` too.
#[test]
fn usage_json_is_the_linux_builds_on_a_tree_without_links() {
    let d = tempfile::tempdir().unwrap();
    let Some((exe, wine)) = setup(d.path()) else {
        return;
    };
    tree_without_links(&d.path().join("tree"));
    // The filesystems Windows formats, with one NTFS driver for both (the
    // default is the one the host would mount with, which a Windows build
    // has no Linux driver to ask about). ext4 at 1 KiB came out one block
    // apart: its directory blocks depend on the order the folder is read in.
    let args = [
        "usage", "--json", "--quiet", "--driver", "fuse", "--fs", "fat32", "--fs", "exfat", "--fs",
        "ntfs", "tree",
    ];
    let (win, lin) = both(&exe, wine, d.path(), &args);
    assert!(lin.contains("\"fs\": \"ntfs\""), "{lin}");
    same(&win, &lin);
}

/// Links to a file, to a folder inside the tree and to one outside it
/// (what wine shows for a junction): reported, their targets not walked.
#[test]
fn links_are_reported_and_never_followed() {
    let d = tempfile::tempdir().unwrap();
    let Some((exe, wine)) = setup(d.path()) else {
        return;
    };
    let tree = d.path().join("tree");
    write_file(&tree.join("inside/a.txt"), 100);
    for i in 0..50 {
        write_file(&d.path().join(format!("outside/f{i}")), 1000);
    }
    std::os::unix::fs::symlink("inside", tree.join("link-to-folder")).unwrap();
    std::os::unix::fs::symlink(d.path().join("outside"), tree.join("junction")).unwrap();
    let out = wine.run(&exe, &["usage", "--json", "--quiet", &wine_path(&tree)]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = &v["tree"];
    assert_eq!(
        (
            t["files"].as_u64(),
            t["dirs"].as_u64(),
            t["symlinks"].as_u64()
        ),
        (Some(1), Some(1), Some(2)),
        "{t}"
    );
}

/// `info --json` on FAT32, exFAT and NTFS images: the exe's is Linux's.
#[test]
fn info_json_is_the_linux_builds_on_fat32_exfat_and_ntfs_images() {
    if !common::have(&["mkfs.fat", "mkfs.exfat", "mkntfs"]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let Some((exe, wine)) = setup(d.path()) else {
        return;
    };
    for (name, mkfs, args) in [
        ("fat32.img", "mkfs.fat", &["-F", "32"][..]),
        ("exfat.img", "mkfs.exfat", &[][..]),
        ("ntfs.img", "mkntfs", &["-F", "-Q", "-q"][..]),
    ] {
        let img = d.path().join(name);
        std::fs::File::create(&img)
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
        let mut a: Vec<&str> = args.to_vec();
        a.push(img.to_str().unwrap());
        common::run(mkfs, &a);
        let (win, lin) = both(&exe, wine, d.path(), &["info", "--json", name]);
        assert!(lin.contains("\"volume\""), "{lin}");
        same(&win, &lin);
    }
}
