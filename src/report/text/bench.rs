//! The human table at the end of `fsfit bench`: one row per workload, one
//! column per config, MB/s or files/s, relative to the baseline, flags.

use crate::bench::kinds::{unit_of, Unit};
use crate::bench::results::{BenchReport, ConfigResult, WorkloadResult};
use crate::units::{iec, short};
use std::fmt::Write;

/// Flags shown as a mark in the table: (flag, mark, meaning).
const MARKS: [(&str, &str, &str); 5] = [
    ("high-cv", "~", "runs vary by more than 10 % (CV)"),
    (
        "short-run",
        "<",
        "short-run: a run took under 0.1 s, too short to time well on a busy machine",
    ),
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

/// Flags saying why a figure's repeats stopped before its spread settled.
const STOPPED: [&str; 2] = ["budget-spent", "max-runs"];

/// The widest a table line may be: configs go on further pages beyond it.
pub const WIDTH: usize = 100;

pub fn bench(r: &BenchReport) -> String {
    let mut o = target(r);
    let sources = sources(r);
    let mut notes = Vec::new();
    for src in &sources {
        if let Source::Sim(p) = src {
            let _ = writeln!(
                o,
                "\nsimulated ({p}): each run's block trace replayed through profile {p}"
            );
        }
        table(&mut o, r, src, &mut notes);
    }
    footer(&mut o, r, &notes);
    if r.sim.flash.is_some() {
        let _ = writeln!(
            o,
            "Simulated: a profile is a class of device, not your stick; the host's own figures are in\n\
the JSON (--json). Each profile's parameters and their sources: fsfit bench --list-profiles"
        );
    }
    o
}

/// Where a table's figures come from.
enum Source {
    Host,
    /// The simulated figures of this flash profile.
    Sim(String),
}

/// The host's figures, or with --flash one table per profile instead.
fn sources(r: &BenchReport) -> Vec<Source> {
    match &r.sim.flash {
        Some(f) if !f.profiles.is_empty() => f.profiles.iter().cloned().map(Source::Sim).collect(),
        _ => vec![Source::Host],
    }
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

/// One row per workload, three columns per config (figure, % of the
/// baseline, flags); configs that do not fit in WIDTH go on a next page.
fn table(o: &mut String, r: &BenchReport, src: &Source, notes: &mut Vec<String>) {
    let mut names: Vec<&str> = Vec::new();
    for c in &r.results {
        for w in &c.workloads {
            if !names.contains(&w.name.as_str()) {
                names.push(&w.name);
            }
        }
    }
    let base = r
        .results
        .iter()
        .find(|c| format!("{}:{}", c.fs, short(c.cluster_bytes)) == r.baseline);
    // Per config: its three columns, header first.
    let cols: Vec<Vec<[String; 3]>> = r
        .results
        .iter()
        .map(|c| {
            let mut col = vec![[
                format!("{}:{}", c.fs, short(c.cluster_bytes)),
                String::new(),
                String::new(),
            ]];
            col.extend(
                names
                    .iter()
                    .map(|n| match c.workloads.iter().find(|w| w.name == *n) {
                        None => ["-".to_string(), String::new(), String::new()],
                        Some(w) if w.error.is_some() => {
                            ["failed".to_string(), String::new(), String::new()]
                        }
                        Some(w) => cell(c, n, w, src, base, notes),
                    }),
            );
            col
        })
        .collect();
    for page in pages(&names, &cols) {
        let mut rows: Vec<Vec<String>> = Vec::new();
        for (i, n) in std::iter::once("WORKLOAD")
            .chain(names.iter().copied())
            .enumerate()
        {
            let mut row = vec![n.to_string()];
            for c in &page {
                row.extend(cols[*c][i].iter().cloned());
            }
            rows.push(row);
        }
        let _ = writeln!(o);
        // Left: the workload names and each config's flags.
        o.push_str(&crate::report::columns(&rows, |i| i == 0 || i % 3 == 0));
    }
}

/// Configs grouped into pages whose lines fit in WIDTH (at least one each).
fn pages(names: &[&str], cols: &[Vec<[String; 3]>]) -> Vec<Vec<usize>> {
    let first = names.iter().map(|n| n.len()).max().unwrap_or(0).max(8) + 2;
    let width = |c: &Vec<[String; 3]>| -> usize {
        (0..3)
            .map(|k| {
                c.iter()
                    .map(|cell| cell[k].chars().count())
                    .max()
                    .unwrap_or(0)
                    + 2
            })
            .sum()
    };
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut used = first;
    for (i, c) in cols.iter().enumerate() {
        let w = width(c);
        match out.last_mut() {
            Some(page) if used + w <= WIDTH + 2 => page.push(i),
            _ => {
                out.push(vec![i]);
                used = first;
            }
        }
        used += w;
    }
    out
}

/// A workload's figure from `src`: MB/s, or files/s for those moving no bytes.
fn figure(n: &str, w: &WorkloadResult, src: &Source) -> Option<f64> {
    let (mb, files) = match src {
        Source::Host => (w.mb_per_s, w.files_per_s),
        Source::Sim(p) => {
            let s = w.simulated.iter().find(|s| &s.profile == p)?;
            (s.mb_per_s, s.files_per_s)
        }
    };
    Some(match unit_of(n) {
        Unit::FilesPerS => files,
        Unit::MbPerS => mb,
    })
}

/// A workload's flags for the table of `src`: a simulated table marks
/// `high-cv` when the simulated runs vary by more than 10 %, not the host's.
fn flags<'a>(w: &'a WorkloadResult, src: &Source) -> Vec<&'a str> {
    let mut out: Vec<&str> = w.flags.iter().map(String::as_str).collect();
    if let Source::Sim(p) = src {
        out.retain(|f| *f != "high-cv");
        let secs: Vec<f64> = w
            .runs
            .iter()
            .filter_map(|r| r.simulated.iter().find(|s| &s.profile == p))
            .map(|s| s.seconds)
            .collect();
        if crate::bench::stats::summarize(&secs).is_some_and(|s| s.cv_pct > 10.0) {
            out.push("high-cv");
        }
    }
    out
}

