//! ext4 as `mkfs.ext4` (e2fsprogs 1.47.0, the Debian /etc/mke2fs.conf) makes
//! it on a whole image file and as the Linux ext4 driver fills it by `cp -r`.
//!
//! Free space: the layout arithmetic of e2fsprogs `misc/mke2fs.c` (size type,
//! inode ratio, journal) and `lib/ext2fs/initialize.c` (groups, inode tables,
//! reserved GDT blocks, dropping a too-small last group), then what mke2fs
//! allocates before the first mount (journal, root, lost+found, resize inode).
//! statvfs `f_bfree` is the superblock's free block count (reserved blocks
//! included), `f_frsize` the block size.
//! Tree: files take whole blocks (none when empty) plus extent-tree blocks when
//! they need more than the 4 extents of the inode; long symlinks one block;
//! directories one block until they overflow, then an htree (dx_root block,
//! leaf blocks, index nodes) whose leaf fill comes from replaying the kernel's
//! leaf splits (fs/ext4/namei.c `do_split`) with pseudo-random name hashes.
//! Inodes cost no free blocks (mkfs preallocates the inode tables).

pub mod probe;

use super::{Acc, Drivers, Filesystem, Formats, FsInfo, Limits, Model, POSIX_LIMITS};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Kind};
use crate::units::iec;
use std::cell::RefCell;

/// mke2fs.conf [defaults]: `inode_size = 256`.
const INODE_SIZE: u64 = 256;
/// ext2_fs.h EXT2_MIN_DESC_SIZE_64BIT: ext4 in mke2fs.conf has `64bit`.
const DESC_SIZE: u64 = 64;
/// ext2_fs.h EXT2_GOOD_OLD_FIRST_INO: inodes 1..10 are reserved, 11 is lost+found.
const FIRST_INO: u64 = 11;
/// ext4_extents.h EXT_INIT_MAX_LEN: longest initialized extent, in blocks.
const MAX_EXTENT: u64 = 32768;
/// measured: the mean extent length of files written back together.
const WRITEBACK_EXTENT: u64 = 8192;
/// ext4_extents.h: the inode's i_block holds a header and 4 extents.
const INODE_EXTENTS: u64 = 4;
/// ext4.h EXT4_N_BLOCKS * 4: symlink targets (with their NUL) up to 60 bytes
/// live in the inode (namei.c `ext4_symlink`).
const FAST_SYMLINK: u64 = 60;
/// ext4.h EXT4_NAME_LEN.
const NAME_MAX: usize = 255;
/// ext4.h `struct ext4_dir_entry_tail`: metadata_csum's 12-byte tail dirent in
/// every directory leaf block.
const DIR_TAIL: u32 = 12;
/// ext4.h `struct dx_tail`: metadata_csum's 8-byte tail in htree index blocks.
const DX_TAIL: u32 = 8;
/// `.` and `..` at the start of a directory's first block (12 bytes each).
const DOTS: u32 = 24;
/// ext4.h EXT4_DIR_REC_LEN("lost+found"): the entry mke2fs puts in the root.
const LPF_REC: u32 = 20;

/// An ext4 directory entry: 8-byte header + name, rounded up to 4 bytes
/// (ext4.h EXT4_DIR_REC_LEN).
fn rec_len(name_len: usize) -> u32 {
    (8 + name_len as u32 + 3) & !3
}

pub struct Ext4;

/// mke2fs.conf [fs_types] picked by size (mke2fs.c `parse_fs_type`): floppy
/// below 3 MiB, small below 512 MiB, default, big from 4 TiB, huge from 16 TiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SizeType {
    Floppy,
    Small,
    Default,
    Big,
    Huge,
}

impl SizeType {
    fn of(bytes: u64) -> SizeType {
        const M: u64 = 1 << 20;
        const T: u64 = 1 << 40;
        if bytes < 3 * M {
            SizeType::Floppy
        } else if bytes < 512 * M {
            SizeType::Small
        } else if bytes < 4 * T {
            SizeType::Default
        } else if bytes < 16 * T {
            SizeType::Big
        } else {
            SizeType::Huge
        }
    }

    /// /etc/mke2fs.conf `inode_ratio` of the type ([defaults] 16384).
    fn inode_ratio(self) -> u64 {
        match self {
            SizeType::Floppy => 8192,
            SizeType::Small => 4096,
            SizeType::Default => 16384,
            SizeType::Big => 32768,
            SizeType::Huge => 65536,
        }
    }

    /// /etc/mke2fs.conf `blocksize`: 1024 for floppy and small, else the
    /// [defaults] 4096.
    fn block_size(self) -> u64 {
        match self {
            SizeType::Floppy | SizeType::Small => 1024,
            _ => 4096,
        }
    }
}

/// What mke2fs makes of one volume at one block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub block: u64,
    /// s_blocks_count (after a too-small last group is dropped).
    pub blocks: u64,
    pub first_data_block: u64,
    pub blocks_per_group: u64,
    pub groups: u64,
    pub desc_blocks: u64,
    pub reserved_gdt: u64,
    pub meta_bg: bool,
    pub resize_inode: bool,
    pub inodes_per_group: u64,
    pub itable_blocks: u64,
    pub journal_blocks: u64,
    /// Extent-tree blocks of the journal inode.
    pub journal_tree: u64,
    pub lost_found_blocks: u64,
    /// s_free_blocks_count of the fresh filesystem.
    pub free_blocks: u64,
}

/// lib/ext2fs/closefs.c `ext2fs_bg_has_super` with sparse_super: groups 0, 1
/// and the powers of 3, 5 and 7.
fn has_super(g: u64) -> bool {
    if g <= 1 {
        return true;
    }
    if g & 1 == 0 {
        return false;
    }
    [3u64, 5, 7].iter().any(|&p| {
        let mut x = g;
        while x % p == 0 {
            x /= p;
        }
        x == 1
    })
}

/// How many of the groups 0..n hold a superblock backup (see [`has_super`]).
fn super_groups(n: u64) -> u64 {
    let mut c = n.min(2);
    for p in [3u64, 5, 7] {
        let mut x = p;
        while x < n {
            c += 1;
            x = match x.checked_mul(p) {
                Some(v) => v,
                None => break,
            };
        }
    }
    c
}

