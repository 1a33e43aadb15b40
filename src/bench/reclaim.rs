//! A virtual machine whose hypervisor takes back the memory the guest frees
//! (free page reporting: the virtio balloon's reporting feature). A page
//! freed, reported and taken back costs a fault in the hypervisor the next
//! time it is touched, unseen by the guest and charged to whatever first
//! writes into it: a run whose page cache lands on such pages pays for the
//! host's bookkeeping, not for the filesystem. On the machine these figures
//! come from (2 cores, 24 GB free), exfat-fuse reading a 256 MiB file cold
//! took 0.21-0.28 s when the run reused memory freed under a second before
//! and 0.35-0.75 s after 3 s idle (the daemon's CPU time 0.12 s against
//! 0.25-0.52 s, for the same 2,054 FUSE requests: its copies ran slower);
//! with reporting delayed by a minute, 0.23-0.30 s after the same 3 s.
//!
//! Some kernels let the guest set how long a page stays free before it is
//! reported (`min_free_ms` of the `page_reporting` module); there fsfit
//! delays it for the length of the measuring, as it raises its priority,
//! and puts the value back when the measuring ends (on an error and on
//! Ctrl-C too; after a SIGKILL, `fsfit cleanup` does, from the run's
//! record). Memory freed during the bench then goes back to the host a
//! minute later than it would have. Elsewhere the report says the figures
//! may carry it.

use std::path::{Path, PathBuf};

/// The virtio balloon devices' feature bits, one character per bit.
const VIRTIO_DEVICES: &str = "/sys/bus/virtio/drivers/virtio_balloon";

/// VIRTIO_BALLOON_F_REPORTING (virtio specification 1.2, 5.5.3).
const REPORTING_BIT: usize = 5;

/// The delay some kernels offer, in milliseconds.
const MIN_FREE_MS: &str = "/sys/module/page_reporting/parameters/min_free_ms";

/// How long a freed page stays the guest's while fsfit measures: longer
/// than a run and the preparing between runs, which reuse what the runs
/// before them freed.
pub const HOLD_MS: u64 = 60_000;

/// Whether a `features` text of a virtio device offers free page reporting.
pub fn reports_free_pages(features: &str) -> bool {
    features.trim().as_bytes().get(REPORTING_BIT) == Some(&b'1')
}

/// Whether this machine's hypervisor takes back the memory it frees.
pub fn hypervisor_reclaims() -> bool {
    let Ok(dir) = std::fs::read_dir(VIRTIO_DEVICES) else {
        return false;
    };
    dir.flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("virtio"))
        .any(|e| {
            std::fs::read_to_string(e.path().join("features")).is_ok_and(|f| reports_free_pages(&f))
        })
}

/// The delay as it was, to put back.
pub struct Held {
    path: PathBuf,
    before: String,
}

impl Held {
    /// What the report says.
    pub fn said(&self) -> String {
        format!(
            "{}: each freed page kept {} s before it goes back (min_free_ms {} while measuring, \
then {} again)",
            RECLAIMS,
            HOLD_MS / 1000,
            HOLD_MS,
            self.before
        )
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.path, &self.before);
        crate::device::state::remove_setting(&self.path);
    }
}

/// How the report names what the hypervisor does.
pub const RECLAIMS: &str =
    "the hypervisor takes back what this machine frees (free page reporting)";

/// What the report says when the delay could not be set.
pub const NOT_HELD: &str = "the hypervisor takes back what this machine frees (free page \
reporting) and this kernel sets no delay: a run that touches memory freed seconds before pays the \
host's faults";

/// What fsfit found, and did, about the delay before freed pages go back.
pub enum Hold {
    /// The hypervisor takes nothing back: nothing to do or say.
    NotNeeded,
    /// Held off by fsfit; put back when this drops.
    Held(Held),
    /// Already as long or longer, as another program (another fsfit
    /// measuring) set it, which then puts it back itself.
    ByAnother(u64),
    /// This kernel sets no delay, or fsfit may not write it (not root).
    Unavailable,
}

/// Delay the reporting of freed pages while the returned guard lives, on a
/// machine whose hypervisor takes freed memory back.
pub fn hold_off() -> Hold {
    if !hypervisor_reclaims() {
        return Hold::NotNeeded;
    }
    hold_at(Path::new(MIN_FREE_MS))
}

fn hold_at(path: &Path) -> Hold {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Hold::Unavailable;
    };
    let before = text.trim().to_string();
    let Ok(ms) = before.parse::<u64>() else {
        return Hold::Unavailable;
    };
    if ms >= HOLD_MS {
        return Hold::ByAnother(ms);
    }
    // Recorded first, so that `fsfit cleanup` puts it back after a SIGKILL.
    crate::device::state::add_setting(crate::device::state::Setting {
        path: path.to_string_lossy().into_owned(),
        before: before.clone(),
        set: HOLD_MS.to_string(),
    });
    if std::fs::write(path, HOLD_MS.to_string()).is_err() {
        crate::device::state::remove_setting(path);
        return Hold::Unavailable;
    }
    Hold::Held(Held {
        path: path.to_path_buf(),
        before,
    })
}

impl Hold {
    /// What the report says about freed memory: None on a machine whose
    /// hypervisor takes none back.
    pub fn said(&self) -> Option<String> {
        match self {
            Hold::NotNeeded => None,
            Hold::Held(h) => Some(h.said()),
            Hold::ByAnother(ms) => Some(format!(
                "{RECLAIMS}: each freed page kept {} s before it goes back (min_free_ms {ms}, as \
another program set it)",
                ms / 1000
            )),
            Hold::Unavailable => Some(NOT_HELD.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reporting_is_the_fifth_feature_bit() {
        // A Firecracker balloon: stats (1), deflate on OOM (2), reporting (5).
        assert!(reports_free_pages(
            "0110010100000000000000000000000010000000\n"
        ));
        assert!(!reports_free_pages(
            "0110000100000000000000000000000010000000\n"
        ));
        assert!(!reports_free_pages("0110"));
        assert!(!reports_free_pages(""));
    }

    #[test]
    fn the_delay_is_held_then_put_back_and_never_taken_from_another_holder() {
        let dir = tempfile::tempdir().unwrap();
        let knob = dir.path().join("min_free_ms");
        std::fs::write(&knob, "0\n").unwrap();
        let Hold::Held(held) = hold_at(&knob) else {
            panic!("a writable delay of 0 is held off");
        };
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), HOLD_MS.to_string());
        assert!(held
            .said()
            .contains("min_free_ms 60000 while measuring, then 0 again"));
        drop(held);
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), "0");
        // Already held (another fsfit measuring): left to that one.
        std::fs::write(&knob, HOLD_MS.to_string()).unwrap();
        let by_another = hold_at(&knob);
        assert!(matches!(by_another, Hold::ByAnother(HOLD_MS)));
        assert!(by_another
            .said()
            .unwrap()
            .contains("as another program set it"));
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), HOLD_MS.to_string());
        let absent = hold_at(&dir.path().join("absent"));
        assert!(matches!(absent, Hold::Unavailable));
        assert_eq!(absent.said().as_deref(), Some(NOT_HELD));
        assert_eq!(Hold::NotNeeded.said(), None);
    }
}
