//! MBR (with extended/logical partitions) and GPT partition tables.
//!
//! Sources: UEFI Specification 2.10 §5.2 (legacy MBR, protective MBR type
//! 0xEE) and §5.3 (GPT header at LBA 1: "EFI PART", header CRC32 over
//! HeaderSize bytes with the CRC field zeroed, partition entry array and
//! its CRC32); util-linux libblkid/src/partitions/dos.c (boot indicator
//! must be 0x00 or 0x80; a FAT/NTFS/exFAT boot sector is not an MBR; EBR
//! chains).

use super::bytes::{self, Dev};
use super::{Partition, ReadAt};
use crate::fs::probe::{corrupt, ProbeError};

const MIB: u64 = 1 << 20;
/// Logical partitions followed in an extended partition's EBR chain.
const MAX_LOGICAL: u32 = 128;
/// GPT entry arrays larger than this are refused (the usual one is 16 KiB).
const MAX_GPT_ARRAY: u64 = 1 << 20;

/// Partition table (MBR and GPT) of a whole disk or image. Empty when
/// there is none: a "superfloppy" filesystem at offset 0, or a blank disk.
pub fn partitions(read_at: ReadAt) -> Result<Vec<Partition>, ProbeError> {
    partitions_dev(&mut Dev::new(read_at))
}

pub(super) fn partitions_dev(dev: &mut Dev) -> Result<Vec<Partition>, ProbeError> {
    let mbr = dev.read(0, 512)?;
    if mbr.len() < 512 || !bytes::has(&mbr, 510, &[0x55, 0xAA]) {
        return Ok(vec![]);
    }
    if is_boot_sector(&mbr) {
        return Ok(vec![]);
    }
    let entries: Vec<&[u8]> = (0..4).map(|i| &mbr[446 + 16 * i..462 + 16 * i]).collect();
    if entries.iter().any(|e| e[0] != 0 && e[0] != 0x80) {
        return Ok(vec![]); // not a partition table (dos.c: invalid boot indicator)
    }
    if entries.iter().any(|e| e[4] == 0xEE) {
        return gpt(dev);
    }
    let mut out = vec![];
    for (i, e) in entries.iter().enumerate() {
        let ty = e[4];
        let start = u64::from(bytes::le32(e, 8).unwrap_or(0));
        let len = u64::from(bytes::le32(e, 12).unwrap_or(0));
        if ty == 0 || len == 0 {
            continue;
        }
        if matches!(ty, 0x05 | 0x0F | 0x85) {
            logicals(dev, start, &mut out)?;
            continue;
        }
        out.push(part(i as u32 + 1, start * 512, len * 512, mbr_kind(ty)));
    }
    out.sort_by_key(|p| p.index);
    Ok(out)
}

/// A filesystem's boot sector (FAT, exFAT, NTFS) also ends in 0x55AA; its
/// signature or BPB gives it away (dos.c does the same check before
/// trusting the table). The registry knows which filesystems keep one.
fn is_boot_sector(b: &[u8]) -> bool {
    crate::fs::probe::signature::is_boot_sector(b)
}

fn part(index: u32, start: u64, size: u64, kind: String) -> Partition {
    Partition {
        index,
        start_bytes: start,
        size_bytes: size,
        kind,
        aligned_1m: start % MIB == 0,
        aligned_4m: start % (4 * MIB) == 0,
    }
}

/// Logical partitions: each EBR's first entry is relative to that EBR, its
/// second links to the next EBR relative to the extended partition start.
fn logicals(dev: &mut Dev, ext_start: u64, out: &mut Vec<Partition>) -> Result<(), ProbeError> {
    let mut ebr = ext_start;
    let mut seen = std::collections::HashSet::new();
    for n in 0..MAX_LOGICAL {
        if !seen.insert(ebr) {
            return Err(corrupt!(
                "mbr: extended partition chain loops at sector {ebr}"
            ));
        }
        let b = dev.exact(ebr * 512, 512, "extended boot record")?;
        if !bytes::has(&b, 510, &[0x55, 0xAA]) {
            return Err(corrupt!("mbr: EBR at sector {ebr} has no 0x55AA signature"));
        }
        let e1 = &b[446..462];
        let e2 = &b[462..478];
        let (ty, rel, len) = (
            e1[4],
            bytes::le32(e1, 8).unwrap_or(0),
            bytes::le32(e1, 12).unwrap_or(0),
        );
        if ty != 0 && len != 0 {
            let start = ebr + u64::from(rel);
            out.push(part(5 + n, start * 512, u64::from(len) * 512, mbr_kind(ty)));
        }
        let next = u64::from(bytes::le32(e2, 8).unwrap_or(0));
        if e2[4] == 0 || next == 0 {
            return Ok(());
        }
        ebr = ext_start + next;
    }
    Err(corrupt!("mbr: more than {MAX_LOGICAL} logical partitions"))
}

