//! The drive being formatted: a block device behind the guard bench uses,
//! or an image file under bench --image's rules, attached to a loop device
//! with partition scanning (detached when dropped, Ctrl-C and errors
//! included).

use crate::device::confirm::{self, Answer, Confirmed};
use crate::device::identity::Identity;
use crate::device::image;
use crate::device::loopdev::LoopDev;
use crate::device::target::{self, Sizing};
use crate::info::describe::{describe_contents, describe_file, describe_file_briefly};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

pub struct Target {
    /// What the user named.
    pub shown: String,
    /// "device" or "image".
    pub kind: &'static str,
    /// The block device written: the device itself or the image's loop.
    pub dev: String,
    pub capacity: u64,
    /// Where a partition named as the target starts on its disk.
    pub partition_offset: Option<u64>,
    /// What is on it now, one line per volume.
    pub now: Vec<String>,
    /// Checked again right before the first write (None: a dry run's
    /// image, never attached).
    pub identity: Option<Identity>,
    /// Kept until the end: detaches the loop device when dropped.
    pub _loop: Option<LoopDev>,
    /// An image file this run made: removed again if the format fails
    /// before its filesystem is made.
    pub created: Option<PathBuf>,
}

pub struct TargetArgs<'a> {
    pub path: &'a Path,
    pub yes_erase: Option<&'a str>,
    pub allow_fixed: bool,
    /// Size of a new image.
    pub size: Option<u64>,
    /// Write nothing: an image is not created, marked or attached, and a
    /// device needs no confirmation (every other refusal still applies).
    pub dry_run: bool,
}

pub fn open(a: &TargetArgs) -> Result<Target> {
    use std::os::unix::fs::FileTypeExt;
    let is_dev = std::fs::metadata(a.path).is_ok_and(|m| m.file_type().is_block_device());
    if is_dev {
        device(a)
    } else if a.path.starts_with("/dev") {
        // Never an image file under /dev: a device name that is not there.
        Err(Error::work(format!(
            "{}: no such block device (see lsblk -o NAME,SIZE,MODEL,TRAN)",
            a.path.display()
        )))
    } else {
        image_file(a)
    }
}

fn device(a: &TargetArgs) -> Result<Target> {
    if a.size.is_some() {
        return Err(Error::work(format!(
            "--size is for a new image file; {} has its own size",
            a.path.display()
        )));
    }
    let shown = a.path.to_string_lossy().into_owned();
    let answer = match a.yes_erase {
        Some(y) => Answer::Given(y),
        None if a.dry_run => Answer::DryRun,
        None => Answer::Ask,
    };
    let mut now = Vec::new();
    let Confirmed { info, identity } =
        confirm::erase(&shown, answer, a.allow_fixed, &mut |info| {
            now = contents(&info.path, &info.partitions)
        })?;
    Ok(Target {
        shown,
        kind: "device",
        dev: info.path.clone(),
        capacity: info.size_bytes,
        partition_offset: if info.is_partition {
            Some(partition_start(&info.name)?)
        } else {
            None
        },
        now,
        identity: Some(identity),
        _loop: None,
        created: None,
    })
}

fn image_file(a: &TargetArgs) -> Result<Target> {
    let need = |v: u64| match (v, a.size) {
        (0, None) => Err(Error::work(format!(
            "{} is new or empty: give its size with --size (e.g. --size 16G)",
            a.path.display()
        ))),
        // The layout refuses a drive too small for its partition; here only
        // a volume of nothing.
        (0, Some(s)) => Err(Error::work(format!(
            "--size {} is too small: give a size such as 16G",
            crate::units::short(s)
        ))),
        _ => Ok(()),
    };
    if a.dry_run {
        return dry_image(a, need);
    }
    // Refused here, in format's words: the image layer's own refusal
    // names bench's --overwrite-image, which format does not have.
    if let Ok(f) = std::fs::File::open(a.path) {
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 && image::read_marker(&f, len).is_none() {
            return Err(not_ours(a.path, len));
        }
    }
    let sizing = Sizing {
        size: a.size,
        default: 0,
        overwrite: false,
        made_by: "format",
    };
    let img = target::attach_image(a.path, sizing, need, describe_file_briefly, true)?;
    let (lp, identity) = (img.loop_dev, img.identity);
    Ok(Target {
        shown: a.path.to_string_lossy().into_owned(),
        kind: "image",
        dev: lp.dev.clone(),
        capacity: img.volume,
        partition_offset: None,
        now: contents(&lp.dev, &partitions_of(&lp.dev)),
        identity: Some(identity),
        _loop: Some(lp),
        created: img.created.then(|| a.path.to_path_buf()),
    })
}

