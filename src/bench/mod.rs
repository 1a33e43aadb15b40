//! `fsfit bench`: format, mount and measure filesystem × cluster-size
//! configs on an image, a device or a mounted directory.

pub mod cache;
pub mod counters;
/// Moved to fs/ (#22): re-exported until bench, crash and advise import it from there.
pub mod flash;
pub mod results;
mod runner;
pub(crate) use runner::lab;
pub mod stats;
pub mod workloads;

/// Moved to device::target (one target layer, #22); re-exported for advise.
pub use runner::{run, space_needed, Options};

/// The scale `--quick` picks: the two-config run ext4 + exFAT (FUSE) takes
/// under three minutes on a 2-core machine (see BENCHMARKS.md).
pub const QUICK_SCALE: f64 = 0.02;

/// With `--quick`, each workload family is grown until one run takes at
/// least this long: at 0.02 alone most writes took 0.02 s and varied by
/// 12-29 % between runs.
pub const QUICK_MIN_SECONDS: f64 = 0.5;
