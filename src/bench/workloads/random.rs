//! Random 4 KiB requests inside one file written before: what iozone's
//! random write and read (`-i 2 -r 4k`), fio's `randwrite`/`randread` and the
//! published F2FS figures (random 4 KiB IOPS on SD cards and eMMC) measure.
//!
//! The writes are buffered and made durable by one fsync at the end (iozone
//! with `-e`; the records timed buffered writes), so what reaches the device
//! is the filesystem's answer to scattered overwrites after writeback has
//! sorted them: in place (ext4, XFS, vfat, exFAT) or appended to a log
//! (f2fs, btrfs). Each 4 KiB block is written at most once a run (a quarter
//! of the file's blocks, in a random order), so every byte counted reaches
//! the device. The reads are cold with readahead off, one block a request.

use super::files::{self, BLOCK};
use super::sets::mix;
use super::{Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::{Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The request size.
const IO: u64 = 4096;
/// The file's contents before the random writes, and the blocks they write.
const BASE_ID: u64 = 8_000_000;
const WRITE_ID: u64 = 8_000_001;
/// Where the writes and the reads draw their offsets from.
const WRITE_SEED: u64 = 0x5752_4954;
const READ_SEED: u64 = 0x5245_4144;

/// The file: 256 MiB at scale 1 (at least 4 MiB), whole blocks.
fn size(scale: f64) -> u64 {
    let bytes = ((256u64 << 20) as f64 * scale) as u64;
    (bytes / IO * IO).max(4 << 20)
}

/// `size / 16 KiB` distinct blocks of the file (a quarter of them), in the
/// order `seed` draws them.
fn offsets(scale: f64, seed: u64) -> Vec<u64> {
    let slots = size(scale) / IO;
    let n = (slots / 4) as usize;
    let mut seen = vec![false; slots as usize];
    let mut out = Vec::with_capacity(n);
    let mut j = 0u64;
    while out.len() < n {
        let s = mix(seed ^ j) % slots;
        j += 1;
        if !std::mem::replace(&mut seen[s as usize], true) {
            out.push(s * IO);
        }
    }
    out
}

fn path(ctx: &Ctx) -> PathBuf {
    ctx.dir("random").join("random.bin")
}

/// The file at this scale's size, written whole and durable (untimed).
fn ensure(ctx: &mut Ctx) -> Result<()> {
    let p = path(ctx);
    let want = size(ctx.scale);
    if std::fs::metadata(&p).ok().map(|m| m.len()) != Some(want) {
        let dir = ctx.dir("random");
        files::remove_tree(ctx, &dir)?;
        files::mkdir(ctx, &dir)?;
        files::write(ctx, &p, BASE_ID, want, true, &mut vec![0u8; BLOCK])?;
    }
    ctx.syncfs()
}

#[cfg(unix)]
fn write_at(f: &File, buf: &[u8], off: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, buf, off)
}

#[cfg(windows)]
fn write_at(f: &File, buf: &[u8], off: u64) -> std::io::Result<()> {
    let n = std::os::windows::fs::FileExt::seek_write(f, buf, off)?;
    if n == buf.len() {
        Ok(())
    } else {
        Err(std::io::Error::other("short write"))
    }
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, off)
}

#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    let n = std::os::windows::fs::FileExt::seek_read(f, buf, off)?;
    if n == buf.len() {
        Ok(())
    } else {
        Err(std::io::Error::other("short read"))
    }
}

/// The file opened for reading block by block from the device: readahead
/// off on Linux (it would read the neighbours of each block too); on
/// Windows unbuffered, into the sector-aligned part of `buf`.
fn open_random<'b>(path: &Path, buf: &'b mut [u8]) -> std::io::Result<(File, &'b mut [u8])> {
    #[cfg(windows)]
    return super::windows::open_unbuffered(path, buf);
    #[cfg(not(windows))]
    {
        let f = File::open(path)?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // Advice only: a driver that ignores it reads more, never wrong.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
        }
        Ok((f, buf))
    }
}

/// Check every block of the file, untimed: the blocks the writes draw hold
/// the writes' contents if they ran (judged by the first of them), every
/// other block the file's first contents.
fn verify_blocks(ctx: &Ctx) -> Result<()> {
    let p = path(ctx);
    let written = offsets(ctx.scale, WRITE_SEED);
    let mut is_written = vec![false; (size(ctx.scale) / IO) as usize];
    for o in &written {
        is_written[(o / IO) as usize] = true;
    }
    let f = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let (mut got, mut want) = (vec![0u8; IO as usize], vec![0u8; IO as usize]);
    let ran = written.first().is_some_and(|&o| {
        ctx.data.fill(WRITE_ID, o, &mut want);
        read_at(&f, &mut got, o).is_ok() && got == want
    });
    for (i, &w) in is_written.iter().enumerate() {
        let off = i as u64 * IO;
        read_at(&f, &mut got, off).map_err(|e| Error::io(&p, e))?;
        let id = if w && ran { WRITE_ID } else { BASE_ID };
        ctx.data.fill(id, off, &mut want);
        if got != want {
            return Err(Error::work(format!(
                "{}: contents differ from what was written at byte {off}",
                p.display()
            )));
        }
    }
    Ok(())
}

