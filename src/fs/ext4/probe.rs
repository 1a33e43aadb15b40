//! ext2/ext3/ext4 superblock (at byte 1024).
//!
//! Source: e2fsprogs lib/ext2fs/ext2_fs.h (struct ext2_super_block, the
//! EXT2/3/4_FEATURE_* flags); ext2 vs ext3 vs ext4 as libblkid decides it
//! (util-linux libblkid/src/superblocks/ext.c: EXT3_FEATURE_*_SUPP).

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{Magic, Signature, VolumeInfo};

const FS: &str = "ext4";
const MAGIC: u16 = 0xEF53;

// s_feature_compat
const COMPAT_HAS_JOURNAL: u32 = 0x0004;
// s_feature_incompat
const INCOMPAT_FILETYPE: u32 = 0x0002;
const INCOMPAT_RECOVER: u32 = 0x0004;
const INCOMPAT_JOURNAL_DEV: u32 = 0x0008;
const INCOMPAT_META_BG: u32 = 0x0010;
const INCOMPAT_64BIT: u32 = 0x0080;
// s_feature_ro_compat
const RO_COMPAT_SPARSE_SUPER: u32 = 0x0001;
const RO_COMPAT_LARGE_FILE: u32 = 0x0002;
const RO_COMPAT_BTREE_DIR: u32 = 0x0004;
const RO_COMPAT_BIGALLOC: u32 = 0x0200;

const COMPAT_NAMES: &[(u32, &str)] = &[
    (0x0001, "dir_prealloc"),
    (0x0002, "imagic_inodes"),
    (0x0004, "has_journal"),
    (0x0008, "ext_attr"),
    (0x0010, "resize_inode"),
    (0x0020, "dir_index"),
    (0x0200, "sparse_super2"),
    (0x0400, "fast_commit"),
    (0x0800, "stable_inodes"),
    (0x1000, "orphan_file"),
];
const INCOMPAT_NAMES: &[(u32, &str)] = &[
    (0x0001, "compression"),
    (0x0002, "filetype"),
    (0x0004, "needs_recovery"),
    (0x0008, "journal_dev"),
    (0x0010, "meta_bg"),
    (0x0040, "extent"),
    (0x0080, "64bit"),
    (0x0100, "mmp"),
    (0x0200, "flex_bg"),
    (0x0400, "ea_inode"),
    (0x1000, "dirdata"),
    (0x2000, "metadata_csum_seed"),
    (0x4000, "large_dir"),
    (0x8000, "inline_data"),
    (0x10000, "encrypt"),
    (0x20000, "casefold"),
];
const RO_COMPAT_NAMES: &[(u32, &str)] = &[
    (0x0001, "sparse_super"),
    (0x0002, "large_file"),
    (0x0008, "huge_file"),
    (0x0010, "uninit_bg"),
    (0x0020, "dir_nlink"),
    (0x0040, "extra_isize"),
    (0x0100, "quota"),
    (0x0200, "bigalloc"),
    (0x0400, "metadata_csum"),
    (0x1000, "read-only"),
    (0x2000, "project"),
    (0x4000, "shared_blocks"),
    (0x8000, "verity"),
    (0x10000, "orphan_present"),
];

/// `sb` is the 1024 bytes at offset 1024.
const MAGIC_LE: [u8; 2] = MAGIC.to_le_bytes();

/// s_magic in the superblock at 1 KiB (ext2 and ext3 too).
pub const SIGNATURE: Signature = Signature {
    order: 40,
    weak: false,
    magics: &[Magic::at(1024 + 0x38, &MAGIC_LE)],
    parse: |dev, _head, _opts| Some(parse(dev)),
    boot_sector: None,
    damaged: None,
};

fn names(flags: u32, table: &[(u32, &str)]) -> Vec<String> {
    let mut out: Vec<String> = table
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let known = table.iter().fold(0, |a, (b, _)| a | b);
    if flags & !known != 0 {
        out.push(format!("0x{:X}", flags & !known));
    }
    out
}

