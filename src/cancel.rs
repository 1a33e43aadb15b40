//! Ctrl-C and SIGTERM: one flag, set by the handler `cmd::cancel_on_ctrl_c`
//! installs, read by every long loop (bench workloads, crash states,
//! advise's budget rounds, format's steps). A loop asks [`check`], which
//! turns a request into [`Error::Interrupted`]: the error's kind, never its
//! text, says the run was stopped (no string comparison decides
//! control flow).

use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the user asked to stop; never cleared in a run.
pub static CANCEL: AtomicBool = AtomicBool::new(false);

/// Ask every running loop to stop at its next check. Returns whether a
/// stop had already been asked for (a second Ctrl-C).
pub fn request() -> bool {
    CANCEL.swap(true, Ordering::SeqCst)
}

/// Has the user asked to stop?
pub fn requested() -> bool {
    CANCEL.load(Ordering::Relaxed)
}

/// Take back a request: advise's budget loop treats a Ctrl-C during its
/// measuring rounds as "stop measuring, advise on what was measured".
pub fn clear() {
    CANCEL.store(false, Ordering::SeqCst);
}

/// `Err(Error::Interrupted)` once the user asked to stop.
pub fn check() -> Result<()> {
    if requested() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_turns_the_check_into_interrupted() {
        // The flag is process-wide: this test only reads it unless it is
        // the one that sets it, and no other library test runs a loop.
        if !requested() {
            assert!(check().is_ok());
        }
        let was = request();
        assert!(requested());
        assert!(matches!(check(), Err(Error::Interrupted)));
        assert!(request(), "a second request says one was already made");
        if !was {
            CANCEL.store(false, Ordering::SeqCst);
        }
    }
}