pub struct RandomWrite;
pub struct RandomRead;

pub static ALL: [&'static dyn Workload; 2] = [&RandomWrite, &RandomRead];

impl Workload for RandomWrite {
    fn kind(&self) -> &'static Kind {
        &kinds::RANDOM_WRITE
    }
    fn family(&self) -> &'static str {
        "random"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "write {} random 4 KiB blocks of a {} file written before, buffered, fsync",
            offsets(scale, WRITE_SEED).len(),
            crate::units::iec(size(scale))
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        size(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx)
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let p = path(ctx);
        let f = crate::fs::policy::writing(ctx.through)
            .open(&p)
            .map_err(|e| Error::io(&p, e))?;
        ctx.ops += 1;
        let mut buf = vec![0u8; IO as usize];
        let offs = offsets(ctx.scale, WRITE_SEED);
        for (i, &off) in offs.iter().enumerate() {
            if i % 4096 == 0 {
                ctx.check_cancel()?;
            }
            ctx.data.fill(WRITE_ID, off, &mut buf);
            write_at(&f, &buf, off).map_err(|e| Error::io(&p, e))?;
            ctx.ops += 1;
        }
        f.sync_all().map_err(|e| Error::io(&p, e))?;
        ctx.ops += 2; // fsync, close
        Ok(Outcome {
            files: 1,
            bytes: offs.len() as u64 * IO,
            extents: None,
        })
    }
    fn verify(&self, ctx: &mut Ctx) -> Result<()> {
        verify_blocks(ctx)
    }
}

impl Workload for RandomRead {
    fn kind(&self) -> &'static Kind {
        &kinds::RANDOM_READ
    }
    fn family(&self) -> &'static str {
        "random"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "read {} random 4 KiB blocks of that file, cold, readahead off",
            offsets(scale, READ_SEED).len()
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        size(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx)
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let p = path(ctx);
        // Twice the block, so an aligned block fits wherever it starts.
        let mut mem = vec![0u8; 2 * IO as usize];
        let (f, buf) = open_random(&p, &mut mem).map_err(|e| Error::io(&p, e))?;
        ctx.ops += 1;
        let offs = offsets(ctx.scale, READ_SEED);
        for (i, &off) in offs.iter().enumerate() {
            if i % 4096 == 0 {
                ctx.check_cancel()?;
            }
            read_at(&f, &mut buf[..IO as usize], off).map_err(|e| Error::io(&p, e))?;
            ctx.ops += 1;
        }
        ctx.ops += 1; // close
        Ok(Outcome {
            files: 1,
            bytes: offs.len() as u64 * IO,
            extents: None,
        })
    }
    fn verify(&self, ctx: &mut Ctx) -> Result<()> {
        verify_blocks(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_of_the_blocks_each_once_in_no_order() {
        let o = offsets(1.0, WRITE_SEED);
        assert_eq!(size(1.0), 256 << 20);
        assert_eq!(o.len(), (256 << 20) / 4096 / 4);
        let mut sorted = o.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), o.len(), "each block once");
        assert!(o.iter().all(|x| x % IO == 0 && *x < size(1.0)));
        assert_ne!(sorted, o, "not in the file's order");
        // Reads draw other blocks; small scales keep a 4 MiB file.
        assert_ne!(offsets(1.0, READ_SEED), o);
        assert_eq!(size(0.001), 4 << 20);
        assert_eq!(offsets(0.001, WRITE_SEED).len(), 256);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_check_finds_a_block_written_in_the_wrong_place() {
        let dir = tempfile::tempdir().unwrap();
        let data = crate::bench::workloads::Data::new(1);
        let mut ctx = Ctx {
            root: dir.path(),
            scale: 0.001,
            data: &data,
            ops: 0,
            through: false,
        };
        RandomWrite.prepare(&mut ctx).unwrap();
        verify_blocks(&ctx).unwrap();
        let wrote = RandomWrite.run(&mut ctx).unwrap();
        assert_eq!(wrote.bytes, 256 * IO);
        verify_blocks(&ctx).unwrap();
        assert_eq!(RandomRead.run(&mut ctx).unwrap().bytes, 256 * IO);
        // One of the writes' blocks copied one block on, over a block they
        // did not draw: the check must see it.
        let written = offsets(0.001, WRITE_SEED);
        let o = *written
            .iter()
            .find(|&&o| o + IO < size(0.001) && !written.contains(&(o + IO)))
            .unwrap();
        let mut buf = vec![0u8; IO as usize];
        data.fill(WRITE_ID, o, &mut buf);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path(&ctx))
            .unwrap();
        write_at(&f, &buf, o + IO).unwrap();
        let e = verify_blocks(&ctx).unwrap_err().to_string();
        assert!(e.contains(&format!("byte {}", o + IO)), "{e}");
    }
}