/// lib/ext2fs/mkjournal.c `ext2fs_default_journal_size`, in blocks (any block
/// size); None below 2048 blocks ("Filesystem too small for a journal").
fn default_journal_blocks(blocks: u64) -> Option<u64> {
    const K: u64 = 1024;
    Some(match blocks {
        b if b < 2048 => return None,
        b if b < 32768 => 1024,
        b if b < 256 * K => 4096,
        b if b < 512 * K => 8192,
        b if b < 4096 * K => 16384,
        b if b < 8192 * K => 32768,
        b if b < 16384 * K => 65536,
        b if b < 32768 * K => 131072,
        _ => 262144,
    })
}

/// Blocks of an extent tree holding `extents` extents, beyond the 4 the
/// inode holds (ext4_extents.c `ext4_ext_grow_indepth` / `ext4_ext_split`:
/// appending fills each leaf and index block before starting the next).
fn extent_tree_blocks(extents: u64, block: u64) -> u64 {
    // ext4_extents.h: 12-byte header, 12-byte entries (the csum tail fits in
    // the slack of every block size).
    let per_block = (block - 12) / 12;
    let mut total = 0;
    let mut level = extents;
    while level > INODE_EXTENTS {
        level = level.div_ceil(per_block);
        total += level;
    }
    total
}

/// The ext4 layout mke2fs 1.47.0 makes on `volume` bytes with `-b block`.
pub fn layout(volume: u64, block: u64) -> crate::Result<Layout> {
    if !block.is_power_of_two() || !(1024..=65536).contains(&block) {
        return Err(crate::Error::input(format!(
            "mkfs.ext4 takes block sizes 1024 to 65536, not {block}"
        )));
    }
    let w = Wanted::of(volume, block);
    let g = groups(&w)?;
    // mke2fs.c: the reserved inodes (1..11) must exist.
    if g.ipg * g.groups < FIRST_INO + 1 {
        return Err(crate::Error::input(format!(
            "{} is too small for ext4 with {} blocks (mke2fs: too few inodes)",
            iec(volume),
            iec(block)
        )));
    }
    Ok(fill(&g, block))
}

fn too_small(volume: u64, block: u64) -> crate::Error {
    crate::Error::input(format!(
        "{} is too small for ext4 with {} blocks (mke2fs: not enough space to build proposed filesystem)",
        iec(volume),
        iec(block)
    ))
}

/// What mke2fs.c PRS asks of initialize.c: the size in blocks, the inode
/// count, and whether a resize inode is wanted.
struct Wanted {
    volume: u64,
    block: u64,
    blocks: u64,
    inodes: u64,
    resize_inode: bool,
}

impl Wanted {
    fn of(volume: u64, block: u64) -> Wanted {
        // mke2fs.c PRS: the device size in blocks; the size type from the size.
        let mut param_blocks = volume / block;
        // mke2fs.c PRS: a size read from the device is rounded down to whole
        // pages (sys_page_size 4096).
        if block < 4096 {
            param_blocks &= !(4096 / block - 1);
        }
        let size_type = SizeType::of(param_blocks * block);
        // mke2fs.c PRS: "if (inode_ratio < blocksize) inode_ratio = blocksize".
        let ratio = size_type.inode_ratio().max(block);
        // mke2fs.c PRS: s_inodes_count = blocks * blocksize / inode_ratio (a
        // __u32; initialize.c caps it at ~0U with 64bit).
        let param_inodes =
            (param_blocks as u128 * block as u128 / ratio as u128).min(u32::MAX as u128) as u64;
        Wanted {
            volume,
            block,
            blocks: param_blocks,
            inodes: param_inodes,
            // mke2fs.c PRS: 64bit file systems over 2^32 blocks get no resize_inode.
            resize_inode: param_blocks <= u32::MAX as u64,
        }
    }
}

/// The group geometry initialize.c settles on after its retries.
struct Groups {
    first: u64,
    bpg: u64,
    gdpb: u64,
    blocks: u64,
    groups: u64,
    desc_blocks: u64,
    ipg: u64,
    itb: u64,
    rsv: u64,
    meta_bg: bool,
    resize_inode: bool,
}

/// initialize.c `ext2fs_initialize`: groups, descriptors, inode tables and
/// reserved GDT blocks, retried with fewer blocks per group (too many
/// inodes) or without a last group too small for its own metadata.
fn groups(w: &Wanted) -> crate::Result<Groups> {
    let (volume, block) = (w.volume, w.block);
    // initialize.c: one bitmap block per group; EXT2_MAX_BLOCKS_PER_GROUP.
    let mut bpg = (block * 8).min(65528);
    let first = u64::from(block == 1024);
    let gdpb = block / DESC_SIZE;
    let inodes_per_block = block / INODE_SIZE;
    let mut blocks = w.blocks;
    let mut resize_inode = w.resize_inode;
    loop {
        if blocks <= first {
            return Err(too_small(volume, block));
        }
        let groups = (blocks - first).div_ceil(bpg);
        let desc_blocks = groups.div_ceil(gdpb);
        let inodes = w.inodes.max(FIRST_INO + 1);
        let ipg = inodes.div_ceil(groups);
        if ipg > block * 8 {
            if bpg >= 256 {
                bpg -= 8;
                blocks = w.blocks;
                continue;
            }
            return Err(crate::Error::input(format!(
                "{}: too many inodes for ext4",
                iec(volume)
            )));
        }
        // EXT2_MAX_INODES_PER_GROUP.
        let (ipg, itb) = inode_tables(ipg.min(65536 - inodes_per_block), groups, w)?;
        let mut rsv = 0;
        if resize_inode {
            rsv = reserved_gdt(blocks, first, bpg, gdpb, desc_blocks, block);
        }
        // initialize.c: meta_bg when GDT blocks would take over 3/4 of a group.
        let mut meta_bg = false;
        if rsv + desc_blocks > bpg * 3 / 4 {
            meta_bg = true;
            resize_inode = false;
            rsv = 0;
        }
        // initialize.c: with meta_bg a group holds one descriptor block.
        let overhead = 3 + itb + rsv + if meta_bg { 1 } else { desc_blocks };
        if overhead > bpg {
            return Err(crate::Error::input(format!(
                "{}: too many inodes for ext4",
                iec(volume)
            )));
        }
        // initialize.c: a last group too small for its own metadata plus 50
        // blocks is dropped.
        let mut last = 2 + itb;
        if has_super(groups - 1) {
            last += 1 + desc_blocks + rsv;
        }
        let rem = (blocks - first) % bpg;
        if groups == 1 && rem != 0 && rem < last {
            return Err(too_small(volume, block));
        }
        if rem != 0 && rem < last + 50 {
            blocks -= rem;
            continue;
        }
        return Ok(Groups {
            first,
            bpg,
            gdpb,
            blocks,
            groups,
            desc_blocks,
            ipg,
            itb,
            rsv,
            meta_bg,
            resize_inode,
        });
    }
}

