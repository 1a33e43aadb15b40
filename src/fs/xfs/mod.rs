//! XFS as `mkfs.xfs` (xfsprogs 6.x) makes it on one plain device with
//! 512-byte sectors: v5 (crc=1), 512-byte inodes, finobt, sparse inodes,
//! reflink, no rmapbt; only the block size (`-b size=`) varies.
//!
//! What statvfs reports (`xfs_fs_statfs`, fs/xfs/xfs_super.c): `f_bfree =
//! fdblocks - set_aside - allocbt blocks`, where the in-core fdblocks is the
//! on-disk free count minus the reserve pool (`xfs_default_resblks`) and
//! minus the per-AG metadata reservations of the finobt and refcount btree
//! (`xfs_ag_resv_init`). A copied tree takes its data blocks, directory
//! blocks, 64-inode chunks and inode btree growth; finobt growth comes out of
//! its reservation and does not show.

pub mod probe;

use super::{Acc, Drivers, Filesystem, Formats, FsInfo, Limits, Model, POSIX_LIMITS};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Kind};

pub struct Xfs;

/// 512-byte sectors (plain disks, image files); the AG headers use 4 of them.
const SECTOR: u64 = 512;
/// mkfs.xfs default inode size on v5 filesystems.
const INODE: u64 = 512;
/// XFS_INODES_PER_CHUNK.
const INODES_PER_CHUNK: u64 = 64;
/// Data fork space of a new inode. The literal area is 512 - 176 (v3 dinode
/// core) = 336 bytes, but xfs_init_new_inode gives every new inode an empty
/// attr fork at xfs_default_attroffset (196 bytes, forkoff 24) when the
/// kernel has CONFIG_SECURITY (xfs_create_need_xattr), as distro kernels do;
/// measured with xfs_db: forkoff = 24 on every copied inode.
const DATA_FORK: u64 = 24 * 8;
/// The root directory, made by mkfs, has no attr fork: its whole literal
/// area (512 - 176) holds short-form entries (measured: 12 entries of 19
/// bytes = 330 bytes stay in the inode, 13 take a block).
const ROOT_DATA_FORK: u64 = INODE - 176;
/// Extent records in the inode's data fork (16 bytes each) before a bmbt.
const INLINE_EXTENTS: u64 = DATA_FORK / 16;
/// Short-form btree block header with CRC (XFS_BTREE_SBLOCK_CRC_LEN).
const SBLOCK_HDR: u64 = 56;
/// v5 directory data/leaf/free/node block headers are all 64 bytes.
const DIR3_HDR: u64 = 64;
/// Remote symlink block header (struct xfs_dsymlink_hdr).
const SYMLINK_HDR: u64 = 56;
/// mkfs refuses data sections under 300 MiB ("Filesystem must be larger
/// than 300MB", xfs_mkfs.c validate).
pub const MIN_VOLUME: u64 = 300 << 20;
/// Inodes mkfs uses in the first chunk: root dir, rt bitmap, rt summary.
const MKFS_INODES: u64 = 3;
/// measured (xfs_db bmap of 1k..10k-entry directories, 1/4/64 KiB blocks):
/// node-format leaf blocks end up 58..74 % full (hash-ordered inserts, 50/50
/// splits).
const LEAFN_FILL: f64 = 0.68;
/// measured: directory blocks interleave with inode chunks, ~3 + 0.4 extents
/// per directory block; past 22 directory blocks the extents outgrow the
/// inode's 12 and the directory gets a bmbt block.
const DIR_BMBT_BLOCKS: u64 = 22;

/// The geometry mkfs.xfs picks, as far as free space depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub block: u64,
    pub dblocks: u64,
    pub agcount: u64,
    pub agsize: u64,
    pub logblocks: u64,
}

