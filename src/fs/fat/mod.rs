//! FAT12/16/32 as `mkfs.fat` (dosfstools 4.2) makes it on a whole image file
//! and as the Linux vfat driver fills it.
//!
//! Free space: the layout arithmetic of `setup_tables()` in dosfstools
//! `src/mkfs.fat.c`, replayed with its C integer types, then statvfs's view of
//! it (`f_bfree` = free clusters, `f_frsize` = cluster size).
//! Tree: every file takes whole clusters (none when empty); every directory
//! takes whole clusters of 32-byte slots: `.` and `..`, then per entry the
//! 8.3 slot plus one long-name slot per 13 UTF-16 units when the name needs a
//! long name. Which names need one is the [`NameRule`].

pub mod format;
pub mod probe;

use super::{Acc, Drivers, Filesystem, Formats, FsInfo, FuseDriver, Limits, Model, WindowsNote};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Entry, Kind};
use crate::units::{iec, short};
use std::ffi::OsStr;

/// mkfs.fat.c: `sector_size = 512` unless the device says otherwise (an
/// image file says nothing: device_info.c `get_device_info`, S_ISREG).
const SECTOR: u64 = 512;
/// The boot sector's total-sectors field is 32 bits: the most sectors a FAT
/// volume of 512-byte sectors has, whatever its cluster.
const MAX_SECTORS: u64 = u32::MAX as u64;
/// mkfs.fat.c: `nr_fats = 2`.
const NR_FATS: u32 = 2;
/// mkfs.fat.c: MAX_CLUST_12, MIN_CLUST_16, MAX_CLUST_16, MAX_CLUST_32. (Its
/// MIN_CLUST_32, 65525, only brings a warning under `-F 32`.)
const MAX_CLUST_12: u32 = 4084;
const MIN_CLUST_16: u32 = 4087;
const MAX_CLUST_16: u32 = 65524;
const MAX_CLUST_32: u32 = 268_435_446;
/// Linux fs/fat/inode.c: `sb->s_maxbytes = 0xffffffff`.
pub const MAX_FILE: u64 = 0xFFFF_FFFF;
/// msdos_fs.h: a directory entry (slot) is 32 bytes.
const SLOT: u64 = 32;
/// Linux fs/fat/dir.c `fat_add_entries`: adding fails once the scan reaches
/// FAT_MAX_DIR_SIZE (2 MiB), so at most 65535 slots are usable.
const MAX_DIR_SLOTS: u64 = (1 << 21) / SLOT - 1;
/// Long-name slots hold 13 UTF-16 units each (namei_vfat.c `xlate_to_uni`).
const LFN_UNITS: u32 = 13;
/// Longest long name (FAT_LFN_LEN).
const LFN_MAX: u32 = 255;

/// Which names get long-name (LFN) slots besides their 8.3 slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// Linux vfat's default `shortname=mixed` (= VFAT_SFN_DISPLAY_WINNT |
    /// VFAT_SFN_CREATE_WIN95, fs/fat/inode.c): a name is stored 8.3-only when
    /// it is a valid 8.3 name with no lowercase letter and only ASCII; so
    /// `readme.txt` takes an LFN slot, `README.TXT` does not.
    Win95,
    /// Linux vfat `shortname=winnt`: all-lowercase base or extension also
    /// fits 8.3 (via the NT case bits); only mixed case needs an LFN.
    WinNt,
    /// mtools 4.0.32 (`mcopy`), file_name.c `dos_name`: like WinNt, but
    /// codepage-850 letters are allowed in 8.3 names, `'` forces a long name,
    /// and characters beyond U+FFFF are dropped from the long name.
    Mtools,
}

impl NameRule {
    /// `FSFIT_FAT_NAMES=mixed|win95|winnt|mtools` picks the rule (tests use
    /// `mtools` to check the model against `mcopy`-filled images).
    fn from_env() -> Option<NameRule> {
        let v = std::env::var("FSFIT_FAT_NAMES").ok()?;
        match v.to_ascii_lowercase().as_str() {
            "mixed" | "win95" | "kernel" => Some(NameRule::Win95),
            "winnt" => Some(NameRule::WinNt),
            "mtools" => Some(NameRule::Mtools),
            _ => None,
        }
    }
}

/// How vfat turns a name's bytes into the UTF-16 units of its long name:
/// the `utf8` and `iocharset=` mount options (fs/fat/namei_vfat.c
/// `xlate_to_uni`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// `utf8=1`: UTF-8 decoded, one unit per UTF-16 unit; invalid UTF-8 is
    /// refused. The default of distro kernels (Debian 12's amd64 kernel:
    /// CONFIG_FAT_DEFAULT_UTF8=y) and of desktop mounts.
    Utf8,
    /// `utf8=0` with an 8-bit table such as iso8859-1 (the default of a
    /// kernel built without CONFIG_FAT_DEFAULT_UTF8, like the lab's UML
    /// kernel): every byte becomes one unit, so `ä` takes two and a CJK
    /// letter three, and any byte string is a valid name.
    Bytes,
}

impl Charset {
    /// `FSFIT_FAT_IOCHARSET=utf8|iso8859-1` (the mount option's value).
    fn from_env() -> Charset {
        match std::env::var("FSFIT_FAT_IOCHARSET") {
            Ok(v) if v.eq_ignore_ascii_case("iso8859-1") => Charset::Bytes,
            _ => Charset::Utf8,
        }
    }
}

pub struct Fat {
    bits: u32,
    /// The long-name rule of the driver that will fill the volume.
    pub names: NameRule,
}

pub static FAT12: Fat = Fat {
    bits: 12,
    names: NameRule::Win95,
};
pub static FAT16: Fat = Fat {
    bits: 16,
    names: NameRule::Win95,
};
pub static FAT32: Fat = Fat {
    bits: 32,
    names: NameRule::Win95,
};

