//! btrfs as `mkfs.btrfs` (btrfs-progs 6.x) makes it on one device: 4 KiB
//! sectors, 16 KiB nodes, metadata DUP, data single, no-holes and the free
//! space tree on, no compression.
//!
//! What statvfs reports: the kernel's `btrfs_statfs` (fs/btrfs/super.c) sets
//! `f_bfree = total_bytes - Σ disk_used - global_block_rsv`, where disk_used
//! counts each DUP metadata byte twice and is independent of how much space
//! is allocated to chunks. So a copied tree takes its data (whole sectors,
//! except small files stored inline in the leaves) and twice the 16 KiB tree
//! blocks it adds. The global block reserve follows the size of the extent,
//! csum and free-space trees but is only recomputed at mount: measured, it
//! stays at its 5.5 MiB minimum through the copy (after a remount of a volume
//! holding 100k files it was 9.3 MiB, taking 3.6 MiB more of f_bfree).
//!
//! The tree blocks are counted from the items btrfs stores (sizes from
//! fs/btrfs/accessors.h / uapi btrfs_tree.h) divided by how full leaves end
//! up, which was measured here with `btrfs inspect-internal dump-tree`.

pub mod probe;

use super::{Acc, Drivers, Filesystem, Formats, FsInfo, Model, POSIX_LIMITS};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Kind};

pub struct Btrfs;

/// The only sector size on 4 KiB-page systems (mkfs.btrfs -s must equal the page size).
const SECTOR: u64 = 4096;
/// mkfs.btrfs default nodesize (-n), every tree block.
const NODE: u64 = 16384;
/// Leaf bytes for items: nodesize minus `struct btrfs_header` (101 bytes).
const LEAF_SPACE: u64 = NODE - 101;
/// Key pointers per internal node: (16384 - 101) / sizeof(btrfs_key_ptr) = 33.
const NODE_PTRS: u64 = (NODE - 101) / 33;
/// `struct btrfs_item`: key (17) + offset (4) + size (4), one per item in a leaf.
const ITEM: u64 = 25;
/// `struct btrfs_inode_item`.
const INODE_ITEM: u64 = 160;
/// `struct btrfs_inode_ref` (index 8 + name_len 2) before the name.
const INODE_REF: u64 = 10;
/// `struct btrfs_dir_item` (location 17 + transid 8 + data_len 2 + name_len 2 + type 1).
const DIR_ITEM: u64 = 30;
/// `struct btrfs_file_extent_item` up to the inline data (generation .. type).
const INLINE_HDR: u64 = 21;
/// Whole `struct btrfs_file_extent_item` of a regular extent.
const FILE_EXTENT: u64 = 53;
/// EXTENT_ITEM of a data extent: `btrfs_extent_item` (24) + inline
/// EXTENT_DATA_REF (type 1 + `btrfs_extent_data_ref` 28).
const DATA_EXTENT_ITEM: u64 = 24 + 1 + 28;
/// Skinny METADATA_ITEM of a tree block: `btrfs_extent_item` (24) + inline
/// TREE_BLOCK_REF (type 1 + root 8); one per tree block in the extent tree.
const META_EXTENT_ITEM: u64 = 24 + 1 + 8;
/// Kernel default `max_inline` (BTRFS_DEFAULT_MAX_INLINE): files up to this
/// size (and under a sector) are stored inside the leaf.
const MAX_INLINE: u64 = 2048;
/// BTRFS_MAX_EXTENT_SIZE: one file extent covers at most 128 MiB.
const MAX_EXTENT: u64 = 128 << 20;
/// crc32c checksum bytes per data sector in the csum tree.
const CSUM_PER_SECTOR: u64 = 4;

/// measured (dump-tree after copying 30 trees, 1k..100k entries): fs-tree
/// leaves end up 78..96 % full: 81..85 % for real trees (/usr/include, cargo
/// sources, python lib, docs), 86..90 % for generated trees of tiny files,
/// denser on volumes under 1 GiB (metadata pressure flushes data early).
/// File extents are inserted at writeback, among items written earlier, and
/// split leaves; big inline extents pack better than small items.
const FILL_FS: f64 = 0.83;
/// measured: the bytes of inline data pack leaves ~95 % full (trees of 1000-
/// and 2000-byte files: 88..93 % overall; tiny-file trees need it).
const FILL_INLINE: f64 = 0.95;
/// measured: extent-tree leaves (items appended in disk order) ~95 % full.
const FILL_EXTENT: f64 = 0.95;
/// measured: csum-tree leaves ~82 % full, items ~3 % headers.
const FILL_CSUM: f64 = 0.82;
const CSUM_ITEM_OVERHEAD: f64 = 1.03;

