//! exFAT main boot sector, boot checksum, root directory (volume label,
//! allocation bitmap) and a free-cluster count from the bitmap.
//!
//! Source: Microsoft "exFAT file system specification"
//! (learn.microsoft.com/windows/win32/fileio/exfat-specification):
//! §3.1 Main Boot Sector, §3.4 Main and Backup Boot Checksum Sub-regions,
//! §4 FAT, §7.1 Allocation Bitmap and §7.3 Volume Label directory entries.

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{signature, Magic, Signature, VolumeInfo};

const FS: &str = "exfat";

/// The file system name in the main boot sector (§3.1.2).
const MAGICS: &[Magic] = &[Magic::at(3, b"EXFAT   ")];

pub const SIGNATURE: Signature = Signature {
    order: 10,
    weak: false,
    magics: MAGICS,
    parse: |dev, head, _opts| Some(parse(dev, head)),
    boot_sector: Some(|b| signature::any_in(MAGICS, b)),
    damaged: None,
};
/// Count the allocation bitmap only when it is at most this big (a 2 TiB
/// volume of 4 KiB clusters); past that, say "not counted".
const MAX_BITMAP: u64 = 64 << 20;

struct Geo {
    bps_shift: u32,
    spc_shift: u32,
    fat_offset: u64,
    heap_offset: u64,
    clusters: u64,
}

impl Geo {
    fn cluster_bytes(&self) -> u64 {
        1u64 << (self.bps_shift + self.spc_shift)
    }
    /// Byte offset of cluster `c` (2-based) in the cluster heap.
    fn cluster_offset(&self, c: u64) -> Option<u64> {
        if c < 2 || c > self.clusters + 1 {
            return None;
        }
        let sector = self
            .heap_offset
            .checked_add((c - 2).checked_shl(self.spc_shift)?)?;
        sector.checked_shl(self.bps_shift)
    }
}

pub fn parse(dev: &mut Dev, head: &[u8]) -> Result<VolumeInfo, ProbeError> {
    Fields::need(head, 512, FS, "main boot sector")?;
    let f = Fields { b: head, fs: FS };
    validate(&f)?;
    let (bps_shift, spc_shift, volume_length, volume_bytes) = sizes(&f)?;
    let l = layout(&f, bps_shift, spc_shift, volume_length)?;
    let (fat_offset, heap_offset, clusters, root) =
        (l.fat_offset, l.heap_offset, l.clusters, l.root);
    let serial = f.le32(100, "VolumeSerialNumber")?;
    let g = Geo {
        bps_shift,
        spc_shift,
        fat_offset,
        heap_offset,
        clusters,
    };
    let cluster_bytes = g.cluster_bytes();
    let sector = 1u64 << bps_shift;
    let mut d = details(&f, &l)?;
    check_boot_checksum(dev, sector, &mut d)?;
    let mut warnings = vec![];
    if volume_bytes < 1 << 20 {
        warnings.push(format!(
            "exfat: the volume is {volume_bytes} bytes, under the specification's 1 MiB \
             minimum (Windows makes and mounts such volumes; some other drivers may refuse them)"
        ));
    }
    let (label, label_error, free) = label_and_free(dev, &g, root, &mut d);
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes,
        sector_bytes: sector,
        volume_bytes,
        label,
        uuid: Some(format!("{:04X}-{:04X}", serial >> 16, serial & 0xFFFF)),
        total_clusters: Some(clusters),
        free_bytes: free.map(|n| n * cluster_bytes),
        used_bytes: free.map(|n| (clusters - n) * cluster_bytes),
        details: d,
        label_error,
        warnings,
        data_offset_bytes: Some(heap_offset * sector),
        ..Default::default()
    })
}