impl Geometry {
    /// xfs_mkfs.c: calc_default_ag_geometry (single device, no stripe),
    /// align_ag_geometry and calculate_log_size.
    pub fn new(volume: u64, block: u64) -> crate::Result<Geometry> {
        let blog = block.trailing_zeros();
        let mut dblocks = volume >> blog;
        if dblocks < MIN_VOLUME >> blog {
            return Err(crate::Error::input(
                "mkfs.xfs refuses filesystems under 300 MiB",
            ));
        }
        // XFS_AG_MAX_BLOCKS: AGs are at most 1 TiB.
        let ag_max = ((1u64 << 40) - 1) >> blog;
        let agsize = if dblocks >= (4u64 << 40) >> blog {
            // 4 TiB and up: the largest AGs.
            ag_max
        } else {
            // 128 MiB .. 4 TiB: four AGs (XFS_NOMULTIDISK_AGLOG = 2).
            let mut s = dblocks >> 2;
            if dblocks & 3 != 0 && s < ag_max {
                s += 1;
            }
            s
        };
        let mut agcount = dblocks / agsize + u64::from(dblocks % agsize != 0);
        // align_ag_geometry: a last AG under XFS_AG_MIN_BYTES (16 MiB) is dropped.
        let last = dblocks - (agcount - 1) * agsize;
        if last < (16 << 20) >> blog {
            agcount -= 1;
            dblocks = agcount * agsize;
        }
        // calculate_log_size: 1/2048 of the volume, at least 64 MiB, at most
        // 2 GiB - 10 MiB (XFS_MAX_LOG_BYTES) and XFS_MAX_LOG_BLOCKS.
        let mut logblocks = ((dblocks << blog) / 2048) >> blog;
        logblocks = logblocks.max((64 << 20) >> blog);
        logblocks = logblocks.min(1 << 20);
        logblocks = logblocks.min(((2u64 << 30) - (10 << 20)) >> blog);
        Ok(Geometry {
            block,
            dblocks,
            agcount,
            agsize,
            logblocks,
        })
    }

    fn ag_len(&self, ag: u64) -> u64 {
        if ag + 1 == self.agcount {
            self.dblocks - ag * self.agsize
        } else {
            self.agsize
        }
    }

    /// Inodes per block.
    fn inopblock(&self) -> u64 {
        self.block / INODE
    }

    /// Inodes and blocks of one inode chunk (at least one block).
    fn chunk(&self) -> (u64, u64) {
        let inodes = INODES_PER_CHUNK.max(self.inopblock());
        (inodes, inodes * INODE / self.block)
    }

    /// Directory block size: mkfs default is max(block, 4096).
    fn dirblk(&self) -> u64 {
        self.block.max(4096)
    }

    /// True when inode numbers may need more than 32 bits (short-form
    /// directories then store 8-byte inode numbers).
    fn big_inodes(&self) -> bool {
        let agblklog = 64 - (self.agsize - 1).leading_zeros() as u64;
        let inopblog = self.inopblock().trailing_zeros() as u64;
        ((self.agcount - 1) << (agblklog + inopblog)) >= (1u64 << 32)
    }

    /// statvfs f_bfree of the fresh volume, in blocks.
    pub fn free_blocks(&self) -> u64 {
        let b = self.block;
        // Per AG, mkfs takes the headers (SB, AGF, AGI, AGFL sectors) and the
        // roots of bnobt, cntbt, inobt, finobt, refcountbt (XFS_PREALLOC_BLOCKS).
        let agfl_block = 3 * SECTOR / b;
        let prealloc = agfl_block + 6;
        let (_, chunk_blocks) = self.chunk();
        // sb_fdblocks: AGFL blocks count as free.
        let fdblocks = self.dblocks - self.logblocks - self.agcount * prealloc - chunk_blocks;
        // xfs_default_resblks: 5 % of the blocks, at most 8192.
        let resblks = (self.dblocks / 20).min(8192);
        // xfs_ag_resv_init: each AG hides the maximum finobt and refcountbt
        // sizes minus what they use (one root block each);
        // xfs_refcountbt_calc_reserves / xfs_finobt_calc_reserves, with the
        // log's blocks left out of the AG that holds it (AG agcount / 2).
        let space = b - SBLOCK_HDR;
        let refc = [space / 12 / 2, space / 8 / 2];
        let inobt = [space / 16 / 2, space / 8 / 2];
        let log_ag = self.agcount / 2;
        let mut hidden = 0;
        for ag in 0..self.agcount {
            let mut len = self.ag_len(ag);
            if ag == log_ag {
                len -= self.logblocks;
            }
            hidden += btree_calc_size(refc, len)
                + btree_calc_size(inobt, len * self.inopblock() / INODES_PER_CHUNK)
                - 2;
        }
        // xfs_alloc_set_aside: 4 AGFL blocks + 4 for a bmbt split, per AG.
        let set_aside = self.agcount * 8;
        fdblocks - resblks - hidden - set_aside
    }
}

/// xfs_btree_calc_size: blocks of a btree holding `records` records with
/// `limits` = [min records per leaf, min records per node].
fn btree_calc_size(limits: [u64; 2], records: u64) -> u64 {
    let mut len = records;
    let mut maxrecs = limits[0];
    let mut blocks = 0;
    while len > 1 {
        len = len.div_ceil(maxrecs);
        maxrecs = limits[1];
        blocks += len;
    }
    blocks
}

