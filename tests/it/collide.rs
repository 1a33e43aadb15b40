//! Names that differ only in case on case-insensitive filesystems, checked
//! against real volumes: `cp -r` of a tree with such names onto exFAT
//! (exfat-fuse) fails for the later name with EEXIST ("File exists"), so one
//! entry and one file's contents stay; fsfit must not count both.
use crate::common;

use common::volume::{Cp, EXFAT};
use common::*;
use std::path::Path;

const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

#[cfg(target_os = "linux")]
fn ready() -> bool {
    have(&["mkfs.exfat", "mount.exfat-fuse", "losetup", "cp", "sync"]) && can_mount() && can_fuse()
}

/// Colliding names in every file/file way: pairs, a many-way collision,
/// non-ASCII pairs the exFAT up-case table folds (é/É, ß has no one-unit
/// uppercase so `straße`/`STRASSE` do NOT collide), long names (several
/// entry sets per name), in the root and in a subdirectory. Colliding files
/// differ in size but not in clusters (1..500 bytes: one cluster at every
/// tested cluster size), because which one cp copies first follows inode
/// order, not the walker's readdir order (see fs::case_duplicates).
pub(crate) fn collide_tree(root: &Path) {
    let long = "a_rather_long_name_that_takes_several_entries_".repeat(2);
    for dir in ["", "sub", "sub/deeper"] {
        let d = root.join(dir);
        write_file(&d.join("abc"), 100);
        write_file(&d.join("ABC"), 400);
        for (i, n) in ["readme", "README", "ReadMe", "rEaDmE", "readmE"]
            .iter()
            .enumerate()
        {
            write_file(&d.join(n), 10 + i as u64 * 90);
        }
        write_file(&d.join("café.txt"), 1);
        write_file(&d.join("CAFÉ.TXT"), 500);
        write_file(&d.join("ÉTÉ"), 0);
        write_file(&d.join("été"), 0);
        write_file(&d.join("straße"), 7);
        write_file(&d.join("STRASSE"), 7);
        write_file(&d.join(format!("{long}x")), 300);
        write_file(&d.join(format!("{}X", long.to_uppercase())), 30);
        // Big files that do not collide, so data clusters weigh in too.
        write_file(&d.join("big.bin"), 70_000);
    }
    // 60 pairs in one directory: enough entries that counting both names
    // would grow the directory by clusters.
    for i in 0..60 {
        write_file(&root.join(format!("many/file_number_{i:03}.txt")), 50);
        write_file(&root.join(format!("many/FILE_NUMBER_{i:03}.TXT")), 60);
    }
}

#[test]
fn exfat_file_collisions() {
    if !ready() {
        return;
    }
    let t = tempfile::Builder::new()
        .prefix("fsfit-collide-tree-")
        .tempdir()
        .unwrap();
    collide_tree(t.path());
    for (size, cluster) in [(64 * M, Some(512)), (G, Some(4096)), (G, Some(32768))] {
        let row = EXFAT.row(size, cluster, t.path(), "collide_tree", Cp::Tolerant);
        row.check(0.0);
        assert!(row.exact, "collide_tree: exact");
    }
}

/// FAT filled by mcopy (`-D s`: a clashing name is skipped, as exfat-fuse's
/// EEXIST does): the model keeps the first name, ASCII folded.
#[test]
#[cfg(target_os = "linux")]
fn fat_file_collisions_under_the_mtools_rule() {
    if !have(&["mkfs.fat", "mcopy"]) {
        return;
    }
    let t = tempfile::Builder::new()
        .prefix("fsfit-collide-fat-")
        .tempdir()
        .unwrap();
    collide_tree(t.path());
    let m = &[Some("mtools")];
    crate::fat::check_tree(16, 64 * M, Some(2048), t.path(), m, true);
    crate::fat::check_tree(32, G, Some(512), t.path(), m, true);
}
