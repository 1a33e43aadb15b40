//! The workloads, one file each (a write and its read-back share a file), all
//! behind [`Workload`]. Adding a workload means adding a file here and a line
//! to [`all`], and its kind (name, unit, phase) to bench/kinds.rs, which the
//! workload returns; a test checks both list them in the same order.

use crate::Result;
mod data;
mod files;
mod five;
mod fragmented;
mod random;
mod scan;
mod sets;
mod single;
mod tenmb;
mod tree;
#[cfg(windows)]
mod windows;

/// What each workload is lives in bench/kinds.rs, which every system builds.
pub use super::kinds::{unit_of, Kind, Phase, Unit};
pub use data::Data;

use std::path::{Path, PathBuf};

/// What a workload's timed part gets.
pub struct Ctx<'a> {
    /// Where the workload keeps its files (the volume's root, or a folder of
    /// an already-mounted directory).
    pub root: &'a Path,
    pub scale: f64,
    pub data: &'a Data,
    /// System calls issued (open, read, write, fsync, stat, unlink, ...).
    pub ops: u64,
    /// Files are written through, each write call synchronous (the
    /// windows-write-through policy: [`crate::fs::policy::writing`]).
    pub through: bool,
}

impl Ctx<'_> {
    pub fn dir(&self, family: &str) -> PathBuf {
        self.root.join(format!("fsfit-{family}"))
    }

    /// Stop at the user's Ctrl-C: `Error::Interrupted` (crate::cancel holds
    /// the one flag; the context carries no copy of it).
    pub fn check_cancel(&self) -> Result<()> {
        crate::cancel::check()
    }

    /// Make everything written durable: syncfs on the volume (on Windows,
    /// FlushFileBuffers: see workloads/windows.rs).
    pub fn syncfs(&mut self) -> Result<()> {
        files::syncfs(self.root)?;
        self.ops += 1;
        Ok(())
    }
}

/// What a timed run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub files: u64,
    pub bytes: u64,
    /// Extents of the file written, where the driver answers FIEMAP.
    pub extents: Option<u32>,
}

pub trait Workload: Sync {
    /// Its entry in bench/kinds.rs: name, unit, phase, replay overlap.
    fn kind(&self) -> &'static Kind;
    fn name(&self) -> &'static str {
        self.kind().name
    }
    /// What its figure counts.
    fn unit(&self) -> Unit {
        self.kind().unit
    }
    fn phase(&self) -> Phase {
        self.kind().phase
    }
    /// Workloads of one family share files; the runner removes them after the
    /// family's last selected workload.
    fn family(&self) -> &'static str;
    /// One line for `fsfit bench --list`, at this scale.
    fn describe(&self, scale: f64) -> String;
    /// Space the family needs on the volume at this scale.
    fn space_needed(&self, scale: f64) -> u64;
    /// Untimed, before every run: make the input exist, remove old output.
    fn prepare(&self, _ctx: &mut Ctx) -> Result<()> {
        Ok(())
    }
    /// The timed part.
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome>;
    /// Untimed, once after the last run: check what was read back.
    fn verify(&self, _ctx: &mut Ctx) -> Result<()> {
        Ok(())
    }
}

/// Every workload in the order a config runs them.
pub fn all() -> Vec<&'static dyn Workload> {
    let mut v: Vec<&'static dyn Workload> = Vec::new();
    v.extend(single::ALL);
    v.extend(sets::ALL);
    v.extend(five::ALL);
    v.extend(tenmb::ALL);
    v.extend(tree::ALL);
    v.extend(scan::ALL);
    v.extend(random::ALL);
    v.extend(fragmented::ALL);
    v
}

pub fn by_name(name: &str) -> Option<&'static dyn Workload> {
    all().into_iter().find(|w| w.name() == name)
}

/// `n` scaled, at least `min`.
pub fn scaled(n: u64, scale: f64, min: u64) -> u64 {
    ((n as f64 * scale).round() as u64).max(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_file_workloads_count_files_per_second() {
        let per_file: Vec<&str> = all()
            .into_iter()
            .filter(|w| w.unit() == Unit::FilesPerS)
            .map(|w| w.name())
            .collect();
        assert_eq!(
            per_file,
            ["single-delete", "tiny-write", "tiny-read", "scan", "delete"]
        );
        assert_eq!(unit_of("tiny-read").label(), "files/s");
        assert_eq!(unit_of("no-such-workload").label(), "MB/s");
        assert_eq!(Unit::MbPerS.rate(1, 4_000_000, 2.0), 2.0);
        assert_eq!(Unit::FilesPerS.rate(10, 4_000_000, 2.0), 5.0);
    }

    #[test]
    fn the_kinds_table_lists_every_workload_in_order() {
        let ours: Vec<&str> = all().into_iter().map(|w| w.name()).collect();
        assert_eq!(super::super::kinds::names(), ours);
    }

    #[test]
    fn every_workload_describes_itself() {
        for w in all() {
            assert!(!w.describe(1.0).is_empty(), "{}", w.name());
            assert!(by_name(w.name()).is_some());
        }
    }
}
