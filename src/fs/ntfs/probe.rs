//! NTFS boot sector, the $Volume MFT record (label, version) and a free
//! cluster count from $Bitmap.
//!
//! Sources: ntfs-3g include/ntfs-3g/layout.h (NTFS_BOOT_SECTOR, MFT_RECORD,
//! ATTR_RECORD, VOLUME_INFORMATION) and libntfs-3g/bootsect.c (the
//! sectors-per-cluster and clusters-per-MFT-record encodings); Linux
//! fs/ntfs3/ntfs.h and fs/ntfs3/fsntfs.c (update sequence fixups).

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{signature, Magic, Signature, VolumeInfo};

const FS: &str = "ntfs";

/// The OEM ID in the boot sector.
const MAGICS: &[Magic] = &[Magic::at(3, b"NTFS    ")];

pub const SIGNATURE: Signature = Signature {
    order: 20,
    weak: false,
    magics: MAGICS,
    parse: |dev, head, _opts| Some(parse(dev, head)),
    boot_sector: Some(|b| signature::any_in(MAGICS, b)),
    damaged: None,
};
/// Count $Bitmap only up to this size (a 2 TiB volume of 4 KiB clusters).
const MAX_BITMAP: u64 = 64 << 20;
/// MFT record numbers of the system files used here.
const MFT_VOLUME: u64 = 3;
const MFT_BITMAP: u64 = 6;

struct Geo {
    #[allow(dead_code)] // part of the geometry; only the tests look at it
    sector: u64,
    cluster: u64,
    clusters: u64,
    mft_offset: u64,
    record: u64,
}

pub fn parse(dev: &mut Dev, head: &[u8]) -> Result<VolumeInfo, ProbeError> {
    Fields::need(head, 512, FS, "boot sector")?;
    let f = Fields { b: head, fs: FS };
    let (sector, cluster) = cluster_size(&f)?;
    zero_fat_fields(&f)?;
    let x = extent(&f, sector, cluster)?;
    let (volume_bytes, clusters) = (x.volume_bytes, x.clusters);
    let serial = f.le64(0x48, "volume_serial_number")?;
    let g = Geo {
        sector,
        cluster,
        clusters,
        mft_offset: x.mft_lcn * cluster,
        record: x.record,
    };
    let mut d = vec![
        kv("MFT record size", x.record),
        kv("index record size", x.index),
        kv("MFT cluster", x.mft_lcn),
        kv("MFT mirror cluster", x.mftmirr_lcn),
        kv(
            "backup boot sector",
            "in the sector after number_of_sectors (not counted in the volume size)",
        ),
    ];
    let (label, label_error) = volume_record(dev, &g, &mut d);
    let free = free_clusters(dev, &g, &mut d);
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes: cluster,
        sector_bytes: sector,
        volume_bytes,
        label,
        uuid: Some(format!("{serial:016X}")),
        total_clusters: Some(clusters),
        free_bytes: free.map(|n| n * cluster),
        used_bytes: free.map(|n| (clusters - n) * cluster),
        details: d,
        label_error,
        // Clusters (blocks) count from the volume's start.
        data_offset_bytes: Some(0),
        ..Default::default()
    })
}

/// (bytes per sector, bytes per cluster), checked.
fn cluster_size(f: &Fields) -> Result<(u64, u64), ProbeError> {
    if f.le16(510, "end-of-sector marker")? != 0xAA55 {
        return Err(corrupt!("{FS}: end-of-sector marker at 510 is not 0x55AA"));
    }
    let sector = u64::from(f.le16(0x0B, "bytes_per_sector")?);
    if !sector.is_power_of_two() || !(256..=4096).contains(&sector) {
        return Err(corrupt!(
            "{FS}: bytes_per_sector is {sector}, not a power of two 256..4096"
        ));
    }
    // bootsect.c: 1..128 sectors, or 240..253 meaning 2^(256 - n) sectors
    // (clusters above 64 KiB).
    let spc_raw = f.u8(0x0D, "sectors_per_cluster")?;
    let spc: u64 = match spc_raw {
        1..=128 if spc_raw.is_power_of_two() => u64::from(spc_raw),
        240..=253 => 1u64 << (256 - u32::from(spc_raw)),
        _ => {
            return Err(corrupt!(
                "{FS}: sectors_per_cluster byte is {spc_raw} (0x{spc_raw:02X}): \
                 neither a power of two 1..128 nor a 2^-n encoding 0xF0..0xFD"
            ))
        }
    };
    let cluster = sector * spc;
    if cluster > 2 << 20 {
        return Err(corrupt!(
            "{FS}: cluster size {cluster} bytes exceeds the 2 MiB maximum"
        ));
    }
    Ok((sector, cluster))
}