/// §3.1.3 and the boot signature.
fn validate(f: &Fields) -> Result<(), ProbeError> {
    // §3.1.3: MustBeZero covers the FAT BPB so FAT drivers do not mount it.
    if f.bytes(11, 53, "MustBeZero")?.iter().any(|&x| x != 0) {
        return Err(corrupt!(
            "{FS}: MustBeZero (bytes 11..64) is not zero: corrupt boot sector"
        ));
    }
    if f.le16(510, "BootSignature")? != 0xAA55 {
        return Err(corrupt!("{FS}: BootSignature at 510 is not 0xAA55"));
    }
    Ok(())
}

/// (BytesPerSectorShift, SectorsPerClusterShift, VolumeLength, the volume
/// in bytes), checked.
fn sizes(f: &Fields) -> Result<(u32, u32, u64, u64), ProbeError> {
    let bps_shift = u32::from(f.u8(108, "BytesPerSectorShift")?);
    if !(9..=12).contains(&bps_shift) {
        return Err(corrupt!(
            "{FS}: BytesPerSectorShift is {bps_shift}, not 9..12 (512..4096-byte sectors)"
        ));
    }
    let spc_shift = u32::from(f.u8(109, "SectorsPerClusterShift")?);
    if spc_shift > 25 - bps_shift {
        return Err(corrupt!(
            "{FS}: SectorsPerClusterShift is {spc_shift}, more than 25 - BytesPerSectorShift \
             ({}): clusters would exceed 32 MiB",
            25 - bps_shift
        ));
    }
    let volume_length = f.le64(72, "VolumeLength")?;
    // §3.1.5 asks for at least 1 MiB, but Windows formats smaller volumes
    // and mounts them: accept any length that leaves room for the boot
    // regions, and warn below.
    if volume_length < 24 {
        return Err(corrupt!(
            "{FS}: VolumeLength is {volume_length} sectors, too short for the two boot regions (24)"
        ));
    }
    let volume_bytes = volume_length
        .checked_shl(bps_shift)
        .filter(|v| v >> bps_shift == volume_length)
        .ok_or_else(|| {
            corrupt!("{FS}: VolumeLength {volume_length} sectors overflows a byte count")
        })?;
    Ok((bps_shift, spc_shift, volume_length, volume_bytes))
}

/// Where the FATs, the cluster heap and the root directory are.
struct Layout {
    fat_offset: u64,
    fat_length: u64,
    nfats: u64,
    heap_offset: u64,
    clusters: u64,
    root: u64,
}

fn layout(
    f: &Fields,
    bps_shift: u32,
    spc_shift: u32,
    volume_length: u64,
) -> Result<Layout, ProbeError> {
    let sector = 1u64 << bps_shift;
    let fat_offset = u64::from(f.le32(80, "FatOffset")?);
    let fat_length = u64::from(f.le32(84, "FatLength")?);
    let heap_offset = u64::from(f.le32(88, "ClusterHeapOffset")?);
    let clusters = u64::from(f.le32(92, "ClusterCount")?);
    let root = u64::from(f.le32(96, "FirstClusterOfRootDirectory")?);
    let nfats = u64::from(f.u8(110, "NumberOfFats")?);
    if fat_offset < 24 {
        return Err(corrupt!(
            "{FS}: FatOffset is {fat_offset}, below the minimum 24"
        ));
    }
    if nfats != 1 && nfats != 2 {
        return Err(corrupt!("{FS}: NumberOfFats is {nfats}, not 1 or 2"));
    }
    if fat_length == 0 {
        return Err(corrupt!("{FS}: FatLength is 0"));
    }
    let fats_end = fat_offset + fat_length * nfats;
    if heap_offset < fats_end {
        return Err(corrupt!(
            "{FS}: ClusterHeapOffset {heap_offset} overlaps the FAT(s) ending at sector {fats_end}"
        ));
    }
    if heap_offset >= volume_length {
        return Err(corrupt!(
            "{FS}: ClusterHeapOffset {heap_offset} is beyond VolumeLength {volume_length}"
        ));
    }
    let fit = (volume_length - heap_offset) >> spc_shift;
    if clusters == 0 || clusters > fit || clusters > 0xFFFF_FFF5 {
        return Err(corrupt!(
            "{FS}: ClusterCount {clusters} does not fit the volume (at most {})",
            fit.min(0xFFFF_FFF5)
        ));
    }
    if fat_length.saturating_mul(sector) < (clusters + 2) * 4 {
        return Err(corrupt!(
            "{FS}: FatLength {fat_length} sectors cannot map {clusters} clusters"
        ));
    }
    if root < 2 || root > clusters + 1 {
        return Err(corrupt!(
            "{FS}: FirstClusterOfRootDirectory {root} is outside 2..={}",
            clusters + 1
        ));
    }
    Ok(Layout {
        fat_offset,
        fat_length,
        nfats,
        heap_offset,
        clusters,
        root,
    })
}

