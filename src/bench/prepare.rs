//! Preparing bench's target before any config runs: a temporary or given
//! image attached to a loop device, a confirmed drive, or a mounted folder,
//! with what its cold-cache and counters can promise.

use super::counters;
use super::measure::free_space;
use super::results::TargetInfo;
use super::runner::{space_needed, Options, DEFAULT_IMAGE};
use crate::device::confirm::{self, Answer, Confirmed};
use crate::device::guard::DeviceInfo;
use crate::device::identity::Identity;
use crate::device::image;
use crate::device::loopdev::LoopDev;
use crate::device::target::{self, Sizing, TargetSpec};
use crate::info::describe::{describe_contents, describe_file_briefly};
use crate::units::{iec, short};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Counters of the block device behind a mounted directory, if it has one.
fn counters_of_dir(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let p = counters::stat_path_of_devno(major, minor);
    p.exists().then_some(p)
}

/// The target, set up: where each config's mkfs goes (none in dir mode).
pub(super) struct Prepared {
    pub(super) info: TargetInfo,
    /// Block device to format and mount (loop device or real device).
    pub(super) dev: Option<String>,
    /// Counters file read around each phase.
    pub(super) counters: Option<PathBuf>,
    pub(super) volume: u64,
    /// Checked, with an exclusive open, immediately before every mkfs.
    pub(super) identity: Option<Identity>,
    /// Device reads and writes may be served by the host's page cache
    /// (a buffered loop device, an image on a RAM-backed filesystem).
    pub(super) host_cache: bool,
    pub(super) _loop: Option<LoopDev>,
    pub(super) _temp: Option<image::TempDir>,
}

pub(super) fn prepare_target(opts: &Options) -> Result<Prepared> {
    let need = space_needed(opts);
    match &opts.target {
        TargetSpec::TempImage { size } => {
            let t = image::TempDir::new()?;
            let path = t.path().join("bench.img");
            let default = DEFAULT_IMAGE.max(need);
            prepare_image(opts, need, path, (*size, default, false), Some(t))
        }
        TargetSpec::Image {
            path,
            size,
            overwrite,
        } => prepare_image(
            opts,
            need,
            path.clone(),
            (*size, DEFAULT_IMAGE, *overwrite),
            None,
        ),
        TargetSpec::Device {
            dev,
            yes_erase,
            allow_fixed,
        } => prepare_device(opts, need, dev, yes_erase.as_deref(), *allow_fixed),
        TargetSpec::Dir(dir) => prepare_dir(opts, need, dir),
    }
}

/// An image of `size` bytes holds the workloads at this scale, or the one
/// line that says what to pass: bad input (exit 2), even where it is only
/// known once an existing image's size has been read.
fn image_holds(opts: &Options, need: u64, size: u64) -> Result<()> {
    if size >= need {
        return Ok(());
    }
    // Short enough for one line of 100 columns.
    Err(Error::input(format!(
        "the image is {}, --scale {} needs about {}: pass --size {} or a smaller --scale",
        iec(size),
        opts.scale,
        iec(need),
        short(crate::fs::round_up(need, 1 << 30))
    )))
}

/// The sizes the command line gives (`--size`) checked against the
/// workloads before anything is made, not even the temporary folder.
pub fn check_given_size(opts: &Options) -> Result<()> {
    match &opts.target {
        TargetSpec::TempImage { size: Some(s) } | TargetSpec::Image { size: Some(s), .. } => {
            image_holds(opts, space_needed(opts), *s)
        }
        _ => Ok(()),
    }
}

/// `--image` or a temporary image: checked and marked (image.rs), attached
/// to a loop device. `sizing` is (--size, the default size, --overwrite-image).
fn prepare_image(
    opts: &Options,
    need: u64,
    path: PathBuf,
    sizing: (Option<u64>, u64, bool),
    temp: Option<image::TempDir>,
) -> Result<Prepared> {
    let (size, default, overwrite) = sizing;
    let fits = |size: u64| image_holds(opts, need, size);
    let sizing = Sizing {
        size,
        default,
        overwrite,
        made_by: image::command_name(&opts.command),
    };
    let img = target::attach_image(&path, sizing, fits, describe_file_briefly, false)?;
    let (size, lp, identity) = (img.volume, img.loop_dev, img.identity);
    let dio = crate::device::loopdev::direct_io(&lp.dev);
    let ram = ram_backed(&path);
    Ok(Prepared {
        info: TargetInfo {
            kind: "image".into(),
            path: path.to_string_lossy().into_owned(),
            size_bytes: size,
            model: None,
            bus: None,
            cold_cache: image_cold_cache(dio, ram.as_deref()),
            counters: lp.dev.clone(),
            loop_direct_io: dio,
            backing_fs: crate::device::mount_of(&path).map(|m| m.0),
        },
        dev: Some(lp.dev.clone()),
        counters: Some(counters::stat_path(lp.name())),
        volume: size,
        identity: Some(identity),
        host_cache: dio != Some(true) || ram.is_some(),
        _loop: Some(lp),
        _temp: temp,
    })
}

