//! Two benchmark runs of the same configs, side by side.

use super::{signed_pct, Out};
use crate::bench::results::{BenchReport, ConfigResult};
use crate::report::charts::figures::{self, config_name, unit};
use crate::report::charts::{esc, num};
use crate::report::inputs::Named;
use std::fmt::Write;

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

pub(super) fn comparison_section(o: &mut Out, bench: &[Named<BenchReport>]) {
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
