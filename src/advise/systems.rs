//! Which filesystems each kind of device reads and writes out of the box,
//! each row with where it comes from. Conservative: "many devices" is not
//! "every device", so a filesystem is listed only where it is the rule.

/// A system `--for` can name. Which filesystems it reads and writes is kept
/// by each filesystem ([`crate::fs::FsInfo::read_write_on`]); `source` says
/// where those lists come from.
pub struct System {
    pub name: &'static str,
    pub source: &'static str,
}

impl System {
    /// It reads and writes `fs` without extra software.
    pub fn reads_writes(&self, fs: &str) -> bool {
        crate::fs::by_name(fs).is_some_and(|f| f.info().read_write_on.contains(&self.name))
    }

    /// It reads `fs` but cannot write it.
    pub fn only_reads(&self, fs: &str) -> bool {
        crate::fs::by_name(fs).is_some_and(|f| f.info().read_only_on.contains(&self.name))
    }

    /// The filesystems it reads and writes, in registry order.
    pub fn read_write(&self) -> Vec<&'static str> {
        crate::fs::names()
            .into_iter()
            .filter(|f| self.reads_writes(f))
            .collect()
    }
}

pub const SYSTEMS: &[System] = &[
    System {
        name: "windows",
        source: "Microsoft, 'File systems supported by Windows': FAT, exFAT, NTFS, UDF (2.01 writable since Vista); no ext4/btrfs/XFS/F2FS driver",
    },
    System {
        name: "macos",
        source: "Apple, Disk Utility 'File system formats': MS-DOS (FAT) and ExFAT read/write; NTFS read-only; UDF read (writing only on optical media)",
    },
    System {
        name: "linux",
        source: "Linux kernel: vfat, exfat (5.7+), ntfs3 (5.15+), ext4, udf, btrfs, xfs, f2fs drivers",
    },
    System {
        name: "android",
        source: "Android compatibility: removable storage is FAT32, exFAT on SDXC-capable devices (vold); NTFS and ext4 only on some builds",
    },
    System {
        name: "camera",
        source: "SD Association: SD (<=2 GB) FAT16, SDHC FAT32, SDXC exFAT; cameras format and expect these (DCF)",
    },
    System {
        name: "tv",
        source: "TV makers' USB playback specs (Samsung, LG, Sony): FAT32 and exFAT everywhere, NTFS on some models only",
    },
    System {
        name: "car",
        source: "Car audio manuals (Toyota, VW, Ford SYNC): FAT32 universally, exFAT on newer head units; many accept FAT32 only",
    },
    System {
        name: "console",
        source: "PlayStation 4/5 and Nintendo Switch storage: FAT32 and exFAT; Xbox media playback adds NTFS",
    },
];

pub fn by_name(name: &str) -> Option<&'static System> {
    SYSTEMS.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    SYSTEMS.iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_system_exists() {
        for f in crate::fs::all() {
            let i = f.info();
            for s in i.read_write_on.iter().chain(i.read_only_on) {
                assert!(by_name(s).is_some(), "{} lists {s}", i.name);
            }
            for s in i.read_only_on {
                assert!(!i.read_write_on.contains(s), "{} lists {s} twice", i.name);
            }
        }
        for s in SYSTEMS {
            assert!(!s.source.is_empty());
        }
    }

    #[test]
    fn linux_reads_and_writes_everything() {
        assert_eq!(by_name("linux").unwrap().read_write(), crate::fs::names());
    }

    #[test]
    fn camera_and_tv_leave_fat32_and_exfat() {
        let tv = by_name("tv").unwrap();
        let both: Vec<_> = by_name("camera")
            .unwrap()
            .read_write()
            .into_iter()
            .filter(|f| tv.reads_writes(f))
            .collect();
        assert_eq!(both, ["fat32", "exfat"]);
    }
}
