//! Parallel directory walk on a rayon pool: one task per directory (a
//! large one's entries stat'ed by every thread), one `fstatat(dirfd, name)`
//! per entry ([`DirStream`]), symlinks never followed, one filesystem
//! unless asked otherwise. Other systems than
//! Linux read directories with `std::fs::read_dir` (readdir.rs).

#[cfg(target_os = "linux")]
use super::dirstream::{dev_of, entry_of, reserve_descriptors, DirStream, Listed, Stat};
#[cfg(not(target_os = "linux"))]
use super::readdir::{dev_of, entry_of, reserve_descriptors, DirStream, Listed, Stat};
use super::{Dir, Entry, Kind, TreeCounts, WalkError};
use rayon::prelude::*;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Errors kept with their paths; past this only the count grows.
const KEEP_ERRORS: usize = 100;

pub struct WalkOptions {
    pub threads: usize,
    /// Descend into directories on other filesystems (mount points).
    pub cross_mounts: bool,
}

/// What the walk returns besides what the visitor saw.
pub struct WalkSummary {
    pub counts: TreeCounts,
    pub errors: Vec<WalkError>,
    /// Mount points met and not entered.
    pub skipped_mounts: u64,
}

struct Shared<'v> {
    visit: &'v (dyn Fn(&Dir) + Sync),
    counts: Vec<Mutex<TreeCounts>>,
    errors: Mutex<Vec<WalkError>>,
    error_count: AtomicU64,
    skipped_mounts: AtomicU64,
    /// Files seen so far, for a progress display.
    progress: &'v AtomicU64,
    cross_mounts: bool,
}

impl Shared<'_> {
    fn error(&self, path: &Path, err: &std::io::Error) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut errors = self.errors.lock().unwrap();
        if errors.len() < KEEP_ERRORS {
            errors.push(WalkError {
                path: path.to_path_buf(),
                message: err.to_string(),
            });
        }
    }

    fn slot(&self) -> usize {
        rayon::current_thread_index().unwrap_or(0) % self.counts.len()
    }
}

/// Walk `paths` as `cp -r` would copy them onto a fresh volume: one
/// directory's contents become the volume root; several paths (or one file)
/// become entries of the root, named by their last component. Command-line
/// paths are followed if they are symlinks (as `du -H`); nothing below them is.
///
/// Returns an error only when a command-line path cannot be read at all.
pub fn walk(
    paths: &[PathBuf],
    opts: &WalkOptions,
    progress: &AtomicU64,
    visit: &(dyn Fn(&Dir) + Sync),
) -> crate::Result<WalkSummary> {
    let threads = opts.threads.max(1);
    reserve_descriptors(threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("fsfit-walk-{i}"))
        .build()
        .map_err(|e| crate::Error::input(format!("cannot start {threads} walker threads: {e}")))?;
    let shared = Shared {
        visit,
        counts: (0..threads + 1).map(|_| Mutex::default()).collect(),
        errors: Mutex::default(),
        error_count: AtomicU64::new(0),
        skipped_mounts: AtomicU64::new(0),
        progress,
        cross_mounts: opts.cross_mounts,
    };

    // Stat the command-line paths first, so a missing one is a clean error.
    let mut tops = Vec::new();
    for p in paths {
        let md =
            fs::metadata(p).map_err(|e| crate::Error::input(format!("{}: {}", p.display(), e)))?;
        tops.push((p.clone(), md));
    }

    let root_dir = tops.len() == 1 && tops[0].1.is_dir();
    let shared_ref = &shared;
    let tops_ref = &tops;
    pool.scope(move |s| {
        let shared = shared_ref;
        let tops = tops_ref;
        if root_dir {
            let (p, md) = &tops[0];
            spawn(s, shared, Task::top(p, md, PathBuf::new(), true));
        } else {
            // A synthetic root holding the command-line paths.
            let mut entries = Vec::new();
            for (p, md) in tops {
                let name = p
                    .canonicalize()
                    .ok()
                    .and_then(|c| c.file_name().map(|n| n.to_os_string()))
                    .or_else(|| p.file_name().map(|n| n.to_os_string()))
                    .unwrap_or_else(|| OsString::from("root"));
                let e = entry_of(name.clone(), md);
                if e.kind == Kind::Dir {
                    spawn(s, shared, Task::top(p, md, PathBuf::from(&name), false));
                }
                entries.push(e);
            }
            finish_dir(shared, Path::new(""), true, &entries);
        }
    });

    let mut counts = TreeCounts::default();
    for c in &shared.counts {
        counts.add(&c.lock().unwrap());
    }
    counts.errors = shared.error_count.load(Ordering::Relaxed);
    Ok(WalkSummary {
        counts,
        errors: shared.errors.into_inner().unwrap(),
        skipped_mounts: shared.skipped_mounts.load(Ordering::Relaxed),
    })
}

