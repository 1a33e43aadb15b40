//! The recommendation's section of the HTML report, from `fsfit advise
//! --json` (fsfit.advise/1): the choice, why, the trade-offs, what was
//! assumed, and the measuring rounds. Its measurements and size-on-disk
//! figures go into the report's bench and usage sections (see html.rs).

use crate::advise::BudgetReport;
use crate::bench::results::BenchReport;
use crate::format::layout::DrivePlan;
use crate::report::charts::esc;
use crate::units::{iec, short};
use crate::usage::UsageReport;
use serde::Deserialize;
use std::fmt::Write;

/// `fsfit advise --json` read back, leniently.
#[derive(Clone, Debug, Deserialize)]
pub struct AdviseDoc {
    pub volume_bytes: u64,
    #[serde(default)]
    pub systems: Vec<String>,
    #[serde(default)]
    pub fill_bytes: u64,
    #[serde(default)]
    pub max_overhead_pct: f64,
    pub choice: Option<CandidateDoc>,
    #[serde(default)]
    pub why: Vec<String>,
    #[serde(default)]
    pub tradeoffs: Vec<String>,
    #[serde(default)]
    pub assumptions: Vec<String>,
    #[serde(default)]
    pub candidates: Vec<CandidateDoc>,
    /// Configs left out, with their reasons.
    #[serde(default)]
    pub rejected: Vec<CandidateDoc>,
    /// How to format it: each system's command (or steps), read as they
    /// come (strings, or lists of strings).
    #[serde(default)]
    pub commands: Option<serde_json::Value>,
    /// What the systems named need (partition table, limits).
    #[serde(default)]
    pub notes: Vec<String>,
    /// How the candidates are ranked.
    #[serde(default)]
    pub ranking: Vec<String>,
    #[serde(default)]
    pub budget: Option<BudgetReport>,
    #[serde(default)]
    pub measurements: Vec<BenchReport>,
    /// How many of `measurements` became the report's "LABEL round N"
    /// benchmark sections (the list itself is moved there).
    #[serde(skip)]
    pub rounds: usize,
    #[serde(default)]
    pub usage: Option<UsageReport>,
    /// The mount policy measured or traced under (absent in older files).
    #[serde(default)]
    pub mount_policy: Option<PolicyDoc>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct PolicyDoc {
    pub meaning: String,
    #[serde(default)]
    pub why: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct CandidateDoc {
    pub fs: String,
    pub cluster_bytes: u64,
    pub tree_bytes: u64,
    pub overhead_pct: f64,
    /// Why the percentage means nothing (sparse files, too little data).
    #[serde(default)]
    pub overhead_note: Option<String>,
    #[serde(default)]
    pub speed: String,
    #[serde(default)]
    pub write_mb_per_s: Option<f64>,
    #[serde(default)]
    pub assumed_relative_speed: Option<f64>,
    #[serde(default)]
    pub simulated_mb_per_s: Option<f64>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub round: Option<u32>,
    #[serde(default)]
    pub wasted_at_fill_bytes: Option<u64>,
    #[serde(default)]
    pub reasons: Vec<String>,
    /// The drive prepared for it (older files have none).
    #[serde(default)]
    pub plan: Option<DrivePlan>,
}

fn list(s: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(s, "<h3>{}</h3>\n<ul>", esc(title));
    for i in items {
        let _ = writeln!(s, "<li>{}</li>", esc(i));
    }
    s.push_str("</ul>\n");
}

/// The section, with `id` for the contents' link.
pub fn section(id: &str, label: &str, source: &str, d: &AdviseDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<section id=\"{id}\">\n<h2>Recommendation: {}</h2>",
        esc(label)
    );
    // Only point at measurement sections that exist: advice made without
    // --device, --image or --bench rests on none.
    if d.rounds > 0 {
        let _ = writeln!(
            s,
            "<p class=\"note\">From {}; the measurements it rests on are the benchmark sections labelled \u{201c}{} round N\u{201d}.</p>",
            esc(source),
            esc(label)
        );
    } else {
        let _ = writeln!(
            s,
            "<p class=\"note\">From {}; no drive was measured for it.</p>",
            esc(source)
        );
    }
    match &d.choice {
        Some(c) => {
            let _ = writeln!(
                s,
                "<p><strong>{} with {} clusters</strong> for a {} volume{}.</p>",
                esc(&c.fs),
                esc(&short(c.cluster_bytes)),
                esc(&iec(d.volume_bytes)),
                if d.systems.is_empty() {
                    String::new()
                } else {
                    format!(", used by {}", esc(&d.systems.join(", ")))
                }
            );
        }
        None => s.push_str("<p>No filesystem fits these constraints.</p>\n"),
    }
    if let Some(p) = &d.mount_policy {
        let _ = writeln!(
            s,
            "<p class=\"note\">Mount policy {} ({}).</p>",
            esc(&p.meaning),
            esc(&p.why)
        );
    }
    list(&mut s, "Why", &d.why);
    list(&mut s, "Trade-offs", &d.tradeoffs);
    list(&mut s, "Assumed, not measured", &d.assumptions);
    list(&mut s, "What the systems named need", &d.notes);
    commands(&mut s, d);
    budget(&mut s, d);
    candidates(&mut s, d);
    list(&mut s, "How the candidates are ranked", &d.ranking);
    left_out(&mut s, d);
    s.push_str(&size_chart(d));
    s.push_str("</section>\n");
    s
}

/// The measuring rounds, when advise measured.
fn budget(s: &mut String, d: &AdviseDoc) {
    if let Some(b) = &d.budget {
        let _ = writeln!(
            s,
            "<h3>Measuring</h3>\n<p>{:.0} s of a {:.0} s budget, workloads {}.</p>\n<table><thead><tr><th>Round</th><th>Scale</th><th>Configs</th><th class=\"n\">Seconds</th><th>Not finished</th></tr></thead><tbody>",
            b.spent_seconds,
            b.budget_seconds,
            esc(&b.workloads.join(", "))
        );
        for r in &b.rounds {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{:.0}</td><td>{}</td></tr>",
                r.round,
                r.scale,
                esc(&r.configs.join(", ")),
                r.seconds,
                esc(&r.stopped.join("; "))
            );
        }
        s.push_str("</tbody></table>\n");
    }
}

