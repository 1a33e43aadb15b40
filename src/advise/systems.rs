//! What each system `--for` names reads and writes, the partition table it
//! needs and the limits it has, each fact with where it comes from: the one
//! place advise learns which filesystems a device takes. Conservative: "many
//! devices" is not "every device", so a filesystem is listed only where it
//! is the rule, and what only some models do is said in a note.

use crate::fs;

// The registry's names (filesystem names live in src/fs).
const FAT12: &str = fs::fat::FAT12_INFO.name;
const FAT16: &str = fs::fat::FAT16_INFO.name;
const FAT32: &str = fs::fat::FAT32_INFO.name;
const EXFAT: &str = fs::exfat::INFO.name;
const NTFS: &str = fs::ntfs::INFO.name;
const EXT4: &str = fs::ext4::INFO.name;
const UDF: &str = fs::udf::INFO.name;
const BTRFS: &str = fs::btrfs::INFO.name;
const XFS: &str = fs::xfs::INFO.name;
const F2FS: &str = fs::f2fs::INFO.name;

/// A filesystem list that depends on the card's capacity, as the SD
/// standard has it: up to `up_to` bytes, exactly these filesystems.
pub struct ByCapacity {
    pub up_to: u64,
    /// The card class: "SDSC", "SDHC", "SDXC".
    pub class: &'static str,
    pub fs: &'static [&'static str],
}

/// The kind of drive a system takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Medium {
    SdCard,
    UsbStick,
}

/// A system `--for` can name.
pub struct System {
    pub name: &'static str,
    /// What it is, for the output ("car head units").
    pub what: &'static str,
    /// Reads and writes these out of the box.
    pub read_write: &'static [&'static str],
    /// Reads these but cannot write them.
    pub read_only: &'static [&'static str],
    /// Only reads the drive (plays it): a filesystem it reads is enough.
    pub plays_only: bool,
    /// Cameras: which filesystem the card's class takes, by capacity.
    pub by_capacity: &'static [ByCapacity],
    /// The drives it takes, the usual one first (the flash profile advise
    /// simulates when no --drive is given follows it).
    pub media: &'static [Medium],
    /// It formats its cards as the SD specification lays them out (and
    /// expects that layout on a card it is given).
    pub sd_layout: bool,
    /// The partition table and type it needs, when it needs one.
    pub partition: Option<&'static str>,
    /// It reads only an MBR (DOS) partition table, not GPT.
    pub needs_mbr: bool,
    /// Largest volume many of them read, with the fact.
    pub max_volume: Option<(u64, &'static str)>,
    /// Other limits (files per folder, folder depth, order of play).
    pub limits: &'static [&'static str],
    /// Where these facts come from.
    pub source: &'static str,
}

const GB: u64 = 1 << 30;

/// SD Physical Layer and File System specifications (SD Association, Part
/// 2 "File System Specification"): SDSC up to 2 GB is FAT12 (up to 64 MB)
/// or FAT16, SDHC (over 2 GB up to 32 GB) FAT32, SDXC (over 32 GB) exFAT.
const SD_CLASSES: &[ByCapacity] = &[
    ByCapacity {
        up_to: 64 << 20,
        class: "SDSC",
        fs: &[FAT12],
    },
    ByCapacity {
        up_to: 2 * GB,
        class: "SDSC",
        fs: &[FAT16],
    },
    ByCapacity {
        up_to: 32 * GB,
        class: "SDHC",
        fs: &[FAT32],
    },
    ByCapacity {
        up_to: u64::MAX,
        class: "SDXC",
        fs: &[EXFAT],
    },
];

const ALL_FAT: &[&str] = &[FAT12, FAT16, FAT32];