/// How an image's reads are made cold, and what may still serve them.
fn image_cold_cache(dio: Option<bool>, ram: Option<&str>) -> String {
    let mut cold_cache = "remount+BLKFLSBUF".to_string();
    match dio {
        Some(true) => cold_cache.push_str(", loop direct I/O"),
        Some(false) => {
            cold_cache.push_str(", loop buffered (the host's page cache may serve reads)")
        }
        None => {}
    }
    if let Some(fs) = ram {
        cold_cache.push_str(&format!(", image on {fs} (RAM)"));
    }
    cold_cache
}

/// `--device`: provisioned through device::confirm, as `fsfit format` does.
fn prepare_device(
    opts: &Options,
    need: u64,
    dev: &str,
    yes_erase: Option<&str>,
    allow_fixed: bool,
) -> Result<Prepared> {
    let answer = match yes_erase {
        Some(y) => Answer::Given(y),
        None => Answer::Ask,
    };
    let Confirmed { info, identity } =
        confirm::erase(dev, answer, allow_fixed, &mut print_contents)?;
    if info.size_bytes < need {
        return Err(Error::input(format!(
            "{} holds {} but the workloads at --scale {} need about {}",
            info.path,
            iec(info.size_bytes),
            opts.scale,
            iec(need)
        )));
    }
    Ok(Prepared {
        info: TargetInfo {
            kind: "device".into(),
            path: info.path.clone(),
            size_bytes: info.size_bytes,
            model: Some(format!("{} {}", info.vendor, info.model).trim().to_string()),
            bus: Some(info.bus.clone()),
            cold_cache: "remount+BLKFLSBUF".into(),
            counters: info.name.clone(),
            loop_direct_io: None,
            backing_fs: None,
        },
        dev: Some(info.path.clone()),
        counters: Some(counters::stat_path(&info.name)),
        volume: info.size_bytes,
        identity: Some(identity),
        host_cache: false,
        _loop: None,
        _temp: None,
    })
}

/// `--dir`: an already-mounted directory, measured where it is.
fn prepare_dir(opts: &Options, need: u64, dir: &Path) -> Result<Prepared> {
    // A folder that is not there is bad input, as usage's unreadable PATH.
    let md = std::fs::metadata(dir).map_err(|e| Error::input(format!("{}: {e}", dir.display())))?;
    if !md.is_dir() {
        return Err(Error::input(format!("{}: not a directory", dir.display())));
    }
    let counters = counters_of_dir(dir);
    let free = free_space(dir)?;
    // The user's own volume, partly used: run what fits, and let a
    // workload that does not report that the volume is full.
    if free < need {
        crate::say!(
            "warning: {} has {} free but the workloads at --scale {} need about {}; \
those that do not fit will stop with \"the volume is full\"",
            dir.display(),
            iec(free),
            opts.scale,
            iec(need)
        );
    }
    Ok(Prepared {
        info: TargetInfo {
            kind: "dir".into(),
            path: dir.to_string_lossy().into_owned(),
            size_bytes: free,
            model: None,
            bus: None,
            cold_cache: String::new(),
            counters: counters
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            loop_direct_io: None,
            backing_fs: None,
        },
        dev: None,
        counters,
        volume: free,
        identity: None,
        host_cache: false,
        _loop: None,
        _temp: None,
    })
}

/// The RAM-backed filesystem (tmpfs, ramfs) holding `p`, if it is on one:
/// an image there is read from memory whatever fsfit does.
fn ram_backed(p: &Path) -> Option<String> {
    let (fstype, _, _) = crate::device::mount_of(p)?;
    matches!(fstype.as_str(), "tmpfs" | "ramfs").then_some(fstype)
}

/// What would be lost, in the words `fsfit info` uses.
fn print_contents(info: &DeviceInfo) {
    let parts: Vec<String> = if info.partitions.is_empty() {
        vec![info.path.clone()]
    } else {
        info.partitions
            .iter()
            .map(|p| format!("/dev/{p}"))
            .collect()
    };
    for p in parts {
        eprintln!(
            "  {p}: {}",
            describe_contents(Path::new(&p)).trim_start_matches("holding ")
        );
    }
}
