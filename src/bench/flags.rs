//! The flags a bench figure can carry, each in one entry: its name (as the
//! JSON writes it), the mark the terminal's table puts after the figure,
//! the terminal's legend line and the HTML's glossary text. The code that
//! sets a flag names it by the constant here; every view reads the entry.

/// One flag and how each view says it.
pub struct Flag {
    pub name: &'static str,
    /// The terminal table's mark after a figure; None: a numbered note,
    /// or said once under the table where `said_once`.
    pub mark: Option<&'static str>,
    /// The line under the terminal table that explains the mark.
    pub legend: &'static str,
    /// What the HTML's glossary and the flag's tooltip say.
    pub meaning: &'static str,
    /// Said once under the terminal table for the whole run (why the
    /// repeats stopped, a warm-up set aside), not after each figure.
    pub said_once: bool,
}

pub const HIGH_CV: &str = "high-cv";
pub const CPU_WAIT: &str = "cpu-wait";
pub const SHORT_RUN: &str = "short-run";
pub const CACHE_SUSPECT: &str = "cache-suspect";
pub const WRITE_NOT_DURABLE: &str = "write-not-durable";
pub const NO_DEVICE_COUNTERS: &str = "no-device-counters";
pub const CACHE_DROP_PARTIAL: &str = "cache-drop-partial";
pub const FAILED: &str = "failed";
pub const HOST_CACHE: &str = "host-cache";
/// The repeats stopped at the figure's time budget, its spread unsettled.
pub const BUDGET_SPENT: &str = "budget-spent";
/// The repeats stopped at the most runs a figure gets, its spread unsettled.
pub const MAX_RUNS: &str = "max-runs";
/// The figure's first runs were set aside as a warm-up.
pub const WARM_UP: &str = "warm-up";

/// Every flag, in the order the terminal's legend lists the marked ones.
pub static ALL: [Flag; 12] = [
    Flag {
        name: HIGH_CV,
        mark: Some("~"),
        legend: "runs vary by more than 10 % (CV)",
        meaning: "the runs differ by more than 10 % (coefficient of variation): take the median \
                  with care, or run more repeats",
        said_once: false,
    },
    Flag {
        name: CPU_WAIT,
        mark: Some("*"),
        legend: "cpu-wait: its runs waited for a CPU over 10 % of their time (other programs \
                 were busy)",
        meaning: "too few runs whose tasks waited for a CPU under 10 % of their time: the figure \
                  uses the runs that waited least (other programs were busy)",
        said_once: false,
    },
    Flag {
        name: SHORT_RUN,
        mark: Some("<"),
        legend: "short-run: a run took under 0.1 s, too short to time well on a busy machine",
        meaning: "a timed run took under 0.1 s: too short to time well on a busy machine",
        said_once: false,
    },
    Flag {
        name: CACHE_SUSPECT,
        mark: Some("!"),
        legend: "cache-suspect: under 90 % of the bytes read came from the device",
        meaning: "the device delivered less than 90 % of the bytes read (or nothing, for a \
                  scan): the figure probably comes from a cache, not the drive",
        said_once: false,
    },
    Flag {
        name: WRITE_NOT_DURABLE,
        mark: Some("#"),
        legend: "write-not-durable: under 90 % of the bytes written reached the device",
        meaning: "the device wrote less than 90 % of the bytes asked within the timing: part of \
                  the write may not have reached the drive",
        said_once: false,
    },
    Flag {
        name: NO_DEVICE_COUNTERS,
        mark: Some("?"),
        legend: "no device counters: nothing checks where the bytes went",
        meaning: "no block-device counters were available: the cache and durability checks \
                  could not run",
        said_once: false,
    },
    Flag {
        name: CACHE_DROP_PARTIAL,
        mark: None,
        legend: "",
        meaning: "caches could only be dropped per file (posix_fadvise), not globally",
        said_once: false,
    },
    Flag {
        name: FAILED,
        mark: None,
        legend: "",
        meaning: "the workload failed; see the error",
        said_once: false,
    },
    Flag {
        name: HOST_CACHE,
        mark: None,
        legend: "",
        meaning: "the image's loop device fell back to buffered I/O, or the image sits on \
                  tmpfs: the host's memory may serve what looks like device I/O",
        said_once: false,
    },
    Flag {
        name: BUDGET_SPENT,
        mark: None,
        legend: "",
        meaning: "more runs were made while the spread stayed over 10 %, until the figure's \
                  time budget ran out",
        said_once: true,
    },
    Flag {
        name: MAX_RUNS,
        mark: None,
        legend: "",
        meaning: "more runs were made while the spread stayed over 10 %, up to the most a \
                  figure gets",
        said_once: true,
    },
    Flag {
        name: WARM_UP,
        mark: None,
        legend: "",
        meaning: "the runs did not agree all together, but those after the first one or two \
                  did (within 10 %): the figure comes from those, and the first runs are set \
                  aside as a warm-up (kept in the JSON)",
        said_once: true,
    },
];

/// The entry of the flag called `name`, if fsfit sets one so named.
pub fn get(name: &str) -> Option<&'static Flag> {
    ALL.iter().find(|f| f.name == name)
}

/// What the flag means, for the HTML ("" for a name fsfit does not set).
pub fn meaning(name: &str) -> &'static str {
    get(name).map_or("", |f| f.meaning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_is_said_by_every_view() {
        let mut marks = std::collections::HashSet::new();
        for f in &ALL {
            assert!(!f.meaning.is_empty(), "{}", f.name);
            assert!(
                !f.meaning.contains("  "),
                "{}: a wrapped line's spaces",
                f.name
            );
            // A marked flag has a legend that fits 100 columns with its mark.
            if let Some(m) = f.mark {
                assert!(marks.insert(m), "{}: mark {m} twice", f.name);
                assert!(
                    !f.legend.is_empty() && f.legend.len() + 2 <= 100,
                    "{}",
                    f.name
                );
                assert!(!f.said_once, "{}", f.name);
            }
            assert_eq!(get(f.name).map(|g| g.name), Some(f.name));
        }
        assert_eq!(meaning("no-such-flag"), "");
    }
}