struct Volume {
    geo: Geometry,
    /// Bytes of an inode number in short-form directories (4 or 8).
    sf_ino: u64,
}

impl Volume {
    fn new(geo: Geometry) -> Volume {
        // Approximation: once some AG's inode numbers pass 32 bits (volumes
        // of 4 TiB and up at 4 KiB), count every short-form directory as
        // i8 (measured on 5 TiB: within 0.2 %).
        let sf_ino = if geo.big_inodes() { 8 } else { 4 };
        Volume { geo, sf_ino }
    }

    /// Blocks a directory with `count` entries takes: none while short-form,
    /// then block, leaf and node forms (xfs_dir2_*). `data` is the sum of
    /// the entries' data-block sizes, `sf` the short-form size.
    fn dir_blocks(&self, count: u64, data: u64, sf: u64, fork: u64) -> u64 {
        if sf <= fork {
            return 0;
        }
        let dirblk = self.geo.dirblk();
        let per = dirblk / self.geo.block;
        // "." and ".." take 16 bytes each in the first data block.
        let data = data + 32;
        let leaf_ents = 8 * (count + 2);
        // Block form: header, entries, leaf array, 8-byte tail.
        if DIR3_HDR + data + leaf_ents + 8 <= dirblk {
            return per;
        }
        let usable = dirblk - DIR3_HDR;
        let ndata = data.div_ceil(usable);
        // Leaf form: one leaf block with a 2-byte best-free per data block.
        if DIR3_HDR + leaf_ents + 2 * ndata + 4 <= dirblk {
            return (ndata + 1) * per;
        }
        // Node form: leaf blocks under a da-btree node, free-index blocks.
        let per_leaf = (usable / 8) as f64 * LEAFN_FILL;
        let leaves = ((count + 2) as f64 / per_leaf).ceil() as u64;
        let frees = ndata.div_ceil(usable / 2);
        let mut nodes = 0;
        let mut level = leaves;
        while level > 1 {
            level = ((level as f64) / per_leaf).ceil() as u64;
            nodes += level;
        }
        let blocks = ndata + leaves + frees + nodes;
        blocks * per + u64::from(blocks > DIR_BMBT_BLOCKS)
    }

    /// Blocks of a file's data fork beyond its contents: a bmbt once it has
    /// more extents than the inode holds.
    fn bmbt_blocks(&self, blocks: u64) -> u64 {
        // An extent is at most XFS_MAX_BMBT_EXTLEN blocks and within one AG.
        let max_ext = ((1u64 << 21) - 1).min(self.geo.agsize);
        let extents = blocks.div_ceil(max_ext);
        if extents <= INLINE_EXTENTS {
            0
        } else {
            // Long-form btree blocks: 72-byte CRC header, 16-byte records.
            extents.div_ceil((self.geo.block - 72) / 16)
        }
    }
}

impl Model for Volume {
    fn free_bytes(&self) -> u64 {
        self.geo.free_blocks() * self.geo.block
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        let b = self.geo.block;
        let ino = self.sf_ino;
        let (mut sf, mut data, mut count, mut grouped) = (2 + ino, 0, 0, 0);
        for e in dir.entries {
            let name = e.byte_len() as u64;
            count += 1;
            // xfs_dir2_sf_entsize: namelen, offset, name, ftype, inumber.
            sf += 3 + name + 1 + ino;
            // xfs_dir2_data_entsize: inumber, namelen, name, ftype, tag; 8-aligned.
            data += (8 + 1 + name + 1 + 2).div_ceil(8) * 8;
            match e.kind {
                Kind::File => {
                    grouped += 1;
                    if e.size > 0 {
                        acc.add_content(e.size, b);
                        acc.meta += self.bmbt_blocks(e.size.div_ceil(b)) * b;
                    }
                }
                Kind::Symlink => {
                    grouped += 1;
                    // Local in the inode when it fits, else remote blocks.
                    if e.size > DATA_FORK {
                        acc.meta += e.size.div_ceil(b - SYMLINK_HDR) * b;
                    }
                }
                Kind::Other => grouped += 1,
                // Subdirectories go to the next AG in turn (xfs_dialloc's rotor).
                Kind::Dir => {}
            }
        }
        let fork = if dir.is_root {
            ROOT_DATA_FORK
        } else {
            DATA_FORK
        };
        acc.meta += self.dir_blocks(count, data, sf, fork) * b;
        // The directory's inode and its non-directory children share one AG.
        acc.n[0] += grouped + u64::from(!dir.is_root);
        acc.n[1] += u64::from(!dir.is_root);
    }