pub const SYSTEMS: &[System] = &[
    System {
        name: "windows",
        what: "Windows",
        read_write: &[FAT12, FAT16, FAT32, EXFAT, NTFS, UDF],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::UsbStick, Medium::SdCard],
        sd_layout: false,
        partition: None,
        needs_mbr: false,
        max_volume: None,
        limits: &[],
        source: "Microsoft, 'File systems supported by Windows': FAT, exFAT, NTFS, UDF (2.01 writable since Vista); no ext4/btrfs/XFS/F2FS driver",
    },
    System {
        name: "macos",
        what: "macOS",
        read_write: &[FAT12, FAT16, FAT32, EXFAT],
        read_only: &[NTFS, UDF],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::UsbStick, Medium::SdCard],
        sd_layout: false,
        partition: None,
        needs_mbr: false,
        max_volume: None,
        limits: &["Finder copies add a ._NAME AppleDouble file beside every file with extended attributes on FAT and exFAT, a whole cluster each: --appledouble counts them"],
        source: "Apple, Disk Utility 'File system formats available': MS-DOS (FAT) and ExFAT read/write; NTFS read-only; UDF read (writing only on optical media)",
    },
    System {
        name: "linux",
        what: "Linux",
        read_write: &[
            FAT12, FAT16, FAT32, EXFAT, NTFS, EXT4, UDF, BTRFS, XFS, F2FS,
        ],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::UsbStick, Medium::SdCard],
        sd_layout: false,
        partition: None,
        needs_mbr: false,
        max_volume: None,
        limits: &[],
        source: "Linux kernel: vfat, exfat (5.7+), ntfs3 (5.15+), ext4, udf, btrfs, xfs, f2fs drivers",
    },
    System {
        name: "android",
        what: "Android phones and tablets",
        read_write: &[FAT32, EXFAT],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::SdCard, Medium::UsbStick],
        sd_layout: false,
        partition: None,
        needs_mbr: false,
        max_volume: None,
        limits: &["NTFS and ext4 only on some builds: not counted"],
        source: "Android source, vold (PublicVolume): removable storage is vfat, or exFAT where the device ships the exfat driver (every SDXC-capable one); NTFS/ext4 only on some vendors' builds",
    },
    System {
        name: "camera",
        what: "cameras",
        read_write: &[],
        read_only: &[],
        plays_only: false,
        by_capacity: SD_CLASSES,
        media: &[Medium::SdCard],
        sd_layout: true,
        partition: Some("MBR (DOS) partition table with one partition, as the SD File System Specification lays a card out; or format the card in the camera"),
        needs_mbr: true,
        max_volume: None,
        limits: &["cameras write folders and names of the DCF standard (DCIM/100ABCDE/ABCD0001.JPG): format the card in the camera when you can"],
        source: "SD Association, SD Specifications Part 2 'File System Specification': SDSC (up to 2 GB) FAT12 up to 64 MB, else FAT16; SDHC (over 2 GB, up to 32 GB) FAT32; SDXC (over 32 GB) exFAT. Cameras format and expect these",
    },
    System {
        name: "tv",
        what: "TVs (USB playback)",
        read_write: &[FAT16, FAT32, EXFAT],
        read_only: &[],
        plays_only: true,
        by_capacity: &[],
        media: &[Medium::UsbStick],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table, the first partition is the one played"),
        needs_mbr: true,
        max_volume: None,
        limits: &["NTFS plays on many recent models (Samsung, LG, Sony list it read-only) but not on every TV: not counted"],
        source: "TV makers' USB playback specifications (Samsung 'Read before playing photo, video or music files', LG and Sony manuals): FAT16, FAT32 and exFAT; NTFS on some models only",
    },
    System {
        name: "car",
        what: "car head units",
        read_write: ALL_FAT,
        read_only: &[],
        plays_only: true,
        by_capacity: &[],
        media: &[Medium::UsbStick],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table with one primary partition of type 0x0C (FAT32 LBA): many head units do not read GPT"),
        needs_mbr: true,
        max_volume: Some((32_000_000_000, "many head units read USB drives only up to 32 GB")),
        limits: &[
            "head units limit folders and files: e.g. Toyota/Lexus manuals list 8 folder levels, 3000 folders, 255 files per folder, 9999 files",
            "tracks play in the order their entries were written to the folder, not by name: copy them in the order you want them played",
            "exFAT only for units whose manual lists it: say --for car-exfat",
        ],
        source: "car audio owner's manuals (Toyota/Lexus, Honda, VW, Ford SYNC 1/2): USB memory formatted FAT16 or FAT32; exFAT only on some newer units (SYNC 3, recent VW)",
    },
    System {
        name: "car-exfat",
        what: "car head units whose manual lists exFAT",
        read_write: &[FAT12, FAT16, FAT32, EXFAT],
        read_only: &[],
        plays_only: true,
        by_capacity: &[],
        media: &[Medium::UsbStick],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table with one primary partition: many head units do not read GPT"),
        needs_mbr: true,
        max_volume: None,
        limits: &[
            "head units limit folders and files: e.g. Toyota/Lexus manuals list 8 folder levels, 3000 folders, 255 files per folder, 9999 files",
        ],
        source: "the head unit's manual, which lists exFAT (e.g. Ford SYNC 3: FAT, exFAT)",
    },
    System {
        name: "switch",
        what: "Nintendo Switch",
        read_write: &[FAT32, EXFAT],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::SdCard],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table; the console formats the card itself"),
        needs_mbr: true,
        max_volume: None,
        limits: &["exFAT needs the console's exFAT system update"],
        source: "Nintendo support, 'microSD cards compatible with Nintendo Switch': FAT32, and exFAT (SDXC) after a system update",
    },
    System {
        name: "playstation",
        what: "PlayStation 4/5 (media and backups)",
        read_write: &[FAT32, EXFAT],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::UsbStick],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table"),
        needs_mbr: true,
        max_volume: None,
        limits: &["extended storage for games is formatted by the console in its own format: this is for media and backups"],
        source: "PlayStation support, 'USB storage devices for PS4/PS5': media and backups on exFAT or FAT32",
    },
    System {
        name: "xbox",
        what: "Xbox One/Series (media playback)",
        read_write: &[NTFS, EXFAT],
        read_only: &[],
        plays_only: true,
        by_capacity: &[],
        media: &[Medium::UsbStick],
        sd_layout: false,
        partition: None,
        needs_mbr: false,
        max_volume: None,
        limits: &["external storage for games is formatted by the console: this is for media"],
        source: "Xbox support, 'Media Player on Xbox' USB drives: NTFS and exFAT",
    },
    System {
        name: "console",
        what: "game consoles (Switch and PlayStation alike)",
        read_write: &[FAT32, EXFAT],
        read_only: &[],
        plays_only: false,
        by_capacity: &[],
        media: &[Medium::SdCard, Medium::UsbStick],
        sd_layout: false,
        partition: Some("MBR (DOS) partition table"),
        needs_mbr: true,
        max_volume: None,
        limits: &["name the console (switch, playstation, xbox) for its own facts"],
        source: "what Switch and PlayStation both take: FAT32 and exFAT (Nintendo and PlayStation support pages)",
    },
];

