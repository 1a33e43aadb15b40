//! How many runs a figure gets when the machine may be busy (`--quick`),
//! and which of them it comes from. The asked-for runs first, then more
//! while the figure is not settled, until it settles or the figure's time
//! budget or run limit ends. Settled: at least the asked-for number of
//! quiet runs, whose spread (the CV) is at most 10 %.
//!
//! Quiet: the run's own tasks (fsfit's measuring thread, a FUSE driver's
//! daemon) waited for a CPU, runnable while other programs held every core,
//! for at most [`BUSY_SHARE`] of the run's wall time, as the scheduler
//! counts it (schedstat). On a loaded machine that wait is what moves a
//! figure between runs: ext4 small-read under a load of 8 on 2 cores took
//! 0.34 to 1.21 s. A run that waited longer is set aside (kept in the JSON,
//! marked) and another taken, so a figure rests on runs the other programs
//! hardly touched; which runs are set aside is decided by their wait alone,
//! never by their time, and when too few quiet runs were had the figure
//! takes the least-waiting ones and is flagged `cpu-wait`.
//!
//! Warm-up: when all the quiet runs together have not settled, the runs
//! after the first one or two may have, at least [`MIN_AFTER_WARMUP`] of them:
//! the first ones are then set aside as a warm-up, as hyperfine's
//! `--warmup` and fio's `ramp_time` leave a start out, decided here after
//! the fact. Under another build a figure's first runs often differ from the
//! rest (ext4 single-write 1.06 s, then nine runs of 0.47-0.64 s). Which runs
//! are set aside is decided by their place, never by their times, and the
//! figure says so (`warm-up`). No more than two: on runs that only vary
//! (no warm-up to leave out), setting aside any number of first runs lets
//! a figure whose runs spread by 20 % pass for settled 43 % of the time
//! against 26 % without the rule; one or two, 35 % (simulated: normal runs,
//! the repeats as `--quick` makes them).

use std::time::{Duration, Instant};

/// A timed run shorter than this is not resolved on a busy machine: a
/// scheduler delay of a few milliseconds moves it by several percent.
pub const MIN_RUN_SECONDS: f64 = 0.1;

/// At most this many rounds of a workload make one timed run.
pub const MAX_ROUNDS: u32 = 16;

/// How many rounds of a workload make one timed run when one round takes
/// `round_s`: one when a round lasts half as long again as
/// [`MIN_RUN_SECONDS`] (room for a faster run), else enough rounds to last
/// that long, at most [`MAX_ROUNDS`]. For what sizing cannot grow: deleting
/// the largest file half the volume holds took 0.05-0.08 s on ext4, and
/// ext4's
/// scan of its tree ran in 0.05 s at the scale sizing settled on.
pub fn rounds_for(round_s: f64) -> u32 {
    let want = MIN_RUN_SECONDS * 1.5;
    if round_s >= want {
        return 1;
    }
    let n = (want / round_s.max(1e-6)).ceil();
    (n as u32).clamp(1, MAX_ROUNDS)
}

/// How the reason of a run set aside for being too short begins (the
/// others were set aside for their wait).
pub const SHORT_ASIDE: &str = "too short";

/// Why a run under [`MIN_RUN_SECONDS`] is not among those its figure comes
/// from: the figure's runs started over, each of `rounds` rounds.
pub fn short_aside_reason(seconds: f64, rounds: u32) -> String {
    format!(
        "{SHORT_ASIDE} to time well ({seconds:.3} s, under {MIN_RUN_SECONDS} s): \
the figure's runs were then made of {rounds} rounds each"
    )
}

/// Why a run long enough itself is set aside with a later short one
/// (`short_s`): the figure's runs started over at `rounds` rounds each, and
/// all its runs are made alike.
pub fn started_over_reason(seconds: f64, short_s: f64, rounds: u32) -> String {
    format!(
        "{SHORT_ASIDE} a round: this run took {seconds:.3} s, but a later one {short_s:.3} s \
(under {MIN_RUN_SECONDS} s), so the figure's runs started over, made of {rounds} rounds each"
    )
}

