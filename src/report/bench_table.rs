//! The human table at the end of `fsfit bench`: one row per workload, one
//! column per config, MB/s or files/s, relative to the baseline, flags.

use crate::bench::results::BenchReport;
use crate::units::{iec, short};
use std::fmt::Write;

/// Workloads whose figure is files per second rather than MB/s.
fn per_file(name: &str) -> bool {
    matches!(
        name,
        "tiny-write" | "tiny-read" | "scan" | "delete" | "single-delete"
    )
}

pub fn bench(r: &BenchReport) -> String {
    let mut o = String::new();
    let t = &r.target;
    let _ = writeln!(
        o,
        "Target: {} {} ({}){}; scale {}, {} runs each; kernel {}; cold reads by {}",
        t.kind,
        t.path,
        iec(t.size_bytes),
        t.model
            .as_ref()
            .map(|m| format!(", {m}"))
            .unwrap_or_default(),
        r.scale,
        r.repeat,
        r.host.kernel,
        t.cold_cache
    );
    for c in &r.results {
        let _ = writeln!(
            o,
            "  {}:{}  driver {}  format {:.2} s{}",
            c.fs,
            short(c.cluster_bytes),
            c.driver,
            c.format_seconds,
            c.error
                .as_ref()
                .map(|e| format!("  ERROR: {e}"))
                .unwrap_or_default()
        );
    }
    let mut names: Vec<&str> = Vec::new();
    for c in &r.results {
        for w in &c.workloads {
            if !names.contains(&w.name.as_str()) {
                names.push(&w.name);
            }
        }
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec!["WORKLOAD".to_string()];
    head.extend(
        r.results
            .iter()
            .map(|c| format!("{}:{}", c.fs, short(c.cluster_bytes))),
    );
    rows.push(head);
    let mut notes: Vec<String> = Vec::new();
    for n in &names {
        let mut row = vec![n.to_string()];
        for c in &r.results {
            let cell = match c.workloads.iter().find(|w| w.name == *n) {
                None => "-".to_string(),
                Some(w) if w.error.is_some() => "failed".to_string(),
                Some(w) => {
                    let v = if per_file(n) {
                        format!("{:.0} f/s", w.files_per_s)
                    } else {
                        format!("{:.1} MB/s", w.mb_per_s)
                    };
                    let rel = w
                        .relative_pct
                        .map(|p| format!(" {p:.0}%"))
                        .unwrap_or_default();
                    let flag = if w.flags.is_empty() {
                        String::new()
                    } else {
                        let note = format!(
                            "{}:{} {}: {}",
                            c.fs,
                            short(c.cluster_bytes),
                            n,
                            w.flags.join(", ")
                        );
                        notes.push(note);
                        format!(" [{}]", notes.len())
                    };
                    format!("{v}{rel}{flag}")
                }
            };
            row.push(cell);
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let _ = writeln!(o);
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
            line.push_str("  ");
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
    let _ = writeln!(
        o,
        "\nMB/s are decimal (10^6 B/s), medians of {} runs; % is relative to {} (above 100 %: faster).",
        r.repeat, r.baseline
    );
    for (i, n) in notes.iter().enumerate() {
        let _ = writeln!(o, "[{}] {n}", i + 1);
    }
    for c in &r.results {
        for w in &c.workloads {
            if let Some(e) = &w.error {
                let _ = writeln!(
                    o,
                    "{}:{} {} failed: {e}",
                    c.fs,
                    short(c.cluster_bytes),
                    w.name
                );
            }
        }
    }
    for s in &r.skipped {
        let _ = writeln!(
            o,
            "skipped {}:{}: {}",
            s.fs,
            short(s.cluster_bytes),
            s.reason
        );
    }
    o
}
