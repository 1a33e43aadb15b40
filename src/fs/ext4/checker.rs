//! The ext4 checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{fsck_verdict, Checker};

pub fn checker() -> Checker {
    Checker {
        program: "e2fsck",
        // -f: check even a volume marked clean; -n: open read-only, answer no.
        check_args: &["-f", "-n"],
        // -p would stop on problems it cannot fix safely; -y fixes everything.
        repair_args: &["-f", "-y"],
        repair_stdin: "",
        verdict: fsck_verdict,
    }
}
