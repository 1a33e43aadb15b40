//! The ranking: keep the configs the named systems write and that store the
//! tree, then weigh speed against space the way the exFAT cluster-size measurements did ("8 KiB: 338
//! MB/s at 10 % overhead"): the fastest config within the overhead limit,
//! where speed is measured when it can be and assumed (and said so) when not.

use super::{
    allowed, copy_estimate, prior, systems, Advice, Candidate, Options, Robustness, Simulation,
    SpeedKind, SCHEMA,
};
use crate::fs;
use crate::scan::TreeCounts;
use crate::units::{iec, short};
use crate::usage::{ConfigReport, UsageReport};

/// Measured speeds closer than this are one speed: one short run on a busy
/// machine varies that much (bench flags figures over 10 % CV as high-cv).
const SAME_SPEED: f64 = 1.10;

fn candidate(c: &ConfigReport, tree: &TreeCounts) -> Candidate {
    let a = tree.apparent_bytes.max(1) as f64;
    // Sparse files take less on disk than their size, but data "like
    // yours" copied by a tool that fills holes would not: never more
    // than one byte of data per free byte.
    // Under the floor where an overhead percentage means nothing, the
    // ratio of data to space on disk is a cluster's fixed cost too (a
    // 3-byte tree once made a 64 GiB volume "hold only 46.8 MiB"): the
    // free space is what it holds.
    let too_little = matches!(
        crate::usage::no_percentage(tree.apparent_bytes, c.cannot_store_bytes, c.overhead_pct),
        Some(crate::usage::NoPercentage::TooLittleData)
    );
    let holds = if c.tree_bytes > 0 && !too_little {
        (c.free_bytes as f64 * (a / c.tree_bytes as f64).min(1.0)) as u64
    } else {
        c.free_bytes
    };
    Candidate {
        fs: c.fs.clone(),
        cluster_bytes: c.cluster_bytes,
        tree_bytes: c.tree_bytes,
        overhead_pct: c.overhead_pct,
        overhead_note: crate::usage::overhead_shown(tree, c)
            .err()
            .map(str::to_string),
        fits: c.fits,
        problems: c.problems.blocking(),
        holds_bytes: holds,
        wasted_at_fill_bytes: None,
        speed: SpeedKind::Unmeasured,
        write_mb_per_s: None,
        est_copy_seconds: None,
        fill_seconds: None,
        assumed_relative_speed: None,
        profile: None,
        simulated_mb_per_s: None,
        speed_from: Vec::new(),
        round: None,
        mb_per_s_by_round: Vec::new(),
        crash: None,
        reasons: Vec::new(),
        plan: None,
    }
}

/// Why the named systems rule this filesystem out, if they do: each
/// system that cannot use it, with the fact.
fn system_rejection(systems: &[&systems::System], fs: &str, volume: u64) -> Option<String> {
    if allowed(systems, volume).contains(&fs) {
        return None;
    }
    let why: Vec<String> = systems
        .iter()
        .filter_map(|s| s.why_not(fs, volume))
        .collect();
    Some(why.join(", "))
}

/// Split the usage report's configs into candidates and rejected ones.
pub fn candidates(
    usage: &UsageReport,
    systems: &[&systems::System],
) -> (Vec<Candidate>, Vec<Candidate>) {
    let mut good = Vec::new();
    let mut rejected = Vec::new();
    for c in &usage.configs {
        let mut cand = candidate(c, &usage.tree);
        if let Some(why) = system_rejection(systems, &c.fs, usage.volume_bytes) {
            cand.reasons.push(why);
            rejected.push(cand);
        } else if let Some(why) = &c.unmountable {
            cand.reasons.push(why.clone());
            rejected.push(cand);
        } else if c.problems.too_large > 0 {
            cand.reasons.push(format!(
                "{} {} over {}'s size limit",
                crate::units::count(c.problems.too_large, "file"),
                if c.problems.too_large == 1 {
                    "is"
                } else {
                    "are"
                },
                c.fs
            ));
            rejected.push(cand);
        } else if !c.fits {
            cand.reasons.push(format!(
                "the tree does not fit: needs {} of {} free",
                iec(c.tree_bytes),
                iec(c.free_bytes)
            ));
            rejected.push(cand);
        } else {
            good.push(cand);
        }
    }
    (good, rejected)
}

/// The place of a filesystem inside its robustness class.
fn pref(fs: &str) -> usize {
    systems::robustness_rank(fs).1
}