fn details(f: &Fields, l: &Layout) -> Result<Vec<(String, String)>, ProbeError> {
    let rev = f.le16(104, "FileSystemRevision")?;
    let flags = f.le16(106, "VolumeFlags")?;
    let pct = f.u8(112, "PercentInUse")?;
    let (fat_offset, fat_length, nfats, heap_offset, root) =
        (l.fat_offset, l.fat_length, l.nfats, l.heap_offset, l.root);
    Ok(vec![
        kv("revision", format!("{}.{:02}", rev >> 8, rev & 0xFF)),
        kv("FAT offset (sectors)", fat_offset),
        kv("FAT length (sectors)", fat_length),
        kv("FATs", nfats),
        kv("cluster heap offset (sectors)", heap_offset),
        kv("root directory cluster", root),
        kv(
            "volume flags",
            format!(
                "0x{flags:04X}{}",
                if flags & 0x2 != 0 { " (dirty)" } else { "" }
            ),
        ),
        kv(
            "PercentInUse",
            if pct == 0xFF {
                "not available".to_string()
            } else {
                format!("{pct} %")
            },
        ),
    ])
}

/// §3.4: sector 11 repeats a checksum of sectors 0..10.
fn check_boot_checksum(
    dev: &mut Dev,
    sector: u64,
    d: &mut Vec<(String, String)>,
) -> Result<(), ProbeError> {
    match boot_checksum(dev, sector) {
        Ok(true) => d.push(kv("boot checksum", "ok")),
        Ok(false) => {
            return Err(corrupt!(
                "{FS}: boot checksum (sector 11) does not match sectors 0..10: corrupt boot region"
            ))
        }
        Err(e) => d.push(kv("boot checksum", format!("not verified: {e}"))),
    }

    Ok(())
}

/// The label from the root directory, why it is unknown, and the free
/// clusters counted in the allocation bitmap.
fn label_and_free(
    dev: &mut Dev,
    g: &Geo,
    root: u64,
    d: &mut Vec<(String, String)>,
) -> (Option<String>, Option<String>, Option<u64>) {
    let mut label_error = None;
    let (label, bitmap) = match root_dir(dev, g, root) {
        Ok(r) => r,
        Err(e) => {
            d.push(kv("root directory", format!("unreadable: {e}")));
            label_error = Some(format!("the root directory could not be read: {e}"));
            (None, None)
        }
    };
    let free = match bitmap {
        Some((first, len)) => match count_bitmap(dev, g, first, len) {
            Ok(n) => {
                d.push(kv("free clusters (counted in the allocation bitmap)", n));
                Some(n)
            }
            Err(e) => {
                d.push(kv("free clusters", format!("not counted: {e}")));
                None
            }
        },
        None => None,
    };
    (label, label_error, free)
}

