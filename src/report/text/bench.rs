//! The human table at the end of `fsfit bench`: one row per workload, one
//! column per config, MB/s or files/s, relative to the baseline, flags.

use crate::bench::results::{BenchReport, ConfigResult, WorkloadResult};
use crate::bench::workloads::{unit_of, Unit};
use crate::units::{iec, short};
use std::fmt::Write;

/// Flags shown as a mark in the table: (flag, mark, meaning).
const MARKS: [(&str, &str, &str); 4] = [
    ("high-cv", "~", "runs vary by more than 10 % (CV)"),
    (
        "cache-suspect",
        "!",
        "cache-suspect: under 90 % of the bytes read came from the device",
    ),
    (
        "write-not-durable",
        "#",
        "write-not-durable: under 90 % of the bytes written reached the device",
    ),
    (
        "no-device-counters",
        "?",
        "no device counters: nothing checks where the bytes went",
    ),
];

pub fn bench(r: &BenchReport) -> String {
    let mut o = target(r);
    let notes = table(&mut o, r);
    footer(&mut o, r, &notes);
    o
}

/// The target, then each config with its driver and format time.
fn target(r: &BenchReport) -> String {
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
    if let Some(lab) = &r.host.lab {
        let _ = writeln!(
            o,
            "LAB RUN ({lab}): a virtual machine's figures check that each driver works; they are not the device's speed"
        );
    }
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
    o
}

/// One row per workload, one column per config; returns the numbered notes.
fn table(o: &mut String, r: &BenchReport) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for c in &r.results {
        for w in &c.workloads {
            if !names.contains(&w.name.as_str()) {
                names.push(&w.name);
            }
        }
    }
    // Each config takes three columns (figure, % of the baseline, flags) so
    // that figures line up whether or not a cell carries a flag.
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec!["WORKLOAD".to_string()];
    for c in &r.results {
        head.extend([
            format!("{}:{}", c.fs, short(c.cluster_bytes)),
            String::new(),
            String::new(),
        ]);
    }
    rows.push(head);
    let mut notes: Vec<String> = Vec::new();
    for n in &names {
        let mut row = vec![n.to_string()];
        for c in &r.results {
            let [v, rel, flag] = match c.workloads.iter().find(|w| w.name == *n) {
                None => ["-".to_string(), String::new(), String::new()],
                Some(w) if w.error.is_some() => {
                    ["failed".to_string(), String::new(), String::new()]
                }
                Some(w) => cell(c, n, w, &mut notes),
            };
            row.extend([v, rel, flag]);
        }
        rows.push(row);
    }
    let _ = writeln!(o);
    // Left: the workload names and each config's flags.
    o.push_str(&crate::report::columns(&rows, |i| {
        i == 0 || (i > 0 && i % 3 == 0)
    }));
    notes
}

/// A figure, its % of the baseline and its flags (common ones as marks,
/// the rest as numbered notes).
fn cell(c: &ConfigResult, n: &str, w: &WorkloadResult, notes: &mut Vec<String>) -> [String; 3] {
    let v = match unit_of(n) {
        Unit::FilesPerS => format!("{:.0} f/s", w.files_per_s),
        Unit::MbPerS => format!("{:.1} MB/s", w.mb_per_s),
    };
    let rel = w
        .relative_pct
        .map(|p| format!("{p:.0}%"))
        .unwrap_or_default();
    // Common flags as marks, the rest as numbered notes.
    let mut flag = String::new();
    let mut other = Vec::new();
    for f in &w.flags {
        match MARKS.iter().find(|(name, _, _)| name == f) {
            Some((_, mark, _)) => flag.push_str(mark),
            None => other.push(f.as_str()),
        }
    }
    if !other.is_empty() {
        notes.push(format!(
            "{}:{} {}: {}",
            c.fs,
            short(c.cluster_bytes),
            n,
            other.join(", ")
        ));
        flag.push_str(&format!("[{}]", notes.len()));
    }
    [v, rel, flag]
}

/// Units, the marks used, the notes, failures and skipped configs.
fn footer(o: &mut String, r: &BenchReport, notes: &[String]) {
    let _ = writeln!(
        o,
        "\nMB/s are decimal (10^6 B/s), medians of {} runs; % is relative to {} (above 100 %: faster).",
        r.repeat, r.baseline
    );
    let used: Vec<_> = MARKS
        .iter()
        .filter(|(name, _, _)| {
            r.results
                .iter()
                .flat_map(|c| &c.workloads)
                .any(|w| w.flags.iter().any(|f| f == name))
        })
        .map(|(_, mark, meaning)| format!("{mark} {meaning}"))
        .collect();
    if !used.is_empty() {
        let _ = writeln!(o, "{}", used.join(";  "));
    }
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
}
