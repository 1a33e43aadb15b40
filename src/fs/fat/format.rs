//! How `fsfit format` makes FAT: `mkfs.fat -a` (no alignment of its own)
//! with the reserved sectors padded so that the data region starts on the
//! alignment counted from the device's start, and the hidden sectors set to
//! the partition start, as the SD File System Specification lays FAT out.

use super::{try_spc, Fat, MIN_CLUST_16, NR_FATS, SECTOR};
use crate::fs::{FormatCmd, FormatParams, LabelRule, PartType};

/// mkfs.fat.c: `root_dir_entries = 512` for a disk that is not a floppy.
const ROOT_ENTRIES: u64 = 512;
/// The boot sector's reserved-sector count is 16 bits.
const MAX_RESERVED: u64 = 0xFFFF;

/// `mkfs.fat -a -F BITS -s SPC -R RESERVED` on `volume` bytes: the sector
/// its data region starts at, or None when it finds no layout.
fn data_start(bits: u32, volume: u64, spc: u32, reserved: u64) -> Option<u64> {
    // With -a: num_sectors is not cut to a multiple of the track.
    let sectors = (volume / SECTOR).min(u32::MAX as u64);
    let root = if bits == 32 {
        0
    } else {
        ROOT_ENTRIES * 32 / SECTOR
    };
    let fatdata32 = sectors.checked_sub(reserved)? as u32;
    let fatdata1216 = fatdata32.checked_sub(root as u32)?;
    let (c, fat, max) = try_spc(bits, fatdata32, fatdata1216, spc, false);
    let fits = c != 0 && c <= max && !(bits == 16 && c < MIN_CLUST_16);
    fits.then_some(reserved + NR_FATS as u64 * fat as u64 + root)
}

/// The reserved sectors that put the data region on `align` bytes from the
/// device's start (the volume starting `start` bytes in), and the data
/// region's offset in the volume, in bytes.
pub fn aligned_reserved(
    bits: u32,
    volume: u64,
    spc: u32,
    start: u64,
    align: u64,
) -> crate::Result<(u64, u64)> {
    let a = (align / SECTOR).max(1);
    let s0 = start / SECTOR;
    // FAT32 keeps its backup boot sector at 6: at least 32 as mkfs.fat does.
    let mut r = if bits == 32 { 32 } else { 1 };
    for _ in 0..64 {
        let data = data_start(bits, volume, spc, r).ok_or_else(|| {
            crate::Error::work(format!(
                "mkfs.fat finds no FAT{bits} layout with {} clusters on {} bytes",
                spc as u64 * SECTOR,
                volume
            ))
        })?;
        let off = (s0 + data) % a;
        if off == 0 {
            return Ok((r, data * SECTOR));
        }
        r += a - off;
        if r > MAX_RESERVED {
            break;
        }
    }
    Err(crate::Error::work(format!(
        "FAT{bits} cannot start its data region on a {align}-byte boundary: \
         the reserved sectors would pass {MAX_RESERVED}; choose a smaller --align"
    )))
}

pub fn format(fat: &Fat, p: &FormatParams) -> crate::Result<FormatCmd> {
    let spc = (p.cluster / SECTOR).max(1) as u32;
    let (reserved, data) =
        aligned_reserved(fat.bits, p.volume_bytes, spc, p.start_bytes, p.align_bytes)?;
    let mut argv = crate::fs::argv(&["mkfs.fat", "-F", &fat.bits.to_string()]);
    argv.extend(crate::fs::argv(&[
        "-s",
        &spc.to_string(),
        "-a",
        "-R",
        &reserved.to_string(),
        "-h",
        &(p.start_bytes / SECTOR).to_string(),
    ]));
    if let Some(l) = p.label {
        argv.extend(["-n".to_string(), l.to_string()]);
    }
    Ok(FormatCmd {
        argv,
        data_offset: Some(data),
    })
}

/// MBR types: 0x01 FAT12, 0x0E FAT16 (LBA), 0x0C FAT32 (LBA).
pub fn partition_type(bits: u32) -> PartType {
    let mbr = match bits {
        12 => 0x01,
        16 => 0x0E,
        _ => 0x0C,
    };
    PartType {
        mbr,
        ..PartType::WINDOWS
    }
}

/// 11 bytes in the DOS code page, stored upper-cased, without the
/// characters mkfs.fat and Windows refuse in a label.
pub const LABEL: LabelRule = LabelRule {
    max_bytes: Some(11),
    max_utf16: None,
    forbidden: "*?.,;:/\\|+=<>[]\"",
    upper: true,
    codepage: true,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_region_lands_on_the_alignment() {
        for (bits, vol, spc, start, align) in [
            (32u32, 16u64 << 30, 64u32, 4u64 << 20, 4u64 << 20),
            (16, 1 << 30, 32, 64 << 10, 64 << 10),
            (16, 2 << 30, 64, 4 << 20, 4 << 20),
            (12, 16 << 20, 16, 1 << 20, 1 << 20),
        ] {
            let (r, data) = aligned_reserved(bits, vol - start, spc, start, align).unwrap();
            assert_eq!((start + data) % align, 0, "FAT{bits} {vol}");
            assert!((1..=MAX_RESERVED).contains(&r));
        }
    }
}
