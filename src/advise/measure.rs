//! Measuring the candidates on the target itself, inside a time budget, by
//! successive halving: a short pass on every config that can still win,
//! then a longer pass on the faster half, and so on while the budget lasts.
//! Each config is one call of `fsfit bench`'s runner ([`bench::run`]), so it
//! gets the same device guard (re-checked before every config), the same
//! cold caches and durable writes, and the same cleanup.

use super::{BudgetReport, Candidate, RoundReport};
use crate::bench::kinds::SIZE_CLASS_WRITES;
use crate::bench::{self, results::BenchReport, workloads::Workload};
use crate::scan::TreeCounts;
use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by Ctrl-C during `fsfit advise`: tells a user's stop from the
/// budget's (both stop the runner through [`crate::cancel`]).
static USER_STOP: AtomicBool = AtomicBool::new(false);

/// Ctrl-C's extra step during `fsfit advise` (the handler then asks every
/// loop to stop through [`crate::cancel::request`]): the stop is the
/// user's, not the budget's watchdog's.
pub fn stop_by_user() {
    USER_STOP.store(true, Ordering::SeqCst);
}

fn user_stopped() -> bool {
    USER_STOP.load(Ordering::SeqCst)
}

/// The first pass's scale: about 10 MB per workload.
const FIRST_SCALE: f64 = 0.01;
/// The documents' sizes: no pass goes beyond them.
const MAX_SCALE: f64 = 1.0;
/// Time guessed for a config before any was measured.
const FIRST_GUESS: Duration = Duration::from_secs(20);
/// At most this many configs get a first pass.
const MAX_CONFIGS: usize = 8;
/// Kept back from the budget for the recommendation and cleanup.
const RESERVE: Duration = Duration::from_secs(3);

pub struct Measure<'a> {
    /// A fresh target for each config (the runner sets it up and releases it).
    pub target: &'a dyn Fn() -> crate::device::target::TargetSpec,
    pub target_bytes: u64,
    pub budget: Duration,
    pub quiet: bool,
    pub command: Vec<String>,
    /// How each config is mounted while measured.
    pub mount_policy: crate::fs::policy::MountPolicy,
}

/// The write workloads that match the tree's mix of file sizes (the size
/// classes of [`TreeCounts::by_size`]).
pub fn workloads_for(tree: &TreeCounts) -> Vec<&'static dyn Workload> {
    let firsts = SIZE_CLASS_WRITES.map(|k| k[0].name);
    let mut v: Vec<&'static dyn Workload> = tree
        .by_size
        .iter()
        .zip(firsts)
        .filter(|(c, _)| c.bytes > 0)
        .filter_map(|(_, n)| bench::workloads::by_name(n))
        .collect();
    if v.is_empty() {
        v.extend(bench::workloads::by_name(firsts[0]));
    }
    v
}

/// The configs worth a first pass: those within the overhead limit (they can
/// win) and, per filesystem, the next cluster over it (what the limit costs
/// in speed), at most four per filesystem and [`MAX_CONFIGS`] in all, in
/// the ranking's order.
pub fn pick(ranked: &[Candidate], max_overhead: f64) -> (Vec<(String, u64)>, Vec<String>) {
    // (Only those within the limit go on to longer passes: see `run`.)
    let fewest = ranked.iter().map(|c| c.problems).min().unwrap_or(0);
    let ok: Vec<&Candidate> = ranked.iter().filter(|c| c.problems == fewest).collect();
    let mut picked: Vec<(String, u64)> = Vec::new();
    let mut left = Vec::new();
    let mut fss: Vec<&str> = Vec::new();
    for c in &ok {
        if !fss.contains(&c.fs.as_str()) {
            fss.push(&c.fs);
        }
    }
    for f in fss {
        let mut mine: Vec<&Candidate> = ok.iter().copied().filter(|c| c.fs == f).collect();
        mine.sort_by_key(|c| c.cluster_bytes);
        let within: Vec<&Candidate> = mine
            .iter()
            .copied()
            .filter(|c| c.overhead_pct <= max_overhead)
            .collect();
        let over = mine.iter().copied().find(|c| c.overhead_pct > max_overhead);
        // The largest clusters within the limit first (the prior's fastest).
        let mut chosen: Vec<&Candidate> = within.iter().rev().take(3).copied().collect();
        chosen.extend(over);
        for c in &mine {
            if !chosen.iter().any(|x| x.cluster_bytes == c.cluster_bytes) {
                left.push(format!(
                    "{}: not among the configs that can still win",
                    c.fs_spelling()
                ));
            }
        }
        for c in chosen {
            if picked.len() < MAX_CONFIGS {
                picked.push((c.fs.clone(), c.cluster_bytes));
            } else {
                left.push(format!(
                    "{}: more than {MAX_CONFIGS} configs",
                    c.fs_spelling()
                ));
            }
        }
    }
    (picked, left)
}