fn mbr_kind(ty: u8) -> String {
    let name = match ty {
        0x01 => "FAT12",
        0x04 => "FAT16 <32M",
        0x06 => "FAT16",
        0x07 => "NTFS/exFAT/HPFS",
        0x0B => "FAT32",
        0x0C => "FAT32 (LBA)",
        0x0E => "FAT16 (LBA)",
        0x82 => "Linux swap",
        0x83 => "Linux",
        0x8E => "Linux LVM",
        0xA5 => "FreeBSD",
        0xAF => "HFS/HFS+",
        0xEF => "EFI System",
        0xFD => "Linux RAID",
        _ => "",
    };
    if name.is_empty() {
        format!("mbr:0x{ty:02x}")
    } else {
        format!("mbr:0x{ty:02x} {name}")
    }
}

/// GPT header at LBA 1, for 512-byte then 4096-byte logical sectors.
fn gpt(dev: &mut Dev) -> Result<Vec<Partition>, ProbeError> {
    for ss in [512u64, 4096] {
        let h = dev.read(ss, ss as usize)?;
        if bytes::has(&h, 0, b"EFI PART") {
            return gpt_at(dev, ss, &h);
        }
    }
    Err(corrupt!(
        "gpt: protective MBR (type 0xEE) but no \"EFI PART\" header at LBA 1"
    ))
}

fn gpt_at(dev: &mut Dev, ss: u64, h: &[u8]) -> Result<Vec<Partition>, ProbeError> {
    let f = bytes::Fields { b: h, fs: "gpt" };
    let hsize = f.le32(12, "HeaderSize")? as usize;
    if hsize < 92 || hsize > h.len() {
        return Err(corrupt!("gpt: HeaderSize {hsize} is not 92..{}", h.len()));
    }
    let want = f.le32(16, "HeaderCRC32")?;
    let mut copy = h[..hsize].to_vec();
    copy[16..20].fill(0);
    if bytes::crc32(&copy) != want {
        return Err(corrupt!("gpt: header CRC32 mismatch"));
    }
    if f.le64(24, "MyLBA")? != 1 {
        return Err(corrupt!("gpt: MyLBA is not 1"));
    }
    let first_usable = f.le64(40, "FirstUsableLBA")?;
    let last_usable = f.le64(48, "LastUsableLBA")?;
    let array_lba = f.le64(72, "PartitionEntryLBA")?;
    let count = u64::from(f.le32(80, "NumberOfPartitionEntries")?);
    let esize = u64::from(f.le32(84, "SizeOfPartitionEntry")?);
    let array_crc = f.le32(88, "PartitionEntryArrayCRC32")?;
    if esize < 128 || !esize.is_power_of_two() {
        return Err(corrupt!(
            "gpt: SizeOfPartitionEntry {esize} is not 128 × 2^n"
        ));
    }
    let total = count
        .checked_mul(esize)
        .filter(|&t| t <= MAX_GPT_ARRAY)
        .ok_or_else(|| corrupt!("gpt: {count} entries of {esize} bytes is too large an array"))?;
    let at = array_lba
        .checked_mul(ss)
        .ok_or(corrupt!("gpt: PartitionEntryLBA overflows"))?;
    let arr = dev.exact(at, total as usize, "GPT partition entry array")?;
    if bytes::crc32(&arr) != array_crc {
        return Err(corrupt!("gpt: partition entry array CRC32 mismatch"));
    }
    let mut out = vec![];
    for (i, e) in arr.chunks_exact(esize as usize).enumerate() {
        let ty: [u8; 16] = bytes::arr(e, 0).unwrap_or([0; 16]);
        if ty == [0; 16] {
            continue;
        }
        let first = bytes::le64(e, 32).unwrap_or(0);
        let last = bytes::le64(e, 40).unwrap_or(0);
        if last < first || first < first_usable || last > last_usable {
            return Err(corrupt!(
                "gpt: entry {} spans LBA {first}..={last}, outside {first_usable}..={last_usable}",
                i + 1
            ));
        }
        let start = first
            .checked_mul(ss)
            .ok_or(corrupt!("gpt: start overflows"))?;
        let size = (last - first)
            .checked_add(1)
            .and_then(|n| n.checked_mul(ss))
            .ok_or(corrupt!("gpt: size overflows"))?;
        let name = bytes::utf16le(e.get(56..128).unwrap_or(&[]));
        let mut kind = format!("gpt:{}", gpt_kind(&ty));
        if !name.is_empty() {
            kind.push_str(&format!(" \"{name}\""));
        }
        out.push(part(i as u32 + 1, start, size, kind));
    }
    Ok(out)
}

