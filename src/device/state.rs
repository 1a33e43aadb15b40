//! A record, under /run/fsfit, of what a run attached and mounted, so that
//! `fsfit cleanup` can undo what a run killed with SIGKILL left behind.
//! This file only records; cleanup.rs releases (so loopdev.rs and mount.rs,
//! which record here, are not called back from here).

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
    /// Kernel settings a run changed for its length (bench's reporting
    /// delay on a virtual machine): cleanup puts them back.
    #[serde(default)]
    pub settings: Vec<Setting>,
}

/// A kernel setting (a file under /proc or /sys) a run changed: cleanup
/// writes `before` back while the file still holds `set`, and leaves it
/// alone once someone else has changed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    pub path: String,
    pub before: String,
    pub set: String,
}

/// The state directory: `$FSFIT_STATE_DIR`, else /run/fsfit.
pub fn dir() -> PathBuf {
    std::env::var_os("FSFIT_STATE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/run/fsfit"))
}

/// The file a loop device reads and writes, as the kernel holds it
/// (LOOP_GET_STATUS64): a path can be reused, the (device, inode) pair cannot
/// while the file is open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backing {
    pub file: String,
    pub st_dev: u64,
    pub st_ino: u64,
}

/// Every record in the state directory: (its file, what it says).
pub fn records() -> Vec<(PathBuf, Record)> {
    let Ok(rd) = std::fs::read_dir(dir()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        if let Ok(r) = serde_json::from_slice::<Record>(&text) {
            out.push((path, r));
        }
    }
    out
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
        && r.settings.is_empty()
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
pub fn add_setting(s: Setting) {
    update(|r| r.settings.push(s));
}
pub fn remove_setting(path: &Path) {
    let p = path.to_string_lossy();
    update(|r| r.settings.retain(|s| s.path != p));
}
pub fn add_file(p: &Path) {
    update(|r| r.files.push(p.to_string_lossy().into_owned()));
}
pub fn remove_file(p: &Path) {
    let d = p.to_string_lossy();
    update(|r| r.files.retain(|m| *m != d));
}
