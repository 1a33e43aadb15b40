//! The crash workloads, each doing what people do with sticks and telling
//! the oracle what it wrote and when each thing became durable. One file
//! each, all behind [`Workload`]; adding one means adding a file here and a
//! line to [`all`]. Before each one, the "old files" are written and synced:
//! damage to them is the disaster of the exFAT-vs-UDF stick test (shared seeds).

mod append;
mod copy;
mod reorganize;
mod save;

use super::oracle::Oracle;
use super::states::Rng;
use crate::{Error, Result};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// How much each workload does: small enough to keep state counts (and so
/// run time) reasonable on a 64 MiB volume.
#[derive(Clone, Copy)]
pub struct Scale {
    pub photos: usize,
    pub photo_bytes: usize,
    pub saves: usize,
    pub appends: usize,
    pub moves: usize,
}

impl Scale {
    pub fn new(quick: bool) -> Scale {
        if quick {
            Scale {
                photos: 6,
                photo_bytes: 256 << 10,
                saves: 4,
                appends: 12,
                moves: 2,
            }
        } else {
            Scale {
                photos: 16,
                photo_bytes: 1 << 20,
                saves: 12,
                appends: 40,
                moves: 4,
            }
        }
    }
}

/// The log position, read from the recorder after each step returns.
pub type Pos<'a> = &'a dyn Fn() -> u64;

/// What the oracle holds a workload's files to: when what it wrote became
/// durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promise {
    /// Each step's data, once its own fsync (of the file, or of the folder
    /// after a rename) returned.
    Fsync,
    /// Everything, once the `sync` ending the workload (or each of its
    /// rounds) returned; nothing before.
    Sync,
}

/// What a workload's steps get: the mounted volume, the oracle they tell,
/// the run's random numbers and scale, and the log position.
pub struct Ctx<'a> {
    pub root: &'a Path,
    pub oracle: &'a mut Oracle,
    pub rng: &'a mut Rng,
    pub scale: Scale,
    pub pos: Pos<'a>,
    /// Files are written through, each write call synchronous (the
    /// windows-write-through policy: [`crate::fs::policy::writing`]).
    pub through: bool,
}

impl Ctx<'_> {
    /// `rel` under the volume's root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The log position now.
    pub fn at(&self) -> u64 {
        (self.pos)()
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut b = vec![0; n];
        self.rng.fill(&mut b);
        b
    }

    /// Create (or truncate) `p` and write `bytes`, fsynced if `fsync`.
    pub fn write_file(&self, p: &Path, bytes: &[u8], fsync: bool) -> Result<()> {
        let mut f = crate::fs::policy::create(p, self.through).map_err(io("cannot create", p))?;
        f.write_all(bytes).map_err(io("cannot write", p))?;
        if fsync {
            f.sync_all().map_err(io("cannot fsync", p))?;
        }
        Ok(())
    }

    /// `sync`: then everything written is durable.
    pub fn sync(&mut self) -> Result<()> {
        syncfs(self.root)?;
        let at = self.at();
        self.oracle.all_durable(at);
        Ok(())
    }
}

pub trait Workload: Sync {
    fn name(&self) -> &'static str;
    /// What people do that it imitates, in a line.
    fn description(&self) -> &'static str;
    /// When its writes become durable, as its steps tell the oracle.
    fn promise(&self) -> Promise;
    /// Its own starting files, written (and synced, with the old files)
    /// before the workload's mark in the log.
    fn prepare(&self, _c: &mut Ctx) -> Result<()> {
        Ok(())
    }
    /// The workload proper; every step tells the oracle.
    fn run(&self, c: &mut Ctx) -> Result<()>;
}

/// Every workload, in the order runs use.
pub fn all() -> Vec<&'static dyn Workload> {
    vec![
        &copy::CopyFolder,
        &save::Save,
        &append::Append,
        &reorganize::Reorganize,
    ]
}

/// The workloads' names, in order.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|w| w.name()).collect()
}

/// The workload called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Workload> {
    all().into_iter().find(|w| w.name() == name)
}

/// Write the old files and the workload's own starting files, all synced.
pub fn prepare(w: &dyn Workload, c: &mut Ctx) -> Result<()> {
    mkdir(&c.path("old"))?;
    for i in 0..8 {
        let rel = format!("old/keep{i}.dat");
        let b = c.bytes(4096 << (i % 6));
        c.write_file(&c.path(&rel), &b, true)?;
        let at = c.at();
        c.oracle.set(&rel, Some(&b), at);
        c.oracle.mark_old(&rel);
    }
    w.prepare(c)?;
    c.sync()
}

/// What a failed file operation says: `{what} {path}: {error}`.
pub fn io<'a>(what: &'a str, p: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |e| Error::work(format!("{what} {}: {e}", p.display()))
}

pub fn fsync_dir(p: &Path) -> Result<()> {
    std::fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(io("cannot fsync", p))
}

/// syncfs(2) on the filesystem holding `root`: what `sync` does for it.
pub fn syncfs(root: &Path) -> Result<()> {
    let f = std::fs::File::open(root).map_err(io("cannot open", root))?;
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(Error::work(format!(
            "syncfs {}: {}",
            root.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

pub fn mkdir(p: &Path) -> Result<()> {
    std::fs::create_dir_all(p).map_err(io("cannot create", p))
}

#[cfg(test)]
mod tests;