fn finish_dir(shared: &Shared, rel: &Path, is_root: bool, entries: &[Entry]) {
    let mut local = TreeCounts::default();
    for e in entries {
        local.count(e);
    }
    shared.progress.fetch_add(local.files, Ordering::Relaxed);
    shared.counts[shared.slot()].lock().unwrap().add(&local);
    (shared.visit)(&Dir::new(rel, is_root, entries));
}

thread_local! {
    /// One directory's names and entries, reused from directory to
    /// directory (the visitor sees the entries as a slice and keeps nothing).
    static LISTED: std::cell::Cell<Vec<Listed>> = const { std::cell::Cell::new(Vec::new()) };
    static ENTRIES: std::cell::Cell<Vec<Entry>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A folder with at least this many entries has them stat'ed by every
/// walker thread, not by the one that read it: /usr/share/man/man1 (18,000
/// man pages, 11 % of /usr) was read by one thread while the other had
/// nothing left to do.
const PARALLEL_STAT: usize = 1024;

/// A directory waiting for its task.
struct Task {
    path: PathBuf,
    rel: PathBuf,
    is_root: bool,
    dev: u64,
    /// Opened by its parent's descriptor; None: opened by path.
    opened: Option<DirStream>,
}

impl Task {
    /// A command-line path, opened by path.
    fn top(path: &Path, md: &fs::Metadata, rel: PathBuf, is_root: bool) -> Task {
        Task {
            path: path.to_path_buf(),
            rel,
            is_root,
            dev: dev_of(md),
            opened: None,
        }
    }
}

fn spawn<'s, 'v: 's>(s: &rayon::Scope<'s>, shared: &'s Shared<'v>, task: Task) {
    s.spawn(move |s| read_dir(s, shared, task));
}

fn read_dir<'s, 'v: 's>(s: &rayon::Scope<'s>, shared: &'s Shared<'v>, mut task: Task) {
    let mut listed = LISTED.take();
    let mut entries = ENTRIES.take();
    entries.clear();
    let stream = match task.opened.take() {
        Some(d) => Ok(d),
        None => DirStream::open(&task.path),
    };
    match stream {
        Err(e) => shared.error(&task.path, &e),
        Ok(mut ds) => {
            listed.clear();
            if let Err(e) = ds.list(&mut listed) {
                // The names read before the failure are still counted.
                shared.error(&task.path, &e);
            }
            let here = Here {
                s,
                shared,
                ds: &ds,
                task: &task,
            };
            if listed.len() >= PARALLEL_STAT {
                let stats: Vec<_> = listed
                    .par_iter()
                    .with_min_len(256)
                    .map(|l| ds.stat(l))
                    .collect();
                for (l, st) in listed.drain(..).zip(stats) {
                    here.add(l, st, &mut entries);
                }
            } else {
                for l in listed.drain(..) {
                    let st = ds.stat(&l);
                    here.add(l, st, &mut entries);
                }
            }
        }
    }
    finish_dir(shared, &task.rel, task.is_root, &entries);
    entries.clear();
    // A huge directory's buffers are not kept for the rest of the walk.
    if entries.capacity() <= 1 << 16 {
        ENTRIES.set(entries);
        LISTED.set(listed);
    }
}

