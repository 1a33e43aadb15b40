//! File fragmentation on a mounted path, from the FIEMAP ioctl.
//!
//! Source: Linux Documentation/filesystems/fiemap.rst and
//! include/uapi/linux/fiemap.h (struct fiemap, struct fiemap_extent,
//! FIEMAP_FLAG_SYNC, FIEMAP_EXTENT_LAST); FS_IOC_FIEMAP = _IOWR('f', 11,
//! struct fiemap) = 0xC020660B.

pub use super::fragreport::FragReport;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

const FS_IOC_FIEMAP: u64 = 0xC020_660B;
const FIEMAP_FLAG_SYNC: u32 = 0x1;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// struct fiemap header, then struct fiemap_extent entries.
const HEADER: usize = 32;
const EXTENT: usize = 56;
/// Extents fetched per ioctl when reading a file's extent list.
const BATCH: usize = 256;

/// Walk regular files under `dir` (not following symlinks, not crossing
/// into other filesystems), at most `limit_files`, and count their extents.
pub fn fragmentation(dir: &Path, limit_files: usize) -> crate::Result<FragReport> {
    let meta = std::fs::metadata(dir).map_err(|e| crate::Error::io(dir, e))?;
    if !meta.is_dir() {
        return Err(crate::Error::work(format!(
            "{}: not a directory",
            dir.display()
        )));
    }
    let dev = meta.dev();
    let mut r = FragReport {
        supported: true,
        ..FragReport::default()
    };
    let mut t = Tally::default();
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    'walk: while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            r.errors += 1;
            continue;
        };
        for ent in rd {
            let Ok(ent) = ent else {
                r.errors += 1;
                continue;
            };
            let path = ent.path();
            let Ok(m) = std::fs::symlink_metadata(&path) else {
                r.errors += 1;
                continue;
            };
            if m.dev() != dev {
                continue;
            }
            if m.is_dir() {
                stack.push(path);
                continue;
            }
            if !m.is_file() {
                continue;
            }
            if r.files_examined as usize >= limit_files {
                r.truncated = true;
                break 'walk;
            }
            if let Err(e) = examine(&path, &mut r, &mut t) {
                return Ok(not_supported(&path, &e));
            }
        }
    }
    if r.files_examined == 0 && r.errors == 0 {
        // Nothing to ask: ask about the directory itself, so `supported`
        // still means something.
        if let Ok(f) = std::fs::File::open(dir) {
            if let Err(e) = extent_count(&f) {
                if unsupported(&e) {
                    return Ok(not_supported(dir, &e));
                }
            }
        }
    }
    if t.with_data > 0 {
        r.mean_extents = r.total_extents as f64 / t.with_data as f64;
        r.mean_fragments = t.total_fragments as f64 / t.with_data as f64;
    }
    Ok(r)
}

/// Sums over the files with data, for the means.
#[derive(Default)]
struct Tally {
    with_data: u64,
    total_fragments: u64,
}

/// Count one regular file's extents into `r`. Err: the driver does not
/// answer FIEMAP.
fn examine(path: &Path, r: &mut FragReport, t: &mut Tally) -> Result<(), std::io::Error> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(_) => {
            r.errors += 1;
            return Ok(());
        }
    };
    match extent_count(&file) {
        Ok(n) => {
            r.files_examined += 1;
            if n == 0 {
                r.files_empty += 1;
                return Ok(());
            }
            t.with_data += 1;
            r.total_extents += n;
            let frags = if n > 1 {
                r.files_multi_extent += 1;
                fragments(&file).unwrap_or(n)
            } else {
                1
            };
            if frags > 1 {
                r.files_fragmented += 1;
            }
            t.total_fragments += frags;
            r.max_fragments = r.max_fragments.max(frags);
            if n > r.max_extents {
                r.max_extents = n;
                r.max_extents_path = Some(path.display().to_string());
            }
        }
        Err(e) if unsupported(&e) => return Err(e),
        Err(_) => r.errors += 1,
    }
    Ok(())
}

fn unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY)
    )
}

fn not_supported(path: &Path, e: &std::io::Error) -> FragReport {
    FragReport {
        supported: false,
        reason: Some(format!(
            "the filesystem driver does not answer FIEMAP ({e}, on {})",
            path.display()
        )),
        ..FragReport::default()
    }
}

/// One FIEMAP call from `start`, room for `count` extents; returns
/// fm_mapped_extents and the raw buffer.
fn fiemap(file: &std::fs::File, start: u64, count: usize) -> std::io::Result<(u32, Vec<u64>)> {
    use std::os::unix::io::AsRawFd;
    // u64 words keep the buffer aligned for the kernel's struct layout.
    let mut buf = vec![0u64; (HEADER + count * EXTENT) / 8];
    buf[0] = start; // fm_start
    buf[1] = u64::MAX; // fm_length: to the end (FIEMAP_MAX_OFFSET)
                       // fm_flags (low half of word 2), fm_extent_count (low half of word 3),
                       // little- or big-endian alike through the u32 view below.
    {
        let words: &mut [u32] = unsafe {
            std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u32>(), buf.len() * 2)
        };
        words[4] = FIEMAP_FLAG_SYNC;
        words[6] = count as u32;
    }
    // SAFETY: buf holds a struct fiemap followed by `count` extents, as the
    // ioctl expects; the kernel writes only within fm_extent_count entries.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, buf.as_mut_ptr()) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mapped = unsafe { *buf.as_ptr().cast::<u32>().add(5) };
    Ok((mapped, buf))
}

/// fm_extent_count = 0: the kernel only counts (fm_mapped_extents).
fn extent_count(file: &std::fs::File) -> std::io::Result<u64> {
    fiemap(file, 0, 0).map(|(n, _)| u64::from(n))
}

/// Physically contiguous runs across the file's extents, read in batches.
fn fragments(file: &std::fs::File) -> std::io::Result<u64> {
    let mut start = 0u64;
    let mut runs = 0u64;
    let mut prev_end: Option<u64> = None;
    // A bound on the batches, in case the kernel keeps answering.
    for _ in 0..1_000_000 {
        let (n, buf) = fiemap(file, start, BATCH)?;
        if n == 0 {
            break;
        }
        let mut last = false;
        for i in 0..(n as usize).min(BATCH) {
            let w = (HEADER + i * EXTENT) / 8;
            let (logical, physical, length) = (buf[w], buf[w + 1], buf[w + 2]);
            let flags = unsafe { *buf.as_ptr().add(w + 5).cast::<u32>() };
            if prev_end != Some(physical) {
                runs += 1;
            }
            prev_end = physical.checked_add(length);
            start = logical.saturating_add(length);
            last = flags & FIEMAP_EXTENT_LAST != 0;
        }
        if last {
            break;
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_dir_is_an_error() {
        assert!(fragmentation(Path::new("/nonexistent/fsfit"), 10).is_err());
    }

    #[test]
    fn counts_or_says_unsupported() {
        // Whatever backs the temp dir (ext4, tmpfs, overlay), the report is
        // coherent and the walk terminates.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), vec![7u8; 100_000]).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b"), vec![1u8; 5000]).unwrap();
        let r = fragmentation(dir.path(), 100).unwrap();
        if r.supported {
            assert_eq!(r.files_examined, 3, "{r:?}");
            assert!(r.files_empty >= 1);
            assert!(r.max_extents >= 1);
        } else {
            assert!(r.reason.is_some());
        }
        let r = fragmentation(dir.path(), 1).unwrap();
        assert!(
            !r.supported || (r.files_examined == 1 && r.truncated),
            "{r:?}"
        );
    }
}