/// Two candidates of one robustness class, both within the overhead limit
/// or both over it (`over`). Over the limit: the least space first (assumed
/// speeds: in the class's order of filesystems). Within: measured, who
/// reached a later round of successive halving beat the rest, then speed;
/// assumed, speeds say nothing across filesystems, so the class's order,
/// then the prior within the filesystem; then the least space.
fn within_class(x: &Candidate, y: &Candidate, measured: bool, over: bool) -> std::cmp::Ordering {
    let by_fs = if measured {
        std::cmp::Ordering::Equal
    } else {
        pref(&x.fs).cmp(&pref(&y.fs))
    };
    if over {
        return by_fs.then(x.tree_bytes.cmp(&y.tree_bytes));
    }
    let by_cost = || {
        let cx = x.cost().unwrap_or(f64::INFINITY);
        let cy = y.cost().unwrap_or(f64::INFINITY);
        cx.total_cmp(&cy)
    };
    let by_round = if measured {
        y.round.cmp(&x.round)
    } else {
        std::cmp::Ordering::Equal
    };
    by_round
        .then(by_fs)
        .then_with(by_cost)
        .then(x.tree_bytes.cmp(&y.tree_bytes))
}

/// How the candidates are ranked, in words: the order `advise` applies,
/// stated the same in the text and the JSON (`ranking`).
pub fn ranking_rule(max: f64, measured: bool) -> Vec<String> {
    vec![
        "first the configs that store every file as it is, then those that damaged durable or older files in --crash results come after clean ones".into(),
        format!("then by robustness class: {}", systems::robustness_order()),
        if measured {
            format!(
                "within a class, configs within the {max} % overhead limit before those over it: the limit never moves a less robust filesystem ahead of a more robust one"
            )
        } else {
            format!(
                "within a class, clusters of {} or more before smaller ones (flash writes them slower) where one stores the tree, then configs within the {max} % overhead limit before those over it: the limit never moves a less robust filesystem ahead of a more robust one",
                short(prior::FLASH_MIN_CLUSTER)
            )
        },
        if measured {
            "then by measured write speed for your mix of file sizes (the least space breaks ties); over the limit, the least space first".into()
        } else {
            "then the filesystem's place in its class, then the write speed of the cluster size (simulated on a flash profile, or assumed), then the least space; over the limit, the least space first".into()
        },
    ]
}

/// Fill in each candidate's speed: measured (latest round that has it) or,
/// with no measurements at all, assumed from the prior.
fn speeds(good: &mut [Candidate], tree: &TreeCounts, opts: &Options, volume: u64) {
    for c in good.iter_mut() {
        if let (true, Some((p, _))) = (opts.measured.is_empty(), &opts.drive) {
            let offset = super::plan::volume_start(&c.fs, c.cluster_bytes, volume, opts);
            let traced = opts.traced();
            let mbps = match traced {
                // Traced figures compare across filesystems; a config left
                // untraced gets none rather than a synthetic one that would
                // not compare with them.
                Some(s) => s.figure(&c.fs, c.cluster_bytes),
                None => crate::flash::synth::tree_write_mb_s(tree, c.cluster_bytes, p, offset),
            };
            if traced.is_some() && mbps.is_none() {
                c.speed = SpeedKind::Unmeasured;
                continue;
            }
            c.speed = SpeedKind::Simulated;
            c.profile = Some(p.name.clone());
            // Unrounded: a tree of a few bytes writes at well under 0.001
            // MB/s, and its candidates still compare.
            c.simulated_mb_per_s = mbps;
            continue;
        }
        if opts.measured.is_empty() {
            let default = fs::by_name(&c.fs).map_or(c.cluster_bytes, |f| f.default_cluster(volume));
            c.speed = SpeedKind::Assumed;
            c.assumed_relative_speed = Some(prior::relative_speed(c.cluster_bytes, default));
            continue;
        }
        for (i, b) in opts.measured.iter().enumerate() {
            let mbps = match copy_estimate(tree, b, &c.fs, c.cluster_bytes) {
                Some((s, used)) if s > 0.0 => {
                    // The latest round wins: the longest pass.
                    c.speed = SpeedKind::Measured;
                    c.est_copy_seconds = Some((s * 100.0).round() / 100.0);
                    c.write_mb_per_s = Some(tree.apparent_bytes as f64 / 1e6 / s);
                    c.speed_from = used;
                    c.round = Some(i as u32 + 1);
                    tree.apparent_bytes as f64 / 1e6 / s
                }
                _ => 0.0,
            };
            c.mb_per_s_by_round.push((mbps * 100.0).round() / 100.0);
        }
    }
}

