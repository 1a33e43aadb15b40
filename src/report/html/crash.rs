//! The section of one `fsfit crash` run: how it ran, then per config the
//! survival chart with its figures beside it, the worst states with their
//! replay commands, and the filesystems that were skipped.

use super::{kv, Out};
use crate::crash::{CrashResult, Outcomes, Report};
use crate::report::charts::figures::slug;
use crate::report::charts::survival::{configs, survival_chart};
use crate::report::charts::{esc, pct};
use crate::report::inputs::Named;
use crate::units::iec;
use std::fmt::Write;

/// What a device model means, in words.
fn device_model(m: &str) -> String {
    let what = match m {
        "honest" => "every flush the filesystem sends is kept",
        "lying" => "the device honours only every 2nd to 4th flush, as cheap sticks do",
        "torn" => "as honest, and the write in flight persists only in part",
        "no-flush" => "the host sends no flush (write-through USB stick): writes still in the stick's cache may be lost",
        "flash-gc" => "as honest, and a cut during an allocation unit's copy damages its pages not yet copied, old data too",
        _ => "",
    };
    if what.is_empty() {
        esc(m)
    } else {
        format!("{}: {what}", esc(m))
    }
}

fn crash_env(o: &mut Out, c: &Named<Report>) {
    let d = &c.doc;
    let mut s = String::from("<h3>Environment</h3>\n<table class=\"kv\">\n");
    kv(&mut s, "Results file", &esc(&c.source));
    kv(&mut s, "fsfit", &esc(&d.fsfit));
    if !d.command.is_empty() {
        kv(
            &mut s,
            "Command",
            &format!("<code class=\"cmd\">{}</code>", esc(&d.command)),
        );
    }
    kv(&mut s, "Date", &esc(&d.date));
    kv(&mut s, "Kernel", &esc(&d.kernel));
    if let Some(lab) = &d.lab {
        kv(
            &mut s,
            "Lab run",
            &format!(
                "{}: the lab virtual machine's kernel driver, checked for correctness; these are not device figures, and states per second say nothing about the driver's speed",
                esc(lab)
            ),
        );
    }
    kv(&mut s, "Device model", &device_model(&d.device_model));
    kv(
        &mut s,
        "Seed",
        &format!(
            "{} (the same seed makes the same states){}",
            d.seed,
            if d.quick { "; --quick" } else { "" }
        ),
    );
    s.push_str("</table>\n");
    o.push(&s);
}

/// A count of states and its share, as a table cell.
fn cell(n: u64, of: u64) -> String {
    let p = if of == 0 {
        "–".to_string()
    } else {
        pct(n as f64 * 100.0 / of as f64)
    };
    format!("<td class=\"n\">{p} <span class=\"note\">({n})</span></td>")
}

/// The outcome rows of the table: heading, what it counts, the figure.
type Figure = fn(&Outcomes) -> u64;
const OUTCOMES: [(&str, &str, Figure); 9] = [
    ("Mount as is", "mounted read-only without any repair", |o| {
        o.mountable_as_is
    }),
    ("Checker clean", "the checker found nothing", |o| {
        o.checker_clean
    }),
    ("Repaired", "the checker's repair left it clean", |o| {
        o.checker_repaired
    }),
    (
        "Unrepairable",
        "still not clean after the repair (with no checker: did not mount)",
        |o| o.unrepairable,
    ),
    (
        "Durable file lost",
        "a file whose fsync or sync had returned is lost or changed",
        |o| o.durable_lost,
    ),
    (
        "Old file damaged",
        "a file synced before the workload began is lost or changed",
        |o| o.old_files_damaged,
    ),
    (
        "In flight, gone",
        "files not yet durable are missing (allowed)",
        |o| o.inflight_lost,
    ),
    (
        "In flight, wrong bytes",
        "files not yet durable hold bytes never written to them",
        |o| o.inflight_garbage,
    ),
    (
        "No checker",
        "states judged by mounting and reading alone",
        |o| o.no_checker,
    ),
];

/// One row of the table: a cell per workload (a dash where it failed).
fn table_row(
    s: &mut String,
    results: &[&CrashResult],
    head: (&str, &str),
    cell: &dyn Fn(&CrashResult) -> String,
) {
    let _ = write!(
        s,
        "<tr><th scope=\"row\" title=\"{}\">{}</th>",
        esc(head.1),
        esc(head.0)
    );
    for r in results {
        match &r.error {
            Some(_) => s.push_str("<td class=\"n\">–</td>"),
            None => s.push_str(&cell(r)),
        }
    }
    s.push_str("</tr>\n");
}

