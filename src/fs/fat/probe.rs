//! FAT12/16/32 boot sector (BPB), FSInfo and root-directory label.
//!
//! Source: Microsoft "FAT: General Overview of On-Disk Format" 1.03
//! (fatgen103): BPB layout, "FAT Type Determination" (by cluster count
//! only), "FAT32 FSInfo Sector Structure", "FAT Directory Structure".

use crate::info::bytes::{self, kv, Dev, Fields};
use crate::info::VolumeInfo;

const FS: &str = "fat";

/// The BPB fields that locate everything else.
pub struct Bpb {
    pub bps: u64,
    pub spc: u64,
    pub rsvd: u64,
    pub nfats: u64,
    pub root_ent: u64,
    pub fat_sectors: u64,
    pub total_sectors: u64,
    /// BPB_FATSz16 == 0: the FAT32 field layout (extended BPB at 36).
    pub fat32_layout: bool,
    #[allow(dead_code)] // part of the layout; only the tests look at it
    pub root_dir_sectors: u64,
    pub first_data_sector: u64,
    pub clusters: u64,
}

/// Parse and sanity-check the BPB of a 512+ byte boot sector.
pub fn bpb(b: &[u8]) -> Result<Bpb, String> {
    Fields::need(b, 512, FS, "boot sector")?;
    let f = Fields { b, fs: FS };
    // fatgen103 "Boot Sector and BPB": offsets 11..36 are common to all types.
    let bps = u64::from(f.le16(11, "BPB_BytsPerSec")?);
    if !matches!(bps, 512 | 1024 | 2048 | 4096) {
        return Err(format!(
            "{FS}: BPB_BytsPerSec is {bps}, not 512, 1024, 2048 or 4096"
        ));
    }
    let spc = u64::from(f.u8(13, "BPB_SecPerClus")?);
    if spc == 0 || !spc.is_power_of_two() {
        return Err(format!(
            "{FS}: BPB_SecPerClus is {spc}, not a power of two 1..128"
        ));
    }
    let rsvd = u64::from(f.le16(14, "BPB_RsvdSecCnt")?);
    if rsvd == 0 {
        return Err(format!("{FS}: BPB_RsvdSecCnt is 0 (must be at least 1)"));
    }
    let nfats = u64::from(f.u8(16, "BPB_NumFATs")?);
    if nfats == 0 {
        return Err(format!("{FS}: BPB_NumFATs is 0"));
    }
    let root_ent = u64::from(f.le16(17, "BPB_RootEntCnt")?);
    let tot16 = u64::from(f.le16(19, "BPB_TotSec16")?);
    let fatsz16 = u64::from(f.le16(22, "BPB_FATSz16")?);
    let tot32 = u64::from(f.le32(32, "BPB_TotSec32")?);
    let fat32_layout = fatsz16 == 0;
    let fat_sectors = if fat32_layout {
        u64::from(f.le32(36, "BPB_FATSz32")?)
    } else {
        fatsz16
    };
    if fat_sectors == 0 {
        return Err(format!("{FS}: BPB_FATSz16 and BPB_FATSz32 are both 0"));
    }
    let total_sectors = if tot16 != 0 { tot16 } else { tot32 };
    if total_sectors == 0 {
        return Err(format!("{FS}: BPB_TotSec16 and BPB_TotSec32 are both 0"));
    }
    // RootDirSectors = ((RootEntCnt * 32) + (BytsPerSec - 1)) / BytsPerSec
    let root_dir_sectors = (root_ent * 32).div_ceil(bps);
    let fats = bytes::mul(FS, "NumFATs × FATSz", nfats, fat_sectors)?;
    let meta = bytes::add(FS, "reserved + FAT sectors", rsvd, fats)?;
    let first_data_sector = bytes::add(FS, "first data sector", meta, root_dir_sectors)?;
    if first_data_sector >= total_sectors {
        return Err(format!(
            "{FS}: reserved sectors, FATs and root directory ({first_data_sector} sectors) \
             leave no data region in BPB_TotSec {total_sectors}"
        ));
    }
    let clusters = (total_sectors - first_data_sector) / spc;
    if clusters == 0 {
        return Err(format!("{FS}: the data region holds no whole cluster"));
    }
    Ok(Bpb {
        bps,
        spc,
        rsvd,
        nfats,
        root_ent,
        fat_sectors,
        total_sectors,
        fat32_layout,
        root_dir_sectors,
        first_data_sector,
        clusters,
    })
}

