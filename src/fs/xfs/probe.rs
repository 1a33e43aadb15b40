//! XFS superblock (sector 0 of AG 0, big-endian).
//!
//! Source: Linux fs/xfs/libxfs/xfs_format.h (struct xfs_dsb, XFS_SB_VERSION_*
//! and XFS_SB_FEAT_* flags) and xfs_sb.c (xfs_validate_sb_common).

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{Magic, Signature, VolumeInfo};

const FS: &str = "xfs";

/// sb_magicnum at the superblock's start.
pub const SIGNATURE: Signature = Signature {
    order: 30,
    weak: false,
    magics: &[Magic::at(0, b"XFSB")],
    parse: |dev, head, _opts| Some(parse(dev, head)),
    boot_sector: None,
    damaged: None,
};

const RO_COMPAT: &[(u32, &str)] = &[
    (0x1, "finobt"),
    (0x2, "rmapbt"),
    (0x4, "reflink"),
    (0x8, "inobtcount"),
];
const INCOMPAT: &[(u32, &str)] = &[
    (0x1, "ftype"),
    (0x2, "sparse"),
    (0x4, "meta_uuid"),
    (0x8, "bigtime"),
    (0x10, "needsrepair"),
    (0x20, "nrext64"),
    (0x40, "exchrange"),
    (0x80, "parent"),
    (0x100, "metadir"),
];

pub fn parse(_dev: &mut Dev, head: &[u8]) -> Result<VolumeInfo, ProbeError> {
    // The v5 superblock fields used here end at sb_meta_uuid (264 bytes).
    Fields::need(head, 264, FS, "superblock")?;
    let f = Fields { b: head, fs: FS };
    let g = geometry(&f)?;
    let (v, inodesize) = format_version(&f)?;
    let fdblocks = f.be64(144, "sb_fdblocks")?;
    let uuid: [u8; 16] = bytes::arr(head, 32).ok_or(corrupt!("{FS}: sb_uuid truncated"))?;
    let label = bytes::label(bytes::cstr(f.bytes(108, 12, "sb_fname")?));
    let mut d = details(&f, &g, v, inodesize)?;
    let free = free_blocks(fdblocks, g.dblocks, &mut d);
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes: g.blocksize,
        sector_bytes: g.sectsize,
        volume_bytes: g.volume_bytes,
        label,
        uuid: Some(bytes::uuid(&uuid)),
        total_clusters: Some(g.dblocks),
        free_bytes: free.map(|n| n * g.blocksize),
        used_bytes: free.map(|n| (g.dblocks - n) * g.blocksize),
        details: d,
        // Clusters (blocks) count from the volume's start.
        data_offset_bytes: Some(0),
        ..Default::default()
    })
}

/// Block and sector sizes and the allocation groups, checked.
struct Geo {
    blocksize: u64,
    sectsize: u64,
    dblocks: u64,
    agblocks: u64,
    agcount: u64,
    volume_bytes: u64,
}

fn geometry(f: &Fields) -> Result<Geo, ProbeError> {
    let blocksize = u64::from(f.be32(4, "sb_blocksize")?);
    let blocklog = u32::from(f.u8(120, "sb_blocklog")?);
    if !(9..=16).contains(&blocklog) || blocksize != 1u64 << blocklog {
        return Err(corrupt!(
            "{FS}: sb_blocksize {blocksize} / sb_blocklog {blocklog}: not a matching power of two 512..64 KiB"
        ));
    }
    let sectsize = u64::from(f.be16(102, "sb_sectsize")?);
    let sectlog = u32::from(f.u8(121, "sb_sectlog")?);
    if !(9..=15).contains(&sectlog) || sectsize != 1u64 << sectlog || sectsize > blocksize {
        return Err(corrupt!(
            "{FS}: sb_sectsize {sectsize} / sb_sectlog {sectlog}: not a matching power of two 512..32 KiB, at most the block size"
        ));
    }
    let dblocks = f.be64(8, "sb_dblocks")?;
    let agblocks = u64::from(f.be32(84, "sb_agblocks")?);
    let agcount = u64::from(f.be32(88, "sb_agcount")?);
    if agblocks == 0 || agcount == 0 {
        return Err(corrupt!(
            "{FS}: sb_agblocks {agblocks} / sb_agcount {agcount} is zero"
        ));
    }
    // The last AG may be short: (agcount - 1) * agblocks < dblocks <= agcount * agblocks.
    let full = agcount.checked_mul(agblocks);
    if dblocks == 0 || full.is_none_or(|m| dblocks > m) || dblocks <= (agcount - 1) * agblocks {
        return Err(corrupt!(
            "{FS}: sb_dblocks {dblocks} does not match sb_agcount {agcount} × sb_agblocks {agblocks}"
        ));
    }
    let volume_bytes = bytes::mul(FS, "sb_dblocks × sb_blocksize", dblocks, blocksize)?;
    Ok(Geo {
        blocksize,
        sectsize,
        dblocks,
        agblocks,
        agcount,
        volume_bytes,
    })
}

