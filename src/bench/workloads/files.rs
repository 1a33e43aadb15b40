//! The file operations workloads are made of, each counting its system calls.

use super::Ctx;
use crate::{Error, Result};
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// Block size for reads and writes (the documents copy in 1 MiB blocks).
pub const BLOCK: usize = 1 << 20;

#[cfg(target_os = "linux")]
pub fn syncfs(path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(Error::work(format!(
            "syncfs {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

#[cfg(windows)]
pub use super::windows::syncfs;

/// The volume is full: ENOSPC, or Windows' ERROR_DISK_FULL and
/// ERROR_HANDLE_DISK_FULL.
fn full(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    let codes = [libc::ENOSPC];
    #[cfg(windows)]
    let codes = [112, 39];
    e.raw_os_error().is_some_and(|c| codes.contains(&c))
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    if full(&e) {
        Error::work(format!("{}: the volume is full", path.display()))
    } else {
        Error::io(path, e)
    }
}

pub fn mkdir(ctx: &mut Ctx, path: &Path) -> Result<()> {
    ctx.ops += 1;
    match std::fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_err(path, e)),
    }
}

/// Write `size` bytes of content `id`; fsync inside if `fsync`.
pub fn write(
    ctx: &mut Ctx,
    path: &Path,
    id: u64,
    size: u64,
    fsync: bool,
    buf: &mut [u8],
) -> Result<()> {
    let mut f = crate::fs::policy::create(path, ctx.through).map_err(|e| io_err(path, e))?;
    ctx.ops += 1;
    let mut off = 0u64;
    // The buffer's content for the previous block, if it holds a whole one.
    let mut held: Option<u64> = None;
    while off < size {
        let n = (size - off).min(buf.len() as u64) as usize;
        match held {
            // Only the page stamps differ from the last block: no copy.
            Some(prev) if n == buf.len() => ctx.data.advance(id, prev, off, buf),
            _ => ctx.data.fill(id, off, &mut buf[..n]),
        }
        held = (n == buf.len()).then_some(off);
        f.write_all(&buf[..n]).map_err(|e| io_err(path, e))?;
        ctx.ops += 1;
        off += n as u64;
        if off % (64 << 20) == 0 {
            ctx.check_cancel()?;
        }
    }
    if fsync {
        f.sync_all().map_err(|e| io_err(path, e))?;
        ctx.ops += 1;
    }
    ctx.ops += 1; // close
    Ok(())
}

/// Read a whole file; returns its length. On Windows the file is opened
/// unbuffered and read into the sector-aligned part of `buf` (see
/// workloads/windows.rs), so the read comes from the drive, not the cache.
pub fn read(ctx: &mut Ctx, path: &Path, buf: &mut [u8]) -> Result<u64> {
    #[cfg(windows)]
    let (mut f, buf) = super::windows::open_unbuffered(path, buf).map_err(|e| io_err(path, e))?;
    #[cfg(not(windows))]
    let mut f = File::open(path).map_err(|e| io_err(path, e))?;
    ctx.ops += 1;
    let mut total = 0u64;
    loop {
        let n = f.read(buf).map_err(|e| io_err(path, e))?;
        ctx.ops += 1;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total % (64 << 20) == 0 {
            ctx.check_cancel()?;
        }
    }
    ctx.ops += 1;
    Ok(total)
}

/// Read a file back and compare it with content `id`, untimed.
pub fn verify(ctx: &Ctx, path: &Path, id: u64, size: u64) -> Result<()> {
    let mut f = File::open(path).map_err(|e| io_err(path, e))?;
    let mut got = vec![0u8; BLOCK];
    let mut want = vec![0u8; BLOCK];
    let mut off = 0u64;
    loop {
        let n = f.read(&mut got).map_err(|e| io_err(path, e))?;
        if n == 0 {
            break;
        }
        ctx.data.fill(id, off, &mut want[..n]);
        if got[..n] != want[..n] {
            return Err(Error::work(format!(
                "{}: contents differ from what was written near byte {off}",
                path.display()
            )));
        }
        off += n as u64;
    }
    if off != size {
        return Err(Error::work(format!(
            "{}: {off} bytes read back, {size} written",
            path.display()
        )));
    }
    Ok(())
}

pub fn remove(ctx: &mut Ctx, path: &Path) -> Result<()> {
    ctx.ops += 1;
    std::fs::remove_file(path).map_err(|e| io_err(path, e))
}

/// Remove a tree, counting one call per entry.
pub fn remove_tree(ctx: &mut Ctx, path: &Path) -> Result<()> {
    let rd = match std::fs::read_dir(path) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(path, e)),
    };
    ctx.ops += 1;
    for e in rd {
        let e = e.map_err(|e| io_err(path, e))?;
        ctx.ops += 1;
        let p = e.path();
        if e.file_type().map_err(|e| io_err(&p, e))?.is_dir() {
            remove_tree(ctx, &p)?;
        } else {
            remove(ctx, &p)?;
        }
    }
    ctx.ops += 1;
    std::fs::remove_dir(path).map_err(|e| io_err(path, e))
}
