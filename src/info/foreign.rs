//! Well-known signatures of volumes fsfit does not read, so that `fsfit
//! info` can name them ("a LUKS encrypted volume") instead of reporting a
//! FAT field: BitLocker, HPFS and BeFS volumes start with a FAT-like boot
//! sector ending in 0x55AA.
//!
//! Offsets and magics as libblkid (util-linux libblkid/src/superblocks/)
//! looks for them: bitlocker.c, luks.c (cryptsetup), swap.c, lvm.c,
//! iso9660.c, hfs.c, apfs.c, befs.c, hpfs.c, jfs.c, refs.c, squashfs.c,
//! reiserfs.c, linux_raid.c (md superblock 1.1/1.2).

use super::bytes::{self, Dev};
use crate::fs::probe::ProbeError;

/// BitLocker To Go's GUID (4967D63B-2E29-4AD8-8399-F6A339E3D001) as stored
/// in its "MSWIN4.1" boot sector.
const TOGO_GUID: [u8; 16] = [
    0x3b, 0xd6, 0x67, 0x49, 0x29, 0x2e, 0xd8, 0x4a, 0x83, 0x99, 0xf6, 0xa3, 0x39, 0xe3, 0xd0, 0x01,
];

/// A foreign signature in the boot sector itself (`head`: the first
/// 4 KiB, or less at the end of the device). Checked before FAT, as these
/// volumes carry a FAT-like boot sector.
pub fn boot_sector(head: &[u8]) -> Option<String> {
    let at = |off: usize, sig: &[u8]| bytes::has(head, off, sig);
    if at(3, b"-FVE-FS-") {
        return Some("a BitLocker encrypted volume (\"-FVE-FS-\" at byte 3)".into());
    }
    if at(3, b"MSWIN4.1") && head.get(..512).is_some_and(|s| contains(s, &TOGO_GUID)) {
        return Some("a BitLocker To Go encrypted volume (its GUID in the boot sector)".into());
    }
    if at(0, b"LUKS\xba\xbe") {
        let v = bytes::be16(head, 6).unwrap_or(0);
        return Some(format!("a LUKS{v} encrypted volume (cryptsetup)"));
    }
    if at(3, b"ReFS\0\0\0\0") {
        return Some("a Windows ReFS volume".into());
    }
    if at(32, b"NXSB") {
        return Some("an Apple APFS container (\"NXSB\" at byte 32)".into());
    }
    if at(0, b"hsqs") || at(0, b"sqsh") {
        return Some("a squashfs image".into());
    }
    if at(0x36, b"HPFS    ") {
        return Some("an OS/2 HPFS volume".into());
    }
    if at(0x36, b"JFS     ") {
        return Some("a JFS volume".into());
    }
    None
}

/// Foreign signatures further in (superblocks at 1 KiB, 8 KiB, 32 KiB,
/// 64 KiB, the end of the first page). Checked only once the volume is
/// known not to be FAT, since a FAT volume's data may hold anything there.
pub fn deeper(dev: &mut Dev, head: &[u8]) -> Result<Option<String>, ProbeError> {
    let at = |off: usize, sig: &[u8]| bytes::has(head, off, sig);
    if le32_at(dev, 8192)? == Some(0xF995_E849) {
        return Ok(Some("an OS/2 HPFS volume".into()));
    }
    if dev.read(32768, 4)? == b"JFS1" {
        return Ok(Some("a JFS volume".into()));
    }
    // BFS: at 32 (BPB_TotSec32 in a FAT boot sector, hence not earlier) or 544.
    if [32, 512 + 32]
        .iter()
        .any(|&o| at(o, b"BFS1") || at(o, b"1SFB"))
    {
        return Ok(Some("a BeOS/Haiku BFS volume".into()));
    }
    let at1k = dev.read(1024, 2)?;
    match at1k.as_slice() {
        b"H+" => return Ok(Some("an Apple HFS+ (Mac OS Extended) volume".into())),
        b"HX" => return Ok(Some("an Apple HFSX (case-sensitive HFS+) volume".into())),
        // An HFS Master Directory Block; drEmbedSigWord (at 0x7C) "H+"
        // when it only wraps an HFS+ volume, as older Mac OS made them.
        b"BD" if dev.read(1024 + 0x7C, 2)? == b"H+" => {
            return Ok(Some(
                "an Apple HFS+ (Mac OS Extended) volume in an HFS wrapper".into(),
            ))
        }
        b"BD" => return Ok(Some("an Apple HFS (Mac OS Standard) volume".into())),
        _ => {}
    }
    // Swap: "SWAPSPACE2" in the last 10 bytes of the first page.
    for page in [4096u64, 8192, 16384, 65536] {
        let sig = dev.read(page - 10, 10)?;
        if sig == b"SWAPSPACE2" || sig == b"SWAP-SPACE" {
            return Ok(Some(format!("Linux swap space ({page}-byte pages)")));
        }
    }
    // LVM2 physical volume: a label in one of the first four sectors.
    for s in 0..4usize {
        if at(s * 512, b"LABELONE") && at(s * 512 + 24, b"LVM2 001") {
            return Ok(Some("an LVM2 physical volume".into()));
        }
    }
    for off in [0u64, 4096] {
        if le32_at(dev, off)? == Some(0xA92B_4EFC) {
            return Ok(Some("a Linux software RAID (md) member".into()));
        }
    }
    if dev.read(32769, 5)? == b"CD001" {
        return Ok(Some(
            "an ISO 9660 filesystem (CD/DVD image) without UDF".into(),
        ));
    }
    for off in [65536u64 + 52, 8192 + 52] {
        let sig = dev.read(off, 10)?;
        if sig.starts_with(b"ReIsErFs")
            || sig.starts_with(b"ReIsEr2Fs")
            || sig.starts_with(b"ReIsEr3Fs")
        {
            return Ok(Some("a ReiserFS volume".into()));
        }
    }
    Ok(None)
}