/// The refusal of a file that is not an image fsfit made (a video, a disk
/// image of someone else's): format never erases one.
fn not_ours(path: &Path, len: u64) -> Error {
    let instead = "name a new file to make one";
    image::not_made_here(path, len, describe_file_briefly, "format", instead)
}

/// An image as `prepare` would take it, read only: its size and what is on
/// it, on a loop device not yet attached.
fn dry_image(a: &TargetArgs, need: impl Fn(u64) -> Result<()>) -> Result<Target> {
    let shown = a.path.display();
    let (volume, now) = match std::fs::File::open(a.path) {
        Err(_) => (a.size.unwrap_or(0), format!("{shown}: a new image")),
        Ok(f) => {
            let len = f
                .metadata()
                .map_err(|e| Error::work(format!("{shown}: {e}")))?
                .len();
            let v = match image::read_marker(&f, len) {
                _ if len == 0 => a.size.unwrap_or(0),
                Some(v) => a.size.unwrap_or(v),
                None => return Err(not_ours(a.path, len)),
            };
            (v, format!("{shown}: {}", describe_file(a.path, len)))
        }
    };
    need(volume)?;
    Ok(Target {
        shown: shown.to_string(),
        kind: "image",
        dev: "/dev/loopN".into(),
        capacity: volume,
        partition_offset: None,
        now: vec![now],
        identity: None,
        _loop: None,
        created: None,
    })
}

/// Where partition `name` (sdb1) starts on its disk, from sysfs.
fn partition_start(name: &str) -> Result<u64> {
    let p = format!("/sys/class/block/{name}/start");
    let s = std::fs::read_to_string(&p).map_err(|e| Error::work(format!("{p}: {e}")))?;
    let sectors: u64 = s
        .trim()
        .parse()
        .map_err(|_| Error::work(format!("{p}: not a number")))?;
    Ok(sectors * 512)
}

/// The partitions the kernel lists for a disk (`loop0p1`, `sdb1`).
fn partitions_of(dev: &str) -> Vec<String> {
    let name = dev.trim_start_matches("/dev/");
    let Ok(rd) = std::fs::read_dir(format!("/sys/block/{name}")) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with(name) && n.len() > name.len())
        .collect();
    v.sort();
    v
}

/// What `fsfit info` finds on the device and each partition.
fn contents(dev: &str, parts: &[String]) -> Vec<String> {
    let mut all = vec![PathBuf::from(dev)];
    all.extend(parts.iter().map(|p| PathBuf::from(format!("/dev/{p}"))));
    all.iter()
        .map(|p| {
            let what = describe_contents(p);
            format!("{}: {}", p.display(), what.trim_start_matches("holding "))
        })
        .collect()
}

/// The device node of partition `n` of `dev`: a disk name ending in a
/// digit (loop0, nvme0n1, mmcblk0) takes a `p`.
pub fn partition_path(dev: &str, n: u32) -> String {
    if dev.ends_with(|c: char| c.is_ascii_digit()) || dev.starts_with("/dev/loop") {
        format!("{dev}p{n}")
    } else {
        format!("{dev}{n}")
    }
}

/// Wait until the kernel's partition `part` is the one just written,
/// starting `start` bytes in: a loop device without partition scanning
/// keeps the partitions of its last table (even of a former backing file)
/// until partx updates them.
pub fn wait_partition(dev: &str, part: &str, start: u64) -> Result<()> {
    let name = part.trim_start_matches("/dev/");
    let sysfs = format!("/sys/class/block/{name}/start");
    let current = || {
        let s = std::fs::read_to_string(&sysfs).ok()?;
        let sectors: u64 = s.trim().parse().ok()?;
        Path::new(part).exists().then_some(sectors * 512)
    };
    for i in 0..60 {
        if current() == Some(start) {
            return Ok(());
        }
        let partx = |args: &[&str]| {
            let mut a = args.to_vec();
            a.push(dev);
            let _ = crate::device::run_tool("partx", &a);
        };
        match i {
            5 => {
                partx(&["-u"]);
                partx(&["-a"]);
            }
            20 => {
                partx(&["-d"]);
                partx(&["-a"]);
            }
            _ => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(Error::work(format!(
        "the kernel does not show {part} at byte {start} after the partition table was written"
    )))
}
