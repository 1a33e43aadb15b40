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
    let _ = writeln!(
        o,
        "{indent}label {}  id {}",
        v.label.as_deref().unwrap_or("(none)"),
        v.uuid.as_deref().unwrap_or("(none)")
    );
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

pub fn text(r: &InfoReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} ({}, {})", r.target, r.kind, iec(r.size_bytes));
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
            m.mount_point,
            m.source,
            m.fstype,
            short(m.block_bytes),
            iec(m.size_bytes),
            iec(m.used_bytes),
            iec(m.free_bytes),
            iec(m.available_bytes)
        );
    }
    if let Some(v) = &r.volume {
        volume(&mut o, "  ", v);
    } else if let Some(e) = &r.volume_error {
        if r.partitions.is_empty() {
            let _ = writeln!(o, "  no filesystem recognised: {e}");
        }
    }
    for p in &r.partitions {
        let pp = &p.partition;
        let _ = writeln!(
            o,
            "  partition {} ({}): starts at {} ({}), {}; aligned to 1 MiB {}, to 4 MiB {}",
            pp.index,
            pp.kind,
            pp.start_bytes,
            iec(pp.start_bytes),
            iec(pp.size_bytes),
            yes(pp.aligned_1m),
            yes(pp.aligned_4m)
        );
        match (&p.volume, &p.error) {
            (Some(v), _) => volume(&mut o, "    ", v),
            (None, Some(e)) => {
                let _ = writeln!(o, "    no filesystem recognised: {e}");
            }
            _ => {}
        }
    }
    if let Some(f) = &r.fragmentation {
        if f.supported {
            let _ = writeln!(
                o,
                "  fragmentation: {} files asked{}, {} in more than one piece; {:.2} extents per file on average, at most {}{}",
                f.files_examined,
                if f.truncated { " (stopped at --max-files)" } else { "" },
                f.files_fragmented,
                f.mean_extents,
                f.max_extents,
                f.max_extents_path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
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
