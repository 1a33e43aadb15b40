//! The HTML report: one self-contained page (inline CSS and SVG, no script,
//! nothing fetched when it is viewed) from any mix of `fsfit bench` and
//! `fsfit usage` results, with a print stylesheet.

use super::charts::figures::{self, config_name, find, ok, throughput, unit, FRAG};
use super::charts::{esc, num, Chart};
use crate::bench::results::{BenchReport, ConfigResult, SCHEMA as BENCH_SCHEMA};
use crate::units::iec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// `fsfit usage --json` read back: the contract's fields, lenient about the
/// ones added later.
#[derive(Clone, Debug, Deserialize)]
pub struct UsageDoc {
    pub volume_bytes: u64,
    #[serde(default)]
    pub paths: Vec<String>,
    pub tree: UsageTree,
    pub configs: Vec<UsageConfig>,
    #[serde(default)]
    pub refused: Vec<UsageRefused>,
    #[serde(default)]
    pub skipped_mounts: u64,
    /// Added to fsfit.usage/1 later: absent in older files.
    #[serde(default)]
    pub fsfit: String,
    #[serde(default)]
    pub date: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct UsageTree {
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub other: u64,
    pub apparent_bytes: u64,
    pub errors: u64,
    #[serde(default)]
    pub non_utf8_names: u64,
    #[serde(default)]
    pub control_char_names: u64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct UsageConfig {
    pub fs: String,
    pub cluster_bytes: u64,
    pub free_bytes: u64,
    pub tree_bytes: u64,
    pub data_bytes: u64,
    pub slack_bytes: u64,
    pub metadata_bytes: u64,
    pub overhead_pct: f64,
    pub fits: bool,
    pub exact: bool,
    pub problems: BTreeMap<String, u64>,
    #[serde(default)]
    pub problem_examples: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub default_cluster: bool,
}

#[derive(Clone, Debug, Deserialize)]
pub struct UsageRefused {
    pub fs: String,
    pub cluster_bytes: u64,
    pub reason: String,
}

/// One input file's results, as the report names them.
#[derive(Clone, Debug)]
pub struct Named<T> {
    /// Short name shown in headings, legends and comparisons.
    pub label: String,
    /// Where it came from: the file, or the run that made it.
    pub source: String,
    pub doc: T,
}

pub enum Input {
    Bench(Box<BenchReport>),
    Usage(Box<UsageDoc>),
    Advise(Box<super::advice_html::AdviseDoc>),
}

/// Read a results file; the `schema` field says which kind it is.
pub fn load(path: &Path) -> Result<Input, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(bytes: &[u8]) -> Result<Input, String> {
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        format!("not fsfit results (not JSON: {e}); give fsfit bench --json or fsfit usage --json output")
    })?;
    let schema = v
        .get("schema")
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    let schema = schema.as_str();
    let one_line = |e: serde_json::Error| format!("{schema} results that do not parse: {e}");
    if schema == BENCH_SCHEMA {
        Ok(Input::Bench(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema == crate::usage::SCHEMA {
        Ok(Input::Usage(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema == crate::advise::SCHEMA {
        Ok(Input::Advise(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema.is_empty() {
        Err(format!(
            "not fsfit results (no \"schema\" field; expected {BENCH_SCHEMA}, {} or {})",
            crate::usage::SCHEMA,
            crate::advise::SCHEMA
        ))
    } else {
        Err(format!(
            "schema \"{schema}\" is not one fsfit report reads ({BENCH_SCHEMA}, {} or {})",
            crate::usage::SCHEMA,
            crate::advise::SCHEMA
        ))
    }
}

/// The inputs of one report, bench and usage apart, in the order given.
#[derive(Default)]
pub struct Inputs {
    pub bench: Vec<Named<BenchReport>>,
    pub usage: Vec<Named<UsageDoc>>,
    pub advice: Vec<Named<super::advice_html::AdviseDoc>>,
}

impl Inputs {
    /// Add one input; labels are made unique by a number.
    pub fn add(&mut self, label: &str, source: &str, input: Input) {
        let taken = |l: &str| {
            self.bench.iter().any(|b| b.label == l)
                || self.usage.iter().any(|u| u.label == l)
                || self.advice.iter().any(|a| a.label == l)
        };
        let mut name = label.to_string();
        let mut n = 2;
        while taken(&name) {
            name = format!("{label} ({n})");
            n += 1;
        }
        match input {
            Input::Bench(r) => self.bench.push(Named {
                label: name,
                source: source.into(),
                doc: *r,
            }),
            Input::Usage(u) => self.usage.push(Named {
                label: name,
                source: source.into(),
                doc: *u,
            }),
            Input::Advise(mut a) => {
                // Its evidence is drawn like any bench and usage results.
                for (i, m) in std::mem::take(&mut a.measurements).into_iter().enumerate() {
                    let round = format!("{name} round {}", i + 1);
                    self.add(&round, source, Input::Bench(Box::new(m)));
                }
                if let Some(u) = a.usage.take() {
                    self.add(&format!("{name} sizes"), source, Input::Usage(Box::new(u)));
                }
                self.advice.push(Named {
                    label: name,
                    source: source.into(),
                    doc: *a,
                });
            }
        }
    }
}

/// The page and its charts (for `--png`).
pub struct Page {
    pub html: String,
    pub charts: Vec<Chart>,
}

/// What each flag means, for the glossary.
fn flag_meaning(f: &str) -> &'static str {
    match f {
        "cache-suspect" => "the device delivered less than 90 % of the bytes read (or nothing, for a scan): the figure probably comes from a cache, not the drive",
        "write-not-durable" => "the device wrote less than 90 % of the bytes asked within the timing: part of the write may not have reached the drive",
        "high-cv" => "the runs differ by more than 10 % (coefficient of variation): take the median with care, or run more repeats",
        "no-device-counters" => "no block-device counters were available: the cache and durability checks could not run",
        "cache-drop-partial" => "caches could only be dropped per file (posix_fadvise), not globally",
        "failed" => "the workload failed; see the error",
        _ => "",
    }
}

/// A command line as one would type it again.
fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const CSS: &str = r#"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif;
  margin: 0 auto; max-width: 1400px; padding: 1rem 1.5rem 3rem; color: #1a1a1a; background: #fff; line-height: 1.4; }
h1 { margin: .2em 0; } h2 { margin-top: 2.2em; border-bottom: 2px solid #0072B2; padding-bottom: .2em; }
h3 { margin-top: 1.6em; } h4 { margin: 1em 0 .3em; }
code, .cmd { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: .9em; }
.cmd { white-space: pre-wrap; word-break: break-all; background: #f4f4f4; padding: .1em .3em; }
table { border-collapse: collapse; margin: .4em 0 1em; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 12em; }
.pair { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; margin: 1em 0; }
.pair > figure { flex: 0 1 auto; }
.pair > .side { flex: 1 1 420px; overflow-x: auto; }
.pair > .side.below { flex-basis: 100%; }
.side table { font-size: .85em; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem 1.5rem; }
.grid > figure { flex: 0 1 auto; }
figure { margin: 0; }
figure svg { display: block; max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .85em; color: #333; margin-top: .3em; }
.flag { display: inline-block; white-space: nowrap; background: #fbe3d0; border: 1px solid #D55E00; border-radius: 3px; padding: 0 .3em; margin: 0 .2em .1em 0; font-size: .85em; }
.bad { color: #a33b00; font-weight: bold; }
.note { color: #444; font-size: .9em; }
.pos { color: #006d4f; } .neg { color: #a33b00; }
nav ol { columns: 2; } nav a { color: #0057a0; }
ul.ex { margin: 0; padding-left: 1.2em; } ul.ex li { word-break: break-all; }
@media print {
  @page { margin: 14mm; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { max-width: none; padding: 0; font-size: 9.5pt; }
  nav { display: none; }
  h2 { break-before: page; } h2, h3, h4 { break-after: avoid; }
  figure, tr, .pair > .side table { break-inside: avoid; }
  .pair, .grid { display: block; }
  .pair > figure, .grid > figure { margin-bottom: .8em; }
  figure svg { border: none; }
  a { color: inherit; text-decoration: none; }
}
"#;

/// Builds the page, numbering figures and collecting charts.
struct Out {
    html: String,
    charts: Vec<Chart>,
}

impl Out {
    fn figure(&mut self, c: Chart) {
        let n = self.charts.len() + 1;
        // The caption shows the chart's first sentence; the full text
        // alternative (with every figure) is the SVG's <desc>.
        let first = c.desc.split(". ").next().unwrap_or(&c.desc);
        let first = first.trim_end_matches('.');
        let _ = write!(
            self.html,
            "<figure id=\"fig-{id}\" class=\"chart\" style=\"{style}\" aria-label=\"Figure {n}: {t}\">\n{svg}\n<figcaption><strong>Figure {n}.</strong> {cap}.</figcaption>\n</figure>\n",
            id = esc(&c.id),
            style = c
                .width()
                .map(|w| format!("flex-basis: {w}px; max-width: {}px", w + 2))
                .unwrap_or_default(),
            t = esc(&c.title),
            svg = c.svg.trim(),
            cap = esc(first),
        );
        self.charts.push(c);
    }
    fn push(&mut self, s: &str) {
        self.html.push_str(s);
    }
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn kv(o: &mut String, k: &str, v: &str) {
    if !v.is_empty() {
        let _ = writeln!(o, "<tr><th scope=\"row\">{}</th><td>{v}</td></tr>", esc(k));
    }
}

fn flags_html(flags: &[String]) -> String {
    flags
        .iter()
        .map(|f| {
            format!(
                "<span class=\"flag\" title=\"{}\">{}</span>",
                esc(flag_meaning(f)),
                esc(f)
            )
        })
        .collect::<Vec<_>>()
        .join("")
}

fn signed_pct(p: f64) -> String {
    let cls = if p > 0.0 {
        "pos"
    } else if p < 0.0 {
        "neg"
    } else {
        ""
    };
    format!("<span class=\"{cls}\">{p:+.1} %</span>")
}

fn bench_env(o: &mut Out, r: &Named<BenchReport>) {
    let d = &r.doc;
    let t = &d.target;
    let mut s = String::new();
    s.push_str("<h3>Environment</h3>\n<table class=\"kv\">\n");
    kv(&mut s, "Results file", &esc(&r.source));
    kv(&mut s, "fsfit", &esc(&d.host.fsfit));
    if !d.command.is_empty() {
        kv(
            &mut s,
            "Command",
            &format!(
                "<code class=\"cmd\">{}</code>",
                esc(&shell_line(&d.command))
            ),
        );
    }
    kv(&mut s, "Date", &esc(&d.date));
    kv(&mut s, "Kernel", &esc(&d.host.kernel));
    if let Some(lab) = &d.host.lab {
        kv(
            &mut s,
            "Lab run",
            &format!(
                "{}: a virtual machine's figures check that each driver works; they are not the device's speed",
                esc(lab)
            ),
        );
    }
    kv(&mut s, "CPUs", &d.host.cpus.to_string());
    let what = match t.kind.as_str() {
        "image" => "Image file",
        "device" => "Device",
        "dir" => "Mounted directory",
        _ => "Target",
    };
    kv(
        &mut s,
        "Target",
        &format!(
            "{} <code>{}</code>, {}",
            esc(what),
            esc(&t.path),
            esc(&iec(t.size_bytes))
        ),
    );
    kv(
        &mut s,
        "Device model",
        &esc(t.model.as_deref().unwrap_or("")),
    );
    kv(&mut s, "Bus", &esc(t.bus.as_deref().unwrap_or("")));
    kv(&mut s, "Device counters from", &esc(&t.counters));
    kv(&mut s, "Caches made cold by", &esc(&t.cold_cache));
    kv(
        &mut s,
        "Scale, repeats",
        &format!(
            "{} × the documents' sizes, {} runs per workload",
            d.scale, d.repeat
        ),
    );
    kv(&mut s, "Baseline", &esc(&d.baseline));
    s.push_str("</table>\n<table>\n<thead><tr><th>Config</th><th>Driver</th><th>mkfs command (tool version)</th><th>Mount options</th><th class=\"n\">Format time</th><th>Status</th></tr></thead>\n<tbody>\n");
    for c in &d.results {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td class=\"n\">{:.3} s</td><td>{}</td></tr>",
            esc(&config_name(c)),
            esc(&c.driver),
            esc(&c.mkfs),
            esc(if c.mount_options.is_empty() { "(defaults)" } else { &c.mount_options }),
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
    o.push(&s);
}

/// The table beside one workload's chart.
fn workload_table(r: &BenchReport, name: &str) -> String {
    let u = unit(name);
    let base = if r.baseline.is_empty() {
        "baseline".to_string()
    } else {
        r.baseline.clone()
    };
    let mut s = format!(
        "<table>\n<caption class=\"note\">{} — medians of {} runs</caption>\n<thead><tr><th>Config</th><th class=\"n\">Median {u}</th><th class=\"n\" title=\"slowest run to fastest run\">Min–max</th><th class=\"n\" title=\"coefficient of variation of the run times\">CV</th><th class=\"n\">vs {}</th><th class=\"n\">Median time</th><th>Flags</th></tr></thead>\n<tbody>\n",
        esc(name),
        r.repeat,
        esc(&base)
    );
    for c in &r.results {
        let Some(w) = c.workloads.iter().find(|w| w.name == name) else {
            continue;
        };
        if !ok(w) {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td colspan=\"5\" class=\"bad\">failed: {}</td><td>{}</td></tr>",
                esc(&config_name(c)),
                esc(w.error.as_deref().unwrap_or("no runs")),
                flags_html(&w.flags)
            );
            continue;
        }
        let range = figures::spread(w)
            .map(|(a, z)| format!("{}–{}", num(a), num(z)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1} %</td><td class=\"n\">{}</td><td class=\"n\">{} s</td><td>{}</td></tr>",
            esc(&config_name(c)),
            num(throughput(w)),
            range,
            w.cv_pct,
            w.relative_pct.map(|p| format!("{p:.0} %")).unwrap_or_default(),
            num(w.median_seconds),
            flags_html(&w.flags)
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

fn relative_table(r: &BenchReport) -> String {
    let mut s = String::from("<table>\n<thead><tr><th>Workload</th>");
    for c in &r.results {
        let _ = write!(s, "<th class=\"n\">{}</th>", esc(&config_name(c)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for n in figures::workload_names(r) {
        let _ = write!(s, "<tr><td>{}</td>", esc(&n));
        for c in &r.results {
            let v = find(c, &n).and_then(|w| w.relative_pct);
            let _ = write!(
                s,
                "<td class=\"n\">{}</td>",
                v.map(|p| format!("{p:.0} %")).unwrap_or_else(|| "–".into())
            );
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
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

fn bench_section(o: &mut Out, i: usize, r: &Named<BenchReport>) {
    let id = format!("bench-{}", i + 1);
    let _ = writeln!(
        o.html,
        "<section id=\"{id}\">\n<h2>Benchmark: {}</h2>",
        esc(&r.label)
    );
    bench_env(o, r);
    let d = &r.doc;

    o.push("<h3>Throughput per workload</h3>\n<p class=\"note\">Bars: median of the runs; whiskers: slowest to fastest run. MB/s are decimal (10<sup>6</sup> bytes per second); tiny-file, scan and delete workloads count files per second.</p>\n");
    for n in figures::workload_names(d) {
        let chart = figures::workload_chart(&format!("{id}-{}", figures::slug(&n)), d, &n);
        let _ = writeln!(o.html, "<h4>{}</h4>\n<div class=\"pair\">", esc(&n));
        match chart {
            Some(c) => o.figure(c),
            None => o.push("<p class=\"bad\">No config completed this workload.</p>\n"),
        }
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            workload_table(d, &n)
        );
    }

    if let Some(c) = figures::relative_chart(&format!("{id}-relative"), d) {
        o.push("<h3>Relative to the baseline</h3>\n<p class=\"note\">As the FAT32/exFAT/NTFS comparison (001) draws it: each config's median time against the baseline's, per workload; above 100 % is faster.</p>\n<div class=\"pair\">");
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            relative_table(d)
        );
    }
    if let Some(c) = figures::amplification_chart(&format!("{id}-amplification"), d) {
        o.push("<h3>Device write amplification</h3>\n<p class=\"note\">What the block device's own counters say was written, over what the workload asked to write.</p>\n<div class=\"pair\">");
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side\">{}</div></div>",
            amplification_table(d)
        );
    }
    if let Some(c) = figures::fragmentation_chart(&format!("{id}-fragmentation"), d) {
        o.push("<h3>Fragmented against contiguous</h3>\n<div class=\"pair\">");
        o.figure(c);
        let _ = writeln!(
            o.html,
            "<div class=\"side below\">{}</div></div>",
            fragmentation_table(d)
        );
    }

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
                esc(flag_meaning(f))
            );
        }
        o.push("</dl>\n");
    }
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
    o.push("</section>\n");
}

fn same_env_note(a: &BenchReport, b: &BenchReport) -> String {
    let mut diffs = Vec::new();
    if a.host.kernel != b.host.kernel {
        diffs.push(format!("kernel {} / {}", a.host.kernel, b.host.kernel));
    }
    if a.host.fsfit != b.host.fsfit {
        diffs.push(format!("fsfit {} / {}", a.host.fsfit, b.host.fsfit));
    }
    if a.target.kind != b.target.kind || a.target.path != b.target.path {
        diffs.push(format!(
            "target {} {} / {} {}",
            a.target.kind, a.target.path, b.target.kind, b.target.path
        ));
    }
    if a.target.model != b.target.model {
        diffs.push(format!(
            "device {} / {}",
            a.target.model.as_deref().unwrap_or("?"),
            b.target.model.as_deref().unwrap_or("?")
        ));
    }
    if a.scale != b.scale || a.repeat != b.repeat {
        diffs.push(format!(
            "scale {} / {}, repeats {} / {}",
            a.scale, b.scale, a.repeat, b.repeat
        ));
    }
    let drivers = |r: &BenchReport| {
        r.results
            .iter()
            .map(|c: &ConfigResult| (config_name(c), c.driver.clone(), c.mkfs.clone()))
            .collect::<Vec<_>>()
    };
    let (da, db) = (drivers(a), drivers(b));
    for (n, d, m) in &da {
        if let Some((_, d2, m2)) = db.iter().find(|(n2, _, _)| n2 == n) {
            if d != d2 {
                diffs.push(format!("{n} driver {d} / {d2}"));
            }
            let tool = |m: &str| {
                m.rsplit_once('(')
                    .map(|(_, t)| t.trim_end_matches(')').to_string())
            };
            if tool(m) != tool(m2) {
                diffs.push(format!("{n} mkfs {m} / {m2}"));
            }
        }
    }
    if diffs.is_empty() {
        "Same kernel, fsfit, target, scale, drivers and mkfs tools.".into()
    } else {
        format!("Differences in setup: {}.", diffs.join("; "))
    }
}

fn comparison_section(o: &mut Out, bench: &[Named<BenchReport>]) {
    let Some(a) = bench.first() else { return };
    let mut opened = false;
    for (i, b) in bench.iter().enumerate().skip(1) {
        let rows = figures::diff_rows(&a.doc, &b.doc);
        if rows.is_empty() {
            continue;
        }
        if !opened {
            o.push("<section id=\"compare\">\n<h2>Side by side</h2>\n<p class=\"note\">Runs of the same configs compared with the first benchmark file: median MB/s (or files/s), and how much the later run differs, in % of the first.</p>\n");
            opened = true;
        }
        let _ = writeln!(
            o.html,
            "<h3>{} and {}</h3>\n<p>{} ({}) against {} ({}). {}</p>\n<div class=\"pair\">",
            esc(&a.label),
            esc(&b.label),
            esc(&b.label),
            esc(&b.doc.date),
            esc(&a.label),
            esc(&a.doc.date),
            esc(&same_env_note(&a.doc, &b.doc))
        );
        if let Some(c) = figures::diff_chart(&format!("compare-{}", i + 1), a, b) {
            o.figure(c);
        }
        let mut s = format!(
            "<table>\n<thead><tr><th>Workload</th><th>Config</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th class=\"n\">Difference</th></tr></thead>\n<tbody>\n",
            esc(&a.label),
            esc(&b.label)
        );
        for r in &rows {
            let u = unit(&r.workload);
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{} {u}</td><td class=\"n\">{} {u}</td><td class=\"n\">{}</td></tr>",
                esc(&r.workload),
                esc(&r.config),
                num(r.a),
                num(r.b),
                signed_pct(r.pct)
            );
        }
        s.push_str("</tbody></table>\n");
        let _ = writeln!(o.html, "<div class=\"side\">{s}</div></div>");
    }
    if opened {
        o.push("</section>\n");
    }
}

fn sweeps_section(o: &mut Out, sweeps: Vec<figures::Sweep>) {
    if sweeps.is_empty() {
        return;
    }
    o.push("<section id=\"sweeps\">\n<h2>Cluster-size sweeps</h2>\n<p class=\"note\">Every filesystem measured at two or more cluster sizes, as the exFAT article (000) plots it: write speed and format time from the benchmarks, size on disk, wasted space and overhead from the usage runs. The cluster-size axis is logarithmic (base 2).</p>\n");
    for s in sweeps {
        let _ = writeln!(
            o.html,
            "<h3 id=\"sweep-{}\">{}</h3>\n<div class=\"grid\">",
            esc(&figures::slug(&s.fs)),
            esc(&s.fs)
        );
        for c in s.charts {
            o.figure(c);
        }
        o.push("</div>\n");
    }
    o.push("</section>\n");
}

/// Finding kinds in the contract's order, then any others.
fn kinds(c: &UsageConfig) -> Vec<String> {
    let mut v: Vec<String> = crate::usage::problems::Problem::ALL
        .iter()
        .filter(|k| c.problems.contains_key(k.key()))
        .map(|k| k.key().to_string())
        .collect();
    for k in c.problems.keys() {
        if !v.contains(k) {
            v.push(k.clone());
        }
    }
    v
}

fn usage_section(o: &mut Out, i: usize, u: &Named<UsageDoc>) {
    let d = &u.doc;
    let id = format!("usage-{}", i + 1);
    let _ = writeln!(
        o.html,
        "<section id=\"{id}\">\n<h2>Space usage: {}</h2>",
        esc(&u.label)
    );
    let mut s = String::from("<h3>Environment</h3>\n<table class=\"kv\">\n");
    kv(&mut s, "Results file", &esc(&u.source));
    kv(&mut s, "Paths measured", &esc(&d.paths.join(", ")));
    kv(
        &mut s,
        "Volume planned",
        &esc(&format!(
            "{} ({} bytes)",
            iec(d.volume_bytes),
            d.volume_bytes
        )),
    );
    let t = &d.tree;
    kv(
        &mut s,
        "Tree",
        &esc(&format!(
            "{}, {}, {}, {} other; {} apparent ({} bytes)",
            count(t.files, "file", "files"),
            count(t.dirs, "directory", "directories"),
            count(t.symlinks, "symlink", "symlinks"),
            t.other,
            iec(t.apparent_bytes),
            t.apparent_bytes
        )),
    );
    if d.date.is_empty() {
        kv(
            &mut s,
            "Not recorded",
            "date and fsfit version (an older results file)",
        );
    } else {
        kv(
            &mut s,
            "Measured",
            &esc(&format!("{} by fsfit {}", d.date, d.fsfit)),
        );
    }
    if t.errors > 0 || t.non_utf8_names > 0 || t.control_char_names > 0 || d.skipped_mounts > 0 {
        kv(
            &mut s,
            "Warnings",
            &esc(&format!(
                "{} unreadable entries, {} names not UTF-8, {} names with control characters, {} mount points not entered",
                t.errors, t.non_utf8_names, t.control_char_names, d.skipped_mounts
            )),
        );
    }
    s.push_str("</table>\n");
    o.push(&s);

    o.push("<h3>Size on disk</h3>\n");
    if let Some(c) = figures::usage_chart(&format!("{id}-size"), d) {
        o.push("<div class=\"pair\">");
        o.figure(c);
        o.push("<div class=\"side\"><p class=\"note\">Size on disk: how much of a fresh volume's free space a copy of the tree takes. Slack: unused tails of clusters. Metadata: directories, tables and records. Overhead: size on disk over the apparent size, minus 100 %. <em>Exact</em>: the model is checked against real volumes.</p></div></div>\n");
    }
    let mut s = String::from("<table>\n<thead><tr><th>Config</th><th class=\"n\">Size on disk</th><th class=\"n\">Data</th><th class=\"n\">Slack</th><th class=\"n\">Metadata</th><th class=\"n\">Overhead</th><th class=\"n\">Free on fresh volume</th><th>Fits</th><th>Exact</th><th class=\"n\">Problems</th></tr></thead>\n<tbody>\n");
    for c in &d.configs {
        let problems: u64 = [
            "too_large",
            "bad_name",
            "case_collision",
            "name_too_long",
            "path_too_long",
            "unsupported_type",
        ]
        .iter()
        .map(|k| c.problems.get(*k).copied().unwrap_or(0))
        .sum();
        let _ = writeln!(
            s,
            "<tr><td>{}:{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.2} %</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
            esc(&c.fs),
            esc(&crate::units::short(c.cluster_bytes)),
            if c.default_cluster { " <span class=\"note\">(mkfs default)</span>" } else { "" },
            esc(&iec(c.tree_bytes)),
            esc(&iec(c.data_bytes)),
            esc(&iec(c.slack_bytes)),
            esc(&iec(c.metadata_bytes)),
            c.overhead_pct,
            esc(&iec(c.free_bytes)),
            if c.fits { "yes" } else { "<span class=\"bad\">no</span>" },
            if c.exact { "yes" } else { "model" },
            if problems > 0 { format!("<span class=\"bad\">{problems}</span>") } else { "0".into() }
        );
    }
    s.push_str("</tbody></table>\n");
    for r in &d.refused {
        let _ = writeln!(
            s,
            "<p class=\"note\">Not possible: {}:{}: {}</p>",
            esc(&r.fs),
            esc(&crate::units::short(r.cluster_bytes)),
            esc(&r.reason)
        );
    }
    o.push(&s);

    // Findings are the same at every cluster size: one table per filesystem.
    o.push("<h3>Compatibility findings</h3>\n<p class=\"note\">What in the tree each filesystem cannot store as it is (counts and up to ten example paths).</p>\n");
    let mut seen: Vec<&str> = Vec::new();
    let mut s = String::new();
    for c in &d.configs {
        if seen.contains(&c.fs.as_str()) {
            continue;
        }
        seen.push(&c.fs);
        let ks: Vec<String> = kinds(c)
            .into_iter()
            .filter(|k| c.problems.get(k).copied().unwrap_or(0) > 0)
            .collect();
        if ks.is_empty() {
            let _ = writeln!(
                s,
                "<h4>{}</h4>\n<p>No findings: the tree can be stored as it is.</p>",
                esc(&c.fs)
            );
            continue;
        }
        let _ = writeln!(
            s,
            "<h4>{}</h4>\n<table>\n<thead><tr><th>Finding</th><th>Meaning</th><th class=\"n\">Count</th><th>Examples</th></tr></thead>\n<tbody>",
            esc(&c.fs)
        );
        for k in ks {
            let ex = c
                .problem_examples
                .get(&k)
                .map(|v| {
                    format!(
                        "<ul class=\"ex\">{}</ul>",
                        v.iter()
                            .map(|p| format!("<li><code>{}</code></li>", esc(p)))
                            .collect::<String>()
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{ex}</td></tr>",
                esc(&k),
                esc(crate::usage::problems::describe(&k)),
                c.problems[&k]
            );
        }
        s.push_str("</tbody></table>\n");
    }
    o.push(&s);
    o.push("</section>\n");
}

/// The whole page. `command` is the fsfit command line that makes it.
pub fn render(inputs: &Inputs, command: &[String]) -> Page {
    let mut o = Out {
        html: String::new(),
        charts: Vec::new(),
    };
    let date = crate::units::now_utc();
    o.push("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"fsfit\">\n<title>fsfit report</title>\n<style>");
    o.push(CSS);
    o.push("</style>\n</head>\n<body>\n<header>\n<h1>fsfit report</h1>\n");
    let _ = writeln!(
        o.html,
        "<p class=\"note\">Made by fsfit {} on {} with <code class=\"cmd\">{}</code> from {} benchmark and {} usage result{}.</p>",
        esc(env!("CARGO_PKG_VERSION")),
        esc(&date),
        esc(&shell_line(command)),
        inputs.bench.len(),
        inputs.usage.len(),
        if inputs.bench.len() + inputs.usage.len() == 1 { "" } else { "s" }
    );
    o.push("</header>\n");

    // Contents: internal links only.
    let sweeps = figures::sweeps(&inputs.bench, &inputs.usage);
    let sweeps_exist = !sweeps.is_empty();
    let compare_exists = inputs
        .bench
        .iter()
        .skip(1)
        .any(|b| !figures::diff_rows(&inputs.bench[0].doc, &b.doc).is_empty());
    o.push("<nav aria-label=\"Contents\">\n<h2>Contents</h2>\n<ol>\n");
    for (i, a) in inputs.advice.iter().enumerate() {
        let _ = writeln!(
            o.html,
            "<li><a href=\"#advice-{}\">Recommendation: {}</a></li>",
            i + 1,
            esc(&a.label)
        );
    }
    for (i, b) in inputs.bench.iter().enumerate() {
        let _ = writeln!(
            o.html,
            "<li><a href=\"#bench-{}\">Benchmark: {}</a></li>",
            i + 1,
            esc(&b.label)
        );
    }
    if compare_exists {
        o.push("<li><a href=\"#compare\">Side by side</a></li>\n");
    }
    if sweeps_exist {
        o.push("<li><a href=\"#sweeps\">Cluster-size sweeps</a></li>\n");
    }
    for (i, u) in inputs.usage.iter().enumerate() {
        let _ = writeln!(
            o.html,
            "<li><a href=\"#usage-{}\">Space usage: {}</a></li>",
            i + 1,
            esc(&u.label)
        );
    }
    o.push("</ol>\n</nav>\n<main>\n");
    for (i, a) in inputs.advice.iter().enumerate() {
        let id = format!("advice-{}", i + 1);
        o.push(&super::advice_html::section(
            &id, &a.label, &a.source, &a.doc,
        ));
    }
    for (i, b) in inputs.bench.iter().enumerate() {
        bench_section(&mut o, i, b);
    }
    comparison_section(&mut o, &inputs.bench);
    sweeps_section(&mut o, sweeps);
    for (i, u) in inputs.usage.iter().enumerate() {
        usage_section(&mut o, i, u);
    }
    o.push("</main>\n<footer>\n<p class=\"note\">Charts use the Okabe–Ito colours; every bar is labelled with its figure, and lines differ by marker shape. Each chart's full text alternative is in its SVG description.</p>\n</footer>\n</body>\n</html>\n");
    Page {
        html: o.html,
        charts: o.charts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_decides_the_kind() {
        assert!(matches!(
            parse(br#"{"schema":"fsfit.crash/1"}"#),
            Err(e) if e.contains("fsfit.crash/1") && !e.contains('\n')
        ));
        assert!(matches!(
            parse(br#"{"schema":"fsfit.advise/1"}"#),
            Err(e) if e.contains("fsfit.advise/1") && !e.contains('\n')
        ));
        assert!(matches!(parse(b"[1,2]"), Err(e) if e.contains("no \"schema\"")));
        assert!(matches!(parse(b"not json"), Err(e) if e.contains("not JSON")));
        let usage = br#"{"schema":"fsfit.usage/1","volume_bytes":1048576,
          "tree":{"files":1,"dirs":0,"symlinks":0,"other":0,"apparent_bytes":5,"errors":0},
          "configs":[{"fs":"exfat","cluster_bytes":4096,"free_bytes":1,"tree_bytes":4096,
            "data_bytes":4096,"slack_bytes":4091,"metadata_bytes":0,"overhead_pct":81820.0,
            "fits":true,"exact":true,"problems":{"too_large":0,"bad_name":1}}]}"#;
        let Ok(Input::Usage(u)) = parse(usage) else {
            panic!("usage JSON of the contract should parse")
        };
        assert_eq!(u.configs[0].problems["bad_name"], 1);
    }

    #[test]
    fn findings_show_counts_and_escaped_examples() {
        let usage = br#"{"schema":"fsfit.usage/1","volume_bytes":68719476736,"paths":["t"],
          "tree":{"files":2,"dirs":1,"symlinks":0,"other":0,"apparent_bytes":5000,"errors":0},
          "configs":[
            {"fs":"exfat","cluster_bytes":4096,"free_bytes":1,"tree_bytes":8192,
             "data_bytes":8192,"slack_bytes":3192,"metadata_bytes":0,"overhead_pct":63.84,
             "fits":true,"exact":true,"problems":{"too_large":0,"bad_name":1,"case_collision":2},
             "problem_examples":{"bad_name":["d/<a:b>.txt"],"case_collision":["d/README","d/Readme"]}},
            {"fs":"exfat","cluster_bytes":32768,"free_bytes":1,"tree_bytes":65536,
             "data_bytes":65536,"slack_bytes":60536,"metadata_bytes":0,"overhead_pct":1210.72,
             "fits":true,"exact":true,"problems":{"too_large":0,"bad_name":1,"case_collision":2},
             "problem_examples":{"bad_name":["d/<a:b>.txt"],"case_collision":["d/README","d/Readme"]}},
            {"fs":"ext4","cluster_bytes":4096,"free_bytes":1,"tree_bytes":8192,
             "data_bytes":8192,"slack_bytes":3192,"metadata_bytes":0,"overhead_pct":63.84,
             "fits":true,"exact":true,"problems":{"too_large":0}}]}"#;
        let mut i = Inputs::default();
        i.add("u", "u.json", parse(usage).unwrap());
        let page = render(&i, &["fsfit".into(), "report".into()]);
        let h = &page.html;
        assert!(
            h.contains("<code>d/&lt;a:b&gt;.txt</code>"),
            "escaped example"
        );
        assert!(!h.contains("<a:b>"));
        assert!(h.contains("<td>case_collision</td>"));
        assert!(h.contains("<h4>ext4</h4>\n<p>No findings"));
        // exFAT's two clusters: size, wasted, overhead; and the bars per config
        assert_eq!(page.charts.len(), 4);
        assert_eq!(h.matches("<svg").count(), 4);
        assert!(!h.contains("<script"));
    }

    #[test]
    fn labels_stay_unique_and_commands_quote() {
        let mut i = Inputs::default();
        let u = || {
            parse(br#"{"schema":"fsfit.usage/1","volume_bytes":1,"tree":{"files":0,"dirs":0,"symlinks":0,"other":0,"apparent_bytes":0,"errors":0},"configs":[]}"#)
                .unwrap()
        };
        i.add("run", "a/run.json", u());
        i.add("run", "b/run.json", u());
        assert_eq!(i.usage[1].label, "run (2)");
        assert_eq!(
            shell_line(&[
                "fsfit".into(),
                "usage".into(),
                "My Photos".into(),
                "it's".into()
            ]),
            "fsfit usage 'My Photos' 'it'\\''s'"
        );
        assert_eq!(crate::units::now_utc().len(), 20);
    }
}
