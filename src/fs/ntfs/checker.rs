//! The ntfs checker, for `fsfit crash`: how to check an image read-only,
//! how to repair it, and what the exit codes mean.

use crate::fs::{Checker, Verdict};

pub fn checker() -> Checker {
    Checker {
        // ntfs-3g's only checker: it checks $MFT/$MFTMirr, the boot sectors
        // and the dirty flag, far less than chkdsk; that is what Linux has.
        program: "ntfsfix",
        check_args: &["-n"],
        repair_args: &["-d"],
        repair_stdin: "",
        verdict: ntfsfix_verdict,
    }
}

/// ntfsfix: 0 when the volume is fine (or was fixed), 1 otherwise.
fn ntfsfix_verdict(code: i32) -> Verdict {
    match code {
        0 => Verdict::Clean,
        _ => Verdict::Errors,
    }
}