/// Space the runner needs at this scale (it refuses a target smaller).
fn fits_target(m: &Measure, wl: &[&'static dyn Workload], scale: f64) -> bool {
    options(m, None, wl, scale).is_ok_and(|o| bench::space_needed(&o) <= m.target_bytes)
}

fn options(
    m: &Measure,
    config: Option<(&str, u64)>,
    wl: &[&'static dyn Workload],
    scale: f64,
) -> Result<bench::Options> {
    // Exactly this config, never the runner's default set.
    let specs = match config {
        None => Vec::new(),
        Some((fs, cluster)) => {
            vec![crate::fs::spec::parse_fs_spec(&format!("{fs}:{cluster}"))
                .map_err(|e| Error::work(e.to_string()))?]
        }
    };
    Ok(bench::Options {
        target: (m.target)(),
        specs,
        driver: crate::fs::drivers::Choice::Auto,
        workloads: wl.to_vec(),
        scale,
        // advise sizes the passes itself.
        min_seconds: 0.0,
        repeat: 1,
        settle: None,
        quiet: true,
        baseline: None,
        command: m.command.clone(),
        flash: None,
        mount_policy: m.mount_policy,
    })
}

/// What one config's earlier passes predict for a pass at `scale`.
fn predict(history: &[(f64, f64)], scale: f64) -> Option<f64> {
    match history {
        [] => None,
        [(s, t)] => Some(t * (scale / s).max(1.0)),
        [.., (s0, t0), (s1, t1)] => {
            let b = if s1 > s0 { (t1 - t0) / (s1 - s0) } else { 0.0 };
            let b = b.max(0.0);
            Some((t1 + b * (scale - s1)).max(*t1))
        }
    }
}

/// Stops the runner (through its cancel flag) when `at` passes.
struct Watchdog {
    done: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    fn start(at: Instant) -> Watchdog {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let wait = at.saturating_duration_since(Instant::now());
            match rx.recv_timeout(wait) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    crate::cancel::request();
                    true
                }
                _ => false,
            }
        });
        Watchdog {
            done: Some(tx),
            thread: Some(thread),
        }
    }

    /// Stop watching; true when it fired.
    fn stop(mut self) -> bool {
        drop(self.done.take());
        let fired = self
            .thread
            .take()
            .is_some_and(|t| t.join().unwrap_or(false));
        if fired && !user_stopped() {
            crate::cancel::clear();
        }
        fired
    }
}

/// The progress bar: the budget's seconds, with the round, config and ETA.
fn bar(m: &Measure) -> indicatif::ProgressBar {
    if m.quiet {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(m.budget.as_secs().max(1));
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {elapsed_precise} of the budget  {msg}")
            .unwrap(),
    );
    pb
}

fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}m{:02}s", s / 60, s % 60)
}

/// Measure `configs` within the budget. Returns one bench report per round
/// (the configs that ran in it) and what the budget went to.
pub fn run(
    m: &Measure,
    configs: Vec<(String, u64)>,
    contenders: &[(String, u64)],
    tree: &TreeCounts,
) -> Result<(Vec<BenchReport>, BudgetReport)> {
    let start = Instant::now();
    let deadline = start + m.budget.saturating_sub(RESERVE);
    let wl = workloads_for(tree);
    let pb = bar(m);
    let ticking = std::sync::Arc::new(AtomicBool::new(true));
    let ticker = {
        let (pb, ticking) = (pb.clone(), ticking.clone());
        std::thread::spawn(move || {
            while ticking.load(Ordering::Relaxed) {
                pb.set_position(start.elapsed().as_secs());
                // Parked: the end of the rounds wakes it at once.
                std::thread::park_timeout(Duration::from_millis(250));
            }
        })
    };
    let out = rounds(m, configs, contenders, tree, &wl, deadline, &pb);
    ticking.store(false, Ordering::Relaxed);
    ticker.thread().unpark();
    let _ = ticker.join();
    pb.finish_and_clear();
    let (reports, rounds, not_measured) = out?;
    Ok((
        reports,
        BudgetReport {
            budget_seconds: m.budget.as_secs_f64(),
            spent_seconds: (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            workloads: wl.iter().map(|w| w.name().to_string()).collect(),
            rounds,
            not_measured,
        },
    ))
}

type Rounds = (Vec<BenchReport>, Vec<RoundReport>, Vec<String>);

/// A config: filesystem and cluster size.
type Config = (String, u64);

/// What successive halving carries from round to round.
struct Halving<'a> {
    m: &'a Measure<'a>,
    wl: &'a [&'static dyn Workload],
    deadline: Instant,
    pb: &'a indicatif::ProgressBar,
    /// (scale, seconds) of each config's passes so far.
    history: std::collections::HashMap<Config, Vec<(f64, f64)>>,
}

