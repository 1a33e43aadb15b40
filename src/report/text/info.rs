//! The human form of `fsfit info`.

use crate::info::inspect::InfoReport;
use crate::info::VolumeInfo;
use crate::units::{iec, short};
use std::fmt::Write;

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "NO"
    }
}

fn volume(o: &mut String, indent: &str, v: &VolumeInfo) {
    let _ = writeln!(
        o,
        "{indent}filesystem {}  cluster {}  sector {}  size {}",
        v.fs,
        short(v.cluster_bytes),
        v.sector_bytes,
        iec(v.volume_bytes)
    );
    let label = match (&v.label, &v.label_error) {
        (Some(l), _) => l.clone(),
        (None, Some(_)) => "(unknown: see below)".into(),
        (None, None) => "(none)".into(),
    };
    let _ = writeln!(
        o,
        "{indent}label {label}  id {}",
        v.uuid.as_deref().unwrap_or("(none)")
    );
    if let Some(e) = &v.label_error {
        let _ = writeln!(o, "{indent}label unknown: {e} (is the image cut short?)");
    }
    if let Some(cp) = &v.label_codepage {
        if let Some(hex) = &v.label_bytes_hex {
            if v.label.as_ref().is_some_and(|l| !l.is_ascii()) {
                let _ = writeln!(o, "{indent}label bytes {hex}, decoded as {cp} (--codepage)");
            }
        }
    }
    if let (Some(b), Some(e)) = (&v.boot_label, &v.label_error) {
        let _ = writeln!(
            o,
            "{indent}boot sector label {b}: not confirmed, since the root folder could not be read ({e})"
        );
    } else if let Some(b) = &v.boot_label {
        // A leading 0x05 stands for 0xE5 (the same label, escaped).
        let same = |l: &String| {
            b.strip_prefix('\u{5}')
                .is_some_and(|rest| l.chars().skip(1).collect::<String>() == rest)
        };
        if v.label.as_ref() != Some(b) && !v.label.as_ref().is_some_and(same) {
            let _ = writeln!(
                o,
                "{indent}boot sector label {b}: a stale copy the root directory does not \
                 confirm (Windows and Linux show {})",
                v.label.as_deref().unwrap_or("no label")
            );
        }
    }
    for w in &v.warnings {
        let _ = writeln!(o, "{indent}warning: {w}");
    }
    match (v.used_bytes, v.free_bytes) {
        (Some(u), Some(f)) => {
            let _ = writeln!(o, "{indent}used {}  free {}", iec(u), iec(f));
        }
        (None, Some(f)) => {
            let _ = writeln!(o, "{indent}free {}", iec(f));
        }
        _ => {}
    }
    for (k, val) in &v.details {
        let _ = writeln!(o, "{indent}{k}: {val}");
    }
}

