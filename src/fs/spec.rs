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

/// The filesystem `name` names, or why none: the choices, or, for a
/// driver's name typed for the filesystem ("vfat", "ntfs-3g"), the
/// filesystems it drives.
pub fn named(name: &str) -> Result<&'static dyn Filesystem> {
    fs::by_name(name.trim()).ok_or_else(|| {
        // Read from the registry's drivers.
        let typed = name.trim().to_ascii_lowercase();
        let driven: Vec<&str> = fs::all()
            .iter()
            .filter(|f| {
                let d = f.info().drivers;
                d.kernel == Some(typed.as_str())
                    || d.fuse.is_some_and(|u| {
                        u.program == typed || u.program.strip_prefix("mount.") == Some(&typed)
                    })
            })
            .map(|f| f.name())
            .collect();
        if !driven.is_empty() {
            return Error::input(format!(
                "unknown filesystem '{name}': {typed} is the Linux driver of {}; name {}",
                crate::units::and_list(&driven),
                if driven.len() == 1 { "it" } else { "one" }
            ));
        }
        Error::input(format!(
            "unknown filesystem '{name}' (choose from {})",
            fs::names().join(", ")
        ))
    })
}

pub fn parse_fs_spec(s: &str) -> Result<FsSpec> {
    let (name, clusters) = match s.split_once(':') {
        Some((n, c)) => (n, Some(c)),
        None => (s, None),
    };
    let fs = named(name)?;
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
                let n = crate::units::parse_size(c).map_err(|e| another_fs(s, c).unwrap_or(e))?;
                check_cluster(fs, n)?;
                out.push(Some(n));
            }
        }
    }
    Ok(FsSpec { fs, clusters: out })
}

/// A cluster list item that names a filesystem (`fat32:8K,exfat`): each
/// filesystem takes its own `--fs`, said with the line to type.
fn another_fs(spec: &str, item: &str) -> Option<Error> {
    if !names_fs(item) {
        return None;
    }
    let parts: Vec<String> = split_specs(spec)
        .iter()
        .map(|p| format!("--fs {}", crate::quote::quote(p)))
        .collect();
    Some(Error::input(format!(
        "'{item}' is a filesystem, not a cluster size: give each filesystem its own --fs ({})",
        parts.join(" ")
    )))
}

/// Does this comma-separated item begin a spec of its own (`exfat`,
/// `exfat:4K`) rather than give a cluster?
fn names_fs(item: &str) -> bool {
    let name = item.split(':').next().unwrap_or(item);
    fs::by_name(name.trim()).is_some()
}

/// `fat32:8K,16K,exfat:4K` as the separate specs it meant.
fn split_specs(spec: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in spec.split(',') {
        match out.last_mut() {
            Some(last) if !names_fs(item) => {
                last.push(',');
                last.push_str(item);
            }
            _ => out.push(item.to_string()),
        }
    }
    out
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

#[cfg(test)]
mod tests {
    /// A driver's name is answered with the filesystems it drives, from
    /// the registry: vfat drives the three FATs, ntfs-3g and ntfs3 NTFS.
    #[test]
    fn a_drivers_name_says_which_filesystems_it_drives() {
        let e = super::named("vfat").err().unwrap().to_string();
        assert!(
            e.contains("vfat is the Linux driver of fat12, fat16 and fat32; name one"),
            "{e}"
        );
        for d in ["ntfs-3g", "NTFS3", "exfat-fuse"] {
            let e = super::named(d).err().unwrap().to_string();
            assert!(
                e.contains("is the Linux driver of ntfs") || e.contains("driver of exfat"),
                "{e}"
            );
            assert!(e.ends_with("; name it"), "{e}");
        }
        // Two filesystems in one --fs: the two --fs to type instead.
        let e = super::parse_fs_spec("fat32:8K,16K,exfat:32K")
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            e,
            "'exfat:32K' is a filesystem, not a cluster size: give each filesystem its own --fs \
(--fs fat32:8K,16K --fs exfat:32K)"
        );
        let e = super::parse_fs_spec("fat32:8K,big")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("'big' is not a size"), "{e}");
        let e = super::named("hfs+").err().unwrap().to_string();
        assert!(e.contains("(choose from fat12, "), "{e}");
        assert_eq!(super::named(" exfat ").unwrap().name(), "exfat");
    }
}
