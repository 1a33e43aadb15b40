//! The fat checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{zero_one_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "fsck.fat",
        // -n: check only; -V would re-read everything (slow, adds nothing here).
        check_args: &["-n"],
        repair_args: &["-a", "-w"],
        repair_stdin: "",
        verdict: zero_one_verdict,
    }
}