/// " (device models honest, no-flush: removable flash)": which models the
/// crash states come from; no-flush and flash-gc are what removable flash
/// does (no flush reaches a write-through stick; its garbage collection).
fn models_said(models: &[String]) -> String {
    if models.is_empty() {
        return String::new();
    }
    let flash = models.iter().any(|m| m == "no-flush" || m == "flash-gc");
    format!(
        " (device model{} {}{})",
        if models.len() > 1 { "s" } else { "" },
        models.join(", "),
        if flash { ": removable flash" } else { "" }
    )
}

fn crash_note(c: &Candidate, crash: &[Robustness]) -> Option<(bool, String)> {
    let r = crash
        .iter()
        .filter(|r| r.fs == c.fs && r.cluster_bytes.is_none_or(|x| x == c.cluster_bytes))
        .max_by_key(|r| r.cluster_bytes.is_some())?;
    Some((
        r.damaged > 0,
        format!(
            "crash tests{}: {} of {} power-cut states damaged durable or older files",
            models_said(&r.models),
            r.damaged,
            r.states
        ),
    ))
}

/// What the order weighs besides each candidate's own figures.
struct Order {
    /// The fewest files any candidate cannot store as they are.
    fewest: u64,
    /// The flash floor applies to assumed speeds only, and only where some
    /// candidate of 4 KiB or more stores the tree.
    floor_applies: bool,
    measured: bool,
    max: f64,
    /// The SD specification's cluster was put first (a camera's card), not
    /// the ranking's pick: its space is not the reason for it.
    spec_first: bool,
}

impl Order {
    fn new(good: &[Candidate], opts: &Options) -> Order {
        let measured = !opts.measured.is_empty();
        let fewest = good.iter().map(|c| c.problems).min().unwrap_or(0);
        let floor_applies = !measured
            && good
                .iter()
                .any(|c| c.cluster_bytes >= prior::FLASH_MIN_CLUSTER && c.problems == fewest);
        Order {
            fewest,
            floor_applies,
            measured,
            max: opts.max_overhead,
            spec_first: false,
        }
    }

    fn below_floor(&self, c: &Candidate) -> bool {
        self.floor_applies && c.cluster_bytes < prior::FLASH_MIN_CLUSTER
    }
}

/// The whole ranking: filter, score, break a measured tie, weigh at the
/// fill, then say why.
pub fn advise(usage: &UsageReport, opts: &Options) -> Advice {
    let tree = &usage.tree;
    let (mut good, rejected) = filter(usage, opts);
    let mut order = Order::new(&good, opts);
    score(&mut good, &order, opts.crash);
    let tie = tie_break(&mut good, &order, usage.volume_bytes);
    let displaced = super::plan::spec_first(&mut good, &opts.systems, usage.volume_bytes);
    order.spec_first = displaced;
    let fill = fill(&mut good, tree, opts.fill);
    let (mut why, tradeoffs) = explain(&good, usage, opts, &order, fill, tie);
    let (systems, volume) = (&opts.systems, usage.volume_bytes);
    why.extend(super::plan::spec_why(
        &good, displaced, systems, volume, fill,
    ));
    let simulation = opts.simulation.clone().map(|s| Simulation {
        alignment: simulated_alignment(&good, usage.volume_bytes, opts),
        ..s
    });
    let assumptions = assumptions(usage, opts, simulation.as_ref(), order.measured, fill);
    let (measured, max) = (order.measured, order.max);
    let mut a = Advice {
        schema: SCHEMA,
        fsfit: env!("CARGO_PKG_VERSION").to_string(),
        date: crate::units::now_utc(),
        volume_bytes: usage.volume_bytes,
        systems: opts.systems.iter().map(|s| s.name.to_string()).collect(),
        sources: opts
            .systems
            .iter()
            .map(|s| format!("{}: {}", s.name, s.source))
            .collect(),
        max_overhead_pct: max,
        fill_bytes: fill,
        tree: tree.clone(),
        speed_measured: measured && good.iter().any(|c| c.speed == SpeedKind::Measured),
        mount_policy: opts.mount_policy.clone(),
        simulation,
        choice: None,
        tradeoff: tradeoffs.first().cloned(),
        runner_up: None,
        why,
        tradeoffs,
        assumptions,
        ranking: ranking_rule(max, measured)
            .into_iter()
            .chain(super::plan::spec_rule(&opts.systems, usage.volume_bytes))
            .collect(),
        notes: opts
            .systems
            .iter()
            .flat_map(|s| s.notes(usage.volume_bytes))
            .collect(),
        commands: None,
        candidates: good,
        rejected,
        budget: None,
        measurements: opts.measured.to_vec(),
        usage: usage.clone(),
    };
    super::plan::attach(&mut a, opts);
    a
}