/// The figures of the chart and the rest of the outcomes: one column per
/// workload, so it fits beside the chart.
fn outcome_table(results: &[&CrashResult]) -> String {
    let mut s = String::from("<table>\n<thead><tr><th>Crash states</th>");
    for r in results {
        let _ = write!(s, "<th class=\"n\">{}</th>", esc(&r.workload));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    table_row(&mut s, results, ("States", "crash states judged"), &|r| {
        format!("<td class=\"n\">{}</td>", r.states)
    });
    for (head, title, f) in OUTCOMES {
        table_row(&mut s, results, (head, title), &|r| {
            cell(f(&r.outcomes), r.states)
        });
    }
    table_row(
        &mut s,
        results,
        (
            "Writes / flushes",
            "what the recorder saw the filesystem send",
        ),
        &|r| format!("<td class=\"n\">{} / {}</td>", r.writes, r.flushes),
    );
    if results.iter().any(|r| r.error.is_some()) {
        s.push_str("<tr><th scope=\"row\">Status</th>");
        for r in results {
            let t = match &r.error {
                Some(e) => format!("<span class=\"bad\">failed: {}</span>", esc(e)),
                None => "ran".into(),
            };
            let _ = write!(s, "<td>{t}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

/// The worst states of a config, each with the command that rebuilds it.
fn worst_table(results: &[&CrashResult]) -> String {
    let rows: Vec<_> = results
        .iter()
        .flat_map(|r| r.worst.iter().map(move |w| (r, w)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h4>Worst states</h4>\n<table>\n<thead><tr><th>Workload</th><th>State</th><th>What</th><th>Detail</th><th>Rebuild it to inspect</th></tr></thead>\n<tbody>\n");
    for (r, w) in rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td><code class=\"cmd\">{}</code></td></tr>",
            esc(&r.workload),
            esc(&w.state),
            esc(crate::crash::results::kind_said(&w.kind)),
            esc(&w.detail),
            esc(&w.replay)
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

/// One config: its chart, the figures beside it, the worst states.
fn config_block(o: &mut Out, id: &str, name: &str, results: &[&CrashResult]) {
    let first = results[0];
    let checker = match &first.checker {
        Some(c) => format!("checker <code>{}</code>", esc(c)),
        None => "no checker: states are judged by mounting and reading alone".to_string(),
    };
    let _ = writeln!(
        o.html,
        "<h3 id=\"{id}\">{}</h3>\n<p class=\"note\">Driver <code>{}</code>, {}, {checker}, {} image{}.</p>",
        esc(name),
        esc(&first.driver),
        esc(&crate::fs::policy::shown(
            &first.mount_policy,
            &first.mount_options,
            first.mount_policy_note.as_deref()
        ).join("; ")),
        esc(&iec(first.image_bytes)),
        if first.image_bytes == 0 { " (size not recorded)" } else { "" }
    );
    o.push("<div class=\"pair\">");
    match survival_chart(&format!("{id}-survival"), name, results) {
        Some(c) => o.figure(c),
        None => o.push("<p class=\"bad\">No workload of this config has judged states.</p>\n"),
    }
    let _ = writeln!(
        o.html,
        "<div class=\"side\">{}</div></div>",
        outcome_table(results)
    );
    o.push(&worst_table(results));
}

pub(super) fn crash_section(o: &mut Out, i: usize, c: &Named<Report>) {
    let id = format!("crash-{}", i + 1);
    let lab = match &c.doc.lab {
        Some(l) => format!(" (lab run: {})", esc(l)),
        None => String::new(),
    };
    let _ = writeln!(
        o.html,
        "<section id=\"{id}\">\n<h2>Crash survival: {}{lab}</h2>\n<p class=\"note\">What survives pulling the drive out mid-write: every crash state of each workload's recorded writes is mounted read-only, its files compared with what was promised, and the filesystem's checker run (then its repair, when needed). Volume: whether the state needed no repair, was repaired, or stayed broken. A durable file lost (its fsync or sync had returned) or an old file damaged (synced before the workload began) is a broken promise; files still in flight may be missing, which is allowed.</p>",
        esc(&c.label)
    );
    crash_env(o, c);
    for (name, results) in configs(&c.doc) {
        let cid = format!("{id}-{}", slug(&name));
        config_block(o, &cid, &name, &results);
    }
    if !c.doc.skipped.is_empty() {
        o.push("<h3>Skipped</h3>\n<ul>\n");
        for s in &c.doc.skipped {
            let _ = writeln!(o.html, "<li>{}: {}</li>", esc(&s.fs), esc(&s.reason));
        }
        o.push("</ul>\n");
    }
    o.push("</section>\n");
}
