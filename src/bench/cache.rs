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
    let dropped = std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok();
    if dropped {
        "drop_caches+fadvise"
    } else {
        "fadvise"
    }
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
