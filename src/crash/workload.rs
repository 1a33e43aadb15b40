//! The crash workloads, each doing what people do with sticks and telling
//! the oracle what it wrote and when each thing became durable. Before each
//! one, the "old files" are written and synced: damage to them is seed 002's
//! disaster.

use super::oracle::Oracle;
use super::states::Rng;
use crate::{Error, Result};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::Path;

pub const NAMES: [&str; 4] = ["copy", "save", "append", "reorganize"];

/// How much each workload does: small enough to keep state counts (and so
/// run time) reasonable on a 64 MiB volume.
#[derive(Clone, Copy)]
pub struct Scale {
    pub photos: usize,
    pub photo_bytes: usize,
    pub saves: usize,
    pub appends: usize,
    pub moves: usize,
}

impl Scale {
    pub fn new(quick: bool) -> Scale {
        if quick {
            Scale {
                photos: 6,
                photo_bytes: 256 << 10,
                saves: 4,
                appends: 12,
                moves: 2,
            }
        } else {
            Scale {
                photos: 16,
                photo_bytes: 1 << 20,
                saves: 12,
                appends: 40,
                moves: 4,
            }
        }
    }
}

/// The log position, read from the recorder after each step returns.
pub type Pos<'a> = &'a dyn Fn() -> u64;

fn io<'a>(what: &'a str, p: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |e| Error::work(format!("{what} {}: {e}", p.display()))
}

fn write_file(p: &Path, bytes: &[u8], fsync: bool) -> Result<()> {
    let mut f = std::fs::File::create(p).map_err(io("cannot create", p))?;
    f.write_all(bytes).map_err(io("cannot write", p))?;
    if fsync {
        f.sync_all().map_err(io("cannot fsync", p))?;
    }
    Ok(())
}

fn fsync_dir(p: &Path) -> Result<()> {
    std::fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(io("cannot fsync", p))
}

