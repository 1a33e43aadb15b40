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
//!   files), not from 64;
//! - a directory's index stays in its record until the record is full, then
//!   moves to index blocks ([`dir_index`], [`root_index`]): no 120-byte
//!   reserve, security descriptor or attribute list as under ntfs-3g.

use super::{
    block_capacity, file_name_attr, node_blocks, root_leaves, round_up, splits, IndexCost, Names,
    IA_ATTRS, IR_LARGE, IR_SMALL, RECORD, ROOT_RECORD_USED,
};

/// A new directory's record other than its name and index, as ntfs3
/// writes it: header 0x30 (the update sequence array at 0x2a, 3 entries),
/// the long $STANDARD_INFORMATION 0x18+0x48,
/// $EA_INFORMATION 0x18+8 and $EA 0x18+0x40 (the $LXUID, $LXGID and $LXMOD
/// entries of fs/ntfs3/xattr.c ntfs_save_wsl_perm, 20 bytes each), end
/// marker 8. Measured (QEMU lab, ntfsinfo): a directory named with 32
/// units holding 512 bytes of index entries in its $INDEX_ROOT fills its
/// record to exactly 1024 bytes; 568 bytes with a 17-unit name went to an
/// index block.
const DIR_BASE: u64 = 0x30 + (0x18 + 0x48) + (0x18 + 8) + (0x18 + 0x40) + 8;

/// The $I30 index of a directory ntfs3 creates, named with `own` UTF-16
/// units. fs/ntfs3/index.c indx_insert_into_root: the $INDEX_ROOT grows
/// while the record has room (no 120-byte reserve, no security descriptor
/// to push out as under ntfs-3g); then its entries move to a 4 KiB block,
/// and blocks split in halves (hdr_find_split) sending one entry up, as the
/// ntfs-3g model has it.
pub(super) fn dir_index(names: &Names, own: u64) -> IndexCost {
    let mut cost = IndexCost::default();
    let base = DIR_BASE + file_name_attr(own);
    if names.n == 0 || base + IR_SMALL + names.bytes <= RECORD {
        return cost;
    }
    let e = names.mean();
    let s = splits(names.n, block_capacity(e, 16));
    cost.blocks = 1 + s;
    // The large root takes the entries sent up while its record has room.
    let em = e + 8.0;
    let room = RECORD.saturating_sub(base + IR_LARGE + IA_ATTRS);
    let k = (room as f64 / em).floor() as u64;
    cost.blocks += node_blocks(s, k, block_capacity(em, 24));
    cost
}

/// How many bytes less a resident $DATA may take in an ntfs3 record than in
/// an ntfs-3g one (measured).
pub const RESIDENT_LESS: u64 = 96;

/// The first record ntfs3 gives a new file: mkntfs used 0..26.
const FIRST_FREE: u64 = 27;

/// The volume root's index under ntfs3: its leaves as under ntfs-3g; the
/// entries they send up stay in the root's record while it has room (512
/// bytes: mkntfs left it 512 full, its security descriptor non-resident),
/// then move to a node block (measured: 120 long names, 7 leaves, the
/// $INDEX_ROOT left with its end entry only). No attribute list.
pub(super) fn root_index(names: &Names) -> IndexCost {
    let mut cost = IndexCost::default();
    let Some((blocks, medians)) = root_leaves(names) else {
        return cost;
    };
    let em = names.mean() + 8.0;
    let k = ((RECORD - ROOT_RECORD_USED) as f64 / em).floor() as u64;
    cost.blocks = blocks + node_blocks(medians, k, block_capacity(em, 24));
    cost
}

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
    fn directory_index_moves_to_blocks_when_the_record_is_full() {
        // Measured under ntfs3 (QEMU lab): a 32-unit directory name keeps
        // 512 bytes of entries in its record, filling it to 1024 bytes.
        assert_eq!(dir_index(&Names::uniform(4, 128), 32).blocks, 0);
        assert_eq!(dir_index(&Names::uniform(4, 130), 32).blocks, 1);
        // A 17-unit name: 576 bytes do not fit.
        assert_eq!(dir_index(&Names::uniform(3, 192), 17).blocks, 1);
        assert_eq!(dir_index(&Names::uniform(0, 0), 17), IndexCost::default());
        // Many entries: leaves split, medians go up into the root.
        let big = dir_index(&Names::uniform(2000, 120), 8);
        assert!(big.blocks > 2000 * 120 / 4096, "{big:?}");
        assert_eq!((big.clusters, big.records), (0.0, 0.0));
    }

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