/// The candidates, best first.
fn candidates(s: &mut String, d: &AdviseDoc) {
    let _ = writeln!(
        s,
        "<h3>Candidates, best first</h3>\n<table><thead><tr><th>Config</th><th class=\"n\">On disk</th><th class=\"n\">Overhead</th><th class=\"n\">Wasted at {}</th><th>Speed</th></tr></thead><tbody>",
        esc(&iec(d.fill_bytes))
    );
    for c in d.candidates.iter().take(20) {
        let speed = match (c.write_mb_per_s, c.assumed_relative_speed) {
            (Some(m), _) => format!("{m:.1} MB/s measured (round {})", c.round.unwrap_or(1)),
            (None, Some(r)) => format!("{:.0} % of 128K, assumed", r * 100.0),
            _ if c.simulated_mb_per_s.is_some() => format!(
                "{} simulated ({})",
                crate::units::rate(c.simulated_mb_per_s.unwrap_or(0.0)),
                c.profile.as_deref().unwrap_or("")
            ),
            _ => c.speed.clone(),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}:{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&c.fs),
            esc(&short(c.cluster_bytes)),
            esc(&iec(c.tree_bytes)),
            match &c.overhead_note {
                Some(why) => format!("<span title=\"{}\">—</span>", esc(why)),
                None => format!("{:+.1} %", c.overhead_pct),
            },
            c.wasted_at_fill_bytes.map_or("—".to_string(), |w| esc(&iec(w))),
            esc(&speed)
        );
    }
    s.push_str("</tbody></table>\n");
    let mut whys: Vec<&str> = d
        .candidates
        .iter()
        .filter_map(|c| c.overhead_note.as_deref())
        .collect();
    whys.sort_unstable();
    whys.dedup();
    for why in whys {
        let _ = writeln!(s, "<p class=\"note\">Overhead —: {}</p>", esc(why));
    }
}

/// The choice's plan and its commands; a file from before plans: the
/// format commands as the JSON has them, one row per system.
fn commands(s: &mut String, d: &AdviseDoc) {
    if let Some(p) = d.choice.as_ref().and_then(|c| c.plan.as_ref()) {
        return plan(s, p);
    }
    let Some(serde_json::Value::Object(m)) = &d.commands else {
        return;
    };
    s.push_str("<h3>Format it</h3>\n<p class=\"note\">This erases the partition: check the device name twice.</p>\n<table><tbody>\n");
    for (system, v) in m {
        let lines: Vec<String> = match v {
            serde_json::Value::String(x) => vec![x.clone()],
            serde_json::Value::Array(a) => a
                .iter()
                .map(|x| x.as_str().map_or(x.to_string(), str::to_string))
                .collect(),
            other => vec![other.to_string()],
        };
        let _ = writeln!(
            s,
            "<tr><th>{}</th><td><code>{}</code></td></tr>",
            esc(system),
            lines
                .iter()
                .map(|l| esc(l))
                .collect::<Vec<_>>()
                .join("<br>")
        );
    }
    s.push_str("</tbody></table>\n");
}

