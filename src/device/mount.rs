//! Mounting with a kernel or FUSE driver, unmounting on drop, and remounting
//! between phases so reads come from the device.

use super::{run_tool, state};
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub use super::driver::Driver;

pub struct Mounted {
    pub dir: PathBuf,
    pub dev: String,
    pub driver: Driver,
    /// The FUSE daemon serving this mount, for its CPU time.
    pub daemon_pid: Option<u32>,
    mounted: bool,
}

static SEQ: AtomicU32 = AtomicU32::new(0);

fn mount_dir() -> Result<PathBuf> {
    let d = state::dir().join(format!(
        "mnt-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d)
        .map_err(|e| Error::work(format!("cannot create {}: {e}", d.display())))?;
    Ok(d)
}

/// The process whose command line names `dir` (a FUSE daemon).
fn daemon_of(dir: &Path) -> Option<u32> {
    let want = dir.to_string_lossy().into_owned();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            if c.split(|&b| b == 0).any(|a| a == want.as_bytes()) {
                return Some(pid);
            }
        }
    }
    None
}

pub fn mount_at(dev: &str, driver: &Driver, dir: &Path) -> Result<Option<u32>> {
    let d = dir
        .to_str()
        .ok_or_else(|| Error::work("mount directory is not UTF-8"))?;
    match driver {
        Driver::Kernel { fstype, opts } => {
            let mut args = vec!["-t", fstype.as_str()];
            if !opts.is_empty() {
                args.extend(["-o", opts.as_str()]);
            }
            args.extend([dev, d]);
            run_tool("mount", &args)?;
            Ok(None)
        }
        Driver::Fuse { program, args } => {
            let mut a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            a.extend([dev, d]);
            run_tool(program, &a)?;
            Ok(daemon_of(dir))
        }
    }
}

pub fn mount(dev: &str, driver: &Driver) -> Result<Mounted> {
    let dir = mount_dir()?;
    state::add_mount(&dir);
    match mount_at(dev, driver, &dir) {
        Ok(pid) => Ok(Mounted {
            dir,
            dev: dev.to_string(),
            driver: driver.clone(),
            daemon_pid: pid,
            mounted: true,
        }),
        Err(e) => {
            state::remove_mount(&dir);
            let _ = std::fs::remove_dir(&dir);
            Err(e)
        }
    }
}

/// Unmount whatever is mounted at `dir`, waiting out a briefly busy mount;
/// a FUSE mount whose daemon died is detached lazily.
pub fn unmount_path(dir: &Path) -> Result<()> {
    let d = dir
        .to_str()
        .ok_or_else(|| Error::work("mount directory is not UTF-8"))?;
    let mut last = None;
    for i in 0..10 {
        if !super::host::is_mounted(dir) {
            return Ok(());
        }
        match run_tool("umount", &[d]) {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(100 * (i + 1)));
    }
    if run_tool("umount", &["-l", d]).is_ok() {
        return Ok(());
    }
    Err(last.unwrap_or_else(|| Error::work(format!("cannot unmount {d}"))))
}

/// Drop the block device's own buffer cache (BLKFLSBUF), which FUSE drivers
/// read through: after this, reads must come from the device.
pub fn flush_device_cache(dev: &str) {
    const BLKFLSBUF: libc::c_ulong = 0x1261; // _IO(0x12, 97), linux/fs.h
    if let Ok(f) = std::fs::File::open(dev) {
        use std::os::fd::AsRawFd;
        unsafe { libc::ioctl(f.as_raw_fd(), BLKFLSBUF as _, 0) };
    }
}

impl Mounted {
    /// Wait for the FUSE daemon to exit after unmount, so the device is free.
    fn wait_daemon(&self) {
        if let Some(pid) = self.daemon_pid {
            for _ in 0..100 {
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }

    pub fn unmount(&mut self) -> Result<()> {
        if self.mounted {
            unmount_path(&self.dir)?;
            self.mounted = false;
            self.wait_daemon();
        }
        Ok(())
    }

    /// Unmount (which writes back and evicts the filesystem's caches), flush
    /// the device's buffer cache, and mount again.
    pub fn remount(&mut self) -> Result<()> {
        self.unmount()?;
        flush_device_cache(&self.dev);
        self.daemon_pid = mount_at(&self.dev, &self.driver, &self.dir)?;
        self.mounted = true;
        Ok(())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if self.unmount().is_ok() {
            let _ = std::fs::remove_dir(&self.dir);
            state::remove_mount(&self.dir);
        }
    }
}
