//! Where a benchmark runs or a format writes: an image file, a real block
//! device (behind the safety guard) or an already-mounted directory; and the
//! loop devices and mounts fsfit sets up for it, each undone when its guard
//! drops.
//!
//! host.rs is the one view of the host (sysfs, mounts, swaps, holders);
//! guard/ inspects, checks and describes a device; confirm.rs provisions one
//! to erase (bench and format both); state.rs records what a run set up and
//! cleanup.rs releases what a killed run left; watchdog.rs keeps fsfit's own
//! FUSE servers from hanging a cleanup. device/ imports no other fsfit
//! module but the shared helpers (error, units, atomic).
//!
//! All of it is Linux (loop and block ioctls, mount, FUSE, /proc and /sys)
//! but driver.rs, the registry's data, and [`have_program`].

#[cfg(target_os = "linux")]
pub mod cleanup;
#[cfg(target_os = "linux")]
pub mod confirm;
pub mod driver;
#[cfg(target_os = "linux")]
pub mod guard;
#[cfg(target_os = "linux")]
pub mod host;
#[cfg(target_os = "linux")]
pub mod identity;
#[cfg(target_os = "linux")]
pub mod image;
#[cfg(target_os = "linux")]
pub mod loopdev;
#[cfg(target_os = "linux")]
pub mod mount;
#[cfg(target_os = "linux")]
pub mod served;
#[cfg(target_os = "linux")]
pub mod state;
#[cfg(target_os = "linux")]
pub mod target;
#[cfg(target_os = "linux")]
pub mod watchdog;

#[cfg(target_os = "linux")]
use crate::{Error, Result};
#[cfg(target_os = "linux")]
use std::process::{Command, Output};

/// Whether fsfit runs as root: mounting, loop devices, tracing and
/// real-time priority all need it, and every command that does one of them
/// asks here rather than each calling `geteuid` itself.
#[cfg(unix)]
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// Run a system tool in its own process group (so the terminal's Ctrl-C
/// reaches fsfit, which then cleans up, and not the tool or a FUSE daemon).
#[cfg(target_os = "linux")]
pub fn run_tool(program: &str, args: &[&str]) -> Result<Output> {
    use std::os::unix::process::CommandExt;
    let out = Command::new(program)
        .args(args)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::work(format!("cannot run {program}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let msg = err
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        return Err(Error::work(format!(
            "{program} failed ({}): {msg}",
            out.status
        )));
    }
    Ok(out)
}

/// Is `program` on PATH (or in /sbin, /usr/sbin)? Answered once per
/// program and PATH: usage asks it for every config of every FUSE-backed
/// filesystem, and each answer is a stat of every PATH folder, which was
/// a tenth of a small tree's whole run.
pub fn have_program(program: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Seen = HashMap<(std::ffi::OsString, String), bool>;
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let key = (path, program.to_string());
    let seen = SEEN.get_or_init(Mutex::default);
    if let Some(&found) = seen.lock().unwrap().get(&key) {
        return found;
    }
    let found = std::env::split_paths(&key.0)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .any(|d| d.join(program).is_file());
    seen.lock().unwrap().insert(key, found);
    found
}

/// What the mount table says is mounted at (or above) `dir`:
/// (fstype, source, mount point), the longest mount point that holds it.
#[cfg(target_os = "linux")]
pub fn mount_of(dir: &std::path::Path) -> Option<(String, String, String)> {
    host::mount_of(dir).map(|m| (m.fstype, m.source, m.point))
}

/// statvfs(3) of the filesystem holding `p`.
#[cfg(target_os = "linux")]
pub fn statvfs(p: &std::path::Path) -> Result<libc::statvfs> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
        .map_err(|e| Error::work(e.to_string()))?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(Error::work(format!(
            "statvfs {}: {}",
            p.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(s)
}