impl System {
    /// The filesystems it takes on a volume of `volume` bytes, and the card
    /// class that decided it (cameras).
    fn takes(&self, volume: u64) -> (&'static [&'static str], Option<&'static str>) {
        match self.by_capacity.iter().find(|c| volume <= c.up_to) {
            Some(c) => (c.fs, Some(c.class)),
            None => (self.read_write, None),
        }
    }

    /// It can use `fs` on a volume of `volume` bytes: reads and writes it,
    /// or reads it where it only plays the drive.
    pub fn uses(&self, fs: &str, volume: u64) -> bool {
        let (rw, _) = self.takes(volume);
        rw.contains(&fs) || (self.plays_only && self.read_only.contains(&fs))
    }

    /// Why it cannot use `fs` on this volume, naming the system and the fact.
    pub fn why_not(&self, fs: &str, volume: u64) -> Option<String> {
        if self.uses(fs, volume) {
            return None;
        }
        let (rw, class) = self.takes(volume);
        Some(match class {
            Some(class) => format!(
                "{}: a {} card ({}) is formatted {}, not {fs} (SD standard)",
                self.name,
                class,
                crate::units::iec(volume),
                rw.join(", ")
            ),
            None if self.read_only.contains(&fs) => format!("{} only reads {fs}", self.name),
            None => format!("{} does not read {fs}", self.name),
        })
    }

    /// The filesystems it uses on this volume, in registry order.
    pub fn usable(&self, volume: u64) -> Vec<&'static str> {
        fs::names()
            .into_iter()
            .filter(|f| self.uses(f, volume))
            .collect()
    }

    /// The facts that matter for this volume: the card class, the size
    /// limit when the volume is over it, the partition table, the limits.
    pub fn notes(&self, volume: u64) -> Vec<String> {
        let mut v = Vec::new();
        if let (fs, Some(class)) = self.takes(volume) {
            v.push(format!(
                "{}: a {} card is {class}, which the SD standard formats {}",
                self.name,
                crate::units::iec(volume),
                fs.join(", ")
            ));
        }
        if let Some((max, fact)) = self.max_volume.filter(|(m, _)| volume > *m) {
            v.push(format!(
                "{}: {fact}; this volume is {}: check the manual, or use a partition of {} at most",
                self.name,
                crate::units::iec(volume),
                crate::units::iec(max)
            ));
        }
        if let Some(p) = self.partition {
            v.push(format!("{}: {p}", self.name));
        }
        v.extend(self.limits.iter().map(|l| format!("{}: {l}", self.name)));
        v
    }
}