/// What FAT12, FAT16 and FAT32 share; each fills in its name and formats.
const FAT_INFO: FsInfo = FsInfo {
    name: "",
    title: "",
    // tests/it/fat.rs: free and tree bytes against mkfs.fat 4.2 + mcopy images.
    exact: true,
    limits: Limits {
        max_file_bytes: MAX_FILE,
        case_insensitive: true,
        windows_names: true,
        name_max_utf16: Some(LFN_MAX),
        name_max_bytes: None,
        path_max: Some(260),
        symlinks: false,
        special_files: false,
        from_1980: true,
        mtime_2s: true,
    },
    drivers: Drivers {
        kernel: Some("vfat"),
        kernel_modules: &["vfat", "fat"],
        fuse: Some(FuseDriver {
            program: "fusefat",
            args: &["-o", "rw+"],
            slow: true,
            defers_writes: true,
            // fusefat keeps every change in memory until unmount, whatever
            // the mount flags say.
            sync_ignored: Some("fusefat writes nothing until unmount"),
        }),
        windows: Some("fastfat"),
        // Under the approximation (files O_SYNC, no `sync` mount) vfat
        // allocates a request's clusters in the page cache and writes both
        // FATs, the directory entry and the data when the request ends
        // (fs/fat/file.c `fat_file_fsync`), as Windows' fastfat does at the
        // end of a request (Windows-driver-samples filesys/fastfat,
        // cachesup.c); fastfat also allocates up to 32 times what a
        // growing file's write needs (write.c), so small appends cost it
        // fewer FAT writes. (Mounted `sync`, vfat wrote both FATs for every
        // cluster: fatent.c `fat_alloc_clusters`.)
        kernel_sync: Some(
            "Windows' fastfat allocates ahead of a growing file: fewer FAT writes on small appends",
        ),
    },
    // flush: vfat writes back early when the last file handle closes.
    mount_options: &["sync", "flush", "dirsync"],
    // udisks2 data/builtin_mount_options.conf `vfat_defaults`; fusefat
    // takes none of them (it has no uid/charset options).
    desktop_options: super::DesktopOptions {
        kernel: &[
            "uid=$UID",
            "gid=$GID",
            "shortname=mixed",
            "utf8=1",
            "showexec",
            "flush",
        ],
        fuse: &[],
    },
    copies_mount: Some(""),
    label_flag: "-n",
    formats: Formats {
        windows: None,
        windows_note: None,
        macos: None,
    },
    robustness:
        "no journal: unplugging mid-write can corrupt the FAT (run fsck.fat / chkdsk after)",
    checker: Some(Checker {
        program: "fsck.fat",
        // -n: check only; -V would re-read everything (slow, adds nothing here).
        check_args: &["-n"],
        repair_args: &["-a", "-w"],
        repair_stdin: "",
        exit_codes: ExitCodes::ZeroOne,
    }),
    preference: 0,
    signature: probe::SIGNATURE,
};

pub const FAT12_INFO: FsInfo = FsInfo {
    name: "fat12",
    title: "FAT12",
    formats: Formats {
        windows: Some("FAT"),
        windows_note: None,
        macos: Some("sudo newfs_msdos -F 12 -c {sectors} -v {label} /dev/diskNsM"),
    },
    preference: 6,
    ..FAT_INFO
};

pub const FAT16_INFO: FsInfo = FsInfo {
    name: "fat16",
    title: "FAT16",
    formats: Formats {
        windows: Some("FAT"),
        windows_note: None,
        macos: Some("sudo newfs_msdos -F 16 -c {sectors} -v {label} /dev/diskNsM"),
    },
    preference: 5,
    ..FAT_INFO
};

pub const FAT32_INFO: FsInfo = FsInfo {
    name: "fat32",
    title: "FAT32",
    formats: Formats {
        windows: Some("FAT32"),
        windows_note: Some(WindowsNote {
            // Windows' own "32 GB" is 32 GiB: a card sold as 32 GB formats.
            over_bytes: 32 << 30,
            text: "Windows' format refuses FAT32 over 32 GB: use Linux or a third-party tool",
            refuses: true,
        }),
        macos: Some("sudo newfs_msdos -F 32 -c {sectors} -v {label} /dev/diskNsM"),
    },
    preference: 4,
    ..FAT_INFO
};

/// The volume mkfs.fat lays out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub bits: u32,
    pub sectors_per_cluster: u32,
    /// Sectors the boot sector declares (num_sectors).
    pub sectors: u32,
    pub reserved: u32,
    pub fat_sectors: u32,
    /// Fixed root directory slots (FAT12/16); 0 on FAT32.
    pub root_entries: u32,
    /// Data clusters.
    pub clusters: u32,
}

impl Layout {
    pub fn cluster_bytes(&self) -> u64 {
        self.sectors_per_cluster as u64 * SECTOR
    }

    /// statvfs f_bfree × f_frsize of the fresh volume: every data cluster is
    /// free but FAT32's root directory cluster (mkfs.fat.c marks cluster 2 EOF).
    pub fn free_bytes(&self) -> u64 {
        let used = u64::from(self.bits == 32);
        (self.clusters as u64 - used) * self.cluster_bytes()
    }
}

/// mkfs.fat.c `cdiv`: `(a + b - 1) / b` in C `int`.
fn cdiv(a: u32, b: u32) -> u32 {
    ((a as i32).wrapping_add(b as i32 - 1) / b as i32) as u32
}

/// mkfs.fat.c `align_object`: round up to the cluster when aligning.
fn align(sectors: u32, spc: u32, on: bool) -> u32 {
    if on {
        sectors.wrapping_add(spc - 1) & !(spc - 1)
    } else {
        sectors
    }
}

/// mkfs.fat.c `establish_params`: floppy sizes (any target that is not a
/// fixed disk, image files included) get floppy geometry, cluster and root.
/// Returns (sectors per track, sectors per cluster, root entries).
fn floppy(volume: u64) -> Option<(u32, u32, u32)> {
    match volume / 1024 {
        360 => Some((9, 2, 112)),
        720 => Some((9, 2, 112)),
        1200 => Some((15, 1, 224)),
        1440 => Some((18, 1, 224)),
        2880 => Some((36, 2, 224)),
        _ => None,
    }
}