/// mkfs.btrfs refuses smaller devices ("minimum size for each btrfs device
/// is 114294784", btrfs_min_dev_size with DUP metadata and single data).
pub const MIN_DEVICE: u64 = 114_294_784;
/// measured (`btrfs filesystem df` of fresh volumes, 110 MiB .. 1 TiB): mkfs
/// leaves 8 tree blocks of metadata (DUP) and 1 of system (DUP).
const FRESH_USED: u64 = 2 * 8 * NODE + 2 * NODE;
/// measured: the global block reserve of a fresh volume, 5.5 MiB at every
/// size (btrfs_update_global_block_rsv's minimum for nodesize 16 KiB).
const GLOBAL_RSV_MIN: u64 = 5_767_168;

const MIB: u64 = 1 << 20;
/// mkfs.btrfs leaves the first MiB of the device alone (boot area).
const RESERVED_START: u64 = MIB;
/// The system chunk mkfs makes (DUP: two copies on disk).
const SYSTEM_CHUNK: u64 = 8 * MIB;

/// The kernel's metadata chunk size (volumes.c, regular allocation policy):
/// 256 MiB, or 1 GiB on volumes over 50 GiB, but at most a tenth of the
/// device for both DUP copies together, in 64 KiB steps.
fn metadata_chunk(volume: u64) -> u64 {
    let cap = if volume > 50 << 30 {
        1 << 30
    } else {
        256 * MIB
    };
    (volume / 10 / 65_536 * 65_536 / 2).min(cap)
}

/// measured (`btrfs filesystem df` of fresh volumes): the metadata chunk
/// mkfs makes is the kernel's size but at least 32 MiB (120 MiB and 512 MiB
/// volumes: 32 MiB; 1 GiB: 51.19 MiB; 2 GiB: 102.4 MiB; 8 GiB: 256 MiB;
/// 64 GiB: 1 GiB).
fn mkfs_metadata_chunk(volume: u64) -> u64 {
    metadata_chunk(volume).max(32 * MIB)
}

struct Volume {
    volume: u64,
}

impl Volume {
    /// Bytes of file data the volume takes before ENOSPC when metadata
    /// needs `metadata_bytes` more on disk (DUP). btrfs splits the device
    /// into data and metadata chunks, so f_bfree (which counts the unused
    /// part of the metadata chunks too) overstates it: a fresh 120 MiB
    /// volume reports 114 MiB free and takes 39 MiB of data.
    fn data_capacity(&self, metadata_bytes: u64) -> u64 {
        let first_meta = mkfs_metadata_chunk(self.volume);
        let unallocated = (self.volume / SECTOR * SECTOR)
            .saturating_sub(RESERVED_START + 2 * SYSTEM_CHUNK + 2 * first_meta);
        // Metadata the copy needs in use at once: the tree blocks (one copy),
        // what mkfs wrote, and the global reserve the kernel keeps back.
        let need = metadata_bytes / 2 + FRESH_USED / 2 + GLOBAL_RSV_MIN;
        let chunk = metadata_chunk(self.volume).max(1);
        let more = need.saturating_sub(first_meta).div_ceil(chunk);
        unallocated.saturating_sub(more * 2 * chunk)
    }
}

/// Leaves and internal nodes of a tree holding `raw` item bytes.
fn tree_blocks(raw: f64, fill: f64) -> u64 {
    let leaves = ((raw / (LEAF_SPACE as f64 * fill)).ceil() as u64).max(1);
    let mut blocks = leaves;
    let mut level = leaves;
    // measured: internal nodes fill well (keys mostly appended); ~90 %.
    let per_node = NODE_PTRS * 9 / 10;
    while level > 1 {
        level = level.div_ceil(per_node);
        blocks += level;
    }
    blocks
}