/// fatgen103 "FAT Type Determination": the cluster count alone decides.
fn fat_type(clusters: u64) -> (u32, &'static str) {
    if clusters < 4085 {
        (12, "fat12")
    } else if clusters < 65525 {
        (16, "fat16")
    } else {
        (32, "fat32")
    }
}

pub fn parse(dev: &mut Dev, head: &[u8]) -> Result<VolumeInfo, String> {
    let p = bpb(head)?;
    let f = Fields { b: head, fs: FS };
    let (bits, fs) = fat_type(p.clusters);
    let cluster_bytes = p.bps * p.spc;
    // The FAT must have an entry for every cluster (+2 reserved entries).
    let fat_bytes = bytes::mul(FS, "FAT size in bytes", p.fat_sectors, p.bps)?;
    let need_bits = (p.clusters + 2) * u64::from(bits);
    if fat_bytes.saturating_mul(8) < need_bits {
        return Err(format!(
            "{FS}: a FAT of {} sectors cannot map {} clusters at {bits} bits each",
            p.fat_sectors, p.clusters
        ));
    }
    if bits == 32 && (!p.fat32_layout || p.root_ent != 0) {
        return Err(format!(
            "{FS}: {} clusters make this FAT32, but the BPB has a FAT12/16 layout \
             (BPB_FATSz16 {}, BPB_RootEntCnt {})",
            p.clusters,
            if p.fat32_layout { 0 } else { p.fat_sectors },
            p.root_ent
        ));
    }
    let volume_bytes = bytes::mul(FS, "volume size", p.total_sectors, p.bps)?;

    let mut d = vec![
        kv(
            "FAT type",
            format!(
                "FAT{bits}: {} clusters ({})",
                p.clusters,
                match bits {
                    12 => "< 4085",
                    16 => "4085 .. 65524",
                    _ => ">= 65525",
                }
            ),
        ),
        kv("reserved sectors", p.rsvd),
        kv("FATs", p.nfats),
        kv("FAT size (sectors)", p.fat_sectors),
    ];
    if p.fat32_layout && bits != 32 {
        d.push(kv(
            "warning",
            format!(
                "FAT32 BPB layout with only {} clusters: fatgen103 makes this FAT{bits}, \
                 while Linux and Windows mount it as FAT32 (mkfs.fat -F 32 on a small volume)",
                p.clusters
            ),
        ));
    }
    // Extended BPB: at 36 for FAT12/16, at 64 for the FAT32 layout.
    let ext = if p.fat32_layout { 64 } else { 36 };
    let boot_sig = f.u8(ext + 2, "BS_BootSig")?;
    let serial = if boot_sig == 0x29 || boot_sig == 0x28 {
        let v = f.le32(ext + 3, "BS_VolID")?;
        Some(format!("{:04X}-{:04X}", v >> 16, v & 0xFFFF))
    } else {
        None
    };
    let bpb_label = if boot_sig == 0x29 {
        bytes::label(latin1(f.bytes(ext + 7, 11, "BS_VolLab")?)).filter(|l| l != "NO NAME")
    } else {
        None
    };
    if boot_sig == 0x29 {
        let t = latin1(f.bytes(ext + 18, 8, "BS_FilSysType")?);
        d.push(kv("BS_FilSysType (informational)", t.trim_end()));
    }
    d.push(kv(
        "OEM name",
        latin1(f.bytes(3, 8, "BS_OEMName")?).trim_end(),
    ));
    d.push(kv("media", format!("0x{:02X}", f.u8(21, "BPB_Media")?)));
    d.push(kv("hidden sectors", f.le32(28, "BPB_HiddSec")?));

    // The root directory: fixed region (FAT12/16 layout) or a cluster chain.
    let root = if p.fat32_layout {
        let rc = u64::from(f.le32(44, "BPB_RootClus")?);
        d.push(kv("root directory cluster", rc));
        if rc < 2 || rc > p.clusters + 1 {
            Err(format!(
                "BPB_RootClus {rc} is outside 2..={}",
                p.clusters + 1
            ))
        } else {
            let sector = p.first_data_sector + (rc - 2) * p.spc;
            Ok((sector * p.bps, cluster_bytes))
        }
    } else {
        d.push(kv("root entries", p.root_ent));
        Ok(((p.rsvd + p.nfats * p.fat_sectors) * p.bps, p.root_ent * 32))
    };
    let dir_label = match root {
        Ok((off, len)) => match dev.read(off, len.min(64 << 10) as usize) {
            Ok(buf) => root_label(&buf),
            Err(e) => {
                d.push(kv("root directory", format!("unreadable: {e}")));
                None
            }
        },
        Err(e) => {
            d.push(kv("root directory", e));
            None
        }
    };
    if let (Some(a), Some(b)) = (&dir_label, &bpb_label) {
        if a != b {
            d.push(kv("boot sector label", b));
        }
    }
    let label = dir_label.or(bpb_label);

    // Free clusters: FAT32 keeps a hint in FSInfo; FAT12/16 FATs are small
    // enough (< 128 KiB) to count.
    let free = if p.fat32_layout {
        fsinfo_free(dev, &f, &p, &mut d)
    } else {
        count_fat(dev, &p, bits, &mut d)
    };
    Ok(VolumeInfo {
        fs: fs.to_string(),
        cluster_bytes,
        sector_bytes: p.bps,
        volume_bytes,
        label,
        uuid: serial,
        total_clusters: Some(p.clusters),
        free_bytes: free.map(|n| n * cluster_bytes),
        used_bytes: free.map(|n| (p.clusters - n) * cluster_bytes),
        details: d,
    })
}

