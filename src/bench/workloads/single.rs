//! One big file written in 1 MiB blocks, read back, deleted: 1 GiB at scale
//! 1 (000 copies a 5.3 GB ISO with rsync; 002 a 1 GB file).

use super::files::{self, BLOCK};
use super::{Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::Result;
use std::path::PathBuf;

const ID: u64 = 42;

fn size(scale: f64) -> u64 {
    (((1u64 << 30) as f64 * scale) as u64).max(1 << 20)
}

fn path(ctx: &Ctx) -> PathBuf {
    ctx.dir("single").join("single.bin")
}

fn ensure(ctx: &mut Ctx) -> Result<()> {
    let p = path(ctx);
    let want = size(ctx.scale);
    if std::fs::metadata(&p).ok().map(|m| m.len()) != Some(want) {
        let dir = ctx.dir("single");
        files::mkdir(ctx, &dir)?;
        files::write(ctx, &p, ID, want, true, &mut vec![0u8; BLOCK])?;
    }
    Ok(())
}

pub struct SingleWrite;
pub struct SingleRead;
pub struct SingleDelete;

pub static ALL: [&'static dyn Workload; 3] = [&SingleWrite, &SingleRead, &SingleDelete];

impl Workload for SingleWrite {
    fn kind(&self) -> &'static Kind {
        &kinds::SINGLE_WRITE
    }
    fn family(&self) -> &'static str {
        "single"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "write one {} file in 1 MiB blocks, fsync",
            crate::units::iec(size(scale))
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        size(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        let dir = ctx.dir("single");
        files::remove_tree(ctx, &dir)?;
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let dir = ctx.dir("single");
        files::mkdir(ctx, &dir)?;
        let n = size(ctx.scale);
        files::write(ctx, &path(ctx), ID, n, true, &mut vec![0u8; BLOCK])?;
        let extents = super::fragmented::extents(&path(ctx));
        Ok(Outcome {
            files: 1,
            bytes: n,
            extents,
        })
    }
}

impl Workload for SingleRead {
    fn kind(&self) -> &'static Kind {
        &kinds::SINGLE_READ
    }
    fn family(&self) -> &'static str {
        "single"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "read that {} file back in 1 MiB blocks, cold",
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
        let bytes = files::read(ctx, &path(ctx), &mut vec![0u8; BLOCK])?;
        Ok(Outcome {
            files: 1,
            bytes,
            extents: None,
        })
    }
    fn verify(&self, ctx: &mut Ctx) -> Result<()> {
        files::verify(ctx, &path(ctx), ID, size(ctx.scale))
    }
}

impl Workload for SingleDelete {
    fn kind(&self) -> &'static Kind {
        &kinds::SINGLE_DELETE
    }
    fn family(&self) -> &'static str {
        "single"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "delete that {} file, syncfs",
            crate::units::iec(size(scale))
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        size(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx)?;
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        files::remove(ctx, &path(ctx))?;
        ctx.syncfs()?;
        Ok(Outcome {
            files: 1,
            bytes: 0,
            extents: None,
        })
    }
}
