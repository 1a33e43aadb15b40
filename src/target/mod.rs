//! Where a benchmark runs: an image file, a real block device (behind the
//! safety guard) or an already-mounted directory; and the loop devices and
//! mounts fsfit sets up for it, each undone when its guard drops.

pub mod guard;
pub mod loopdev;
pub mod mount;
pub mod state;

use std::process::{Command, Output};

/// Run a system tool in its own process group (so the terminal's Ctrl-C
/// reaches fsfit, which then cleans up, and not the tool or a FUSE daemon).
pub fn run_tool(program: &str, args: &[&str]) -> Result<Output, String> {
    use std::os::unix::process::CommandExt;
    let out = Command::new(program)
        .args(args)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let msg = err
            .lines()
            .filter(|l| !l.trim().is_empty())
            .last()
            .unwrap_or("")
            .trim();
        return Err(format!("{program} failed ({}): {msg}", out.status));
    }
    Ok(out)
}

/// Is `program` on PATH (or in /sbin, /usr/sbin)?
pub fn have_program(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .any(|d| d.join(program).is_file())
}