/// initialize.c ipg_retry: inodes per group filling whole inode-table
/// blocks, a multiple of 8, and the table's blocks.
fn inode_tables(mut ipg: u64, groups: u64, w: &Wanted) -> crate::Result<(u64, u64)> {
    let block = w.block;
    loop {
        let itb = (ipg * INODE_SIZE).div_ceil(block);
        let mut n = itb * block / INODE_SIZE;
        n = n.max(8) & !7;
        let itb = (n * INODE_SIZE).div_ceil(block);
        if n * groups > u32::MAX as u64 {
            if ipg <= 8 {
                return Err(crate::Error::input(format!(
                    "{}: too many block groups for ext4",
                    iec(w.volume)
                )));
            }
            ipg -= 1;
            continue;
        }
        return Ok((n, itb));
    }
}

/// initialize.c calc_reserved_gdt_blocks: room to grow 1024 times, or to
/// 2^32 blocks, at most one block of pointers.
fn reserved_gdt(blocks: u64, first: u64, bpg: u64, gdpb: u64, desc_blocks: u64, block: u64) -> u64 {
    let max_blocks: u64 = if blocks < 0xFFFF_FFFF / 1024 {
        blocks * 1024
    } else {
        0xFFFF_FFFF
    };
    let rsv_groups = (max_blocks - first).div_ceil(bpg);
    // unsigned arithmetic: wraps (then is capped) when the descriptors
    // already exceed it.
    let r = (rsv_groups.div_ceil(gdpb) as u32).wrapping_sub(desc_blocks as u32);
    (r as u64).min(block / 4)
}

/// The free blocks the fresh filesystem is left with, and the layout.
fn fill(g: &Groups, block: u64) -> Layout {
    // initialize.c / alloc_tables.c: each group loses its bitmaps and inode
    // table; groups with a superblock backup also the descriptors and the
    // reserved GDT blocks (meta_bg: one descriptor block in the first, second
    // and last group of each meta group instead).
    let data_blocks = g.blocks - g.first;
    let mut free = data_blocks - g.groups * (2 + g.itb);
    let supers = super_groups(g.groups);
    free -= supers;
    if g.meta_bg {
        let full = g.groups / g.gdpb;
        let rest = g.groups % g.gdpb;
        let mut copies = full * 3.min(g.gdpb);
        copies += rest.min(2);
        free -= copies;
    } else {
        free -= supers * (g.desc_blocks + g.rsv);
    }
    // mke2fs.c: journal (figure_journal_size, ext2fs_add_journal_inode3).
    let journal_blocks = default_journal_blocks(g.blocks).unwrap_or(0);
    let lost_found_blocks = (16384 / block).clamp(2, 12);
    let geo = Geo {
        first: g.first,
        bpg: g.bpg,
        blocks: g.blocks,
        groups: g.groups,
        desc_blocks: g.desc_blocks,
        rsv: g.rsv,
        meta_bg: g.meta_bg,
        gdpb: g.gdpb,
        itb: g.itb,
        extras: 1 + lost_found_blocks + u64::from(g.resize_inode),
    };
    let journal_tree = journal_tree_blocks(&geo, journal_blocks, block);
    free -= journal_blocks + journal_tree;
    // mke2fs.c create_root_dir: one block.
    free -= 1;
    // mke2fs.c create_lost_and_found: at least 16 KiB and 2 blocks, at most
    // EXT2_NDIR_BLOCKS (12) blocks.
    free -= lost_found_blocks;
    // lib/ext2fs/res_gdt.c ext2fs_create_resize_inode: its double-indirect block.
    if g.resize_inode {
        free -= 1;
    }
    Layout {
        block,
        blocks: g.blocks,
        first_data_block: g.first,
        blocks_per_group: g.bpg,
        groups: g.groups,
        desc_blocks: g.desc_blocks,
        reserved_gdt: g.rsv,
        meta_bg: g.meta_bg,
        resize_inode: g.resize_inode,
        inodes_per_group: g.ipg,
        itable_blocks: g.itb,
        journal_blocks,
        journal_tree,
        lost_found_blocks,
        free_blocks: free,
    }
}

/// The block geometry the journal placement needs.
struct Geo {
    first: u64,
    bpg: u64,
    blocks: u64,
    groups: u64,
    desc_blocks: u64,
    rsv: u64,
    meta_bg: bool,
    gdpb: u64,
    itb: u64,
    /// Blocks mke2fs allocates in group 0 before the journal (root,
    /// lost+found, resize inode).
    extras: u64,
}

/// mke2fs.conf ext4 `flex_bg` with mke2fs's default 16 groups per flex group.
const FLEX: u64 = 16;

