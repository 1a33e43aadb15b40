//! Sets of files written and read back: small (18,000 files, 1 GiB, sizes
//! spread like a real small-file set: 001 tests 1-2), tiny (10,000 × 1 KiB:
//! 002), medium (100 files, 1 GiB: 001 tests 3-4), large (10 files, 1 GiB:
//! 001 tests 5-6). Sizes are at --scale 1.

use super::files::{self, BLOCK};
use super::{scaled, Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::Result;
use std::path::PathBuf;

const GIB: u64 = 1 << 30;

/// One file of a set: where it goes, what it holds, how long it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpec {
    pub rel: PathBuf,
    pub id: u64,
    pub size: u64,
}

/// A deterministic 64-bit sequence (splitmix64) for sizes and names.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `count` sizes spread log-uniformly from 2^lo to 2^hi bytes, then scaled
/// so they add up to `total`.
pub fn spread_sizes(count: u64, lo: u32, hi: u32, total: u64, seed: u64) -> Vec<u64> {
    let raw: Vec<f64> = (0..count)
        .map(|i| {
            let u = (mix(seed ^ i) >> 11) as f64 / (1u64 << 53) as f64;
            2f64.powf(lo as f64 + u * (hi - lo) as f64)
        })
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.iter()
        .map(|r| ((r / sum * total as f64).round() as u64).max(1))
        .collect()
}

#[derive(Clone, Copy)]
pub enum Sync {
    /// fsync every file inside the timing.
    PerFile,
    /// syncfs once at the end, inside the timing (as `cp` then `sync`).
    AtEnd,
}

pub struct Set {
    pub family: &'static str,
    /// What writing the set and reading it back are (bench/kinds.rs).
    pub write: &'static Kind,
    pub read: &'static Kind,
    pub what: &'static str,
    pub sync: Sync,
    pub layout: fn(f64) -> Vec<FileSpec>,
}

pub(super) fn in_folders(sizes: Vec<u64>, per_folder: u64, id_base: u64) -> Vec<FileSpec> {
    sizes
        .into_iter()
        .enumerate()
        .map(|(i, size)| FileSpec {
            rel: PathBuf::from(format!("d{:04}/f{:06}.bin", i as u64 / per_folder, i)),
            id: id_base + i as u64,
            size,
        })
        .collect()
}

/// `count` files of `size` at scale 1. Below it the files shrink; above
/// it they keep their size and there are more of them: a workload that
/// measures what each file of a given size costs (its write-through, its
/// open) is grown by repeating it, not by files it was never about.
pub(super) fn shrunk_or_repeated(count: u64, size: u64, scale: f64) -> Vec<u64> {
    if scale <= 1.0 {
        let each = ((size as f64 * scale) as u64).max(4096);
        vec![each; count as usize]
    } else {
        vec![size; (count as f64 * scale).round() as usize]
    }
}

fn small(scale: f64) -> Vec<FileSpec> {
    let n = scaled(18_000, scale, 20);
    let total = (GIB as f64 * n as f64 / 18_000.0) as u64;
    in_folders(spread_sizes(n, 9, 19, total, 1), 100, 1_000_000)
}

fn tiny(scale: f64) -> Vec<FileSpec> {
    in_folders(
        vec![1024; scaled(10_000, scale, 20) as usize],
        500,
        2_000_000,
    )
}

fn even(count: u64, scale: f64, id_base: u64) -> Vec<FileSpec> {
    let each = ((GIB as f64 * scale) as u64 / count).max(4096);
    in_folders(vec![each; count as usize], count, id_base)
}

fn medium(scale: f64) -> Vec<FileSpec> {
    even(100, scale, 3_000_000)
}

fn large(scale: f64) -> Vec<FileSpec> {
    even(10, scale, 4_000_000)
}

pub static SMALL: Set = Set {
    family: "small",
    write: &kinds::SMALL_WRITE,
    read: &kinds::SMALL_READ,
    what: "small files, sizes spread 512 B-512 KiB",
    sync: Sync::AtEnd,
    layout: small,
};
pub static TINY: Set = Set {
    family: "tiny",
    write: &kinds::TINY_WRITE,
    read: &kinds::TINY_READ,
    what: "files of 1 KiB",
    sync: Sync::AtEnd,
    layout: tiny,
};
pub static MEDIUM: Set = Set {
    family: "medium",
    write: &kinds::MEDIUM_WRITE,
    read: &kinds::MEDIUM_READ,
    what: "medium files",
    sync: Sync::PerFile,
    layout: medium,
};
pub static LARGE: Set = Set {
    family: "large",
    write: &kinds::LARGE_WRITE,
    read: &kinds::LARGE_READ,
    what: "large files",
    sync: Sync::PerFile,
    layout: large,
};