/// The sectors per cluster mkfs.fat starts from when `-s` is not given
/// (mkfs.fat.c `establish_params`): 4 for FAT12/16, and for FAT32 the table
/// after Microsoft's format (512 B up to 260 MiB, 4K to 8 GiB, 8K to 16 GiB,
/// 16K to 32 GiB, 32K above).
fn start_spc(bits: u32, volume: u64) -> u32 {
    if bits == 32 {
        let sectors = volume / SECTOR;
        return if sectors > 32 * 1024 * 1024 * 2 {
            64
        } else if sectors > 16 * 1024 * 1024 * 2 {
            32
        } else if sectors > 8 * 1024 * 1024 * 2 {
            16
        } else if sectors > 260 * 1024 * 2 {
            8
        } else {
            1
        };
    }
    floppy(volume).map_or(4, |f| f.1)
}

/// One pass of the cluster loop in mkfs.fat.c `setup_tables` for one FAT
/// type: (clusters before the range checks, FAT sectors, clusters the FAT
/// can address, capped at the type's maximum).
fn try_spc(bits: u32, fatdata32: u32, fatdata1216: u32, spc: u32, al: bool) -> (u32, u32, u32) {
    let ss = SECTOR as u32;
    let nf = NR_FATS;
    match bits {
        12 => {
            let c = (2 * (fatdata1216 as i64 * ss as i64 + nf as i64 * 3)
                / (2 * spc as i64 * ss as i64 + nf as i64 * 3)) as u32;
            let fl = cdiv((c.wrapping_add(2).wrapping_mul(3).wrapping_add(1)) >> 1, ss);
            let fl = align(fl, spc, al);
            let c = fatdata1216.wrapping_sub(nf.wrapping_mul(fl)) / spc;
            let max = (fl.wrapping_mul(2).wrapping_mul(ss) / 3).min(MAX_CLUST_12);
            (c, fl, max)
        }
        16 => {
            let c = ((fatdata1216 as i64 * ss as i64 + nf as i64 * 4)
                / (spc as i64 * ss as i64 + nf as i64 * 2)) as u32;
            let fl = cdiv(c.wrapping_add(2).wrapping_mul(2), ss);
            let fl = align(fl, spc, al);
            let c = fatdata1216.wrapping_sub(nf.wrapping_mul(fl)) / spc;
            let max = (fl.wrapping_mul(ss) / 2).min(MAX_CLUST_16);
            (c, fl, max)
        }
        _ => {
            let c = ((fatdata32 as i64 * ss as i64 + nf as i64 * 8)
                / (spc as i64 * ss as i64 + nf as i64 * 4)) as u32;
            let fl = cdiv(c.wrapping_add(2).wrapping_mul(4), ss);
            let fl = align(fl, spc, al);
            let c = fatdata32.wrapping_sub(nf.wrapping_mul(fl)) / spc;
            let max = (fl.wrapping_mul(ss) / 4).min(MAX_CLUST_32);
            (c, fl, max)
        }
    }
}

/// `64 GiB`, `32 KiB`; sizes that are not whole units as [`iec`] puts them.
fn size(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    iec(n)
}

/// Why a cluster size does not work, in the user's terms; with `hints`, also
/// what would (which asks the layouts of the larger or smaller clusters,
/// without hints: FAT16 on 64–128 MiB fails with too many clusters at 512 B
/// and too few at 64 KiB, and each asking the other overflowed the stack).
fn refusal(bits: u32, volume: u64, spc: u32, clusters: u32, max: u32, hints: bool) -> String {
    let at = format!(
        "{} at {} clusters makes {clusters}",
        size(volume),
        size(spc as u64 * SECTOR)
    );
    // Would a larger (too many clusters) or smaller (too few) cluster work?
    let too_many = clusters > max;
    let other_works = hints
        && (0..8).map(|k| 1u32 << k).any(|s| {
            (if too_many { s > spc } else { s < spc })
                && layout_with(bits, volume, Some(s), false).is_ok()
        });
    let hint = match (bits, too_many) {
        (12, true) if other_works => "use larger clusters, FAT16 or FAT32",
        (12, true) => "use FAT16 or FAT32",
        (16, true) if other_works => "use larger clusters or FAT32",
        (16, true) => "use FAT32",
        (16, false) if other_works => "use smaller clusters or FAT12",
        (16, false) => "use FAT12",
        (32, true) => "use larger clusters",
        _ => "",
    };
    let why = match (bits, too_many) {
        (12, true) => format!("{at}, over FAT12's {MAX_CLUST_12}"),
        (16, true) => format!("{at}, over FAT16's {MAX_CLUST_16}"),
        (16, false) => format!("{at}, under the {MIN_CLUST_16} mkfs.fat makes FAT16 with"),
        (32, true) => format!("{at}, over FAT32's {MAX_CLUST_32}"),
        _ => format!("mkfs.fat finds no valid FAT{bits} layout: {at}"),
    };
    if hint.is_empty() {
        why
    } else {
        format!("{why} ({hint})")
    }
}

/// The layout `mkfs.fat -F BITS [-s SPC] IMAGE` makes on an image file of
/// `volume` bytes, or why mkfs.fat refuses. `spc: None` is mkfs.fat's own
/// choice (the loop doubling the cluster from [`start_spc`] until it fits).
pub fn layout(bits: u32, volume: u64, spc: Option<u32>) -> crate::Result<Layout> {
    layout_or_refusal(bits, volume, spc).map_err(|r| crate::Error::input(r.why))
}

/// Why mkfs.fat refuses a config.
struct Refused {
    /// Too many clusters (larger clusters would help), not too few.
    too_many: bool,
    why: String,
}

fn layout_or_refusal(bits: u32, volume: u64, spc: Option<u32>) -> Result<Layout, Refused> {
    layout_with(bits, volume, spc, true)
}

fn layout_with(bits: u32, volume: u64, spc: Option<u32>, hints: bool) -> Result<Layout, Refused> {
    let g = Geometry::of(bits, volume);
    let (clusters, fat_sectors, cs) = pick_cluster(bits, volume, spc, hints, &g)?;
    let al = g.aligned;
    let reserved = align(g.reserved, cs, al);
    let root_entries = if al {
        align(g.root_sectors, cs, al) * (SECTOR as u32 / 32)
    } else {
        g.root_entries
    };
    // setup_tables: "Too few blocks for viable filesystem".
    let start_data = reserved as u64
        + NR_FATS as u64 * fat_sectors as u64
        + (root_entries as u64 * 32).div_ceil(SECTOR);
    if g.blocks < start_data.div_ceil(2) + 32 {
        return Err(too_few_blocks(bits, volume, cs));
    }
    Ok(Layout {
        bits,
        sectors_per_cluster: cs,
        sectors: g.sectors,
        reserved,
        fat_sectors,
        root_entries,
        clusters,
    })
}