/// fatgen103 "FAT32 FSInfo Sector Structure": the free count is a hint,
/// 0xFFFFFFFF when unknown; only trusted when plausible.
fn fsinfo_free(dev: &mut Dev, f: &Fields, p: &Bpb, d: &mut Vec<(String, String)>) -> Option<u64> {
    let sector = u64::from(f.le16(48, "BPB_FSInfo").ok()?);
    if sector == 0 || sector == 0xFFFF || sector >= p.rsvd {
        d.push(kv("FSInfo", format!("none (BPB_FSInfo {sector})")));
        return None;
    }
    let fsi = match dev.exact(sector * p.bps, 512, "FSInfo sector") {
        Ok(b) => b,
        Err(e) => {
            d.push(kv("FSInfo", e));
            return None;
        }
    };
    let lead = bytes::le32(&fsi, 0);
    let struc = bytes::le32(&fsi, 484);
    let trail = bytes::le32(&fsi, 508);
    if lead != Some(0x4161_5252) || struc != Some(0x6141_7272) || trail != Some(0xAA55_0000) {
        d.push(kv("FSInfo", "signatures invalid; free count unknown"));
        return None;
    }
    let free = u64::from(bytes::le32(&fsi, 488)?);
    let next = bytes::le32(&fsi, 492)?;
    d.push(kv("FSInfo next free", format!("0x{next:X}")));
    if free == 0xFFFF_FFFF {
        d.push(kv("FSInfo free count", "unknown (0xFFFFFFFF)"));
        None
    } else if free > p.clusters {
        d.push(kv(
            "FSInfo free count",
            format!("{free} exceeds the cluster count; ignored"),
        ));
        None
    } else {
        d.push(kv("FSInfo free count", free));
        Some(free)
    }
}

