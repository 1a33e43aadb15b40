//! FAT12/16/32 boot sector (BPB), FSInfo and root-directory label.
//!
//! Source: Microsoft "FAT: General Overview of On-Disk Format" 1.03
//! (fatgen103): BPB layout, "FAT Type Determination" (by cluster count
//! only), "FAT32 FSInfo Sector Structure", "FAT Directory Structure".

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::codepage::CodePage;
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{signature, Magic, ProbeOptions, Signature, VolumeInfo};

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
pub fn bpb(b: &[u8]) -> Result<Bpb, ProbeError> {
    Fields::need(b, 512, FS, "boot sector")?;
    let f = Fields { b, fs: FS };
    // fatgen103 "Boot Sector and BPB": offsets 11..36 are common to all types.
    let bps = u64::from(f.le16(11, "BPB_BytsPerSec")?);
    if !matches!(bps, 512 | 1024 | 2048 | 4096) {
        return Err(corrupt!(
            "{FS}: BPB_BytsPerSec is {bps}, not 512, 1024, 2048 or 4096"
        ));
    }
    let spc = u64::from(f.u8(13, "BPB_SecPerClus")?);
    if spc == 0 || !spc.is_power_of_two() {
        return Err(corrupt!(
            "{FS}: BPB_SecPerClus is {spc}, not a power of two 1..128"
        ));
    }
    let rsvd = u64::from(f.le16(14, "BPB_RsvdSecCnt")?);
    if rsvd == 0 {
        return Err(corrupt!("{FS}: BPB_RsvdSecCnt is 0 (must be at least 1)"));
    }
    let nfats = u64::from(f.u8(16, "BPB_NumFATs")?);
    if nfats == 0 {
        return Err(corrupt!("{FS}: BPB_NumFATs is 0"));
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
        return Err(corrupt!("{FS}: BPB_FATSz16 and BPB_FATSz32 are both 0"));
    }
    let total_sectors = if tot16 != 0 { tot16 } else { tot32 };
    if total_sectors == 0 {
        return Err(corrupt!("{FS}: BPB_TotSec16 and BPB_TotSec32 are both 0"));
    }
    // RootDirSectors = ((RootEntCnt * 32) + (BytsPerSec - 1)) / BytsPerSec
    let root_dir_sectors = (root_ent * 32).div_ceil(bps);
    let fats = bytes::mul(FS, "NumFATs × FATSz", nfats, fat_sectors)?;
    let meta = bytes::add(FS, "reserved + FAT sectors", rsvd, fats)?;
    let first_data_sector = bytes::add(FS, "first data sector", meta, root_dir_sectors)?;
    if first_data_sector >= total_sectors {
        return Err(corrupt!(
            "{FS}: reserved sectors, FATs and root directory ({first_data_sector} sectors) \
             leave no data region in BPB_TotSec {total_sectors}"
        ));
    }
    let clusters = (total_sectors - first_data_sector) / spc;
    if clusters == 0 {
        return Err(corrupt!("{FS}: the data region holds no whole cluster"));
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

/// The type operating systems give a volume. A FAT32 BPB layout
/// (BPB_FATSz16 == 0) is FAT32 whatever its cluster count: Linux
/// (fs/fat/inode.c), Windows and libblkid all go by the layout there, and
/// mkfs.fat -F 32 makes such volumes on small media. Only FAT12 and FAT16
/// are told apart by the count.
fn os_type(p: &Bpb) -> (u32, &'static str) {
    if p.fat32_layout {
        (32, "fat32")
    } else {
        fat_type(p.clusters)
    }
}

pub fn parse(dev: &mut Dev, head: &[u8]) -> Result<VolumeInfo, ProbeError> {
    parse_with(dev, head, &ProbeOptions::default())
}

/// `parse`, decoding the label in `opts.codepage`.
pub fn parse_with(
    dev: &mut Dev,
    head: &[u8],
    opts: &ProbeOptions,
) -> Result<VolumeInfo, ProbeError> {
    let p = bpb(head)?;
    let f = Fields { b: head, fs: FS };
    let (bits, fs) = os_type(&p);
    let cluster_bytes = p.bps * p.spc;
    check_fat_size(&p, bits)?;
    let volume_bytes = bytes::mul(FS, "volume size", p.total_sectors, p.bps)?;
    let mut warnings = vec![];
    let mut d = type_details(&p, bits, &mut warnings);
    let cp = opts.codepage;
    let (serial, boot_label) = extended_bpb(&f, &p, cp, &mut d)?;
    let root = root_location(&f, &p, &mut d)?;
    let (label, label_bytes_hex, label_error) = root_label(dev, &p, root, cp, &mut d);
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
        label_bytes_hex,
        label_codepage: Some(cp.name()),
        boot_label,
        label_error,
        warnings,
        data_offset_bytes: Some(p.first_data_sector * p.bps),
        ..Default::default()
    })
}

