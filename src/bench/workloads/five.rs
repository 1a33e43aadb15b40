//! Five files of 1 MiB written and read back: the oette.info benchmark that
//! Irongeek ran on a 512 MB stick under Windows XP (FAT16 3.3 s, FAT32
//! 23.8 s, NTFS 0.9 s to write them: the cost of write-through on each).

use super::sets::{in_folders, Read, Set, Sync, Write};
use super::Workload;
use crate::bench::kinds;

/// 1 MiB each at scale 1.
fn five(scale: f64) -> Vec<super::sets::FileSpec> {
    let each = (((1u64 << 20) as f64 * scale) as u64).max(4096);
    in_folders(vec![each; 5], 5, 5_000_000)
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
    }
}