/// Count free (zero) entries in the first FAT of a FAT12/16 volume.
fn count_fat(dev: &mut Dev, p: &Bpb, bits: u32, d: &mut Vec<(String, String)>) -> Option<u64> {
    let entries = p.clusters + 2;
    let len = match bits {
        12 => (entries * 3).div_ceil(2),
        16 => entries * 2,
        _ => return None,
    };
    let fat = match dev.exact(p.rsvd * p.bps, len as usize, "first FAT") {
        Ok(b) => b,
        Err(e) => {
            d.push(kv("free clusters", format!("not counted: {e}")));
            return None;
        }
    };
    let free = (2..entries)
        .filter(|&c| {
            let v = if bits == 16 {
                bytes::le16(&fat, (c * 2) as usize).unwrap_or(1)
            } else {
                let o = (c + c / 2) as usize;
                let w = bytes::le16(&fat, o).unwrap_or(1);
                if c % 2 == 0 {
                    w & 0x0FFF
                } else {
                    w >> 4
                }
            };
            v == 0
        })
        .count() as u64;
    d.push(kv("free clusters (counted in FAT 1)", free));
    Some(free)
}

/// The volume-label entry (ATTR_VOLUME_ID, not a long-name entry) of a
/// root directory: what Windows and blkid show as the label.
fn root_label(dir: &[u8]) -> Option<String> {
    for e in dir.chunks_exact(32) {
        match e[0] {
            0x00 => break,
            0xE5 => continue,
            _ => {}
        }
        let attr = e[11];
        if attr & 0x3F == 0x0F {
            continue; // long-name entry
        }
        if attr & 0x08 != 0 && attr & 0x10 == 0 {
            let mut name = e[..11].to_vec();
            if name[0] == 0x05 {
                name[0] = 0xE5;
            }
            return bytes::label(latin1(&name));
        }
    }
    None
}

/// OEM code page text, read as Latin-1 (exact for ASCII labels).
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal FAT16 boot sector: 512-byte sectors, 4 per cluster.
    pub fn fat16_sector() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0..3].copy_from_slice(&[0xEB, 0x3C, 0x90]);
        b[3..11].copy_from_slice(b"mkfs.fat");
        b[11..13].copy_from_slice(&512u16.to_le_bytes());
        b[13] = 4;
        b[14..16].copy_from_slice(&4u16.to_le_bytes());
        b[16] = 2;
        b[17..19].copy_from_slice(&512u16.to_le_bytes());
        b[19..21].copy_from_slice(&0u16.to_le_bytes());
        b[21] = 0xF8;
        b[22..24].copy_from_slice(&128u16.to_le_bytes());
        b[32..36].copy_from_slice(&131072u32.to_le_bytes());
        b[38] = 0x29;
        b[39..43].copy_from_slice(&0x1A2B_3C4Du32.to_le_bytes());
        b[43..54].copy_from_slice(b"HELLO      ");
        b[54..62].copy_from_slice(b"FAT16   ");
        b[510] = 0x55;
        b[511] = 0xAA;
        b
    }

    #[test]
    fn type_by_cluster_count() {
        assert_eq!(fat_type(4084).1, "fat12");
        assert_eq!(fat_type(4085).1, "fat16");
        assert_eq!(fat_type(65524).1, "fat16");
        assert_eq!(fat_type(65525).1, "fat32");
    }

    #[test]
    fn parses_a_synthetic_fat16() {
        let mut img = fat16_sector();
        img.resize(1 << 20, 0);
        let mut r = bytes::slice_reader(&img);
        let head = img[..4096].to_vec();
        let v = parse(&mut Dev::new(&mut r), &head).unwrap();
        assert_eq!(v.fs, "fat16");
        assert_eq!(v.cluster_bytes, 2048);
        assert_eq!(v.volume_bytes, 131072 * 512);
        assert_eq!(v.uuid.as_deref(), Some("1A2B-3C4D"));
        assert_eq!(v.label.as_deref(), Some("HELLO"));
    }

    #[test]
    fn bad_bpb_fields_are_named() {
        let cases: [(usize, &[u8], &str); 5] = [
            (11, &[0x00, 0x03], "BPB_BytsPerSec"),
            (13, &[3], "BPB_SecPerClus"),
            (14, &[0, 0], "BPB_RsvdSecCnt"),
            (16, &[0], "BPB_NumFATs"),
            (22, &[0xFF, 0xFF], "leave no data region"),
        ];
        for (off, val, want) in cases {
            let mut b = fat16_sector();
            b[off..off + val.len()].copy_from_slice(val);
            let mut r = bytes::slice_reader(&b);
            let e = parse(&mut Dev::new(&mut r), &b.clone()).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
