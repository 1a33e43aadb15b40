//! What several commands take: value parsers (sizes, budgets, filesystem
//! specs, the names a registry lists) and the argument groups usage and
//! advise share.

use crate::fs::FsSpec;
use clap::Args;
use std::path::PathBuf;

/// A size such as 64G (GiB), 64GB (10^9), 512M, 4096.
pub fn size(s: &str) -> crate::Result<u64> {
    crate::units::parse_size(s)
}

/// A time budget (`90s`, `10m`, `1h30m`): at least 30 s, one short pass of
/// one config.
pub fn budget(s: &str) -> crate::Result<std::time::Duration> {
    let d = crate::units::parse_duration(s)?;
    if d < std::time::Duration::from_secs(30) {
        return Err(crate::Error::input(format!(
            "'{s}' is too short (give at least 30s: one short pass of one config)"
        )));
    }
    Ok(d)
}

/// The size of a volume to plan, at least 1 MiB: a size (`64GB`, `64g`),
/// or a block device or image file whose capacity is read (read-only).
pub fn volume_size(s: &str) -> crate::Result<u64> {
    let looks_like_path = s.contains('/') || std::path::Path::new(s).exists();
    let n = match size(s) {
        Ok(n) => n,
        Err(_) if looks_like_path => crate::units::capacity_of(std::path::Path::new(s))?,
        Err(e) => return Err(e),
    };
    if n < 1 << 20 {
        return Err(crate::Error::input("too small to plan (at least 1M)"));
    }
    Ok(n)
}

/// `exfat`, `exfat:4K,32K`, `fat32:default`.
pub fn fs_spec(s: &str) -> crate::Result<FsSpec> {
    crate::fs::spec::parse_fs_spec(s)
}

/// `--fs FS[:CLUSTER,...]`: parsed by [`fs_spec`]; help and completions
/// offer the registry's filesystem names.
#[derive(Clone)]
pub struct FsSpecParser;

impl clap::builder::TypedValueParser for FsSpecParser {
    type Value = FsSpec;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<FsSpec, clap::Error> {
        let text = clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)?;
        fs_spec(&text).map_err(|e| {
            let name = arg.map(|a| a.to_string()).unwrap_or_default();
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value '{text}' for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            crate::fs::names()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}

/// `--workloads` of bench: the names bench/kinds.rs declares.
pub fn bench_workloads() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::bench::kinds::names())
}

/// `--workloads` of crash: the crash workloads' names (their code, and so
/// their names, exist on Linux only, where crash runs).
pub fn crash_workloads() -> clap::builder::ValueParser {
    #[cfg(target_os = "linux")]
    return clap::builder::PossibleValuesParser::new(crate::crash::workloads::names()).into();
    #[cfg(not(target_os = "linux"))]
    return clap::builder::NonEmptyStringValueParser::new().into();
}

/// `--for`: the systems advise/systems.rs knows.
pub fn systems() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::advise::systems::names())
}

/// `--flash`: the flash profiles' names (src/flash/profiles.json), and each
/// behind each port (`usb3-stick@usb2`) or in a state (`usb2-stick+new`),
/// accepted but not listed: the help and `--list-profiles` say how to name
/// one.
pub fn flash_profiles() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::flash::profile::names().into_iter().map(
        |name| {
            let derived = name.contains(['@', '+']);
            clap::builder::PossibleValue::new(name).hide(derived)
        },
    ))
}

/// The tree to walk (usage, advise).
#[derive(Args, Debug)]
pub struct TreeArgs {
    /// Files or directories to measure [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Walker threads [default: four per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024), help_heading = "Tuning")]
    pub threads: Option<u64>,
}

/// The volume being planned (usage, advise).
#[derive(Args, Debug)]
pub struct VolumeArgs {
    /// Size of the volume being planned: 64GB (10^9), 64G (GiB), 1.5T,
    /// 512M, ...; or a drive or image file (DEV|IMAGE) whose size is read,
    /// read-only [default: 64G, said as assumed in the output]
    #[arg(long, value_name = "SIZE|DEV|IMAGE", allow_hyphen_values = true, value_parser = volume_size)]
    pub volume: Option<u64>,
}

impl VolumeArgs {
    /// The volume's bytes, and whether they were assumed (no --volume).
    pub fn bytes(&self) -> (u64, bool) {
        match self.volume {
            Some(v) => (v, false),
            None => (crate::usage::ASSUMED_VOLUME, true),
        }
    }
}
