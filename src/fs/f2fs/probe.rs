//! F2FS superblock (at byte 1024) and the newest valid checkpoint.
//!
//! Source: Linux include/linux/f2fs_fs.h (struct f2fs_super_block, struct
//! f2fs_checkpoint, F2FS_FEATURE_SB_CHKSUM) and fs/f2fs/super.c
//! (sanity_check_raw_super), fs/f2fs/checkpoint.c (get_checkpoint_version:
//! CRC at checksum_offset, f2fs_crc32 seeded with F2FS_SUPER_MAGIC).

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{Magic, Signature, VolumeInfo};

const FS: &str = "f2fs";
const MAGIC: u32 = 0xF2F5_2010;
const SB_OFFSET: u64 = 1024;
const FEATURE_SB_CHKSUM: u32 = 0x0800;

const FEATURES: &[(u32, &str)] = &[
    (0x0001, "encrypt"),
    (0x0002, "blkzoned"),
    (0x0004, "atomic_write"),
    (0x0008, "extra_attr"),
    (0x0010, "project_quota"),
    (0x0020, "inode_checksum"),
    (0x0040, "flexible_inline_xattr"),
    (0x0080, "quota_ino"),
    (0x0100, "inode_crtime"),
    (0x0200, "lost_found"),
    (0x0400, "verity"),
    (0x0800, "sb_checksum"),
    (0x1000, "casefold"),
    (0x2000, "compression"),
    (0x4000, "ro"),
];

/// `sb` is the 1024 bytes at offset 1024.
const MAGIC_LE: [u8; 4] = MAGIC.to_le_bytes();

/// The magic at the superblock's start, 1 KiB in.
pub const SIGNATURE: Signature = Signature {
    order: 50,
    weak: false,
    magics: &[Magic::at(SB_OFFSET, &MAGIC_LE)],
    parse: |dev, _head, _opts| Some(parse(dev)),
    boot_sector: None,
    damaged: None,
};

fn crc(data: &[u8]) -> u32 {
    bytes::crc32_raw(MAGIC, data, 0xEDB8_8320)
}

pub fn parse(dev: &mut Dev) -> Result<VolumeInfo, ProbeError> {
    let sb = dev
        .exact(SB_OFFSET, 3072, "superblock")
        .map_err(|e| e.within(FS))?;
    let f = Fields { b: &sb, fs: FS };
    let Geo {
        log_sector,
        block,
        blocks,
        volume_bytes,
    } = geometry(&f)?;
    let feature = f.le32(2180, "feature")?;
    let mut d = vec![kv(
        "version",
        format!("{}.{}", f.le16(4, "major_ver")?, f.le16(6, "minor_ver")?),
    )];
    if feature & FEATURE_SB_CHKSUM != 0 {
        let off = f.le32(32, "checksum_offset")? as usize;
        let stored = f.le32(off, "superblock crc")?;
        if crc(&sb[..off]) != stored {
            return Err(corrupt!("{FS}: superblock checksum mismatch"));
        }
        d.push(kv("superblock checksum", "ok"));
    }
    let uuid: [u8; 16] = bytes::arr(&sb, 108).ok_or(corrupt!("{FS}: uuid truncated"))?;
    let label = bytes::label(bytes::utf16le(f.bytes(124, 1024, "volume_name")?));
    let feats: Vec<&str> = FEATURES
        .iter()
        .filter(|(b, _)| feature & b != 0)
        .map(|(_, n)| *n)
        .collect();
    d.push(kv("features", feats.join(" ")));
    d.push(kv("segments", f.le32(48, "segment_count")?));
    d.push(kv("main area segments", f.le32(68, "segment_count_main")?));
    d.push(kv(
        "kernel at mkfs",
        bytes::cstr(f.bytes(1924, 256, "init_version")?).trim(),
    ));
    let free = free_space(dev, &f, block, blocks, &mut d)?;
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes: block,
        sector_bytes: 1 << log_sector,
        volume_bytes,
        label,
        uuid: Some(bytes::uuid(&uuid)),
        total_clusters: Some(blocks),
        free_bytes: free.map(|(f, _)| f * block),
        used_bytes: free.map(|(_, u)| u * block),
        details: d,
        ..Default::default()
    })
}