pub fn parse(dev: &mut Dev) -> Result<VolumeInfo, ProbeError> {
    let sb = dev
        .exact(1024, 1024, "superblock")
        .map_err(|e| e.within(FS))?;
    let f = Fields { b: &sb, fs: FS };
    let g = geometry(&f)?;
    let (inodes, inode_size) = inode_table(&f, g.block)?;
    let (unit, ratio) = allocation_unit(&f, &g)?;
    let fs = variant(&g);
    let uuid: [u8; 16] = bytes::arr(&sb, 0x68).ok_or(corrupt!("{FS}: s_uuid truncated"))?;
    let label = bytes::label(bytes::cstr(f.bytes(0x78, 16, "s_volume_name")?));
    let mut d = details(&f, &g, inodes, inode_size, unit, ratio)?;
    let free = free_space(&g, &mut d);
    let Geo {
        block,
        blocks,
        volume_bytes,
        ..
    } = g;
    Ok(VolumeInfo {
        fs: fs.into(),
        cluster_bytes: unit,
        // ext2/3/4 do not record the device's sector size.
        sector_bytes: 512,
        volume_bytes,
        label,
        uuid: Some(bytes::uuid(&uuid)),
        total_clusters: Some(blocks / ratio),
        free_bytes: free.map(|n| n * block),
        used_bytes: free.map(|n| (blocks - n) * block),
        details: d,
        // Clusters (blocks) count from the volume's start.
        data_offset_bytes: Some(0),
        ..Default::default()
    })
}

/// Block size, counts and features from the superblock, checked.
struct Geo {
    log_block: u32,
    block: u64,
    compat: u32,
    incompat: u32,
    ro_compat: u32,
    blocks: u64,
    r_blocks: u64,
    free_blocks: u64,
    volume_bytes: u64,
    per_group: u32,
}

fn geometry(f: &Fields) -> Result<Geo, ProbeError> {
    if f.le16(0x38, "s_magic")? != MAGIC {
        return Err(corrupt!("{FS}: s_magic is not 0xEF53"));
    }
    let log_block = f.le32(0x18, "s_log_block_size")?;
    if log_block > 6 {
        return Err(corrupt!(
            "{FS}: s_log_block_size is {log_block}: block size 1024 << {log_block} is over 64 KiB"
        ));
    }
    let block = 1024u64 << log_block;
    let compat = f.le32(0x5C, "s_feature_compat")?;
    let incompat = f.le32(0x60, "s_feature_incompat")?;
    let ro_compat = f.le32(0x64, "s_feature_ro_compat")?;
    if incompat & INCOMPAT_JOURNAL_DEV != 0 {
        return Err(corrupt!(
            "{FS}: this is an external journal device (INCOMPAT_JOURNAL_DEV), not a filesystem"
        ));
    }
    let is64 = incompat & INCOMPAT_64BIT != 0;
    let hi = |off: usize, name: &str| -> Result<u64, ProbeError> {
        Ok(if is64 {
            u64::from(f.le32(off, name)?) << 32
        } else {
            0
        })
    };
    let blocks = u64::from(f.le32(0x04, "s_blocks_count_lo")?) | hi(0x150, "s_blocks_count_hi")?;
    let r_blocks =
        u64::from(f.le32(0x08, "s_r_blocks_count_lo")?) | hi(0x154, "s_r_blocks_count_hi")?;
    let free_blocks =
        u64::from(f.le32(0x0C, "s_free_blocks_count_lo")?) | hi(0x158, "s_free_blocks_hi")?;
    if blocks == 0 {
        return Err(corrupt!("{FS}: s_blocks_count is 0"));
    }
    let volume_bytes = bytes::mul(FS, "s_blocks_count × block size", blocks, block)?;
    let first_data = f.le32(0x14, "s_first_data_block")?;
    // Block 0 holds the superblock only for 1 KiB blocks, and not with
    // bigalloc, whose first cluster starts at block 0 (the kernel refuses
    // anything else: "first data block should be 0 with bigalloc").
    let want_first = u32::from(block == 1024 && ro_compat & RO_COMPAT_BIGALLOC == 0);
    if first_data != want_first {
        return Err(corrupt!(
            "{FS}: s_first_data_block is {first_data}, expected {want_first} for {block}-byte blocks"
        ));
    }
    let per_group = f.le32(0x20, "s_blocks_per_group")?;
    if per_group == 0 {
        return Err(corrupt!("{FS}: s_blocks_per_group is 0"));
    }
    Ok(Geo {
        log_block,
        block,
        compat,
        incompat,
        ro_compat,
        blocks,
        r_blocks,
        free_blocks,
        volume_bytes,
        per_group,
    })
}

