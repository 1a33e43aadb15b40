//! fsfit as a library: the binary in main.rs and the integration tests use it.
//!
//! Data flows one way: a tree walk ([`scan`]) feeds the filesystem models
//! ([`fs`]) into a usage report ([`usage`]); a target ([`device`]) is
//! formatted and mounted for the workloads ([`bench`]); [`report`] turns both
//! into tables, JSON, CSV and HTML; [`advise`] and [`info`] sit on top.
//!
//! What each folder holds is described once, in the README's Layout section.

/// How every message fsfit prints on stderr begins (errors, warnings,
/// notes): one place, which [`say!`] and the width of a one-line error
/// (units.rs) both read.
pub const PREFIX: &str = "fsfit: ";

/// One line on stderr, after [`PREFIX`]: `say!("warning: {x}")`.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}{}", $crate::PREFIX, format_args!($($arg)*))
    };
}

pub mod advise;
pub mod atomic;
pub mod bench;
pub mod cancel;
pub mod cli;
pub mod cmd;
pub mod crash;
pub mod device;
pub mod error;
pub mod flash;
pub mod format;
pub mod fs;
pub mod info;
pub mod manifest;
pub mod quote;
pub mod report;
pub mod scan;
pub mod units;
pub mod usage;

pub use error::{Error, Result};