/// What mkfs.fat settles before it picks the cluster size.
struct Geometry {
    /// Sectors used, a multiple of the sectors per track.
    sectors: u32,
    /// 1 KiB blocks of the device (for the "too few blocks" check).
    blocks: u64,
    root_entries: u32,
    root_sectors: u32,
    /// Reserved sectors before alignment.
    reserved: u32,
    /// Align the areas to the cluster (over 8192 sectors).
    aligned: bool,
}

impl Geometry {
    fn of(bits: u32, volume: u64) -> Geometry {
        // mkfs.fat.c main: blocks = size / 1024, plus the odd 512-byte sector;
        // setup_tables caps at 2^32 - 1 sectors ("space at end will be left unused").
        let mut num_sectors = (volume / SECTOR).min(MAX_SECTORS) as u32;
        let blocks = if volume / SECTOR > MAX_SECTORS {
            MAX_SECTORS * SECTOR / 1024
        } else {
            volume / 1024
        };
        let fl = floppy(volume);
        // establish_params: geometry when the device reports none (image files):
        // SD-card CHS recommendation up to 256 MiB, LBA-assist above.
        let total = volume / SECTOR;
        let mut spt = if total <= 524_288 {
            if total <= 4096 {
                16
            } else {
                32
            }
        } else {
            63
        };
        if let Some(f) = fl {
            spt = f.0;
        }
        let root_default = fl.map_or(512, |f| f.2);
        // setup_tables: root entries 0 on FAT32; 32 reserved sectors on FAT32, 1 else.
        let root_entries = if bits == 32 { 0 } else { root_default };
        let reserved = if bits == 32 { 32 } else { 1 };
        // setup_tables: "Align number of sectors to be multiple of sectors per track".
        num_sectors = num_sectors / spt * spt;
        Geometry {
            sectors: num_sectors,
            blocks,
            root_entries,
            root_sectors: cdiv(root_entries * 32, SECTOR as u32),
            reserved,
            // setup_tables: no alignment for filesystems of 8192 sectors or less.
            aligned: num_sectors > 8192,
        }
    }
}

/// setup_tables' loop: from the starting sectors per cluster, double until
/// the cluster count fits the FAT type. (clusters, FAT sectors, sectors per
/// cluster), or why mkfs.fat refuses.
fn pick_cluster(
    bits: u32,
    volume: u64,
    spc: Option<u32>,
    hints: bool,
    g: &Geometry,
) -> Result<(u32, u32, u32), Refused> {
    let (num_sectors, al) = (g.sectors, g.aligned);
    let start = spc.unwrap_or_else(|| start_spc(bits, volume));
    let max_spc = spc.unwrap_or(128);
    let mut cs = start;
    loop {
        let fatdata32 = num_sectors.wrapping_sub(align(g.reserved, cs, al));
        let fatdata1216 = fatdata32.wrapping_sub(align(g.root_sectors, cs, al));
        let (c, fat, max) = try_spc(bits, fatdata32, fatdata1216, cs, al);
        // The range checks of the loop; FAT32 asked for with -F 32 may have
        // fewer than 65525 clusters (mkfs.fat only warns).
        if c <= max && c != 0 && !(bits == 16 && c < MIN_CLUST_16) {
            return Ok((c, fat, cs));
        }
        // bs.cluster_size is a uint8_t: 128 << 1 wraps to 0 and ends the loop.
        let next = (cs << 1) & 0xff;
        if next == 0 || next > max_spc {
            return Err(Refused {
                too_many: c > max,
                why: refusal(bits, volume, cs, c, max, hints),
            });
        }
        cs = next;
    }
}

/// mkfs.fat's "too few blocks for viable filesystem".
fn too_few_blocks(bits: u32, volume: u64, cs: u32) -> Refused {
    // Over 2^32 sectors mkfs.fat uses only the first 2 TiB, and the
    // FATs of small clusters outgrow even that: not "too small".
    let why = if volume / SECTOR > MAX_SECTORS {
        format!(
            "FAT{bits} addresses at most 2 TiB (2^32 sectors): mkfs.fat uses only that much of {}, and its FATs at {} clusters would not leave room for data (mkfs.fat: too few blocks for viable filesystem; use larger clusters)",
            size(volume),
            crate::units::short(cs as u64 * SECTOR)
        )
    } else {
        format!(
            "{} is too small for FAT{bits} (mkfs.fat: too few blocks for viable filesystem)",
            size(volume)
        )
    };
    Refused {
        too_many: false,
        why,
    }
}

/// One config: the layout, the cluster, the name rule.
struct FatModel {
    layout: Layout,
    cluster: u64,
    names: NameRule,
    charset: Charset,
}

thread_local! {
    static DIGEST: std::cell::RefCell<super::Digest> = std::cell::RefCell::default();
}