impl Model for Volume {
    fn free_bytes(&self) -> u64 {
        // btrfs_statfs: f_blocks = total_bytes (device rounded down to sectors),
        // f_bfree = f_blocks - used (DUP counted twice) - global reserve.
        (self.volume / SECTOR * SECTOR).saturating_sub(FRESH_USED + GLOBAL_RSV_MIN)
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        // n[0]: fs-tree item bytes but inline data; n[1]: inline data bytes
        // (file contents and symlink targets in the leaves); n[2]:
        // extent-tree item bytes of data extents; n[3]: data sectors.
        for e in dir.entries {
            let name = e.byte_len() as u64;
            // Every entry: INODE_ITEM + INODE_REF (its name) of the child, and
            // DIR_ITEM + DIR_INDEX (each with the name) in this directory.
            acc.n[0] += ITEM + INODE_ITEM + ITEM + INODE_REF + name + 2 * (ITEM + DIR_ITEM + name);
            match e.kind {
                Kind::File => {
                    let size = e.size;
                    if size == 0 {
                        // No extent at all (no-holes).
                    } else if size <= MAX_INLINE {
                        // can_cow_file_range_inline: up to max_inline (which is
                        // under a sector), the data lives in the leaf.
                        acc.n[0] += ITEM + INLINE_HDR;
                        acc.n[1] += size;
                    } else {
                        let extents = size.div_ceil(MAX_EXTENT);
                        acc.n[0] += extents * (ITEM + FILE_EXTENT);
                        acc.n[2] += extents * (ITEM + DATA_EXTENT_ITEM);
                        acc.n[3] += size.div_ceil(SECTOR);
                        acc.add_content(size, SECTOR);
                    }
                }
                // btrfs_symlink: the target is always an inline extent.
                Kind::Symlink => {
                    acc.n[0] += ITEM + INLINE_HDR;
                    acc.n[1] += e.size;
                }
                // Directories and special files are inode items only.
                Kind::Dir | Kind::Other => {}
            }
        }
    }

    fn fits(&self, sizes: &super::Sizes) -> bool {
        sizes.tree_bytes() <= self.free_bytes()
            && sizes.data_bytes <= self.data_capacity(sizes.metadata_bytes)
    }

    fn finish(&self, acc: &Acc) -> super::Sizes {
        let (items, inline, data_refs, sectors) =
            (acc.n[0] as f64, acc.n[1] as f64, acc.n[2] as f64, acc.n[3]);
        // The fresh volume already has one leaf in each tree (root dir, ...).
        let fs = tree_blocks(items + inline * FILL_FS / FILL_INLINE, FILL_FS);
        let csum_bytes = (sectors * CSUM_PER_SECTOR) as f64 * CSUM_ITEM_OVERHEAD;
        let csum = tree_blocks(csum_bytes, FILL_CSUM);
        // Every new tree block gets a METADATA_ITEM in the extent tree too.
        let others = fs + csum;
        let mut extent = tree_blocks(
            data_refs + (others * (ITEM + META_EXTENT_ITEM)) as f64,
            FILL_EXTENT,
        );
        extent = tree_blocks(
            data_refs + ((others + extent) * (ITEM + META_EXTENT_ITEM)) as f64,
            FILL_EXTENT,
        );
        let new_blocks = (fs - 1) + (csum - 1) + (extent - 1);
        // The global reserve (btrfs_update_global_block_rsv) follows the size
        // of the extent, csum and free space trees, but is only recomputed at
        // mount: measured, it stays at 5.5 MiB for the whole session of the
        // copy, so it adds nothing here (after a remount, free space drops by
        // what those trees exceed 5.5 MiB, see GLOBAL_RSV_MIN).
        let metadata = 2 * NODE * new_blocks;
        super::Sizes {
            data_bytes: acc.data,
            slack_bytes: acc.slack,
            metadata_bytes: metadata,
        }
    }
}

pub const INFO: FsInfo = FsInfo {
    name: "btrfs",
    title: "Btrfs",
    exact: false,
    // 16 EiB files (u64 offsets), 255-byte names, everything POSIX.
    limits: POSIX_LIMITS,
    drivers: Drivers {
        kernel: Some("btrfs"),
        kernel_modules: &["btrfs"],
        fuse: None,
        windows: None,
        kernel_sync: None,
    },
    // flushoncommit: data is written before the commit that names it.
    mount_options: &["sync", "flushoncommit"],
    // udisks2 data/builtin_mount_options.conf has no `btrfs_defaults`: a
    // desktop adds only the options every mount gets.
    desktop_options: super::DesktopOptions {
        kernel: &[],
        fuse: &[],
    },
    // The kernel keeps one device per fsid: copies mount one at a time.
    copies_mount: None,
    label_flag: "-L",
    formats: Formats {
        windows: None,
        windows_note: None,
        macos: None,
    },
    robustness: "copy-on-write with checksums on data and metadata",
    checker: Some(Checker {
        program: "btrfs",
        check_args: &["check", "--readonly"],
        // --repair asks for confirmation on a terminal; answer it.
        repair_args: &["check", "--repair"],
        repair_stdin: "y\n",
        exit_codes: ExitCodes::ZeroOne,
    }),
    preference: 7,
    signature: probe::SIGNATURE,
};

