//! The btrfs checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{zero_one_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "btrfs",
        check_args: &["check", "--readonly"],
        // --repair asks for confirmation on a terminal; answer it.
        repair_args: &["check", "--repair"],
        repair_stdin: "y\n",
        verdict: zero_one_verdict,
    }
}
