//! `fsfit bench`: format, mount and measure filesystem × cluster-size
//! configs on an image, a device or a mounted directory.
//!
//! Formatting runs are Linux only; `--dir` also runs on Windows (windows.rs),
//! through the same workloads and measuring loop (measure.rs). results.rs,
//! kinds.rs, relative.rs and stats.rs (what the reports read) build on every
//! system, as the reports do.

#[cfg(target_os = "linux")]
pub mod cache;
#[cfg(any(target_os = "linux", windows))]
pub mod counters;
pub mod flags;
#[cfg(target_os = "linux")]
pub mod flash;
pub mod kinds;
#[cfg(any(target_os = "linux", windows))]
pub mod measure;
#[cfg(target_os = "linux")]
mod prepare;
#[cfg(target_os = "linux")]
pub mod priority;
#[cfg(target_os = "linux")]
pub mod reclaim;
pub mod relative;
pub mod results;
#[cfg(target_os = "linux")]
mod room;
#[cfg(target_os = "linux")]
mod runner;
pub mod settle;
#[cfg(target_os = "linux")]
pub(crate) use measure::lab;
pub mod stats;
#[cfg(windows)]
pub mod windows;
#[cfg(any(target_os = "linux", windows))]
pub mod workloads;

/// The runner's entry points, for cmd/bench and advise's measuring rounds.
#[cfg(target_os = "linux")]
pub use prepare::check_given_size;
#[cfg(target_os = "linux")]
pub use runner::{run, space_needed, Options};
/// On Windows: `--dir` only.
#[cfg(windows)]
pub use windows::{run, Options};

/// The scale `--quick` picks: the two-config run ext4 + exFAT (FUSE) takes
/// under three minutes on a 2-core machine (see BENCHMARKS.md).
pub const QUICK_SCALE: f64 = 0.02;

/// With `--quick`, each workload family is grown until one run takes at
/// least this long: at 0.02 alone most writes took 0.02 s and varied by
/// 12-29 % between runs.
pub const QUICK_MIN_SECONDS: f64 = 0.5;
