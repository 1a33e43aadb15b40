//! What the kernel knows about the device's geometry (sysfs), read for
//! the probe's report. Only an SD card's host says anything about the
//! flash itself (`preferred_erase_size`, the card's AU_SIZE register); the
//! queue limits of USB sticks are the USB bridge's, mostly zero.

use super::analyse::Estimate;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

pub struct Sys {
    /// Every value found, by its sysfs name.
    pub values: Map<String, Value>,
    pub logical_block: Option<u64>,
    /// A partition's start on its disk, in bytes (0 for a whole disk).
    pub start: u64,
    pub preferred_erase: Option<u64>,
}

fn number(p: &Path) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// The sysfs folder of a block device node, and of its whole disk.
fn folders(dev: &Path) -> Option<(PathBuf, PathBuf)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let md = std::fs::metadata(dev).ok()?;
    if !md.file_type().is_block_device() {
        return None;
    }
    let (maj, min) = (libc::major(md.rdev()), libc::minor(md.rdev()));
    let me = std::fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()?;
    let disk = if me.join("partition").exists() {
        me.parent()?.to_path_buf()
    } else {
        me.clone()
    };
    Some((me, disk))
}

/// Read what sysfs says about `dev` (nothing for an image file).
pub fn read(dev: &Path) -> Sys {
    let mut s = Sys {
        values: Map::new(),
        logical_block: None,
        start: 0,
        preferred_erase: None,
    };
    let Some((me, disk)) = folders(dev) else {
        return s;
    };
    let q = disk.join("queue");
    let files = [
        (
            "preferred_erase_size",
            disk.join("device/preferred_erase_size"),
        ),
        ("erase_size", disk.join("device/erase_size")),
        ("optimal_io_size", q.join("optimal_io_size")),
        ("minimum_io_size", q.join("minimum_io_size")),
        ("discard_granularity", q.join("discard_granularity")),
        ("logical_block_size", q.join("logical_block_size")),
        ("rotational", q.join("rotational")),
        ("removable", disk.join("removable")),
        ("max_sectors_kb", q.join("max_sectors_kb")),
    ];
    for (name, p) in files {
        if let Some(n) = number(&p) {
            s.values.insert(name.into(), n.into());
        }
    }
    s.start = number(&me.join("start")).map_or(0, |sectors| sectors * 512);
    if me != disk {
        s.values
            .insert("partition_start_bytes".into(), s.start.into());
    }
    s.logical_block = number(&q.join("logical_block_size"));
    s.preferred_erase = number(&disk.join("device/preferred_erase_size")).filter(|&n| n > 0);
    s
}

/// Weigh the card's own AU register against the timings.
pub fn weigh(s: &Sys, e: &mut Estimate) {
    let Some(pes) = s.preferred_erase else {
        return;
    };
    let size = crate::units::iec(pes);
    if e.au == pes {
        e.reasons.push(format!(
            "the card's AU register (preferred_erase_size) says {size} too"
        ));
    } else if e.au == 0 {
        e.au = pes;
        if e.confidence == "none" {
            e.confidence = "low";
        }
        e.reasons.push(format!(
            "AU {size} from the card's AU register (preferred_erase_size), not seen in the timings"
        ));
    } else {
        e.reasons.push(format!(
            "the card's AU register (preferred_erase_size) says {size}; the timings say otherwise"
        ));
    }
}