/// One line per partition, as `lsblk -f` shows a disk.
fn table(o: &mut String, r: &InfoReport) {
    let mut rows = vec![[
        "PART".to_string(),
        "FSTYPE".into(),
        "LABEL".into(),
        "UUID".into(),
        "START".into(),
        "SIZE".into(),
        "ALIGNED".into(),
    ]];
    for p in &r.partitions {
        let pp = &p.partition;
        let v = p.volume.as_ref();
        rows.push([
            pp.index.to_string(),
            v.map_or("?".into(), |v| v.fs.clone()),
            v.and_then(|v| v.label.clone()).unwrap_or_default(),
            v.and_then(|v| v.uuid.clone()).unwrap_or_default(),
            pp.start_bytes.to_string(),
            iec(pp.size_bytes),
            aligned_cell(p),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let mut line = String::from("  ");
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
}

/// The ALIGNED column: the SD boundary unit where the layout is the SD
/// specification's, else the largest of 4 MiB and 1 MiB it keeps.
fn aligned_cell(p: &crate::info::inspect::PartitionInfo) -> String {
    let (pp, pr) = (&p.partition, &p.alignment_promise);
    match (pr.kind, pr.aligned) {
        ("sd-boundary-unit", true) => format!("SD BU {}", short(pr.alignment_bytes)),
        ("sd-boundary-unit", false) => format!("NO (SD BU {})", short(pr.alignment_bytes)),
        _ if pp.aligned_4m => "4 MiB".into(),
        _ if pp.aligned_1m => "1 MiB".into(),
        _ => "NO".into(),
    }
}

/// Each partition: where it starts, its alignment, its data area, its volume.
fn partition_lines(o: &mut String, r: &InfoReport) {
    for p in &r.partitions {
        let pp = &p.partition;
        // Judged against what the layout promises: an SD card's boundary
        // unit may be smaller than 1 MiB (64K on a 2 GB card) or larger.
        let pr = &p.alignment_promise;
        let aligned = if pr.kind == "sd-boundary-unit" {
            format!(
                "aligned to its SD boundary unit ({}) {}\n    ({})",
                short(pr.alignment_bytes),
                yes(pr.aligned),
                pr.meaning
            )
        } else {
            format!(
                "aligned to 1 MiB {}, to 4 MiB {}",
                yes(pp.aligned_1m),
                yes(pp.aligned_4m)
            )
        };
        let _ = writeln!(
            o,
            "  partition {} ({}): starts at {} ({}), {}; {aligned}",
            pp.index,
            pp.kind,
            pp.start_bytes,
            iec(pp.start_bytes),
            iec(pp.size_bytes),
        );
        if let (Some(d), Some(a)) = (p.data_offset_bytes, p.data_alignment_bytes) {
            let _ = writeln!(
                o,
                "    data area starts at {d} ({}): aligned to {}",
                iec(d),
                short(a)
            );
        }
        match (&p.volume, &p.error) {
            (Some(v), _) => volume(o, "    ", v),
            (None, Some(e)) => {
                let _ = writeln!(o, "    {}", unrecognised(e));
            }
            _ => {}
        }
    }
}

/// Why no filesystem was found, said once: the probe's own message
/// already starts "no filesystem ..." where it found none it knows.
fn unrecognised(e: &str) -> String {
    if e.starts_with("no filesystem") {
        e.to_string()
    } else {
        format!("no filesystem recognised: {e}")
    }
}

pub fn text(r: &InfoReport) -> String {
    let mut o = String::new();
    // The path is cut in the middle to keep the line within 100 columns
    // (a path has no space to wrap at); the JSON keeps it whole.
    let what = format!(" ({}, {})", r.kind, iec(r.size_bytes));
    let room = super::WIDTH.saturating_sub(what.chars().count());
    let _ = writeln!(o, "{}{what}", super::usage::shorten(&r.target, room));
    if let (Some(s), Some(a1), Some(a4)) = (r.start_bytes, r.aligned_1m, r.aligned_4m) {
        let _ = writeln!(
            o,
            "  starts at byte {s} of its disk: aligned to 1 MiB {}, to 4 MiB {}",
            yes(a1),
            yes(a4)
        );
    }
    if let Some(m) = &r.mounted {
        let _ = writeln!(
            o,
            "  mounted at {} from {} ({}): block {}, size {}, used {}, free {} ({} available)",
            super::usage::shorten(&m.mount_point, 70),
            super::usage::shorten(&m.source, 70),
            m.fstype,
            short(m.block_bytes),
            iec(m.size_bytes),
            iec(m.used_bytes),
            iec(m.free_bytes),
            iec(m.available_bytes)
        );
    }
    if let (Some(d), Some(a), Some(_)) = (r.data_offset_bytes, r.data_alignment_bytes, &r.volume) {
        let _ = writeln!(
            o,
            "  data area starts at {d} ({}): aligned to {}",
            iec(d),
            short(a)
        );
    }
    if let Some(v) = &r.volume {
        volume(&mut o, "  ", v);
    } else if let Some(e) = &r.volume_error {
        if r.partitions.is_empty() {
            let _ = writeln!(o, "  {}", unrecognised(e));
        }
    }
    if !r.partitions.is_empty() {
        table(&mut o, r);
    }
    partition_lines(&mut o, r);
    if let Some(f) = &r.fragmentation {
        if f.supported {
            let _ = writeln!(
                o,
                "  fragmentation: {} asked{}, {} in more than one piece; {:.2} extents per file on average, at most {}{}",
                crate::units::count(f.files_examined, "file"),
                if f.truncated { " (stopped at --max-files)" } else { "" },
                f.files_fragmented,
                f.mean_extents,
                f.max_extents,
                f.max_extents_path
                    .as_ref()
                    .map(|p| format!(" ({})", super::usage::shorten(p, 60)))
                    .unwrap_or_default()
            );
        } else {
            let _ = writeln!(
                o,
                "  fragmentation: this driver does not say ({})",
                f.reason.as_deref().unwrap_or("no FIEMAP")
            );
        }
    }
    o
}
