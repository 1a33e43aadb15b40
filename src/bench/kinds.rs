//! What each workload's figure counts and which phase it is, as data: the
//! reports read results files on any system, while the workloads themselves
//! (bench/workloads/, Linux only) run here. workloads/mod.rs's tests check
//! this table against the workloads (#22 item 7).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Ends when its data is durable; checked against device writes.
    Write,
    /// Starts cold (remount or cache drop); checked against device reads.
    Read,
    /// Starts cold; metadata only, so only "some device reads" is checked.
    Scan,
    /// Deleting: durable at the end, like a write.
    Delete,
}

/// What a workload's figure counts; reports ask the workload, never its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Decimal megabytes (10^6 bytes) per second: the bytes moved.
    MbPerS,
    /// Files per second: where the per-file cost is the point (tiny files,
    /// scans, deletes), so bytes would say little.
    FilesPerS,
}

impl Unit {
    /// `MB/s` or `files/s`.
    pub fn label(self) -> &'static str {
        match self {
            Unit::MbPerS => "MB/s",
            Unit::FilesPerS => "files/s",
        }
    }

    /// The rate of a run that moved `files` and `bytes` in `seconds`.
    pub fn rate(self, files: u64, bytes: u64, seconds: f64) -> f64 {
        match self {
            Unit::MbPerS => bytes as f64 / 1e6 / seconds,
            Unit::FilesPerS => files as f64 / seconds,
        }
    }
}

/// One workload's name, unit and phase.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    pub name: &'static str,
    pub unit: Unit,
    pub phase: Phase,
}

const fn kind(name: &'static str, unit: Unit, phase: Phase) -> Kind {
    Kind { name, unit, phase }
}

/// Every workload, in the order a config runs them.
pub const KINDS: &[Kind] = &[
    kind("single-write", Unit::MbPerS, Phase::Write),
    kind("single-read", Unit::MbPerS, Phase::Read),
    kind("single-delete", Unit::FilesPerS, Phase::Delete),
    kind("small-write", Unit::MbPerS, Phase::Write),
    kind("small-read", Unit::MbPerS, Phase::Read),
    kind("tiny-write", Unit::FilesPerS, Phase::Write),
    kind("tiny-read", Unit::FilesPerS, Phase::Read),
    kind("medium-write", Unit::MbPerS, Phase::Write),
    kind("medium-read", Unit::MbPerS, Phase::Read),
    kind("large-write", Unit::MbPerS, Phase::Write),
    kind("large-read", Unit::MbPerS, Phase::Read),
    kind("five-write", Unit::MbPerS, Phase::Write),
    kind("five-read", Unit::MbPerS, Phase::Read),
    kind("tenmb-write", Unit::MbPerS, Phase::Write),
    kind("tenmb-read", Unit::MbPerS, Phase::Read),
    kind("tree-write", Unit::MbPerS, Phase::Write),
    kind("scan", Unit::FilesPerS, Phase::Scan),
    kind("dupsearch", Unit::MbPerS, Phase::Read),
    kind("delete", Unit::FilesPerS, Phase::Delete),
    kind("fragmented-write", Unit::MbPerS, Phase::Write),
    kind("fragmented-read", Unit::MbPerS, Phase::Read),
];

fn by_name(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The unit of a workload named in a results file; MB/s for a name this
/// fsfit does not know (a file from another version).
pub fn unit_of(name: &str) -> Unit {
    by_name(name).map_or(Unit::MbPerS, |k| k.unit)
}

/// The phase of a workload named in a results file; None for a name this
/// fsfit does not know.
pub fn phase_of(name: &str) -> Option<Phase> {
    by_name(name).map(|k| k.phase)
}
