//! btrfs primary superblock (at 64 KiB).
//!
//! Source: Linux include/uapi/linux/btrfs_tree.h and fs/btrfs/ctree.h
//! (struct btrfs_super_block, struct btrfs_dev_item, BTRFS_FEATURE_* flags);
//! fs/btrfs/disk-io.c (btrfs_validate_super) for the sanity rules.

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{Magic, Signature, VolumeInfo};

const FS: &str = "btrfs";
const SB_OFFSET: u64 = 0x10000;
const MAGIC: &[u8; 8] = b"_BHRfS_M";

const INCOMPAT: &[(u64, &str)] = &[
    (0x1, "mixed_backref"),
    (0x2, "default_subvol"),
    (0x4, "mixed_groups"),
    (0x8, "compress_lzo"),
    (0x10, "compress_zstd"),
    (0x20, "big_metadata"),
    (0x40, "extended_iref"),
    (0x80, "raid56"),
    (0x100, "skinny_metadata"),
    (0x200, "no_holes"),
    (0x400, "metadata_uuid"),
    (0x800, "raid1c34"),
    (0x1000, "zoned"),
    (0x2000, "extent_tree_v2"),
    (0x4000, "raid_stripe_tree"),
    (0x10000, "simple_quota"),
];
const COMPAT_RO: &[(u64, &str)] = &[
    (0x1, "free_space_tree"),
    (0x2, "free_space_tree_valid"),
    (0x4, "verity"),
    (0x8, "block_group_tree"),
];

/// The magic in the superblock at 64 KiB.
pub const SIGNATURE: Signature = Signature {
    order: 60,
    weak: false,
    magics: &[Magic::at(SB_OFFSET + 0x40, MAGIC)],
    parse: |dev, _head, _opts| Some(parse(dev)),
    boot_sector: None,
    damaged: None,
};

pub fn parse(dev: &mut Dev) -> Result<VolumeInfo, ProbeError> {
    let sb = dev
        .exact(SB_OFFSET, 4096, "superblock")
        .map_err(|e| e.within(FS))?;
    let f = Fields { b: &sb, fs: FS };
    let g = geometry(&f)?;
    let csum_name = checksum(&f, &sb)?;
    let fsid: [u8; 16] = bytes::arr(&sb, 0x20).ok_or(corrupt!("{FS}: fsid truncated"))?;
    let label = bytes::label(bytes::cstr(f.bytes(0x12B, 256, "label")?));
    // dev_item at 0xC9: devid 0, total_bytes 8, bytes_used 16, io_align 24,
    // io_width 28, sector_size 32.
    let dev_total = f.le64(0xC9 + 8, "dev_item.total_bytes")?;
    let dev_sector = u64::from(f.le32(0xC9 + 32, "dev_item.sector_size")?);
    let mut d = vec![
        kv("nodesize", g.nodesize),
        kv("devices", g.num_devices),
        kv("this device's size", dev_total),
        kv("generation", f.le64(0x48, "generation")?),
        kv("checksum", csum_name),
        kv("features", features(&f)?),
    ];
    let used = f.le64(0x78, "bytes_used")?;
    let free = free_space(g.total, used, &mut d);
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes: g.sectorsize,
        sector_bytes: if dev_sector.is_power_of_two() && (512..=65536).contains(&dev_sector) {
            dev_sector
        } else {
            g.sectorsize
        },
        volume_bytes: g.total,
        label,
        uuid: Some(bytes::uuid(&fsid)),
        total_clusters: Some(g.total / g.sectorsize),
        free_bytes: free,
        used_bytes: free.map(|_| used),
        details: d,
        // A member of a multi-device filesystem holds only its own share.
        device_bytes: Some(dev_total),
        // Clusters (blocks) count from the volume's start.
        data_offset_bytes: Some(0),
        ..Default::default()
    })
}

/// The superblock fields sizes count in, checked as btrfs_validate_super does.
struct Geo {
    sectorsize: u64,
    nodesize: u64,
    total: u64,
    num_devices: u64,
}

fn geometry(f: &Fields) -> Result<Geo, ProbeError> {
    let bytenr = f.le64(0x30, "bytenr")?;
    if bytenr != SB_OFFSET {
        return Err(corrupt!(
            "{FS}: superblock bytenr is {bytenr}, not its own offset {SB_OFFSET}"
        ));
    }
    let sectorsize = u64::from(f.le32(0x90, "sectorsize")?);
    if !sectorsize.is_power_of_two() || !(512..=65536).contains(&sectorsize) {
        return Err(corrupt!(
            "{FS}: sectorsize {sectorsize} is not a power of two 512..64 KiB"
        ));
    }
    let nodesize = u64::from(f.le32(0x94, "nodesize")?);
    if !nodesize.is_power_of_two() || nodesize < sectorsize || nodesize > 65536 {
        return Err(corrupt!(
            "{FS}: nodesize {nodesize} is not a power of two from sectorsize to 64 KiB"
        ));
    }
    let total = f.le64(0x70, "total_bytes")?;
    if total < sectorsize {
        return Err(corrupt!(
            "{FS}: total_bytes {total} is smaller than one sector"
        ));
    }
    let num_devices = f.le64(0x88, "num_devices")?;
    if num_devices == 0 {
        return Err(corrupt!("{FS}: num_devices is 0"));
    }
    Ok(Geo {
        sectorsize,
        nodesize,
        total,
        num_devices,
    })
}

/// The checksum's name; a crc32c superblock must match its checksum.
fn checksum(f: &Fields, sb: &[u8]) -> Result<&'static str, ProbeError> {
    let csum_type = f.le16(0xC4, "csum_type")?;
    let csum_name = match csum_type {
        0 => "crc32c",
        1 => "xxhash64",
        2 => "sha256",
        3 => "blake2b",
        _ => return Err(corrupt!("{FS}: csum_type {csum_type} is unknown")),
    };
    if csum_type == 0 {
        let want = f.le32(0, "csum")?;
        let got = bytes::crc32c(&sb[0x20..]);
        if want != got {
            return Err(corrupt!(
                "{FS}: superblock checksum mismatch (stored 0x{want:08X}, computed 0x{got:08X})"
            ));
        }
    }
    Ok(csum_name)
}

/// The incompat and compat_ro feature names, space-separated.
fn features(f: &Fields) -> Result<String, ProbeError> {
    let incompat = f.le64(0xBC, "incompat_flags")?;
    let compat_ro = f.le64(0xB4, "compat_ro_flags")?;
    let mut feats: Vec<&str> = INCOMPAT
        .iter()
        .filter(|(b, _)| incompat & b != 0)
        .map(|(_, n)| *n)
        .collect();
    feats.extend(
        COMPAT_RO
            .iter()
            .filter(|(b, _)| compat_ro & b != 0)
            .map(|(_, n)| *n),
    );
    Ok(feats.join(" "))
}

/// total_bytes − bytes_used, noted in the details.
fn free_space(total: u64, used: u64, d: &mut Vec<(String, String)>) -> Option<u64> {
    if used <= total {
        d.push(kv(
            "free",
            "total_bytes − bytes_used: allocated extents only; chunk-level allocation \
             (what df shows) can be fuller",
        ));
        Some(total - used)
    } else {
        d.push(kv(
            "free",
            format!("bytes_used {used} exceeds total_bytes {total}; ignored"),
        ));
        None
    }
}
