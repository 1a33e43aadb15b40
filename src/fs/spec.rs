//! A `--fs` argument (`exfat:4K,32K`): which filesystem and which cluster
//! sizes, checked against what its mkfs accepts. usage, bench, crash and
//! advise all take one.

use crate::fs::{self, Filesystem};
use crate::{Error, Result};

/// A `--fs` argument: `exfat`, `exfat:4K,32K`, `fat32:default`.
#[derive(Clone)]
pub struct FsSpec {
    pub fs: &'static dyn Filesystem,
    /// None: the default cluster.
    pub clusters: Vec<Option<u64>>,
}

impl std::fmt::Debug for FsSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{:?}", self.fs.name(), self.clusters)
    }
}

pub fn parse_fs_spec(s: &str) -> Result<FsSpec> {
    let (name, clusters) = match s.split_once(':') {
        Some((n, c)) => (n, Some(c)),
        None => (s, None),
    };
    let fs = fs::by_name(name.trim()).ok_or_else(|| {
        Error::input(format!(
            "unknown filesystem '{name}' (choose from {})",
            fs::names().join(", ")
        ))
    })?;
    let mut out = Vec::new();
    match clusters {
        None => out.push(None),
        Some(list) => {
            for c in list.split(',') {
                let c = c.trim();
                if c.eq_ignore_ascii_case("default") {
                    out.push(None);
                    continue;
                }
                let n = crate::units::parse_size(c)
                    .map_err(|e| Error::input(format!("--fs {s}: {e}")))?;
                check_cluster(fs, n)?;
                out.push(Some(n));
            }
        }
    }
    Ok(FsSpec { fs, clusters: out })
}

/// Is `n` a cluster size this filesystem's mkfs accepts at all?
pub fn check_cluster(fs: &dyn Filesystem, n: u64) -> Result<()> {
    let (lo, hi) = fs.cluster_range();
    if !n.is_power_of_two() || n < lo || n > hi {
        return Err(Error::input(format!(
            "{} clusters are a power of two from {} to {}, not {}",
            fs.name(),
            crate::units::short(lo),
            crate::units::short(hi),
            n
        )));
    }
    Ok(())
}
