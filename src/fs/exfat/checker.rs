//! The exfat checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{fsck_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "fsck.exfat",
        check_args: &["-n"],
        repair_args: &["-y"],
        repair_stdin: "",
        verdict: fsck_verdict,
    }
}
