//! The recommendation's section of the HTML report, from `fsfit advise
//! --json` (fsfit.advise/1): the choice, why, the trade-offs, what was
//! assumed, and the measuring rounds. Its measurements and size-on-disk
//! figures go into the report's bench and usage sections (see html.rs).

use super::charts::esc;
use crate::advise::measure::BudgetReport;
use crate::bench::results::BenchReport;
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
    #[serde(default)]
    pub budget: Option<BudgetReport>,
    #[serde(default)]
    pub measurements: Vec<BenchReport>,
    #[serde(default)]
    pub usage: Option<UsageReport>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct CandidateDoc {
    pub fs: String,
    pub cluster_bytes: u64,
    pub tree_bytes: u64,
    pub overhead_pct: f64,
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
    pub wasted_at_fill_bytes: u64,
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
        "<section id=\"{id}\">\n<h2>Recommendation: {}</h2>\n<p class=\"note\">From {}; the measurements it rests on are the benchmark sections labelled \u{201c}{} round N\u{201d}.</p>",
        esc(label),
        esc(source),
        esc(label)
    );
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
    list(&mut s, "Why", &d.why);
    list(&mut s, "Trade-offs", &d.tradeoffs);
    list(&mut s, "Assumed, not measured", &d.assumptions);
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
                "{:.2} MB/s simulated ({})",
                c.simulated_mb_per_s.unwrap_or(0.0),
                c.profile.as_deref().unwrap_or("")
            ),
            _ => c.speed.clone(),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}:{}</td><td class=\"n\">{}</td><td class=\"n\">{:+.1} %</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&c.fs),
            esc(&short(c.cluster_bytes)),
            esc(&iec(c.tree_bytes)),
            c.overhead_pct,
            esc(&iec(c.wasted_at_fill_bytes)),
            esc(&speed)
        );
    }
    s.push_str("</tbody></table>\n</section>\n");
    s
}