/// (inode count, inode size), checked.
fn inode_table(f: &Fields, block: u64) -> Result<(u32, u64), ProbeError> {
    let inodes = f.le32(0x00, "s_inodes_count")?;
    let inodes_per_group = f.le32(0x28, "s_inodes_per_group")?;
    if inodes == 0 || inodes_per_group == 0 {
        return Err(corrupt!(
            "{FS}: s_inodes_count {inodes} / s_inodes_per_group {inodes_per_group} is zero"
        ));
    }
    let rev = f.le32(0x4C, "s_rev_level")?;
    if rev > 1 {
        return Err(corrupt!("{FS}: s_rev_level is {rev} (0 or 1 expected)"));
    }
    let inode_size = if rev == 0 {
        128
    } else {
        u64::from(f.le16(0x58, "s_inode_size")?)
    };
    if !inode_size.is_power_of_two() || inode_size < 128 || inode_size > block {
        return Err(corrupt!(
            "{FS}: s_inode_size is {inode_size}, not a power of two 128..block size"
        ));
    }
    Ok((inodes, inode_size))
}

/// (allocation unit, blocks per unit): the cluster with bigalloc, else the block.
fn allocation_unit(f: &Fields, g: &Geo) -> Result<(u64, u64), ProbeError> {
    let (log_block, block) = (g.log_block, g.block);
    Ok(if g.ro_compat & RO_COMPAT_BIGALLOC != 0 {
        let log_cluster = f.le32(0x1C, "s_log_cluster_size")?;
        // EXT2_MAX_CLUSTER_LOG_SIZE 29: clusters up to 512 MiB.
        if log_cluster < log_block || log_cluster > 29 - 10 {
            return Err(corrupt!(
                "{FS}: s_log_cluster_size is {log_cluster} (block log {log_block})"
            ));
        }
        (1024u64 << log_cluster, 1u64 << (log_cluster - log_block))
    } else {
        (block, 1)
    })
}

/// ext2, ext3 or ext4, as libblkid tells them apart.
fn variant(g: &Geo) -> &'static str {
    let (compat, incompat, ro_compat) = (g.compat, g.incompat, g.ro_compat);
    // libblkid ext.c: anything beyond what ext3 supports makes it ext4.
    let ext3_incompat = INCOMPAT_FILETYPE | INCOMPAT_RECOVER | INCOMPAT_META_BG;
    let ext3_ro = RO_COMPAT_SPARSE_SUPER | RO_COMPAT_LARGE_FILE | RO_COMPAT_BTREE_DIR;
    if incompat & !ext3_incompat != 0 || ro_compat & !ext3_ro != 0 {
        "ext4"
    } else if compat & COMPAT_HAS_JOURNAL != 0 {
        "ext3"
    } else {
        "ext2"
    }
}