/// The superblock version (4 or 5) and the inode size.
fn format_version(f: &Fields) -> Result<(u16, u64), ProbeError> {
    let version = f.be16(100, "sb_versionnum")?;
    let v = version & 0xF;
    if v != 4 && v != 5 {
        return Err(corrupt!(
            "{FS}: sb_versionnum 0x{version:04X}: version {v}, not 4 or 5"
        ));
    }
    let inodesize = u64::from(f.be16(104, "sb_inodesize")?);
    if !inodesize.is_power_of_two() || !(256..=2048).contains(&inodesize) {
        return Err(corrupt!(
            "{FS}: sb_inodesize {inodesize} is not a power of two 256..2048"
        ));
    }
    Ok((v, inodesize))
}

fn details(
    f: &Fields,
    g: &Geo,
    v: u16,
    inodesize: u64,
) -> Result<Vec<(String, String)>, ProbeError> {
    let logstart = f.be64(48, "sb_logstart")?;
    let logblocks = f.be32(96, "sb_logblocks")?;
    let mut d = vec![
        kv("version", v),
        kv("allocation groups", g.agcount),
        kv("blocks per AG", g.agblocks),
        kv("inode size", inodesize),
        kv(
            "log",
            if logstart != 0 {
                format!("internal, {logblocks} blocks")
            } else {
                "external".to_string()
            },
        ),
    ];
    if v == 5 {
        let mut feats: Vec<&str> = vec!["crc"];
        let ro = f.be32(212, "sb_features_ro_compat")?;
        let inc = f.be32(216, "sb_features_incompat")?;
        feats.extend(
            RO_COMPAT
                .iter()
                .filter(|(b, _)| ro & b != 0)
                .map(|(_, n)| *n),
        );
        feats.extend(
            INCOMPAT
                .iter()
                .filter(|(b, _)| inc & b != 0)
                .map(|(_, n)| *n),
        );
        d.push(kv("features", feats.join(" ")));
    }
    if f.u8(126, "sb_inprogress")? != 0 {
        d.push(kv("warning", "sb_inprogress set: mkfs did not finish"));
    }
    Ok(d)
}

/// sb_fdblocks, noted in the details.
fn free_blocks(fdblocks: u64, dblocks: u64, d: &mut Vec<(String, String)>) -> Option<u64> {
    if fdblocks <= dblocks {
        d.push(kv(
            "free blocks",
            format!("{fdblocks} (sb_fdblocks; exact after a clean unmount, lazy while mounted)"),
        ));
        Some(fdblocks)
    } else {
        d.push(kv(
            "free blocks",
            format!("sb_fdblocks {fdblocks} exceeds sb_dblocks; ignored"),
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sb() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0..4].copy_from_slice(b"XFSB");
        b[4..8].copy_from_slice(&4096u32.to_be_bytes());
        b[8..16].copy_from_slice(&81920u64.to_be_bytes());
        b[84..88].copy_from_slice(&20480u32.to_be_bytes());
        b[88..92].copy_from_slice(&4u32.to_be_bytes());
        b[100..102].copy_from_slice(&0xB4A5u16.to_be_bytes());
        b[102..104].copy_from_slice(&512u16.to_be_bytes());
        b[104..106].copy_from_slice(&512u16.to_be_bytes());
        b[108..112].copy_from_slice(b"data");
        b[120] = 12;
        b[121] = 9;
        b[144..152].copy_from_slice(&80000u64.to_be_bytes());
        b
    }

    fn run(b: &[u8]) -> Result<VolumeInfo, ProbeError> {
        let mut r = bytes::slice_reader(b);
        parse(&mut Dev::new(&mut r), b)
    }

    #[test]
    fn parses_and_rejects() {
        let v = run(&sb()).unwrap();
        assert_eq!((v.cluster_bytes, v.volume_bytes), (4096, 81920 * 4096));
        assert_eq!(v.label.as_deref(), Some("data"));
        let mut b = sb();
        b[8..16].copy_from_slice(&u64::MAX.to_be_bytes());
        assert!(run(&b).unwrap_err().to_string().contains("sb_dblocks"));
        let mut b = sb();
        b[4..8].copy_from_slice(&0u32.to_be_bytes());
        assert!(run(&b).unwrap_err().to_string().contains("sb_blocksize"));
    }
}