/// Whether the drive is an SD card: every named system takes cards and one
/// of them takes mostly cards. Returns those that take mostly cards.
pub fn card_users(systems: &[&System]) -> Vec<&'static str> {
    let all_take = !systems.is_empty() && systems.iter().all(|s| s.media.contains(&Medium::SdCard));
    if !all_take {
        return Vec::new();
    }
    systems
        .iter()
        .filter(|s| s.media.first() == Some(&Medium::SdCard))
        .map(|s| s.name)
        .collect()
}

/// The named systems that read only an MBR partition table.
pub fn mbr_users(systems: &[&System]) -> Vec<&'static str> {
    systems
        .iter()
        .filter(|s| s.needs_mbr)
        .map(|s| s.name)
        .collect()
}

/// The named systems that expect the SD specification's layout.
pub fn sd_layout_users(systems: &[&System]) -> Vec<&'static str> {
    systems
        .iter()
        .filter(|s| s.sd_layout)
        .map(|s| s.name)
        .collect()
}

pub fn by_name(name: &str) -> Option<&'static System> {
    SYSTEMS.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    SYSTEMS.iter().map(|s| s.name).collect()
}

/// Robustness classes, most robust first: journaled or copy-on-write
/// (ext4, XFS, btrfs, F2FS), then NTFS (journaled metadata, but on other
/// systems through drivers that repair less), then exFAT (one FAT, a dirty
/// bit), then FAT (no journal), then UDF (no journal, no Linux checker).
pub const ROBUSTNESS_CLASSES: &[(&str, &[&str])] = &[
    ("journaled or copy-on-write", &[EXT4, XFS, BTRFS, F2FS]),
    ("NTFS", &[NTFS]),
    ("exFAT", &[EXFAT]),
    ("FAT", &[FAT32, FAT16, FAT12]),
    ("UDF", &[UDF]),
];

/// The robustness class of `fs` (0 best) and its place inside the class.
pub fn robustness_rank(fs: &str) -> (usize, usize) {
    ROBUSTNESS_CLASSES
        .iter()
        .enumerate()
        .find_map(|(i, (_, members))| members.iter().position(|m| *m == fs).map(|j| (i, j)))
        .unwrap_or((ROBUSTNESS_CLASSES.len(), 0))
}

