//! What the workloads' file operations are on Windows, where there is no
//! syncfs and no way to drop the cache of a file a user may read:
//!
//! - durable: a file written with fsync ends with FlushFileBuffers (what
//!   std's `sync_all` calls); "syncfs" flushes the whole volume when fsfit
//!   may open it (administrator), else every file and folder under the
//!   workload's folder, which is what the workloads wrote there;
//! - uncached reads: files are read with FILE_FLAG_NO_BUFFERING, which reads
//!   the drive whatever the cache holds, into sector-aligned memory in
//!   whole sectors (4096 covers 512-byte and 4 KiB sectors).

use crate::{Error, Result};
use std::fs::File;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;
use windows_sys::Win32::Storage::FileSystem::{
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_NO_BUFFERING, FILE_SHARE_READ, FILE_SHARE_WRITE,
};

/// The alignment unbuffered reads need: a multiple of every sector size.
const ALIGN: usize = 4096;

/// `path` opened for unbuffered reading, and the sector-aligned part of
/// `buf` to read it with (a whole number of `ALIGN` blocks). A buffer too
/// small to hold one aligned block is read through the cache.
pub fn open_unbuffered<'b>(
    path: &Path,
    buf: &'b mut [u8],
) -> std::io::Result<(File, &'b mut [u8])> {
    let skew = buf.as_ptr().align_offset(ALIGN);
    let usable = buf.len().saturating_sub(skew) / ALIGN * ALIGN;
    if skew == usize::MAX || usable == 0 {
        return Ok((File::open(path)?, buf));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_NO_BUFFERING)
        .open(path)?;
    Ok((f, &mut buf[skew..skew + usable]))
}

/// Everything written under `root` made durable (see the module's note).
pub fn syncfs(root: &Path) -> Result<()> {
    if flush_volume(root) {
        return Ok(());
    }
    flush_tree(root)
}

/// FlushFileBuffers on the volume holding `root`, where it may be opened
/// for writing (administrator rights); false where it may not.
fn flush_volume(root: &Path) -> bool {
    let Some(letter) = root
        .to_str()
        .and_then(|s| s.strip_prefix(r"\\?\").or(Some(s)))
        .and_then(|s| s.get(..2))
        .filter(|d| d.as_bytes()[0].is_ascii_alphabetic() && d.as_bytes()[1] == b':')
    else {
        return false;
    };
    std::fs::OpenOptions::new()
        .write(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .open(format!(r"\\.\{letter}"))
        .and_then(|v| v.sync_all())
        .is_ok()
}

/// FlushFileBuffers on every file under `dir`, and on the folders (their
/// entries), which filesystems that cannot flush a folder refuse harmlessly.
fn flush_tree(dir: &Path) -> Result<()> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for e in rd {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let p = e.path();
        if e.file_type().map_err(|e| Error::io(&p, e))?.is_dir() {
            flush_tree(&p)?;
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(&p, e))?;
        }
    }
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(dir)
        .and_then(|d| d.sync_all());
    Ok(())
}