/// When to stop repeating a figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settle {
    /// Settled once the runs' CV is at most this (percent).
    pub cv_pct: f64,
    /// Never more runs than this.
    pub max_runs: u32,
    /// Nor more runs once this much time went on the figure.
    pub budget: Duration,
}

/// `--quick`'s: a CV of 10 % (the table's high-cv mark), at most 10 runs
/// and 12 s a figure. 12 s lets a figure whose runs take 1.5 s with their
/// untimed preparation (exFAT's delete of a 4 GiB volume's files beside
/// another build) reach a warm-up and five runs after it; on a quiet machine
/// figures settle in the runs asked for and the budget is not reached.
pub const QUICK: Settle = Settle {
    cv_pct: 10.0,
    max_runs: 10,
    budget: Duration::from_secs(12),
};

/// Why a figure's repeats stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The CV came to the target (or the runs asked for were all wanted).
    Settled,
    /// The run limit came first.
    MaxRuns,
    /// The time budget came first.
    Budget,
}

/// A run whose own tasks waited for a CPU for more than this share of its
/// wall time was slowed by other programs more than a figure can carry.
pub const BUSY_SHARE: f64 = 0.10;

/// One run as the settling sees it: its wall time and its own tasks'
/// runqueue wait (None where the system does not count it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub seconds: f64,
    pub wait_s: Option<f64>,
}

impl Sample {
    /// The share of the run its tasks spent waiting for a CPU (0 unknown).
    pub fn wait_share(&self) -> f64 {
        match self.wait_s {
            Some(w) if self.seconds > 0.0 => w / self.seconds,
            _ => 0.0,
        }
    }

    pub fn quiet(&self) -> bool {
        self.wait_share() <= BUSY_SHARE
    }
}

/// The runs a figure comes from, by index: every quiet run when there are
/// at least `want` of them, else the `want` that waited least (by their
/// wait share, never by their times), in run order.
pub fn chosen(samples: &[Sample], want: usize) -> Vec<usize> {
    let quiet: Vec<usize> = (0..samples.len()).filter(|&i| samples[i].quiet()).collect();
    if quiet.len() >= want {
        return quiet;
    }
    let mut by_wait: Vec<usize> = (0..samples.len()).collect();
    by_wait.sort_by(|&a, &b| samples[a].wait_share().total_cmp(&samples[b].wait_share()));
    by_wait.truncate(want);
    by_wait.sort_unstable();
    by_wait
}

/// The fewest runs a figure may come from once a warm-up is set aside:
/// enough that runs agreeing by chance are unlikely (three runs of a figure
/// whose runs spread by 20 % agree within 10 % 22 % of the time, five 9 %).
pub const MIN_AFTER_WARMUP: usize = 5;

/// The most first runs set aside as a warm-up.
pub const MAX_WARMUP: usize = 2;

/// The runs after the first one or two (the fewest that works), when at
/// least [`MIN_AFTER_WARMUP`] are left, each is quiet and their CV is at most
/// `cv_pct`, by index.
fn after_warmup(samples: &[Sample], cv_pct: f64) -> Option<Vec<usize>> {
    (1..=MAX_WARMUP).find_map(|k| {
        let tail: Vec<usize> = (k..samples.len()).collect();
        let settled = tail.len() >= MIN_AFTER_WARMUP
            && tail.iter().all(|&i| samples[i].quiet())
            && chosen_cv(samples, &tail) <= cv_pct;
        settled.then_some(tail)
    })
}

/// The runs a figure comes from once its repeats have been judged: all the
/// quiet runs ([`chosen`]) when they settled, else the runs after a warm-up
/// when they did (and whether it is so), else all the quiet runs still.
fn judged(samples: &[Sample], want: usize, cv_pct: f64) -> (Vec<usize>, bool) {
    let all = chosen(samples, want);
    let quiet = all.iter().all(|&i| samples[i].quiet());
    if quiet && chosen_cv(samples, &all) <= cv_pct {
        return (all, false);
    }
    match after_warmup(samples, cv_pct) {
        Some(tail) if tail.len() >= want => (tail, true),
        _ => (all, false),
    }
}

/// The CV (percent) of the chosen runs' times.
fn chosen_cv(samples: &[Sample], chosen: &[usize]) -> f64 {
    let secs: Vec<f64> = chosen.iter().map(|&i| samples[i].seconds).collect();
    super::stats::summarize(&secs).map_or(0.0, |s| s.cv_pct)
}

