//! One file of 10 MiB written and read back: the Disk Bench test of the
//! Windows seeds (Irongeek's 10 MB file on XP: FAT16 1.64 MB/s, FAT32
//! 0.176 MB/s on a 512 MB stick; the NotebookReview guide's 10 MB file on
//! a micro SD reader). Fixed at 10 MiB where `single-write` is 1 GiB, so
//! the per-file cost of write-through shows.

use super::sets::{in_folders, shrunk_or_repeated, Read, Set, Sync, Write};
use super::Workload;
use crate::bench::kinds;

/// 10 MiB at scale 1; above it, more files of 10 MiB.
fn ten(scale: f64) -> Vec<super::sets::FileSpec> {
    in_folders(shrunk_or_repeated(1, 10 << 20, scale), 1, 6_000_000)
}

pub static TEN_MB: Set = Set {
    family: "tenmb",
    write: &kinds::TENMB_WRITE,
    read: &kinds::TENMB_READ,
    what: "file of 10 MiB",
    sync: Sync::PerFile,
    layout: ten,
};

pub static ALL: [&'static dyn Workload; 2] = [&Write(&TEN_MB), &Read(&TEN_MB)];

#[cfg(test)]
mod tests {
    #[test]
    fn one_file_of_ten_mib_at_scale_1() {
        let l = super::ten(1.0);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].size, 10 << 20);
        let l = super::ten(3.4);
        assert_eq!(l.len(), 3);
        assert!(l.iter().all(|f| f.size == 10 << 20));
    }
}
