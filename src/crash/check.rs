//! One crash state, judged as a user would meet it: the filesystem's checker
//! read-only, then a read-only mount compared with the oracle, then (when
//! either failed) a repair with the checker and another look.

use super::oracle::{Findings, Observed, Oracle};
use crate::device::mount::{self, Driver};
use crate::fs::{Checker, Verdict};
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Moved to results.rs (the reports read it on any system).
pub use super::results::Steps;

/// What happened to one state's image; the same for every crash point
/// that leaves the same image.
#[derive(Clone, Debug)]
pub struct Looked {
    pub mountable: bool,
    /// None: the filesystem has no checker.
    pub clean: Option<bool>,
    /// Some(true): repaired to clean; Some(false): still not clean.
    pub repaired: Option<bool>,
    /// The files as mounted (after repair when it did not mount as is).
    pub seen: Observed,
    /// The checker's or mount's last words when something failed.
    pub note: String,
}

/// One crash state: its image's fate and what it lost.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub looked: Looked,
    pub findings: Findings,
}

/// Run a checker on `image`; its verdict and last line of output.
pub fn run_checker(ck: &Checker, args: &[&str], stdin: &str, image: &Path) -> (Verdict, String) {
    ck.run_with(args, stdin, image)
}

/// How to mount a state read-only: the run's driver with `ro` (and the
/// options a state needs, such as XFS's nouuid when several copies of one
/// volume are mounted at once).
pub fn ro_driver(d: &Driver, extra: &str) -> Driver {
    let join = |a: &str| {
        if extra.is_empty() {
            a.to_string()
        } else {
            format!("{a},{extra}")
        }
    };
    match d {
        Driver::Kernel { fstype, .. } => Driver::Kernel {
            fstype: fstype.clone(),
            opts: join("ro"),
        },
        Driver::Fuse { program, args } => {
            let mut a = args.clone();
            a.extend(["-o".to_string(), join("ro")]);
            Driver::Fuse {
                program: program.clone(),
                args: a,
            }
        }
    }
}

/// Mounts one worker's states, one after another, at one directory: the
/// kernel's through the worker's loop device with mount(2) directly (a
/// mount(8) process per state would cost more than the mount), FUSE drivers
/// on the image file.
pub struct Mounter {
    dir: PathBuf,
    driver: Driver,
    image: PathBuf,
    dev: Option<String>,
}

