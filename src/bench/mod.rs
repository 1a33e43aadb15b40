//! `fsfit bench`: format, mount and measure filesystem × cluster-size
//! configs on an image, a device or a mounted directory.
//!
//! The runs are Linux only; results.rs, kinds.rs and stats.rs (what the
//! reports read) build on every system (#22 item 7).

#[cfg(target_os = "linux")]
pub mod cache;
#[cfg(target_os = "linux")]
pub mod counters;
#[cfg(target_os = "linux")]
pub mod flash;
pub mod kinds;
pub mod results;
#[cfg(target_os = "linux")]
mod runner;
pub mod settle;
#[cfg(target_os = "linux")]
pub(crate) use runner::lab;
pub mod stats;
#[cfg(target_os = "linux")]
pub mod workloads;

/// The runner's entry points, for cmd/bench and advise's measuring rounds.
#[cfg(target_os = "linux")]
pub use runner::{run, space_needed, Options};

/// The scale `--quick` picks: the two-config run ext4 + exFAT (FUSE) takes
/// under three minutes on a 2-core machine (see BENCHMARKS.md).
pub const QUICK_SCALE: f64 = 0.02;

/// With `--quick`, each workload family is grown until one run takes at
/// least this long: at 0.02 alone most writes took 0.02 s and varied by
/// 12-29 % between runs.
pub const QUICK_MIN_SECONDS: f64 = 0.5;