pub struct Write(pub &'static Set);
pub struct Read(pub &'static Set);

pub static ALL: [&'static dyn Workload; 8] = [
    &Write(&SMALL),
    &Read(&SMALL),
    &Write(&TINY),
    &Read(&TINY),
    &Write(&MEDIUM),
    &Read(&MEDIUM),
    &Write(&LARGE),
    &Read(&LARGE),
];

/// One line for `--list`: a write says how it syncs, a read that it is cold.
fn describe_set(set: &Set, kind: &Kind, scale: f64) -> String {
    let l = (set.layout)(scale);
    let bytes: u64 = l.iter().map(|f| f.size).sum();
    let (verb, how) = match (kind.phase, set.sync) {
        (super::Phase::Read, _) => ("read back", "cold"),
        (_, Sync::PerFile) => ("write", "fsync per file"),
        (_, Sync::AtEnd) => ("write", "syncfs at the end"),
    };
    format!(
        "{verb} {} {} ({}), 1 MiB blocks, {how}",
        l.len(),
        set.what,
        crate::units::iec(bytes)
    )
}

/// Write the whole set; the timed part of `X-write`, untimed input of `X-read`.
pub fn write_set(ctx: &mut Ctx, family: &str, layout: &[FileSpec], sync: Sync) -> Result<Outcome> {
    let root = ctx.dir(family);
    files::mkdir(ctx, &root)?;
    let mut buf = vec![0u8; BLOCK];
    let mut out = Outcome::default();
    for f in layout {
        ctx.check_cancel()?;
        let path = root.join(&f.rel);
        if let Some(parent) = path.parent() {
            if parent != root && !parent.exists() {
                // Make each missing folder down to the file's, as a copy would.
                let mut acc = root.clone();
                for c in f.rel.parent().into_iter().flat_map(|p| p.components()) {
                    acc.push(c);
                    if !acc.exists() {
                        files::mkdir(ctx, &acc)?;
                    }
                }
            }
        }
        files::write(
            ctx,
            &path,
            f.id,
            f.size,
            matches!(sync, Sync::PerFile),
            &mut buf,
        )?;
        out.files += 1;
        out.bytes += f.size;
    }
    ctx.syncfs()?;
    Ok(out)
}

pub fn read_set(ctx: &mut Ctx, family: &str, layout: &[FileSpec]) -> Result<Outcome> {
    let root = ctx.dir(family);
    let mut buf = vec![0u8; BLOCK];
    let mut out = Outcome::default();
    for f in layout {
        ctx.check_cancel()?;
        out.bytes += files::read(ctx, &root.join(&f.rel), &mut buf)?;
        out.files += 1;
    }
    Ok(out)
}

/// Is the set there, complete (its last file has its full length)?
pub fn set_present(ctx: &Ctx, family: &str, layout: &[FileSpec]) -> bool {
    let root = ctx.dir(family);
    layout
        .last()
        .and_then(|f| std::fs::metadata(root.join(&f.rel)).ok())
        .is_some_and(|m| Some(m.len()) == layout.last().map(|f| f.size))
}

impl Workload for Write {
    fn kind(&self) -> &'static Kind {
        self.0.write
    }
    fn family(&self) -> &'static str {
        self.0.family
    }
    fn describe(&self, scale: f64) -> String {
        describe_set(self.0, self.0.write, scale)
    }
    fn space_needed(&self, scale: f64) -> u64 {
        (self.0.layout)(scale).iter().map(|f| f.size).sum()
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        let dir = ctx.dir(self.0.family);
        files::remove_tree(ctx, &dir)?;
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        write_set(ctx, self.0.family, &(self.0.layout)(ctx.scale), self.0.sync)
    }
}

impl Workload for Read {
    fn kind(&self) -> &'static Kind {
        self.0.read
    }
    fn family(&self) -> &'static str {
        self.0.family
    }
    fn describe(&self, scale: f64) -> String {
        describe_set(self.0, self.0.read, scale)
    }
    fn space_needed(&self, scale: f64) -> u64 {
        (self.0.layout)(scale).iter().map(|f| f.size).sum()
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        let layout = (self.0.layout)(ctx.scale);
        if !set_present(ctx, self.0.family, &layout) {
            let dir = ctx.dir(self.0.family);
            files::remove_tree(ctx, &dir)?;
            write_set(ctx, self.0.family, &layout, self.0.sync)?;
        }
        Ok(())
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        read_set(ctx, self.0.family, &(self.0.layout)(ctx.scale))
    }
    fn verify(&self, ctx: &mut Ctx) -> Result<()> {
        let root = ctx.dir(self.0.family);
        for f in (self.0.layout)(ctx.scale) {
            files::verify(ctx, &root.join(&f.rel), f.id, f.size)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_documents_at_scale_1() {
        let s = small(1.0);
        assert_eq!(s.len(), 18_000);
        let total: u64 = s.iter().map(|f| f.size).sum();
        assert!((total as f64 / GIB as f64 - 1.0).abs() < 0.001, "{total}");
        assert!(s.iter().all(|f| f.size >= 1));
        let t = tiny(1.0);
        assert_eq!(t.len(), 10_000);
        assert!(t.iter().all(|f| f.size == 1024));
        assert_eq!(medium(1.0).len(), 100);
        assert_eq!(large(1.0).len(), 10);
        assert_eq!(large(1.0)[0].size, GIB / 10);
        // Deterministic.
        assert_eq!(small(0.01), small(0.01));
    }
}
