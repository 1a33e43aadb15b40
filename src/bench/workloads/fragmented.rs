//! A fragmented volume (003: writes 50× slower on a fragmented card): fill
//! the volume with interleaved 1 MiB and 4 MiB files, delete the 1 MiB ones,
//! then write one file into the holes (fsync) and read it back cold. The
//! number of extents the file ended up in is recorded where the driver
//! answers FIEMAP, so the reader can see whether it really was fragmented.

use super::files::{self, BLOCK};
use super::{Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::{Error, Result};
use std::path::PathBuf;

const HOLE: u64 = 1 << 20;
const KEEP: u64 = 4 << 20;
const ID: u64 = 7_000_000;

/// How much of the free space the fill may take, and at most how much.
fn fill_budget(scale: f64, free: u64) -> u64 {
    let cap = ((2u64 << 30) as f64 * scale) as u64;
    (free / 100 * 90).min(cap.max(8 * (HOLE + KEEP)))
}

fn marker(ctx: &Ctx) -> PathBuf {
    ctx.dir("frag").join("filled")
}

fn target(ctx: &Ctx) -> PathBuf {
    ctx.dir("frag").join("fragmented.bin")
}

fn free_bytes(ctx: &Ctx) -> Result<u64> {
    crate::bench::measure::free_space(ctx.root)
}

/// The holes' total size a marker records, if the fill it describes was
/// made at this scale: one made at another scale is not reused, so that
/// growing the scale (`--quick`, `--min-time`) grows the fragmented file
/// instead of timing the first, smallest fill's again.
fn filled_at(text: &str, scale: f64) -> Option<u64> {
    let (holes, at) = text.trim().split_once(' ')?;
    let at: f64 = at.parse().ok()?;
    (at == scale).then_some(())?;
    holes.parse().ok()
}

/// Fill and punch holes (untimed); returns the size the holes add up to.
fn ensure_holes(ctx: &mut Ctx) -> Result<u64> {
    if let Ok(text) = std::fs::read_to_string(marker(ctx)) {
        if let Some(h) = filled_at(&text, ctx.scale) {
            return Ok(h);
        }
    }
    let dir = ctx.dir("frag");
    files::remove_tree(ctx, &dir)?;
    files::mkdir(ctx, &dir)?;
    let budget = fill_budget(ctx.scale, free_bytes(ctx)?);
    let mut buf = vec![0u8; BLOCK];
    let (mut used, mut i, mut holes) = (0u64, 0u64, 0u64);
    while used + HOLE + KEEP <= budget {
        ctx.check_cancel()?;
        files::write(
            ctx,
            &dir.join(format!("hole{i:06}")),
            ID + 1 + 2 * i,
            HOLE,
            false,
            &mut buf,
        )?;
        files::write(
            ctx,
            &dir.join(format!("keep{i:06}")),
            ID + 2 + 2 * i,
            KEEP,
            false,
            &mut buf,
        )?;
        used += HOLE + KEEP;
        i += 1;
    }
    ctx.syncfs()?;
    for j in 0..i {
        files::remove(ctx, &dir.join(format!("hole{j:06}")))?;
        holes += HOLE;
    }
    ctx.syncfs()?;
    std::fs::write(marker(ctx), format!("{holes} {}", ctx.scale))
        .map_err(|e| Error::work(e.to_string()))?;
    Ok(holes)
}

/// The file's size: most of the holes, so it cannot fit in one free run
/// unless the volume has free space beyond the fill.
fn size_of(holes: u64) -> u64 {
    (holes / 10 * 9).max(HOLE)
}

/// Extents of a file: none read off Linux (Windows would answer
/// FSCTL_GET_RETRIEVAL_POINTERS; not asked yet, so the field stays absent).
#[cfg(not(target_os = "linux"))]
pub fn extents(_: &std::path::Path) -> Option<u32> {
    None
}

/// Extents of a file by FIEMAP, if the driver answers it.
#[cfg(target_os = "linux")]
pub fn extents(path: &std::path::Path) -> Option<u32> {
    #[repr(C)]
    struct Fiemap {
        start: u64,
        length: u64,
        flags: u32,
        mapped: u32,
        count: u32,
        reserved: u32,
    }
    const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B; // _IOWR('f', 11, struct fiemap)
    let f = std::fs::File::open(path).ok()?;
    let mut m = Fiemap {
        start: 0,
        length: u64::MAX,
        flags: 1,
        mapped: 0,
        count: 0,
        reserved: 0,
    };
    use std::os::fd::AsRawFd;
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FIEMAP as _, &mut m) };
    (rc == 0).then_some(m.mapped)
}

pub struct FragWrite;
pub struct FragRead;

pub static ALL: [&'static dyn Workload; 2] = [&FragWrite, &FragRead];

impl Workload for FragWrite {
    fn kind(&self) -> &'static Kind {
        &kinds::FRAGMENTED_WRITE
    }
    fn family(&self) -> &'static str {
        "frag"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "fill up to {} of the volume with 1 MiB and 4 MiB files, delete the 1 MiB ones, write one file into the holes, fsync",
            crate::units::iec(((2u64 << 30) as f64 * scale) as u64)
        )
    }
    fn space_needed(&self, _scale: f64) -> u64 {
        8 * (HOLE + KEEP)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure_holes(ctx)?;
        let t = target(ctx);
        if t.exists() {
            files::remove(ctx, &t)?;
        }
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let holes = ensure_holes(ctx)?;
        let n = size_of(holes);
        files::write(ctx, &target(ctx), ID, n, true, &mut vec![0u8; BLOCK])?;
        Ok(Outcome {
            files: 1,
            bytes: n,
            extents: extents(&target(ctx)),
        })
    }
}

impl Workload for FragRead {
    fn kind(&self) -> &'static Kind {
        &kinds::FRAGMENTED_READ
    }
    fn family(&self) -> &'static str {
        "frag"
    }
    fn describe(&self, _scale: f64) -> String {
        "read that fragmented file back, cold".into()
    }
    fn space_needed(&self, _scale: f64) -> u64 {
        8 * (HOLE + KEEP)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        let holes = ensure_holes(ctx)?;
        let t = target(ctx);
        if std::fs::metadata(&t).ok().map(|m| m.len()) != Some(size_of(holes)) {
            files::write(ctx, &t, ID, size_of(holes), true, &mut vec![0u8; BLOCK])?;
        }
        Ok(())
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let bytes = files::read(ctx, &target(ctx), &mut vec![0u8; BLOCK])?;
        Ok(Outcome {
            files: 1,
            bytes,
            extents: None,
        })
    }
    fn verify(&self, ctx: &mut Ctx) -> Result<()> {
        let holes = ensure_holes(ctx)?;
        files::verify(ctx, &target(ctx), ID, size_of(holes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_is_reused_only_at_its_own_scale() {
        assert_eq!(filled_at("8388608 0.02\n", 0.02), Some(8 << 20));
        assert_eq!(filled_at("8388608 0.02", 0.6), None, "grown: fill again");
        // A marker from before the scale was recorded: fill again.
        assert_eq!(filled_at("8388608", 0.02), None);
        assert_eq!(filled_at("x 0.02", 0.02), None);
    }
}
