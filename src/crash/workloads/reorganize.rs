//! `reorganize`: folders renamed, files moved and deleted; `sync` after each
//! round.

use super::{io, mkdir, Ctx, Promise, Workload};
use crate::Result;

pub struct Reorganize;

impl Workload for Reorganize {
    fn name(&self) -> &'static str {
        "reorganize"
    }

    fn description(&self) -> &'static str {
        "folders renamed, files moved to an archive and deleted, `sync` after each round"
    }

    fn promise(&self) -> Promise {
        Promise::Sync
    }

    fn prepare(&self, c: &mut Ctx) -> Result<()> {
        for d in ["inbox", "archive"] {
            mkdir(&c.path(d))?;
        }
        for i in 0..c.scale.moves * 3 {
            let rel = format!("inbox/item{i}.txt");
            let b = c.bytes(2048 + 1024 * (i % 5));
            c.write_file(&c.path(&rel), &b, false)?;
            let at = c.at();
            c.oracle.set(&rel, Some(&b), at);
        }
        Ok(())
    }

    fn run(&self, c: &mut Ctx) -> Result<()> {
        let items: Vec<String> = c
            .oracle
            .files
            .iter()
            .filter(|f| f.path.starts_with("inbox/"))
            .map(|f| f.path.clone())
            .collect();
        let mut dir = "inbox".to_string();
        for (round, chunk) in items.chunks(3).enumerate() {
            // Rename the folder holding the remaining items.
            let new = format!("inbox{}", round + 1);
            rename_folder(c, &dir, &new)?;
            dir = new;
            // Move the first item of this round to the archive, delete the second.
            if let Some(first) = chunk.first() {
                archive(c, &dir, name_of(first))?;
            }
            if let Some(second) = chunk.get(1) {
                delete(c, &dir, name_of(second))?;
            }
            c.sync()?;
            if round + 1 >= c.scale.moves {
                break;
            }
        }
        Ok(())
    }
}

fn name_of(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Rename folder `dir` to `new`: every file still in it moves with it.
fn rename_folder(c: &mut Ctx, dir: &str, new: &str) -> Result<()> {
    std::fs::rename(c.path(dir), c.path(new)).map_err(io("cannot rename", &c.path(dir)))?;
    let at = c.at();
    for f in c
        .oracle
        .files
        .clone()
        .iter()
        .filter(|f| f.path.starts_with(&format!("{dir}/")))
    {
        let last = f.versions.last().and_then(|v| v.content);
        if last.is_none() {
            continue;
        }
        let moved = format!("{new}/{}", &f.path[dir.len() + 1..]);
        let bytes = std::fs::read(c.path(&moved)).map_err(io("cannot read", &c.path(&moved)))?;
        c.oracle.set(&f.path, None, at);
        c.oracle.set(&moved, Some(&bytes), at);
    }
    Ok(())
}

/// Move `dir/name` to the archive folder.
fn archive(c: &mut Ctx, dir: &str, name: &str) -> Result<()> {
    let from = format!("{dir}/{name}");
    let to = format!("archive/{name}");
    let bytes = std::fs::read(c.path(&from)).map_err(io("cannot read", &c.path(&from)))?;
    std::fs::rename(c.path(&from), c.path(&to)).map_err(io("cannot move", &c.path(&from)))?;
    let at = c.at();
    c.oracle.set(&from, None, at);
    let at = c.at();
    c.oracle.set(&to, Some(&bytes), at);
    Ok(())
}

/// Delete `dir/name`.
fn delete(c: &mut Ctx, dir: &str, name: &str) -> Result<()> {
    let gone = format!("{dir}/{name}");
    std::fs::remove_file(c.path(&gone)).map_err(io("cannot delete", &c.path(&gone)))?;
    let at = c.at();
    c.oracle.set(&gone, None, at);
    Ok(())
}