fn zero_fat_fields(f: &Fields) -> Result<(), ProbeError> {
    // The FAT fields an NTFS boot sector must leave zero.
    let zero_fields = [
        (0x0E, 2, "reserved_sectors"),
        (0x10, 1, "fats"),
        (0x11, 2, "root_entries"),
        (0x13, 2, "sectors"),
        (0x16, 2, "sectors_per_fat"),
        (0x20, 4, "large_sectors"),
    ];
    for (off, len, name) in zero_fields {
        if f.bytes(off, len, name)?.iter().any(|&x| x != 0) {
            return Err(corrupt!("{FS}: BPB field {name} is not zero"));
        }
    }
    Ok(())
}

/// The volume's size and where the MFT is, checked.
struct Extent {
    volume_bytes: u64,
    clusters: u64,
    mft_lcn: u64,
    mftmirr_lcn: u64,
    record: u64,
    index: u64,
}

fn extent(f: &Fields, sector: u64, cluster: u64) -> Result<Extent, ProbeError> {
    let spc = cluster / sector;
    let total_sectors = f.le64(0x28, "number_of_sectors")?;
    if total_sectors == 0 {
        return Err(corrupt!("{FS}: number_of_sectors is 0"));
    }
    let volume_bytes = bytes::mul(
        FS,
        "number_of_sectors × bytes_per_sector",
        total_sectors,
        sector,
    )?;
    let clusters = total_sectors / spc;
    if clusters == 0 {
        return Err(corrupt!("{FS}: the volume holds no whole cluster"));
    }
    let mft_lcn = f.le64(0x30, "mft_lcn")?;
    let mftmirr_lcn = f.le64(0x38, "mftmirr_lcn")?;
    if mft_lcn >= clusters {
        return Err(corrupt!(
            "{FS}: mft_lcn {mft_lcn} is beyond the volume's {clusters} clusters"
        ));
    }
    if mftmirr_lcn >= clusters {
        return Err(corrupt!(
            "{FS}: mftmirr_lcn {mftmirr_lcn} is beyond the volume's {clusters} clusters"
        ));
    }
    let record = record_size(f.u8(0x40, "clusters_per_mft_record")?, cluster)
        .map_err(|e| corrupt!("{FS}: clusters_per_mft_record {e}"))?;
    let index = record_size(f.u8(0x44, "clusters_per_index_record")?, cluster)
        .map_err(|e| corrupt!("{FS}: clusters_per_index_record {e}"))?;
    Ok(Extent {
        volume_bytes,
        clusters,
        mft_lcn,
        mftmirr_lcn,
        record,
        index,
    })
}

/// The label and version from $Volume, or why they are unknown.
fn volume_record(
    dev: &mut Dev,
    g: &Geo,
    d: &mut Vec<(String, String)>,
) -> (Option<String>, Option<String>) {
    let mut label = None;
    let mut label_error = None;
    match read_record(dev, g, MFT_VOLUME) {
        Ok(rec) => {
            if let Some(v) = resident_value(&rec, 0x60) {
                label = bytes::label(bytes::utf16le(v));
            }
            // VOLUME_INFORMATION: major 8, minor 9, flags 10 (0x0001 dirty).
            if let Some(v) = resident_value(&rec, 0x70) {
                if let (Some(&maj), Some(&min), Some(fl)) = (v.get(8), v.get(9), bytes::le16(v, 10))
                {
                    d.push(kv("NTFS version", format!("{maj}.{min}")));
                    if fl & 1 != 0 {
                        d.push(kv("volume flags", format!("0x{fl:04X} (dirty)")));
                    }
                }
            }
        }
        Err(e) => {
            d.push(kv("$Volume", format!("unreadable: {e}")));
            label_error = Some(format!("$Volume could not be read: {e}"));
        }
    }
    (label, label_error)
}

/// Free clusters counted in $Bitmap, noted in the details.
fn free_clusters(dev: &mut Dev, g: &Geo, d: &mut Vec<(String, String)>) -> Option<u64> {
    match count_bitmap(dev, g) {
        Ok(n) => {
            d.push(kv("free clusters (counted in $Bitmap)", n));
            Some(n)
        }
        Err(e) => {
            d.push(kv("free clusters", format!("not counted: {e}")));
            None
        }
    }
}