/// The plan: what the drive will hold, why, and each system's commands.
fn plan(s: &mut String, p: &DrivePlan) {
    let _ = writeln!(
        s,
        "<h3>Format it</h3>\n<p class=\"note\">This erases the drive: check the device name twice.</p>\n<p>{}</p>",
        esc(&p.summary().join("; "))
    );
    list(s, "Why this layout", &p.why);
    let c = &p.commands;
    s.push_str("<table><tbody>\n");
    for (system, lines) in [
        ("Linux", c.linux.clone()),
        ("fsfit", vec![c.fsfit.clone()]),
        ("Windows", vec![c.windows.clone()]),
        ("macOS", vec![c.macos.clone()]),
    ] {
        let lines: Vec<String> = lines.iter().map(|l| esc(l)).collect();
        let _ = writeln!(
            s,
            "<tr><th>{system}</th><td><code>{}</code></td></tr>",
            lines.join("<br>")
        );
    }
    s.push_str("</tbody></table>\n");
}

/// The configs left out, one line per filesystem and reason.
fn left_out(s: &mut String, d: &AdviseDoc) {
    let mut lines: Vec<(String, String)> = Vec::new();
    for r in &d.rejected {
        let why = r.reasons.join("; ");
        let why = why.split(": needs").next().unwrap_or(&why).to_string();
        match lines
            .iter_mut()
            .find(|(f, w)| f.starts_with(&r.fs) && *w == why)
        {
            Some(l) => l.0.push_str(&format!(", {}", short(r.cluster_bytes))),
            None => lines.push((format!("{} {}", r.fs, short(r.cluster_bytes)), why)),
        }
    }
    let items: Vec<String> = lines
        .into_iter()
        .map(|(f, w)| format!("{f}: {w}"))
        .collect();
    list(s, "Left out", &items);
}

/// Size on disk of every config on a log scale, with the volume's size and
/// the apparent size drawn: one huge config does not squeeze the others.
fn size_chart(d: &AdviseDoc) -> String {
    let Some(u) = d.usage.as_ref().filter(|u| !u.configs.is_empty()) else {
        return String::new();
    };
    let mut rows: Vec<(String, u64)> = u
        .configs
        .iter()
        .map(|c| {
            (
                format!("{}:{}", c.fs, short(c.cluster_bytes)),
                c.tree_bytes.max(1),
            )
        })
        .collect();
    rows.sort_by_key(|r| r.1);
    let apparent = u.tree.apparent_bytes.max(1);
    let lo = (rows[0].1.min(apparent) as f64 / 2.0).log10().floor();
    let hi = (rows.last().unwrap().1.max(d.volume_bytes) as f64 * 1.5)
        .log10()
        .ceil();
    let (w, left, bar) = (760.0, 110.0, 14.0);
    let x = |v: f64| left + (v.max(1.0).log10() - lo) / (hi - lo).max(1.0) * (w - left - 20.0);
    let h = 40.0 + rows.len() as f64 * bar + 30.0;
    let mut o = format!(
        "<h3>Size on disk, log scale</h3>\n<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"Size on disk per config, log scale, with the volume size\" font-family=\"sans-serif\" font-size=\"11\">\n"
    );
    for (i, (name, bytes)) in rows.iter().enumerate() {
        let y = 30.0 + i as f64 * bar;
        let fill = if *bytes > d.volume_bytes {
            "#c0392b"
        } else {
            "#2e86c1"
        };
        let _ = writeln!(
            o,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect x=\"{left}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"><title>{} {}</title></rect>",
            left - 6.0, y + bar * 0.75, esc(name), y + 2.0, (x(*bytes as f64) - left).max(1.0), bar - 4.0, esc(name), esc(&iec(*bytes))
        );
    }
    let bottom = 30.0 + rows.len() as f64 * bar;
    for (v, label, colour) in [
        (
            d.volume_bytes,
            format!("volume {}", iec(d.volume_bytes)),
            "#c0392b",
        ),
        (apparent, format!("apparent {}", iec(apparent)), "#555"),
    ] {
        let xv = x(v as f64);
        let _ = writeln!(
            o,
            "<line x1=\"{xv:.1}\" y1=\"24\" x2=\"{xv:.1}\" y2=\"{bottom:.1}\" stroke=\"{colour}\" stroke-dasharray=\"5,3\"/><text x=\"{xv:.1}\" y=\"18\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>",
            esc(&label)
        );
    }
    for p in lo as i32..=hi as i32 {
        let xv = x(10f64.powi(p));
        let _ = writeln!(
            o,
            "<text x=\"{xv:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 16.0,
            esc(&iec(10u64.saturating_pow(p.max(0) as u32)))
        );
    }
    o.push_str("</svg><figcaption>Size on disk of a copy of your files per config (log scale); red bars do not fit the volume (the red line).</figcaption></figure>\n");
    o
}