/// The order in words, as the output states it.
pub fn robustness_order() -> String {
    ROBUSTNESS_CLASSES
        .iter()
        .map(|(name, members)| {
            if members.len() > 1 {
                let m: Vec<String> = members
                    .iter()
                    .map(|f| fs::by_name(f).map_or(f.to_string(), |x| x.info().title.into()))
                    .collect();
                format!("{name} ({})", m.join(", "))
            } else {
                name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_filesystem_exists() {
        for s in SYSTEMS {
            let caps = s.by_capacity.iter().flat_map(|c| c.fs.iter());
            for f in s.read_write.iter().chain(s.read_only).chain(caps) {
                assert!(crate::fs::by_name(f).is_some(), "{} lists {f}", s.name);
            }
            for f in s.read_only {
                assert!(!s.read_write.contains(f), "{} lists {f} twice", s.name);
            }
            assert!(!s.source.is_empty());
        }
        for f in crate::fs::names() {
            assert!(robustness_rank(f).0 < ROBUSTNESS_CLASSES.len(), "{f}");
        }
    }

    #[test]
    fn linux_reads_and_writes_everything() {
        assert_eq!(by_name("linux").unwrap().usable(GB), crate::fs::names());
    }

    #[test]
    fn cameras_by_sd_class() {
        let cam = by_name("camera").unwrap();
        assert_eq!(cam.usable(2_000_000_000), ["fat16"]);
        assert_eq!(cam.usable(2 * GB), ["fat16"]);
        assert_eq!(cam.usable(16_000_000_000), ["fat32"]);
        assert_eq!(cam.usable(32 * GB), ["fat32"]);
        assert_eq!(cam.usable(64_000_000_000), ["exfat"]);
        assert_eq!(cam.usable(32 << 20), ["fat12"]);
        let why = cam.why_not("exfat", 2_000_000_000).unwrap();
        assert!(why.contains("SDSC") && why.contains("fat16"), "{why}");
    }

    #[test]
    fn tvs_read_fat16_and_cars_only_fat() {
        let tv = by_name("tv").unwrap();
        assert!(tv.uses("fat16", 2 * GB));
        assert!(tv.why_not("fat16", 2 * GB).is_none());
        let car = by_name("car").unwrap();
        assert_eq!(car.usable(32 * GB), ["fat12", "fat16", "fat32"]);
        assert!(car
            .why_not("exfat", GB)
            .unwrap()
            .contains("car does not read exfat"));
        assert!(by_name("car-exfat").unwrap().uses("exfat", GB));
        let notes = car.notes(64_000_000_000).join("\n");
        assert!(
            notes.contains("up to 32 GB") && notes.contains("0x0C"),
            "{notes}"
        );
        assert!(!car.notes(16_000_000_000).join("\n").contains("up to 32 GB"));
    }

    #[test]
    fn cars_take_sticks_and_cameras_and_the_switch_cards() {
        let of = |names: &[&str]| -> Vec<&'static System> {
            names.iter().map(|n| by_name(n).unwrap()).collect()
        };
        assert!(card_users(&of(&["car"])).is_empty());
        assert!(card_users(&of(&["tv"])).is_empty());
        assert_eq!(card_users(&of(&["camera"])), ["camera"]);
        assert_eq!(card_users(&of(&["switch"])), ["switch"]);
        assert_eq!(card_users(&of(&["camera", "windows"])), ["camera"]);
        assert!(card_users(&of(&["camera", "car"])).is_empty());
        assert!(card_users(&[]).is_empty());
        assert_eq!(mbr_users(&of(&["linux", "car"])), ["car"]);
        assert!(mbr_users(&of(&["windows", "macos"])).is_empty());
        assert_eq!(sd_layout_users(&of(&["camera", "windows"])), ["camera"]);
        for s in SYSTEMS {
            assert!(!s.media.is_empty(), "{}", s.name);
            assert_eq!(
                s.needs_mbr,
                s.partition.is_some_and(|p| p.contains("MBR")),
                "{}",
                s.name
            );
        }
    }

    #[test]
    fn robustness_classes_in_the_stated_order() {
        let order = [
            "ext4", "xfs", "btrfs", "f2fs", "ntfs", "exfat", "fat32", "udf",
        ];
        for w in order.windows(2) {
            assert!(robustness_rank(w[0]) < robustness_rank(w[1]), "{w:?}");
        }
        assert!(robustness_order().starts_with("journaled or copy-on-write (ext4, XFS"));
    }
}
