//! `check`: every reason not to erase a device, one small rule each, in
//! the order they are checked; then the `--yes-erase` confirmation.

use super::describe::short_summary;
use super::inspect::{lower_disks, system_disks};
use super::{resolve_arg, DeviceInfo, Host};
use crate::{Error, Result};

/// How `block` relates to the device, for messages: "its partition sdb1".
pub(super) fn relation(info: &DeviceInfo, block: &str, shown: &str) -> String {
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

pub(super) fn and_more(n: usize) -> String {
    if n > 1 {
        format!(" (and {} more)", n - 1)
    } else {
        String::new()
    }
}

/// One reason not to erase the device, or None: the device, the host, and
/// whether `--allow-fixed` was given.
type Rule = fn(&DeviceInfo, &Host, bool) -> Option<String>;

/// Every reason to refuse, in the order they are checked (the first that
/// applies is the message).
const RULES: [Rule; 7] = [
    system_disk,
    mounted,
    swapping,
    held,
    fixed,
    read_only,
    no_medium,
];

/// Every reason to refuse, checked in order, then the confirmation; Ok only
/// when none applies.
pub fn check(
    info: &DeviceInfo,
    host: &Host,
    yes_erase: Option<&str>,
    allow_fixed: bool,
) -> Result<()> {
    let why = RULES
        .iter()
        .find_map(|rule| rule(info, host, allow_fixed))
        .or_else(|| unconfirmed(info, host, yes_erase));
    match why {
        Some(why) => Err(Error::input(format!(
            "refusing to erase {}: {why}",
            info.path
        ))),
        None => Ok(()),
    }
}

fn system_disk(info: &DeviceInfo, host: &Host, _: bool) -> Option<String> {
    let (system, root_source) = system_disks(host);
    let d = lower_disks(host, &info.name)
        .intersection(&system)
        .next()?
        .clone();
    let what = if d == info.name {
        format!("it is the system disk (the root filesystem is mounted from {root_source})")
    } else {
        format!("it is on {d}, the system disk (the root filesystem is mounted from {root_source})")
    };
    Some(format!("{what}; pick another device"))
}

fn mounted(info: &DeviceInfo, _: &Host, _: bool) -> Option<String> {
    let ((shown, point), block) = info.mounts.first().zip(info.detail.mount_blocks.first())?;
    let who = relation(info, block, shown);
    Some(format!(
        "{who} is mounted on {point}{}; unmount first (umount {})",
        and_more(info.mounts.len()),
        crate::quote::quote(point)
    ))
}

fn swapping(info: &DeviceInfo, _: &Host, _: bool) -> Option<String> {
    let (p, block) = info.detail.swaps.first()?;
    let who = relation(info, block, p);
    Some(format!(
        "{who} is in use as swap{}; turn it off first (swapoff {p})",
        and_more(info.detail.swaps.len())
    ))
}

fn held(info: &DeviceInfo, _: &Host, _: bool) -> Option<String> {
    let (lower, holder, kind) = info.detail.holders.first()?;
    let who = if *lower == info.name {
        "it".to_string()
    } else {
        relation(info, lower, lower)
    };
    Some(format!(
        "{who} is in use by {holder} ({}){}; {}",
        kind.describe(),
        and_more(info.detail.holders.len()),
        kind.how_to_stop(holder)
    ))
}

fn fixed(info: &DeviceInfo, _: &Host, allow_fixed: bool) -> Option<String> {
    if info.removable || allow_fixed {
        return None;
    }
    let model = if info.model.is_empty() {
        String::new()
    } else {
        format!(", {}", info.model)
    };
    Some(format!(
        "it is a fixed disk ({}{model}); pass --allow-fixed if you really mean it",
        info.bus
    ))
}

fn read_only(info: &DeviceInfo, _: &Host, _: bool) -> Option<String> {
    info.read_only
        .then(|| "the device is read-only (is the card's write-protect switch on?)".to_string())
}

fn no_medium(info: &DeviceInfo, _: &Host, _: bool) -> Option<String> {
    (info.size_bytes == 0).then(|| "it has size 0 (no medium inserted?)".to_string())
}

/// `--yes-erase` missing, or naming another device than the one inspected.
pub(super) fn unconfirmed(
    info: &DeviceInfo,
    host: &Host,
    yes_erase: Option<&str>,
) -> Option<String> {
    let dev = &info.path;
    let Some(y) = yes_erase else {
        return Some(format!(
            "confirm that everything on it ({}) may be erased with --yes-erase {dev}",
            short_summary(info)
        ));
    };
    let n = match resolve_arg(host, y) {
        Err(e) => {
            return Some(format!(
                "--yes-erase {y} does not name a block device ({e}); it must name {dev}"
            ))
        }
        Ok((_, n)) if n == info.name => return None,
        Ok((_, n)) => n,
    };
    let what = if n == info.disk {
        format!("the whole disk {n}, not the partition {}", info.name)
    } else if info.partitions.contains(&n) {
        format!("its partition {n}, not the whole disk {}", info.name)
    } else {
        format!("{n}, a different device than {}", info.name)
    };
    Some(format!("--yes-erase {y} is {what}; pass --yes-erase {dev}"))
}