/// Filter: the configs the systems use and that store the tree, with their
/// speeds and what crash results say; the others rejected, with reasons.
fn filter(usage: &UsageReport, opts: &Options) -> (Vec<Candidate>, Vec<Candidate>) {
    let (mut good, rejected) = candidates(usage, &opts.systems);
    speeds(&mut good, &usage.tree, opts, usage.volume_bytes);
    for c in good.iter_mut() {
        if let Some((_, note)) = crash_note(c, opts.crash) {
            c.crash = Some(note);
        }
    }
    (good, rejected)
}

/// Score: lower is better: files it cannot store, crash damage, the
/// robustness class, the flash floor, the overhead limit, then inside the
/// class (see `ranking_rule`, which says this in words).
fn score(good: &mut [Candidate], o: &Order, crash: &[Robustness]) {
    let damaged = |c: &Candidate| crash_note(c, crash).is_some_and(|(d, _)| d);
    good.sort_by(|x, y| {
        let key = |c: &Candidate| {
            (
                c.problems > o.fewest,
                damaged(c),
                systems::robustness_rank(&c.fs).0,
                o.below_floor(c),
                c.overhead_pct > o.max,
            )
        };
        let (kx, ky) = (key(x), key(y));
        kx.cmp(&ky)
            .then_with(|| within_class(x, y, o.measured, kx.4))
    });
}

/// Tie-break: measured speeds within noise of the leader's are a tie; the
/// tie goes to the cluster the prior favours (the larger, up to the mkfs
/// default): small clusters cost what a write benchmark does not time
/// (format time, allocation-table size, file-manager lag, as the exFAT cluster-size measurements found).
/// Returns the reason when it moved a candidate to the top.
fn tie_break(good: &mut Vec<Candidate>, o: &Order, volume: u64) -> Option<String> {
    if !o.measured || good.len() < 2 {
        return None;
    }
    let best = good[0].cost()?;
    let head = good[0].clone();
    let favour = |c: &Candidate| {
        let d = fs::by_name(&c.fs).map_or(c.cluster_bytes, |f| f.default_cluster(volume));
        prior::relative_speed(c.cluster_bytes, d)
    };
    let i = good
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.round == head.round
                && systems::robustness_rank(&c.fs).0 == systems::robustness_rank(&head.fs).0
                && c.problems == head.problems
                && (c.overhead_pct > o.max) == (head.overhead_pct > o.max)
                && c.cost().is_some_and(|k| k <= best * SAME_SPEED)
        })
        .max_by(|(_, x), (_, y)| {
            favour(x)
                .total_cmp(&favour(y))
                .then(y.tree_bytes.cmp(&x.tree_bytes))
        })
        .map(|(i, _)| i)
        .filter(|&i| i > 0)?;
    let c = good.remove(i);
    let tie = format!(
        "{} measured within {:.0} % of the fastest ({}: {:.1} MB/s), inside one short run's noise; the tie goes to the larger cluster, since small clusters cost what a write benchmark does not time (format time, allocation-table size)",
        c.name(),
        (SAME_SPEED - 1.0) * 100.0,
        head.name(),
        head.write_mb_per_s.unwrap_or(0.0)
    );
    good.insert(0, c);
    Some(tie)
}

/// Fill: the fill does not change the order (overhead and speed are per
/// byte); it only puts the trade-offs in bytes and seconds. Default: as
/// much as fills the volume formatted as recommended. Returns the fill.
fn fill(good: &mut [Candidate], tree: &TreeCounts, fill: Option<u64>) -> u64 {
    let fill = fill.unwrap_or_else(|| good.first().map_or(0, |c| c.holds_bytes));
    let a = tree.apparent_bytes.max(1) as f64;
    for c in good.iter_mut() {
        let ratio = c.tree_bytes as f64 / a;
        // A config that cannot hold the whole fill wastes what it can hold.
        let stored = fill.min(c.holds_bytes) as f64;
        c.wasted_at_fill_bytes = c
            .overhead_note
            .is_none()
            .then(|| (stored * (ratio - 1.0)).max(0.0) as u64);
        if let Some(mbps) = c.write_mb_per_s {
            c.fill_seconds = Some((fill as f64 / 1e6 / mbps * 10.0).round() / 10.0);
        }
    }
    fill
}