/// syncfs(2) on the filesystem holding `root`: what `sync` does for it.
pub fn syncfs(root: &Path) -> Result<()> {
    let f = std::fs::File::open(root).map_err(io("cannot open", root))?;
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(Error::work(format!(
            "syncfs {}: {}",
            root.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

fn mkdir(p: &Path) -> Result<()> {
    std::fs::create_dir_all(p).map_err(io("cannot create", p))
}

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    rng.fill(&mut b);
    b
}

/// Write the old files and the workload's own starting files, all synced.
pub fn prepare(
    name: &str,
    root: &Path,
    o: &mut Oracle,
    rng: &mut Rng,
    sc: Scale,
    pos: Pos,
) -> Result<()> {
    mkdir(&root.join("old"))?;
    for i in 0..8 {
        let rel = format!("old/keep{i}.dat");
        let b = random_bytes(rng, 4096 << (i % 6));
        write_file(&root.join(&rel), &b, true)?;
        o.set(&rel, Some(&b), pos());
        o.mark_old(&rel);
    }
    match name {
        "save" => {
            let b = random_bytes(rng, 24 << 10);
            write_file(&root.join("report.doc"), &b, true)?;
            o.set("report.doc", Some(&b), pos());
        }
        "append" => {
            write_file(&root.join("journal.log"), b"", true)?;
            o.appended("journal.log", b"", pos());
        }
        "reorganize" => {
            for d in ["inbox", "archive"] {
                mkdir(&root.join(d))?;
            }
            for i in 0..sc.moves * 3 {
                let rel = format!("inbox/item{i}.txt");
                let b = random_bytes(rng, 2048 + 1024 * (i % 5));
                write_file(&root.join(&rel), &b, false)?;
                o.set(&rel, Some(&b), pos());
            }
        }
        _ => {}
    }
    syncfs(root)?;
    o.all_durable(pos());
    Ok(())
}

/// Run the workload proper; every step tells the oracle.
pub fn run(
    name: &str,
    root: &Path,
    o: &mut Oracle,
    rng: &mut Rng,
    sc: Scale,
    pos: Pos,
) -> Result<()> {
    match name {
        // A folder of photos copied, then `sync`.
        "copy" => {
            mkdir(&root.join("DCIM"))?;
            for i in 0..sc.photos {
                let rel = format!("DCIM/IMG_{i:04}.JPG");
                let n = sc.photo_bytes / 2 + rng.below(sc.photo_bytes as u64) as usize;
                let b = random_bytes(rng, n);
                write_file(&root.join(&rel), &b, false)?;
                o.set(&rel, Some(&b), pos());
            }
            syncfs(root)?;
            o.all_durable(pos());
        }
        // An editor's save: write a temp file, fsync it, rename it over the
        // document, fsync the folder.
        "save" => {
            for _ in 0..sc.saves {
                let n = (16 << 10) + rng.below(48 << 10) as usize;
                let b = random_bytes(rng, n);
                let tmp = root.join(".report.doc.tmp");
                write_file(&tmp, &b, true)?;
                std::fs::rename(&tmp, root.join("report.doc"))
                    .map_err(io("cannot rename", &tmp))?;
                o.set("report.doc", Some(&b), pos());
                fsync_dir(root)?;
                o.durable("report.doc", pos());
            }
        }
        // A log appended to, each line fsynced.
        "append" => {
            let p = root.join("journal.log");
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&p)
                .map_err(io("cannot open", &p))?;
            let mut all = Vec::new();
            for i in 0..sc.appends {
                let n = 200 + rng.below(6000) as usize;
                let mut line = format!("{i:06} ").into_bytes();
                line.extend((0..n).map(|_| b'a' + rng.below(26) as u8));
                line.push(b'\n');
                f.write_all(&line).map_err(io("cannot write", &p))?;
                all.extend_from_slice(&line);
                o.appended("journal.log", &all, pos());
                f.sync_all().map_err(io("cannot fsync", &p))?;
                o.durable("journal.log", pos());
            }
        }
        // Folders renamed, files moved and deleted; `sync` after each round.
        "reorganize" => {
            let items: Vec<String> = o
                .files
                .iter()
                .filter(|f| f.path.starts_with("inbox/"))
                .map(|f| f.path.clone())
                .collect();
            let mut dir = "inbox".to_string();
            for (round, chunk) in items.chunks(3).enumerate() {
                // Rename the folder holding the remaining items.
                let new = format!("inbox{}", round + 1);
                std::fs::rename(root.join(&dir), root.join(&new))
                    .map_err(io("cannot rename", &root.join(&dir)))?;
                let at = pos();
                for f in o
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
                    let bytes = std::fs::read(root.join(&moved))
                        .map_err(io("cannot read", &root.join(&moved)))?;
                    o.set(&f.path, None, at);
                    o.set(&moved, Some(&bytes), at);
                }
                dir = new;
                // Move the first item of this round to the archive, delete the second.
                let name_of = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
                if let Some(first) = chunk.first() {
                    let from = format!("{dir}/{}", name_of(first));
                    let to = format!("archive/{}", name_of(first));
                    let bytes = std::fs::read(root.join(&from))
                        .map_err(io("cannot read", &root.join(&from)))?;
                    std::fs::rename(root.join(&from), root.join(&to))
                        .map_err(io("cannot move", &root.join(&from)))?;
                    o.set(&from, None, pos());
                    o.set(&to, Some(&bytes), pos());
                }
                if let Some(second) = chunk.get(1) {
                    let gone = format!("{dir}/{}", name_of(second));
                    std::fs::remove_file(root.join(&gone))
                        .map_err(io("cannot delete", &root.join(&gone)))?;
                    o.set(&gone, None, pos());
                }
                syncfs(root)?;
                o.all_durable(pos());
                if round + 1 >= sc.moves {
                    break;
                }
            }
        }
        other => {
            return Err(Error::work(format!(
                "unknown crash workload '{other}' (choose from {})",
                NAMES.join(", ")
            )))
        }
    }
    Ok(())
}
