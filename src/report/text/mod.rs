//! Text views for a terminal, one file per command: the usage table, the
//! bench table, the advice, the volume info.

pub mod advise;
pub mod bench;
pub mod crash;
pub mod flash;
pub mod info;
pub mod usage;

/// A count with its noun: "1 file", "1,234 files", "1 symlink".
pub fn count(n: u64, one: &str) -> String {
    let n_s = usage::thousands(n);
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n_s} {one}s")
    }
}