/// Why the choice, and the trade-offs against the runner-up, the fastest
/// and the least wasteful.
fn explain(
    good: &[Candidate],
    usage: &UsageReport,
    opts: &Options,
    o: &Order,
    fill: u64,
    tie: Option<String>,
) -> (Vec<String>, Vec<String>) {
    let mut why = Vec::new();
    let mut tradeoffs = Vec::new();
    if let Some(c) = good.first() {
        why_lines(&mut why, c, usage, opts, fill, o);
        why.extend(tie);
        for other in [
            good.get(1),
            fastest(good, c, o.fewest),
            least_waste(good, c, o.fewest),
        ]
        .into_iter()
        .flatten()
        {
            let t = compare(c, other, fill);
            if !tradeoffs.contains(&t) {
                tradeoffs.push(t);
            }
        }
        tradeoffs.extend(per_fs_cost(good, c, &usage.tree, opts));
    }
    (why, tradeoffs)
}

/// With traced figures: per other filesystem (its best-ranked traced
/// config), what the choice costs in time to copy the tree on the profile.
fn per_fs_cost(
    good: &[Candidate],
    c: &Candidate,
    tree: &TreeCounts,
    opts: &Options,
) -> Vec<String> {
    let Some(sim) = opts.traced() else {
        return Vec::new();
    };
    let secs = |x: &Candidate| {
        x.simulated_mb_per_s
            .filter(|m| *m > 0.0)
            .map(|m| tree.apparent_bytes as f64 / 1e6 / m)
    };
    let Some(mine) = secs(c) else {
        return Vec::new();
    };
    let mut seen = vec![c.fs.as_str()];
    let mut out = Vec::new();
    for o in good.iter().filter(|o| secs(o).is_some()) {
        if seen.contains(&o.fs.as_str()) {
            continue;
        }
        seen.push(&o.fs);
        let theirs = secs(o).unwrap_or(mine);
        let (ratio, word) = if theirs >= mine {
            (theirs / mine, "faster")
        } else {
            (mine / theirs, "slower")
        };
        out.push(format!(
            "{} vs {}: your files copy in {} against {} on {} ({ratio:.1}x {word}, traced)",
            c.name(),
            o.name(),
            seconds(mine),
            seconds(theirs),
            sim.profile
        ));
    }
    out
}