fn details(
    f: &Fields,
    g: &Geo,
    inodes: u32,
    inode_size: u64,
    unit: u64,
    ratio: u64,
) -> Result<Vec<(String, String)>, ProbeError> {
    let (compat, incompat, ro_compat) = (g.compat, g.incompat, g.ro_compat);
    let (block, blocks, r_blocks, per_group) = (g.block, g.blocks, g.r_blocks, g.per_group);
    let mut feats = names(compat, COMPAT_NAMES);
    feats.extend(names(incompat, INCOMPAT_NAMES));
    feats.extend(names(ro_compat, RO_COMPAT_NAMES));
    let state = f.le16(0x3A, "s_state")?;
    let mut d = vec![
        kv("block size", block),
        kv("blocks", blocks),
        kv("reserved blocks", r_blocks),
        kv("blocks per group", per_group),
        kv("inodes", inodes),
        kv("free inodes", f.le32(0x10, "s_free_inodes_count")?),
        kv("inode size", inode_size),
        kv("features", feats.join(" ")),
        kv(
            "state",
            match state & 3 {
                1 => "clean",
                0 => "not clean (mounted or crashed)",
                _ => "errors detected",
            },
        ),
    ];
    if ratio > 1 {
        d.push(kv("bigalloc cluster size", unit));
    }
    if compat & COMPAT_HAS_JOURNAL != 0 {
        let inum = f.le32(0xE0, "s_journal_inum")?;
        let ext: [u8; 16] = bytes::arr(f.b, 0xD0).unwrap_or([0; 16]);
        let j = if inum != 0 {
            format!("internal (inode {inum})")
        } else if ext != [0; 16] {
            format!("external (device {})", bytes::uuid(&ext))
        } else {
            "has_journal set but no journal inode or device".to_string()
        };
        d.push(kv("journal", j));
    }
    let last = bytes::cstr(f.bytes(0x88, 64, "s_last_mounted")?);
    if !last.is_empty() {
        d.push(kv("last mounted on", last));
    }
    Ok(d)
}

/// The superblock's free block count, noted in the details.
fn free_space(g: &Geo, d: &mut Vec<(String, String)>) -> Option<u64> {
    let (free_blocks, blocks) = (g.free_blocks, g.blocks);
    if free_blocks <= blocks {
        d.push(kv(
            "free blocks",
            format!("{free_blocks} (superblock count; refreshed by the kernel at sync/unmount)"),
        ));
        Some(free_blocks)
    } else {
        d.push(kv(
            "free blocks",
            format!("superblock says {free_blocks}, more than the {blocks} blocks; ignored"),
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image() -> Vec<u8> {
        let mut img = vec![0u8; 4096];
        let sb = &mut img[1024..2048];
        sb[0x00..0x04].copy_from_slice(&1024u32.to_le_bytes());
        sb[0x04..0x08].copy_from_slice(&16384u32.to_le_bytes());
        sb[0x0C..0x10].copy_from_slice(&1000u32.to_le_bytes());
        sb[0x18..0x1C].copy_from_slice(&2u32.to_le_bytes());
        sb[0x20..0x24].copy_from_slice(&32768u32.to_le_bytes());
        sb[0x28..0x2C].copy_from_slice(&1024u32.to_le_bytes());
        sb[0x38..0x3A].copy_from_slice(&MAGIC.to_le_bytes());
        sb[0x4C..0x50].copy_from_slice(&1u32.to_le_bytes());
        sb[0x58..0x5A].copy_from_slice(&256u16.to_le_bytes());
        sb[0x78..0x7D].copy_from_slice(b"hello");
        img
    }

    fn run(img: &[u8]) -> Result<VolumeInfo, ProbeError> {
        let mut r = bytes::slice_reader(img);
        parse(&mut Dev::new(&mut r))
    }

    #[test]
    fn ext2_by_features() {
        let v = run(&image()).unwrap();
        assert_eq!(v.fs, "ext2");
        assert_eq!(v.cluster_bytes, 4096);
        assert_eq!(v.volume_bytes, 16384 * 4096);
        assert_eq!(v.free_bytes, Some(1000 * 4096));
        assert_eq!(v.label.as_deref(), Some("hello"));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut img = image();
        img[1024 + 0x18] = 40;
        assert!(run(&img)
            .unwrap_err()
            .to_string()
            .contains("s_log_block_size"));
        let mut img = image();
        img[1024 + 0x04..1024 + 0x08].fill(0);
        assert!(run(&img)
            .unwrap_err()
            .to_string()
            .contains("s_blocks_count"));
        img.truncate(1500);
        assert!(run(&img).unwrap_err().to_string().contains("truncated"));
    }
}
