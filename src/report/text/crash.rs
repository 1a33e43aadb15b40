//! The crash document as a table: one row per config × workload, as
//! percentages of the crash states tested (`fsfit crash`).

use crate::crash::{CrashResult, Report};

fn pct(n: u64, of: u64) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{:.0}", n as f64 * 100.0 / of as f64)
    }
}

/// The DEVICE-FAULT% cell: measured against undamaged twins for torn and
/// flash-gc; "all" where the model breaks flush promises (lying, no-flush);
/// "-" on an honest device.
fn device_fault(rep: &Report, r: &CrashResult) -> String {
    match rep.device_model.as_str() {
        "torn" | "flash-gc" => pct(r.outcomes.device_fault, r.states),
        "lying" | "no-flush" => "all".into(),
        _ => "-".into(),
    }
}

/// Short headings, so that a row fits 100 columns; the legend under the
/// table says what each means, the JSON has every figure in full.
const HEAD: [&str; 12] = [
    "CONFIG", "DRIVER", "OPTIONS", "WORKLOAD", "STATES", "MOUNT%", "CLEAN%", "FIXED%", "UNFIXED%",
    "LOST%", "OLD%", "DEVICE%",
];

/// The columns before the figures (left-aligned).
const CONFIG_COLUMNS: usize = 4;

const LEGEND: &str = "\nMOUNT%: states that mount read-only without repair. CLEAN%: the checker finds nothing. \
FIXED%: the checker's repair leaves it clean. UNFIXED%: the repair does not. \
LOST%: a file whose fsync/sync had returned is lost or changed (durable data lost). \
OLD%: a file written before the workload began is lost or changed. \
DEVICE%: states that lost data only through the device's own damage (the same writes without it lost nothing): \
the device's fault, not the filesystem's (\"all\": the device broke its flush promises, every loss is its doing). \
DRIVER: the kernel's or FUSE (the JSON names it). States per second: in the progress lines and the JSON.\n";

pub fn render(rep: &Report) -> String {
    let mut rows: Vec<Vec<String>> = vec![HEAD.iter().map(|s| s.to_string()).collect()];
    rows.extend(rep.results.iter().map(|r| row(rep, r)));
    let mut out = title(rep);
    out.push_str(&grid(&rows));
    for s in &rep.skipped {
        out.push_str(&format!("skipped {}: {}\n", s.fs, s.reason));
    }
    out.push_str(&policies(rep));
    out.push_str(&worst(rep));
    out.push_str(LEGEND);
    out
}

/// One config × workload: its config, then its figures or its error.
fn row(rep: &Report, r: &CrashResult) -> Vec<String> {
    // "kernel:ext4 6.1" is "kernel", "fuse:exfat-fuse" "fuse": each
    // filesystem has one FUSE driver here, and the JSON names it.
    let driver = r.driver.split_whitespace().next().unwrap_or("");
    let driver = driver.split_once(':').map_or(driver, |(kind, _)| kind);
    let mut row = vec![
        format!("{}:{}", r.fs, crate::units::short(r.cluster_bytes)),
        driver.to_string(),
        // A policy's options are long (udisks2's uid=,gid=,...): the cell
        // names it, the lines under the table spell them out.
        if !r.mount_policy.is_empty() && r.mount_policy != "server" {
            r.mount_policy.clone()
        } else if r.mount_options.is_empty() {
            "-".into()
        } else {
            r.mount_options.clone()
        },
        r.workload.clone(),
    ];
    if let Some(e) = &r.error {
        row.push(format!("error: {e}"));
        return row;
    }
    let (o, n) = (&r.outcomes, r.states);
    let clean = if r.checker.is_none() {
        "none".into()
    } else {
        pct(o.checker_clean, n)
    };
    row.extend([
        n.to_string(),
        pct(o.mountable_as_is, n),
        clean,
        pct(o.checker_repaired, n),
        pct(o.unrepairable, n),
        pct(o.durable_lost, n),
        pct(o.old_files_damaged, n),
        device_fault(rep, r),
    ]);
    row
}