/// "8.4 s", "3 min 20 s"; under a tenth of a second in ms or µs, two
/// figures, so both sides of a tiny tree's ratio read as what they are
/// rather than "0.0 s against 0.0 s".
fn seconds(s: f64) -> String {
    let small = |v: f64, unit: &str| {
        if v >= 10.0 {
            format!("{v:.0} {unit}")
        } else {
            format!("{v:.1} {unit}")
        }
    };
    if s < 1e-3 {
        small(s * 1e6, "µs")
    } else if s < 0.1 {
        small(s * 1e3, "ms")
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else {
        format!("{} min {:.0} s", (s / 60.0).floor(), s % 60.0)
    }
}

/// Where the choice's simulated volume starts on the flash: where its plan
/// puts it.
fn simulated_alignment(
    good: &[Candidate],
    volume: u64,
    opts: &Options,
) -> Option<crate::flash::Alignment> {
    let (p, _) = opts.drive.as_ref()?;
    let c = good.first()?;
    let at = super::plan::volume_start(&c.fs, c.cluster_bytes, volume, opts);
    Some(crate::flash::Alignment::of(p, at))
}

/// Which figures are assumed, and from where.
fn assumptions(
    usage: &UsageReport,
    opts: &Options,
    simulation: Option<&Simulation>,
    measured: bool,
    fill: u64,
) -> Vec<String> {
    let tree = &usage.tree;
    let mut assumptions = Vec::new();
    assumptions.extend(crate::usage::sparse_note(tree));
    if let (false, Some((p, how))) = (measured, &opts.drive) {
        let method = match simulation {
            Some(s) if s.is_traced() => {
                let n = s.sample.as_ref().map_or(0, |x| x.files);
                format!("{n} of your files (a sample stratified by size) copied onto each candidate with its real driver under {} mounts, the block trace replayed", s.mount_policy)
            }
            _ => "your files copied onto a fresh volume, one after another (synthetic: each file whole, then one metadata block)".to_string(),
        };
        let at = simulation
            .and_then(|s| s.alignment.as_ref())
            .map_or(String::new(), |a| {
                format!(
                    "; the choice's volume {} into the flash, where its plan puts it: {}",
                    crate::bench::relative::offset_text(a.partition_offset_bytes),
                    a.said()
                )
            });
        let held = p.state_said().map_or(String::new(), |s| format!("; {s}"));
        assumptions.push(format!(
            "write speed is simulated, not measured: {method} through flash profile {how}: {}{at}{held}; a profile is a class of device, not your drive",
            p.summary
        ));
        if let Some(s) = simulation {
            if !s.is_traced() {
                assumptions.push(s.why.clone());
            }
            assumptions.extend(s.not_traced.iter().cloned());
        }
    } else if !measured {
        assumptions.push(format!(
            "write speed against cluster size is assumed, not measured: {} (clusters above the mkfs default are assumed no faster than it)",
            prior::SOURCE
        ));
    }
    if !measured {
        assumptions.push(format!(
            "the drive is flash (USB stick, SD card, SSD): clusters below {} are written slower, so none is chosen where {} or more stores the tree",
            short(prior::FLASH_MIN_CLUSTER),
            short(prior::FLASH_MIN_CLUSTER)
        ));
    }
    if usage.volume_assumed {
        assumptions.push(crate::usage::assumed_volume_note(usage.volume_bytes));
    }
    if opts.fill.is_none() {
        assumptions.push(format!(
            "your {} {} a sample of what will fill the volume: trade-offs are weighed at {} of data like them (--fill sets the amount)",
            crate::units::count(tree.files, "file"),
            if tree.files == 1 { "is" } else { "are" },
            iec(fill)
        ));
    }
    assumptions
}

fn why_lines(
    why: &mut Vec<String>,
    c: &Candidate,
    usage: &UsageReport,
    opts: &Options,
    fill: u64,
    o: &Order,
) {
    why_systems(why, c, usage.volume_bytes, &opts.systems);
    why_space(why, c, usage, fill, o);
    why.push(why_speed(c, opts));
    if let Some(f) = fs::by_name(&c.fs) {
        why.push(format!("{}: {}", c.fs, f.info().robustness));
    }
    if let Some(n) = &c.crash {
        why.push(n.clone());
    }
}

/// The systems that use it, and those that rule out something more robust
/// (that the others would take), with their facts.
fn why_systems(why: &mut Vec<String>, c: &Candidate, volume: u64, systems: &[&systems::System]) {
    let names: Vec<&str> = systems.iter().map(|s| s.name).collect();
    if names.is_empty() {
        why.push("no --for given: every filesystem counts".into());
    } else if names.len() == 1 {
        why.push(format!("{} reads and writes {}", names[0], c.fs));
    } else {
        why.push(format!("{} all read and write {}", names.join(", "), c.fs));
    }
    let class = systems::robustness_rank(&c.fs).0;
    for s in systems {
        let out: Vec<&str> = fs::names()
            .into_iter()
            .filter(|f| systems::robustness_rank(f).0 < class && !s.uses(f, volume))
            .filter(|f| {
                systems
                    .iter()
                    .all(|o| std::ptr::eq(*o, *s) || o.uses(f, volume))
            })
            .collect();
        if !out.is_empty() {
            why.push(format!(
                "not {}: {} does not take {} ({})",
                out.join(" or "),
                s.name,
                if out.len() == 1 { "it" } else { "them" },
                s.source
            ));
        }
    }
}

/// What the tree takes on it, what it cannot store, and why a config over
/// the limit or below the flash floor.
fn why_space(why: &mut Vec<String>, c: &Candidate, usage: &UsageReport, fill: u64, o: &Order) {
    let (max, floor_applies) = (o.max, o.floor_applies);
    let config = usage
        .configs
        .iter()
        .find(|x| x.fs == c.fs && x.cluster_bytes == c.cluster_bytes);
    let overhead = match config.map(|x| crate::usage::overhead_shown(&usage.tree, x)) {
        Some(Err(why)) => format!(
            "no overhead percentage ({})",
            why.replace("; ON DISK is the figure", "")
        ),
        _ => format!("{:+.1} % overhead (limit {max} %)", c.overhead_pct),
    };
    let at_fill = match c.wasted_at_fill_bytes {
        Some(w) => format!(
            "; at {} of data like yours that is {} wasted",
            iec(fill),
            iec(w)
        ),
        None => String::new(),
    };
    why.push(format!(
        "your {} ({}) {} {} on it: {overhead}{at_fill}",
        crate::units::count(usage.tree.files, "file"),
        iec(usage.tree.apparent_bytes),
        if usage.tree.files == 1 {
            "takes"
        } else {
            "take"
        },
        iec(c.tree_bytes),
    ));
    if c.problems > 0 {
        why.push(format!(
            "{} (a name or file can have more than one): names to change, files to leave out (symlinks, clashing or forbidden names, files over the size limit): no candidate stores them all as they are",
            crate::units::count(c.problems, "finding")
        ));
    }
    if c.overhead_note.is_some() && !o.spec_first {
        // No percentage to hold against the limit: the space on disk is
        // what was compared.
        why.push(format!(
            "no {max} % overhead limit without a percentage; of the {} clusters this one takes the least space{}",
            c.fs,
            if floor_applies && c.cluster_bytes >= prior::FLASH_MIN_CLUSTER {
                format!(" without going below {}", short(prior::FLASH_MIN_CLUSTER))
            } else {
                String::new()
            }
        ));
    } else if c.overhead_pct > max && !o.spec_first {
        if floor_applies && c.cluster_bytes >= prior::FLASH_MIN_CLUSTER {
            why.push(format!(
                "nothing of {} or more stays within {max} % overhead; this one takes the least space without going below {} (smaller clusters only with a stated reason: they write slower on flash)",
                short(prior::FLASH_MIN_CLUSTER),
                short(prior::FLASH_MIN_CLUSTER)
            ));
        } else {
            why.push(format!(
                "no candidate stays within {max} % overhead; this one takes the least space"
            ));
        }
    }
    if c.cluster_bytes < prior::FLASH_MIN_CLUSTER && !floor_applies && !o.spec_first {
        why.push(if c.speed == SpeedKind::Measured {
            format!(
                "below {} because it measured fastest of the configs within the overhead limit on this target",
                short(prior::FLASH_MIN_CLUSTER)
            )
        } else {
            format!(
                "below {} because no candidate of {} or more stores your tree",
                short(prior::FLASH_MIN_CLUSTER),
                short(prior::FLASH_MIN_CLUSTER)
            )
        });
    }
}

/// How its speed is known, with the figure.
fn why_speed(c: &Candidate, opts: &Options) -> String {
    let measured_on = &opts.measured_on;
    match c.speed {
        SpeedKind::Measured => format!(
            "measured: your mix of file sizes writes at {:.1} MB/s on {} (from {}; round {}), about {:.1} s for your tree",
            c.write_mb_per_s.unwrap_or(0.0),
            measured_on,
            c.speed_from.join(", "),
            c.round.unwrap_or(1),
            c.est_copy_seconds.unwrap_or(0.0)
        ),
        SpeedKind::Assumed => format!(
            "assumed, not measured: {:.0} % of the write speed of 128K clusters on a typical flash drive (give --device, --image or --bench to measure)",
            c.assumed_relative_speed.unwrap_or(1.0) * 100.0
        ),
        SpeedKind::Unmeasured => match opts.traced() {
            Some(s) => not_traced(c, s),
            None => {
                let spelled = format!("{}:", c.fs_spelling());
                match opts.unmeasured.iter().find(|l| l.starts_with(&spelled)) {
                    Some(l) => format!("not measured ({l}): ranked by space"),
                    None => "not measured: ranked by space".into(),
                }
            }
        },
        SpeedKind::Simulated => format!(
            "simulated, not measured: your mix of file sizes writes at {} on flash profile {} (give --device, --image or --bench to measure)",
            crate::units::rate(c.simulated_mb_per_s.unwrap_or(0.0)),
            c.profile.as_deref().unwrap_or("?")
        ),
    }
}

/// Why a config has no traced figure, as the tracing said (its cluster's
/// line, else its filesystem's), or that it was not among those traced.
fn not_traced(c: &Candidate, s: &super::Simulation) -> String {
    let (mine, fs) = (format!("{}:", c.name()), format!("{}:", c.fs));
    match s
        .not_traced
        .iter()
        .find(|l| l.starts_with(&mine))
        .or_else(|| s.not_traced.iter().find(|l| l.starts_with(&fs)))
    {
        Some(l) => format!("no traced speed ({l}): ranked by space"),
        None => "no traced speed (a sample is copied only onto the candidates that can still win): ranked by space".into(),
    }
}

/// The fastest other candidate, if faster than the choice.
fn fastest<'a>(good: &'a [Candidate], c: &Candidate, fewest: u64) -> Option<&'a Candidate> {
    // Measured: by the first round, the one every measured config ran.
    let cost = |x: &Candidate| match x.speed {
        SpeedKind::Measured => x
            .mb_per_s_by_round
            .first()
            .filter(|&&m| m > 0.0)
            .map(|m| 1.0 / m),
        _ => x.cost(),
    };
    good.iter()
        .filter(|o| o.speed == c.speed && o.problems == fewest)
        .filter(|o| c.speed != SpeedKind::Assumed || o.fs == c.fs)
        .filter(|o| cost(o).is_some())
        .min_by(|x, y| cost(x).unwrap().total_cmp(&cost(y).unwrap()))
        .filter(|o| o.name() != c.name() && cost(o) < cost(c))
}