/// One round's configs: what ran, what stopped, and their results.
#[derive(Default)]
struct Round {
    merged: Option<BenchReport>,
    ran: Vec<String>,
    /// Configs of the round that did not finish, and why.
    stopped: Vec<String>,
    /// Those the budget would not cover (also in `stopped`).
    unrun: Vec<String>,
    /// Seconds of each config that ran.
    times: Vec<f64>,
}

impl Round {
    fn merge(&mut self, r: BenchReport) {
        match &mut self.merged {
            None => self.merged = Some(r),
            Some(acc) => {
                acc.results.extend(r.results);
                acc.skipped.extend(r.skipped);
            }
        }
    }

    fn mean_time(&self) -> f64 {
        self.times.iter().sum::<f64>() / self.times.len().max(1) as f64
    }
}

fn rounds(
    m: &Measure,
    configs: Vec<Config>,
    contenders: &[Config],
    tree: &TreeCounts,
    wl: &[&'static dyn Workload],
    deadline: Instant,
    pb: &indicatif::ProgressBar,
) -> Result<Rounds> {
    let mut h = Halving {
        m,
        wl,
        deadline,
        pb,
        history: Default::default(),
    };
    let mut reports = Vec::new();
    let mut rounds = Vec::new();
    let mut not_measured = Vec::new();
    let mut alive = configs;
    let mut scale = FIRST_SCALE;
    if !fits_target(m, wl, scale) {
        return Err(Error::input(format!(
            "the target ({}) is too small for even the shortest pass",
            crate::units::iec(m.target_bytes)
        )));
    }
    for round in 1u32.. {
        let t0 = Instant::now();
        let r = h.round(round, &alive, scale)?;
        if round == 1 {
            not_measured.extend(r.unrun.iter().cloned());
        }
        let Some(mut report) = r.merged else {
            rounds.push(RoundReport {
                round,
                scale,
                configs: r.ran,
                seconds: t0.elapsed().as_secs_f64(),
                stopped: r.stopped,
            });
            break;
        };
        settle(&mut report, scale);
        let timed = faster_first(&alive, &report, tree, contenders);
        reports.push(report);
        rounds.push(RoundReport {
            round,
            scale,
            configs: r.ran,
            seconds: (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            stopped: r.stopped,
        });
        let Some((next, s)) = h.next_pass(timed, scale) else {
            break;
        };
        scale = s;
        alive = next;
    }
    Ok((reports, rounds, not_measured))
}

/// One run each, not comparable with another run's baseline.
fn settle(report: &mut BenchReport, scale: f64) {
    report.baseline.clear();
    for r in &mut report.results {
        for w in &mut r.workloads {
            w.relative_pct = None;
        }
    }
    report.scale = scale;
}

/// The round's configs that can win, fastest first for the tree's mix.
fn faster_first(
    alive: &[Config],
    report: &BenchReport,
    tree: &TreeCounts,
    contenders: &[Config],
) -> Vec<(Config, f64)> {
    let mut timed: Vec<(Config, f64)> = alive
        .iter()
        .filter_map(|c| super::copy_estimate(tree, report, &c.0, c.1).map(|(s, _)| (c.clone(), s)))
        .collect();
    timed.sort_by(|a, b| a.1.total_cmp(&b.1));
    // Configs over the overhead limit were measured for the trade-off
    // only: longer passes go to those that can win.
    timed.retain(|(c, _)| contenders.contains(c));
    timed
}

impl Halving<'_> {
    /// Run every config of a round that the budget covers.
    fn round(&mut self, round: u32, alive: &[Config], scale: f64) -> Result<Round> {
        let mut out = Round::default();
        for (i, cfg) in alive.iter().enumerate() {
            let name = super::fs_spelling(&cfg.0, cfg.1);
            let guess = self.guess(cfg, scale, &out.times);
            let now = Instant::now();
            if now + guess > self.deadline {
                let why = format!(
                    "{name}: not run in round {round}: the budget would not cover it (~{:.0} s)",
                    guess.as_secs_f64()
                );
                out.unrun.push(why.clone());
                out.stopped.push(why);
                continue;
            }
            let rest = out.mean_time() * (alive.len() - i) as f64;
            let eta =
                (now + Duration::from_secs_f64(rest.max(guess.as_secs_f64()))).min(self.deadline);
            self.pb.set_message(format!(
                "round {round}: {name} ({}/{}) at scale {scale}, ETA {}",
                i + 1,
                alive.len(),
                mmss(eta.saturating_duration_since(now))
            ));
            let (res, fired) = self.pass(cfg, scale, now, guess);
            let secs = now.elapsed().as_secs_f64();
            match res {
                Ok(r) => {
                    if let Some(e) = r.results.iter().find_map(|c| c.error.clone()) {
                        out.stopped.push(format!("{name}: {e}"));
                    } else {
                        self.history.entry(cfg.clone()).or_default().push((scale, secs));
                        out.times.push(secs);
                        out.ran.push(name);
                    }
                    out.merge(r);
                }
                Err(Error::Interrupted) if user_stopped() || !fired => {
                    return Err(Error::Interrupted)
                }
                Err(Error::Interrupted) => out.stopped.push(format!(
                    "{name}: stopped after {secs:.0} s, over its time allowance (slower than the budget allows)"
                )),
                Err(e) => out.stopped.push(format!("{name}: {e}")),
            }
        }
        Ok(out)
    }

    /// The time a config's pass at `scale` is guessed to take: from its
    /// earlier passes, else the round's mean so far, else [`FIRST_GUESS`].
    fn guess(&self, cfg: &Config, scale: f64, times: &[f64]) -> Duration {
        predict(&self.history.get(cfg).cloned().unwrap_or_default(), scale)
            .or_else(|| (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64))
            .map(Duration::from_secs_f64)
            .unwrap_or(FIRST_GUESS)
    }

    /// One config's pass, under a watchdog; true when the watchdog fired.
    fn pass(
        &self,
        cfg: &Config,
        scale: f64,
        now: Instant,
        guess: Duration,
    ) -> (Result<BenchReport>, bool) {
        // A config may take four times its guess (at least 60 s: fixed
        // costs and a busy machine make short passes vary), never
        // past the deadline: a slow driver must not eat the budget.
        let allowance = (guess * 4).max(Duration::from_secs(60));
        let dog = Watchdog::start((now + allowance).min(self.deadline));
        let res =
            options(self.m, Some((&cfg.0, cfg.1)), self.wl, scale).and_then(|o| bench::run(&o));
        (res, dog.stop())
    }

    /// The faster half and the longest pass the budget covers for all of
    /// them (4x, else 2x); None when halving is over.
    fn next_pass(&self, timed: Vec<(Config, f64)>, scale: f64) -> Option<(Vec<Config>, f64)> {
        if timed.len() < 2 {
            return None;
        }
        let keep = timed.len().div_ceil(2);
        let next: Vec<Config> = timed.into_iter().take(keep).map(|(c, _)| c).collect();
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let cost = |s: f64| -> f64 {
            next.iter()
                .map(|c| predict(self.history.get(c).map_or(&[][..], |h| h), s).unwrap_or(f64::MAX))
                .sum()
        };
        let s = [4.0, 2.0]
            .iter()
            .map(|k| (scale * k).min(MAX_SCALE))
            .find(|&s| s > scale && cost(s) <= left && fits_target(self.m, self.wl, s))?;
        Some((next, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_grow_with_scale() {
        assert_eq!(predict(&[], 0.1), None);
        assert_eq!(predict(&[(0.01, 4.0)], 0.04), Some(16.0));
        // Fixed cost 3 s + 100 s per unit of scale, from two passes.
        let p = predict(&[(0.01, 4.0), (0.04, 7.0)], 0.16).unwrap();
        assert!((p - 19.0).abs() < 1e-9, "{p}");
        // Never less than the last pass took.
        assert_eq!(predict(&[(0.04, 7.0), (0.01, 9.0)], 0.02), Some(9.0));
    }

    #[test]
    fn mix_picks_workloads() {
        let mut t = TreeCounts::default();
        t.by_size[0].bytes = 10;
        t.by_size[2].bytes = 10;
        let names: Vec<&str> = workloads_for(&t).iter().map(|w| w.name()).collect();
        assert_eq!(names, ["small-write", "large-write"]);
    }
}
