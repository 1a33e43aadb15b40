//! What each workload is, as data, in one place: its name, what its figure
//! counts, its phase and how a flash replay overlaps the host's work with
//! the device's. The reports read results files on any system, while the
//! workloads themselves (bench/workloads/, Linux only) run here; each of
//! them refers to its entry below instead of saying it again.

use crate::flash::Overlap;
use Phase::{Delete, Read, Scan, Write};
use Unit::{FilesPerS, MbPerS};

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

/// One workload's name, unit, phase and replay overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub name: &'static str,
    pub unit: Unit,
    pub phase: Phase,
    /// How much of the host's CPU time hides behind the device's in a
    /// flash replay: file contents read in order overlap (readahead); a
    /// scan's directory and inode reads block one by one, so it waits like
    /// the writes and deletes.
    pub overlap: Overlap,
}

const fn kind(name: &'static str, unit: Unit, phase: Phase) -> Kind {
    let overlap = match phase {
        Phase::Read => Overlap::Readahead,
        Phase::Write | Phase::Scan | Phase::Delete => Overlap::Wait,
    };
    Kind {
        name,
        unit,
        phase,
        overlap,
    }
}

pub const SINGLE_WRITE: Kind = kind("single-write", MbPerS, Write);
pub const SINGLE_READ: Kind = kind("single-read", MbPerS, Read);
pub const SINGLE_DELETE: Kind = kind("single-delete", FilesPerS, Delete);
pub const SMALL_WRITE: Kind = kind("small-write", MbPerS, Write);
pub const SMALL_READ: Kind = kind("small-read", MbPerS, Read);
pub const TINY_WRITE: Kind = kind("tiny-write", FilesPerS, Write);
pub const TINY_READ: Kind = kind("tiny-read", FilesPerS, Read);
pub const MEDIUM_WRITE: Kind = kind("medium-write", MbPerS, Write);
pub const MEDIUM_READ: Kind = kind("medium-read", MbPerS, Read);
pub const LARGE_WRITE: Kind = kind("large-write", MbPerS, Write);
pub const LARGE_READ: Kind = kind("large-read", MbPerS, Read);
pub const FIVE_WRITE: Kind = kind("five-write", MbPerS, Write);
pub const FIVE_READ: Kind = kind("five-read", MbPerS, Read);
pub const TENMB_WRITE: Kind = kind("tenmb-write", MbPerS, Write);
pub const TENMB_READ: Kind = kind("tenmb-read", MbPerS, Read);
pub const TREE_WRITE: Kind = kind("tree-write", MbPerS, Write);
pub const TREE_READ: Kind = kind("tree-read", MbPerS, Read);
pub const SCAN: Kind = kind("scan", FilesPerS, Scan);
/// Reads every file's contents in order to hash them: a read.
pub const DUPSEARCH: Kind = kind("dupsearch", MbPerS, Read);
pub const DELETE: Kind = kind("delete", FilesPerS, Delete);
/// Scattered 4 KiB requests: MB/s of the blocks moved (a 4 KiB block
/// each, so IOPS are MB/s x 10^6 / 4096).
pub const RANDOM_WRITE: Kind = kind("random-write", MbPerS, Write);
/// A read, but each request blocks until the device answers it (readahead
/// is off, the next offset is elsewhere): the host waits as for a write.
pub const RANDOM_READ: Kind = Kind {
    overlap: Overlap::Wait,
    ..kind("random-read", MbPerS, Read)
};
pub const FRAGMENTED_WRITE: Kind = kind("fragmented-write", MbPerS, Write);
pub const FRAGMENTED_READ: Kind = kind("fragmented-read", MbPerS, Read);

/// Every workload, in the order a config runs them.
pub const KINDS: &[Kind] = &[
    SINGLE_WRITE,
    SINGLE_READ,
    SINGLE_DELETE,
    SMALL_WRITE,
    SMALL_READ,
    TINY_WRITE,
    TINY_READ,
    MEDIUM_WRITE,
    MEDIUM_READ,
    LARGE_WRITE,
    LARGE_READ,
    FIVE_WRITE,
    FIVE_READ,
    TENMB_WRITE,
    TENMB_READ,
    TREE_WRITE,
    TREE_READ,
    SCAN,
    DUPSEARCH,
    DELETE,
    RANDOM_WRITE,
    RANDOM_READ,
    FRAGMENTED_WRITE,
    FRAGMENTED_READ,
];

/// The write workloads whose speed stands for copying files of each size
/// class advise sorts a tree into (small, medium, large), the closest match
/// first: advise measures the first of each and, from a run without it,
/// estimates with the next one measured.
pub const SIZE_CLASS_WRITES: [&[Kind]; 3] = [
    &[
        SMALL_WRITE,
        TINY_WRITE,
        TREE_WRITE,
        MEDIUM_WRITE,
        SINGLE_WRITE,
    ],
    &[MEDIUM_WRITE, SMALL_WRITE, LARGE_WRITE, SINGLE_WRITE],
    &[LARGE_WRITE, SINGLE_WRITE, MEDIUM_WRITE],
];

/// Every workload's name, in order: what `--workloads` accepts.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

pub fn by_name(name: &str) -> Option<&'static Kind> {
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