/// layout.h: a positive value counts clusters, a negative one (as i8) means
/// 2^-n bytes.
fn record_size(raw: u8, cluster: u64) -> Result<u64, ProbeError> {
    let v = raw as i8;
    let size = if v > 0 {
        cluster
            .checked_mul(v as u64)
            .ok_or_else(|| corrupt!("{v} overflows"))?
    } else {
        let shift = u32::from(v.unsigned_abs());
        if !(8..=16).contains(&shift) {
            return Err(corrupt!(
                "is {raw} (0x{raw:02X}): 2^{shift} bytes is not 256..64 KiB"
            ));
        }
        1u64 << shift
    };
    if !size.is_power_of_two() || !(256..=(64 << 10)).contains(&size) {
        return Err(corrupt!(
            "gives {size} bytes, not a power of two 256..64 KiB"
        ));
    }
    Ok(size)
}

/// MFT record `n`, with the update sequence fixups applied. The first 16
/// records lie in the MFT's first extent, right at mft_lcn.
fn read_record(dev: &mut Dev, g: &Geo, n: u64) -> Result<Vec<u8>, ProbeError> {
    let off = g
        .mft_offset
        .checked_add(n * g.record)
        .ok_or(corrupt!("MFT record offset overflows"))?;
    let mut rec = dev.exact(off, g.record as usize, "MFT record")?;
    if !bytes::has(&rec, 0, b"FILE") {
        return Err(corrupt!("MFT record {n} has no FILE signature"));
    }
    let usa_ofs = usize::from(bytes::le16(&rec, 4).unwrap_or(0));
    let usa_count = usize::from(bytes::le16(&rec, 6).unwrap_or(0));
    // One fixup per 512-byte stride (NTFS_BLOCK_SIZE), plus the USN itself.
    let strides = rec.len() / 512;
    if usa_count != strides + 1 || usa_ofs < 0x28 || usa_ofs + 2 * usa_count > rec.len() {
        return Err(corrupt!(
            "MFT record {n}: update sequence array (offset {usa_ofs}, count {usa_count}) is invalid"
        ));
    }
    let usn = [rec[usa_ofs], rec[usa_ofs + 1]];
    for i in 1..usa_count {
        let end = i * 512 - 2;
        if rec[end..end + 2] != usn {
            return Err(corrupt!(
                "MFT record {n}: update sequence mismatch in stride {i} (torn write)"
            ));
        }
        let fix = usa_ofs + 2 * i;
        rec[end] = rec[fix];
        rec[end + 1] = rec[fix + 1];
    }
    Ok(rec)
}

/// Attribute records of an MFT record: (type, non_resident, name_len, bytes).
fn attributes(rec: &[u8]) -> impl Iterator<Item = (u32, bool, u8, &[u8])> {
    let in_use = bytes::le32(rec, 24)
        .map_or(0, |v| v as usize)
        .min(rec.len());
    let mut pos = bytes::le16(rec, 20).map_or(usize::MAX, usize::from);
    std::iter::from_fn(move || {
        let ty = bytes::le32(rec, pos)?;
        if ty == 0xFFFF_FFFF {
            return None;
        }
        let len = bytes::le32(rec, pos + 4)? as usize;
        if len < 24 || pos.checked_add(len)? > in_use {
            return None;
        }
        let a = &rec[pos..pos + len];
        pos += len;
        Some((ty, a[8] != 0, a[9], a))
    })
}

/// The value of the first resident, unnamed attribute of type `ty`.
fn resident_value(rec: &[u8], ty: u32) -> Option<&[u8]> {
    let (_, _, _, a) = attributes(rec).find(|&(t, nr, name, _)| t == ty && !nr && name == 0)?;
    let len = bytes::le32(a, 16)? as usize;
    let off = usize::from(bytes::le16(a, 20)?);
    a.get(off..off.checked_add(len)?)
}