/// A figure, its % of the baseline and its flags (common ones as marks,
/// the rest as numbered notes).
fn cell(
    c: &ConfigResult,
    n: &str,
    w: &WorkloadResult,
    src: &Source,
    base: Option<&ConfigResult>,
    notes: &mut Vec<String>,
) -> [String; 3] {
    let Some(x) = figure(n, w, src) else {
        return ["-".into(), String::new(), String::new()];
    };
    let v = match unit_of(n) {
        Unit::FilesPerS => format!("{x:.0} f/s"),
        Unit::MbPerS if x < 10.0 => format!("{x:.2} MB/s"),
        Unit::MbPerS => format!("{x:.1} MB/s"),
    };
    let rel = match src {
        Source::Host => w.relative_pct,
        Source::Sim(_) => base
            .and_then(|b| b.workloads.iter().find(|bw| bw.name == n))
            .and_then(|bw| figure(n, bw, src))
            .filter(|b| *b > 0.0)
            .map(|b| x / b * 100.0),
    };
    let rel = rel.map(|p| format!("{p:.0}%")).unwrap_or_default();
    // Common flags as marks, the rest as numbered notes (once per config
    // and workload, however many tables show it).
    let mut flag = String::new();
    let mut other = Vec::new();
    for f in flags(w, src) {
        match MARKS.iter().find(|(name, _, _)| *name == f) {
            Some((_, mark, _)) => flag.push_str(mark),
            // Why the repeats stopped: counted once in the footer.
            None if STOPPED.contains(&f) => {}
            None => other.push(f),
        }
    }
    if !other.is_empty() {
        let note = format!(
            "{}:{} {}: {}",
            c.fs,
            short(c.cluster_bytes),
            n,
            other.join(", ")
        );
        let k = match notes.iter().position(|x| *x == note) {
            Some(k) => k,
            None => {
                notes.push(note);
                notes.len() - 1
            }
        };
        flag.push_str(&format!("[{}]", k + 1));
    }
    [v, rel, flag]
}

