//! A folder tree copied in one go: 712 files in 95 folders, 50 MB at scale 1
//! (003 copies such a tree to a card), syncfs at the end; and read back cold,
//! file by file in the order it was written (the read-back of a copied kernel
//! tree that the LinuxPlanet card comparison timed).

use super::sets::{self, spread_sizes, FileSpec, Read, Set, Sync};
use super::{files, Ctx, Kind, Outcome, Workload};
use crate::bench::kinds;
use crate::Result;
use std::path::PathBuf;

fn layout(scale: f64) -> Vec<FileSpec> {
    let total = ((50_000_000f64 * scale) as u64).max(712 * 64);
    spread_sizes(712, 8, 22, total, 3)
        .into_iter()
        .enumerate()
        .map(|(i, size)| {
            // 95 folders, nested up to three deep, like a documents tree.
            let d = i % 95;
            let rel = PathBuf::from(format!(
                "top{}/sub{}/leaf{}/file{i:04}.dat",
                d / 19,
                (d / 5) % 4,
                d % 5
            ));
            FileSpec {
                rel,
                id: 5_000_000 + i as u64,
                size,
            }
        })
        .collect()
}

pub struct TreeWrite;

/// The tree as a set, for its read-back (the write keeps its own
/// description, which counts the folders).
static TREE: Set = Set {
    family: "tree",
    write: &kinds::TREE_WRITE,
    read: &kinds::TREE_READ,
    what: "files of that tree",
    sync: Sync::AtEnd,
    layout,
};

pub static ALL: [&'static dyn Workload; 2] = [&TreeWrite, &Read(&TREE)];

impl Workload for TreeWrite {
    fn kind(&self) -> &'static Kind {
        &kinds::TREE_WRITE
    }
    fn family(&self) -> &'static str {
        "tree"
    }
    fn describe(&self, scale: f64) -> String {
        let l = layout(scale);
        let dirs: std::collections::BTreeSet<_> = l
            .iter()
            .filter_map(|f| f.rel.parent().map(|p| p.to_path_buf()))
            .collect();
        format!(
            "copy a tree of {} files in {} leaf folders ({}), syncfs at the end",
            l.len(),
            dirs.len(),
            crate::units::iec(l.iter().map(|f| f.size).sum())
        )
    }
    fn space_needed(&self, scale: f64) -> u64 {
        layout(scale).iter().map(|f| f.size).sum()
    }
    fn prepare(&self, ctx: &mut Ctx) -> Result<()> {
        let dir = ctx.dir("tree");
        files::remove_tree(ctx, &dir)?;
        ctx.syncfs()
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Outcome> {
        let l = layout(ctx.scale);
        // write_set makes each folder as it reaches it, as a copy does.
        sets::write_set(ctx, "tree", &l, Sync::AtEnd)
    }
}
