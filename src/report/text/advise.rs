//! The human form of `fsfit advise`.

use crate::advise::Advice;
use crate::units::{iec, short};
use std::fmt::Write;

pub fn text(a: &Advice) -> String {
    let mut o = String::new();
    let sys = if a.systems.is_empty() {
        "any system".to_string()
    } else {
        a.systems.join(", ")
    };
    let _ = writeln!(
        o,
        "For {} files ({}) on a {} volume, used by {sys}:",
        a.tree.files,
        iec(a.tree.apparent_bytes),
        iec(a.volume_bytes)
    );
    match &a.choice {
        None => {
            let _ = writeln!(o, "\nNo filesystem fits. Rejected:");
        }
        Some(c) => {
            let _ = writeln!(
                o,
                "\n  Choice:     {} with {} clusters",
                c.fs,
                short(c.cluster_bytes)
            );
            if let Some(r) = &a.runner_up {
                let _ = writeln!(
                    o,
                    "  Runner-up:  {} with {} clusters",
                    r.fs,
                    short(r.cluster_bytes)
                );
            }
            let _ = writeln!(o, "\nWhy:");
            for w in &a.why {
                let _ = writeln!(o, "  - {w}");
            }
            if !a.tradeoffs.is_empty() {
                let _ = writeln!(o, "\nTrade-offs:");
                for t in &a.tradeoffs {
                    let _ = writeln!(o, "  - {t}");
                }
            }
            if !a.assumptions.is_empty() {
                let _ = writeln!(o, "\nAssumed, not measured:");
                for t in &a.assumptions {
                    let _ = writeln!(o, "  - {t}");
                }
            }
            if let Some(b) = &a.budget {
                let _ = writeln!(
                    o,
                    "\nMeasured in {:.0} s of a {:.0} s budget ({}):",
                    b.spent_seconds,
                    b.budget_seconds,
                    b.workloads.join(", ")
                );
                for r in &b.rounds {
                    let _ = writeln!(
                        o,
                        "  round {} at scale {}: {} in {:.0} s",
                        r.round,
                        r.scale,
                        if r.configs.is_empty() {
                            "nothing".to_string()
                        } else {
                            r.configs.join(", ")
                        },
                        r.seconds
                    );
                    for s in &r.stopped {
                        let _ = writeln!(o, "    not finished: {s}");
                    }
                }
            }
            if let Some(cmd) = &a.commands {
                let _ = writeln!(
                    o,
                    "\nFormat it (this erases the partition; check the device name twice):"
                );
                let _ = writeln!(o, "  Linux:   {}", cmd.linux);
                let _ = writeln!(o, "  Windows: {}", cmd.windows);
                let _ = writeln!(o, "  macOS:   {}", cmd.macos);
            }
            let _ = writeln!(o, "\nCandidates, best first:");
            for c in a.candidates.iter().take(12) {
                let speed = match (c.write_mb_per_s, c.assumed_relative_speed) {
                    (Some(m), _) => format!(
                        ", {m:.1} MB/s measured (round {}), copy ~{:.1} s",
                        c.round.unwrap_or(1),
                        c.est_copy_seconds.unwrap_or(0.0)
                    ),
                    (None, Some(r)) => format!(", {:.0} % speed assumed", r * 100.0),
                    _ if c.simulated_mb_per_s.is_some() => format!(
                        ", {:.2} MB/s simulated ({})",
                        c.simulated_mb_per_s.unwrap_or(0.0),
                        c.profile.as_deref().unwrap_or("")
                    ),
                    _ if a.speed_measured => ", not measured".to_string(),
                    _ => String::new(),
                };
                let _ = writeln!(
                    o,
                    "  {:>6}:{:<5} {:>10} on disk ({:+.1} %){speed}{}",
                    c.fs,
                    short(c.cluster_bytes),
                    iec(c.tree_bytes),
                    c.overhead_pct,
                    if c.problems > 0 {
                        format!(", {} files with problems", c.problems)
                    } else {
                        String::new()
                    }
                );
                if let Some(note) = &c.crash {
                    let _ = writeln!(o, "{:>15}{note}", "");
                }
            }
            if a.candidates.len() > 12 {
                let _ = writeln!(
                    o,
                    "  ... {} more (--json lists all)",
                    a.candidates.len() - 12
                );
            }
            let _ = writeln!(o, "\nLeft out:");
        }
    }
    let mut seen = std::collections::BTreeMap::new();
    for r in &a.rejected {
        seen.entry(r.fs.clone())
            .or_insert_with(|| r.reasons.join("; "));
    }
    for (fs, why) in seen {
        let _ = writeln!(o, "  {fs}: {why}");
    }
    o
}
