//! `describe`: the device in words, printed before anything is erased.

use super::DeviceInfo;

/// "SanDisk Cruzer Blade, 15.4 GB, usb".
pub(super) fn short_summary(info: &DeviceInfo) -> String {
    let mut parts = Vec::new();
    let name = format!("{} {}", info.vendor, info.model).trim().to_string();
    if !name.is_empty() {
        parts.push(name);
    }
    parts.push(
        human_size(info.size_bytes)
            .split(" (")
            .next()
            .unwrap_or("")
            .to_string(),
    );
    parts.push(info.bus.clone());
    parts.join(", ")
}

/// "15.4 GB (14.3 GiB)": drives are sold in decimal units, tools show binary.
pub(super) fn human_size(bytes: u64) -> String {
    fn scaled(b: u64, base: f64, units: &[&str]) -> String {
        let mut v = b as f64;
        let mut i = 0;
        while v >= base && i + 1 < units.len() {
            v /= base;
            i += 1;
        }
        if i == 0 {
            format!("{b} {}", units[0])
        } else {
            format!("{v:.1} {}", units[i])
        }
    }
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    format!(
        "{} ({})",
        scaled(bytes, 1000.0, &["B", "kB", "MB", "GB", "TB", "PB"]),
        scaled(bytes, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
    )
}

/// A human summary printed before formatting.
pub fn describe(info: &DeviceInfo) -> String {
    let mut out = String::new();
    let what = if info.is_partition {
        format!("partition of {}, ", info.disk)
    } else {
        String::new()
    };
    let model = format!("{} {}", info.vendor, info.model).trim().to_string();
    out.push_str(&format!(
        "{}: {}{}{}, {}, {}{}\n",
        info.path,
        what,
        if model.is_empty() {
            "unknown model"
        } else {
            &model
        },
        if info.serial.is_empty() {
            String::new()
        } else {
            format!(" (serial {})", info.serial)
        },
        human_size(info.size_bytes),
        info.bus,
        if info.removable {
            ", removable"
        } else {
            ", fixed"
        },
    ));
    if info.read_only {
        out.push_str("  read-only\n");
    }
    if !info.is_partition {
        if info.partitions.is_empty() {
            out.push_str("  partitions: none\n");
        } else {
            out.push_str(&format!("  partitions: {}\n", info.partitions.join(", ")));
        }
    }
    if info.mounts.is_empty() {
        out.push_str("  mounted: nothing\n");
    }
    for (d, p) in &info.mounts {
        out.push_str(&format!("  mounted: {d} on {p}\n"));
    }
    for (p, _) in &info.detail.swaps {
        out.push_str(&format!("  swap: {p}\n"));
    }
    for (lower, h, kind) in &info.detail.holders {
        out.push_str(&format!("  in use: {lower} by {h} ({})\n", kind.describe()));
    }
    out.push_str(&format!("  everything on {} will be erased", info.path));
    out
}
