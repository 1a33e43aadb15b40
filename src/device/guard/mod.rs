//! The safety guard between a device named to `bench --device` or `format`
//! and mkfs (both provision through device::confirm).
//!
//! `inspect` (inspect.rs) reads what the kernel says about a block device
//! (sysfs, the mount table, the swap list), `check` (check.rs) lists every
//! reason not to erase it, `describe` (describe.rs) says what will be lost,
//! and `open_exclusive` asks the kernel itself, right before formatting,
//! whether anything holds the device. All host state is read through
//! [`Host`], so tests run against fake hosts in tests/fixtures/guard/.

use crate::{Error, Result};
use serde::Serialize;
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

mod check;
mod describe;
mod inspect;
#[cfg(test)]
mod tests;

use super::host::Host;
pub use check::check;
pub use describe::describe;
pub use inspect::{inspect, system_disks};

#[derive(Debug, Clone, Serialize)]
pub struct DeviceInfo {
    /// The device path, with symlinks (/dev/disk/by-id/...) resolved.
    pub path: String,
    /// The kernel name: sdb1.
    pub name: String,
    /// The whole disk: sdb.
    pub disk: String,
    pub is_partition: bool,
    /// "MAJ:MIN", to check that the node opened later is still this device.
    pub devno: String,
    pub size_bytes: u64,
    pub model: String,
    pub vendor: String,
    pub serial: String,
    /// World-wide identifier (`device/wwid`, NVMe `wwid`), empty if none.
    pub wwid: String,
    /// usb, ata, nvme, mmc, scsi, virtio, loop, virtual (dm, md, zram), unknown.
    pub bus: String,
    /// The sysfs removable flag, or a USB device, or an SD card (not eMMC).
    pub removable: bool,
    /// The disk's partitions when the device is a whole disk.
    pub partitions: Vec<String>,
    /// (device, mount point) for every mount on the disk: the device itself,
    /// its partitions or siblings, and anything built on them (dm, md).
    pub mounts: Vec<(String, String)>,
    /// Devices built on the disk or its partitions (dm, md), transitively.
    pub holders: Vec<String>,
    /// Some part of the disk is active swap.
    pub swap: bool,
    pub read_only: bool,
    #[serde(skip)]
    detail: Detail,
}

/// What `check` needs to name the culprit.
#[derive(Debug, Clone, Default)]
struct Detail {
    /// The kernel name behind each entry of `mounts`.
    mount_blocks: Vec<String>,
    /// (swap path as listed, kernel name).
    swaps: Vec<(String, String)>,
    /// (lower device, holder, what the holder is).
    holders: Vec<(String, String, HolderKind)>,
    /// All partitions of the disk, also when the device is one of them.
    disk_partitions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum HolderKind {
    Lvm(String),
    Crypt(String),
    Md(String),
    /// A loop device, with its backing file as the kernel names it.
    Loop(String),
    Other(String),
}

impl HolderKind {
    fn describe(&self) -> String {
        match self {
            HolderKind::Lvm(n) => format!("LVM volume {n}"),
            HolderKind::Crypt(n) => format!("dm-crypt mapping {n}"),
            HolderKind::Md(l) => format!("md RAID array, {l}"),
            HolderKind::Loop(b) => format!("a loop device on {b}"),
            HolderKind::Other(n) => n.clone(),
        }
    }

