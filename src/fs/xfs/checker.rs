//! The xfs checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{zero_one_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "xfs_repair",
        // -f: the target is an image file; -n: no modify.
        check_args: &["-f", "-n"],
        // -L: zero a dirty log the tool cannot replay, as a user whose
        // volume no longer mounts is told to do.
        repair_args: &["-f", "-L"],
        repair_stdin: "",
        verdict: zero_one_verdict,
    }
}
