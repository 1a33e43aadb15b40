//! What the Linux kernel's ntfs3 driver (5.15 and later) writes differently
//! from ntfs-3g, on the same mkntfs volume; the rest of the NTFS model is
//! shared. Measured under QEMU with Debian's 6.12 kernel (tests/it/lab.rs):
//! - ntfs3 gives every new file an extended attribute with its uid, gid and
//!   mode ($EA_INFORMATION + $EA, fs/ntfs3/xattr.c ntfs_save_wsl_perm) and
//!   the long $STANDARD_INFORMATION, where ntfs-3g writes a
//!   $SECURITY_DESCRIPTOR: a file's contents stay resident in its record only
//!   up to 96 bytes less;
//! - the $MFT grows in steps of 1024 records, to a multiple of 128
//!   (fs/ntfs3/fsntfs.c ntfs_extend_mft: NTFS_MFT_INCREASE_STEP), not 16 at
//!   a time; new records are taken from 27 up (after mkntfs's $Extend
//!   files), not from 64.

use super::{round_up, RECORD};

/// How many bytes less a resident $DATA may take in an ntfs3 record than in
/// an ntfs-3g one (measured).
pub const RESIDENT_LESS: u64 = 96;

/// The first record ntfs3 gives a new file: mkntfs used 0..26.
const FIRST_FREE: u64 = 27;

/// fs/ntfs3/fsntfs.c NTFS_MFT_INCREASE_STEP.
const STEP: u64 = 1024;

/// $MFT records after `records` new files and directories, starting from
/// `initial` records (what mkntfs allocated).
pub fn mft_records(initial: u64, records: u64) -> u64 {
    let mut total = initial;
    while FIRST_FREE + records > total {
        total = round_up(total + STEP, 128);
    }
    total
}

/// Bytes the $MFT and its $BITMAP grow by for `records` new records, with
/// `initial_bytes` allocated by mkntfs and `cluster`-byte clusters.
pub fn mft_growth(initial_bytes: u64, records: u64, cluster: u64) -> u64 {
    let initial = initial_bytes / RECORD;
    let total = mft_records(initial, records);
    if total == initial {
        return 0;
    }
    let data = round_up((total - initial) * RECORD, cluster);
    // $MFT/$BITMAP: a bit per record, 8-byte multiples, one cluster from mkntfs.
    let bitmap = round_up(total.div_ceil(8), 8);
    data + (bitmap.div_ceil(cluster).max(1) - 1) * cluster
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mft_grows_in_1024_record_steps() {
        // 28 records at 4K clusters (mkntfs: 27 rounded to the cluster).
        assert_eq!(mft_records(28, 0), 28);
        assert_eq!(mft_records(28, 1), 28);
        assert_eq!(mft_records(28, 2), 1152);
        assert_eq!(mft_records(28, 1125), 1152);
        assert_eq!(mft_records(28, 1126), 2176);
        assert_eq!(mft_growth(28 * 1024, 2, 4096), (1152 - 28) * 1024);
    }
}