    fn how_to_stop(&self, holder: &str) -> String {
        match self {
            HolderKind::Lvm(_) => "deactivate its volume group first (vgchange -an VG)".into(),
            HolderKind::Crypt(n) => format!("close it first (cryptsetup close {n})"),
            HolderKind::Md(_) => format!("stop the array first (mdadm --stop /dev/{holder})"),
            HolderKind::Loop(_) => format!("detach it first (losetup -d /dev/{holder})"),
            HolderKind::Other(n) if holder.starts_with("dm-") => {
                format!("remove it first (dmsetup remove {n})")
            }
            HolderKind::Other(_) => "stop it first".into(),
        }
    }
}

/// Linux dev_t encoding, as glibc's major()/minor().
fn split_dev(dev: u64) -> (u64, u64) {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    (major, minor)
}

fn file_kind(ft: fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_file() {
        "a regular file"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a device"
    }
}

/// What the user typed (`/dev/sdb`, `sdb`, a /dev/disk/by-id link) to the
/// resolved path and the kernel name of the block device behind it.
fn resolve_arg(host: &Host, arg: &str) -> Result<(String, String)> {
    if arg.trim().is_empty() {
        return Err(Error::input("empty device name"));
    }
    let virt = if !arg.contains('/') {
        Path::new("/dev").join(arg)
    } else if arg.starts_with('/') {
        PathBuf::from(arg)
    } else if host.is_real() {
        std::env::current_dir()
            .map_err(|e| Error::work(format!("{arg}: {e}")))?
            .join(arg)
    } else {
        Path::new("/").join(arg)
    };
    let path = host
        .resolve(&virt)
        .ok_or_else(|| Error::work(format!("{arg}: too many levels of symbolic links")))?;
    let shown = path.to_string_lossy().into_owned();
    match fs::metadata(host.on_disk(&path)) {
        Ok(m) if m.file_type().is_block_device() => {
            let (ma, mi) = split_dev(m.rdev());
            match host.name_of_devno(&format!("{ma}:{mi}")) {
                Some(name) => Ok((shown, name)),
                None => Err(Error::work(format!(
                    "{arg}: block device {ma}:{mi} is not in /sys/dev/block"
                ))),
            }
        }
        Ok(m) => {
            let hint = if m.file_type().is_file() {
                "; to benchmark an image file use --image"
            } else {
                ""
            };
            // Bad arguments (exit 2) for every command: format and advise
            // already said so; bench said "failed while working".
            Err(Error::input(format!(
                "{arg} is not a block device (it is {}){hint}",
                file_kind(m.file_type())
            )))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // No device node (a fake host, or a /dev without it): accept
            // /dev/NAME when the kernel has a block device NAME.
            if path.parent() == Some(Path::new("/dev")) {
                if let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) {
                    if host.block_dir(&name).is_some() {
                        return Ok((shown, name));
                    }
                }
            }
            Err(Error::input(format!("{arg}: no such block device")))
        }
        Err(e) => Err(Error::work(format!("{arg}: {e}"))),
    }
}

/// Opens the block device read-write with O_EXCL: the kernel refuses with
/// EBUSY if it (or, for a disk, any partition) is mounted or held by another
/// exclusive opener. Close it before running mkfs, which opens it O_EXCL too.
pub fn open_exclusive(path: &str) -> Result<File> {
    try_exclusive(path).map_err(Exclusive::into_error)
}

/// Why an exclusive open failed: something holds the device (worth waiting
/// for, e.g. a FUSE daemon letting go after an unmount), or anything else.
pub enum Exclusive {
    Busy(Error),
    Failed(Error),
}

impl Exclusive {
    pub fn into_error(self) -> Error {
        match self {
            Exclusive::Busy(e) | Exclusive::Failed(e) => e,
        }
    }
}

/// [`open_exclusive`], telling a busy device from other failures.
pub fn try_exclusive(path: &str) -> Result<File, Exclusive> {
    let failed = |m: String| Exclusive::Failed(Error::work(m));
    let m = fs::metadata(path).map_err(|e| failed(format!("cannot open {path}: {e}")))?;
    if !m.file_type().is_block_device() {
        return Err(failed(format!(
            "{path} is not a block device (it is {})",
            file_kind(m.file_type())
        )));
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EBUSY) => Exclusive::Busy(Error::work(format!(
                "{path} is busy (device or resource busy): it or one of its partitions is \
                 mounted or in use by another program; unmount it and close what uses it"
            ))),
            Some(libc::EACCES) | Some(libc::EPERM) => failed(format!(
                "cannot open {path}: permission denied (formatting a device needs root)"
            )),
            Some(libc::EROFS) => failed(format!("cannot open {path} for writing: it is read-only")),
            _ => failed(format!("cannot open {path}: {e}")),
        })
}

/// Checks that an opened node is still the device `inspect` looked at (the
/// kernel may hand the name to another drive after an unplug).
pub fn same_device(file: &File, info: &DeviceInfo) -> Result<()> {
    let m = file
        .metadata()
        .map_err(|e| Error::work(format!("{}: {e}", info.path)))?;
    let (ma, mi) = split_dev(m.rdev());
    if m.file_type().is_block_device() && format!("{ma}:{mi}") == info.devno {
        Ok(())
    } else {
        Err(Error::work(format!(
            "{} changed: it is now {ma}:{mi}, not {} ({}); was the drive replugged?",
            info.path, info.devno, info.name
        )))
    }
}