impl Geo {
    fn start(&self, g: u64) -> u64 {
        self.first + g * self.bpg
    }
    fn end(&self, g: u64) -> u64 {
        (self.start(g) + self.bpg).min(self.blocks)
    }
    /// Superblock, descriptors and reserved GDT blocks at a group's start
    /// (closefs.c `ext2fs_super_and_bgd_loc2`).
    fn sb_area(&self, g: u64) -> (u64, u64) {
        let s = self.start(g);
        let sup = u64::from(has_super(g));
        let len = if self.meta_bg {
            let m = g % self.gdpb;
            sup + u64::from(m == 0 || m == 1 || m == self.gdpb - 1)
        } else {
            sup * (1 + self.desc_blocks + self.rsv)
        };
        (s, s + len)
    }
    /// First block at or after `b` where `len` blocks miss every superblock
    /// area (alloc_tables.c `flexbg_offset`, `ext2fs_get_free_blocks2`).
    fn fit(&self, mut b: u64, len: u64) -> u64 {
        loop {
            let g0 = b.saturating_sub(self.first) / self.bpg;
            let g1 = (b + len).saturating_sub(self.first) / self.bpg;
            let mut moved = false;
            for g in g0..=g1.min(self.groups - 1) {
                let (s, e) = self.sb_area(g);
                if s < b + len && b < e {
                    b = e;
                    moved = true;
                }
            }
            if !moved {
                return b;
            }
        }
    }
    /// The bitmaps and inode tables of flex group `f`, as intervals
    /// (alloc_tables.c `ext2fs_allocate_group_table` with flex_bg).
    fn flex_meta(&self, f: u64, out: &mut Vec<(u64, u64)>) {
        let g = f * FLEX;
        if g >= self.groups {
            return;
        }
        let last = (g + FLEX - 1).min(self.groups - 1);
        let rem = last - g + 1;
        let offset = if last == self.groups - 1 {
            match last & (FLEX - 1) {
                0 => FLEX,
                t => t + 1,
            }
        } else {
            FLEX
        };
        let bb = self.fit(self.start(g), rem.min(self.bpg / 4));
        out.push((bb, bb + rem));
        let ib = self.fit(bb + offset, 1);
        out.push((ib, ib + rem));
        let mut p = ib + offset;
        for _ in 0..rem {
            let t = self.fit(p, self.itb);
            out.push((t, t + self.itb));
            p = t + self.itb;
        }
    }
    /// Used intervals of groups `g0..=g1`, sorted and merged.
    fn used(&self, g0: u64, g1: u64) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        for g in g0..=g1 {
            let (s, e) = self.sb_area(g);
            if e > s {
                v.push((s, e));
            }
        }
        let f0 = g0 / FLEX;
        for f in f0.saturating_sub(1)..=g1 / FLEX {
            self.flex_meta(f, &mut v);
        }
        if g0 == 0 {
            // Root, lost+found and the resize inode's block take the first
            // free blocks of group 0.
            v.sort_unstable();
            let mut b = self.start(0);
            for &(s, e) in &v {
                if s <= b && b < e {
                    b = e;
                } else if s > b {
                    break;
                }
            }
            v.push((b, b + self.extras));
        }
        v.sort_unstable();
        let mut m: Vec<(u64, u64)> = Vec::with_capacity(v.len());
        for (s, e) in v {
            match m.last_mut() {
                Some(l) if s <= l.1 => l.1 = l.1.max(e),
                _ => m.push((s, e)),
            }
        }
        m
    }
    fn free_in(&self, g: u64, used: &[(u64, u64)]) -> u64 {
        let (s, e) = (self.start(g), self.end(g));
        let taken: u64 = used
            .iter()
            .map(|&(a, b)| b.min(e).saturating_sub(a.max(s)))
            .sum();
        (e - s).saturating_sub(taken)
    }
}

/// Extent-tree blocks of the journal. mkjournal.c `get_midpoint_journal_block`
/// picks the start of a group near the middle (flex-aligned, the freer of two
/// groups); `ext2fs_fallocate` then takes the free runs from there, each cut
/// into extents of at most 32768 blocks.
fn journal_tree_blocks(geo: &Geo, journal: u64, block: u64) -> u64 {
    if journal == 0 {
        return 0;
    }
    let n = geo.groups;
    let mid = (geo.blocks - geo.first) / 2;
    let mut g = mid.saturating_sub(geo.first) / geo.bpg;
    let span = journal / geo.bpg + 3;
    let lo = g.saturating_sub(FLEX + 1);
    let hi = (g + FLEX + span).min(n - 1);
    let used = geo.used(lo, hi);
    let free = |g: u64| geo.free_in(g, &used);
    let start = if g > FLEX {
        g &= !(FLEX - 1);
        while g < n && free(g) == 0 {
            g += 1;
        }
        if g == n {
            g = 0;
        }
        g
    } else {
        g.saturating_sub(1)
    };
    let end = if g + 1 < n { g + 1 } else { g };
    let mut best = start;
    for i in start + 1..=end {
        if free(i) > free(best) {
            best = i;
        }
    }
    let used = if best < lo || best + span > hi {
        geo.used(best.saturating_sub(FLEX), (best + FLEX + span).min(n - 1))
    } else {
        used
    };
    let mut pos = geo.start(best);
    let mut left = journal;
    let mut extents = 0;
    let mut k = used.partition_point(|&(_, e)| e <= pos);
    while left > 0 && pos < geo.blocks {
        // Skip used blocks, then take the free run up to the next used one.
        while k < used.len() && used[k].0 <= pos {
            pos = pos.max(used[k].1);
            k += 1;
        }
        let run_end = used.get(k).map_or(geo.blocks, |u| u.0);
        let len = (run_end - pos).min(left);
        if len == 0 {
            break;
        }
        extents += len.div_ceil(MAX_EXTENT);
        left -= len;
        pos += len;
    }
    extent_tree_blocks(extents, block)
}

/// The default cluster of mkfs.ext4 for a volume: the size type's block size.
fn default_block(volume: u64) -> u64 {
    SizeType::of(volume / 1024 * 1024).block_size()
}

struct Ext4Model {
    block: u64,
    free_blocks: u64,
    lost_found_blocks: u64,
    /// Bytes for entries in a leaf block (block − tail).
    leaf_cap: u32,
    /// dx_root entries (namei.c `dx_root_limit`).
    root_limit: u32,
    /// dx_node entries (namei.c `dx_node_limit`).
    node_limit: u32,
}

/// One htree leaf in the replay: its entries (hash, rec_len) in the order
/// they sit in the block, and the bytes they use.
#[derive(Default)]
struct Leaf {
    start: u32,
    used: u32,
    ents: Vec<(u32, u16)>,
}

