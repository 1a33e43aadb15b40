//! NTFS model against real volumes: `mkntfs -F -Q [-c CLUSTER] IMG` images
//! (ntfs-3g's mkntfs), attached to a loop device and mounted with the ntfs-3g
//! FUSE driver; statvfs before and after `cp -r`, compared with
//! `fsfit usage --json`: free_bytes to the byte, tree_bytes within 1 %.
use crate::common;

use common::volume::{Cp, Row, NTFS};
use common::*;
use std::path::Path;
use std::sync::Mutex;

const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

/// One volume at a time: keeps the output readable and the 2 cores free.
static SERIAL: Mutex<()> = Mutex::new(());

fn ready() -> bool {
    have(&["mkntfs", "ntfs-3g", "losetup", "cp", "sync", "umount"]) && can_mount() && can_fuse()
}

/// statvfs `f_frsize`: ntfs-3g reports the cluster size.
fn frsize(path: &Path) -> u64 {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut s) }, 0);
    s.f_frsize as u64
}

/// Format, mount, copy `tree`, and compare with the model: free_bytes must
/// match exactly, tree_bytes within `tol_pct` percent. ntfs-3g's statvfs
/// f_frsize is the cluster size, so the volume says which config it is.
fn check(size: u64, cluster: Option<u64>, tree: &Path, label: &str, tol_pct: f64) -> Row {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let vol = NTFS.volume(size, cluster);
    let c = frsize(vol.mount.path());
    if let Some(want) = cluster {
        assert_eq!(c, want, "ntfs-3g f_frsize is the cluster size");
    }
    let row = vol.row(tree, label, Cp::All);
    assert_eq!(row.cluster, c, "{label}: the config of this volume");
    assert!(row.exact, "{label}: exact");
    row.check(tol_pct / 100.0);
    row
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsfit-ntfs-tree-")
        .tempdir()
        .unwrap()
}

#[test]
fn mixed_tree_across_sizes_and_clusters() {
    if !ready() {
        return;
    }
    let t = tmp();
    mixed_tree(t.path(), 2000);
    for (size, cluster) in [
        (100 * M, Some(512)),
        (100 * M, None),
        (G, Some(65536)),
        (16 * G, Some(32768)),
    ] {
        check(size, cluster, t.path(), "mixed_tree", 1.0);
    }
}

/// Files just below, at and above the resident limit for several name
/// lengths (limit: the record's 1024 bytes minus header, standard
/// information, file name, security descriptor and $DATA header), exact
/// cluster multiples, empty files.
fn threshold_tree(root: &Path) {
    for len in [1u64, 8, 30, 100, 200] {
        let limit = 736 - (0x42 + 2 * len).div_ceil(8) * 8;
        for size in [limit - 8, limit - 1, limit, limit + 1, limit + 8] {
            let name: String = format!("{}{size:05}", "n".repeat(len as usize));
            let name = &name[name.len() - len as usize..];
            write_file(&root.join(format!("th{len}")).join(name), size);
        }
    }
    for (i, size) in [0u64, 0, 512, 1024, 4096, 8192, 65536, 131072, 65537]
        .iter()
        .enumerate()
    {
        write_file(&root.join(format!("multiples/m{i}_{size}")), *size);
    }
}

#[test]
fn resident_threshold_and_cluster_multiples() {
    if !ready() {
        return;
    }
    let t = tmp();
    threshold_tree(t.path());
    check(100 * M, Some(512), t.path(), "threshold", 1.0);
    // The rest of the cluster sweep.
    for c in [1024, 2048, 4096, 8192, 16384, 32768, 65536] {
        check(G, Some(c), t.path(), "threshold", 1.0);
    }
}

/// Many tiny files, all resident: the cost is MFT records (and $MFT growth
/// in 16-record steps) and index blocks.
#[test]
fn many_tiny_resident_files() {
    if !ready() {
        return;
    }
    let t = tmp();
    for d in 0..2 {
        for i in 0..1000u64 {
            write_file(&t.path().join(format!("d{d}/{i:06}.txt")), i % 300);
        }
    }
    check(100 * M, Some(512), t.path(), "tiny", 1.0);
    check(G, Some(65536), t.path(), "tiny", 1.0);
}

