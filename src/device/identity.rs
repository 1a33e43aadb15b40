//! Who a block device is, so that the device formatted hours into a run is
//! the one the user confirmed at its start. major:minor alone cannot tell: a
//! replugged stick usually gets the same 8:16, a loop number is reused for
//! any file. So the identity also holds what sysfs says about the hardware
//! (model, serial, WWN, size) and, for a loop device, the (device, inode) of
//! its backing file.

use super::guard::{self, DeviceInfo, Exclusive};
use super::host::Host;
use super::loopdev;
use super::state::Backing;
use crate::{Error, Result};
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub path: String,
    pub devno: String,
    pub size_bytes: u64,
    pub model: String,
    pub serial: String,
    pub wwid: String,
    pub backing: Option<Backing>,
}

impl Identity {
    fn from_info(info: &DeviceInfo, backing: Option<Backing>) -> Identity {
        Identity {
            path: info.path.clone(),
            devno: info.devno.clone(),
            size_bytes: info.size_bytes,
            model: format!("{} {}", info.vendor, info.model).trim().to_string(),
            serial: info.serial.clone(),
            wwid: info.wwid.clone(),
            backing,
        }
    }

    /// The identity of the block device at `dev` now, from sysfs.
    pub fn of(dev: &str) -> Result<Identity> {
        let info = guard::inspect(&Host::real(), dev)?;
        let backing = if info.bus == "loop" {
            loopdev::backing(&info.path)
        } else {
            None
        };
        Ok(Identity::from_info(&info, backing))
    }

    /// The identity confirmed with `info` (the guard's inspection).
    pub fn confirmed(info: &DeviceInfo) -> Identity {
        let backing = if info.bus == "loop" {
            loopdev::backing(&info.path)
        } else {
            None
        };
        Identity::from_info(info, backing)
    }

    /// What differs between the confirmed identity and `now`, in words.
    pub fn differences(&self, now: &Identity) -> Vec<String> {
        let mut d = Vec::new();
        let mut cmp = |what: &str, a: &str, b: &str| {
            if a != b {
                d.push(format!("{what} was \"{a}\", now \"{b}\""));
            }
        };
        cmp("major:minor", &self.devno, &now.devno);
        cmp("model", &self.model, &now.model);
        cmp("serial", &self.serial, &now.serial);
        cmp("WWN", &self.wwid, &now.wwid);
        cmp(
            "size",
            &self.size_bytes.to_string(),
            &now.size_bytes.to_string(),
        );
        let file = |b: &Option<Backing>| match b {
            Some(b) => format!("{} (inode {})", b.file, b.st_ino),
            None => "none".into(),
        };
        if self.backing != now.backing {
            d.push(format!(
                "backing file was {}, now {}",
                file(&self.backing),
                file(&now.backing)
            ));
        }
        d
    }

    /// Immediately before mkfs: nothing else may hold the device (an
    /// O_EXCL open, which fails while it or a partition is mounted or
    /// claimed), and it must still be the device confirmed. mkfs opens it
    /// O_EXCL itself, so the handle is closed just before it runs.
    pub fn confirm(&self) -> Result<()> {
        // A FUSE daemon may be letting go of the device after an unmount.
        let mut tries = 0;
        let held = loop {
            match guard::try_exclusive(&self.path) {
                Ok(f) => break f,
                Err(Exclusive::Busy(_)) if tries < 15 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => {
                    let e = e.into_error();
                    return Err(Error::work(format!("{e}; nothing was formatted")));
                }
            }
        };
        let mut now = Identity::of(&self.path)?;
        // The node opened, not the name looked up: fstat of the held handle.
        use std::os::unix::fs::MetadataExt;
        let rdev = held
            .metadata()
            .map_err(|e| Error::work(format!("{}: {e}", self.path)))?
            .rdev();
        now.devno = format!("{}:{}", libc::major(rdev), libc::minor(rdev));
        if now.backing.is_some() || self.backing.is_some() {
            now.backing = loopdev::backing_of(&held, &self.path);
        }
        let diff = self.differences(&now);
        if diff.is_empty() {
            Ok(())
        } else {
            Err(Error::work(format!(
                "{} is no longer the device confirmed at the start ({}); stopping, nothing was formatted",
                self.path,
                diff.join(", ")
            )))
        }
    }
}