/// The least wasteful other candidate, if it wastes less than the choice.
fn least_waste<'a>(good: &'a [Candidate], c: &Candidate, fewest: u64) -> Option<&'a Candidate> {
    good.iter()
        .filter(|o| o.problems == fewest && o.speed == c.speed)
        .filter(|o| c.speed != SpeedKind::Assumed || o.fs == c.fs)
        .min_by_key(|o| o.tree_bytes)
        .filter(|o| o.name() != c.name() && o.tree_bytes < c.tree_bytes)
}

/// Why two candidates' speeds do not compare: which of them has no figure,
/// in the words of how the others got theirs (traced on a profile, or
/// measured).
fn unknown(c: &Candidate, o: &Candidate) -> String {
    let how = if [c, o].iter().any(|x| x.speed == SpeedKind::Simulated) {
        "traced"
    } else {
        "measured"
    };
    let missing: Vec<String> = [c, o]
        .iter()
        .filter(|x| x.speed == SpeedKind::Unmeasured)
        .map(|x| x.name())
        .collect();
    if missing.is_empty() {
        return "not comparable".to_string();
    }
    format!("unknown ({} not {how})", crate::units::and_list(&missing))
}

/// "exfat 32K: 12 % slower to fill with your files than exfat 128K, and
/// 1.90 GiB less wasted" — the choice against another, at the fill.
pub fn compare(c: &Candidate, o: &Candidate, fill: u64) -> String {
    let mut parts = Vec::new();
    // Measured: both from the same round (rounds differ in scale).
    let measured_pair = || {
        let r = c.round?.min(o.round?) as usize;
        let (x, y) = (
            *c.mb_per_s_by_round.get(r - 1)?,
            *o.mb_per_s_by_round.get(r - 1)?,
        );
        (x > 0.0 && y > 0.0).then(|| (1.0 / x, 1.0 / y, format!("measured, round {r}")))
    };
    let pair = match (c.speed, o.speed) {
        (SpeedKind::Measured, SpeedKind::Measured) => measured_pair(),
        (SpeedKind::Assumed, SpeedKind::Assumed) => c
            .cost()
            .zip(o.cost())
            .map(|(a, b)| (a, b, "assumed".to_string())),
        (SpeedKind::Simulated, SpeedKind::Simulated) => c.cost().zip(o.cost()).map(|(a, b)| {
            (
                a,
                b,
                format!("simulated on {}", c.profile.as_deref().unwrap_or("?")),
            )
        }),
        _ => None,
    };
    match pair {
        Some((a, b, kind)) => {
            let p = (a / b - 1.0) * 100.0;
            if p.abs() < 0.5 {
                parts.push(format!(
                    "as fast to fill with your files as {} ({kind})",
                    o.name()
                ));
            } else {
                // In time taken: "12 % slower" is 12 % more time.
                parts.push(if p > 0.0 {
                    format!(
                        "{p:.0} % slower to fill with your files than {} ({kind})",
                        o.name()
                    )
                } else {
                    format!(
                        "fills with your files in {:.0} % less time than {} ({kind})",
                        -p,
                        o.name()
                    )
                });
            }
        }
        None => parts.push(format!("speed against {} {}", o.name(), unknown(c, o))),
    }
    // Space at the fill only where it means something (not for a few bytes
    // of data, whose ratio would scale a cluster's fixed cost up).
    let (Some(wc), Some(wo)) = (c.wasted_at_fill_bytes, o.wasted_at_fill_bytes) else {
        return format!("{}: {}", c.name(), parts.join(", and "));
    };
    if wc <= wo {
        parts.push(format!("{} less wasted", iec(wo - wc)));
    } else {
        parts.push(format!("{} more wasted", iec(wc - wo)));
    }
    let mut s = format!(
        "{}: {}, at {} of data like yours",
        c.name(),
        parts.join(", and "),
        iec(fill)
    );
    let short_of: Vec<String> = [c, o]
        .iter()
        .filter(|x| x.holds_bytes < fill)
        .map(|x| format!("{} holds only {}", x.name(), iec(x.holds_bytes)))
        .collect();
    if !short_of.is_empty() {
        s.push_str(&format!(" ({})", short_of.join("; ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::seconds;

    #[test]
    fn short_times_keep_two_figures() {
        assert_eq!(seconds(0.0063), "6.3 ms");
        assert_eq!(seconds(0.0069), "6.9 ms");
        assert_eq!(seconds(0.042), "42 ms");
        assert_eq!(seconds(0.000_35), "350 µs");
        assert_eq!(seconds(0.000_004_2), "4.2 µs");
        assert_eq!(seconds(0.26), "0.3 s");
        assert_eq!(seconds(8.44), "8.4 s");
        assert_eq!(seconds(200.0), "3 min 20 s");
    }
}