/// One directory with thousands of entries: a three-level B-tree of index
/// blocks, names inserted in ascending order (cp copies in inode order).
#[test]
fn directory_with_thousands_of_entries() {
    if !ready() {
        return;
    }
    let t = tmp();
    let dir = t.path().join("big");
    std::fs::create_dir_all(&dir).unwrap();
    // cp copies in inode order. Inode numbers follow creation order only on
    // a quiet filesystem: other tests freeing inodes in /tmp at the same
    // time get theirs reused out of order. So name the files by their inode
    // numbers, and the copy inserts names in ascending order whatever the
    // allocator did.
    use std::os::unix::fs::MetadataExt;
    let mut made: Vec<(u64, std::path::PathBuf)> = (0..6000)
        .map(|i| {
            let p = dir.join(format!("tmp_{i}"));
            std::fs::File::create(&p).unwrap();
            (std::fs::metadata(&p).unwrap().ino(), p)
        })
        .collect();
    made.sort();
    for (i, (_, p)) in made.iter().enumerate() {
        std::fs::rename(p, dir.join(format!("entry_name_{i:08}"))).unwrap();
    }
    check(G, Some(4096), t.path(), "bigdir", 1.0);
    check(G, Some(65536), t.path(), "bigdir", 1.0);
}

/// Small directories of long names: the index root overflows the record,
/// pushing the security descriptor and an attribute list out of it.
#[test]
fn small_directories_of_long_names() {
    if !ready() {
        return;
    }
    let t = tmp();
    let mut x = 7u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for d in 0..300 {
        for f in 0..1 + next(15) {
            let len = 8 + next(73) as usize;
            let name = format!("{}{f:03}", "m".repeat(len));
            let name = &name[name.len() - len..];
            write_file(&t.path().join(format!("dir{d:03}/{name}")), next(2000));
        }
    }
    // Uniform lengths: the record overflows in a predictable way.
    for len in [20usize, 40, 60, 100] {
        for k in 1..8 {
            for f in 0..k {
                let name = format!("{}{f:03}", "u".repeat(len));
                write_file(
                    &t.path()
                        .join(format!("U{len}_{k}/{}", &name[name.len() - len..])),
                    10,
                );
            }
        }
    }
    check(G, Some(4096), t.path(), "long names", 1.0);
    check(G, Some(65536), t.path(), "long names", 1.0);
}

/// Symlinks (interix files, target in $DATA) and FIFOs (interix, empty), deep
/// nesting, Unicode names.
#[cfg(unix)]
#[test]
fn symlinks_fifos_and_deep_nesting() {
    if !ready() {
        return;
    }
    let t = tmp();
    let root = t.path();
    std::fs::create_dir_all(root.join("links")).unwrap();
    for k in 0..200 {
        let target = format!("../some/where/{}", "t".repeat(k % 60));
        std::os::unix::fs::symlink(&target, root.join(format!("links/l{k:03}"))).unwrap();
    }
    for k in 0..20 {
        let p =
            std::ffi::CString::new(root.join(format!("links/fifo{k}")).to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(p.as_ptr(), 0o644) }, 0);
    }
    let mut deep = root.join("deep");
    for d in 0..40 {
        deep = deep.join(format!("ébène_{d}"));
        write_file(&deep.join("f.txt"), 1000 + d);
    }
    check(100 * M, Some(4096), root, "links+deep", 1.0);
    check(G, Some(1024), root, "links+deep", 1.0);
}

/// Free space of empty volumes: the $LogFile size steps (2 MiB below
/// 200 MiB, volume/200 up to 12 GiB, 64 MiB above), tiny volumes, the
/// default cluster.
#[test]
fn free_bytes_of_fresh_volumes() {
    if !ready() {
        return;
    }
    let t = tmp();
    for (size, cluster) in [
        (3 * M, Some(512)),
        (10 * M, Some(65536)),
        (300 * M, Some(2048)),
        (5 * G + 12345 * 512, Some(16384)),
        (100 * G, None),
    ] {
        check(size, cluster, t.path(), "empty", 0.0);
    }
}

/// Known limit: names inserted in random order fill index blocks to ~70 %
/// instead of the ~50 % of ascending order, so the model overestimates a
/// huge directory's index. Checked here with a wide bound, and the mixed
/// tree with a shuffled 2000-entry directory still within 1 %.
#[test]
fn random_insertion_order() {
    if !ready() {
        return;
    }
    let t = tmp();
    mixed_tree(t.path(), 0);
    let mut order: Vec<u64> = (0..2000).collect();
    let mut x = 3u64;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    for i in order {
        write_file(
            &t.path().join(format!("many/file_{i:05}.txt")),
            (i * 37) % 3000 + 1,
        );
    }
    // The shuffled directory is a sixth of this tree's metadata: measured
    // +0.8 to +0.9 %, so a little slack.
    check(G, Some(4096), t.path(), "mixed shuffled", 1.5);

    let t = tmp();
    let dir = t.path().join("big");
    std::fs::create_dir_all(&dir).unwrap();
    let mut order: Vec<u64> = (0..5000).collect();
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    for i in order {
        std::fs::File::create(dir.join(format!("entry_name_{i:08}"))).unwrap();
    }
    let row = check(G, Some(4096), t.path(), "bigdir shuffled", 10.0);
    assert!(
        row.tree_pred >= row.tree_real,
        "ascending order is the worst case"
    );
}
