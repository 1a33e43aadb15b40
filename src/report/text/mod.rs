//! Text views for a terminal, one file per command: the usage table, the
//! bench table, the advice, the volume info.

pub mod advise;
pub mod bench;
pub mod crash;
pub mod flash;
pub mod info;
pub mod usage;

pub use crate::units::count;