/// Units, the marks used, the notes, failures and skipped configs.
fn footer(o: &mut String, r: &BenchReport, notes: &[String]) {
    let most = r
        .results
        .iter()
        .flat_map(|c| &c.workloads)
        .map(|w| w.runs.len() as u32)
        .max()
        .unwrap_or(0);
    let runs = if most > r.repeat {
        format!("{} to {most} runs (more where the first varied)", r.repeat)
    } else {
        format!("{} runs", r.repeat)
    };
    let line = format!(
        "MB/s are decimal (10^6 B/s), medians of {runs}; % is relative to {} (above 100 %: faster).",
        r.baseline
    );
    // Two lines where one would pass 100 columns.
    let line = match line.split_once("; ") {
        Some((a, b)) if line.chars().count() > WIDTH => format!("{a};\n{b}"),
        _ => line,
    };
    let _ = writeln!(o, "\n{line}");
    let used: Vec<_> = MARKS
        .iter()
        .filter(|(name, _, _)| {
            let srcs = sources(r);
            r.results
                .iter()
                .flat_map(|c| &c.workloads)
                .any(|w| srcs.iter().any(|src| flags(w, src).contains(name)))
        })
        .map(|(_, mark, meaning)| format!("{mark} {meaning}"))
        .collect();
    if !used.is_empty() {
        // One per line: the legend fits 100 columns too.
        let _ = writeln!(o, "{}", used.join("\n"));
    }
    if let Some(line) = unsettled(r) {
        let _ = writeln!(o, "{line}");
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

/// Why the ~ figures stayed noisy, when their repeats were cut short.
fn unsettled(r: &BenchReport) -> Option<String> {
    let all: Vec<&WorkloadResult> = r.results.iter().flat_map(|c| &c.workloads).collect();
    let count = |f: &str| {
        all.iter()
            .filter(|w| w.flags.iter().any(|x| x == f))
            .count()
    };
    let (budget, max) = (count(STOPPED[0]), count(STOPPED[1]));
    if budget + max == 0 {
        return None;
    }
    let most = all.iter().map(|w| w.runs.len()).max().unwrap_or(0);
    Some(format!(
        "~ {} figures still varied after more runs ({budget} when their time ran out, {max} \
at {most} runs):\n  the machine's load changed between runs; a quieter moment would settle them",
        budget + max
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A report of `n` configs, each workload with host and simulated figures.
    fn report(n: usize, flash: bool) -> BenchReport {
        let names = [
            "single-write",
            "small-read",
            "tiny-write",
            "fragmented-write",
            "scan",
        ];
        let workloads: Vec<_> = names
            .iter()
            .map(|w| {
                json!({"name": w, "files": 1000, "bytes": 123_456_789, "median_seconds": 0.01,
                    "mb_per_s": 12345.6, "files_per_s": 100000.0, "cv_pct": 20.0,
                    "flags": ["high-cv", "cache-suspect"], "runs": [],
                    "simulated": [{"profile": "usb2-stick", "median_seconds": 20.0, "mb_per_s": 6.17,
                        "files_per_s": 50.0, "device_seconds": 19.0,
                        "flash_write_amplification": 1.2, "au_copies": 3}]})
            })
            .collect();
        let results: Vec<_> = (0..n)
            .map(|i| {
                json!({"fs": "exfat", "cluster_bytes": 512u64 << i, "driver": "fuse:exfat-fuse",
                "format_seconds": 0.1, "workloads": workloads})
            })
            .collect();
        let mut r = json!({"schema": "fsfit.bench/1", "host": {"kernel": "k", "fsfit": "0", "cpus": 2},
            "target": {"kind": "image", "path": "/x", "size_bytes": 1}, "baseline": "exfat:512",
            "results": results});
        if flash {
            r["trace"] = json!("blktrace");
            r["flash"] =
                json!({"profiles": ["usb2-stick"], "max_sectors_kb": 120, "note": "simulated"});
        }
        serde_json::from_value(r).unwrap()
    }

    #[test]
    fn tables_fit_100_columns_whatever_the_number_of_configs() {
        for n in [1, 3, 8, 20] {
            for flash in [false, true] {
                let text = bench(&report(n, flash));
                let table: Vec<&str> = text
                    .lines()
                    .skip_while(|l| !l.starts_with("WORKLOAD"))
                    .collect();
                let wide: Vec<&&str> = table.iter().filter(|l| l.chars().count() > WIDTH).collect();
                assert!(wide.is_empty(), "{n} configs: {wide:?}");
                // Every config appears in a header once.
                let heads = table.iter().filter(|l| l.starts_with("WORKLOAD")).count();
                assert!(heads >= n.div_ceil(4), "{n} configs in {heads} pages");
                assert!(text.contains("exfat:512 "));
                if flash {
                    assert!(text.contains("simulated (usb2-stick)") && text.contains("6.17 MB/s"));
                    assert!(!text.contains("12345.6"), "host figures stay in the JSON");
                    // The host's CV is not the simulated runs'.
                    assert!(!text.contains("~ runs vary"), "{text}");
                }
            }
        }
    }

    #[test]
    fn short_and_unsettled_figures_are_marked_and_explained() {
        let mut r = report(2, false);
        let run = |s: f64| crate::bench::results::Run {
            seconds: s,
            ..Default::default()
        };
        r.repeat = 3;
        let w = &mut r.results[0].workloads;
        w[0].flags = vec!["high-cv".into(), "budget-spent".into()];
        w[0].runs = (0..7).map(|i| run(0.5 + f64::from(i % 2))).collect();
        w[1].flags = vec!["short-run".into()];
        w[1].runs = vec![run(0.05); 3];
        let text = bench(&r);
        assert!(text.contains("medians of 3 to 7 runs"), "{text}");
        assert!(
            text.contains("< short-run: a run took under 0.1 s"),
            "{text}"
        );
        assert!(
            text.contains(
                "~ 1 figures still varied after more runs (1 when their time ran out, 0 at 7 runs)"
            ),
            "{text}"
        );
        assert!(!text.contains("budget-spent"), "no note per figure: {text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }
}