/// Block and sector sizes and the volume's size, checked.
struct Geo {
    log_sector: u32,
    block: u64,
    blocks: u64,
    volume_bytes: u64,
}

fn geometry(f: &Fields) -> Result<Geo, ProbeError> {
    let log_sector = f.le32(8, "log_sectorsize")?;
    if !(9..=12).contains(&log_sector) {
        return Err(corrupt!("{FS}: log_sectorsize is {log_sector}, not 9..12"));
    }
    let log_block = f.le32(16, "log_blocksize")?;
    if !(12..=16).contains(&log_block) {
        return Err(corrupt!(
            "{FS}: log_blocksize is {log_block}, not 12..16 (4..64 KiB blocks)"
        ));
    }
    let log_spb = f.le32(12, "log_sectors_per_block")?;
    if log_spb.checked_add(log_sector) != Some(log_block) {
        return Err(corrupt!(
            "{FS}: log_sectors_per_block {log_spb} + log_sectorsize {log_sector} != log_blocksize {log_block}"
        ));
    }
    let log_bps = f.le32(20, "log_blocks_per_seg")?;
    if log_bps != 9 {
        return Err(corrupt!(
            "{FS}: log_blocks_per_seg is {log_bps}, not 9 (512 blocks per segment)"
        ));
    }
    let block = 1u64 << log_block;
    let blocks = f.le64(36, "block_count")?;
    if blocks == 0 {
        return Err(corrupt!("{FS}: block_count is 0"));
    }
    let volume_bytes = bytes::mul(FS, "block_count × block size", blocks, block)?;
    Ok(Geo {
        log_sector,
        block,
        blocks,
        volume_bytes,
    })
}

/// (free, used) blocks from the newer valid checkpoint, noted in the
/// details; None when no checkpoint can be read.
fn free_space(
    dev: &mut Dev,
    f: &Fields,
    block: u64,
    blocks: u64,
    d: &mut Vec<(String, String)>,
) -> Result<Option<(u64, u64)>, ProbeError> {
    let cp_blkaddr = u64::from(f.le32(76, "cp_blkaddr")?);
    Ok(match checkpoint(dev, cp_blkaddr, block, blocks) {
        Ok((ver, user, valid)) => {
            d.push(kv("checkpoint version", ver));
            d.push(kv("user blocks", user));
            d.push(kv("valid blocks", valid));
            Some((user - valid, valid))
        }
        Err(e) => {
            d.push(kv("checkpoint", format!("unreadable: {e}")));
            None
        }
    })
}

/// The newer of the two checkpoint packs (at cp_blkaddr and one segment
/// later) whose CRC is valid: (version, user_block_count, valid_block_count).
fn checkpoint(
    dev: &mut Dev,
    cp_blkaddr: u64,
    block: u64,
    blocks: u64,
) -> Result<(u64, u64, u64), ProbeError> {
    let mut best: Option<(u64, u64, u64)> = None;
    let mut why = String::new();
    for pack in [cp_blkaddr, cp_blkaddr + 512] {
        if pack >= blocks {
            why = format!("cp_blkaddr {pack} is beyond block_count");
            continue;
        }
        let cp = dev.exact(pack * block, block as usize, "checkpoint")?;
        let off = bytes::le32(&cp, 164).unwrap_or(0) as usize;
        // checkpoint.c: the CRC sits between the fixed header and the block end.
        if !(192..=cp.len() - 4).contains(&off) {
            why = format!("checksum_offset {off} is invalid");
            continue;
        }
        let stored = bytes::le32(&cp, off).unwrap_or(0);
        if crc(&cp[..off]) != stored {
            why = "checkpoint CRC mismatch".into();
            continue;
        }
        let ver = bytes::le64(&cp, 0).unwrap_or(0);
        let user = bytes::le64(&cp, 8).unwrap_or(0);
        let valid = bytes::le64(&cp, 16).unwrap_or(0);
        if valid > user || user > blocks {
            why = format!("valid_block_count {valid} / user_block_count {user} are inconsistent");
            continue;
        }
        if best.is_none_or(|b| ver > b.0) {
            best = Some((ver, user, valid));
        }
    }
    best.ok_or(ProbeError::Corrupt(why))
}
