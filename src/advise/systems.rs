//! Which filesystems each kind of device reads and writes out of the box,
//! each row with where it comes from. Conservative: "many devices" is not
//! "every device", so a filesystem is listed only where it is the rule.

/// A system `--for` can name.
pub struct System {
    pub name: &'static str,
    /// Filesystems it reads and writes without extra software.
    pub read_write: &'static [&'static str],
    /// Filesystems it only reads.
    pub read_only: &'static [&'static str],
    pub source: &'static str,
}

pub const SYSTEMS: &[System] = &[
    System {
        name: "windows",
        read_write: &["fat12", "fat16", "fat32", "exfat", "ntfs", "udf"],
        read_only: &[],
        source: "Microsoft, 'File systems supported by Windows': FAT, exFAT, NTFS, UDF (2.01 writable since Vista); no ext4/btrfs/XFS/F2FS driver",
    },
    System {
        name: "macos",
        read_write: &["fat12", "fat16", "fat32", "exfat"],
        read_only: &["ntfs", "udf"],
        source: "Apple, Disk Utility 'File system formats': MS-DOS (FAT) and ExFAT read/write; NTFS read-only; UDF read (writing only on optical media)",
    },
    System {
        name: "linux",
        read_write: &["fat12", "fat16", "fat32", "exfat", "ntfs", "ext4", "udf", "btrfs", "xfs", "f2fs"],
        read_only: &[],
        source: "Linux kernel: vfat, exfat (5.7+), ntfs3 (5.15+), ext4, udf, btrfs, xfs, f2fs drivers",
    },
    System {
        name: "android",
        read_write: &["fat32", "exfat"],
        read_only: &[],
        source: "Android compatibility: removable storage is FAT32, exFAT on SDXC-capable devices (vold); NTFS and ext4 only on some builds",
    },
    System {
        name: "camera",
        read_write: &["fat16", "fat32", "exfat"],
        read_only: &[],
        source: "SD Association: SD (<=2 GB) FAT16, SDHC FAT32, SDXC exFAT; cameras format and expect these (DCF)",
    },
    System {
        name: "tv",
        read_write: &["fat32", "exfat"],
        read_only: &[],
        source: "TV makers' USB playback specs (Samsung, LG, Sony): FAT32 and exFAT everywhere, NTFS on some models only",
    },
    System {
        name: "car",
        read_write: &["fat32", "exfat"],
        read_only: &[],
        source: "Car audio manuals (Toyota, VW, Ford SYNC): FAT32 universally, exFAT on newer head units; many accept FAT32 only",
    },
    System {
        name: "console",
        read_write: &["fat32", "exfat"],
        read_only: &[],
        source: "PlayStation 4/5 and Nintendo Switch storage: FAT32 and exFAT; Xbox media playback adds NTFS",
    },
];

pub fn by_name(name: &str) -> Option<&'static System> {
    SYSTEMS.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    SYSTEMS.iter().map(|s| s.name).collect()
}

/// Robustness notes per filesystem, shown beside the recommendation.
pub fn robustness(fs: &str) -> &'static str {
    match fs {
        "fat12" | "fat16" | "fat32" => {
            "no journal: unplugging mid-write can corrupt the FAT (run fsck.fat / chkdsk after)"
        }
        "exfat" => {
            "no journal (one FAT copy, a dirty bit): unplugging mid-write can lose recent files"
        }
        "ntfs" => "journaled metadata: survives unplugging better than FAT/exFAT",
        "ext4" => "journaled, checksummed metadata",
        "btrfs" => "copy-on-write with checksums on data and metadata",
        "xfs" => "journaled metadata",
        "f2fs" => "log-structured, designed for flash; checkpointed",
        "udf" => "no journal on hard-disk media; few fsck tools",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_filesystem_exists() {
        for s in SYSTEMS {
            for f in s.read_write.iter().chain(s.read_only) {
                assert!(crate::fs::by_name(f).is_some(), "{} lists {f}", s.name);
            }
            assert!(!s.source.is_empty());
        }
    }

    #[test]
    fn camera_and_tv_leave_fat32_and_exfat() {
        let both: Vec<_> = by_name("camera")
            .unwrap()
            .read_write
            .iter()
            .filter(|f| by_name("tv").unwrap().read_write.contains(f))
            .collect();
        assert_eq!(both, [&"fat32", &"exfat"]);
    }
}