    fn finish(&self, acc: &Acc) -> super::Sizes {
        let g = &self.geo;
        let (inodes, dirs) = (acc.n[0], acc.n[1]);
        let (per_chunk, chunk_blocks) = g.chunk();
        // Inode chunks: the directories cycle through the AGs, each AG
        // allocates whole chunks for its share; the first chunk of AG 0
        // (made by mkfs) has 61 free inodes. Each AG in use wastes half a
        // chunk on average.
        let used = if dirs == 0 { 1 } else { dirs.min(g.agcount) };
        let total = (inodes + MKFS_INODES) as f64 / per_chunk as f64;
        let chunks = if inodes == 0 {
            0
        } else if used == 1 {
            total.ceil() as u64 - 1
        } else {
            ((total + used as f64 / 2.0).round() as u64).max(used) - 1
        };
        // inobt: one 16-byte record per chunk; blocks split in halves once
        // the root leaf is full.
        let recs = (g.block - SBLOCK_HDR) / 16;
        let per_ag = (chunks + 1).div_ceil(used);
        let inobt = if per_ag > recs {
            // New leaves and a root node, minus the root leaf mkfs made.
            used * per_ag.div_ceil(recs / 2)
        } else {
            0
        };
        super::Sizes {
            data_bytes: acc.data,
            slack_bytes: acc.slack,
            metadata_bytes: acc.meta + (chunks * chunk_blocks + inobt) * g.block,
        }
    }
}

pub const INFO: FsInfo = FsInfo {
    name: "xfs",
    title: "XFS",
    // tests/it/btrfs_xfs.rs: free space exact, tree_bytes within 1 %.
    exact: true,
    limits: Limits {
        // XFS_MAXIOFFSET: 8 EiB - 1.
        max_file_bytes: (1u64 << 63) - 1,
        ..POSIX_LIMITS
    },
    drivers: Drivers {
        kernel: Some("xfs"),
        kernel_modules: &["xfs"],
        fuse: None,
        windows: None,
        kernel_sync: None,
    },
    // wsync: namespace changes are synchronous (like dirsync).
    mount_options: &["sync", "wsync"],
    // udisks2 data/builtin_mount_options.conf has no `xfs_defaults`: a
    // desktop adds only the options every mount gets.
    desktop_options: super::DesktopOptions {
        kernel: &[],
        fuse: &[],
    },
    // Copies share one UUID, which XFS refuses to mount twice unless nouuid.
    copies_mount: Some("nouuid"),
    label_flag: "-L",
    formats: Formats {
        windows: None,
        windows_note: None,
        macos: None,
    },
    robustness: "journaled metadata",
    checker: Some(Checker {
        program: "xfs_repair",
        // -f: the target is an image file; -n: no modify.
        check_args: &["-f", "-n"],
        // -L: zero a dirty log the tool cannot replay, as a user whose
        // volume no longer mounts is told to do.
        repair_args: &["-f", "-L"],
        repair_stdin: "",
        exit_codes: ExitCodes::ZeroOne,
    }),
    preference: 8,
    signature: probe::SIGNATURE,
};