/// Free clusters: zero bits of $Bitmap's unnamed non-resident $DATA, read
/// run by run from its mapping pairs.
fn count_bitmap(dev: &mut Dev, g: &Geo) -> Result<u64, ProbeError> {
    let rec = read_record(dev, g, MFT_BITMAP)?;
    let (_, _, _, a) = attributes(&rec)
        .find(|&(t, nr, name, _)| t == 0x80 && nr && name == 0)
        .ok_or(corrupt!(
            "$Bitmap has no non-resident $DATA attribute in its base record"
        ))?;
    let need = g.clusters.div_ceil(8);
    if need > MAX_BITMAP {
        return Err(corrupt!(
            "$Bitmap of {need} bytes is too large to count cheaply"
        ));
    }
    let data_size = bytes::le64(a, 48).ok_or(corrupt!("$DATA header truncated"))?;
    if data_size < need {
        return Err(corrupt!(
            "$Bitmap data size {data_size} is smaller than clusters / 8 ({need})"
        ));
    }
    let runs = runlist(a)?;
    let mut done = 0u64;
    let mut free = 0u64;
    for (lcn, len) in runs {
        let lcn = lcn.ok_or(corrupt!("$Bitmap has a sparse run"))?;
        let run_bytes = len
            .checked_mul(g.cluster)
            .ok_or(corrupt!("run length overflows"))?;
        let start = lcn
            .checked_mul(g.cluster)
            .ok_or(corrupt!("run offset overflows"))?;
        let mut inner = 0u64;
        while inner < run_bytes && done < need {
            let piece = (run_bytes - inner).min(need - done).min(1 << 20);
            let at = start
                .checked_add(inner)
                .ok_or(corrupt!("run offset overflows"))?;
            let buf = dev.exact(at, piece as usize, "$Bitmap")?;
            free += bytes::zero_bits(&buf, (g.clusters - done * 8).min(piece * 8));
            inner += piece;
            done += piece;
        }
        if done >= need {
            return Ok(free);
        }
    }
    Err(corrupt!("$Bitmap runs end before covering every cluster"))
}

/// Decode mapping pairs: (lcn, clusters) per run, lcn `None` for sparse runs.
fn runlist(a: &[u8]) -> Result<Vec<(Option<u64>, u64)>, ProbeError> {
    let mut pos = usize::from(bytes::le16(a, 32).ok_or(corrupt!("$DATA header truncated"))?);
    let mut lcn: i64 = 0;
    let mut runs = Vec::new();
    while let Some(&h) = a.get(pos) {
        if h == 0 {
            return Ok(runs);
        }
        if runs.len() >= 4096 {
            return Err(corrupt!("$Bitmap has more than 4096 runs"));
        }
        let (ln, on) = (usize::from(h & 0x0F), usize::from(h >> 4));
        if ln == 0 || ln > 8 || on > 8 {
            return Err(corrupt!("mapping pair header 0x{h:02X} is invalid"));
        }
        let body = a
            .get(pos + 1..pos + 1 + ln + on)
            .ok_or(corrupt!("mapping pairs run past the attribute"))?;
        let len = le_uint(&body[..ln]);
        if len == 0 || len > i64::MAX as u64 {
            return Err(corrupt!("run length {len} is invalid"));
        }
        if on == 0 {
            runs.push((None, len));
        } else {
            let delta = le_int(&body[ln..]);
            lcn = lcn
                .checked_add(delta)
                .ok_or(corrupt!("run offset overflows"))?;
            if lcn < 0 {
                return Err(corrupt!("run starts at negative cluster {lcn}"));
            }
            runs.push((Some(lcn as u64), len));
        }
        pos += 1 + ln + on;
    }
    Err(corrupt!("mapping pairs are not terminated"))
}

fn le_uint(b: &[u8]) -> u64 {
    b.iter()
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn le_int(b: &[u8]) -> i64 {
    let u = le_uint(b);
    let bits = 8 * b.len() as u32;
    if bits < 64 && u & (1 << (bits - 1)) != 0 {
        (u | (!0u64 << bits)) as i64
    } else {
        u as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_size_encodings() {
        assert_eq!(record_size(0xF6, 4096).unwrap(), 1024);
        assert_eq!(record_size(0xF4, 4096).unwrap(), 4096);
        assert_eq!(record_size(1, 4096).unwrap(), 4096);
        assert!(record_size(0x80, 4096).is_err());
        assert!(record_size(0x7F, 2 << 20).is_err());
    }

    #[test]
    fn mapping_pairs() {
        // 0x21: 1 length byte, 2 offset bytes: 0x18 clusters at 0x5634,
        // then 0x11: 0x10 clusters at -0x10 relative.
        let mut a = vec![0u8; 64];
        a[32] = 40;
        a[40..48].copy_from_slice(&[0x21, 0x18, 0x34, 0x56, 0x11, 0x10, 0xF0, 0x00]);
        let r = runlist(&a).unwrap();
        assert_eq!(r, vec![(Some(0x5634), 0x18), (Some(0x5624), 0x10)]);
        assert_eq!(le_int(&[0xFF]), -1);
        assert_eq!(le_int(&[0x00, 0x80]), -32768);
    }
}
