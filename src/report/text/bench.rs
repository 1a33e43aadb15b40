//! The human table at the end of `fsfit bench`: one row per workload, one
//! column per config, MB/s or files/s, relative to the baseline, flags.

use crate::bench::flags::{self, Flag};
use crate::bench::kinds::{unit_of, Unit};
use crate::bench::relative::{offset_text, Source};
use crate::bench::results::{BenchReport, ConfigResult, Run, WorkloadResult};
use crate::units::{iec, short};
use std::fmt::Write;

// The widest a table line may be: configs go on further pages beyond it.
use super::WIDTH;

pub fn bench(r: &BenchReport) -> String {
    let mut o = target(r);
    let sources = sources(r);
    let mut notes = Vec::new();
    for src in &sources {
        if let Source::Sim(k) = src {
            // The offset changes what pages and AUs each request straddles:
            // a simulated figure holds only for the offset it assumed, and
            // whether that offset is "aligned" depends on the profile.
            let at = k.offset_in(r).map_or(String::new(), |b| {
                format!(", volume at {} on the flash", offset_text(b))
            });
            let fall = k
                .alignment(r)
                .map_or(String::new(), |a| format!(":\n  {}", a.said()));
            let held = k.state_said().map_or(String::new(), |s| format!("\n  {s}"));
            let _ = writeln!(
                o,
                "\nsimulated ({}): each run's block trace replayed{at}{fall}{held}",
                k.profile
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

/// With --flash, one table per profile instead of the host's.
fn sources(r: &BenchReport) -> Vec<Source> {
    let mut v = Source::of_run(r);
    if v.len() > 1 {
        v.retain(|s| *s != Source::Host);
    }
    v
}

/// The target, then each config with its driver and format time.
fn target(r: &BenchReport) -> String {
    let mut o = String::new();
    let t = &r.target;
    let _ = writeln!(
        o,
        "Target: {} {} ({}){}; scale {}, {} each; kernel {}; cold reads by {}",
        t.kind,
        t.path,
        iec(t.size_bytes),
        t.model
            .as_ref()
            .map(|m| format!(", {m}"))
            .unwrap_or_default(),
        r.scale,
        crate::units::count(u64::from(r.repeat), "run"),
        r.host.kernel,
        t.cold_cache
    );
    if let Some(p) = &r.priority {
        let _ = writeln!(o, "Runs at priority {p}");
    }
    if let Some(m) = &r.freed_memory {
        let _ = writeln!(o, "Freed memory: {m}");
    }
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
        let policy = crate::fs::policy::shown(
            &c.mount_policy,
            &c.mount_options,
            c.mount_policy_note.as_deref(),
        );
        for (i, line) in policy.iter().enumerate() {
            let _ = writeln!(o, "{}{line}", if i == 0 { "    " } else { "      " });
        }
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
    // Per config: its three columns, header first.
    let cols: Vec<Vec<[String; 3]>> = r
        .results
        .iter()
        .map(|c| {
            let mut col = vec![[c.label(), String::new(), String::new()]];
            col.extend(
                names
                    .iter()
                    .map(|n| match c.workloads.iter().find(|w| w.name == *n) {
                        None => ["-".to_string(), String::new(), String::new()],
                        Some(w) if w.error.is_some() => {
                            [flags::FAILED.to_string(), String::new(), String::new()]
                        }
                        Some(w) => cell(c, n, w, src, notes),
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

/// A figure, its % of the baseline and its flags (common ones as marks,
/// the rest as numbered notes).
fn cell(
    c: &ConfigResult,
    n: &str,
    w: &WorkloadResult,
    src: &Source,
    notes: &mut Vec<String>,
) -> [String; 3] {
    let Some(x) = src.figure(w) else {
        return ["-".into(), String::new(), String::new()];
    };
    let v = match unit_of(n) {
        Unit::FilesPerS => format!("{x:.0} f/s"),
        Unit::MbPerS if x < 10.0 => format!("{x:.2} MB/s"),
        Unit::MbPerS => format!("{x:.1} MB/s"),
    };
    let rel = src.relative_pct(w);
    let rel = rel.map(|p| format!("{p:.0}%")).unwrap_or_default();
    // Common flags as marks, the rest as numbered notes (once per config
    // and workload, however many tables show it).
    let mut flag = String::new();
    let mut other = Vec::new();
    for f in src.flags(w) {
        match flags::get(f) {
            Some(Flag { mark: Some(m), .. }) => flag.push_str(m),
            // Why the repeats stopped, or that a warm-up was set aside:
            // said once in the footer.
            Some(Flag {
                said_once: true, ..
            }) => {}
            _ => other.push(f),
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
        .map(|w| w.runs.iter().filter(|x| x.set_aside.is_none()).count() as u32)
        .max()
        .unwrap_or(0);
    let runs = if most > r.repeat {
        format!("{} to {most} runs (more where the first varied)", r.repeat)
    } else {
        crate::units::count(u64::from(r.repeat), "run")
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
    let used: Vec<_> = flags::ALL
        .iter()
        .filter_map(|f| f.mark.map(|m| (f, m)))
        .filter(|(f, _)| {
            let srcs = sources(r);
            r.results
                .iter()
                .flat_map(|c| &c.workloads)
                .any(|w| srcs.iter().any(|src| src.flags(w).contains(&f.name)))
        })
        .map(|(f, mark)| format!("{mark} {}", f.legend))
        .collect();
    if !used.is_empty() {
        // One per line: the legend fits 100 columns too.
        let _ = writeln!(o, "{}", used.join("\n"));
    }
    for line in unsettled(r) {
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

/// The figures whose runs were made of rounds, each named with its config
/// (two configs have the same workloads) and its rounds.
fn in_rounds(r: &BenchReport) -> Vec<String> {
    let name = |c: &crate::bench::results::ConfigResult, w: &WorkloadResult, n: u32| {
        format!(
            "{}:{} {} ({n})",
            c.fs,
            crate::units::short(c.cluster_bytes),
            w.name
        )
    };
    r.results
        .iter()
        .flat_map(|c| {
            c.workloads
                .iter()
                .filter_map(move |w| w.rounds.map(|n| name(c, w, n)))
        })
        .collect()
}

/// The figures whose first runs were set aside as a warm-up.
fn after_warmups(r: &BenchReport) -> Vec<String> {
    r.results
        .iter()
        .flat_map(|c| {
            c.workloads
                .iter()
                .filter(|w| w.flags.iter().any(|f| f == flags::WARM_UP))
                .map(move |w| format!("{}:{} {}", c.fs, short(c.cluster_bytes), w.name))
        })
        .collect()
}

/// Whether a run was set aside as a warm-up.
fn warmup(x: &Run) -> bool {
    x.set_aside
        .as_deref()
        .is_some_and(|r| r.starts_with(crate::bench::settle::WARMUP_ASIDE))
}

/// The runs set aside for waiting on a CPU, and why the ~ and * figures
/// stayed so when their repeats were cut short.
fn unsettled(r: &BenchReport) -> Vec<String> {
    let all: Vec<&WorkloadResult> = r.results.iter().flat_map(|c| &c.workloads).collect();
    let mut out = Vec::new();
    let runs = all.iter().map(|w| w.runs.len()).sum::<usize>();
    let short = |x: &&Run| {
        x.set_aside
            .as_deref()
            .is_some_and(|r| r.starts_with(crate::bench::settle::SHORT_ASIDE))
    };
    let aside = all
        .iter()
        .flat_map(|w| &w.runs)
        .filter(|x| x.set_aside.is_some() && !short(x) && !warmup(x))
        .count();
    let warmed = after_warmups(r);
    if !warmed.is_empty() {
        let first = all
            .iter()
            .flat_map(|w| &w.runs)
            .filter(|x| warmup(x))
            .count();
        let figures = crate::units::count(warmed.len() as u64, "figure");
        let line = format!(
            "{figures} came from {} runs after the first one or two, which agreed within {:.0} % \
where all did not ({} set aside as a warm-up, kept in the JSON): {}",
            if warmed.len() == 1 { "its" } else { "their" },
            crate::bench::settle::QUICK.cv_pct,
            crate::units::count(first as u64, "first run"),
            warmed.join(", ")
        );
        out.push(super::wrap(&line, WIDTH));
    }
    let rounds = in_rounds(r);
    if !rounds.is_empty() {
        let shorts = all.iter().flat_map(|w| &w.runs).filter(short).count();
        // One figure is common on a quick run: "1 figure", not "1 figures".
        let figures = crate::units::count(rounds.len() as u64, "figure");
        let their = if rounds.len() == 1 { "its" } else { "their" };
        let line = format!(
            "{figures} timed a run under {} s, so each of {their} runs is several rounds of the \
workload (timed parts summed; {} set aside, kept in the JSON): {}",
            crate::bench::settle::MIN_RUN_SECONDS,
            crate::units::count(shorts as u64, "short run"),
            rounds.join(", ")
        );
        out.push(super::wrap(&line, WIDTH));
    }
    if aside > 0 {
        let (were, their) = if aside == 1 {
            ("was", "its")
        } else {
            ("were", "their")
        };
        out.push(format!(
            "{aside} of {runs} runs {were} set aside and run again: {their} tasks waited for a CPU \
over {:.0} %\n  of the run; the figures come from the others (the JSON keeps them all, \
marked set_aside)",
            crate::bench::settle::BUSY_SHARE * 100.0
        ));
    }
    let count = |f: &str| {
        all.iter()
            .filter(|w| w.flags.iter().any(|x| x == f))
            .count()
    };
    let (budget, max) = (count(flags::BUDGET_SPENT), count(flags::MAX_RUNS));
    if budget + max > 0 {
        let most = all.iter().map(|w| w.runs.len()).max().unwrap_or(0);
        out.push(format!(
            "{} did not settle ({budget} when {} time ran out, {max} at {most} runs):\n  \
other programs shared the disk and the kernel's threads; a quieter moment would settle them",
            crate::units::count((budget + max) as u64, "figure"),
            if budget == 1 { "its" } else { "their" }
        ));
    }
    out
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
        // As `fsfit report` reads a file: the relative figures filled in.
        let mut r = serde_json::from_value(r).unwrap();
        crate::bench::relative::complete_loaded(&mut r);
        r
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
        let mut r = quick_report();
        let w = &mut r.results[0].workloads;
        w[0].flags = vec!["high-cv".into(), "budget-spent".into()];
        w[0].runs = (0..7).map(|i| run(0.5 + f64::from(i % 2))).collect();
        w[1].flags = vec!["short-run".into()];
        w[1].runs = vec![run(0.05); 3];
        w[2].flags = vec!["cpu-wait".into(), "max-runs".into()];
        w[2].runs = vec![run(0.4); 10];
        for x in &mut w[2].runs[..7] {
            x.set_aside = Some("waited".into());
        }
        let text = bench(&r);
        assert!(text.contains("medians of 3 to 7 runs"), "{text}");
        assert!(
            text.contains("< short-run: a run took under 0.1 s"),
            "{text}"
        );
        assert!(
            text.contains("2 figures did not settle (1 when its time ran out, 1 at 10 runs)"),
            "{text}"
        );
        assert!(
            text.contains("* cpu-wait: its runs waited for a CPU over 10 %"),
            "{text}"
        );
        assert!(
            text.contains("7 of 20 runs were set aside and run again"),
            "{text}"
        );
        assert!(!text.contains("budget-spent"), "no note per figure: {text}");
        assert!(!text.contains("max-runs"), "no note per figure: {text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(!text.contains("rounds"), "{text}");
        // A figure whose runs were made of rounds: said apart, and its
        // short runs not counted as waiting for a CPU.
        let w = &mut r.results[1].workloads[0];
        w.rounds = Some(3);
        let mut short = run(0.06);
        short.set_aside = Some(crate::bench::settle::short_aside_reason(0.06, 3));
        w.runs = vec![short, run(0.2), run(0.21), run(0.2)];
        let text = bench(&r);
        assert!(
            text.contains("7 of 24 runs were set aside and run again"),
            "{text}"
        );
        assert!(
            text.contains("1 figure timed a run under 0.1 s, so each of its runs is several"),
            "{text}"
        );
        assert!(text.contains("1 short run set aside"), "{text}");
        let c = &r.results[1];
        let named = format!(
            "{}:{} {} (3)",
            c.fs,
            crate::units::short(c.cluster_bytes),
            w_name(&r)
        );
        assert!(text.contains(&named), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        // One run set aside is said in the singular.
        for x in &mut r.results[0].workloads[2].runs[1..7] {
            x.set_aside = None;
        }
        let text = bench(&r);
        assert!(
            text.contains("1 of 24 runs was set aside and run again: its tasks waited"),
            "{text}"
        );
    }

    #[test]
    fn a_warm_up_set_aside_is_said_once_under_the_table() {
        let mut r = quick_report();
        // A figure after a warm-up: named once under the table, its first
        // runs not counted as runs that waited, no numbered note for the flag.
        let w = &mut r.results[1].workloads[1];
        w.flags = vec![flags::WARM_UP.into()];
        let mut first = vec![run(0.25), run(0.4)];
        for x in &mut first {
            x.set_aside = Some(crate::bench::settle::warmup_reason());
        }
        w.runs = first.into_iter().chain(vec![run(0.7); 5]).collect();
        let text = bench(&r);
        let one_line = text.replace("\n  ", " ");
        assert!(
            one_line.contains(
                "1 figure came from its runs after the first one or two, which agreed within 10 %"
            ),
            "{text}"
        );
        assert!(
            one_line.contains("(2 first runs set aside as a warm-up"),
            "{text}"
        );
        assert!(!text.contains("set aside and run again"), "{text}");
        assert!(!text.contains(": warm-up"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }

    /// Two configs' figures as `--quick` makes them: three runs asked for.
    fn quick_report() -> BenchReport {
        let mut r = report(2, false);
        r.repeat = 3;
        r
    }

    /// A run of `seconds`, nothing else known.
    fn run(seconds: f64) -> Run {
        Run {
            seconds,
            ..Default::default()
        }
    }

    fn w_name(r: &BenchReport) -> String {
        r.results[1].workloads[0].name.clone()
    }
}