fn gpt_kind(ty: &[u8; 16]) -> String {
    let g = bytes::guid(ty);
    let name = match g.as_str() {
        "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" => "EFI System",
        "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" => "Microsoft basic data",
        "E3C9E316-0B5C-4DB8-817D-F92DF00215AE" => "Microsoft reserved",
        "DE94BBA4-06D1-4D40-A16A-BFD50179D6AC" => "Windows recovery",
        "0FC63DAF-8483-4772-8E79-3D69D8477DE4" => "Linux filesystem",
        "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" => "Linux swap",
        "E6D6D379-F507-44C2-A23C-238F2A3DF928" => "Linux LVM",
        "A19D880F-05FC-4D3B-A006-743F0F84911E" => "Linux RAID",
        "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709" => "Linux root (x86-64)",
        "48465300-0000-11AA-AA11-00306543ECAC" => "Apple HFS+",
        "7C3457EF-0000-11AA-AA11-00306543ECAC" => "Apple APFS",
        "21686148-6449-6E6F-744E-656564454649" => "BIOS boot",
        _ => return g,
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(img: &[u8]) -> Result<Vec<Partition>, ProbeError> {
        let mut r = bytes::slice_reader(img);
        partitions(&mut r)
    }

    #[test]
    fn mbr_primaries_and_alignment() {
        let mut img = vec![0u8; 4096];
        img[510] = 0x55;
        img[511] = 0xAA;
        let e = &mut img[446..462];
        e[4] = 0x83;
        e[8..12].copy_from_slice(&2048u32.to_le_bytes());
        e[12..16].copy_from_slice(&4096u32.to_le_bytes());
        let e = &mut img[462..478];
        e[4] = 0x0C;
        e[8..12].copy_from_slice(&6207u32.to_le_bytes());
        e[12..16].copy_from_slice(&100u32.to_le_bytes());
        let p = run(&img).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].start_bytes, p[0].aligned_1m, p[0].aligned_4m),
            (1 << 20, true, false)
        );
        assert_eq!(p[1].start_bytes, 6207 * 512);
        assert!(!p[1].aligned_1m);
        assert_eq!(p[1].kind, "mbr:0x0c FAT32 (LBA)");
    }

    #[test]
    fn no_table() {
        assert!(run(&[0u8; 4096]).unwrap().is_empty());
        assert!(run(&[0u8; 10]).unwrap().is_empty());
        let mut img = vec![0u8; 4096];
        img[510] = 0x55;
        img[511] = 0xAA;
        img[446] = 0x12; // invalid boot indicator
        assert!(run(&img).unwrap().is_empty());
    }

    #[test]
    fn logical_partitions_and_loops() {
        let mut img = vec![0u8; 8192];
        img[510] = 0x55;
        img[511] = 0xAA;
        img[446 + 4] = 0x05;
        img[446 + 8..446 + 12].copy_from_slice(&2u32.to_le_bytes());
        img[446 + 12..446 + 16].copy_from_slice(&10u32.to_le_bytes());
        let ebr = 2 * 512;
        img[ebr + 510] = 0x55;
        img[ebr + 511] = 0xAA;
        assert!(run(&img).unwrap().is_empty());
        img[ebr + 446 + 4] = 0x83;
        img[ebr + 446 + 8] = 1;
        img[ebr + 446 + 12] = 4;
        let p = run(&img).unwrap();
        assert_eq!((p[0].index, p[0].start_bytes), (5, 3 * 512));
        // The next EBR at extended start + 1 links to itself.
        img[ebr + 462 + 4] = 0x05;
        img[ebr + 462 + 8] = 1;
        let e2 = 3 * 512;
        img[e2 + 510] = 0x55;
        img[e2 + 511] = 0xAA;
        img[e2 + 462 + 4] = 0x05;
        img[e2 + 462 + 8] = 1;
        assert!(run(&img).unwrap_err().to_string().contains("loops"));
    }
}
