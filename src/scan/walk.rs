//! Parallel directory walk on a rayon pool: one task per directory, one
//! `fstatat(dirfd, name)` per entry ([`DirStream`]), symlinks never
//! followed, one filesystem unless asked otherwise. Other systems than
//! Linux read directories with `std::fs::read_dir` (readdir.rs).

#[cfg(target_os = "linux")]
use super::dirstream::{dev_of, entry_of, DirStream};
#[cfg(not(target_os = "linux"))]
use super::readdir::{dev_of, entry_of, DirStream};
use super::{Dir, Entry, Kind, TreeCounts, WalkError};
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
            let dev = dev_of(md);
            s.spawn(move |s| read_dir(s, shared, p.clone(), PathBuf::new(), true, dev));
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
                    let (p, dev) = (p.clone(), dev_of(md));
                    s.spawn(move |s| read_dir(s, shared, p, PathBuf::from(name), false, dev));
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
    /// One directory's entries, reused from directory to directory (the
    /// visitor sees them as a slice and keeps nothing).
    static ENTRIES: std::cell::Cell<Vec<Entry>> = const { std::cell::Cell::new(Vec::new()) };
}

fn read_dir<'s, 'v: 's>(
    s: &rayon::Scope<'s>,
    shared: &'s Shared<'v>,
    path: PathBuf,
    rel: PathBuf,
    is_root: bool,
    dev: u64,
) {
    let mut entries = ENTRIES.take();
    entries.clear();
    match DirStream::open(&path) {
        Err(e) => shared.error(&path, &e),
        Ok(mut rd) => {
            while let Some(item) = rd.next_item() {
                let item = match item {
                    Ok(i) => i,
                    Err(e) => {
                        shared.error(&path, &e);
                        // A failing readdir may fail again at the same place.
                        break;
                    }
                };
                let name = item.os_name();
                // One fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW) per entry.
                let st = match item.lstat() {
                    Ok(st) => st,
                    Err(e) => {
                        // Vanished since readdir, or unreadable: counted, not fatal.
                        shared.error(&path.join(name), &e);
                        continue;
                    }
                };
                let e = Entry::new(name.to_os_string(), st.kind(), st.size, st.mtime)
                    .with_allocated(st.allocated);
                if e.kind == Kind::Dir {
                    if st.dev != dev && !shared.cross_mounts {
                        // `cp -rx` makes the mount point an empty directory.
                        shared.skipped_mounts.fetch_add(1, Ordering::Relaxed);
                        finish_dir(shared, &rel.join(name), false, &[]);
                    } else {
                        let child = path.join(name);
                        let child_rel = rel.join(name);
                        let child_dev = st.dev;
                        s.spawn(move |s| read_dir(s, shared, child, child_rel, false, child_dev));
                    }
                }
                entries.push(e);
            }
        }
    }
    finish_dir(shared, &rel, is_root, &entries);
    entries.clear();
    // A huge directory's buffer is not kept for the rest of the walk.
    if entries.capacity() <= 1 << 16 {
        ENTRIES.set(entries);
    }
}