impl Filesystem for Btrfs {
    fn keeps_holes(&self, _driver: super::DriverKind) -> bool {
        true
    }
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        Some(super::argv(&[
            "mkfs.btrfs",
            "-f",
            "-q",
            "-s",
            &cluster.to_string(),
        ]))
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        // ctree.h: BTRFS_LABEL_SIZE 256; mkfs.btrfs 6.2 takes 255 bytes but
        // stores 254 (measured with blkid and btrfs filesystem label).
        crate::fs::LabelRule {
            max_bytes: Some(254),
            ..crate::fs::LabelRule::ANY
        }
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // mkfs.btrfs -s: the sector size must be the page size (4 KiB here).
        (SECTOR, SECTOR)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        SECTOR
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        if cluster != SECTOR {
            return Err(crate::Error::input(format!(
                "mkfs.btrfs only makes {SECTOR}-byte sectors on 4 KiB-page systems"
            )));
        }
        if volume < MIN_DEVICE {
            return Err(crate::Error::input(format!(
                "mkfs.btrfs refuses devices under {MIN_DEVICE} bytes (109 MiB)"
            )));
        }
        Ok(Box::new(Volume { volume }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Entry;
    use std::ffi::OsString;
    use std::path::Path;

    fn entry(name: &str, kind: Kind, size: u64) -> Entry {
        Entry::new(OsString::from(name), kind, size, 0)
    }

    fn run(entries: &[Entry]) -> (Acc, super::super::Sizes) {
        let m = Btrfs.model(2 << 30, 4096).unwrap();
        let mut acc = Acc::default();
        m.add_dir(&Dir::new(Path::new(""), true, entries), &mut acc);
        let s = m.finish(&acc);
        (acc, s)
    }

    #[test]
    fn free_space_of_fresh_volumes() {
        // measured: 2 GiB -> f_bfree 522808 blocks; 512 MiB -> 129592.
        assert_eq!(
            Btrfs.model(2 << 30, 4096).unwrap().free_bytes(),
            522_808 * 4096
        );
        assert_eq!(
            Btrfs.model(512 << 20, 4096).unwrap().free_bytes(),
            129_592 * 4096
        );
        assert!(Btrfs.model(100 << 20, 4096).is_err());
        assert!(Btrfs.model(1 << 30, 8192).is_err());
    }

    #[test]
    fn inline_and_regular_files() {
        // Up to 2048 bytes: inline, no data; above: whole sectors.
        let (acc, s) = run(&[entry("a", Kind::File, 2048)]);
        assert_eq!((acc.data, acc.n[1]), (0, 2048));
        assert_eq!(acc.n[0], 185 + 36 + 2 * 56 + ITEM + INLINE_HDR);
        assert_eq!(s.data_bytes, 0);
        let (acc, s) = run(&[entry("b", Kind::File, 2049)]);
        assert_eq!((acc.data, acc.slack), (4096, 4096 - 2049));
        assert_eq!(acc.n[3], 1);
        assert_eq!(s.slack_bytes, 4096 - 2049);
        let (acc, _) = run(&[entry("c", Kind::File, 0)]);
        assert_eq!((acc.data, acc.n[1]), (0, 0));
        // 300 MiB: three extents of at most 128 MiB.
        let (acc, _) = run(&[entry("d", Kind::File, 300 << 20)]);
        assert_eq!(acc.n[2], 3 * (ITEM + DATA_EXTENT_ITEM));
    }

    #[test]
    fn per_entry_items() {
        // name "x": inode 185 + ref 36 + dir item 56 + dir index 56.
        let (acc, s) = run(&[entry("x", Kind::Other, 0)]);
        assert_eq!(acc.n[0], 185 + 36 + 2 * 56);
        // One entry fits the existing leaf: nothing new.
        assert_eq!(s.metadata_bytes, 0);
    }

    #[test]
    fn data_capacity_of_fresh_volumes() {
        // measured: the bytes of one big file `dd` wrote before ENOSPC.
        for (volume, data) in [
            (120u64 << 20, 40_894_464u64),
            (256 << 20, 183_500_800),
            (512 << 20, 451_936_256),
            (1 << 30, 948_568_064),
            (2 << 30, 1_914_961_920),
        ] {
            let v = Volume { volume };
            assert_eq!(v.data_capacity(0), data, "{volume}");
            let m = Btrfs.model(volume, 4096).unwrap();
            let fits = |data_bytes| {
                m.fits(&super::super::Sizes {
                    data_bytes,
                    slack_bytes: 0,
                    metadata_bytes: 0,
                })
            };
            assert!(fits(data) && !fits(data + 4096));
        }
        // Metadata beyond the first chunk takes a new DUP chunk from data.
        let v = Volume { volume: 1 << 30 };
        assert!(v.data_capacity(200 << 20) < v.data_capacity(0) - (100 << 20));
    }

    #[test]
    fn tree_block_counts() {
        assert_eq!(tree_blocks(0.0, 0.84), 1);
        assert_eq!(tree_blocks(LEAF_SPACE as f64 * 0.84 * 2.0, 0.84), 3);
    }
}