/// The device model (and the lab), what it means, and a blank line.
/// Each filesystem's mount policy and options, once, where a policy other
/// than the server default was used.
fn policies(rep: &Report) -> String {
    let mut lines: Vec<String> = Vec::new();
    for r in rep
        .results
        .iter()
        .filter(|r| !matches!(r.mount_policy.as_str(), "" | "server"))
    {
        let shown = crate::fs::policy::shown(
            &r.mount_policy,
            &r.mount_options,
            r.mount_policy_note.as_deref(),
        );
        let l = format!("{}: {}\n", r.fs, shown.join("\n    "));
        if !lines.contains(&l) {
            lines.push(l);
        }
    }
    lines.concat()
}

fn title(rep: &Report) -> String {
    let lab = match &rep.lab {
        Some(l) => format!(" - LAB RUN ({l}): the lab kernel's driver, not this host's speed"),
        None => String::new(),
    };
    let mut out = format!(
        "Crash states, device model: {} (seed {}){lab}\n",
        rep.device_model, rep.seed
    );
    if !rep.device.meaning.is_empty() {
        out.push_str(&format!("  {}: {}\n", rep.device_model, rep.device.meaning));
    }
    out.push('\n');
    out
}

/// The rows in columns: the config's left-aligned, the figures right-aligned;
/// a row cut short by an error widens the config's columns (it has them
/// too) but not the figures' (its error runs across them).
fn grid(rows: &[Vec<String>]) -> String {
    let cols = HEAD.len();
    let mut w = vec![0; cols];
    for r in rows {
        let shown = if r.len() == cols {
            cols
        } else {
            CONFIG_COLUMNS
        };
        for (i, c) in r.iter().enumerate().take(shown) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < CONFIG_COLUMNS || r.len() < cols {
                    format!("{c:<w$}", w = w[i.min(cols - 1)])
                } else {
                    format!("{c:>w$}", w = w[i])
                }
            })
            .collect();
        // Two spaces between the config's columns, one between figures
        // (right-aligned under their headings): a row fits 100 columns.
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i > 0 {
                text.push_str(if i <= CONFIG_COLUMNS { "  " } else { " " });
            }
            text.push_str(cell);
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// The two worst states of each result, with their replay commands.
fn worst(rep: &Report) -> String {
    let worst: Vec<_> = rep
        .results
        .iter()
        .flat_map(|r| r.worst.iter().take(2).map(move |w| (r, w)))
        .collect();
    if worst.is_empty() {
        return String::new();
    }
    let mut out = "\nWorst states (inspect with the replay command):\n".to_string();
    for (r, w) in worst {
        let detail = if w.detail.is_empty() {
            String::new()
        } else {
            format!(": {}", w.detail)
        };
        out.push_str(&format!(
            "  {} {}: {}, {}{detail}\n    {}\n",
            r.fs,
            r.workload,
            w.state,
            crate::crash::results::kind_said(&w.kind),
            w.replay
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::crash::results::{CrashResult, Worst};

    #[test]
    fn worst_states_are_said_in_words_not_json_names() {
        let mut rep: crate::crash::Report = serde_json::from_value(serde_json::json!({
            "schema": "fsfit.crash/1", "fsfit": "0", "date": "", "command": "",
            "kernel": "", "device_model": "honest", "seed": 1, "quick": true,
            "results": [], "skipped": []
        }))
        .unwrap();
        let mut r = CrashResult {
            fs: "exfat".into(),
            workload: "copy".into(),
            ..Default::default()
        };
        for (state, kind, detail) in [
            ("e1-r16", "durable_lost", "DCIM/IMG_0000.JPG: missing"),
            ("e2", "unrepairable", ""),
        ] {
            r.worst.push(Worst {
                state: state.into(),
                kind: kind.into(),
                detail: detail.into(),
                replay: "fsfit crash --replay RUN --state S -o S.img".into(),
            });
        }
        rep.results.push(r);
        let text = super::worst(&rep);
        assert!(
            text.contains("exfat copy: e1-r16, a durable file lost: DCIM/IMG_0000.JPG: missing\n"),
            "{text}"
        );
        assert!(text.contains("exfat copy: e2, unrepairable\n"), "{text}");
        assert!(!text.contains("durable_lost"), "{text}");
    }
}
