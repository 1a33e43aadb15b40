//! How many runs a figure gets when the machine may be busy (`--quick`):
//! the asked-for runs first, then more while their spread (the CV) stays
//! above what a person can use, until it settles or the figure's time
//! budget or run limit ends. A load spike during one of three runs makes
//! the CV of the three meaningless; more runs let the median and the CV
//! rest on what the machine usually does.

use std::time::{Duration, Instant};

/// A timed run shorter than this is not resolved on a busy machine: a
/// scheduler delay of a few milliseconds moves it by several percent.
pub const MIN_RUN_SECONDS: f64 = 0.1;

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
/// and 8 s a figure (34 figures: under five extra minutes at worst).
pub const QUICK: Settle = Settle {
    cv_pct: 10.0,
    max_runs: 10,
    budget: Duration::from_secs(8),
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

impl Settle {
    /// After `secs` (the runs so far, at least `min_runs` of them wanted),
    /// begun at `started`: run once more, or why not.
    pub fn next(&self, secs: &[f64], min_runs: u32, started: Instant) -> Option<Stopped> {
        let n = secs.len() as u32;
        if n < min_runs {
            return None;
        }
        let cv = super::stats::summarize(secs).map_or(0.0, |s| s.cv_pct);
        if cv <= self.cv_pct {
            return Some(Stopped::Settled);
        }
        if n >= self.max_runs.max(min_runs) {
            return Some(Stopped::MaxRuns);
        }
        // One more run must fit: the budget is not overrun by a long one.
        let mean = secs.iter().sum::<f64>() / f64::from(n.max(1));
        let spent = started.elapsed().as_secs_f64();
        let per_run = spent / f64::from(n.max(1));
        if spent + per_run.max(mean) > self.budget.as_secs_f64() {
            return Some(Stopped::Budget);
        }
        None
    }
}

/// The flags a figure gets from its runs' length and why its repeats
/// stopped: `short-run` below [`MIN_RUN_SECONDS`], `budget-spent` or
/// `max-runs` beside `high-cv` when the spread did not settle.
pub fn flags(median_s: f64, stopped: Option<Stopped>) -> Vec<String> {
    let mut v = Vec::new();
    if median_s > 0.0 && median_s < MIN_RUN_SECONDS {
        v.push("short-run".to_string());
    }
    match stopped {
        Some(Stopped::Budget) => v.push("budget-spent".to_string()),
        Some(Stopped::MaxRuns) => v.push("max-runs".to_string()),
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_until_the_spread_settles_or_a_limit_ends() {
        let s = QUICK;
        let now = Instant::now();
        assert_eq!(
            s.next(&[1.0, 1.0], 3, now),
            None,
            "the runs asked for come first"
        );
        assert_eq!(s.next(&[1.0, 1.02, 0.99], 3, now), Some(Stopped::Settled));
        assert_eq!(s.next(&[1.0, 1.5, 0.8], 3, now), None, "spread: one more");
        let wide: Vec<f64> = (0..10).map(|i| 1.0 + (i % 2) as f64).collect();
        assert_eq!(s.next(&wide, 3, now), Some(Stopped::MaxRuns));
        let long_ago = now - Duration::from_secs(9);
        assert_eq!(s.next(&[1.0, 1.5, 0.8], 3, long_ago), Some(Stopped::Budget));
        // A run that would overrun the budget is not started.
        let spent = now - Duration::from_secs(6);
        assert_eq!(s.next(&[2.0, 3.0, 1.5], 3, spent), Some(Stopped::Budget));
    }

    #[test]
    fn short_and_unsettled_figures_say_why() {
        assert_eq!(flags(0.05, Some(Stopped::Settled)), ["short-run"]);
        assert_eq!(flags(0.5, Some(Stopped::Budget)), ["budget-spent"]);
        assert_eq!(flags(0.5, Some(Stopped::MaxRuns)), ["max-runs"]);
        assert!(flags(0.5, None).is_empty());
    }
}
