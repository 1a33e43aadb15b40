//! `fsfit crash`: what survives pulling the drive out. Each config ×
//! workload is recorded once through fsfit's own write recorder (FUSE file
//! under a loop device), then the crash states of the log under the chosen
//! device model (faults.rs) are built, served from memory by the same FUSE
//! server in copy-on-write mode (one per job, kept for the run), mounted,
//! compared with the workload's oracle and checked.
//!
//! The runs are Linux only; results.rs (what the reports read) and the
//! log, states, faults and oracle logic build on every system.

#[cfg(target_os = "linux")]
pub mod check;
pub mod faults;
pub mod log;
pub mod oracle;
#[cfg(target_os = "linux")]
pub mod recorder;
pub mod results;
pub mod states;
#[cfg(target_os = "linux")]
pub mod workloads;

/// Moved to results.rs (data the reports read).
pub use results::{CrashResult, Outcomes, Report, Skipped, Worst, SCHEMA};

#[cfg(target_os = "linux")]
mod run;
#[cfg(target_os = "linux")]
pub use run::{image_bytes, replay, run, unique, Options, Slot};