impl Settle {
    /// After `samples` (the runs so far, at least `min_runs` of them
    /// wanted), begun at `started`: run once more, or why not.
    pub fn next(&self, samples: &[Sample], min_runs: u32, started: Instant) -> Option<Stopped> {
        let n = samples.len() as u32;
        if n < min_runs {
            return None;
        }
        let (ch, _) = judged(samples, min_runs as usize, self.cv_pct);
        let quiet = ch.iter().all(|&i| samples[i].quiet());
        if quiet && chosen_cv(samples, &ch) <= self.cv_pct {
            return Some(Stopped::Settled);
        }
        if n >= self.max_runs.max(min_runs) {
            return Some(Stopped::MaxRuns);
        }
        // One more run must fit: the budget is not overrun by a long one.
        let secs = samples.iter().map(|s| s.seconds);
        let mean = secs.sum::<f64>() / f64::from(n.max(1));
        let spent = started.elapsed().as_secs_f64();
        let per_run = spent / f64::from(n.max(1));
        if spent + per_run.max(mean) > self.budget.as_secs_f64() {
            return Some(Stopped::Budget);
        }
        None
    }
}

/// A finished figure: the runs it comes from, and its flags.
#[derive(Debug, PartialEq)]
pub struct Verdict {
    /// Indices of the runs the figure comes from; the others are set aside.
    pub chosen: Vec<usize>,
    /// The chosen runs follow a warm-up: the runs before them were set
    /// aside for their place, not for waiting.
    pub warmed_up: bool,
    /// `short-run` when one of them took under [`MIN_RUN_SECONDS`],
    /// `cpu-wait` when one of them was not quiet, `budget-spent` or
    /// `max-runs` when the repeats stopped before the figure settled.
    pub flags: Vec<String>,
}

/// What the runs of a figure come to, once its repeats `stopped`.
pub fn verdict(samples: &[Sample], min_runs: u32, stopped: Option<Stopped>) -> Verdict {
    let (chosen, warmed_up) = judged(samples, min_runs as usize, QUICK.cv_pct);
    let mut flags = Vec::new();
    if warmed_up {
        flags.push(super::flags::WARM_UP.to_string());
    }
    if chosen.iter().any(|&i| samples[i].seconds < MIN_RUN_SECONDS) {
        flags.push(super::flags::SHORT_RUN.to_string());
    }
    let waited = !chosen.iter().all(|&i| samples[i].quiet());
    if waited {
        flags.push(super::flags::CPU_WAIT.to_string());
    }
    if waited || chosen_cv(samples, &chosen) > QUICK.cv_pct {
        match stopped {
            Some(Stopped::Budget) => flags.push(super::flags::BUDGET_SPENT.to_string()),
            Some(Stopped::MaxRuns) => flags.push(super::flags::MAX_RUNS.to_string()),
            _ => {}
        }
    }
    Verdict {
        chosen,
        warmed_up,
        flags,
    }
}

/// How the reason of a run set aside as a warm-up begins.
pub const WARMUP_ASIDE: &str = "a warm-up run";

/// Why a first run is not among those its figure comes from.
pub fn warmup_reason() -> String {
    format!(
        "{WARMUP_ASIDE}: the runs after it agree within {:.0} % (CV), all of them together did not",
        QUICK.cv_pct
    )
}

