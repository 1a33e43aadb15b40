//! The safety guard between `--device DEV --yes-erase DEV` (bench's runner) and mkfs.
//!
//! `inspect` reads what the kernel says about a block device (sysfs, the mount
//! table, the swap list), `check` lists every reason not to erase it, and
//! `open_exclusive` asks the kernel itself, right before formatting, whether
//! anything holds the device. All host state is read below `Host::root`, so
//! tests run against fake hosts in tests/fixtures/guard/.

use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub use super::host::Host;

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
    Other(String),
}

impl HolderKind {
    fn describe(&self) -> String {
        match self {
            HolderKind::Lvm(n) => format!("LVM volume {n}"),
            HolderKind::Crypt(n) => format!("dm-crypt mapping {n}"),
            HolderKind::Md(l) => format!("md RAID array, {l}"),
            HolderKind::Other(n) => n.clone(),
        }
    }

    fn how_to_stop(&self, holder: &str) -> String {
        match self {
            HolderKind::Lvm(_) => "deactivate its volume group first (vgchange -an VG)".into(),
            HolderKind::Crypt(n) => format!("close it first (cryptsetup close {n})"),
            HolderKind::Md(_) => format!("stop the array first (mdadm --stop /dev/{holder})"),
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
        return Err(Error::work("empty device name"));
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
            Err(Error::work(format!(
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
            Err(Error::work(format!("{arg}: no such block device")))
        }
        Err(e) => Err(Error::work(format!("{arg}: {e}"))),
    }
}

/// The kernel name behind a device path found in the mount or swap table.
fn block_of_path(host: &Host, p: &str) -> Option<String> {
    // Only /dev paths: stat()ing other mount sources could hang (NFS) and
    // cannot be block devices anyway.
    if !p.starts_with("/dev/") {
        return None;
    }
    resolve_arg(host, p).ok().map(|(_, n)| n)
}

struct Mount {
    source: String,
    point: String,
    /// Kernel names behind it: from MAJ:MIN (mountinfo) and from the source path.
    blocks: Vec<String>,
}

/// Every mount, from proc/self/mountinfo and proc/mounts (both when present:
/// mountinfo's MAJ:MIN finds /dev/root, proc/mounts is all older hosts have),
/// with the kernel names behind each.
fn read_mounts(host: &Host) -> Vec<Mount> {
    let mut out: Vec<Mount> = Vec::new();
    for line in host.mountinfo().into_iter().chain(host.mounts()) {
        let mut blocks = Vec::new();
        if let Some(n) = line.devno.as_deref().and_then(|d| host.name_of_devno(d)) {
            blocks.push(n);
        }
        if let Some(n) = block_of_path(host, &line.source) {
            if !blocks.contains(&n) {
                blocks.push(n);
            }
        }
        let dup = out
            .iter()
            .any(|m| m.point == line.point && blocks.iter().all(|b| m.blocks.contains(b)));
        if !dup {
            out.push(Mount {
                source: line.source,
                point: line.point,
                blocks,
            });
        }
    }
    out
}

/// Active swap areas on block devices: (path as listed, kernel name).
fn read_swaps(host: &Host) -> Vec<(String, String)> {
    host.swaps()
        .into_iter()
        .filter_map(|p| block_of_path(host, &p).map(|n| (p, n)))
        .collect()
}

/// The partitions of a disk, by partition number.
fn partitions_of(host: &Host, disk_dir: &Path) -> Vec<String> {
    let mut v: Vec<(u64, String)> = host
        .list(disk_dir)
        .into_iter()
        .filter_map(|n| {
            let num = host.read(&disk_dir.join(&n).join("partition"))?;
            Some((num.parse().unwrap_or(u64::MAX), n))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, n)| n).collect()
}

fn holder_kind(host: &Host, name: &str) -> HolderKind {
    let Some(dir) = host.block_dir(name) else {
        return HolderKind::Other(name.to_string());
    };
    if host.exists(&dir.join("md")) {
        let level = host.read(&dir.join("md/level")).unwrap_or_default();
        return HolderKind::Md(level);
    }
    let dm_name = host.read(&dir.join("dm/name")).unwrap_or_default();
    let uuid = host.read(&dir.join("dm/uuid")).unwrap_or_default();
    let shown = if dm_name.is_empty() {
        name.to_string()
    } else {
        dm_name
    };
    if uuid.starts_with("LVM-") {
        HolderKind::Lvm(shown)
    } else if uuid.starts_with("CRYPT-") {
        HolderKind::Crypt(shown)
    } else {
        HolderKind::Other(shown)
    }
}

/// The whole disks at the bottom of a device: a partition's disk, the slaves
/// of dm and md devices, recursively.
fn lower_disks(host: &Host, name: &str) -> BTreeSet<String> {
    fn walk(host: &Host, name: &str, depth: u32, out: &mut BTreeSet<String>) {
        let Some(dir) = host.block_dir(name) else {
            out.insert(name.to_string());
            return;
        };
        if depth > 16 {
            out.insert(name.to_string());
            return;
        }
        let slaves = host.slaves(&dir);
        if !slaves.is_empty() {
            for s in slaves {
                walk(host, &s, depth + 1, out);
            }
        } else if host.exists(&dir.join("partition")) {
            match dir.parent().and_then(|p| p.file_name()) {
                Some(d) => walk(host, &d.to_string_lossy(), depth + 1, out),
                None => {
                    out.insert(name.to_string());
                }
            }
        } else {
            out.insert(name.to_string());
        }
    }
    let mut out = BTreeSet::new();
    walk(host, name, 0, &mut out);
    out
}

/// The disks under the root filesystem, and the source `/` is mounted from.
/// Empty when / is not on a block device (overlay, tmpfs, NFS).
pub fn system_disks(host: &Host) -> (BTreeSet<String>, String) {
    let mut disks = BTreeSet::new();
    let mut source = String::new();
    for m in read_mounts(host).iter().filter(|m| m.point == "/") {
        for b in &m.blocks {
            disks.extend(lower_disks(host, b));
            source = if m.source == format!("/dev/{b}") {
                m.source.clone()
            } else {
                format!("{} ({b})", m.source)
            };
        }
    }
    (disks, source)
}

/// The bus from the resolved sysfs path of the disk.
fn bus_of(sys_path: &str) -> &'static str {
    let p = sys_path;
    if p.contains("/devices/virtual/block/loop") {
        "loop"
    } else if p.contains("/usb") {
        "usb"
    } else if p.contains("/mmc") {
        "mmc"
    } else if p.contains("/nvme") {
        "nvme"
    } else if p.contains("/virtio") {
        "virtio"
    } else if p.contains("/ata") {
        "ata"
    } else if p.contains("/host") && p.contains("/target") {
        "scsi"
    } else if p.contains("/devices/virtual/") {
        "virtual"
    } else {
        "unknown"
    }
}

/// The USB device directory above a disk (the one with idVendor).
fn usb_device_dir(host: &Host, disk_dir: &Path) -> Option<PathBuf> {
    disk_dir
        .ancestors()
        .take_while(|a| a.starts_with("/sys/devices") && *a != Path::new("/sys/devices"))
        .find(|a| host.exists(&a.join("idVendor")))
        .map(Path::to_path_buf)
}

pub fn inspect(host: &Host, dev: &str) -> Result<DeviceInfo> {
    let (path, name) = resolve_arg(host, dev)?;
    let dir = host
        .block_dir(&name)
        .ok_or_else(|| Error::work(format!("{dev}: no block device {name} in /sys/class/block")))?;
    let is_partition = host.exists(&dir.join("partition"));
    let (disk, disk_dir) = if is_partition {
        let parent = dir
            .parent()
            .ok_or_else(|| Error::work(format!("{dev}: partition {name} has no disk in sysfs")))?;
        let disk = parent
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if host.block_dir(&disk).is_none() {
            return Err(Error::work(format!(
                "{dev}: cannot find the disk of partition {name}"
            )));
        }
        (disk, parent.to_path_buf())
    } else {
        (name.clone(), dir.clone())
    };

    let sectors: u64 = host
        .read(&dir.join("size"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let flag = |d: &Path, f: &str| host.read(&d.join(f)).as_deref() == Some("1");
    let read_only = flag(&dir, "ro") || flag(&disk_dir, "ro");
    let bus = bus_of(&disk_dir.to_string_lossy()).to_string();
    let dev_attr = |f: &str| {
        host.read(&disk_dir.join("device").join(f))
            .filter(|s| !s.is_empty())
    };
    let usb = usb_device_dir(host, &disk_dir);
    let usb_attr = |f: &str| {
        usb.as_ref()
            .and_then(|u| host.read(&u.join(f)))
            .filter(|s| !s.is_empty())
    };
    let model = dev_attr("model")
        .or_else(|| dev_attr("name"))
        .or_else(|| usb_attr("product"))
        .unwrap_or_default();
    let vendor = dev_attr("vendor")
        .or_else(|| usb_attr("manufacturer"))
        .unwrap_or_default();
    let serial = dev_attr("serial")
        .or_else(|| {
            host.read(&disk_dir.join("serial"))
                .filter(|s| !s.is_empty())
        })
        .or_else(|| usb_attr("serial"))
        .unwrap_or_default();
    let wwid = dev_attr("wwid")
        .or_else(|| host.read(&disk_dir.join("wwid")).filter(|s| !s.is_empty()))
        .unwrap_or_default();
    // USB SSDs say removable=0 yet are external; soldered eMMC says type MMC.
    let removable = flag(&disk_dir, "removable")
        || bus == "usb"
        || (bus == "mmc" && dev_attr("type").as_deref() != Some("MMC"));

    // The disk, its partitions, and everything built on them.
    let disk_parts = partitions_of(host, &disk_dir);
    let mut family: BTreeSet<String> = BTreeSet::new();
    family.insert(disk.clone());
    family.extend(disk_parts.iter().cloned());
    let mut holder_list: Vec<(String, String, HolderKind)> = Vec::new();
    let mut queue: Vec<String> = family.iter().cloned().collect();
    while let Some(lower) = queue.pop() {
        let Some(ldir) = host.block_dir(&lower) else {
            continue;
        };
        for h in host.holders(&ldir) {
            if family.insert(h.clone()) {
                queue.push(h.clone());
            }
            if !holder_list.iter().any(|(l, x, _)| *l == lower && *x == h) {
                holder_list.push((lower.clone(), h.clone(), holder_kind(host, &h)));
            }
        }
    }
    // Holders of the disk and its partitions first: they make the best message.
    let on_disk = |n: &String| *n == disk || disk_parts.contains(n);
    holder_list.sort_by_key(|(l, h, _)| (!on_disk(l), l.clone(), h.clone()));
    let mut holders: Vec<String> = holder_list.iter().map(|(_, h, _)| h.clone()).collect();
    holders.sort();
    holders.dedup();

    let mut mounts = Vec::new();
    let mut mount_blocks = Vec::new();
    for m in read_mounts(host) {
        if let Some(b) = m.blocks.iter().find(|b| family.contains(*b)) {
            let shown = if m.source == format!("/dev/{b}") {
                m.source.clone()
            } else {
                format!("{} ({b})", m.source)
            };
            mounts.push((shown, m.point.clone()));
            mount_blocks.push(b.clone());
        }
    }
    let swaps: Vec<(String, String)> = read_swaps(host)
        .into_iter()
        .filter(|(_, n)| family.contains(n))
        .collect();

    Ok(DeviceInfo {
        path,
        devno: host.read(&dir.join("dev")).unwrap_or_default(),
        is_partition,
        size_bytes: sectors.saturating_mul(512),
        model,
        vendor,
        serial,
        wwid,
        bus,
        removable,
        partitions: if is_partition {
            Vec::new()
        } else {
            disk_parts.clone()
        },
        mounts,
        holders,
        swap: !swaps.is_empty(),
        read_only,
        detail: Detail {
            mount_blocks,
            swaps,
            holders: holder_list,
            disk_partitions: disk_parts,
        },
        name,
        disk,
    })
}

/// How `block` relates to the device, for messages: "its partition sdb1".
fn relation(info: &DeviceInfo, block: &str, shown: &str) -> String {
    if block == info.name {
        "it".to_string()
    } else if info.partitions.iter().any(|p| p == block) {
        format!("its partition {shown}")
    } else if block == info.disk || info.detail.disk_partitions.iter().any(|p| p == block) {
        format!("{shown}, on the same disk {},", info.disk)
    } else {
        format!("{shown}, which is built on {},", info.disk)
    }
}

fn and_more(n: usize) -> String {
    if n > 1 {
        format!(" (and {} more)", n - 1)
    } else {
        String::new()
    }
}

/// Every reason to refuse, checked in order; Ok only when none applies.
pub fn check(
    info: &DeviceInfo,
    host: &Host,
    yes_erase: Option<&str>,
    allow_fixed: bool,
) -> Result<()> {
    let dev = &info.path;
    let refuse = |why: String| Err(Error::input(format!("refusing to erase {dev}: {why}")));

    let (system, root_source) = system_disks(host);
    if let Some(d) = lower_disks(host, &info.name).intersection(&system).next() {
        let what = if *d == info.name {
            format!("it is the system disk (the root filesystem is mounted from {root_source})")
        } else {
            format!(
                "it is on {d}, the system disk (the root filesystem is mounted from {root_source})"
            )
        };
        return refuse(format!("{what}; pick another device"));
    }

    if let (Some((shown, point)), Some(block)) =
        (info.mounts.first(), info.detail.mount_blocks.first())
    {
        let who = relation(info, block, shown);
        return refuse(format!(
            "{who} is mounted on {point}{}; unmount first (umount '{point}')",
            and_more(info.mounts.len())
        ));
    }

    if let Some((p, block)) = info.detail.swaps.first() {
        let who = relation(info, block, p);
        return refuse(format!(
            "{who} is in use as swap{}; turn it off first (swapoff {p})",
            and_more(info.detail.swaps.len())
        ));
    }

    if let Some((lower, holder, kind)) = info.detail.holders.first() {
        let who = if *lower == info.name {
            "it".to_string()
        } else {
            relation(info, lower, lower)
        };
        return refuse(format!(
            "{who} is in use by {holder} ({}){}; {}",
            kind.describe(),
            and_more(info.detail.holders.len()),
            kind.how_to_stop(holder)
        ));
    }

    if !info.removable && !allow_fixed {
        return refuse(format!(
            "it is a fixed disk ({}{}); pass --allow-fixed if you really mean it",
            info.bus,
            if info.model.is_empty() {
                String::new()
            } else {
                format!(", {}", info.model)
            }
        ));
    }

    if info.read_only {
        return refuse(
            "the device is read-only (is the card's write-protect switch on?)".to_string(),
        );
    }

    if info.size_bytes == 0 {
        return refuse("it has size 0 (no medium inserted?)".to_string());
    }

    match yes_erase {
        None => refuse(format!(
            "confirm that everything on it ({}) may be erased with --yes-erase {dev}",
            short_summary(info)
        )),
        Some(y) => match resolve_arg(host, y) {
            Err(e) => refuse(format!(
                "--yes-erase {y} does not name a block device ({e}); it must name {dev}"
            )),
            Ok((_, n)) if n == info.name => Ok(()),
            Ok((_, n)) => {
                let what = if n == info.disk {
                    format!("the whole disk {n}, not the partition {}", info.name)
                } else if info.partitions.contains(&n) {
                    format!("its partition {n}, not the whole disk {}", info.name)
                } else {
                    format!("{n}, a different device than {}", info.name)
                };
                refuse(format!("--yes-erase {y} is {what}; pass --yes-erase {dev}"))
            }
        },
    }
}

/// "SanDisk Cruzer Blade, 15.4 GB, usb".
fn short_summary(info: &DeviceInfo) -> String {
    let mut parts = Vec::new();
    let name = format!("{} {}", info.vendor, info.model).trim().to_string();
    if !name.is_empty() {
        parts.push(name);
    }
    parts.push(
        human_size(info.size_bytes)
            .split(" (")
            .next()
            .unwrap_or("")
            .to_string(),
    );
    parts.push(info.bus.clone());
    parts.join(", ")
}

/// "15.4 GB (14.3 GiB)": drives are sold in decimal units, tools show binary.
fn human_size(bytes: u64) -> String {
    fn scaled(b: u64, base: f64, units: &[&str]) -> String {
        let mut v = b as f64;
        let mut i = 0;
        while v >= base && i + 1 < units.len() {
            v /= base;
            i += 1;
        }
        if i == 0 {
            format!("{b} {}", units[0])
        } else {
            format!("{v:.1} {}", units[i])
        }
    }
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    format!(
        "{} ({})",
        scaled(bytes, 1000.0, &["B", "kB", "MB", "GB", "TB", "PB"]),
        scaled(bytes, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
    )
}

/// A human summary printed before formatting.
pub fn describe(info: &DeviceInfo) -> String {
    let mut out = String::new();
    let what = if info.is_partition {
        format!("partition of {}, ", info.disk)
    } else {
        String::new()
    };
    let model = format!("{} {}", info.vendor, info.model).trim().to_string();
    out.push_str(&format!(
        "{}: {}{}{}, {}, {}{}\n",
        info.path,
        what,
        if model.is_empty() {
            "unknown model"
        } else {
            &model
        },
        if info.serial.is_empty() {
            String::new()
        } else {
            format!(" (serial {})", info.serial)
        },
        human_size(info.size_bytes),
        info.bus,
        if info.removable {
            ", removable"
        } else {
            ", fixed"
        },
    ));
    if info.read_only {
        out.push_str("  read-only\n");
    }
    if !info.is_partition {
        if info.partitions.is_empty() {
            out.push_str("  partitions: none\n");
        } else {
            out.push_str(&format!("  partitions: {}\n", info.partitions.join(", ")));
        }
    }
    if info.mounts.is_empty() {
        out.push_str("  mounted: nothing\n");
    }
    for (d, p) in &info.mounts {
        out.push_str(&format!("  mounted: {d} on {p}\n"));
    }
    for (p, _) in &info.detail.swaps {
        out.push_str(&format!("  swap: {p}\n"));
    }
    for (lower, h, kind) in &info.detail.holders {
        out.push_str(&format!("  in use: {lower} by {h} ({})\n", kind.describe()));
    }
    out.push_str(&format!("  everything on {} will be erased", info.path));
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn fixture(case: &str) -> Host {
        Host::at(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/guard")
                .join(case),
        )
    }

    fn info(case: &str, dev: &str) -> DeviceInfo {
        inspect(&fixture(case), dev).unwrap_or_else(|e| panic!("inspect {case} {dev}: {e}"))
    }

    fn verdict(case: &str, dev: &str, yes: Option<&str>, allow_fixed: bool) -> Result<()> {
        check(&info(case, dev), &fixture(case), yes, allow_fixed)
    }

    fn refused(case: &str, dev: &str, yes: Option<&str>, allow_fixed: bool) -> String {
        match verdict(case, dev, yes, allow_fixed) {
            Ok(()) => panic!("{case} {dev}: accepted, expected a refusal"),
            Err(e) => {
                // A refusal is bad input (exit 2), said on one line.
                assert!(matches!(e, Error::Input(_)), "{e:?}");
                let e = e.to_string();
                assert!(!e.contains('\n'), "one line: {e}");
                assert!(e.starts_with("refusing to erase /dev/"), "{e}");
                e
            }
        }
    }

    #[test]
    fn usb_stick_is_fine() {
        let i = info("usb_stick", "/dev/sdb");
        assert_eq!(i.path, "/dev/sdb");
        assert_eq!((i.name.as_str(), i.disk.as_str()), ("sdb", "sdb"));
        assert!(!i.is_partition);
        assert_eq!(i.size_bytes, 30031872 * 512);
        assert_eq!(
            (i.vendor.as_str(), i.model.as_str()),
            ("SanDisk", "Cruzer Blade")
        );
        assert_eq!(i.serial, "4C530001231219114212");
        assert_eq!(i.bus, "usb");
        assert!(i.removable && !i.read_only && !i.swap);
        assert_eq!(i.partitions, ["sdb1"]);
        assert!(i.mounts.is_empty() && i.holders.is_empty());
        assert_eq!(i.devno, "8:16");
        verdict("usb_stick", "/dev/sdb", Some("/dev/sdb"), false).unwrap();
        // the same device spelled three ways
        verdict("usb_stick", "sdb", Some("/dev/sdb"), false).unwrap();
        let by_id = "/dev/disk/by-id/usb-SanDisk_Cruzer_Blade_4C530001231219114212-0:0";
        verdict("usb_stick", "/dev/sdb", Some(by_id), false).unwrap();
        let i = info("usb_stick", by_id);
        assert_eq!((i.path.as_str(), i.name.as_str()), ("/dev/sdb", "sdb"));
        let d = describe(&i);
        assert!(
            d.contains("SanDisk Cruzer Blade") && d.contains("15.4 GB (14.3 GiB)"),
            "{d}"
        );
        assert!(
            d.contains("partitions: sdb1") && d.contains("mounted: nothing"),
            "{d}"
        );
    }

    #[test]
    fn usb_stick_partition() {
        let by_id = "/dev/disk/by-id/usb-SanDisk_Cruzer_Blade_4C530001231219114212-0:0-part1";
        let i = info("usb_stick", by_id);
        assert_eq!(i.path, "/dev/sdb1");
        assert_eq!((i.name.as_str(), i.disk.as_str()), ("sdb1", "sdb"));
        assert!(i.is_partition && i.removable && i.partitions.is_empty());
        assert_eq!(i.size_bytes, 30029824 * 512);
        assert_eq!(i.model, "Cruzer Blade");
        verdict("usb_stick", "/dev/sdb1", Some(by_id), false).unwrap();
        assert!(describe(&i).starts_with("/dev/sdb1: partition of sdb, SanDisk Cruzer Blade"));
    }

    #[test]
    fn usb_ssd_reporting_removable_zero_is_removable() {
        let i = info("usb_stick", "/dev/sdc");
        assert_eq!((i.bus.as_str(), i.model.as_str()), ("usb", "PSSD T7"));
        assert_eq!(i.serial, "S5SXNS0R123456");
        assert!(i.removable);
        verdict("usb_stick", "/dev/sdc", Some("/dev/sdc"), false).unwrap();
    }

    #[test]
    fn yes_erase_missing_or_mismatched() {
        let e = refused("usb_stick", "/dev/sdb", None, false);
        assert!(
            e.contains("--yes-erase /dev/sdb") && e.contains("Cruzer Blade"),
            "{e}"
        );
        let e = refused("usb_stick", "/dev/sdb", Some("/dev/sdc"), false);
        assert!(e.contains("sdc, a different device than sdb"), "{e}");
        let e = refused("usb_stick", "/dev/sdb", Some("/dev/sdb1"), false);
        assert!(
            e.contains("its partition sdb1, not the whole disk sdb"),
            "{e}"
        );
        let e = refused("usb_stick", "/dev/sdb1", Some("/dev/sdb"), false);
        assert!(
            e.contains("the whole disk sdb, not the partition sdb1"),
            "{e}"
        );
        let e = refused("usb_stick", "/dev/sdb", Some("/dev/sdx"), false);
        assert!(e.contains("does not name a block device"), "{e}");
        let e = refused("usb_stick", "/dev/sdb", Some(""), false);
        assert!(e.contains("does not name a block device"), "{e}");
        let id = "/dev/disk/by-id/usb-SanDisk_Cruzer_Blade_4C530001231219114212-0:0-part1";
        let e = refused("usb_stick", "/dev/sdb", Some(id), false);
        assert!(e.contains("its partition sdb1"), "{e}");
    }

    #[test]
    fn mounted_partition() {
        let i = info("usb_stick_mounted", "/dev/sdb");
        assert_eq!(
            i.mounts,
            [("/dev/sdb1".to_string(), "/media/user/MY STICK".to_string())]
        );
        assert_eq!(i.partitions, ["sdb1", "sdb2"]);
        let e = refused("usb_stick_mounted", "/dev/sdb", Some("/dev/sdb"), false);
        assert!(
            e.contains("its partition /dev/sdb1 is mounted on /media/user/MY STICK"),
            "{e}"
        );
        assert!(e.contains("umount '/media/user/MY STICK'"), "{e}");
        let e = refused("usb_stick_mounted", "sdb1", Some("sdb1"), false);
        assert!(
            e.contains("/dev/sdb1: it is mounted on /media/user/MY STICK"),
            "{e}"
        );
        // a sibling partition shares the disk: refuse too
        let e = refused("usb_stick_mounted", "sdb2", Some("sdb2"), false);
        assert!(
            e.contains("/dev/sdb1, on the same disk sdb, is mounted"),
            "{e}"
        );
        assert!(describe(&i).contains("mounted: /dev/sdb1 on /media/user/MY STICK"));
    }

    #[test]
    fn system_disk_plain() {
        let h = fixture("usb_stick");
        assert_eq!(system_disks(&h).0, BTreeSet::from(["sda".to_string()]));
        let e = refused("usb_stick", "/dev/sda", Some("/dev/sda"), true);
        assert!(e.contains("it is the system disk"), "{e}");
        let by_id = "/dev/disk/by-id/ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K123456";
        let e = refused("usb_stick", by_id, Some(by_id), true);
        assert!(
            e.starts_with("refusing to erase /dev/sda: it is the system disk"),
            "{e}"
        );
        let e = refused("usb_stick", "/dev/sda1", Some("/dev/sda1"), true);
        assert!(e.contains("it is on sda, the system disk"), "{e}");
    }

    #[test]
    fn system_disk_through_lvm() {
        let h = fixture("lvm_root");
        let (disks, src) = system_disks(&h);
        assert_eq!(disks, BTreeSet::from(["sda".to_string()]));
        assert_eq!(src, "/dev/mapper/vg0-root (dm-0)");
        for dev in [
            "/dev/sda",
            "/dev/sda3",
            "/dev/sda1",
            "/dev/dm-0",
            "/dev/mapper/vg0-root",
        ] {
            let e = refused("lvm_root", dev, Some(dev), true);
            assert!(e.contains("system disk") && e.contains("vg0-root"), "{e}");
        }
        let i = info("lvm_root", "/dev/sda");
        assert_eq!(i.holders, ["dm-0", "dm-1"]);
        assert!(i.swap);
        assert_eq!(i.mounts.len(), 3);
        // the stick next to it is still fine
        verdict("lvm_root", "/dev/sdb", Some("/dev/sdb"), false).unwrap();
    }

    #[test]
    fn system_disk_from_mountinfo_dev_root() {
        // proc/mounts says /dev/root; only mountinfo's 259:2 finds nvme0n1p2
        let h = fixture("laptop");
        let (disks, src) = system_disks(&h);
        assert_eq!(disks, BTreeSet::from(["nvme0n1".to_string()]));
        assert_eq!(src, "/dev/root (nvme0n1p2)");
        let e = refused("laptop", "/dev/nvme0n1", Some("/dev/nvme0n1"), true);
        assert!(
            e.contains(
                "it is the system disk (the root filesystem is mounted from /dev/root (nvme0n1p2))"
            ),
            "{e}"
        );
        let e = refused("laptop", "/dev/nvme0n1p2", Some("/dev/nvme0n1p2"), true);
        assert!(e.contains("on nvme0n1, the system disk"), "{e}");
    }

    #[test]
    fn nvme_partition_naming() {
        let i = info("laptop", "/dev/nvme1n1p1");
        assert_eq!((i.name.as_str(), i.disk.as_str()), ("nvme1n1p1", "nvme1n1"));
        assert!(i.is_partition && !i.removable);
        assert_eq!(i.bus, "nvme");
        assert_eq!(i.model, "WD_BLACK SN770 500GB");
        assert_eq!(i.serial, "22417A800123");
        assert!(i.mounts.is_empty());
        let e = refused("laptop", "/dev/nvme1n1p1", Some("/dev/nvme1n1p1"), false);
        assert!(
            e.contains("fixed disk (nvme, WD_BLACK SN770 500GB); pass --allow-fixed"),
            "{e}"
        );
        verdict("laptop", "/dev/nvme1n1p1", Some("nvme1n1p1"), true).unwrap();
        let e = refused("laptop", "/dev/nvme1n1p1", Some("/dev/nvme1n1"), true);
        assert!(
            e.contains("the whole disk nvme1n1, not the partition nvme1n1p1"),
            "{e}"
        );
        assert_eq!(info("laptop", "nvme1n1").partitions, ["nvme1n1p1"]);
    }

    #[test]
    fn sd_card_and_emmc() {
        let i = info("laptop", "/dev/mmcblk0p1");
        assert_eq!((i.name.as_str(), i.disk.as_str()), ("mmcblk0p1", "mmcblk0"));
        assert_eq!(i.bus, "mmc");
        assert_eq!(
            (i.model.as_str(), i.serial.as_str()),
            ("SD64G", "0x9c3d2a1f")
        );
        // sysfs says removable=0 for SD slots on PCI readers; the bus decides
        assert!(i.removable);
        verdict("laptop", "mmcblk0p1", Some("/dev/mmcblk0p1"), false).unwrap();
        // soldered eMMC (card type MMC) is a fixed disk
        let i = info("laptop", "/dev/mmcblk1");
        assert_eq!(i.bus, "mmc");
        assert!(!i.removable);
        let e = refused("laptop", "/dev/mmcblk1", Some("/dev/mmcblk1"), false);
        assert!(e.contains("fixed disk (mmc, DG4032)"), "{e}");
    }

    #[test]
    fn holders_lvm_crypt_md() {
        let i = info("holders", "/dev/sdb");
        assert_eq!(i.holders, ["dm-0"]);
        let e = refused("holders", "/dev/sdb", Some("/dev/sdb"), true);
        assert!(
            e.contains("its partition sdb1 is in use by dm-0 (LVM volume extvg-data)"),
            "{e}"
        );
        assert!(e.contains("vgchange -an"), "{e}");
        let e = refused("holders", "/dev/sdb1", Some("/dev/sdb1"), true);
        assert!(e.contains("/dev/sdb1: it is in use by dm-0"), "{e}");
        let e = refused("holders", "/dev/sdc1", Some("/dev/sdc1"), true);
        assert!(
            e.contains("dm-crypt mapping luks-0c5d8f2e")
                && e.contains("cryptsetup close luks-0c5d8f2e"),
            "{e}"
        );
        let e = refused("holders", "/dev/sdd", Some("/dev/sdd"), true);
        assert!(
            e.contains("it is in use by md0 (md RAID array, raid1)")
                && e.contains("mdadm --stop /dev/md0"),
            "{e}"
        );
        assert!(describe(&info("holders", "sde")).contains("in use: sde by md0"));
    }

    #[test]
    fn swap_partition() {
        let i = info("swap", "/dev/sdb");
        assert!(i.swap && i.mounts.is_empty());
        let e = refused("swap", "/dev/sdb", Some("/dev/sdb"), false);
        assert!(
            e.contains(
                "its partition /dev/sdb2 is in use as swap; turn it off first (swapoff /dev/sdb2)"
            ),
            "{e}"
        );
        let e = refused("swap", "/dev/sdb2", Some("/dev/sdb2"), false);
        assert!(e.contains("/dev/sdb2: it is in use as swap"), "{e}");
        let e = refused("swap", "/dev/sdb1", Some("/dev/sdb1"), false);
        assert!(
            e.contains("/dev/sdb2, on the same disk sdb, is in use as swap"),
            "{e}"
        );
        let e = refused("swap", "/dev/zram0", Some("/dev/zram0"), true);
        assert!(e.contains("swap"), "{e}");
        assert!(!info("usb_stick", "/dev/sdb").swap);
    }

    #[test]
    fn fixed_disk_needs_allow_fixed() {
        let i = info("fixed_sata", "/dev/sdb");
        assert_eq!(
            (i.bus.as_str(), i.model.as_str(), i.vendor.as_str()),
            ("ata", "WDC WD10EZEX-08W", "ATA")
        );
        assert!(!i.removable);
        let e = refused("fixed_sata", "/dev/sdb", Some("/dev/sdb"), false);
        assert!(e.ends_with("it is a fixed disk (ata, WDC WD10EZEX-08W); pass --allow-fixed if you really mean it"), "{e}");
        verdict("fixed_sata", "/dev/sdb", Some("/dev/sdb"), true).unwrap();
        // loop devices are fixed too
        let i = info("fixed_sata", "/dev/loop3");
        assert_eq!(i.bus, "loop");
        assert!(!i.removable && i.partitions.is_empty());
        let e = refused("fixed_sata", "/dev/loop3", Some("/dev/loop3"), false);
        assert!(e.contains("fixed disk (loop)"), "{e}");
        verdict("fixed_sata", "loop3", Some("/dev/loop3"), true).unwrap();
    }

    #[test]
    fn read_only_and_no_medium() {
        let i = info("read_only", "/dev/sdb");
        assert!(i.read_only && i.removable);
        let e = refused("read_only", "/dev/sdb", Some("/dev/sdb"), false);
        assert!(e.contains("read-only"), "{e}");
        assert!(describe(&i).contains("read-only"));
        let e = refused("read_only", "/dev/sdb1", Some("/dev/sdb1"), false);
        assert!(e.contains("read-only"), "{e}");
        let e = refused("read_only", "/dev/sdc", Some("/dev/sdc"), false);
        assert!(e.contains("size 0 (no medium inserted?)"), "{e}");
    }

    #[test]
    fn not_a_block_device() {
        let h = fixture("not_block");
        let e = inspect(&h, "/home/user/disk.img").unwrap_err().to_string();
        assert!(
            e.contains("is not a block device (it is a regular file)") && e.contains("--image"),
            "{e}"
        );
        let e = inspect(&h, "/home/user").unwrap_err().to_string();
        assert!(e.contains("(it is a directory)"), "{e}");
        let e = inspect(&h, "/dev/sdz").unwrap_err().to_string();
        assert_eq!(e, "/dev/sdz: no such block device");
        let e = inspect(&h, "/tmp/nothing/sdb").unwrap_err().to_string();
        assert!(e.contains("no such block device"), "{e}");
        assert!(inspect(&h, "").is_err());
        assert!(inspect(&h, "/dev/../sys/class/block/..").is_err());
        // the real machine: character devices, files, directories
        let e = inspect(&Host::real(), "/dev/null").unwrap_err().to_string();
        assert!(e.contains("(it is a character device)"), "{e}");
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = inspect(&Host::real(), f.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("(it is a regular file)"), "{e}");
        assert!(open_exclusive(f.path().to_str().unwrap())
            .unwrap_err()
            .to_string()
            .contains("not a block device"));
    }

    #[test]
    fn helpers() {
        assert_eq!(split_dev(libc::makedev(259, 300)), (259, 300));
        assert_eq!(split_dev(libc::makedev(8, 17)), (8, 17));
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(16 << 20), "16.8 MB (16.0 MiB)");
        for (p, b) in [
            ("/sys/devices/virtual/block/loop0", "loop"),
            ("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", "virtio"),
            ("/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb", "usb"),
            ("/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", "ata"),
            ("/sys/devices/pci0000:00/0000:00:10.0/host2/target2:0:0/2:0:0:0/block/sda", "scsi"),
            ("/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", "nvme"),
            ("/sys/devices/virtual/block/dm-0", "virtual"),
            ("/sys/devices/platform/foo/block/x", "unknown"),
        ] {
            assert_eq!(bus_of(p), b, "{p}");
        }
    }

    /// The real machine: whatever disk holds / must be refused.
    #[test]
    fn real_host_system_disk_is_refused() {
        let h = Host::real();
        let (disks, src) = system_disks(&h);
        if disks.is_empty() {
            println!("SKIP: / is not on a block device here");
            return;
        }
        for d in &disks {
            let i = inspect(&h, d).unwrap();
            let e = check(&i, &h, Some(d), true).unwrap_err().to_string();
            assert!(e.contains("system disk") && e.contains(&src), "{e}");
        }
    }

    /// Attaches a loop device (with one partition), then detaches it.
    struct Loop {
        dev: String,
        mounted: Option<PathBuf>,
    }

    impl Drop for Loop {
        fn drop(&mut self) {
            if let Some(m) = self.mounted.take() {
                let _ = Command::new("umount").arg(&m).status();
            }
            let _ = Command::new("losetup").args(["-d", &self.dev]).status();
        }
    }

    fn run(cmd: &str, args: &[&str]) -> Result<String> {
        let o = Command::new(cmd)
            .args(args)
            .output()
            .map_err(|e| Error::work(format!("{cmd}: {e}")))?;
        if !o.status.success() {
            return Err(Error::work(format!(
                "{cmd} {args:?}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    #[test]
    fn real_loop_device() {
        if unsafe { libc::geteuid() } != 0 {
            println!("SKIP: attaching a loop device needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let img = dir.path().join("guard.img");
        // 16 MiB with an MBR holding one Linux partition from sector 2048
        let mut data = vec![0u8; 16 << 20];
        let entry = &mut data[446..462];
        entry[4] = 0x83;
        entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
        entry[12..16].copy_from_slice(&(32768u32 - 2048).to_le_bytes());
        data[510] = 0x55;
        data[511] = 0xaa;
        fs::write(&img, &data).unwrap();
        let dev = match run("losetup", &["-f", "--show", "-P", img.to_str().unwrap()]) {
            Ok(d) => d,
            Err(e) => {
                println!("SKIP: losetup failed: {e}");
                return;
            }
        };
        let mut lp = Loop {
            dev: dev.clone(),
            mounted: None,
        };
        let name = dev.trim_start_matches("/dev/").to_string();
        let part = format!("{dev}p1");
        for _ in 0..50 {
            if Path::new(&part).exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let h = Host::real();
        // Some kernels (this VM's) have no MBR support: no loopNp1 then.
        let has_part = Path::new(&part).exists();

        let i = inspect(&h, &dev).unwrap();
        assert_eq!(
            (i.path.as_str(), i.name.as_str(), i.disk.as_str()),
            (dev.as_str(), name.as_str(), name.as_str())
        );
        assert_eq!(i.bus, "loop");
        assert!(!i.removable && !i.is_partition && !i.read_only && !i.swap);
        assert_eq!(i.size_bytes, 16 << 20);
        assert!(i.mounts.is_empty() && i.holders.is_empty());
        assert!(check(&i, &h, Some(&dev), false)
            .unwrap_err()
            .to_string()
            .contains("fixed disk (loop)"));
        check(&i, &h, Some(&dev), true).unwrap();
        check(&i, &h, Some(&name), true).unwrap();
        assert!(describe(&i).contains("16.8 MB (16.0 MiB), loop, fixed"));

        // O_EXCL: a second exclusive open of the same device is refused
        let f = open_exclusive(&dev).unwrap();
        same_device(&f, &i).unwrap();
        let e = open_exclusive(&dev).unwrap_err().to_string();
        assert!(e.contains("busy"), "{e}");
        drop(f);
        drop(open_exclusive(&dev).unwrap());

        let fs_dev = if has_part {
            assert_eq!(i.partitions, [format!("{name}p1")]);
            assert!(check(&i, &h, Some(&part), true)
                .unwrap_err()
                .to_string()
                .contains("its partition"));
            let p = inspect(&h, &part).unwrap();
            assert!(p.is_partition);
            assert_eq!(
                (p.name.clone(), p.disk.as_str()),
                (format!("{name}p1"), name.as_str())
            );
            assert_eq!(p.size_bytes, (32768 - 2048) * 512);
            let f = open_exclusive(&dev).unwrap();
            assert!(same_device(&f, &p).is_err());
            drop(f);
            part.clone()
        } else {
            println!("SKIP: partition checks: the kernel made no {part}");
            assert!(i.partitions.is_empty());
            dev.clone()
        };

        // a mounted filesystem: the guard and the kernel both refuse the disk
        if let Err(e) = run("mkfs.ext4", &["-q", "-F", &fs_dev]) {
            println!("SKIP: mounted case: {e}");
            return;
        }
        let mnt = dir.path().join("mnt point");
        fs::create_dir(&mnt).unwrap();
        if let Err(e) = run("mount", &[&fs_dev, mnt.to_str().unwrap()]) {
            println!("SKIP: mounted case: {e}");
            return;
        }
        lp.mounted = Some(mnt.clone());
        let i = inspect(&h, &dev).unwrap();
        assert_eq!(
            i.mounts,
            [(fs_dev.clone(), mnt.to_string_lossy().into_owned())]
        );
        let e = check(&i, &h, Some(&dev), true).unwrap_err().to_string();
        assert!(
            e.contains(&format!("is mounted on {}", mnt.display())),
            "{e}"
        );
        assert!(describe(&i).contains(&format!("mounted: {fs_dev} on {}", mnt.display())));
        assert!(open_exclusive(&dev)
            .unwrap_err()
            .to_string()
            .contains("busy"));
        assert!(open_exclusive(&fs_dev)
            .unwrap_err()
            .to_string()
            .contains("busy"));
        drop(lp);
    }
}
