//! The cluster-size sweeps (bench and usage together) and the section of
//! one usage result: sizes per config and the compatibility findings.

use super::{count, kv, Out};
use crate::report::charts::esc;
use crate::report::charts::figures;
use crate::report::inputs::Named;
use crate::units::iec;
use crate::usage::UsageReport;
use std::fmt::Write;

pub(super) fn sweeps_section(o: &mut Out, sweeps: Vec<figures::Sweep>) {
    if sweeps.is_empty() {
        return;
    }
    o.push("<section id=\"sweeps\">\n<h2>Cluster-size sweeps</h2>\n<p class=\"note\">Every filesystem measured at two or more cluster sizes: write speed and format time from the benchmarks, size on disk, wasted space and overhead from the usage runs. The cluster-size axis is logarithmic (base 2).</p>\n");
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

pub(super) fn usage_section(o: &mut Out, i: usize, u: &Named<UsageReport>) {
    let d = &u.doc;
    let id = format!("usage-{}", i + 1);
    let _ = writeln!(
        o.html,
        "<section id=\"{id}\">\n<h2>Space usage: {}</h2>",
        esc(&u.label)
    );
    environment(o, u);
    sizes(o, &id, d);
    findings(o, d);
    o.push("</section>\n");
}

/// Where the results come from: file, paths, volume, tree, date, warnings.
fn environment(o: &mut Out, u: &Named<UsageReport>) {
    let d = &u.doc;
    let mut s = String::from("<h3>Environment</h3>\n<table class=\"kv\">\n");
    kv(&mut s, "Results file", &esc(&u.source));
    kv(&mut s, "Paths measured", &esc(&d.paths.join(", ")));
    kv(
        &mut s,
        "Volume planned",
        &esc(&crate::units::iec_exact(d.volume_bytes)),
    );
    let t = &d.tree;
    kv(
        &mut s,
        "Tree",
        &esc(&format!(
            "{}, {}, {}, {} other; {} apparent",
            count(t.files, "file", "files"),
            count(t.dirs, "directory", "directories"),
            count(t.symlinks, "symlink", "symlinks"),
            t.other,
            crate::units::iec_exact(t.apparent_bytes)
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
                "{} unreadable, {} not UTF-8, {} with control characters, {} not entered",
                crate::units::count_as(t.errors, "entry", "entries"),
                crate::units::count(t.non_utf8_names, "name"),
                crate::units::count(t.control_char_names, "name"),
                crate::units::count(d.skipped_mounts, "mount point")
            )),
        );
    }
    s.push_str("</table>\n");
    o.push(&s);
}

/// A config's overhead, or "—" (with why on hover, and below the table)
/// where usage::overhead_shown says a percentage would mean nothing.
fn overhead_cell(t: &crate::scan::TreeCounts, c: &crate::usage::ConfigReport) -> String {
    match crate::usage::overhead_shown(t, c) {
        Ok(p) => format!("{p:.2} %"),
        Err(why) => format!("<span title=\"{}\">—</span>", esc(why)),
    }
}

/// The size-on-disk chart and one table row per config, then the refused.
fn sizes(o: &mut Out, id: &str, d: &UsageReport) {
    o.push("<h3>Size on disk</h3>\n");
    if let Some(c) = figures::usage_chart(&format!("{id}-size"), d) {
        o.push("<div class=\"pair\">");
        o.figure(c);
        o.push("<div class=\"side\"><p class=\"note\">Size on disk: how much of a fresh volume's free space a copy of the tree takes. Slack: unused tails of clusters. Metadata: directories, tables and records. Overhead: size on disk over the apparent size, minus 100 %. <em>Exact</em>: the model is checked against real volumes.</p></div></div>\n");
    }
    let mut s = String::from("<table>\n<thead><tr><th>Config</th><th class=\"n\">Size on disk</th><th class=\"n\">Data</th><th class=\"n\">Slack</th><th class=\"n\">Metadata</th><th class=\"n\">Overhead</th><th class=\"n\">Free on fresh volume</th><th>Fits</th><th>Exact</th><th class=\"n\">Problems</th></tr></thead>\n<tbody>\n");
    for c in &d.configs {
        let problems = c.problems.blocking();
        let _ = writeln!(
            s,
            "<tr><td>{}:{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
            esc(&c.fs),
            esc(&crate::units::short(c.cluster_bytes)),
            if c.default_cluster { " <span class=\"note\">(mkfs default)</span>" } else { "" },
            esc(&iec(c.tree_bytes)),
            esc(&iec(c.data_bytes)),
            esc(&iec(c.slack_bytes)),
            esc(&iec(c.metadata_bytes)),
            overhead_cell(&d.tree, c),
            esc(&iec(c.free_bytes)),
            if c.fits { "yes" } else { "<span class=\"bad\">no</span>" },
            if c.exact { "yes" } else { "model" },
            if problems > 0 { format!("<span class=\"bad\">{problems}</span>") } else { "0".into() }
        );
    }
    s.push_str("</tbody></table>\n");
    let mut whys: Vec<&str> = d
        .configs
        .iter()
        .filter_map(|c| crate::usage::overhead_shown(&d.tree, c).err())
        .collect();
    whys.sort_unstable();
    whys.dedup();
    for why in whys {
        let _ = writeln!(s, "<p class=\"note\">Overhead —: {}</p>", esc(why));
    }
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
}

/// What each filesystem cannot store as it is, with examples.
fn findings(o: &mut Out, d: &UsageReport) {
    // Findings are the same at every cluster size: one table per filesystem.
    o.push("<h3>Compatibility findings</h3>\n<p class=\"note\">What in the tree each filesystem cannot store as it is (counts and up to ten example paths).</p>\n");
    let mut seen: Vec<&str> = Vec::new();
    let mut s = String::new();
    for c in &d.configs {
        if seen.contains(&c.fs.as_str()) {
            continue;
        }
        seen.push(&c.fs);
        let ks: Vec<_> = c
            .problems
            .kinds()
            .into_iter()
            .filter(|k| c.problems.get(*k) > 0)
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
                .get(k.key())
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
                esc(k.key()),
                esc(k.describe()),
                c.problems.get(k)
            );
        }
        s.push_str("</tbody></table>\n");
    }
    o.push(&s);
}