fn le32_at(dev: &mut Dev, off: u64) -> Result<Option<u32>, ProbeError> {
    Ok(bytes::le32(&dev.read(off, 4)?, 0))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::probe;

    fn probe_err(img: &[u8]) -> String {
        let mut r = bytes::slice_reader(img);
        probe(&mut r).unwrap_err().to_string()
    }

    /// A FAT-looking boot sector whose BPB is nonsense (as BeFS and
    /// BitLocker have), with `sig` written at `off`.
    fn with(off: usize, sig: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 1 << 20];
        b[0] = 0xEB;
        b[2] = 0x90;
        b[11] = 0x1F; // BPB_BytsPerSec 7711
        b[12] = 0x1E;
        b[510] = 0x55;
        b[511] = 0xAA;
        b[off..off + sig.len()].copy_from_slice(sig);
        b
    }

    #[test]
    fn names_foreign_volumes_instead_of_fat_fields() {
        let cases: [(usize, &[u8], &str); 13] = [
            (3, b"-FVE-FS-", "BitLocker"),
            (0, b"LUKS\xba\xbe\x00\x02", "LUKS2"),
            (32, b"NXSB", "APFS"),
            (1024, b"H+", "HFS+"),
            (1024, b"HX", "HFSX"),
            (1024, b"BD", "HFS (Mac OS Standard)"),
            (4086, b"SWAPSPACE2", "swap"),
            (512, b"LABELONE", "LVM2"),
            (32769, b"CD001", "ISO 9660"),
            (0x36, b"HPFS    ", "HPFS"),
            (8192, &0xF995_E849u32.to_le_bytes(), "HPFS"),
            (544, b"1SFB", "BFS"),
            (65536 + 52, b"ReIsEr2Fs", "ReiserFS"),
        ];
        for (off, sig, want) in cases {
            let mut img = with(off, sig);
            if want == "LVM2" {
                img[512 + 24..512 + 32].copy_from_slice(b"LVM2 001");
            }
            let e = probe_err(&img);
            assert!(e.contains("no filesystem fsfit knows"), "{want}: {e}");
            assert!(e.contains(want), "{want}: {e}");
            assert!(!e.contains("BPB_"), "{want}: {e}");
        }
        let mut wrapped = with(1024, b"BD");
        wrapped[1024 + 0x7C..1024 + 0x7E].copy_from_slice(b"H+");
        assert!(probe_err(&wrapped).contains("HFS+ (Mac OS Extended) volume in an HFS wrapper"));
    }

    #[test]
    fn a_nonsense_boot_sector_is_not_blamed_on_fat() {
        let mut img = with(0, &[0x00]);
        img[0] = 0x00; // no jump
        let e = probe_err(&img);
        assert!(e.starts_with("no filesystem fsfit knows"), "{e}");
        // A damaged FAT volume keeps its FAT error.
        let mut fat = with(0x36, b"FAT16   ");
        fat[21] = 0xF8;
        assert!(probe_err(&fat).starts_with("fat: BPB_BytsPerSec"));
    }
}
