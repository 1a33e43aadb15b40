//! Cold caches in `--dir` mode, where fsfit cannot remount: write back, then
//! drop the page cache (root only) and advise the kernel to forget every file
//! of the workload's folder.

use std::os::fd::AsRawFd;
use std::path::Path;

/// What was done, for the results ("drop_caches+fadvise" or "fadvise").
pub fn drop_caches(dir: &Path) -> &'static str {
    if let Ok(f) = std::fs::File::open(dir) {
        unsafe { libc::syncfs(f.as_raw_fd()) };
    }
    fadvise_tree(dir);
    if drop_clean(Caches::PageAndMetadata) {
        "drop_caches+fadvise"
    } else {
        "fadvise"
    }
}

/// What [`drop_clean`] asks the kernel to let go of (the values of
/// /proc/sys/vm/drop_caches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caches {
    /// Clean page cache only ("1"): room for a run, keeping the dentries
    /// and inodes other programs' walks rely on.
    Page,
    /// The page cache and the dentries and inodes ("3"): a cold start for
    /// `--dir`'s reads, which cannot remount to forget a tree's metadata.
    PageAndMetadata,
}

/// Ask the kernel to drop clean caches; whether it took the request (root
/// only). Dirty pages are left alone: write them back first for them to go.
pub fn drop_clean(what: Caches) -> bool {
    let value = match what {
        Caches::Page => "1",
        Caches::PageAndMetadata => "3",
    };
    std::fs::write("/proc/sys/vm/drop_caches", value).is_ok()
}

fn fadvise_tree(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => fadvise_tree(&p),
            Ok(t) if t.is_file() => {
                if let Ok(f) = std::fs::File::open(&p) {
                    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
                }
            }
            _ => {}
        }
    }
}