impl Mounter {
    pub fn new(driver: &Driver, image: &Path, dev: Option<&str>) -> Result<Mounter> {
        let dir = crate::device::state::dir().join(format!(
            "crash-mnt-{}-{}",
            std::process::id(),
            super::unique()
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::work(format!("cannot create {}: {e}", dir.display())))?;
        crate::device::state::add_mount(&dir);
        Ok(Mounter {
            dir,
            driver: driver.clone(),
            image: image.to_path_buf(),
            dev: dev.map(str::to_string),
        })
    }

    /// Mount the next states with `driver` (the mount folder is kept).
    pub fn set_driver(&mut self, driver: &Driver) {
        self.driver = driver.clone();
    }

    fn mount(&self) -> Result<()> {
        match (&self.driver, &self.dev) {
            (Driver::Kernel { fstype, opts }, Some(dev)) => {
                // The loop device's own cache may hold the previous state's blocks.
                mount::flush_device_cache(dev);
                let data: Vec<&str> = opts
                    .split(',')
                    .filter(|o| !o.is_empty() && *o != "ro")
                    .collect();
                let c = |s: &str| std::ffi::CString::new(s).map_err(|e| Error::work(e.to_string()));
                let (src, dir, t, data) = (
                    c(dev)?,
                    c(&self.dir.to_string_lossy())?,
                    c(fstype)?,
                    c(&data.join(","))?,
                );
                let r = unsafe {
                    libc::mount(
                        src.as_ptr(),
                        dir.as_ptr(),
                        t.as_ptr(),
                        libc::MS_RDONLY,
                        data.as_ptr().cast(),
                    )
                };
                if r != 0 {
                    return Err(Error::work(format!(
                        "mount -t {fstype} -o {opts}: {}",
                        std::io::Error::last_os_error()
                    )));
                }
                Ok(())
            }
            (_, Some(dev)) => {
                mount::flush_device_cache(dev);
                mount::mount_at(dev, &self.driver, &self.dir)?;
                Ok(())
            }
            _ => {
                mount::mount_at(&self.image.to_string_lossy(), &self.driver, &self.dir)?;
                Ok(())
            }
        }
    }

    fn unmount(&self) -> Result<()> {
        if matches!(self.driver, Driver::Kernel { .. }) {
            let dir = std::ffi::CString::new(self.dir.to_string_lossy().as_bytes())
                .map_err(|e| Error::work(e.to_string()))?;
            for i in 0..20 {
                if unsafe { libc::umount2(dir.as_ptr(), 0) } == 0 {
                    return Ok(());
                }
                std::thread::sleep(std::time::Duration::from_millis(10 * (i + 1)));
            }
        }
        mount::unmount_path(&self.dir)?;
        Ok(())
    }

    /// Mount the state, read what the oracle knows of, unmount.
    fn look(&self, oracle: &Oracle, t: &mut Steps) -> Result<Observed> {
        let t0 = Instant::now();
        self.mount()?;
        let t1 = Instant::now();
        let f = oracle.observe(&self.dir);
        let t2 = Instant::now();
        let r = self.unmount();
        t.mount += (t1 - t0).as_secs_f64();
        t.read += (t2 - t1).as_secs_f64();
        t.unmount += t2.elapsed().as_secs_f64();
        r.map(|_| f)
    }
}

impl Drop for Mounter {
    fn drop(&mut self) {
        if mount::unmount_path(&self.dir).is_ok() {
            let _ = std::fs::remove_dir(&self.dir);
            crate::device::state::remove_mount(&self.dir);
        }
    }
}

/// Judge one state. The mount comes first, as when the stick is plugged
/// back in: it replays a journal (ext4, XFS), and the read-only checks of
/// e2fsck and xfs_repair skip that replay and would report the unreplayed
/// metadata as errors no user ever meets. What the replay or a repair
/// writes lands in the state server's scratch layer, dropped with the state.
pub fn judge(checker: Option<&Checker>, m: &Mounter, oracle: &Oracle, t: &mut Steps) -> Looked {
    let mut notes = Vec::new();
    let mut seen = None;
    match m.look(oracle, t) {
        Ok(f) => seen = Some(f),
        Err(e) => notes.push(e.to_string()),
    }
    let mountable = seen.is_some();
    let mut clean = None;
    let mut repaired = None;
    if let Some(ck) = checker {
        let t0 = Instant::now();
        let (v, said) = run_checker(ck, ck.check_args, "", &m.image);
        t.check += t0.elapsed().as_secs_f64();
        clean = Some(v == Verdict::Clean);
        if v != Verdict::Clean {
            notes.push(said);
        }
        if v != Verdict::Clean || !mountable {
            let t0 = Instant::now();
            let (_, said) = run_checker(ck, ck.repair_args, ck.repair_stdin, &m.image);
            let (v, again) = run_checker(ck, ck.check_args, "", &m.image);
            t.repair += t0.elapsed().as_secs_f64();
            repaired = Some(v == Verdict::Clean);
            if v != Verdict::Clean {
                notes.push(format!("after repair ({said}): {again}"));
            }
            if !mountable {
                match m.look(oracle, t) {
                    Ok(f) => seen = Some(f),
                    Err(e) => notes.push(format!("after repair: {e}")),
                }
            }
        }
    }
    Looked {
        mountable,
        clean,
        repaired,
        seen: seen.unwrap_or_else(|| oracle.nothing()),
        note: notes.join("; "),
    }
}

/// A state's findings from its image's fate.
pub fn outcome(looked: &Looked, oracle: &Oracle, cut: u64) -> Outcome {
    Outcome {
        findings: oracle.judge(&looked.seen, cut),
        looked: looked.clone(),
    }
}

/// What makes a state's image: states with equal keys have equal images.
pub type Key = (
    usize,
    Vec<u32>,
    Option<super::states::Tear>,
    Option<super::states::Gc>,
);

/// States whose images are equal share a key: the prefix grown over every
/// record it can absorb (applied extras, flushes, marks), the extras left,
/// and the device's damage.
pub fn image_key(records: &[super::log::Record], s: &super::states::State) -> Key {
    let mut p = s.prefix;
    let mut i = 0;
    while p < records.len() {
        if s.extra.get(i) == Some(&(p as u32)) {
            i += 1;
        } else if records[p].kind == super::log::Kind::Write {
            break;
        }
        p += 1;
    }
    (p, s.extra[i..].to_vec(), s.tear.clone(), s.gc.clone())
}
