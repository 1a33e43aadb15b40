//! The HTML report: one self-contained page (inline CSS and SVG, no script,
//! nothing fetched when it is viewed) from any mix of `fsfit bench`,
//! `fsfit usage`, `fsfit advise` and `fsfit crash` results, with a print stylesheet. One file per section:
//! bench.rs (one benchmark run), compare.rs (two runs side by side),
//! usage.rs (cluster-size sweeps and one usage result), crash.rs (the
//! survival chart of one crash run); this file holds the
//! page, its stylesheet and the small helpers the sections share.

pub mod advice;
mod bench;
mod compare;
mod crash;
mod flash;
mod usage;

use super::charts::figures;
use super::charts::{esc, Chart};
use super::inputs::{Inputs, Named};
use bench::bench_section;
use compare::comparison_section;
use crash::crash_section;
use std::fmt::Write;
use usage::{sweeps_section, usage_section};

/// The page and its charts (for `--png`).
pub struct Page {
    pub html: String,
    pub charts: Vec<Chart>,
}

/// A command line as one would type it again (POSIX-quoted).
fn shell_line(args: &[String]) -> String {
    crate::quote::join(args)
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

fn flags_html<S: AsRef<str>>(flags: &[S]) -> String {
    flags
        .iter()
        .map(|f| {
            let f = f.as_ref();
            format!(
                "<span class=\"flag\" title=\"{}\">{}</span>",
                esc(crate::bench::flags::meaning(f)),
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

/// The table of contents: internal links only.
fn contents(o: &mut Out, inputs: &Inputs, compare_exists: bool, sweeps_exist: bool) {
    o.push("<nav aria-label=\"Contents\">\n<h2>Contents</h2>\n<ol>\n");
    contents_items(o, "advice", "Recommendation", &inputs.advice);
    contents_items(o, "bench", "Benchmark", &inputs.bench);
    if compare_exists {
        o.push("<li><a href=\"#compare\">Side by side</a></li>\n");
    }
    if sweeps_exist {
        o.push("<li><a href=\"#sweeps\">Cluster-size sweeps</a></li>\n");
    }
    contents_items(o, "usage", "Space usage", &inputs.usage);
    contents_items(o, "crash", "Crash survival", &inputs.crash);
    o.push("</ol>\n</nav>\n<main>\n");
}

/// One contents line per input of a kind, linking to `#{id}-1`, `#{id}-2`, ...
fn contents_items<T>(o: &mut Out, id: &str, what: &str, inputs: &[Named<T>]) {
    for (i, input) in inputs.iter().enumerate() {
        let _ = writeln!(
            o.html,
            "<li><a href=\"#{id}-{}\">{what}: {}</a></li>",
            i + 1,
            esc(&input.label)
        );
    }
}

/// "2 benchmark and 1 usage results", "1 crash result": the kinds given.
/// An advise file counts once, as advice, not as the benchmark and usage
/// sections drawn from it.
fn sources(i: &Inputs) -> String {
    let rounds: usize = i.advice.iter().map(|a| a.doc.rounds).sum();
    let sizes = i.advice.iter().filter(|a| a.doc.usage.is_some()).count();
    let counts = [
        (i.bench.len().saturating_sub(rounds), "benchmark"),
        (i.usage.len().saturating_sub(sizes), "usage"),
        (i.advice.len(), "advise"),
        (i.crash.len(), "crash"),
    ];
    let n: usize = counts.iter().map(|c| c.0).sum();
    let kinds: Vec<String> = counts
        .iter()
        .filter(|c| c.0 > 0)
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    let head = if kinds.is_empty() {
        "no".to_string()
    } else {
        crate::units::and_list(&kinds)
    };
    format!("{head} result{}", if n == 1 { "" } else { "s" })
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
        "<p class=\"note\">Made by fsfit {} on {} with <code class=\"cmd\">{}</code> from {}.</p>",
        esc(env!("CARGO_PKG_VERSION")),
        esc(&date),
        esc(&shell_line(command)),
        sources(inputs)
    );
    o.push("</header>\n");

    let sweeps = figures::sweeps(&inputs.bench, &inputs.usage);
    let sweeps_exist = !sweeps.is_empty();
    let compare_exists = inputs
        .bench
        .iter()
        .skip(1)
        .any(|b| !figures::diff_rows(&inputs.bench[0].doc, &b.doc).is_empty());
    contents(&mut o, inputs, compare_exists, sweeps_exist);
    for (i, a) in inputs.advice.iter().enumerate() {
        let id = format!("advice-{}", i + 1);
        o.push(&advice::section(&id, &a.label, &a.source, &a.doc));
    }
    for (i, b) in inputs.bench.iter().enumerate() {
        bench_section(&mut o, i, b);
    }
    comparison_section(&mut o, &inputs.bench);
    sweeps_section(&mut o, sweeps);
    for (i, u) in inputs.usage.iter().enumerate() {
        usage_section(&mut o, i, u);
    }
    for (i, c) in inputs.crash.iter().enumerate() {
        crash_section(&mut o, i, c);
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
    use crate::report::inputs::parse;

    #[test]
    fn findings_show_counts_and_escaped_examples() {
        let usage = br#"{"schema":"fsfit.usage/1","volume_bytes":68719476736,"paths":["t"],
          "tree":{"files":2,"dirs":1,"symlinks":0,"other":0,"apparent_bytes":65536,"errors":0},
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
        // Under 64 KiB of data a percentage means nothing: no overhead
        // chart, and "—" in the table with why under it.
        let small = String::from_utf8_lossy(usage).replace("65536,\"errors\"", "5000,\"errors\"");
        let mut i = Inputs::default();
        i.add("u", "u.json", parse(small.as_bytes()).unwrap());
        let page = render(&i, &["fsfit".into(), "report".into()]);
        assert_eq!(page.charts.len(), 3);
        assert!(page.html.contains(">—</span></td>"));
        assert!(page.html.contains("Overhead —: under 64 KiB of data"));
    }

    #[test]
    fn crash_results_make_a_survival_section() {
        let crash = br#"{"schema":"fsfit.crash/1","fsfit":"0.2.0","date":"d","command":"fsfit crash",
          "kernel":"6.1","device_model":"lying","seed":7,"quick":true,"lab":"uml",
          "results":[
            {"fs":"udf","cluster_bytes":512,"driver":"kernel:udf","mount_options":"",
             "checker":null,"workload":"save","writes":9,"flushes":3,"log_bytes":1,"states":4,
             "seconds":1.0,"states_per_s":4.0,
             "outcomes":{"mountable_as_is":3,"checker_clean":0,"checker_repaired":0,"unrepairable":1,
               "no_checker":4,"old_files_damaged":0,"durable_lost":1,"inflight_lost":0,"inflight_garbage":0},
             "worst":[{"state":"e3-r0","kind":"durable_lost","detail":"<report.doc> gone",
               "replay":"fsfit crash --replay /var/tmp/r --state e3-r0 -o e3-r0.img"}],"error":null},
            {"fs":"f2fs","cluster_bytes":4096,"driver":"kernel:f2fs","mount_options":"",
             "checker":"fsck.f2fs 1.16","workload":"save","writes":0,"flushes":0,"log_bytes":0,
             "states":0,"seconds":0.0,"states_per_s":0.0,"outcomes":{"mountable_as_is":0,
               "checker_clean":0,"checker_repaired":0,"unrepairable":0,"no_checker":0,
               "old_files_damaged":0,"durable_lost":0,"inflight_lost":0,"inflight_garbage":0},
             "worst":[],"error":"mkfs failed"}],
          "skipped":[{"fs":"ntfs","reason":"no driver on this kernel"}]}"#;
        let mut i = Inputs::default();
        i.add("c", "c.json", parse(crash).unwrap());
        let page = render(&i, &["fsfit".into(), "report".into()]);
        let h = &page.html;
        // The failed config has no states to draw: one chart.
        assert_eq!(page.charts.len(), 1);
        assert_eq!(h.matches("<svg").count(), 1);
        assert!(h.contains("<a href=\"#crash-1\">Crash survival: c</a>"));
        assert!(h.contains("Crash survival: c (lab run: uml)"));
        assert!(h.contains("Lab run") && h.contains("not device figures"));
        assert!(h.contains("lying: the device honours only"));
        assert!(h.contains("udf:512 kernel:udf: what survives a crash"));
        assert!(h.contains("no checker: states are judged by mounting"));
        assert!(h.contains("fsfit crash --replay /var/tmp/r --state e3-r0 -o e3-r0.img"));
        assert!(h.contains("&lt;report.doc&gt; gone") && !h.contains("<report.doc>"));
        assert!(h.contains("failed: mkfs failed"));
        assert!(h.contains("<li>ntfs: no driver on this kernel</li>"));
        assert!(h.contains("from 1 crash result."));
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
