//! Five files of 1 MiB written and read back: the oette.info benchmark that
//! Irongeek ran on a 512 MB stick under Windows XP (FAT16 3.3 s, FAT32
//! 23.8 s, NTFS 0.9 s to write them: the cost of write-through on each).

use super::sets::{in_folders, shrunk_or_repeated, Read, Set, Sync, Write};
use super::Workload;
use crate::bench::kinds;

/// 1 MiB each at scale 1; above it, more sets of five.
fn five(scale: f64) -> Vec<super::sets::FileSpec> {
    in_folders(shrunk_or_repeated(5, 1 << 20, scale), 5, 5_000_000)
}

pub static FIVE: Set = Set {
    family: "five",
    write: &kinds::FIVE_WRITE,
    read: &kinds::FIVE_READ,
    what: "files of 1 MiB",
    sync: Sync::PerFile,
    layout: five,
};

pub static ALL: [&'static dyn Workload; 2] = [&Write(&FIVE), &Read(&FIVE)];

#[cfg(test)]
mod tests {
    #[test]
    fn five_files_of_one_mib_at_scale_1() {
        let l = super::five(1.0);
        assert_eq!(l.len(), 5);
        assert!(l.iter().all(|f| f.size == 1 << 20));
        // Grown (--quick on a fast volume): more files of 1 MiB, each with
        // its own fsync, as the measurement this repeats.
        let l = super::five(4.0);
        assert_eq!(l.len(), 20);
        assert!(l.iter().all(|f| f.size == 1 << 20));
        assert_eq!(l[19].rel, std::path::PathBuf::from("d0003/f000019.bin"));
        assert!(super::five(0.02).iter().all(|f| f.size == 20971));
    }
}