/// The FAT must have an entry for every cluster, and the cluster count must
/// suit the BPB's layout.
fn check_fat_size(p: &Bpb, bits: u32) -> Result<(), ProbeError> {
    // +2 reserved entries.
    let fat_bytes = bytes::mul(FS, "FAT size in bytes", p.fat_sectors, p.bps)?;
    let need_bits = (p.clusters + 2) * u64::from(bits);
    if fat_bytes.saturating_mul(8) < need_bits {
        return Err(corrupt!(
            "{FS}: a FAT of {} sectors cannot map {} clusters at {bits} bits each",
            p.fat_sectors,
            p.clusters
        ));
    }
    if !p.fat32_layout && p.clusters >= 65525 {
        return Err(corrupt!(
            "{FS}: {} clusters make this FAT32, but the BPB has a FAT12/16 layout \
             (BPB_FATSz16 {}, BPB_RootEntCnt {})",
            p.clusters,
            p.fat_sectors,
            p.root_ent
        ));
    }
    if p.fat32_layout && p.clusters > 0x0FFF_FFF5 {
        return Err(corrupt!(
            "{FS}: {} clusters, more than FAT32's 268435445",
            p.clusters
        ));
    }
    Ok(())
}

/// The FAT type and sizes, and a warning where the type goes by layout.
fn type_details(p: &Bpb, bits: u32, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let (spec_bits, _) = fat_type(p.clusters);
    let d = vec![
        kv(
            "FAT type",
            format!(
                "FAT{bits}: {} clusters{}",
                p.clusters,
                if p.fat32_layout {
                    " (FAT32 BPB layout)".to_string()
                } else if bits == 12 {
                    " (< 4085)".to_string()
                } else {
                    " (4085 .. 65524)".to_string()
                }
            ),
        ),
        kv("reserved sectors", p.rsvd),
        kv("FATs", p.nfats),
        kv("FAT size (sectors)", p.fat_sectors),
    ];
    if spec_bits != bits {
        warnings.push(format!(
            "fat: FAT32 BPB layout with only {} clusters: by fatgen103's cluster-count rule \
             (FAT32 needs at least 65525) this is FAT{spec_bits}, yet Linux, Windows and blkid \
             mount and name it FAT32 (mkfs.fat -F 32 makes it on small media, with a warning); \
             some firmware and cameras follow the spec and will misread it",
            p.clusters
        ));
    }
    d
}

