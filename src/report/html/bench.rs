//! The section of one benchmark run: environment, per-workload tables and
//! charts, relative speed, write amplification, fragmentation.

use super::{flags_html, kv, shell_line, signed_pct, Out};
use crate::bench::relative::Source;
use crate::bench::results::{BenchReport, ConfigResult};
use crate::report::charts::figures::{self, config_name, find, ok, throughput, unit, FRAG};
use crate::report::charts::{esc, num};
use crate::report::inputs::Named;
use crate::units::iec;
use std::fmt::Write;

fn bench_env(o: &mut Out, r: &Named<BenchReport>) {
    let mut s = String::new();
    s.push_str("<h3>Environment</h3>\n<table class=\"kv\">\n");
    env_rows(&mut s, r);
    s.push_str("</table>\n");
    config_table(&mut s, &r.doc);
    o.push(&s);
}

/// The run's rows of the environment table: file, command, host, target.
fn env_rows(s: &mut String, r: &Named<BenchReport>) {
    let d = &r.doc;
    let t = &d.target;
    kv(s, "Results file", &esc(&r.source));
    kv(s, "fsfit", &esc(&d.host.fsfit));
    if !d.command.is_empty() {
        kv(
            s,
            "Command",
            &format!(
                "<code class=\"cmd\">{}</code>",
                esc(&shell_line(&d.command))
            ),
        );
    }
    kv(s, "Date", &esc(&d.date));
    kv(s, "Kernel", &esc(&d.host.kernel));
    if let Some(lab) = &d.host.lab {
        kv(
            s,
            "Lab run",
            &format!(
                "{}: a virtual machine's figures check that each driver works; they are not the device's speed",
                esc(lab)
            ),
        );
    }
    kv(s, "CPUs", &d.host.cpus.to_string());
    let what = match t.kind.as_str() {
        "image" => "Image file",
        "device" => "Device",
        "dir" => "Mounted directory",
        _ => "Target",
    };
    kv(
        s,
        "Target",
        &format!(
            "{} <code>{}</code>, {}",
            esc(what),
            esc(&t.path),
            esc(&iec(t.size_bytes))
        ),
    );
    kv(s, "Device model", &esc(t.model.as_deref().unwrap_or("")));
    kv(s, "Bus", &esc(t.bus.as_deref().unwrap_or("")));
    kv(s, "Device counters from", &esc(&t.counters));
    kv(s, "Caches made cold by", &esc(&t.cold_cache));
    if let Some(p) = &d.priority {
        kv(s, "Runs at priority", &esc(p));
    }
    if let Some(m) = &d.freed_memory {
        kv(s, "Freed memory", &esc(m));
    }
    kv(
        s,
        "Scale, repeats",
        &format!(
            "{} × the documents' sizes, {} per workload",
            d.scale,
            crate::units::count(u64::from(d.repeat), "run")
        ),
    );
    kv(s, "Baseline", &esc(&d.baseline));
}

/// Every config of the run: driver, mkfs, mount options, format time and
/// whether it ran.
fn config_table(s: &mut String, d: &BenchReport) {
    s.push_str("<table>\n<thead><tr><th>Config</th><th>Driver</th><th>mkfs command (tool version)</th><th>Mount policy and options</th><th class=\"n\">Format time</th><th>Status</th></tr></thead>\n<tbody>\n");
    for c in &d.results {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td class=\"n\">{:.3} s</td><td>{}</td></tr>",
            esc(&config_name(c)),
            esc(&c.driver),
            esc(&c.mkfs),
            esc(&crate::fs::policy::shown(
                &c.mount_policy,
                &c.mount_options,
                c.mount_policy_note.as_deref()
            ).join("; ")),
            c.format_seconds,
            match &c.error {
                Some(e) => format!("<span class=\"bad\">failed: {}</span>", esc(e)),
                None => "ran".into(),
            }
        );
    }
    for k in &d.skipped {
        let _ = writeln!(
            s,
            "<tr><td>{}:{}</td><td colspan=\"4\"></td><td>skipped: {}</td></tr>",
            esc(&k.fs),
            esc(&crate::units::short(k.cluster_bytes)),
            esc(&k.reason)
        );
    }
    s.push_str("</tbody></table>\n");
}

