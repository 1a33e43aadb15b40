//! The f2fs checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{fsck_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "fsck.f2fs",
        check_args: &["-f", "--dry-run"],
        repair_args: &["-f", "-y"],
        repair_stdin: "",
        verdict: fsck_verdict,
    }
}