/// The extended BPB (at 36 for FAT12/16, at 64 for the FAT32 layout):
/// (serial, boot sector label), with the informational fields in `d`.
fn extended_bpb(
    f: &Fields,
    p: &Bpb,
    cp: &CodePage,
    d: &mut Vec<(String, String)>,
) -> Result<(Option<String>, Option<String>), ProbeError> {
    let ext = if p.fat32_layout { 64 } else { 36 };
    let boot_sig = f.u8(ext + 2, "BS_BootSig")?;
    let serial = if boot_sig == 0x29 || boot_sig == 0x28 {
        let v = f.le32(ext + 3, "BS_VolID")?;
        Some(format!("{:04X}-{:04X}", v >> 16, v & 0xFFFF))
    } else {
        None
    };
    let boot_label = if boot_sig == 0x29 {
        let raw = f.bytes(ext + 7, 11, "BS_VolLab")?;
        (raw != NO_NAME)
            .then(|| bytes::label(cp.decode(raw)))
            .flatten()
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

    Ok((serial, boot_label))
}

/// The root directory: fixed region (FAT12/16 layout) or a cluster chain
/// (or why BPB_RootClus cannot be one).
fn root_location(
    f: &Fields,
    p: &Bpb,
    d: &mut Vec<(String, String)>,
) -> Result<Result<Root, ProbeError>, ProbeError> {
    Ok(if p.fat32_layout {
        let rc = u64::from(f.le32(44, "BPB_RootClus")?);
        d.push(kv("root directory cluster", rc));
        if rc < 2 || rc > p.clusters + 1 {
            Err(corrupt!(
                "BPB_RootClus {rc} is outside 2..={}",
                p.clusters + 1
            ))
        } else {
            Ok(Root::Chain(rc))
        }
    } else {
        d.push(kv("root entries", p.root_ent));
        Ok(Root::Fixed {
            off: (p.rsvd + p.nfats * p.fat_sectors) * p.bps,
            len: p.root_ent * 32,
        })
    })
}

/// The label is the root directory's volume-label entry and nothing else
/// (what Windows, the Linux kernel and blkid show): when it is missing,
/// the volume has no label, whatever BS_VolLab still says. (label, its
/// bytes in hex, why it is unknown.)
fn root_label(
    dev: &mut Dev,
    p: &Bpb,
    root: Result<Root, ProbeError>,
    cp: &CodePage,
    d: &mut Vec<(String, String)>,
) -> (Option<String>, Option<String>, Option<String>) {
    let mut label_error = None;
    let dir_label = match root.and_then(|r| root_dir_label(dev, p, r)) {
        Ok(l) => l,
        Err(e) => {
            d.push(kv("root directory", format!("unreadable: {e}")));
            label_error = Some(format!("the root directory could not be read: {e}"));
            None
        }
    };
    let (label, label_bytes_hex) = match dir_label {
        Some(raw) => (
            bytes::label(cp.decode(&raw)),
            Some(raw.iter().map(|b| format!("{b:02x}")).collect::<String>()),
        ),
        None => (None, None),
    };

    (label, label_bytes_hex, label_error)
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

/// Where the root directory is.
enum Root {
    /// FAT12/16: a fixed region after the FATs.
    Fixed { off: u64, len: u64 },
    /// FAT32: a cluster chain from this cluster.
    Chain(u64),
}

/// Clusters of a FAT32 root directory followed looking for the label (as
/// libblkid's vfat.c does): Windows puts a label set on a used volume in
/// the first free entry, which may be clusters in.
const MAX_ROOT_CLUSTERS: u32 = 100;

/// The raw label of the root directory; an error when the directory ends
/// (file or device too short) before its end-of-directory mark or label.
fn root_dir_label(dev: &mut Dev, p: &Bpb, root: Root) -> Result<Option<Vec<u8>>, ProbeError> {
    let short = |got: usize, off: u64| {
        corrupt!("only {got} of its bytes at offset {off} are inside the file or device")
    };
    match root {
        Root::Fixed { off, len } => {
            let want = len.min(64 << 10) as usize;
            let buf = dev.read(off, want)?;
            match scan_dir(&buf) {
                Scan::Label(l) => Ok(Some(l)),
                Scan::End => Ok(None),
                Scan::More if buf.len() < want => Err(short(buf.len(), off)),
                Scan::More => Ok(None),
            }
        }
        Root::Chain(first) => {
            let cluster_bytes = p.bps * p.spc;
            let mut c = first;
            for _ in 0..MAX_ROOT_CLUSTERS {
                if c < 2 || c > p.clusters + 1 {
                    return Err(corrupt!(
                        "its cluster chain reaches cluster {c}, outside 2..={}",
                        p.clusters + 1
                    ));
                }
                let off = (p.first_data_sector + (c - 2) * p.spc) * p.bps;
                let buf = dev.read(off, cluster_bytes as usize)?;
                match scan_dir(&buf) {
                    Scan::Label(l) => return Ok(Some(l)),
                    Scan::End => return Ok(None),
                    Scan::More if (buf.len() as u64) < cluster_bytes => {
                        return Err(short(buf.len(), off))
                    }
                    Scan::More => {}
                }
                let e = dev.exact(p.rsvd * p.bps + c * 4, 4, "FAT entry of the root directory")?;
                let next = u64::from(bytes::le32(&e, 0).unwrap_or(0) & 0x0FFF_FFFF);
                if !(2..0x0FFF_FFF7).contains(&next) {
                    return Ok(None); // end of chain (or a free or bad mark: stop)
                }
                c = next;
            }
            Ok(None)
        }
    }
}

enum Scan {
    Label(Vec<u8>),
    /// The end-of-directory entry (first byte 0x00).
    End,
    /// Neither in this part of the directory.
    More,
}

/// The volume-label entry (ATTR_VOLUME_ID, not a long-name entry, no
/// first cluster) in directory entries: what Windows and blkid show as the
/// label. Its 11 bytes as stored, with a leading 0x05 (the escape for a
/// name starting with byte 0xE5) restored.
fn scan_dir(dir: &[u8]) -> Scan {
    for e in dir.chunks_exact(32) {
        match e[0] {
            0x00 => return Scan::End,
            0xE5 => continue,
            _ => {}
        }
        let attr = e[11];
        let cluster = bytes::le16(e, 20).unwrap_or(0) | bytes::le16(e, 26).unwrap_or(0);
        if attr & 0x3F == 0x0F || cluster != 0 {
            continue; // long-name entry, or a file
        }
        if attr & 0x08 != 0 && attr & 0x10 == 0 {
            let mut name = e[..11].to_vec();
            if name[0] == 0x05 {
                name[0] = 0xE5;
            }
            // A label entry reading "NO NAME" is a label (blkid and
            // Windows show it); only the boot sector's copy means none.
            if name.iter().all(|&c| c == b' ' || c == 0) {
                return Scan::End;
            }
            return Scan::Label(name);
        }
    }
    Scan::More
}

/// The signatures that make a sector worth parsing as FAT: 0x55AA at 510,
/// or a FAT type string where the extended BPB keeps it (BS_FilSysType at
/// 0x36 for FAT12/16, 0x52 for FAT32, or the OEM names old DOS wrote).
/// libblkid and the kernel take these as FAT even without the 0x55AA
/// boot signature, which some old and non-PC formatters leave out.
const MAGICS: &[Magic] = &[
    Magic::at(510, &[0x55, 0xAA]),
    Magic::at(0x36, b"FAT12   "),
    Magic::at(0x36, b"FAT16   "),
    Magic::at(0x36, b"FAT     "),
    Magic::at(0x52, b"FAT32   "),
    Magic::at(0x36, b"MSDOS"),
    Magic::at(0x52, b"MSWIN"),
];

/// Only the boot sector's 0x55AA (or a type string): weak, so probed
/// last. The BPB says which of FAT12/16/32 it is, so whichever of the
/// three registry entries probes first answers.
pub const SIGNATURE: Signature = Signature {
    order: 90,
    weak: true,
    magics: MAGICS,
    parse: |dev, head, opts| Some(parse_with(dev, head, opts)),
    boot_sector: Some(|b| bpb(b).is_ok()),
    damaged: Some(looks_damaged),
};

/// A FAT type string (the magics past 0x55AA).
fn has_type_string(head: &[u8]) -> bool {
    signature::any_in(&MAGICS[1..], head)
}

/// True when a boot sector that failed FAT's checks still looks like FAT
/// (a FAT type string, or a jump, a valid media byte and sector size), so
/// the failure is worth reporting as a FAT error: a damaged FAT volume,
/// not some other kind of volume.
fn looks_damaged(head: &[u8]) -> bool {
    if has_type_string(head) {
        return true;
    }
    let jump =
        head.first() == Some(&0xE9) || (head.first() == Some(&0xEB) && head.get(2) == Some(&0x90));
    let media = head.get(21).is_some_and(|&m| m == 0xF0 || m >= 0xF8);
    let bps = bytes::le16(head, 11).is_some_and(|b| matches!(b, 512 | 1024 | 2048 | 4096));
    jump && media && bps
}

/// What mkfs.fat and Windows write for "no label".
const NO_NAME: &[u8] = b"NO NAME    ";

/// OEM name and BS_FilSysType: informational ASCII, read as Latin-1.
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
        // Only the boot sector has a label: the volume has none.
        assert_eq!(v.label, None);
        assert_eq!(v.boot_label.as_deref(), Some("HELLO"));
        assert_eq!(v.label_error, None);
    }

    /// The synthetic FAT16 with `entry` (11 name bytes, attribute) as the
    /// first root-directory entry.
    fn with_root_entry(name: &[u8; 11], attr: u8) -> Vec<u8> {
        let mut img = fat16_sector();
        img.resize(1 << 20, 0);
        let root = (4 + 2 * 128) * 512;
        img[root..root + 11].copy_from_slice(name);
        img[root + 11] = attr;
        img
    }

    fn parse_cp(img: &[u8], cp: &str) -> VolumeInfo {
        let mut r = bytes::slice_reader(img);
        let opts = ProbeOptions {
            codepage: crate::fs::probe::codepage::by_name(cp).unwrap(),
        };
        parse_with(&mut Dev::new(&mut r), &img[..4096], &opts).unwrap()
    }

    #[test]
    fn root_directory_label_wins_and_erased_labels_stay_erased() {
        let v = parse_cp(&with_root_entry(b"NEWNAME    ", 0x08), "437");
        assert_eq!(v.label.as_deref(), Some("NEWNAME"));
        assert_eq!(v.boot_label.as_deref(), Some("HELLO"));
        assert_eq!(v.label_bytes_hex.as_deref(), Some("4e45574e414d4520202020"));
        // Windows erases a label by marking its entry deleted (0xE5).
        let v = parse_cp(&with_root_entry(b"\xE5EWNAME    ", 0x08), "437");
        assert_eq!((v.label, v.boot_label.as_deref()), (None, Some("HELLO")));
        // A file entry (attribute 0x20) is not a label; nor is a directory.
        assert_eq!(
            parse_cp(&with_root_entry(b"FILE    TXT", 0x20), "437").label,
            None
        );
        assert_eq!(
            parse_cp(&with_root_entry(b"DIR        ", 0x18), "437").label,
            None
        );
        // "NO NAME" set as the label (fatlabel, Windows) is a label, as
        // blkid shows it.
        assert_eq!(
            parse_cp(&with_root_entry(b"NO NAME    ", 0x08), "437")
                .label
                .as_deref(),
            Some("NO NAME")
        );
    }

    #[test]
    fn labels_decode_by_code_page_and_keep_their_bytes() {
        // "SØREN" as DOS in Denmark writes it (cp850/cp865: Ø is 0x9D).
        let img = with_root_entry(b"S\x9DREN      ", 0x08);
        let v = parse_cp(&img, "850");
        assert_eq!(v.label.as_deref(), Some("SØREN"));
        assert_eq!(v.label_codepage.as_deref(), Some("cp850"));
        assert_eq!(v.label_bytes_hex.as_deref(), Some("539d52454e202020202020"));
        // The same bytes in cp437 (the default) are "S¥REN".
        assert_eq!(parse_cp(&img, "437").label.as_deref(), Some("S¥REN"));
        // 0x05 stands for a leading 0xE5 ("σ" in cp437).
        let v = parse_cp(&with_root_entry(b"\x05IGMA      ", 0x08), "437");
        assert_eq!(v.label.as_deref(), Some("σIGMA"));
    }

    #[test]
    fn unreadable_root_directory_is_not_no_label() {
        let mut img = fat16_sector();
        img.resize(4096, 0); // cut before the root directory
        let mut r = bytes::slice_reader(&img);
        let v = parse(&mut Dev::new(&mut r), &img.clone()).unwrap();
        assert_eq!(v.label, None);
        assert!(
            v.label_error.as_deref().unwrap().contains("root directory"),
            "{v:#?}"
        );
    }

    #[test]
    fn fat32_label_found_clusters_into_the_root_directory() {
        let mut img = small_fat32();
        let (fat, data) = (32 * 512, 1040 * 512);
        // Cluster 2 (the root's first) full of files, chained to cluster 3.
        for i in 0..16 {
            let e = data + 32 * i;
            img[e..e + 11].copy_from_slice(b"FILE    TXT");
            img[e + 11] = 0x20;
            img[e + 26] = 9;
        }
        img[fat + 8..fat + 12].copy_from_slice(&3u32.to_le_bytes());
        img[fat + 12..fat + 16].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
        let e = data + 512;
        img[e..e + 11].copy_from_slice(b"LATER      ");
        img[e + 11] = 0x08;
        let v = {
            let mut r = bytes::slice_reader(&img);
            parse(&mut Dev::new(&mut r), &img[..512]).unwrap()
        };
        assert_eq!(v.label.as_deref(), Some("LATER"), "{v:#?}");
        // A chain that loops back on itself ends after a bounded walk.
        img[fat + 12..fat + 16].copy_from_slice(&2u32.to_le_bytes());
        img[e] = 0xE5;
        let mut r = bytes::slice_reader(&img);
        let v = parse(&mut Dev::new(&mut r), &img[..512]).unwrap();
        assert_eq!((v.label, v.label_error), (None, None));
    }

    /// mkfs.fat -F 32 on 32 MiB: 512-byte clusters, 64496 of them; two FATs
    /// of 504 sectors after 32 reserved; the root directory in cluster 2.
    fn small_fat32() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0..3].copy_from_slice(&[0xEB, 0x58, 0x90]);
        b[11..13].copy_from_slice(&512u16.to_le_bytes());
        b[13] = 1;
        b[14..16].copy_from_slice(&32u16.to_le_bytes());
        b[16] = 2;
        b[21] = 0xF8;
        b[32..36].copy_from_slice(&65536u32.to_le_bytes());
        b[36..40].copy_from_slice(&504u32.to_le_bytes());
        b[44..48].copy_from_slice(&2u32.to_le_bytes());
        b[66] = 0x29;
        b[71..82].copy_from_slice(b"SMALL32    ");
        b[510] = 0x55;
        b[511] = 0xAA;
        b.resize(32 << 20, 0);
        b
    }

    #[test]
    fn fat32_layout_with_few_clusters_is_fat32_with_a_warning() {
        let img = small_fat32();
        let b = img[..512].to_vec();
        let mut r = bytes::slice_reader(&img);
        let v = parse(&mut Dev::new(&mut r), &b).unwrap();
        assert_eq!(v.fs, "fat32", "{v:#?}");
        assert_eq!(v.total_clusters, Some(65536 - 32 - 2 * 504));
        assert!(v.warnings.iter().any(|w| w.contains("FAT16")), "{v:#?}");
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
            let e = parse(&mut Dev::new(&mut r), &b.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
        }
    }
}