#[derive(Default)]
struct Scratch {
    leaves: Vec<Leaf>,
    spare: Vec<Vec<(u32, u16)>>,
    map: Vec<(u32, u16)>,
    /// Leaves per index node when the tree has two levels.
    nodes: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A pseudo-random 32-bit hash of a name. The real hash (half_md4 keyed by
/// the volume's random s_hash_seed) is unknowable before mkfs, and any
/// well-mixed hash gives the same leaf statistics.
fn name_hash(name: &[u8]) -> u32 {
    let h = super::quick_hash(name.iter().copied());
    // namei.c: the lowest bit of a dx hash is the "continued" flag.
    (h as u32) & !1
}

/// What a directory's htree replay ends with.
struct DirBlocks {
    blocks: u64,
    extents: u64,
}

impl Ext4Model {
    fn new(l: &Layout) -> Ext4Model {
        let b = l.block as u32;
        Ext4Model {
            block: l.block,
            free_blocks: l.free_blocks,
            lost_found_blocks: l.lost_found_blocks,
            leaf_cap: b - DIR_TAIL,
            // namei.c dx_root_limit: after the fake `.`/`..` and dx_root_info.
            root_limit: (b - 32 - DX_TAIL) / 8,
            // namei.c dx_node_limit: after an 8-byte fake dirent.
            node_limit: (b - 8 - DX_TAIL) / 8,
        }
    }

    /// Extents of a file of `blocks` blocks. measured (debugfs `ex` after
    /// `cp -r` of several big files and sync): writeback allocates 2048-block
    /// pieces (inode.c MAX_WRITEPAGES_EXTENT_LEN) that interleave between
    /// files, leaving extents of 2048..16384 blocks, about 8192 on average;
    /// a lone file gets longer ones, but the extent-tree block count (only
    /// over 4 extents, then one per 340 at 4 KiB) rarely differs.
    fn file_extents(&self, blocks: u64) -> u64 {
        blocks.div_ceil(WRITEBACK_EXTENT)
    }

    /// Blocks of a directory holding `entries` (iterated twice: a sum, and
    /// the replay when it overflows one block). `pre` is what the directory
    /// already holds (the root's lost+found entry).
    fn dir_blocks<'a, I>(&self, entries: I, pre: u32) -> DirBlocks
    where
        I: Iterator<Item = (&'a [u8], bool)> + Clone,
    {
        // namei.c add_dirent_to_buf: a linear block takes entries until the
        // next one does not fit; then make_indexed_dir turns it into an htree.
        let lin_cap = self.leaf_cap - DOTS;
        let mut total = pre as u64;
        for (name, _) in entries.clone() {
            total += rec_len(name.len()) as u64;
        }
        if total <= lin_cap as u64 {
            return DirBlocks {
                blocks: 1,
                extents: 1,
            };
        }
        SCRATCH.with(|s| self.replay(&mut s.borrow_mut(), entries, pre))
    }

    fn replay<'a, I>(&self, s: &mut Scratch, entries: I, pre: u32) -> DirBlocks
    where
        I: Iterator<Item = (&'a [u8], bool)>,
    {
        reset(s, pre);
        let Scratch {
            leaves,
            spare,
            map,
            nodes,
        } = s;
        let lin_cap = self.leaf_cap - DOTS;
        let mut indexed = false;
        // A subdirectory made since this directory's last block allocation
        // took the block after it (measured: cp -r makes each subdirectory,
        // and its subtree, before going on).
        let mut g = Growth {
            blocks: 1,
            extents: 1,
            moved: false,
        };
        for (name, is_dir) in entries {
            // namei.c ext4_mkdir: a subdirectory gets its block before its
            // entry is added here.
            g.moved |= is_dir;
            let rec = rec_len(name.len());
            let h = name_hash(name);
            let i = if indexed {
                leaves.partition_point(|l| l.start <= h) - 1
            } else {
                0
            };
            let cap = if indexed { self.leaf_cap } else { lin_cap };
            if leaves[i].used + rec <= cap {
                leaves[i].used += rec;
                leaves[i].ents.push((h, rec as u16));
                continue;
            }
            // Block full: a new block is allocated from here on.
            if !indexed {
                // make_indexed_dir: block 0 becomes the dx_root, its entries
                // move to block 1 (the last one taking the slack), which
                // do_split then halves into block 2.
                indexed = true;
                g.alloc(1);
            }
            let Some(node_of_leaf) = self.grow_index(nodes, leaves.len() as u32, i, &mut g) else {
                // Index full (no large_dir): the kernel says ENOSPC.
                continue;
            };
            let hash2 = self.split_leaf(leaves, map, spare, i);
            g.alloc(1);
            if node_of_leaf != usize::MAX {
                nodes[node_of_leaf] += 1;
            }
            let t = if h >= hash2 { i + 1 } else { i };
            leaves[t].used += rec;
            leaves[t].ents.push((h, rec as u16));
        }
        DirBlocks {
            blocks: g.blocks,
            extents: g.extents,
        }
    }

    /// ext4_dx_add_entry: a full index block is split first. The index
    /// node holding leaf `i` (usize::MAX: the root holds the leaves), or
    /// None when the index is full.
    fn grow_index(
        &self,
        nodes: &mut Vec<u32>,
        nleaves: u32,
        i: usize,
        g: &mut Growth,
    ) -> Option<usize> {
        if nodes.is_empty() && nleaves == self.root_limit {
            // add_level: the root's entries move to a new node.
            nodes.push(nleaves);
            g.alloc(1);
        }
        let mut node_of_leaf = usize::MAX;
        if !nodes.is_empty() {
            let mut acc = 0usize;
            for (k, &c) in nodes.iter().enumerate() {
                acc += c as usize;
                if i < acc {
                    node_of_leaf = k;
                    break;
                }
            }
            if nodes[node_of_leaf] == self.node_limit {
                if nodes.len() as u32 == self.root_limit {
                    return None;
                }
                let c = nodes[node_of_leaf];
                let c1 = c / 2;
                nodes[node_of_leaf] = c1;
                nodes.insert(node_of_leaf + 1, c - c1);
                g.alloc(1);
                let before: u32 = nodes[..=node_of_leaf].iter().sum();
                if i as u32 >= before {
                    node_of_leaf += 1;
                }
            }
        }
        Some(node_of_leaf)
    }

    /// do_split: sort by hash, move the upper half by size to a new leaf
    /// after leaf `i`; the physically last entry carries the block's slack.
    /// The new leaf's first hash.
    fn split_leaf(
        &self,
        leaves: &mut Vec<Leaf>,
        map: &mut Vec<(u32, u16)>,
        spare: &mut Vec<Vec<(u32, u16)>>,
        i: usize,
    ) -> u32 {
        let half = self.block as u32 / 2;
        let leaf = &mut leaves[i];
        map.clear();
        map.extend_from_slice(&leaf.ents);
        let slack = self.leaf_cap - leaf.used;
        if let Some(last) = map.last_mut() {
            last.1 = (last.1 as u32 + slack).min(u16::MAX as u32) as u16;
        }
        map.sort_unstable_by_key(|e| e.0);
        let count = map.len();
        let mut size = 0u32;
        let mut mv = 0usize;
        let mut j = count as isize - 1;
        while j >= 0 {
            let sz = map[j as usize].1 as u32;
            if size + sz / 2 > half {
                break;
            }
            size += sz;
            mv += 1;
            j -= 1;
        }
        let split = if j > 0 { count - mv } else { count / 2 };
        // A full leaf holds several entries (names are at most 255
        // bytes), so both halves get some.
        let split = split.clamp(1, count - 1);
        let hash2 = map[split].0;
        // Those staying keep their physical order (dx_pack_dirents),
        // those moving go in hash order (dx_move_dirents).
        let mut moving = spare.pop().unwrap_or_default();
        moving.clear();
        let mut moved_used = 0u32;
        let mut stay_used = 0u32;
        leaf.ents.retain(|&(hh, r)| {
            let go = hh >= hash2;
            if go {
                moving.push((hh, r));
                moved_used += r as u32;
            } else {
                stay_used += r as u32;
            }
            !go
        });
        moving.sort_unstable_by_key(|e| e.0);
        leaf.used = stay_used;
        let new_leaf = Leaf {
            start: hash2,
            used: moved_used,
            ents: moving,
        };
        leaves.insert(i + 1, new_leaf);
        hash2
    }
}

/// Blocks a directory has taken, and its extents: a block allocated after
/// a subdirectory took the next one starts a new extent.
struct Growth {
    blocks: u64,
    extents: u64,
    moved: bool,
}

impl Growth {
    fn alloc(&mut self, n: u64) {
        self.blocks += n;
        if self.moved {
            self.extents += 1;
            self.moved = false;
        }
    }
}

/// Empty the scratch (keeping its vectors for reuse) and start block 0
/// with `pre` bytes of entries (lost+found's, in the root).
fn reset(s: &mut Scratch, pre: u32) {
    for l in s.leaves.drain(..) {
        let mut v = l.ents;
        v.clear();
        s.spare.push(v);
    }
    s.nodes.clear();
    let mut first = s.spare.pop().unwrap_or_default();
    let mut used = 0u32;
    if pre > 0 {
        first.push((name_hash(b"lost+found"), pre as u16));
        used += pre;
    }
    s.leaves.push(Leaf {
        start: 0,
        used,
        ents: first,
    });
}

impl Model for Ext4Model {
    fn free_bytes(&self) -> u64 {
        self.free_blocks * self.block
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        let b = self.block;
        let root = dir.is_root;
        // cp -r merges a top-level lost+found into the one mke2fs made.
        let is_lpf = |name: &[u8]| name == b"lost+found";
        let into_lpf = !root && dir.rel.as_os_str().as_encoded_bytes() == b"lost+found";
        let mut tree = 0u64;
        for e in dir.entries {
            if e.byte_len() > NAME_MAX {
                // namei.c: ENAMETOOLONG, cp skips the entry.
                continue;
            }
            match e.kind {
                Kind::File => {
                    // Delayed allocation, made exact by the sync: whole
                    // blocks, none for an empty file (inline_data is off).
                    acc.add_content(e.size, b);
                    // b is a power of two: a shift, not a division per file.
                    let blocks = (e.size + (b - 1)) >> b.trailing_zeros();
                    tree += extent_tree_blocks(self.file_extents(blocks), b);
                }
                Kind::Symlink => {
                    // namei.c ext4_symlink: target plus NUL up to 60 bytes in
                    // the inode, else one block; over a block: ENAMETOOLONG.
                    let len = e.size + 1;
                    if len > FAST_SYMLINK && len <= b {
                        tree += 1;
                    }
                }
                Kind::Dir | Kind::Other => {}
            }
        }
        let names = dir.entries.iter().filter_map(|e| {
            let n = e.name_bytes();
            if n.len() > NAME_MAX || (e.kind == Kind::Symlink && e.size + 1 > b) {
                return None;
            }
            if root && is_lpf(n) && e.kind == Kind::Dir {
                return None;
            }
            Some((n, e.kind == Kind::Dir))
        });
        if into_lpf {
            // lost+found is a linear (unindexed) directory of several blocks:
            // entries fill them, then more blocks are appended.
            let mut total = 0u64;
            for (n, _) in names {
                total += rec_len(n.len()) as u64;
            }
            let cap0 = (self.leaf_cap - DOTS) as u64;
            let cap = self.leaf_cap as u64;
            let need = if total <= cap0 {
                1
            } else {
                1 + (total - cap0).div_ceil(cap)
            };
            tree += need.saturating_sub(self.lost_found_blocks);
        } else {
            let pre = if root { LPF_REC } else { 0 };
            let d = self.dir_blocks(names, pre);
            // The root's first block exists already.
            tree += d.blocks - u64::from(root);
            tree += extent_tree_blocks(d.extents, b);
        }
        acc.meta += tree * b;
    }
}

pub const INFO: FsInfo = FsInfo {
    name: "ext4",
    title: "ext4",
    exact: true,
    limits: Limits {
        // super.c ext4_max_size with extents: 2^32 − 1 blocks of 4 KiB
        // (the default block size from 512 MiB up).
        max_file_bytes: ((1u64 << 32) - 1) * 4096,
        name_max_bytes: Some(NAME_MAX as u32),
        ..POSIX_LIMITS
    },
    drivers: Drivers {
        kernel: Some("ext4"),
        kernel_modules: &["ext4"],
        fuse: None,
        windows: None,
        kernel_sync: None,
    },
    mount_options: &["sync", "dirsync", "data=journal", "data=writeback"],
    // udisks2 data/builtin_mount_options.conf `ext4_defaults`.
    desktop_options: super::DesktopOptions {
        kernel: &["errors=remount-ro"],
        fuse: &[],
    },
    copies_mount: Some(""),
    label_flag: "-L",
    formats: Formats {
        windows: None,
        windows_note: None,
        macos: None,
    },
    robustness: "journaled, checksummed metadata",
    checker: Some(Checker {
        program: "e2fsck",
        // -f: check even a volume marked clean; -n: open read-only, answer no.
        check_args: &["-f", "-n"],
        // -p would stop on problems it cannot fix safely; -y fixes everything.
        repair_args: &["-f", "-y"],
        repair_stdin: "",
        exit_codes: ExitCodes::Fsck,
    }),
    preference: 1,
    signature: probe::SIGNATURE,
};

impl Filesystem for Ext4 {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        Some(super::argv(&[
            "mkfs.ext4",
            "-F",
            "-q",
            "-b",
            &cluster.to_string(),
            // A data drive: no 5 % kept back for root.
            "-m",
            "0",
        ]))
    }
    fn format(&self, p: &crate::fs::FormatParams) -> crate::Result<crate::fs::FormatCmd> {
        // A data volume: the root folder belongs to the user, not root.
        let mut argv = self
            .mkfs(p.cluster)
            .ok_or_else(|| crate::Error::work("no mkfs"))?;
        let (uid, gid) = p.owner;
        argv.extend(["-E".to_string(), format!("root_owner={uid}:{gid}")]);
        if let Some(l) = p.label {
            argv.extend(super::label_args(self.info(), l));
        }
        Ok(crate::fs::FormatCmd {
            argv,
            data_offset: Some(0),
        })
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // mke2fs.c: -b takes EXT2_MIN_BLOCK_SIZE to EXT2_MAX_BLOCK_SIZE.
        (1024, 65536)
    }
    fn default_cluster(&self, volume: u64) -> u64 {
        default_block(volume)
    }
    fn keeps_holes(&self, _driver: super::DriverKind) -> bool {
        true
    }
    fn unmountable(&self, cluster: u64) -> Option<String> {
        super::over_page(cluster)
    }
    fn sweep(&self, volume: u64) -> Vec<u64> {
        let mut v = vec![1024, 2048, 4096];
        let d = self.default_cluster(volume);
        if !v.contains(&d) {
            v.push(d);
        }
        v
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        let l = layout(volume, cluster)?;
        Ok(Box::new(Ext4Model::new(&l)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Entry;
    use std::ffi::OsString;
    use std::path::Path;

    const K: u64 = 1024;
    const M: u64 = 1 << 20;
    const G: u64 = 1 << 30;
    const T: u64 = 1 << 40;

    /// measured: (volume, -b or 0 for none, block size, free blocks) from
    /// `mkfs.ext4 -F -q [-b B]` + `dumpe2fs -h` (e2fsprogs 1.47.0); the 16+ TiB
    /// ones on a tmpfs image.
    const MEASURED: &[(u64, u64, u64, u64)] = &[
        (1048576, 0, 1024, 966),
        (8388608, 0, 1024, 6574),
        (133169152, 0, 1024, 116229),
        (314572800, 0, 1024, 277609),
        (1073741824, 0, 4096, 249189),
        (5368709120, 0, 4096, 1268642),
        (34359738368, 0, 4096, 8179134),
        (214748364800, 0, 4096, 51328499),
        (2097152, 1024, 1024, 926),
        (10485760, 1024, 1024, 8395),
        (535822336, 1024, 1024, 479940),
        (8589934592, 1024, 1024, 8185122),
        (17179869184, 1024, 1024, 16374113),
        (274877906944, 1024, 1024, 263862746),
        (2199023255552, 1024, 1024, 2113093591),
        (3145728, 2048, 2048, 1424),
        (34603008, 2048, 2048, 14259),
        (536870911, 2048, 2048, 238542),
        (10737418240, 2048, 2048, 5121266),
        (536870912000, 2048, 2048, 257733585),
        (21990232555520, 2048, 2048, 10693840858),
        (3145727, 4096, 4096, 733),
        (67108864, 4096, 4096, 14319),
        (536870911, 4096, 4096, 118574),
        (17179869184, 4096, 4096, 4084441),
        (1099511627776, 4096, 4096, 263940710),
        (4398046507008, 0, 4096, 1056603106),
        (18691697672192, 0, 4096, 4544981857),
        (5250000, 8192, 8192, 612),
        (814743552, 8192, 8192, 93770),
        (1237918566, 16384, 16384, 70258),
        (5250000, 65536, 65536, 71),
        (4294967296, 65536, 65536, 61169),
        (490224387783, 65536, 65536, 7417243),
        (28649097, 1024, 1024, 24517),
        (83428748286, 1024, 1024, 79901543),
    ];

    #[test]
    fn free_blocks_as_measured() {
        for &(vol, b, block, free) in MEASURED {
            let b = if b == 0 { default_block(vol) } else { b };
            assert_eq!(b, block, "default block for {vol}");
            let l = layout(vol, b).unwrap();
            assert_eq!(l.free_blocks, free, "{vol} with {b}: {l:?}");
        }
    }

    #[test]
    fn layout_details() {
        // measured: 64 MiB with 1 KiB blocks, dumpe2fs.
        let l = layout(64 * M, 1024).unwrap();
        assert_eq!((l.blocks, l.groups, l.desc_blocks), (65536, 8, 1));
        assert_eq!(
            (l.reserved_gdt, l.inodes_per_group, l.itable_blocks),
            (256, 2048, 512)
        );
        assert_eq!((l.journal_blocks, l.lost_found_blocks), (4096, 12));
        // measured: 4 GiB with 64 KiB blocks: the 8-block last group is dropped.
        let l = layout(4 * G, 65536).unwrap();
        assert_eq!((l.blocks, l.groups, l.blocks_per_group), (65528, 1, 65528));
        // measured: 1 TiB with 1 KiB blocks gets meta_bg, no resize inode.
        let l = layout(T, 1024).unwrap();
        assert!(l.meta_bg && !l.resize_inode && l.reserved_gdt == 0);
        // measured (debugfs ex <8>): 16 GiB at 1 KiB: the 131072-block journal
        // runs into the next flex group's tables: 5 extents, one leaf block.
        assert_eq!(layout(16 * G, 1024).unwrap().journal_tree, 1);
        // 64 GiB at 4 KiB: 4 extents of 32768 in the inode.
        assert_eq!(layout(64 * G, 4096).unwrap().journal_tree, 0);
        // 128 GiB at 4 KiB: a 1 GiB journal needs 8 extents.
        assert_eq!(layout(128 * G, 4096).unwrap().journal_tree, 1);
    }

    #[test]
    fn refusals() {
        // measured: mke2fs needs 55 blocks of 64 KiB and 56 of 2 KiB (a lone
        // group needs its metadata plus 50 blocks); at 1 KiB, 103 blocks
        // round to 100 and give only 8 inodes.
        assert!(layout(3_604_480, 65536).is_ok());
        assert!(layout(3_604_479, 65536).is_err());
        assert!(layout(114_688, 2048).is_ok());
        assert!(layout(114_687, 2048).is_err());
        assert!(layout(106_496, 1024).is_ok());
        assert!(layout(106_495, 1024).is_err());
        assert!(layout(64 * M, 512).is_err());
        assert!(layout(64 * M, 3000).is_err());
    }

    #[test]
    fn default_blocks() {
        assert_eq!(Ext4.default_cluster(2 * M), 1024);
        assert_eq!(Ext4.default_cluster(64 * M), 1024);
        assert_eq!(Ext4.default_cluster(512 * M - 1), 1024);
        assert_eq!(Ext4.default_cluster(512 * M), 4096);
        assert_eq!(Ext4.default_cluster(64 * G), 4096);
        assert_eq!(Ext4.default_cluster(20 * T), 4096);
        assert_eq!(Ext4.sweep(64 * G), vec![1024, 2048, 4096]);
    }

    #[test]
    fn journal_sizes() {
        assert_eq!(default_journal_blocks(2047), None);
        assert_eq!(default_journal_blocks(2048), Some(1024));
        assert_eq!(default_journal_blocks(262_144), Some(8192));
        assert_eq!(default_journal_blocks(16 * 1024 * 1024), Some(131_072));
        assert_eq!(default_journal_blocks(1 << 40), Some(262_144));
    }

    #[test]
    fn super_backups() {
        let want: Vec<u64> = (0..2500).filter(|&g| has_super(g)).collect();
        assert_eq!(&want[..10], &[0, 1, 3, 5, 7, 9, 25, 27, 49, 81]);
        for n in [1u64, 2, 3, 4, 10, 26, 50, 343, 344, 2500] {
            assert_eq!(
                super_groups(n),
                want.iter().filter(|&&g| g < n).count() as u64
            );
        }
    }

    #[test]
    fn extent_trees() {
        assert_eq!(extent_tree_blocks(0, 4096), 0);
        assert_eq!(extent_tree_blocks(4, 4096), 0);
        assert_eq!(extent_tree_blocks(5, 4096), 1);
        assert_eq!(extent_tree_blocks(340 * 4, 4096), 4);
        assert_eq!(extent_tree_blocks(340 * 4 + 1, 4096), 5 + 1);
        assert_eq!(extent_tree_blocks(85, 1024), 2);
        // 16 TiB − 4 KiB at 4 KiB: 131072 extents, 386 leaves, 2 index blocks.
        assert_eq!(extent_tree_blocks(131_072, 4096), 386 + 2);
    }

    fn model(volume: u64, block: u64) -> Ext4Model {
        Ext4Model::new(&layout(volume, block).unwrap())
    }

    fn tree_blocks(m: &Ext4Model, rel: &str, root: bool, entries: &[Entry]) -> (u64, u64) {
        let mut acc = Acc::default();
        m.add_dir(&Dir::new(Path::new(rel), root, entries), &mut acc);
        let s = m.finish(&acc);
        (s.data_bytes / m.block, s.metadata_bytes / m.block)
    }

    fn files(n: usize, size: u64) -> Vec<Entry> {
        (0..n)
            .map(|i| {
                Entry::new(
                    OsString::from(format!("file_{i:05}.txt")),
                    Kind::File,
                    size,
                    0,
                )
            })
            .collect()
    }

    #[test]
    fn directories() {
        let m = model(G, 4096);
        assert_eq!(rec_len(1), 12);
        assert_eq!(rec_len(14), 24);
        // An empty directory: one block.
        assert_eq!(tree_blocks(&m, "d", false, &[]), (0, 1));
        // measured: 169 names of 14 bytes fill a 4 KiB block; 170 make an
        // htree of a root and two leaves.
        assert_eq!(tree_blocks(&m, "d", false, &files(169, 0)), (0, 1));
        assert_eq!(tree_blocks(&m, "d", false, &files(170, 0)), (0, 3));
        // The root's first block exists already; its lost+found entry counts.
        assert_eq!(tree_blocks(&m, "", true, &files(168, 0)), (0, 0));
        assert_eq!(tree_blocks(&m, "", true, &files(169, 0)), (0, 2));
        // measured: 20000 such names take 156..169 blocks (six volumes).
        let (_, b) = tree_blocks(&m, "d", false, &files(20_000, 0));
        assert!((156..=170).contains(&b), "{b}");
        // lost+found (4 blocks at 4 KiB) takes 600 names before growing.
        assert_eq!(tree_blocks(&m, "lost+found", false, &files(600, 0)), (0, 0));
        assert_eq!(tree_blocks(&m, "lost+found", false, &files(800, 0)), (0, 1));
    }

    #[test]
    fn files_and_links() {
        let m = model(G, 1024);
        let link = |n: u64| Entry::new(OsString::from(format!("l{n}")), Kind::Symlink, n, 0);
        // measured: 59-byte targets are fast, 60..1023 take a block, longer
        // ones fail (ENAMETOOLONG) at 1 KiB.
        let e = [link(59), link(60), link(1023), link(1024), link(2000)];
        assert_eq!(tree_blocks(&m, "d", false, &e), (0, 1 + 2));
        // Empty files take nothing, others whole blocks.
        let f = [
            Entry::new("a".into(), Kind::File, 0, 0),
            Entry::new("b".into(), Kind::File, 1, 0),
            Entry::new("c".into(), Kind::File, 1025, 0),
        ];
        assert_eq!(tree_blocks(&m, "d", false, &f), (3, 1));
        // measured: a 200 MiB file at 1 KiB needs one extent leaf block.
        let big = [Entry::new("big".into(), Kind::File, 200 * M, 0)];
        assert_eq!(tree_blocks(&m, "d", false, &big), (200 * K, 1 + 1));
        // Names over 255 bytes cannot be made.
        let long = [Entry::new(
            OsString::from("x".repeat(256)),
            Kind::File,
            10,
            0,
        )];
        assert_eq!(tree_blocks(&m, "d", false, &long), (0, 1));
    }
}