/// The table beside one workload's chart, of `src`'s figures.
fn workload_table(r: &BenchReport, name: &str, src: &Source) -> String {
    let u = unit(name);
    let base = if r.baseline.is_empty() {
        "baseline".to_string()
    } else {
        r.baseline.clone()
    };
    let mut s = format!(
        "<table>\n<caption class=\"note\">{}{} — medians of {}</caption>\n<thead><tr><th>Config</th><th class=\"n\">Median {u}</th><th class=\"n\" title=\"slowest run to fastest run\">Min–max</th><th class=\"n\" title=\"coefficient of variation of the run times\">CV</th><th class=\"n\">vs {}</th><th class=\"n\">Median time</th><th>Flags</th></tr></thead>\n<tbody>\n",
        esc(&figures::source_title(src)),
        esc(name),
        crate::units::count(u64::from(r.repeat), "run"),
        esc(&base)
    );
    for c in &r.results {
        let Some(w) = c.workloads.iter().find(|w| w.name == name) else {
            continue;
        };
        let (true, Some(x), Some(t)) = (ok(w), src.figure(w), src.median_seconds(w)) else {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td colspan=\"5\" class=\"bad\">failed: {}</td><td>{}</td></tr>",
                esc(&config_name(c)),
                esc(w.error.as_deref().unwrap_or("no runs")),
                flags_html(&w.flags)
            );
            continue;
        };
        let range = src
            .spread(w)
            .map(|(a, z)| format!("{}–{}", num(a), num(z)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1} %</td><td class=\"n\">{}</td><td class=\"n\">{} s</td><td>{}</td></tr>",
            esc(&config_name(c)),
            num(x),
            range,
            src.cv_pct(w),
            src.relative_pct(w).map(|p| format!("{p:.0} %")).unwrap_or_default(),
            num(t),
            flags_html(&src.flags(w))
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

/// A table of the run's workloads (rows) by its configs (columns), each
/// cell's HTML made by `cell` from the config and the workload's name:
/// the relative speeds here, the simulated figures in flash.rs.
pub(super) fn workload_grid(
    r: &BenchReport,
    cell: impl Fn(&ConfigResult, &str) -> String,
) -> String {
    let mut s = String::from("<table>\n<thead><tr><th>Workload</th>");
    for c in &r.results {
        let _ = write!(s, "<th class=\"n\">{}</th>", esc(&config_name(c)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for n in figures::workload_names(r) {
        let _ = write!(s, "<tr><td>{}</td>", esc(&n));
        for c in &r.results {
            let _ = write!(s, "<td class=\"n\">{}</td>", cell(c, &n));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

fn relative_table(r: &BenchReport, src: &Source) -> String {
    workload_grid(r, |c, n| {
        let v = find(c, n).and_then(|w| src.relative_pct(w));
        v.map(|p| format!("{p:.0} %")).unwrap_or_else(|| "–".into())
    })
}

fn amplification_table(r: &BenchReport) -> String {
    let mut s = String::from("<table>\n<thead><tr><th>Workload</th><th>Config</th><th class=\"n\">Asked</th><th class=\"n\" title=\"median of the runs\">Device wrote</th><th class=\"n\">Ratio</th></tr></thead>\n<tbody>\n");
    for n in figures::workload_names(r)
        .into_iter()
        .filter(|n| figures::is_write(n))
    {
        for c in &r.results {
            let Some(w) = find(c, &n) else { continue };
            let (Some(a), Some(d)) = (figures::amplification(w), figures::device_written(w)) else {
                continue;
            };
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}×</td></tr>",
                esc(&n),
                esc(&config_name(c)),
                esc(&iec(w.bytes)),
                esc(&iec(d as u64)),
                num(a)
            );
        }
    }
    s.push_str("</tbody></table>\n");
    s
}

fn fragmentation_table(r: &BenchReport) -> String {
    let mut s = String::from("<table>\n<thead><tr><th>Config</th><th class=\"n\">single-write</th><th class=\"n\">fragmented-write</th><th class=\"n\">change</th><th class=\"n\">single-read</th><th class=\"n\">fragmented-read</th><th class=\"n\">change</th><th class=\"n\">Extents written</th></tr></thead>\n<tbody>\n");
    for c in &r.results {
        let w: Vec<_> = FRAG.iter().map(|n| find(c, n)).collect();
        if w.iter().all(Option::is_none) {
            continue;
        }
        let cell = |i: usize| {
            w[i].map(|w| format!("{} MB/s", num(throughput(w))))
                .unwrap_or_else(|| "–".into())
        };
        let change = |a: usize, b: usize| match (w[a], w[b]) {
            (Some(a), Some(b)) => figures::diff_pct(throughput(a), throughput(b))
                .map(signed_pct)
                .unwrap_or_default(),
            _ => String::new(),
        };
        let extents = w[1]
            .and_then(|w| w.runs.iter().filter_map(|r| r.extents).max())
            .map(|e| e.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&config_name(c)),
            cell(0),
            cell(1),
            change(0, 1),
            cell(2),
            cell(3),
            change(2, 3),
            extents
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

pub(super) fn bench_section(o: &mut Out, i: usize, r: &Named<BenchReport>) {
    let id = format!("bench-{}", i + 1);
    let _ = writeln!(
        o.html,
        "<section id=\"{id}\">\n<h2>Benchmark: {}</h2>",
        esc(&r.label)
    );
    bench_env(o, r);
    let d = &r.doc;
    // A --flash run is about the drive: its simulated panels come first.
    for src in Source::of_run(d) {
        match &src {
            Source::Sim(k) => {
                let pid = format!("{id}-sim-{}", figures::slug(&k.label()));
                super::flash::intro(o, d, k);
                workload_panels(o, &pid, d, &src);
                relative_panel(o, &pid, d, &src);
                super::flash::device_panel(o, d, k);
            }
            Source::Host => {
                workload_panels(o, &id, d, &src);
                relative_panel(o, &id, d, &src);
            }
        }
    }
    extra_panels(o, &id, d);
    flags(o, d);
    errors(o, d);
    o.push("</section>\n");
}

/// What a heading of the host's figures adds in a --flash run, where the
/// simulated figures are the drive's and the host's are not.
fn host_label(d: &BenchReport) -> &'static str {
    match (&d.sim.flash, d.target.kind.as_str()) {
        (None, _) => "",
        (Some(_), "image") => ": this machine's image, not a drive",
        (Some(_), _) => ": measured on the drive itself, not simulated",
    }
}

/// A panel's heading for `src`'s figures.
fn heading(d: &BenchReport, src: &Source, what: &str) -> String {
    match src {
        Source::Sim(k) => format!("Simulated on {}: {}", esc(&k.label()), what.to_lowercase()),
        Source::Host => format!("{what}{}", host_label(d)),
    }
}

/// A chart and a table per workload, of `src`'s figures.
fn workload_panels(o: &mut Out, id: &str, d: &BenchReport, src: &Source) {
    let _ = writeln!(
        o.html,
        "<h3>{}</h3>\n<p class=\"note\">Bars: median of the runs; whiskers: slowest to fastest run. MB/s are decimal (10<sup>6</sup> bytes per second); tiny-file, scan and delete workloads count files per second.</p>",
        heading(d, src, "Throughput per workload")
    );
    for n in figures::workload_names(d) {
        let chart = figures::workload_chart(&format!("{id}-{}", figures::slug(&n)), d, &n, src);
        let _ = writeln!(o.html, "<h4>{}</h4>\n<div class=\"pair\">", esc(&n));
        match chart {
            Some(c) => o.figure(c),
            None => o.push("<p class=\"bad\">No config completed this workload.</p>\n"),
        }
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            workload_table(d, &n, src)
        );
    }
}

/// Each config against the baseline on `src`, where the run has two.
fn relative_panel(o: &mut Out, id: &str, d: &BenchReport, src: &Source) {
    if let Some(c) = figures::relative_chart(&format!("{id}-relative"), d, src) {
        let _ = write!(
            o.html,
            "<h3>{}</h3>\n<p class=\"note\">Each config's median time against the baseline's, per workload; above 100 % is faster.</p>\n<div class=\"pair\">",
            heading(d, src, "Relative to the baseline")
        );
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            relative_table(d, src)
        );
    }
}

/// The charts a run has only sometimes: write amplification, fragmented
/// against contiguous.
fn extra_panels(o: &mut Out, id: &str, d: &BenchReport) {
    if let Some(c) = figures::amplification_chart(&format!("{id}-amplification"), d) {
        let _ = write!(
            o.html,
            "<h3>{}</h3>\n<p class=\"note\">What the block device's own counters say was written, over what the workload asked to write.</p>\n<div class=\"pair\">",
            heading(d, &Source::Host, "Device write amplification")
        );
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            amplification_table(d)
        );
    }
    if let Some(c) = figures::fragmentation_chart(&format!("{id}-fragmentation"), d) {
        let _ = write!(
            o.html,
            "<h3>{}</h3>\n<div class=\"pair\">",
            heading(d, &Source::Host, "Fragmented against contiguous")
        );
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side below\">{}</div></div>",
            fragmentation_table(d)
        );
    }
}

/// What each flag raised in the run means.
fn flags(o: &mut Out, d: &BenchReport) {
    let mut flags: Vec<&str> = Vec::new();
    for w in d.results.iter().flat_map(|c| &c.workloads) {
        for f in &w.flags {
            if !flags.contains(&f.as_str()) {
                flags.push(f);
            }
        }
    }
    if !flags.is_empty() {
        o.push("<h3>Flags</h3>\n<dl>\n");
        for f in flags {
            let _ = writeln!(
                o.html,
                "<dt><span class=\"flag\">{}</span></dt><dd>{}</dd>",
                esc(f),
                esc(crate::bench::flags::meaning(f))
            );
        }
        o.push("</dl>\n");
    }
}

/// The workloads that failed, with their errors.
fn errors(o: &mut Out, d: &BenchReport) {
    let errors: Vec<String> = d
        .results
        .iter()
        .flat_map(|c| {
            c.workloads.iter().filter_map(move |w| {
                w.error
                    .as_ref()
                    .map(|e| format!("{} {}: {}", config_name(c), w.name, e))
            })
        })
        .collect();
    if !errors.is_empty() {
        o.push("<h3>Errors</h3>\n<ul>\n");
        for e in errors {
            let _ = writeln!(o.html, "<li class=\"bad\">{}</li>", esc(&e));
        }
        o.push("</ul>\n");
    }
}