impl Model for FatModel {
    fn free_bytes(&self) -> u64 {
        self.layout.free_bytes()
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        // fs/fat/dir.c: FAT12/16's root is the fixed area mkfs.fat sized;
        // entries that do not fit fail with ENOSPC. Other directories are
        // cluster chains up to 2 MiB.
        let fixed_root = dir.is_root && self.layout.bits != 32;
        let cap = if fixed_root {
            self.layout.root_entries as u64
        } else {
            MAX_DIR_SLOTS
        };
        // fs/fat/dir.c fat_alloc_new_dir: `.` and `..` in every directory
        // but the root.
        let tally = |d: &mut super::Digest| {
            // fs/fat/dir.c fat_alloc_new_dir: `.` and `..` in every directory
            // but the root.
            d.slots = if dir.is_root { 0 } else { 2 };
            let dup = if dir.may_collide() {
                duplicates(dir.entries, self.names)
            } else {
                Vec::new()
            };
            for (i, e) in dir.entries.iter().enumerate() {
                // vfat has no symlink/mknod: cp fails for those, nothing stored.
                if !matches!(e.kind, Kind::File | Kind::Dir) {
                    continue;
                }
                // A name equal but for case to an earlier one is the same file
                // on vfat (case-insensitive lookup): cp overwrites it.
                if dup.get(i).copied().unwrap_or(false) {
                    continue;
                }
                let Some(need) = name_slots(e, self.names, self.charset) else {
                    continue; // EINVAL / ENAMETOOLONG: not created.
                };
                if d.slots + need as u64 > cap {
                    continue; // ENOSPC for this entry; smaller ones may still fit.
                }
                d.slots += need as u64;
                if e.kind == Kind::File {
                    // Empty files have no cluster; a file over 4 GiB - 1 is cut
                    // there (write returns EFBIG) and cp leaves the partial file.
                    d.sizes.push(e.size.min(MAX_FILE));
                }
            }
        };
        let add = |d: &super::Digest, acc: &mut Acc| {
            for &size in &d.sizes {
                acc.add_content(size, self.cluster);
            }
        };
        if fixed_root {
            // The fixed root's capacity depends on the layout: no sharing.
            let mut d = super::Digest::default();
            tally(&mut d);
            add(&d, acc);
            return;
        }
        // The slots a name needs do not depend on the cluster size: worked
        // out once per directory for every FAT config.
        let variant = self.names as u64 | (self.charset as u64) << 8;
        let slots = super::with_digest(&DIGEST, dir, variant, tally, |d| {
            add(d, acc);
            d.slots
        });

        // Directories grow a cluster at a time, slots packed (fat_add_entries
        // fills the free slots at the end, then adds clusters); a new
        // directory has one cluster. FAT32's root already has its first.
        let clusters = (slots * SLOT).div_ceil(self.cluster).max(1);
        let new = if dir.is_root { clusters - 1 } else { clusters };
        acc.meta += new * self.cluster;
    }
}

/// Marks the files and directories whose name equals an earlier one's but
/// for case. vfat looks names up case-insensitively (namei_vfat.c
/// `vfat_cmpi`, folding bytes through the io charset); folding ASCII only
/// is the approximation for the kernel rules. mcopy folds non-ASCII letters
/// too (measured: `café.txt` and `CAFÉ.TXT` clash under mtools 4.0.32), as
/// exFAT's up-case table does. Empty when there are none.
fn duplicates(entries: &[Entry], rule: NameRule) -> Vec<bool> {
    if rule == NameRule::Mtools {
        return super::exfat::duplicates(entries);
    }
    super::case_duplicates(
        entries,
        |e| matches!(e.kind, Kind::File | Kind::Dir).then(|| fold_hash(stored_name(e.name()))),
        |x, y| stored_name(x.name()).eq_ignore_ascii_case(stored_name(y.name())),
    )
}

/// The name vfat stores: trailing dots dropped (namei_vfat.c `vfat_striptail_len`).
fn stored_name(name: &OsStr) -> &[u8] {
    let b = name.as_encoded_bytes();
    let mut n = b.len();
    while n > 0 && b[n - 1] == b'.' {
        n -= 1;
    }
    &b[..n]
}

/// A hash of the ASCII-lowercased bytes.
fn fold_hash(b: &[u8]) -> u64 {
    super::quick_hash(b.iter().map(u8::to_ascii_lowercase))
}

/// Slots one entry takes in its directory under `rule`, or None when the
/// driver refuses the name.
fn name_slots(e: &Entry, rule: NameRule, charset: Charset) -> Option<u32> {
    match rule {
        NameRule::Win95 | NameRule::WinNt => kernel_slots(e, rule == NameRule::WinNt, charset),
        NameRule::Mtools => {
            let full = e.name_str()?;
            if full.is_empty() || e.has_windows_forbidden() {
                return None;
            }
            // mtools writes one LFN unit per wchar_t and drops what does
            // not fit 16 bits (measured: emoji vanish from the long name).
            let units = if e.is_ascii() {
                full.len() as u32
            } else {
                full.chars().filter(|&c| (c as u32) <= 0xFFFF).count() as u32
            };
            if units > LFN_MAX {
                return None;
            }
            if mtools_short_ok(full) {
                Some(1)
            } else {
                Some(units.div_ceil(LFN_UNITS) + 1)
            }
        }
    }
}

/// Slots of one entry under the Linux vfat driver: the 8.3 slot, plus one
/// long-name slot per 13 units unless the name fits 8.3.
fn kernel_slots(e: &Entry, winnt: bool, charset: Charset) -> Option<u32> {
    let s = stored_name(e.name());
    if s.is_empty() {
        return None;
    }
    let units = match charset {
        Charset::Utf8 => {
            let full = e.name_str()?; // invalid UTF-8 fails (EINVAL).
            if s.len() == full.len() {
                e.utf16_len
            } else {
                full[..s.len()].encode_utf16().count() as u32
            }
        }
        Charset::Bytes => s.len() as u32,
    };
    // namei_vfat.c xlate_to_uni: ENAMETOOLONG past 255 units.
    if units > LFN_MAX {
        return None;
    }
    // namei_vfat.c vfat_is_used_badchars.
    if e.has_windows_forbidden() || s.ends_with(b" ") {
        return None;
    }
    // 8.3 names are ASCII, so valid UTF-8. `s` is the name without its
    // trailing dots, so it is UTF-8 exactly when the name is (checked once,
    // when the entry was made: validating it here was ~2 % of a walk's CPU).
    match e.name_str().map(|full| &full[..s.len()]) {
        Some(t) if kernel_short_ok(t, winnt) => Some(1),
        _ => Some(units.div_ceil(LFN_UNITS) + 1),
    }
}

/// Case facts of one part of an 8.3 name, as namei_vfat.c `shortname_info`.
struct PartInfo {
    /// No lowercase letter seen (and nothing beyond ASCII).
    upper: bool,
    /// No uppercase letter seen (and nothing beyond ASCII).
    lower: bool,
    /// Fits: no skipped or replaced character, not too long.
    valid: bool,
}