/// §3.4.1 BootChecksum over sectors 0..10, skipping VolumeFlags (106, 107)
/// and PercentInUse (112) of sector 0.
fn boot_checksum(dev: &mut Dev, sector: u64) -> Result<bool, ProbeError> {
    let len = (sector * 12) as usize;
    let region = dev.exact(0, len, "boot region")?;
    let body = (sector * 11) as usize;
    let mut sum: u32 = 0;
    for (i, &b) in region[..body].iter().enumerate() {
        if i == 106 || i == 107 || i == 112 {
            continue;
        }
        // The spec's UInt32 arithmetic wraps.
        sum = sum.rotate_right(1).wrapping_add(u32::from(b));
    }
    // Sector 11 is the checksum repeated.
    Ok(region[body..]
        .chunks_exact(4)
        .all(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) == sum))
}

/// Stop reading the root directory after this many bytes, as blkid does
/// (its EXFAT_MAX_DIR_SIZE): a damaged FAT cannot make the walk endless.
const MAX_ROOT_DIR: u64 = 256 << 20;

/// The label (§7.3, entry type 0x83) and the first allocation bitmap
/// (§7.1, entry type 0x81: FirstCluster at 20, DataLength at 24) from the
/// root directory, followed cluster by cluster through the FAT until the
/// end-of-directory entry. Windows leaves the label wherever it was first
/// written: on a volume with small clusters and many files it is several
/// clusters in, after the file entries (blkid walks the same way). A
/// volume has one label entry: the first is the label, also when it is
/// empty, as for blkid and tune.exfat.
#[allow(clippy::type_complexity)]
fn root_dir(
    dev: &mut Dev,
    g: &Geo,
    root: u64,
) -> Result<(Option<String>, Option<(u64, u64)>), ProbeError> {
    let mut label = None;
    let mut label_seen = false;
    let mut bitmap = None;
    let mut fat = FatCache::default();
    let mut cluster = root;
    let piece = g.cluster_bytes().min(64 << 10);
    let mut read = 0u64;
    while read < MAX_ROOT_DIR {
        let off = g
            .cluster_offset(cluster)
            .ok_or_else(|| corrupt!("root directory reaches invalid cluster {cluster}"))?;
        let mut inner = 0;
        while inner < g.cluster_bytes() {
            let dir = dev.exact(off + inner, piece as usize, "root directory")?;
            for e in dir.chunks_exact(32) {
                match e[0] {
                    0x00 => return Ok((label, bitmap)),
                    0x83 if !label_seen => {
                        label_seen = true;
                        let n = usize::from(e[1]).min(11);
                        label = bytes::label(bytes::utf16le(&e[2..2 + 2 * n]));
                    }
                    0x81 if bitmap.is_none() && e[1] & 1 == 0 => {
                        let first = u64::from(bytes::le32(e, 20).unwrap_or(0));
                        let len = bytes::le64(e, 24).unwrap_or(0);
                        bitmap = Some((first, len));
                    }
                    _ => {}
                }
            }
            inner += piece;
            read += piece;
        }
        // Once both are found, the rest of the directory cannot change them.
        if label_seen && bitmap.is_some() {
            break;
        }
        // End of chain (0xFFFFFFFF), a bad-cluster mark or an unreadable
        // FAT past the first cluster: keep what the clusters read gave.
        match fat.next(dev, g, cluster) {
            Ok(c) if (2..=g.clusters + 1).contains(&c) => cluster = c,
            _ => break,
        }
    }
    Ok((label, bitmap))
}