/// The directory being read, for each of its entries.
struct Here<'a, 's, 'v> {
    s: &'a rayon::Scope<'s>,
    shared: &'s Shared<'v>,
    ds: &'a DirStream,
    task: &'a Task,
}

impl<'s, 'v: 's> Here<'_, 's, 'v> {
    /// One entry, in readdir order: counted, and a folder the walk enters
    /// handed to its own task.
    fn add(&self, l: Listed, st: std::io::Result<Stat>, entries: &mut Vec<Entry>) {
        let (shared, task) = (self.shared, self.task);
        let st = match st {
            Ok(st) => st,
            Err(e) => {
                // Vanished since readdir, or unreadable: counted, not fatal.
                shared.error(&task.path.join(l.os_name()), &e);
                return;
            }
        };
        let kind = st.kind();
        if kind == Kind::Dir {
            let name = l.os_name();
            if st.dev != task.dev && !shared.cross_mounts {
                // `cp -rx` makes the mount point an empty directory.
                shared.skipped_mounts.fetch_add(1, Ordering::Relaxed);
                finish_dir(shared, &task.rel.join(name), false, &[]);
            } else {
                let child = Task {
                    path: task.path.join(name),
                    rel: task.rel.join(name),
                    is_root: false,
                    dev: st.dev,
                    opened: self.ds.open_child(&l),
                };
                spawn(self.s, shared, child);
            }
        }
        entries
            .push(Entry::named(l.os_name(), kind, st.size, st.mtime).with_allocated(st.allocated));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Seen = (OsString, Kind, u64);

    /// A folder large enough to be stat'ed by every thread is handed over
    /// in readdir order (the models' "earlier name wins" depends on it),
    /// every entry with its own size, its subfolders walked.
    #[test]
    fn a_large_folder_keeps_readdir_order() {
        let d = tempfile::tempdir().unwrap();
        let n = PARALLEL_STAT + 500;
        for i in 0..n {
            let p = d.path().join(format!("f{i}"));
            if i % 100 == 0 {
                fs::create_dir(&p).unwrap();
                fs::write(p.join("inner"), vec![0u8; i]).unwrap();
            } else {
                fs::write(&p, vec![0u8; i % 300]).unwrap();
            }
        }
        let seen = Mutex::new(Vec::new());
        let visit = |dir: &Dir| {
            let names = dir.entries.iter();
            let names = names.map(|e| (e.name().to_os_string(), e.kind, e.size));
            seen.lock()
                .unwrap()
                .push((dir.rel.to_path_buf(), names.collect()));
        };
        let opts = WalkOptions {
            threads: 3,
            cross_mounts: false,
        };
        let progress = AtomicU64::new(0);
        let paths = [d.path().to_path_buf()];
        let summary = walk(&paths, &opts, &progress, &visit).unwrap();
        let mut seen: Vec<(PathBuf, Vec<Seen>)> = seen.into_inner().unwrap();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(seen.len(), 1 + n.div_ceil(100));
        let readdir: Vec<Seen> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let md = e.metadata().unwrap();
                let kind = if md.is_dir() { Kind::Dir } else { Kind::File };
                let size = if md.is_dir() {
                    seen_size(&seen[0].1, &e.file_name())
                } else {
                    md.len()
                };
                (e.file_name(), kind, size)
            })
            .collect();
        assert_eq!(seen[0].0, PathBuf::new());
        assert_eq!(seen[0].1, readdir);
        assert_eq!(seen[1].0, PathBuf::from("f0"));
        assert_eq!(seen[1].1.len(), 1);
        assert_eq!(
            summary.counts.files as usize,
            n - n.div_ceil(100) + n.div_ceil(100)
        );
        assert_eq!(summary.counts.errors, 0);
    }

    /// A folder's own size (st_size) as the walk saw it.
    fn seen_size(entries: &[Seen], name: &std::ffi::OsStr) -> u64 {
        entries.iter().find(|e| e.0 == name).unwrap().2
    }
}
