//! The survival chart of `fsfit crash` results: per config (filesystem ×
//! cluster × driver × mount options), per workload, what became of the
//! crash states. The volume's fate (no repair needed, repaired,
//! unrepairable) is one whole and is stacked; mounting as is and the two
//! broken promises (a durable file lost, an old file damaged) overlap with
//! it and with each other, so each is a bar of its own.

use super::{pct, stacked, Chart, Segment, Stack, Stacks};
use crate::crash::{CrashResult, Report};

const WIDTH: u32 = 720;

/// `ext4:4K kernel:ext4`, with `-o OPTS` when the run set mount options.
pub fn config_name(r: &CrashResult) -> String {
    let driver = r.driver.split_whitespace().next().unwrap_or("");
    let mut n = format!("{}:{} {driver}", r.fs, crate::units::short(r.cluster_bytes));
    if !r.mount_options.is_empty() {
        n.push_str(&format!(" -o {}", r.mount_options));
    }
    n
}

/// The results grouped by config, in the order they ran.
pub fn configs(rep: &Report) -> Vec<(String, Vec<&CrashResult>)> {
    let mut out: Vec<(String, Vec<&CrashResult>)> = Vec::new();
    for r in &rep.results {
        let n = config_name(r);
        match out.iter_mut().find(|(k, _)| *k == n) {
            Some((_, v)) => v.push(r),
            None => out.push((n, vec![r])),
        }
    }
    out
}

/// A result with states to show.
pub fn judged(r: &CrashResult) -> bool {
    r.error.is_none() && r.states > 0
}

/// Legend names in plain words, short names, palette indices; the
/// indices below refer to them.
pub const SEGMENTS: [(&str, &str, usize); 7] = [
    ("no repair needed", "clean", 2),
    ("repaired by the checker", "repaired", 1),
    ("unrepairable", "unrepairable", 3),
    ("mounted (no checker)", "mounted", 5),
    ("mounts as is", "as is", 0),
    ("durable file lost", "durable lost", 4),
    ("old file damaged", "old damaged", 7),
];

/// The volume's fate as parts of the states: (segment, count). With a
/// checker: clean and mounted / repaired / not repaired; without: mounted /
/// did not mount (which the contract counts as unrepairable).
pub fn volume_parts(r: &CrashResult) -> Vec<(usize, u64)> {
    let o = &r.outcomes;
    let bad = o.unrepairable.min(r.states);
    if r.checker.is_none() {
        return vec![(3, r.states - bad), (2, bad)];
    }
    let repaired = o.checker_repaired.min(r.states - bad);
    vec![(0, r.states - bad - repaired), (1, repaired), (2, bad)]
}

fn share(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 * 100.0 / of as f64
    }
}

/// The four rows of one workload.
fn rows(r: &CrashResult) -> Vec<Stack> {
    let n = r.states;
    let o = &r.outcomes;
    let one = |what: &str, seg: usize, k: u64| Stack {
        label: format!("{}: {what}", r.workload),
        parts: vec![(seg, share(k, n))],
        note: pct(share(k, n)),
        group_start: false,
    };
    vec![
        Stack {
            label: format!("{}: volume", r.workload),
            parts: volume_parts(r)
                .into_iter()
                .map(|(s, k)| (s, share(k, n)))
                .collect(),
            note: crate::units::count(n, "state"),
            group_start: true,
        },
        one("mounts as is", 4, o.mountable_as_is),
        one("durable file lost", 5, o.durable_lost),
        one("old file damaged", 6, o.old_files_damaged),
    ]
}

/// One workload in words, for the chart's text alternative.
fn said(r: &CrashResult) -> String {
    let n = r.states;
    let o = &r.outcomes;
    let parts: Vec<String> = volume_parts(r)
        .into_iter()
        .map(|(s, k)| format!("{} {}", pct(share(k, n)), SEGMENTS[s].0))
        .collect();
    format!(
        "{}: {}; volume {}; {} mount as is; a durable file lost in {}, an old file damaged in {}",
        r.workload,
        crate::units::count(n, "state"),
        parts.join(", "),
        pct(share(o.mountable_as_is, n)),
        pct(share(o.durable_lost, n)),
        pct(share(o.old_files_damaged, n)),
    )
}

/// The survival chart of one config; None when no workload has states.
pub fn survival_chart(id: &str, config: &str, results: &[&CrashResult]) -> Option<Chart> {
    let shown: Vec<&CrashResult> = results.iter().copied().filter(|r| judged(r)).collect();
    if shown.is_empty() {
        return None;
    }
    let title = format!("{config}: what survives a crash");
    let desc = format!(
        "Shares of the crash states of {config}, per workload. {}.",
        shown.iter().map(|r| said(r)).collect::<Vec<_>>().join(". ")
    );
    let svg = stacked(&Stacks {
        title: title.clone(),
        segments: SEGMENTS
            .iter()
            .map(|(n, short, c)| Segment {
                name: n.to_string(),
                short: short.to_string(),
                color: *c,
            })
            .collect(),
        rows: shown.iter().flat_map(|r| rows(r)).collect(),
        x_desc: "Share of the crash states (%)".into(),
        width: WIDTH,
    });
    Some(Chart {
        svg: super::accessible(&svg, id, &title, &desc),
        id: id.to_string(),
        title,
        desc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crash::Outcomes;

    fn res(checker: bool, o: Outcomes, states: u64) -> CrashResult {
        CrashResult {
            fs: "exfat".into(),
            cluster_bytes: 4096,
            driver: "fuse:exfat-fuse 1.3.0".into(),
            checker: checker.then(|| "fsck.exfat 1.2.0".into()),
            workload: "save".into(),
            states,
            outcomes: o,
            ..Default::default()
        }
    }

    #[test]
    fn the_volume_parts_add_up_to_the_states() {
        // Clean-but-unmountable states are repaired, so clean + repaired
        // + unrepairable can exceed the states: the parts may not.
        let o = Outcomes {
            mountable_as_is: 26,
            checker_clean: 25,
            checker_repaired: 4,
            unrepairable: 1,
            ..Default::default()
        };
        let r = res(true, o.clone(), 28);
        assert_eq!(volume_parts(&r), vec![(0, 23), (1, 4), (2, 1)]);
        assert_eq!(config_name(&r), "exfat:4K fuse:exfat-fuse");
        let r = res(false, o, 28);
        assert_eq!(volume_parts(&r), vec![(3, 27), (2, 1)]);
        let c = survival_chart("c", &config_name(&r), &[&r]).unwrap();
        assert!(c
            .desc
            .contains("96 % mounted (no checker), 4 % unrepairable"));
        assert!(c.svg.contains("save: durable file lost"));
        let mut failed = r.clone();
        failed.error = Some("mkfs failed".into());
        assert!(survival_chart("c", "x", &[&failed]).is_none());
    }
}