/// namei_vfat.c `to_shortname_char` over one part (base or extension) with
/// codepage 437 as nls_disk: non-ASCII clears both case flags (byte >= 0x7F)
/// or validity (unmappable); `. ` are skipped and `[ ] ; , + =` replaced,
/// both making the 8.3 name invalid.
fn kernel_part(part: &str, max: usize) -> PartInfo {
    let mut info = PartInfo {
        upper: true,
        lower: true,
        valid: true,
    };
    let mut len = 0;
    for c in part.chars() {
        match c {
            '.' | ' ' | '[' | ']' | ';' | ',' | '+' | '=' => info.valid = false,
            'a'..='z' => info.upper = false,
            'A'..='Z' => info.lower = false,
            c if (c as u32) >= 0x7F => {
                info.upper = false;
                info.lower = false;
            }
            _ => {}
        }
        if !matches!(c, '.' | ' ') {
            len += 1;
        }
    }
    if len > max {
        info.valid = false;
    }
    info
}

/// namei_vfat.c `vfat_create_shortname`: does the name fit one 8.3 slot?
/// `winnt`: VFAT_SFN_CREATE_WINNT, else VFAT_SFN_CREATE_WIN95.
fn kernel_short_ok(s: &str, winnt: bool) -> bool {
    // Most names are settled here: an 8.3 name is ASCII (anything else
    // clears both case flags of its part) and at most 12 bytes (a skipped
    // `.` or space in a part makes it invalid, so its base has at most 8
    // bytes, its extension at most 3, and one dot parts them).
    if s.len() > 12 || !s.is_ascii() {
        return false;
    }
    kernel_short_rules(s, winnt)
}

/// [`kernel_short_ok`] without its shortcut.
fn kernel_short_rules(s: &str, winnt: bool) -> bool {
    // The extension starts after the last dot, unless only dots and spaces
    // precede it ("...test" is all base).
    let (base, ext) = match s.rfind('.') {
        Some(d) if !s[..d].chars().all(|c| c == '.' || c == ' ') => (&s[..d], &s[d + 1..]),
        _ => (s, ""),
    };
    let b = kernel_part(base, 8);
    let x = kernel_part(ext, 3);
    if !(b.valid && x.valid) {
        return false;
    }
    if winnt {
        (b.upper || b.lower) && (x.upper || x.lower)
    } else {
        b.upper && x.upper
    }
}

/// Code page 850's upper half, mtools' default DOS code page.
const CP850_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u{AD}±‗¾¶§÷¸°¨·¹³²■\u{A0}";

/// mtools file_name.c `dos_name` / `TranslateToDos`: the name is "mangled"
/// (gets a long name) for leading dots or spaces, a base over 8 or an
/// extension over 3 characters, spaces or dots inside, control characters,
/// both cases in one part, or a character the code page lacks; measured
/// here: `+ , ; = [ ] '` also force a long name.
fn mtools_short_ok(name: &str) -> bool {
    if name.starts_with(['.', ' ']) {
        return false;
    }
    let (base, ext) = match name.rfind('.') {
        Some(d) => (&name[..d], &name[d + 1..]),
        None => (name, ""),
    };
    mtools_part_ok(base, 8) && mtools_part_ok(ext, 3)
}

fn mtools_part_ok(part: &str, max: usize) -> bool {
    let (mut lower, mut upper) = (false, false);
    for (n, c) in part.chars().enumerate() {
        if n >= max {
            return false;
        }
        if c.is_control() || matches!(c, ' ' | '.' | '+' | ',' | ';' | '=' | '[' | ']' | '\'') {
            return false;
        }
        if c.is_lowercase() {
            lower = true;
        } else if c.is_uppercase() {
            upper = true;
        }
        if !c.is_ascii() {
            let mut up = c.to_uppercase();
            let u = match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            };
            if !CP850_HIGH.contains(u) {
                return false;
            }
        }
    }
    !(lower && upper)
}

impl Filesystem for Fat {
    fn keeps_xattrs(&self) -> bool {
        false
    }
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // mkfs.fat: -F FAT type, -s sectors per cluster (512-byte sectors).
        let spc = (cluster / 512).max(1).to_string();
        Some(super::argv(&[
            "mkfs.fat",
            "-F",
            &self.bits.to_string(),
            "-s",
            &spc,
        ]))
    }
    fn format(&self, p: &crate::fs::FormatParams) -> crate::Result<crate::fs::FormatCmd> {
        format::format(self, p)
    }
    fn partition_type(&self) -> crate::fs::PartType {
        format::partition_type(self.bits)
    }
    fn blkid_type(&self) -> &'static str {
        "vfat"
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        format::LABEL
    }
    fn info(&self) -> &'static FsInfo {
        match self.bits {
            12 => &FAT12_INFO,
            16 => &FAT16_INFO,
            _ => &FAT32_INFO,
        }
    }

    fn cluster_range(&self) -> (u64, u64) {
        // mkfs.fat.c main, -s: 1, 2, 4, ..., 128 sectors of 512 bytes.
        (512, 65536)
    }

    fn default_cluster(&self, volume: u64) -> u64 {
        let start = start_spc(self.bits, volume);
        match layout(self.bits, volume, None) {
            Ok(l) => l.cluster_bytes(),
            // mkfs.fat refuses every size: point at the biggest cluster when
            // clusters are too many, else at where mkfs.fat starts.
            Err(_) => match layout_or_refusal(self.bits, volume, Some(start)) {
                Err(r) if r.too_many => 65536,
                _ => start as u64 * SECTOR,
            },
        }
    }

    fn sweep(&self, volume: u64) -> Vec<u64> {
        let mut v = super::powers_of_two(512, 65536);
        let d = self.default_cluster(volume);
        if !v.contains(&d) {
            v.push(d);
        }
        v
    }

    fn modelled_driver(&self, asked: super::DriverKind) -> super::DriverKind {
        // The model follows vfat's name rule (FSFIT_FAT_NAMES picks another
        // rule), or Windows' own; fusefat's own layout is not modelled.
        match asked {
            super::DriverKind::Windows => asked,
            _ => super::DriverKind::Kernel,
        }
    }
    /// Windows' fastfat: Microsoft's FAT specification (fatgen103, "FAT
    /// Long Directory Entries") and Windows NT's DIR_NTRes case bits decide
    /// which names need LFN slots: a name valid as 8.3 whose base and
    /// extension are each all-lowercase or all-uppercase takes none, which is
    /// the WinNt rule. Assumed equal to Linux vfat, not checked against a
    /// volume Windows filled: clusters per file (ceil(size / cluster), none
    /// for an empty file), one cluster for a new folder with its "." and
    /// ".." entries, folders growing one cluster at a time.
    fn model_with(
        &self,
        volume: u64,
        cluster: u64,
        driver: super::DriverKind,
    ) -> crate::Result<Box<dyn Model>> {
        let rule = match driver {
            super::DriverKind::Windows => NameRule::WinNt,
            _ => self.names,
        };
        self.model_names(volume, cluster, rule)
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        self.model_names(volume, cluster, self.names)
    }
    fn max_volume(&self, _cluster: u64) -> Option<(u64, &'static str)> {
        Some((
            MAX_SECTORS * SECTOR,
            "its boot sector counts at most 2^32 - 1 sectors of 512 bytes (2 TiB)",
        ))
    }
}

