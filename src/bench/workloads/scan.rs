//! A tree of 20,000 files, 4 GiB at scale 1 (001 tests 7-9): walked and
//! stat'ed cold (`scan`), searched for duplicates by size then content hash,
//! cold (`dupsearch`), and removed (`delete`). The tree holds a known number
//! of duplicates, and dupsearch's count is checked against it.

use super::files::{self, BLOCK};
use super::sets::{mix, spread_sizes, write_set, FileSpec, Sync};
use super::{scaled, Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::{Error, Result};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Every DUP_EVERY-th file copies an earlier file (same size and content);
/// every DECOY_EVERY-th has an earlier file's size but other content.
const DUP_EVERY: usize = 25;
const DECOY_EVERY: usize = 40;

fn layout(scale: f64) -> Vec<FileSpec> {
    let n = scaled(20_000, scale, 50);
    let total = ((4u64 << 30) as f64 * n as f64 / 20_000.0) as u64;
    let sizes = spread_sizes(n, 9, 22, total, 2);
    let mut out: Vec<FileSpec> = Vec::with_capacity(n as usize);
    for (i, size) in sizes.into_iter().enumerate() {
        let rel = PathBuf::from(format!(
            "s{:03}/t{:02}/f{i:06}.dat",
            i / 1000,
            (i / 50) % 20
        ));
        let mut f = FileSpec {
            rel,
            id: 6_000_000 + i as u64,
            size,
        };
        if i > 0 && i % DUP_EVERY == 0 {
            let src = &out[(mix(i as u64) % i as u64) as usize];
            f.id = src.id;
            f.size = src.size;
        } else if i > 0 && i % DECOY_EVERY == 0 {
            f.size = out[(mix(!(i as u64)) % i as u64) as usize].size;
        }
        out.push(f);
    }
    out
}

/// Files whose contents equal an earlier file's: what dupsearch must find.
fn expected_duplicates(l: &[FileSpec]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    l.iter().filter(|f| !seen.insert((f.id, f.size))).count() as u64
}

fn ensure(ctx: &mut Ctx) -> Result<Vec<FileSpec>> {
    let l = layout(ctx.scale);
    if !super::sets::set_present(ctx, "scan", &l) {
        let dir = ctx.dir("scan");
        files::remove_tree(ctx, &dir)?;
        write_set(ctx, "scan", &l, Sync::AtEnd)?;
    }
    Ok(l)
}

/// Walk and lstat everything below `dir`; calls `f` for each regular file.
fn walk(ctx: &mut Ctx, dir: &Path, f: &mut dyn FnMut(&Path, u64)) -> Result<u64> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::work(format!("{}: {e}", dir.display())))?;
    ctx.ops += 1;
    let mut n = 0;
    for e in rd {
        let e = e.map_err(|e| Error::work(format!("{}: {e}", dir.display())))?;
        ctx.ops += 1;
        let md = e
            .metadata()
            .map_err(|e| Error::work(format!("{}: {e}", e)))?;
        ctx.ops += 1;
        if md.is_dir() {
            n += walk(ctx, &e.path(), f)?;
        } else {
            f(&e.path(), md.len());
            n += 1;
        }
    }
    Ok(n)
}

pub struct Scan;
pub struct DupSearch;
pub struct Delete;

pub static ALL: [&'static dyn Workload; 3] = [&Scan, &DupSearch, &Delete];

fn space(scale: f64) -> u64 {
    layout(scale).iter().map(|f| f.size).sum()
}

impl Workload for Scan {
    fn kind(&self) -> &'static Kind {
        &kinds::SCAN
    }
    fn family(&self) -> &'static str {
        "scan"
    }
    fn describe(&self, scale: f64) -> String {
        format!(
            "walk and stat a tree of {} files ({}), cold",
            layout(scale).len(),
            crate::units::iec(space(scale))
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        space(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx).map(|_| ())
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let dir = ctx.dir("scan");
        let files = walk(ctx, &dir, &mut |_, _| {})?;
        Ok(Outcome {
            files,
            bytes: 0,
            extents: None,
        })
    }
}

impl Workload for DupSearch {
    fn kind(&self) -> &'static Kind {
        &kinds::DUPSEARCH
    }
    fn family(&self) -> &'static str {
        "scan"
    }
    fn describe(&self, scale: f64) -> String {
        let l = layout(scale);
        format!(
            "find the {} duplicates among those {} files: group by size, hash the candidates, cold",
            expected_duplicates(&l),
            l.len()
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        space(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx).map(|_| ())
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let dir = ctx.dir("scan");
        let mut by_size: HashMap<u64, Vec<PathBuf>> = HashMap::new();
        let files = walk(ctx, &dir, &mut |p, len| {
            by_size.entry(len).or_default().push(p.to_path_buf())
        })?;
        let mut buf = vec![0u8; BLOCK];
        let mut bytes = 0;
        let mut dups = 0;
        for group in by_size.values().filter(|g| g.len() > 1) {
            let mut by_hash: HashMap<u64, u64> = HashMap::new();
            for p in group {
                ctx.check_cancel()?;
                let mut f = std::fs::File::open(p)
                    .map_err(|e| Error::work(format!("{}: {e}", p.display())))?;
                ctx.ops += 1;
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                loop {
                    let n = f
                        .read(&mut buf)
                        .map_err(|e| Error::work(format!("{}: {e}", p.display())))?;
                    ctx.ops += 1;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                    bytes += n as u64;
                }
                *by_hash.entry(h.digest()).or_default() += 1;
            }
            dups += by_hash.values().map(|n| n - 1).sum::<u64>();
        }
        let want = expected_duplicates(&layout(ctx.scale));
        if dups != want {
            return Err(Error::work(format!(
                "dupsearch found {dups} duplicates, the tree holds {want}"
            )));
        }
        Ok(Outcome {
            files,
            bytes,
            extents: None,
        })
    }
}

impl Workload for Delete {
    fn kind(&self) -> &'static Kind {
        &kinds::DELETE
    }
    fn family(&self) -> &'static str {
        "scan"
    }
    fn describe(&self, scale: f64) -> String {
        format!("delete that tree of {} files, syncfs", layout(scale).len())
    }
    fn space_needed(&self, scale: f64) -> u64 {
        space(scale)
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        ensure(ctx)?;
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let files = layout(ctx.scale).len() as u64;
        let dir = ctx.dir("scan");
        files::remove_tree(ctx, &dir)?;
        ctx.syncfs()?;
        Ok(Outcome {
            files,
            bytes: 0,
            extents: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_holds_known_duplicates() {
        let l = layout(1.0);
        assert_eq!(l.len(), 20_000);
        let d = expected_duplicates(&l);
        // every 25th file is a copy (some copies may copy a copy: still one each)
        assert_eq!(d, (20_000 - 1) / 25);
        let total: u64 = l.iter().map(|f| f.size).sum();
        assert!(total > 3 << 30 && total < 5 << 30, "{total}");
    }
}
