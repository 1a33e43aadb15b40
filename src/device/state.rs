//! A record, under /run/fsfit, of what a run attached and mounted, so that
//! `fsfit cleanup` can undo what a run killed with SIGKILL left behind.

use super::loopdev::Backing;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Default, Serialize, Deserialize, Debug, Clone)]
pub struct Record {
    pub pid: u32,
    pub loops: Vec<String>,
    pub mounts: Vec<String>,
    /// Temporary files (images) to delete.
    pub files: Vec<String>,
    /// FUSE mounts served by fsfit itself (the crash recorder): undone after
    /// the loop devices on top of them, which hold their file open.
    #[serde(default)]
    pub fuse_mounts: Vec<String>,
    /// What each loop device of `loops` was attached to: cleanup detaches a
    /// loop only while it still serves that file (the number may have been
    /// reused by someone else since).
    #[serde(default)]
    pub backing: Vec<(String, Backing)>,
    /// Folders a run made: `--dir` work folders, private temporary folders.
    #[serde(default)]
    pub dirs: Vec<String>,
}

/// The state directory: `$FSFIT_STATE_DIR`, else /run/fsfit.
pub fn dir() -> PathBuf {
    std::env::var_os("FSFIT_STATE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/run/fsfit"))
}

static CURRENT: Mutex<Option<Record>> = Mutex::new(None);

fn save(r: &Record) {
    let d = dir();
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    let path = d.join(format!("{}.json", r.pid));
    if r.loops.is_empty()
        && r.mounts.is_empty()
        && r.files.is_empty()
        && r.dirs.is_empty()
        && r.fuse_mounts.is_empty()
    {
        let _ = std::fs::remove_file(path);
    } else if let Ok(text) = serde_json::to_vec_pretty(r) {
        let _ = crate::atomic::write_atomic(&path, &text);
    }
}

fn update(f: impl FnOnce(&mut Record)) {
    let mut cur = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    let r = cur.get_or_insert_with(|| Record {
        pid: std::process::id(),
        ..Default::default()
    });
    f(r);
    save(r);
}

pub fn add_loop(dev: &str, backing: Option<Backing>) {
    update(|r| {
        r.loops.push(dev.to_string());
        if let Some(b) = backing {
            r.backing.push((dev.to_string(), b));
        }
    });
}
pub fn remove_loop(dev: &str) {
    update(|r| {
        r.loops.retain(|d| d != dev);
        r.backing.retain(|(d, _)| d != dev);
    });
}
pub fn add_dir(p: &Path) {
    update(|r| r.dirs.push(p.to_string_lossy().into_owned()));
}
pub fn remove_dir(p: &Path) {
    let d = p.to_string_lossy();
    update(|r| r.dirs.retain(|m| *m != d));
}
pub fn add_mount(dir: &Path) {
    update(|r| r.mounts.push(dir.to_string_lossy().into_owned()));
}
pub fn remove_mount(dir: &Path) {
    let d = dir.to_string_lossy();
    update(|r| r.mounts.retain(|m| *m != d));
}
pub fn add_fuse_mount(dir: &Path) {
    update(|r| r.fuse_mounts.push(dir.to_string_lossy().into_owned()));
}
pub fn remove_fuse_mount(dir: &Path) {
    let d = dir.to_string_lossy();
    update(|r| r.fuse_mounts.retain(|m| *m != d));
}
pub fn add_file(p: &Path) {
    update(|r| r.files.push(p.to_string_lossy().into_owned()));
}
pub fn remove_file(p: &Path) {
    let d = p.to_string_lossy();
    update(|r| r.files.retain(|m| *m != d));
}

fn alive(pid: u32) -> bool {
    pid == std::process::id()
        || std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains("fsfit"))
            .unwrap_or(false)
}

/// Undo what runs that are no longer alive left behind. Returns a line per
/// thing undone (or that could not be).
pub fn cleanup() -> Vec<String> {
    let mut said = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir()) else {
        return said;
    };
    for e in rd.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        let Ok(r) = serde_json::from_slice::<Record>(&text) else {
            continue;
        };
        if alive(r.pid) {
            said.push(format!("run {} is still going; left alone", r.pid));
            continue;
        }
        let mut ok = true;
        // Innermost first: mounts, then loop devices, then files.
        for m in r.mounts.iter().rev() {
            match super::mount::unmount_path(Path::new(m)) {
                Ok(()) => said.push(format!("unmounted {m}")),
                Err(e) => {
                    ok = false;
                    said.push(format!("could not unmount {m}: {e}"))
                }
            }
            let _ = std::fs::remove_dir(m);
        }
        for l in &r.loops {
            let recorded = r.backing.iter().find(|(d, _)| d == l).map(|(_, b)| b);
            let now = super::loopdev::backing(l);
            match (recorded, now) {
                (_, None) => said.push(format!("{l} is already detached")),
                (None, Some(n)) => said.push(format!(
                    "left {l} alone: no record of what the run attached it to, and it now serves {}",
                    n.file
                )),
                (Some(b), Some(n)) if *b != n => said.push(format!(
                    "left {l} alone: it now serves {}, not {} as recorded",
                    n.file, b.file
                )),
                (Some(_), Some(_)) => match super::loopdev::detach(l) {
                    Ok(()) => said.push(format!("detached {l}")),
                    Err(e) => {
                        ok = false;
                        said.push(format!("could not detach {l}: {e}"))
                    }
                },
            }
        }
        for m in &r.fuse_mounts {
            match super::mount::unmount_path(Path::new(m)) {
                Ok(()) => said.push(format!("unmounted {m}")),
                Err(e) => {
                    ok = false;
                    said.push(format!("could not unmount {m}: {e}"))
                }
            }
            let _ = std::fs::remove_dir(m);
        }
        for f in &r.files {
            if std::fs::remove_file(f).is_ok() {
                said.push(format!("removed {f}"));
            }
        }
        // Only folders fsfit names itself (fsfit-bench-PID...), and last:
        // a temporary image's folder is empty once its file is gone.
        for d in r.dirs.iter().rev() {
            let p = Path::new(d);
            let ours = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("fsfit-bench-"));
            if ours && std::fs::remove_dir_all(p).is_ok() {
                said.push(format!("removed {d}"));
            }
        }
        if ok {
            let _ = std::fs::remove_file(&path);
        }
    }
    said
}
