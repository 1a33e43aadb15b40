//! The human form of `fsfit advise`.

use super::count;
use crate::advise::{Advice, BudgetReport, Candidate, Commands};
use crate::format::layout::DrivePlan;
use crate::units::{iec, short};
use std::fmt::Write;

/// The advice as a person reads it; `verbose` adds how the candidates are
/// ranked (a dozen long lines the JSON always has), else one line says where.
pub fn text(a: &Advice, verbose: bool) -> String {
    let mut o = String::new();
    header(&mut o, a);
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
            list(&mut o, &a.why);
            if !a.tradeoffs.is_empty() {
                let _ = writeln!(o, "\nTrade-offs:");
                list(&mut o, &a.tradeoffs);
            }
            if !a.assumptions.is_empty() {
                let _ = writeln!(o, "\nAssumed, not measured:");
                list(&mut o, &a.assumptions);
            }
            if !a.notes.is_empty() {
                let _ = writeln!(o, "\nWhat the systems named need:");
                list(&mut o, &a.notes);
            }
            if let Some(b) = &a.budget {
                budget(&mut o, b);
            }
            if let (Some(cmd), Some(p)) = (&a.commands, &c.plan) {
                commands(&mut o, cmd, p);
            }
            if verbose {
                let _ = writeln!(o, "\nHow the candidates are ranked:");
                list(&mut o, &a.ranking);
            } else {
                let _ = writeln!(
                    o,
                    "\nHow the candidates are ranked: --verbose (or the JSON's ranking) says"
                );
            }
            candidates(&mut o, a);
            if !a.rejected.is_empty() {
                let _ = writeln!(o, "\nLeft out:");
            }
        }
    }
    for line in left_out(a) {
        let _ = writeln!(o, "  {line}");
    }
    o
}

/// "For 152 files (1.41 MiB) on a 32.0 GiB volume, used by car:"
fn header(o: &mut String, a: &Advice) {
    let sys = if a.systems.is_empty() {
        "any system".to_string()
    } else {
        a.systems.join(", ")
    };
    let _ = writeln!(
        o,
        "For {} ({}) on a {} volume{}, used by {sys}:",
        count(a.tree.files, "file"),
        iec(a.tree.apparent_bytes),
        iec(a.volume_bytes),
        if a.usage.volume_assumed {
            " (assumed: see below)"
        } else {
            ""
        }
    );
    // The advice is for what was read: say what was not.
    if let Some(unread) = super::usage::unread(&a.tree) {
        let _ = writeln!(o, "  {unread}");
    }
    let p = &a.mount_policy;
    let _ = writeln!(o, "Mount policy {}\n  ({})", p.meaning, p.why);
}

fn list(o: &mut String, items: &[String]) {
    for i in items {
        let _ = writeln!(o, "  - {i}");
    }
}

/// The measuring run: the budget, and each round's configs.
fn budget(o: &mut String, b: &BudgetReport) {
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

/// The choice's plan, and how to carry it out on each system.
fn commands(o: &mut String, cmd: &Commands, p: &DrivePlan) {
    let _ = writeln!(
        o,
        "\nFormat it (this erases the drive; check the device name twice):"
    );
    let [table, volume] = p.summary();
    let _ = writeln!(o, "  Plan: {table}\n        {volume}");
    list(o, &p.why);
    if let Some(p) = &cmd.label_problem {
        let _ = writeln!(o, "  (no label: {p})");
    }
    let c = &p.commands;
    let _ = writeln!(o, "  Linux:");
    for l in &c.linux {
        let _ = writeln!(o, "    {l}");
    }
    let _ = writeln!(o, "   or in one line: {}", c.fsfit);
    let _ = writeln!(o, "  Windows: {}", c.windows);
    let _ = writeln!(o, "  macOS:   {}", c.macos);
}

/// A candidate's overhead, or "—" where a percentage would mean nothing
/// (usage::overhead_shown decides, as for usage's table).
fn overhead(a: &Advice, c: &crate::advise::Candidate) -> String {
    let config = a
        .usage
        .configs
        .iter()
        .find(|x| x.fs == c.fs && x.cluster_bytes == c.cluster_bytes);
    match config.map(|x| crate::usage::overhead_shown(&a.usage.tree, x)) {
        Some(Err(_)) => "—".to_string(),
        _ => format!("{:+.1} %", c.overhead_pct),
    }
}

/// The first dozen candidates, one line each with how their speed is known.
fn candidates(o: &mut String, a: &Advice) {
    let _ = writeln!(o, "\nCandidates, best first:");
    for c in a.candidates.iter().take(12) {
        let _ = writeln!(
            o,
            "  {:>6}:{:<5} {:>10} on disk ({}){}{}",
            c.fs,
            short(c.cluster_bytes),
            iec(c.tree_bytes),
            overhead(a, c),
            speed(c, a.speed_measured),
            if c.problems > 0 {
                format!(", {}", count(c.problems, "finding"))
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
}

/// ", 41.2 MB/s measured (round 2), copy ~3.1 s" and the like.
fn speed(c: &Candidate, speed_measured: bool) -> String {
    match (c.write_mb_per_s, c.assumed_relative_speed) {
        (Some(m), _) => format!(
            ", {m:.1} MB/s measured (round {}), copy ~{:.1} s",
            c.round.unwrap_or(1),
            c.est_copy_seconds.unwrap_or(0.0)
        ),
        (None, Some(r)) => format!(", {:.0} % speed assumed", r * 100.0),
        _ if c.simulated_mb_per_s.is_some() => format!(
            ", {} simulated ({})",
            crate::units::rate(c.simulated_mb_per_s.unwrap_or(0.0)),
            c.profile.as_deref().unwrap_or("")
        ),
        _ if speed_measured => ", not measured".to_string(),
        _ => String::new(),
    }
}

/// The rejected configs, one line per filesystem and reason, naming the
/// clusters when only some of a filesystem's are left out.
pub fn left_out(a: &Advice) -> Vec<String> {
    let rejected = &a.rejected;
    let mut groups: Vec<(String, String, Vec<u64>)> = Vec::new();
    for r in rejected {
        // "does not fit: needs X of Y free" differs per cluster: group by
        // what it says before the numbers.
        let why = r.reasons.join("; ");
        let key = why.split(": needs").next().unwrap_or(&why).to_string();
        match groups.iter_mut().find(|(f, k, _)| *f == r.fs && *k == key) {
            Some(g) => g.2.push(r.cluster_bytes),
            None => groups.push((r.fs.clone(), key, vec![r.cluster_bytes])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
        .into_iter()
        .map(|(fs, why, clusters)| {
            // A filesystem with candidates left loses only these clusters.
            let which = if !a.candidates.iter().any(|c| c.fs == fs) {
                fs.clone()
            } else {
                let c: Vec<String> = clusters.iter().map(|&c| short(c)).collect();
                format!("{fs} {}", c.join(", "))
            };
            format!("{which}: {why}")
        })
        .collect()
}
