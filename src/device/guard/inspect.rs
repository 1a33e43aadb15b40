//! `inspect`: what the kernel says about a block device, read in small
//! steps (where it is, its hardware, what is built on it, its mounts and
//! swaps), all through [`Host`].

use super::{resolve_arg, Detail, DeviceInfo, HolderKind, Host};
use crate::{Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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
    if let Some(backing) = host.read(&dir.join("loop/backing_file")) {
        return HolderKind::Loop(backing);
    }
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
pub(super) fn lower_disks(host: &Host, name: &str) -> BTreeSet<String> {
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
pub(super) fn bus_of(sys_path: &str) -> &'static str {
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

/// What the kernel says about block device `dev`: each part read by one
/// step below (where it is, what hardware, what is built on it, what is
/// mounted or swapping on it).
pub fn inspect(host: &Host, dev: &str) -> Result<DeviceInfo> {
    let (path, name) = resolve_arg(host, dev)?;
    let dir = host
        .block_dir(&name)
        .ok_or_else(|| Error::work(format!("{dev}: no block device {name} in /sys/class/block")))?;
    let is_partition = host.exists(&dir.join("partition"));
    let (disk, disk_dir) = disk_of(host, dev, &name, &dir, is_partition)?;
    let sectors: u64 = host
        .read(&dir.join("size"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let hw = hardware(host, &dir, &disk_dir);
    let disk_parts = partitions_of(host, &disk_dir);
    let (family, holder_list) = built_on(host, &disk, &disk_parts);
    let mut holders: Vec<String> = holder_list.iter().map(|(_, h, _)| h.clone()).collect();
    holders.sort();
    holders.dedup();
    let (mounts, mount_blocks) = mounts_on(host, &family);
    let swaps: Vec<(String, String)> = read_swaps(host)
        .into_iter()
        .filter(|(_, n)| family.contains(n))
        .collect();
    Ok(DeviceInfo {
        path,
        devno: host.read(&dir.join("dev")).unwrap_or_default(),
        is_partition,
        size_bytes: sectors.saturating_mul(512),
        model: hw.model,
        vendor: hw.vendor,
        serial: hw.serial,
        wwid: hw.wwid,
        bus: hw.bus,
        removable: hw.removable,
        partitions: if is_partition {
            Vec::new()
        } else {
            disk_parts.clone()
        },
        mounts,
        holders,
        swap: !swaps.is_empty(),
        read_only: hw.read_only,
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

/// The whole disk of a device (itself unless it is a partition) and its
/// sysfs directory.
fn disk_of(
    host: &Host,
    dev: &str,
    name: &str,
    dir: &Path,
    is_partition: bool,
) -> Result<(String, PathBuf)> {
    if !is_partition {
        return Ok((name.to_string(), dir.to_path_buf()));
    }
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
    Ok((disk, parent.to_path_buf()))
}

/// What sysfs says about the hardware behind a disk.
struct Hardware {
    model: String,
    vendor: String,
    serial: String,
    wwid: String,
    bus: String,
    removable: bool,
    read_only: bool,
}

fn hardware(host: &Host, dir: &Path, disk_dir: &Path) -> Hardware {
    let flag = |d: &Path, f: &str| host.read(&d.join(f)).as_deref() == Some("1");
    let bus = bus_of(&disk_dir.to_string_lossy()).to_string();
    let dev_attr = |f: &str| {
        host.read(&disk_dir.join("device").join(f))
            .filter(|s| !s.is_empty())
    };
    let disk_attr = |f: &str| host.read(&disk_dir.join(f)).filter(|s| !s.is_empty());
    let usb = usb_device_dir(host, disk_dir);
    let usb_attr = |f: &str| {
        usb.as_ref()
            .and_then(|u| host.read(&u.join(f)))
            .filter(|s| !s.is_empty())
    };
    let model = dev_attr("model")
        .or_else(|| dev_attr("name"))
        .or_else(|| usb_attr("product"));
    let vendor = dev_attr("vendor").or_else(|| usb_attr("manufacturer"));
    let serial = dev_attr("serial")
        .or_else(|| disk_attr("serial"))
        .or_else(|| usb_attr("serial"));
    let wwid = dev_attr("wwid").or_else(|| disk_attr("wwid"));
    // USB SSDs say removable=0 yet are external; soldered eMMC says type MMC.
    let removable = flag(disk_dir, "removable")
        || bus == "usb"
        || (bus == "mmc" && dev_attr("type").as_deref() != Some("MMC"));
    Hardware {
        model: model.unwrap_or_default(),
        vendor: vendor.unwrap_or_default(),
        serial: serial.unwrap_or_default(),
        wwid: wwid.unwrap_or_default(),
        read_only: flag(dir, "ro") || flag(disk_dir, "ro"),
        bus,
        removable,
    }
}

/// Every loop device whose backing file is a block device: (loop device,
/// the block device's kernel name). A loop device neither opens what it
/// sits on exclusively nor shows in its holders/, so neither the kernel's
/// exclusive open nor the holders would tell that erasing the device
/// erases what is mounted from the loop device.
fn loops_on_block_devices(host: &Host) -> Vec<(String, String)> {
    host.list(Path::new("/sys/class/block"))
        .into_iter()
        .filter_map(|lo| {
            let dir = host.block_dir(&lo)?;
            let backing = host.read(&dir.join("loop/backing_file"))?;
            Some((lo, block_of_path(host, &backing)?))
        })
        .collect()
}

/// The disk, its partitions and everything built on them (the family), and
/// every (lower device, holder, kind): holders of the disk and its
/// partitions first, as they make the best message. Holders are dm and md
/// devices and loop devices on any of them, with their own partitions.
fn built_on(
    host: &Host,
    disk: &str,
    disk_parts: &[String],
) -> (BTreeSet<String>, Vec<(String, String, HolderKind)>) {
    let mut family: BTreeSet<String> = BTreeSet::new();
    family.insert(disk.to_string());
    family.extend(disk_parts.iter().cloned());
    let loops = loops_on_block_devices(host);
    let mut holder_list: Vec<(String, String, HolderKind)> = Vec::new();
    let mut queue: Vec<String> = family.iter().cloned().collect();
    while let Some(lower) = queue.pop() {
        let Some(ldir) = host.block_dir(&lower) else {
            continue;
        };
        let on_it = loops.iter().filter(|(_, b)| *b == lower).map(|(l, _)| l);
        for h in host.holders(&ldir).iter().chain(on_it) {
            let hdir = host.block_dir(h);
            let parts = hdir.map(|d| partitions_of(host, &d)).unwrap_or_default();
            for n in std::iter::once(h).chain(&parts) {
                if family.insert(n.clone()) {
                    queue.push(n.clone());
                }
            }
            if !holder_list.iter().any(|(l, x, _)| *l == lower && x == h) {
                holder_list.push((lower.clone(), h.clone(), holder_kind(host, h)));
            }
        }
    }
    let on_disk = |n: &String| n == disk || disk_parts.contains(n);
    holder_list.sort_by_key(|(l, h, _)| (!on_disk(l), l.clone(), h.clone()));
    (family, holder_list)
}

/// Every mount of one of `family`: (source as shown, mount point), and the
/// kernel name behind each.
fn mounts_on(host: &Host, family: &BTreeSet<String>) -> (Vec<(String, String)>, Vec<String>) {
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
    (mounts, mount_blocks)
}
