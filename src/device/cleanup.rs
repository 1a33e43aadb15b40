//! `fsfit cleanup`: release what runs that are no longer alive recorded in
//! state.rs — innermost first: mounts, loop devices (only while they still
//! serve the recorded file), fsfit's own FUSE mounts, files, folders; then
//! the kernel settings the run changed, put back.

use super::state::{self, Backing, Record, Setting};
use super::{loopdev, mount};
use std::path::Path;

/// What releasing one record said, and whether everything was released.
struct Said {
    lines: Vec<String>,
    ok: bool,
}

impl Said {
    fn line(&mut self, l: String) {
        self.lines.push(l);
    }

    fn failed(&mut self, l: String) {
        self.ok = false;
        self.lines.push(l);
    }
}

fn alive(pid: u32) -> bool {
    pid == std::process::id()
        || std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains("fsfit"))
            .unwrap_or(false)
}

/// Undo what runs that are no longer alive left behind. Returns a line per
/// thing undone (or that could not be).
pub fn run() -> Vec<String> {
    let mut said = Vec::new();
    for (path, r) in state::records() {
        if alive(r.pid) {
            said.push(format!("run {} is still going; left alone", r.pid));
            continue;
        }
        let s = release(&r);
        said.extend(s.lines);
        if s.ok {
            let _ = std::fs::remove_file(&path);
        }
    }
    said
}

fn release(r: &Record) -> Said {
    let mut s = Said {
        lines: Vec::new(),
        ok: true,
    };
    unmount_all(r.mounts.iter().rev(), &mut s);
    for l in &r.loops {
        let recorded = r.backing.iter().find(|(d, _)| d == l).map(|(_, b)| b);
        detach_if_ours(l, recorded, &mut s);
    }
    unmount_all(r.fuse_mounts.iter(), &mut s);
    for f in &r.files {
        if std::fs::remove_file(f).is_ok() {
            s.line(format!("removed {f}"));
        }
    }
    remove_own_dirs(r, &mut s);
    put_back(&r.settings, &mut s);
    s
}

/// Write each setting's old value back while it still holds what the run
/// set; one that has changed since is someone else's now.
fn put_back(settings: &[Setting], s: &mut Said) {
    for set in settings {
        let now = std::fs::read_to_string(&set.path).map(|t| t.trim().to_string());
        match now {
            Ok(now) if now == set.set => match std::fs::write(&set.path, &set.before) {
                Ok(()) => s.line(format!("put {} back to {}", set.path, set.before)),
                Err(e) => s.failed(format!("could not put {} back: {e}", set.path)),
            },
            Ok(now) => s.line(format!(
                "left {} alone: it holds {now}, not the {} the run set",
                set.path, set.set
            )),
            Err(e) => s.line(format!("left {} alone: {e}", set.path)),
        }
    }
}

fn unmount_all<'a>(mounts: impl Iterator<Item = &'a String>, s: &mut Said) {
    for m in mounts {
        match mount::unmount_path(Path::new(m)) {
            Ok(()) => s.line(format!("unmounted {m}")),
            Err(e) => s.failed(format!("could not unmount {m}: {e}")),
        }
        let _ = std::fs::remove_dir(m);
    }
}

/// Detach `l` only while it still serves the file the run attached.
fn detach_if_ours(l: &str, recorded: Option<&Backing>, s: &mut Said) {
    match (recorded, loopdev::backing(l)) {
        (_, None) => s.line(format!("{l} is already detached")),
        (None, Some(n)) => s.line(format!(
            "left {l} alone: no record of what the run attached it to, and it now serves {}",
            n.file
        )),
        (Some(b), Some(n)) if *b != n => s.line(format!(
            "left {l} alone: it now serves {}, not {} as recorded",
            n.file, b.file
        )),
        (Some(_), Some(_)) => match loopdev::detach(l) {
            Ok(()) => s.line(format!("detached {l}")),
            Err(e) => s.failed(format!("could not detach {l}: {e}")),
        },
    }
}

/// Only folders fsfit names itself (fsfit-bench-PID...), and last: a
/// temporary image's folder is empty once its file is gone.
fn remove_own_dirs(r: &Record, s: &mut Said) {
    for d in r.dirs.iter().rev() {
        let p = Path::new(d);
        let ours = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("fsfit-bench-"));
        if ours && std::fs::remove_dir_all(p).is_ok() {
            s.line(format!("removed {d}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said() -> Said {
        Said {
            lines: Vec::new(),
            ok: true,
        }
    }

    #[test]
    fn a_loop_that_is_gone_is_said_detached_and_nothing_fails() {
        let mut s = said();
        detach_if_ours("/dev/fsfit-no-such-loop", None, &mut s);
        assert_eq!(s.lines, ["/dev/fsfit-no-such-loop is already detached"]);
        assert!(s.ok);
    }

    #[test]
    fn a_setting_is_put_back_only_while_it_holds_what_the_run_set() {
        let d = tempfile::tempdir().unwrap();
        let knob = d.path().join("min_free_ms");
        let setting = Setting {
            path: knob.to_string_lossy().into_owned(),
            before: "0".into(),
            set: "60000".into(),
        };
        std::fs::write(&knob, "60000\n").unwrap();
        let mut s = said();
        put_back(std::slice::from_ref(&setting), &mut s);
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), "0");
        assert_eq!(s.lines, [format!("put {} back to 0", knob.display())]);
        // Changed by someone else since: theirs.
        std::fs::write(&knob, "5000").unwrap();
        let mut s = said();
        put_back(&[setting], &mut s);
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), "5000");
        assert!(s.lines[0].contains("left") && s.ok, "{:?}", s.lines);
    }

    #[test]
    fn only_folders_fsfit_names_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let ours = d.path().join("fsfit-bench-1-x");
        let theirs = d.path().join("photos");
        std::fs::create_dir_all(ours.join("sub")).unwrap();
        std::fs::create_dir(&theirs).unwrap();
        let r = Record {
            dirs: vec![
                theirs.to_string_lossy().into_owned(),
                ours.to_string_lossy().into_owned(),
            ],
            ..Default::default()
        };
        let mut s = said();
        remove_own_dirs(&r, &mut s);
        assert!(!ours.exists() && theirs.exists());
        assert_eq!(s.lines, [format!("removed {}", ours.display())]);
    }
}
