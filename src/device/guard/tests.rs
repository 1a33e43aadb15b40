//! The guard against fake hosts (tests/fixtures/guard/) and one real loop
//! device.

use super::check::*;
use super::describe::*;
use super::inspect::*;
use super::*;
use std::collections::BTreeSet;
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
    assert!(
        e.ends_with(
            "it is a fixed disk (ata, WDC WD10EZEX-08W); pass --allow-fixed if you really mean it"
        ),
        "{e}"
    );
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

/// 16 MiB with an MBR holding one Linux partition from sector 2048.
fn mbr_image(dir: &Path) -> PathBuf {
    let img = dir.join("guard.img");
    let mut data = vec![0u8; 16 << 20];
    let entry = &mut data[446..462];
    entry[4] = 0x83;
    entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
    entry[12..16].copy_from_slice(&(32768u32 - 2048).to_le_bytes());
    data[510] = 0x55;
    data[511] = 0xaa;
    fs::write(&img, &data).unwrap();
    img
}

/// The whole loop device: inspected, refused as fixed, accepted with
/// --allow-fixed, and held exclusively by one opener at a time.
fn whole_loop(h: &Host, dev: &str, name: &str) -> DeviceInfo {
    let i = inspect(h, dev).unwrap();
    assert_eq!(
        (i.path.as_str(), i.name.as_str(), i.disk.as_str()),
        (dev, name, name)
    );
    assert_eq!(i.bus, "loop");
    assert!(!i.removable && !i.is_partition && !i.read_only && !i.swap);
    assert_eq!(i.size_bytes, 16 << 20);
    assert!(i.mounts.is_empty() && i.holders.is_empty());
    assert!(check(&i, h, Some(dev), false)
        .unwrap_err()
        .to_string()
        .contains("fixed disk (loop)"));
    check(&i, h, Some(dev), true).unwrap();
    check(&i, h, Some(name), true).unwrap();
    assert!(describe(&i).contains("16.8 MB (16.0 MiB), loop, fixed"));

    // O_EXCL: a second exclusive open of the same device is refused
    let f = open_exclusive(dev).unwrap();
    same_device(&f, &i).unwrap();
    let e = open_exclusive(dev).unwrap_err().to_string();
    assert!(e.contains("busy"), "{e}");
    drop(f);
    drop(open_exclusive(dev).unwrap());
    i
}

/// Its partition: refused as "its partition" when confirmed, and not the
/// device an open of the disk finds.
fn partition_of_loop(h: &Host, i: &DeviceInfo, dev: &str, name: &str, part: &str) {
    assert_eq!(i.partitions, [format!("{name}p1")]);
    assert!(check(i, h, Some(part), true)
        .unwrap_err()
        .to_string()
        .contains("its partition"));
    let p = inspect(h, part).unwrap();
    assert!(p.is_partition);
    assert_eq!(
        (p.name.clone(), p.disk.as_str()),
        (format!("{name}p1"), name)
    );
    assert_eq!(p.size_bytes, (32768 - 2048) * 512);
    let f = open_exclusive(dev).unwrap();
    assert!(same_device(&f, &p).is_err());
}

/// A mounted filesystem: the guard and the kernel both refuse the disk.
fn mounted_loop(h: &Host, lp: &mut Loop, fs_dev: &str, dir: &Path) {
    let dev = lp.dev.clone();
    if let Err(e) = run("mkfs.ext4", &["-q", "-F", fs_dev]) {
        println!("SKIP: mounted case: {e}");
        return;
    }
    let mnt = dir.join("mnt point");
    fs::create_dir(&mnt).unwrap();
    if let Err(e) = run("mount", &[fs_dev, mnt.to_str().unwrap()]) {
        println!("SKIP: mounted case: {e}");
        return;
    }
    lp.mounted = Some(mnt.clone());
    let i = inspect(h, &dev).unwrap();
    assert_eq!(
        i.mounts,
        [(fs_dev.to_string(), mnt.to_string_lossy().into_owned())]
    );
    let e = check(&i, h, Some(&dev), true).unwrap_err().to_string();
    assert!(
        e.contains(&format!("is mounted on {}", mnt.display())),
        "{e}"
    );
    assert!(describe(&i).contains(&format!("mounted: {fs_dev} on {}", mnt.display())));
    assert!(open_exclusive(&dev)
        .unwrap_err()
        .to_string()
        .contains("busy"));
    assert!(open_exclusive(fs_dev)
        .unwrap_err()
        .to_string()
        .contains("busy"));
}

#[test]
fn real_loop_device() {
    if !crate::device::is_root() {
        println!("SKIP: attaching a loop device needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = mbr_image(dir.path());
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
    let i = whole_loop(&h, &dev, &name);
    // Some kernels (this VM's) have no MBR support: no loopNp1 then.
    let fs_dev = if Path::new(&part).exists() {
        partition_of_loop(&h, &i, &dev, &name, &part);
        part.clone()
    } else {
        println!("SKIP: partition checks: the kernel made no {part}");
        assert!(i.partitions.is_empty());
        dev.clone()
    };
    mounted_loop(&h, &mut lp, &fs_dev, dir.path());
    drop(lp);
}