/// Zero bits among the first ClusterCount bits of the allocation bitmap,
/// following its cluster chain through the FAT, read in bounded pieces.
fn count_bitmap(dev: &mut Dev, g: &Geo, first: u64, len: u64) -> Result<u64, ProbeError> {
    let need = g.clusters.div_ceil(8);
    if len < need {
        return Err(corrupt!(
            "bitmap DataLength {len} is smaller than ClusterCount / 8 ({need})"
        ));
    }
    if need > MAX_BITMAP {
        return Err(corrupt!(
            "bitmap of {need} bytes is too large to count cheaply"
        ));
    }
    let cb = g.cluster_bytes();
    let mut fat = FatCache::default();
    let mut cluster = first;
    let mut done: u64 = 0; // bitmap bytes consumed
    let mut free: u64 = 0;
    let max_links = need.div_ceil(cb);
    for _ in 0..max_links {
        let off = g
            .cluster_offset(cluster)
            .ok_or_else(|| corrupt!("bitmap chain reaches invalid cluster {cluster}"))?;
        let mut inner = 0u64;
        while inner < cb && done < need {
            let piece = (cb - inner).min(need - done).min(1 << 20);
            let buf = dev.exact(off + inner, piece as usize, "allocation bitmap")?;
            let bits = (g.clusters - done * 8).min(piece * 8);
            free += bytes::zero_bits(&buf, bits);
            inner += piece;
            done += piece;
        }
        if done >= need {
            return Ok(free);
        }
        cluster = fat.next(dev, g, cluster)?;
    }
    Err(corrupt!("bitmap chain ends early"))
}

/// FAT entries, read 64 KiB at a time.
#[derive(Default)]
struct FatCache {
    base: u64,
    buf: Vec<u8>,
}

impl FatCache {
    fn next(&mut self, dev: &mut Dev, g: &Geo, c: u64) -> Result<u64, ProbeError> {
        let pos = (g.fat_offset << g.bps_shift) + c * 4;
        if pos < self.base || pos + 4 > self.base + self.buf.len() as u64 {
            self.base = pos;
            self.buf = dev.read(pos, 64 << 10)?;
        }
        let i = (pos - self.base) as usize;
        let v = bytes::le32(&self.buf, i).ok_or(corrupt!("FAT is truncated"))?;
        Ok(u64::from(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boot() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0..3].copy_from_slice(&[0xEB, 0x76, 0x90]);
        b[3..11].copy_from_slice(b"EXFAT   ");
        b[72..80].copy_from_slice(&(1u64 << 17).to_le_bytes()); // 64 MiB
        b[80..84].copy_from_slice(&128u32.to_le_bytes());
        b[84..88].copy_from_slice(&128u32.to_le_bytes());
        b[88..92].copy_from_slice(&512u32.to_le_bytes());
        b[92..96].copy_from_slice(&16000u32.to_le_bytes());
        b[96..100].copy_from_slice(&4u32.to_le_bytes());
        b[108] = 9;
        b[109] = 3;
        b[110] = 1;
        b[510] = 0x55;
        b[511] = 0xAA;
        b
    }

    fn run(b: &[u8]) -> Result<VolumeInfo, ProbeError> {
        let mut r = bytes::slice_reader(b);
        parse(&mut Dev::new(&mut r), b)
    }

    #[test]
    fn geometry_without_the_rest_of_the_volume() {
        let v = run(&boot()).unwrap();
        assert_eq!(v.cluster_bytes, 4096);
        assert_eq!(v.volume_bytes, 64 << 20);
        assert_eq!(v.total_clusters, Some(16000));
        assert_eq!(v.free_bytes, None);
    }

    #[test]
    fn boot_checksum_wraps_like_uint32() {
        let img = vec![0xFFu8; 512 * 12];
        let mut r = bytes::slice_reader(&img);
        assert_eq!(boot_checksum(&mut Dev::new(&mut r), 512), Ok(false));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut b = boot();
        b[109] = 40;
        assert!(run(&b)
            .unwrap_err()
            .to_string()
            .contains("SectorsPerClusterShift"));
        let mut b = boot();
        b[108] = 13;
        assert!(run(&b)
            .unwrap_err()
            .to_string()
            .contains("BytesPerSectorShift"));
        let mut b = boot();
        b[72..80].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(run(&b).unwrap_err().to_string().contains("VolumeLength"));
        let mut b = boot();
        b[92..96].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(run(&b).unwrap_err().to_string().contains("ClusterCount"));
        let mut b = boot();
        b[20] = 1;
        assert!(run(&b).unwrap_err().to_string().contains("MustBeZero"));
    }
}