impl Filesystem for Xfs {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        Some(super::argv(&[
            "mkfs.xfs",
            "-f",
            "-q",
            "-b",
            &format!("size={cluster}"),
        ]))
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        // xfs_format.h: sb_fname[XFSLABEL_MAX], 12 bytes.
        crate::fs::LabelRule {
            max_bytes: Some(12),
            ..crate::fs::LabelRule::ANY
        }
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // mkfs.xfs: 512-byte blocks only without CRCs (crc=0); 64 KiB max.
        (1024, 65536)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        4096
    }
    fn keeps_holes(&self, _driver: super::DriverKind) -> bool {
        true
    }
    fn unmountable(&self, cluster: u64) -> Option<String> {
        super::over_page(cluster)
    }
    fn sweep(&self, _volume: u64) -> Vec<u64> {
        vec![1024, 4096]
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        if !cluster.is_power_of_two() || !(1024..=65536).contains(&cluster) {
            return Err(crate::Error::input(
                "mkfs.xfs (v5, crc=1) takes block sizes from 1 KiB to 64 KiB",
            ));
        }
        Ok(Box::new(Volume::new(Geometry::new(volume, cluster)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Entry;
    use std::ffi::OsString;
    use std::path::Path;

    #[test]
    fn geometry_matches_mkfs() {
        // mkfs.xfs -N: agcount, agsize, data blocks, log blocks.
        let g = Geometry::new(2 << 30, 4096).unwrap();
        assert_eq!(
            (g.agcount, g.agsize, g.dblocks, g.logblocks),
            (4, 131072, 524288, 16384)
        );
        let g = Geometry::new(4097 << 20, 4096).unwrap();
        assert_eq!((g.agcount, g.agsize, g.dblocks), (4, 262208, 1048832));
        let g = Geometry::new(1 << 40, 4096).unwrap();
        assert_eq!((g.agsize, g.logblocks), (67108864, 131072));
        let g = Geometry::new(4 << 40, 4096).unwrap();
        assert_eq!(
            (g.agcount, g.agsize, g.dblocks, g.logblocks),
            (4, 268435455, 1073741820, 521728)
        );
        assert!(Geometry::new(299 << 20, 4096).is_err());
        assert!(Geometry::new(300 << 20, 4096).is_ok());
    }

    #[test]
    fn free_blocks_match_statvfs() {
        // measured f_bfree of fresh volumes (kernel 6.18, xfsprogs 6.1).
        for (vol, bs, bfree) in [
            (300u64 << 20, 4096, 56087u64),
            (512 << 20, 4096, 107269),
            (1 << 30, 4096, 235783),
            (2 << 30, 4096, 496100),
            (16 << 30, 4096, 4140527),
            (64 << 30, 4096, 16635708),
            (1 << 40, 4096, 266425462),
            // 4 TiB and up: 1 TiB AGs, a 2038 MiB log.
            (5 << 40, 4096, 1332293085),
            (10 << 40, 4096, 2665112460),
            (2 << 30, 1024, 1969517),
            (2 << 30, 2048, 994164),
            (2 << 30, 8192, 244696),
            (2 << 30, 16384, 120047),
            (2 << 30, 65536, 29999),
        ] {
            assert_eq!(
                Geometry::new(vol, bs).unwrap().free_blocks(),
                bfree,
                "{vol} {bs}"
            );
        }
    }

    fn run(entries: &[Entry], root: bool) -> super::super::Sizes {
        let m = Xfs.model(2 << 30, 4096).unwrap();
        let mut acc = Acc::default();
        m.add_dir(&Dir::new(Path::new(""), root, entries), &mut acc);
        m.finish(&acc)
    }

    #[test]
    fn small_directories_stay_in_the_inode() {
        let e: Vec<Entry> = (0..10)
            .map(|i| Entry::new(OsString::from(format!("f{i:04}")), Kind::File, 0, 0))
            .collect();
        // Ten empty files in the root: short-form dir, inodes from the root chunk.
        assert_eq!(run(&e, true).tree_bytes(), 0);
    }

    #[test]
    fn root_keeps_more_entries_in_the_inode() {
        let names = |n: usize| -> Vec<Entry> {
            (0..n)
                .map(|i| Entry::new(OsString::from(format!("n{i:018}")), Kind::File, 0, 0))
                .collect()
        };
        // measured: 12 such names stay short-form in the root, 13 do not;
        // a subdirectory overflows at 7 (192-byte data fork).
        assert_eq!(run(&names(12), true).metadata_bytes, 0);
        assert_eq!(run(&names(13), true).metadata_bytes, 4096);
        let v = Volume::new(Geometry::new(2 << 30, 4096).unwrap());
        assert_eq!(v.dir_blocks(6, 6 * 32, 6 + 6 * 27, DATA_FORK), 0);
        assert_eq!(v.dir_blocks(7, 7 * 32, 6 + 7 * 27, DATA_FORK), 1);
    }

    #[test]
    fn directory_forms() {
        let v = Volume::new(Geometry::new(2 << 30, 4096).unwrap());
        // measured: 100 names of 15 bytes -> leaf form, 1 data + 1 leaf block.
        assert_eq!(v.dir_blocks(100, 100 * 32, 6 + 100 * 23, DATA_FORK), 2);
        // 1000 names -> node form: 8 data, 3 leaves, 1 free, 1 node.
        assert_eq!(
            v.dir_blocks(1000, 1000 * 32, 6 + 1000 * 23, DATA_FORK),
            8 + 3 + 1 + 1
        );
        // 10000 names: 80 data, ~34 leaves, 1 free, 1 node and a bmbt block.
        let b = v.dir_blocks(10000, 10000 * 32, 6 + 10000 * 23, DATA_FORK);
        assert!((112..=118).contains(&b), "{b}");
    }

    #[test]
    fn calc_size() {
        // refcount btree of a 131072-block AG with 4 KiB blocks.
        assert_eq!(btree_calc_size([168, 252], 131072), 786);
    }
}