impl Fat {
    /// The model with `rule` for names (unless FSFIT_FAT_NAMES picks one).
    fn model_names(
        &self,
        volume: u64,
        cluster: u64,
        rule: NameRule,
    ) -> crate::Result<Box<dyn Model>> {
        if !cluster.is_power_of_two() || !(512..=65536).contains(&cluster) {
            return Err(crate::Error::input(format!(
                "mkfs.fat takes 1 to 128 sectors of 512 bytes per cluster, not {}",
                short(cluster)
            )));
        }
        let layout = layout(self.bits, volume, Some((cluster / SECTOR) as u32))?;
        Ok(Box::new(FatModel {
            layout,
            cluster,
            names: NameRule::from_env().unwrap_or(rule),
            charset: Charset::from_env(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_name_shortcut_changes_no_answer() {
        // Every name of up to 14 characters from an alphabet that exercises
        // each rule (case, dots, spaces, replaced and non-ASCII characters)
        // up to length 5, then a sample of longer ones.
        let alphabet = ['a', 'B', '1', '.', ' ', '[', 'é', '~'];
        let mut names = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..5 {
            let mut next = Vec::new();
            for n in &frontier {
                for c in alphabet {
                    next.push(format!("{n}{c}"));
                }
            }
            names.extend(next.iter().cloned());
            frontier = next;
        }
        for (i, n) in frontier.iter().enumerate().step_by(7) {
            names.push(format!("{n}{}", &frontier[(i * 31) % frontier.len()]));
            let three: String = frontier[(i * 17) % frontier.len()]
                .chars()
                .take(3)
                .collect();
            names.push(format!("{n}.{three}"));
            names.push(format!("abcdefgh.{three}"));
        }
        for n in &names {
            for winnt in [false, true] {
                assert_eq!(
                    kernel_short_ok(n, winnt),
                    kernel_short_rules(n, winnt),
                    "{n:?} {winnt}"
                );
            }
        }
    }
    use std::ffi::OsString;
    use std::path::Path;

    const M: u64 = 1 << 20;
    const G: u64 = 1 << 30;

    fn file(name: &str, size: u64) -> Entry {
        Entry::new(OsString::from(name), Kind::File, size, 1_700_000_000)
    }

    fn slots(name: &str, rule: NameRule) -> Option<u32> {
        name_slots(&file(name, 1), rule, Charset::Utf8)
    }

    #[test]
    fn layouts_match_mkfs_fat_4_2() {
        // mkfs.fat 4.2 -v on image files, measured here.
        let l = layout(16, 16 * M, Some(4)).unwrap();
        assert_eq!(
            (l.clusters, l.fat_sectors, l.reserved, l.root_entries),
            (8167, 32, 4, 512)
        );
        let l = layout(16, 16 * M, None).unwrap();
        assert_eq!(l.sectors_per_cluster, 4);
        let l = layout(32, 64 * M, Some(1)).unwrap();
        assert_eq!(l.clusters, 129022);
    }

    #[test]
    fn root_grows_with_alignment() {
        // 512 entries = 32 sectors, aligned up to a 64-sector cluster.
        let l = layout(16, 512 * M, Some(64)).unwrap();
        assert_eq!(l.root_entries, 1024);
        assert_eq!(l.reserved, 64);
    }

    #[test]
    fn default_clusters() {
        assert_eq!(FAT32.default_cluster(64 * G), 32768);
        assert_eq!(FAT32.default_cluster(32 * G), 16384);
        assert_eq!(FAT32.default_cluster(8 * G), 4096);
        assert_eq!(FAT32.default_cluster(256 * M), 512);
        assert_eq!(FAT32.default_cluster(G), 4096);
        assert_eq!(FAT16.default_cluster(256 * M), 4096);
        assert_eq!(FAT16.default_cluster(16 * M), 2048);
        assert_eq!(FAT12.default_cluster(16 * M), 8192);
        assert_eq!(FAT12.default_cluster(1440 * 1024), 512);
    }

    #[test]
    fn refusals_say_why() {
        let e = FAT16.model(64 * G, 32768).err().unwrap();
        assert!(e.to_string().contains("over FAT16's 65524"), "{e}");
        assert!(
            e.to_string()
                .contains("64 GiB at 32 KiB clusters makes 2096893"),
            "{e}"
        );
        let e = FAT12.model(G, 512).err().unwrap();
        assert!(e.to_string().contains("over FAT12's 4084"), "{e}");
        let e = FAT16.model(16 * M, 65536).err().unwrap();
        assert!(e.to_string().contains("under the 4087"), "{e}");
        // FAT32 with few clusters: mkfs.fat only warns.
        assert!(FAT32.model(64 * M, 4096).is_ok());
        assert!(FAT12.model(64 * G, FAT12.default_cluster(64 * G)).is_err());
    }

    #[test]
    fn kernel_name_rule() {
        let w = NameRule::Win95;
        assert_eq!(slots("README.TXT", w), Some(1));
        assert_eq!(slots("readme.txt", w), Some(2));
        assert_eq!(slots("ReadMe.txt", w), Some(2));
        assert_eq!(slots("NOEXT", w), Some(1));
        assert_eq!(slots("A+B.TXT", w), Some(2));
        assert_eq!(slots("X'Y", w), Some(1));
        assert_eq!(slots("ABCDEFGHI", w), Some(2));
        assert_eq!(slots("A.ABCD", w), Some(2));
        assert_eq!(slots(".BASHRC", w), Some(2));
        assert_eq!(slots("TWO.DOTS.X", w), Some(2));
        assert_eq!(slots("Ü.TXT", w), Some(2));
        assert_eq!(slots("1234.567", w), Some(1));
        assert_eq!(slots("abcdefghijklm", w), Some(2));
        assert_eq!(slots("abcdefghijklmn", w), Some(3));
        assert_eq!(slots("emoji_😀😀😀.dat", w), Some(3)); // 16 UTF-16 units
        assert_eq!(slots("a:b", w), None);
        assert_eq!(slots("trailing ", w), None);
        assert_eq!(slots("NAME.", w), Some(1)); // stored as NAME
        assert_eq!(slots(&"x".repeat(256), w), None);
        assert_eq!(slots(&"x".repeat(255), w), Some(21));
        let nt = NameRule::WinNt;
        assert_eq!(slots("readme.txt", nt), Some(1));
        assert_eq!(slots("readme.TXT", nt), Some(1));
        assert_eq!(slots("ReadMe.txt", nt), Some(2));
    }

    #[test]
    fn eight_bit_iocharset_takes_a_unit_per_byte() {
        let slots8 = |n: &str| name_slots(&file(n, 1), NameRule::Win95, Charset::Bytes);
        // Measured in the lab (vfat, iocharset=iso8859-1, no utf8): the
        // `intl` folder of tests/it/lab.rs; these are its name shapes.
        assert_eq!(slots8("README.TXT"), Some(1));
        assert_eq!(slots8("readme.txt"), Some(2));
        assert_eq!(slots8("Ünïcode 1.ä"), Some(3)); // 14 bytes
        assert_eq!(slots("Ünïcode 1.ä", NameRule::Win95), Some(2)); // 11 units
        assert_eq!(slots8("日本語のファイル名1.txt"), Some(4)); // 32 bytes
        assert_eq!(slots("日本語のファイル名1.txt", NameRule::Win95), Some(3)); // 14 units
                                                                                // 100 CJK letters: 100 units in UTF-16, 300 bytes: too long.
        assert_eq!(slots8(&"日".repeat(100)), None);
        assert_eq!(slots(&"日".repeat(100), NameRule::Win95), Some(9));
    }

    #[test]
    fn mtools_name_rule() {
        let m = NameRule::Mtools;
        // All measured with mcopy 4.0.32 under C.UTF-8.
        assert_eq!(slots("short.txt", m), Some(1));
        assert_eq!(slots("MixedCase.Txt", m), Some(2));
        assert_eq!(slots("X'Y", m), Some(2));
        assert_eq!(slots("X~Y", m), Some(1));
        assert_eq!(slots("with space.txt", m), Some(3));
        assert_eq!(slots("Ü.TXT", m), Some(1));
        assert_eq!(slots("aé.txt", m), Some(1));
        assert_eq!(slots("ファイル", m), Some(2));
        assert_eq!(slots("emoji_😀😀😀.dat", m), Some(2)); // emoji dropped
        assert_eq!(slots("NOEXTENSIONLONG", m), Some(3));
        assert_eq!(slots("A.ABCD", m), Some(2));
        assert_eq!(slots(".X", m), Some(2));
    }

    fn run(m: &dyn Model, dirs: &[(bool, Vec<Entry>)]) -> super::super::Sizes {
        let mut acc = Acc::default();
        for (root, entries) in dirs {
            m.add_dir(&Dir::new(Path::new("x"), *root, entries), &mut acc);
        }
        m.finish(&acc)
    }

    #[test]
    fn directories_grow_by_clusters() {
        let m = FAT32.model(64 * M, 512).unwrap();
        // . and .. plus 14 8.3 names: 16 slots, one 512-byte cluster.
        let e: Vec<Entry> = (0..14).map(|i| file(&format!("F{i}"), 0)).collect();
        let s = run(&*m, &[(false, e)]);
        assert_eq!((s.data_bytes, s.metadata_bytes), (0, 512));
        let e: Vec<Entry> = (0..15).map(|i| file(&format!("F{i}"), 1)).collect();
        let s = run(&*m, &[(false, e)]);
        assert_eq!(
            (s.data_bytes, s.slack_bytes, s.metadata_bytes),
            (15 * 512, 15 * 511, 1024)
        );
        // FAT32's root has its first cluster already.
        let e: Vec<Entry> = (0..16).map(|i| file(&format!("F{i}"), 0)).collect();
        assert_eq!(run(&*m, &[(true, e)]).metadata_bytes, 0);
        let e: Vec<Entry> = (0..17).map(|i| file(&format!("F{i}"), 0)).collect();
        assert_eq!(run(&*m, &[(true, e)]).metadata_bytes, 512);
    }

    #[test]
    fn fixed_root_is_full_at_its_entries() {
        let m = FAT16.model(16 * M, 2048).unwrap();
        let e: Vec<Entry> = (0..600).map(|i| file(&format!("F{i}"), 1)).collect();
        let s = run(&*m, &[(true, e)]);
        assert_eq!((s.data_bytes, s.metadata_bytes), (512 * 2048, 0));
    }

    #[test]
    fn case_collisions_store_one_file() {
        let m = FAT32.model(64 * M, 512).unwrap();
        let e = vec![file("A.TXT", 1), file("a.txt", 1), file("B.TXT", 1)];
        assert_eq!(run(&*m, &[(false, e)]).data_bytes, 1024);
    }

    #[test]
    fn unstorable_entries_take_nothing() {
        let m = FAT32.model(64 * M, 512).unwrap();
        let e = vec![
            Entry::new(OsString::from("link"), Kind::Symlink, 10, 0),
            Entry::new(OsString::from("LINK"), Kind::File, 10, 0),
            Entry::new(OsString::from("fifo"), Kind::Other, 0, 0),
            file("what?.txt", 10),
            file("colon:name", 10),
        ];
        // Only LINK is stored: 2 + 1 slots, one cluster of data.
        let s = run(&*m, &[(false, e)]);
        assert_eq!((s.data_bytes, s.metadata_bytes), (512, 512));
    }

    #[test]
    fn huge_files_stop_at_4_gib() {
        let m = FAT32.model(64 * G, 32768).unwrap();
        let s = run(&*m, &[(false, vec![file("BIG", 5 << 30)])]);
        assert_eq!(s.data_bytes, 4 << 30);
    }
}
