//! The workloads, one file each (a write and its read-back share a file), all
//! behind [`Workload`]. Adding a workload means adding a file here and a line
//! to [`all`].

mod data;
mod files;
mod fragmented;
mod scan;
mod sets;
mod single;
mod tree;

pub use data::Data;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a workload's timed part gets.
pub struct Ctx<'a> {
    /// Where the workload keeps its files (the volume's root, or a folder of
    /// an already-mounted directory).
    pub root: &'a Path,
    pub scale: f64,
    pub data: &'a Data,
    /// System calls issued (open, read, write, fsync, stat, unlink, ...).
    pub ops: u64,
    pub cancel: &'a AtomicBool,
}

impl Ctx<'_> {
    pub fn dir(&self, family: &str) -> PathBuf {
        self.root.join(format!("fsfit-{family}"))
    }

    pub fn check_cancel(&self) -> Result<(), String> {
        if self.cancel.load(Ordering::Relaxed) {
            Err("interrupted".into())
        } else {
            Ok(())
        }
    }

    /// Make everything written durable: syncfs on the volume.
    pub fn syncfs(&mut self) -> Result<(), String> {
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

pub trait Workload: Sync {
    fn name(&self) -> &'static str;
    /// Workloads of one family share files; the runner removes them after the
    /// family's last selected workload.
    fn family(&self) -> &'static str;
    fn phase(&self) -> Phase;
    /// One line for `fsfit bench --list`, at this scale.
    fn describe(&self, scale: f64) -> String;
    /// Space the family needs on the volume at this scale.
    fn space_needed(&self, scale: f64) -> u64;
    /// Untimed, before every run: make the input exist, remove old output.
    fn prepare(&self, _ctx: &mut Ctx) -> Result<(), String> {
        Ok(())
    }
    /// The timed part.
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome, String>;
    /// Untimed, once after the last run: check what was read back.
    fn verify(&self, _ctx: &mut Ctx) -> Result<(), String> {
        Ok(())
    }
}

/// Every workload in the order a config runs them.
pub fn all() -> Vec<&'static dyn Workload> {
    let mut v: Vec<&'static dyn Workload> = Vec::new();
    v.extend(single::ALL);
    v.extend(sets::ALL);
    v.extend(tree::ALL);
    v.extend(scan::ALL);
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