/// Why a run is not among those its figure comes from.
pub fn set_aside_reason(s: &Sample) -> String {
    format!(
        "its tasks waited for a CPU {:.0} % of the run (over {:.0} %), and quieter runs were had",
        s.wait_share() * 100.0,
        BUSY_SHARE * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs with no wait counted (a system without schedstats).
    fn plain(secs: &[f64]) -> Vec<Sample> {
        secs.iter()
            .map(|&seconds| Sample {
                seconds,
                wait_s: None,
            })
            .collect()
    }

    /// Runs of (seconds, share of them spent waiting for a CPU).
    fn waited(runs: &[(f64, f64)]) -> Vec<Sample> {
        runs.iter()
            .map(|&(seconds, share)| Sample {
                seconds,
                wait_s: Some(seconds * share),
            })
            .collect()
    }

    #[test]
    fn repeats_until_the_spread_settles_or_a_limit_ends() {
        let s = QUICK;
        let now = Instant::now();
        assert_eq!(
            s.next(&plain(&[1.0, 1.0]), 3, now),
            None,
            "the runs asked for come first"
        );
        let settled = plain(&[1.0, 1.02, 0.99]);
        assert_eq!(s.next(&settled, 3, now), Some(Stopped::Settled));
        let spread = plain(&[1.0, 1.5, 0.8]);
        assert_eq!(s.next(&spread, 3, now), None, "spread: one more");
        let wide: Vec<f64> = (0..10).map(|i| 1.0 + (i % 2) as f64).collect();
        assert_eq!(s.next(&plain(&wide), 3, now), Some(Stopped::MaxRuns));
        let long_ago = now - Duration::from_secs(13);
        assert_eq!(s.next(&spread, 3, long_ago), Some(Stopped::Budget));
        // A run that would overrun the budget is not started.
        let spent = now - Duration::from_secs(10);
        let long = plain(&[2.0, 3.0, 1.5]);
        assert_eq!(s.next(&long, 3, spent), Some(Stopped::Budget));
    }

    #[test]
    fn a_run_that_waited_for_a_cpu_is_replaced_not_averaged_in() {
        let s = QUICK;
        let now = Instant::now();
        // Same times, but the middle run's tasks waited 40 % of it: two
        // quiet runs are not the three asked for.
        let mut runs = waited(&[(1.0, 0.02), (1.0, 0.4), (1.01, 0.05)]);
        assert_eq!(s.next(&runs, 3, now), None);
        // A busy outlier does not keep the figure from settling once three
        // quiet runs agree, and is what the figure leaves out.
        runs = waited(&[(1.0, 0.02), (2.6, 0.5), (1.01, 0.05), (0.98, 0.0)]);
        assert_eq!(s.next(&runs, 3, now), Some(Stopped::Settled));
        let v = verdict(&runs, 3, Some(Stopped::Settled));
        assert_eq!(v.chosen, [0, 2, 3]);
        assert!(v.flags.is_empty(), "{:?}", v.flags);
        assert!(set_aside_reason(&runs[1]).contains("waited for a CPU 50 %"));
        // Quiet runs that disagree still ask for more.
        runs = waited(&[(1.0, 0.02), (1.6, 0.03), (0.7, 0.05)]);
        assert_eq!(s.next(&runs, 3, now), None);
    }

    #[test]
    fn runs_are_chosen_by_their_wait_never_by_their_time() {
        // Too few quiet runs: the least-waiting ones, even where a busier
        // run happened to be faster.
        let runs = waited(&[(0.5, 0.6), (1.2, 0.05), (0.9, 0.3), (1.1, 0.2)]);
        assert_eq!(chosen(&runs, 3), [1, 2, 3]);
        let v = verdict(&runs, 3, Some(Stopped::Budget));
        assert_eq!(v.flags, ["cpu-wait", "budget-spent"]);
        // Enough quiet runs: all of them, however many.
        let runs = waited(&[(1.0, 0.0), (1.0, 0.1), (3.0, 0.9), (1.0, 0.01), (1.0, 0.0)]);
        assert_eq!(chosen(&runs, 3), [0, 1, 3, 4]);
        // Nothing counted: every run is used, as before.
        assert_eq!(chosen(&plain(&[1.0, 9.0, 1.0]), 3), [0, 1, 2]);
    }

    #[test]
    fn a_warm_up_before_runs_that_agree_is_set_aside_by_its_place() {
        let s = QUICK;
        let now = Instant::now();
        // ext4 single-read beside another build: two slow runs, then the
        // rest agreeing.
        let mut secs = vec![0.67, 0.85, 0.67, 0.61, 0.57, 0.62];
        assert_eq!(
            s.next(&plain(&secs), 3, now),
            None,
            "four runs after the warm-up"
        );
        secs.push(0.65);
        assert_eq!(s.next(&plain(&secs), 3, now), Some(Stopped::Settled));
        let v = verdict(&plain(&secs), 3, Some(Stopped::Settled));
        assert_eq!(v.chosen, [2, 3, 4, 5, 6]);
        assert!(v.warmed_up);
        assert_eq!(v.flags, [crate::bench::flags::WARM_UP]);
        assert!(warmup_reason().starts_with(WARMUP_ASIDE));
        // One first run is enough when it is the one that differs.
        let v = verdict(
            &plain(&[0.40, 0.56, 0.60, 0.58, 0.60, 0.55]),
            3,
            Some(Stopped::Settled),
        );
        assert_eq!((v.chosen[0], v.warmed_up), (1, true));
        // Never more than two: three odd first runs keep the figure open.
        let late = plain(&[0.30, 0.12, 0.31, 0.44, 0.46, 0.48, 0.47, 0.50]);
        assert_eq!(s.next(&late, 3, now), None);
        assert!(!verdict(&late, 3, Some(Stopped::MaxRuns)).warmed_up);
        // An outlier among the later runs keeps the figure from settling.
        let odd = plain(&[0.25, 0.70, 0.71, 0.35, 0.72, 0.70]);
        assert_eq!(s.next(&odd, 3, now), None);
        let v = verdict(&odd, 3, Some(Stopped::MaxRuns));
        assert!(!v.warmed_up);
        assert_eq!(v.chosen, [0, 1, 2, 3, 4, 5]);
        assert_eq!(v.flags, ["max-runs"]);
        // So does a run among them that waited for a CPU, however fast.
        let busy = waited(&[
            (0.3, 0.0),
            (0.7, 0.0),
            (0.7, 0.3),
            (0.7, 0.0),
            (0.71, 0.0),
            (0.7, 0.0),
        ]);
        assert!(!verdict(&busy, 3, Some(Stopped::Budget)).warmed_up);
        // All the runs agreeing come first: no warm-up is cut off them.
        let v = verdict(
            &plain(&[0.66, 0.7, 0.71, 0.72, 0.70, 0.7]),
            3,
            Some(Stopped::Settled),
        );
        assert!(!v.warmed_up);
        assert_eq!(v.chosen.len(), 6);
    }

    #[test]
    fn a_run_too_short_to_resolve_is_made_of_enough_rounds() {
        assert!(short_aside_reason(0.05, 3).starts_with(SHORT_ASIDE));
        assert!(short_aside_reason(0.05, 3).contains("0.050 s, under 0.1 s"));
        // A run before the short one is not called short itself.
        let before = started_over_reason(0.143, 0.088, 2);
        assert!(before.starts_with(SHORT_ASIDE), "{before}");
        assert!(
            before.contains("this run took 0.143 s, but a later one 0.088 s"),
            "{before}"
        );
        assert!(!before.contains("0.143 s, under"), "{before}");
        assert_eq!(rounds_for(0.5), 1);
        assert_eq!(rounds_for(0.16), 1);
        // Deleting the largest file: 0.067 s a round, three make 0.2 s.
        assert_eq!(rounds_for(0.067), 3);
        assert!(rounds_for(0.067) as f64 * 0.067 >= MIN_RUN_SECONDS);
        assert_eq!(rounds_for(0.1), 2, "a round at the limit gets a margin");
        // Never more than the cap, however short (or unmeasured) a round.
        assert_eq!(rounds_for(0.001), MAX_ROUNDS);
        assert_eq!(rounds_for(0.0), MAX_ROUNDS);
    }

    #[test]
    fn short_and_unsettled_figures_say_why() {
        // One short run among the chosen is enough: the figure rests on it.
        let v = verdict(&plain(&[0.3, 0.09, 0.3]), 3, Some(Stopped::Settled));
        assert_eq!(v.flags, ["short-run"]);
        let noisy = plain(&[0.5, 1.0, 0.5]);
        let v = verdict(&noisy, 3, Some(Stopped::Budget));
        assert_eq!(v.flags, ["budget-spent"]);
        let v = verdict(&noisy, 3, Some(Stopped::MaxRuns));
        assert_eq!(v.flags, ["max-runs"]);
        // Settled within the runs asked for: nothing to say.
        let v = verdict(&plain(&[0.5, 0.51, 0.5]), 3, Some(Stopped::Settled));
        assert!(v.flags.is_empty());
    }
}
