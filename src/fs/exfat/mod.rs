//! exFAT: the layout `mkfs.exfat` (exfatprogs 1.2.0) writes, and what a copied
//! tree takes on it, to the byte.
//!
//! Free space: the cluster heap minus the clusters mkfs fills (allocation
//! bitmap, up-case table, root directory). Tree: file contents rounded up to
//! whole clusters (empty files take none), and one directory-entry set per
//! name in its parent directory, directories growing a cluster at a time.
//!
//! Two drivers write exFAT on Linux: exfat-fuse (what the tests here mount)
//! and the kernel's fs/exfat. They allocate alike; they differ only in which
//! names and file types `cp -r` manages to create (see [`Driver`]).

pub mod probe;

use super::{powers_of_two, Acc, Drivers, Filesystem, Formats, FsInfo, FuseDriver, Limits, Model};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Entry, Kind};

pub struct Exfat;

/// Sector size mkfs.exfat uses on image files and loop devices
/// (exfatprogs lib/libexfat.c exfat_get_blk_dev_info: BLKSSZGET, else 512).
const SECTOR: u64 = 512;
/// exfatprogs include/libexfat.h DEFAULT_BOUNDARY_ALIGNMENT: the FAT and the
/// cluster heap start on 1 MiB boundaries.
const BOUNDARY: u64 = 1 << 20;
/// exfatprogs include/exfat_ondisk.h EXFAT_UPCASE_TABLE_SIZE: the compressed
/// up-case table mkfs writes (measured: dump.exfat "Upcase table size: 5836").
const UPCASE_BYTES: u64 = 5836;
/// exFAT spec 6.2: every directory entry is 32 bytes.
const ENTRY: u64 = 32;
/// exFAT spec 7.7.3: a File Name entry holds 15 UTF-16 code units.
const NAME_UNITS_PER_ENTRY: u64 = 15;
/// exFAT spec 7.6.3: names are at most 255 UTF-16 code units.
const NAME_MAX_UTF16: u32 = 255;
/// Entries mkfs.exfat 1.2.0 writes in the root: volume label, allocation
/// bitmap, up-case table (mkfs/mkfs.c exfat_create_root_dir; measured: the
/// root cluster holds 0x83, 0x81, 0x82 and then end-of-directory).
const ROOT_SYSTEM_ENTRIES: u64 = 3;
/// mkfs/mkfs.c exfat_build_mkfs_info: `num_clusters > UINT32_MAX / 4` is
/// refused ("cluster size is too small").
const MAX_FAT_CLUSTERS: u64 = u32::MAX as u64 / 4;
/// exFAT spec 3.1.10: ClusterCount is at most 2^32 - 11.
const MAX_HEAP_CLUSTERS: u64 = 0xFFFF_FFF5;

/// The driver that does the copy. They allocate clusters alike (both pack
/// entry sets across cluster boundaries and grow a directory one cluster at
/// a time, both give a new directory one cluster and an empty file none);
/// they differ in what `cp -r` manages to create.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// exfat-fuse 1.3.0 (`mount.exfat-fuse`). Its mknod creates an empty
    /// regular file whatever the type asked for, then the kernel's FUSE layer
    /// fails the call on the type mismatch: a FIFO, socket or device leaves a
    /// 0-byte file behind (measured: `cp -r` of a FIFO, a socket, a char
    /// and a block device leaves four 0-byte files). Names are stored as
    /// given, trailing dots and spaces included.
    Fuse,
    /// Linux fs/exfat. No mknod: FIFOs, sockets and devices are not created
    /// (fs/exfat/namei.c exfat_dir_inode_operations has no .mknod). Trailing
    /// dots are dropped from names unless mounted with keep_last_dots
    /// (namei.c __exfat_resolve_path: exfat_striptail_len), so "a." takes the
    /// entries of "a"; a name of dots only is refused.
    Kernel,
}

/// The driver `Filesystem::model` uses: exfat-fuse, the one the tests here
/// check (this kernel has no exfat module). For trees without FIFOs, sockets,
/// devices or names ending in '.', both drivers give the same figures.
pub const DEFAULT_DRIVER: Driver = Driver::Fuse;

/// Where mkfs.exfat 1.2.0 puts things, in bytes and clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub cluster: u64,
    pub fat_offset: u64,
    pub fat_length: u64,
    pub heap_offset: u64,
    /// ClusterCount: clusters in the heap.
    pub clusters: u64,
    pub bitmap_clusters: u64,
    pub upcase_clusters: u64,
    /// The root directory's first (and, after mkfs, only) cluster.
    pub root_clusters: u64,
}

impl Layout {
    /// The layout of `mkfs.exfat -c CLUSTER` on a whole device of `volume`
    /// bytes, or mkfs.exfat's refusal. Follows exfatprogs 1.2.0
    /// mkfs/mkfs.c exfat_build_mkfs_info with partition offset 0.
    pub fn new(volume: u64, cluster: u64) -> crate::Result<Layout> {
        let num_clusters = fat_clusters(volume, cluster)?;
        // mkfs.c: fat_byte_off = round_up(24 sectors, boundary_align).
        let fat_offset = round_up(24 * SECTOR, BOUNDARY);
        // mkfs.c: fat_byte_len = round_up(num_clusters * 4, cluster_size).
        let fat_length = round_up(num_clusters * 4, cluster);
        // mkfs.c: clu_byte_off = round_up(fat_byte_off + fat_byte_len, boundary_align).
        let heap_offset = round_up(fat_offset + fat_length, BOUNDARY);
        if volume <= heap_offset {
            return Err(crate::Error::input(format!(
                "mkfs.exfat refuses (\"boundary alignment is too big\"): the FAT ends at {} \
                 bytes, no room for the cluster heap in {volume} bytes",
                heap_offset
            )));
        }
        // mkfs.c: total_clu_cnt = (size - clu_byte_off) / cluster_size.
        let clusters = (volume - heap_offset) / cluster;
        if clusters > MAX_HEAP_CLUSTERS {
            return Err(crate::Error::input(format!(
                "mkfs.exfat refuses: cluster size ({cluster} bytes) is too small (\
                 {clusters} clusters)"
            )));
        }
        let layout = Layout {
            cluster,
            fat_offset,
            fat_length,
            heap_offset,
            clusters,
            // mkfs.c: bitmap_byte_len = round_up(total_clu_cnt, 8) / 8, in whole clusters.
            bitmap_clusters: clusters.div_ceil(8).div_ceil(cluster),
            // mkfs.c: the up-case table follows the bitmap, in whole clusters.
            upcase_clusters: UPCASE_BYTES.div_ceil(cluster),
            // mkfs.c: the root directory follows the up-case table: one cluster.
            root_clusters: 1,
        };
        layout.check_sound()?;
        Ok(layout)
    }

    /// What mkfs.exfat 1.2.0 writes anyway but leaves corrupt.
    fn check_sound(&self) -> crate::Result<()> {
        let (cluster, clusters) = (self.cluster, self.clusters);
        let used = self.bitmap_clusters + self.upcase_clusters + self.root_clusters;
        if clusters < used {
            // measured: mkfs.exfat 1.2.0 formats anyway and dump.exfat then
            // reports 4294967295 free clusters.
            return Err(crate::Error::input(format!(
                "mkfs.exfat 1.2.0 writes a corrupt volume: the cluster heap has {clusters} \
                 clusters of {cluster} bytes but its bitmap, up-case table and root directory \
                 need {used} (use a smaller cluster)"
            )));
        }
        // mkfs.exfat 1.2.0 keeps the FAT length and the heap, up-case and
        // root byte offsets in 32 bits; past 4 GiB they wrap (measured: FAT
        // Length 0 or Cluster Heap Offset 0 on ~4 TiB with 4 KiB clusters;
        // on 511 GiB with 512 B clusters the root lands elsewhere and
        // exfat-fuse says "upcase table is not found").
        let root_offset =
            self.heap_offset + (self.bitmap_clusters + self.upcase_clusters) * cluster;
        if self.fat_length > u32::MAX as u64 || root_offset > u32::MAX as u64 {
            return Err(crate::Error::input(format!(
                "mkfs.exfat 1.2.0 writes a corrupt volume: its FAT and bitmap reach past 4 GiB \
                 ({root_offset} bytes) and overflow its 32-bit offsets (use a bigger cluster)"
            )));
        }
        Ok(())
    }

    /// Free clusters on the fresh volume, as statvfs reports them: the
    /// heap minus what mkfs marked in the bitmap (exfat-fuse: f_bfree counts
    /// the bitmap's zero bits; kernel super.c exfat_statfs: clusters minus
    /// used_clusters from the bitmap).
    pub fn free_clusters(&self) -> u64 {
        self.clusters - self.bitmap_clusters - self.upcase_clusters - self.root_clusters
    }
}

/// The clusters the FAT covers (the whole volume's), or why mkfs.exfat
/// refuses the cluster size.
fn fat_clusters(volume: u64, cluster: u64) -> crate::Result<u64> {
    if !cluster.is_power_of_two() || !(512..=32 << 20).contains(&cluster) {
        // mkfs/mkfs.c main: -c must be a power of two, at most 32 MiB;
        // exfat_build_mkfs_info: not smaller than the 512-byte sector.
        return Err(crate::Error::input(format!(
            "cluster size {cluster} is not a power of two from 512 B to 32 MiB"
        )));
    }
    // libexfat.c: bd->num_clusters = size / cluster_size (whole volume).
    let num_clusters = volume / cluster;
    if num_clusters > u32::MAX as u64 && num_clusters % (1 << 32) <= MAX_FAT_CLUSTERS {
        // measured: 2 TiB with 512 B clusters formats with FAT Length 0
        // (1.2.0 keeps num_clusters in an unsigned int, which wraps).
        return Err(crate::Error::input(format!(
            "mkfs.exfat 1.2.0 writes a corrupt volume: {num_clusters} clusters overflow its \
             32-bit cluster count (use a bigger cluster)"
        )));
    }
    if num_clusters > MAX_FAT_CLUSTERS {
        return Err(crate::Error::input(format!(
            "mkfs.exfat refuses: cluster size ({cluster} bytes) is too small for this volume \
             ({num_clusters} clusters, at most {MAX_FAT_CLUSTERS})"
        )));
    }
    Ok(num_clusters)
}

/// The exFAT model for one volume size, cluster size and driver.
pub struct ExfatModel {
    pub layout: Layout,
    pub driver: Driver,
}

impl ExfatModel {
    pub fn new(volume: u64, cluster: u64, driver: Driver) -> crate::Result<ExfatModel> {
        Ok(ExfatModel {
            layout: Layout::new(volume, cluster)?,
            driver,
        })
    }

    /// Directory entries one name takes in its parent, or None when the
    /// driver refuses to create it (then `cp -r` skips it and, for a
    /// directory, everything below it).
    /// `forbidden`: the name holds a byte exFAT refuses (exFAT spec 7.7.3,
    /// invalid FileName characters: control characters and
    /// `" * / : < > ? \ |`; [`crate::scan::windows_forbidden`]).
    fn entry_set(&self, name: &[u8], utf16_len: u32, utf8: bool, forbidden: bool) -> Option<u64> {
        if !utf8 || utf16_len > NAME_MAX_UTF16 || forbidden {
            // exfat-fuse libexfat/lookup.c is_allowed and utf8_to_utf16;
            // kernel fs/exfat/nls.c exfat_nls_to_utf16 (bad_uni_chars, < 0x20).
            return None;
        }
        let mut units = utf16_len as u64;
        if self.driver == Driver::Kernel {
            // kernel namei.c: trailing dots are stripped (one byte, one unit each).
            let dots = name.iter().rev().take_while(|&&b| b == b'.').count() as u64;
            units -= dots;
            if units == 0 {
                return None;
            }
        }
        // exFAT spec 6.3/7.4: File entry + Stream Extension entry + name entries.
        Some(2 + units.div_ceil(NAME_UNITS_PER_ENTRY))
    }

    fn entry_set_of(&self, e: &Entry) -> Option<u64> {
        self.entry_set(
            e.name_bytes(),
            e.utf16_len,
            e.is_utf8(),
            e.has_windows_forbidden(),
        )
    }

    /// Can the driver create every directory on the way to `dir`? (`cp -r`
    /// does not descend into a directory it could not make.)
    fn reachable(&self, dir: &Dir) -> bool {
        // Most paths are ASCII, short, without a byte exFAT refuses or a
        // name ending in a dot: then every folder on the way can be made,
        // said without splitting the path into names (this runs for every
        // folder and every exFAT config).
        if let Some(r) = dir.rel_str {
            let plain = r.len() <= NAME_MAX_UTF16 as usize
                && r.is_ascii()
                && !r.ends_with('.')
                && !r.contains("./")
                && r.split('/')
                    .all(|c| !crate::scan::windows_forbidden(c.as_bytes()));
            if plain {
                return true;
            }
        }
        dir.rel.components().all(|c| {
            let name = c.as_os_str();
            let utf8 = name.to_str();
            let units = utf8.map_or(name.len(), |s| s.encode_utf16().count());
            let b = name.as_encoded_bytes();
            self.entry_set(
                b,
                units as u32,
                utf8.is_some(),
                crate::scan::windows_forbidden(b),
            )
            .is_some()
        })
    }
}

/// The name as exFAT compares it (spec 7.2.5: each UTF-16 unit through the
/// up-case table mkfs writes, which maps a character to its simple
/// uppercase, one unit to one unit); a non-UTF-8 name's bytes as they are.
fn upcased(e: &Entry) -> impl Iterator<Item = u32> + '_ {
    let b = e.name_bytes();
    let s = e.name_str();
    let chars = s.into_iter().flat_map(|s| s.chars()).map(|c| {
        let mut up = c.to_uppercase();
        match (up.next(), up.next()) {
            (Some(u), None) if (u as u32 > 0xFFFF) == (c as u32 > 0xFFFF) => u as u32,
            _ => c as u32,
        }
    });
    let raw = b.iter().filter(move |_| s.is_none()).map(|&x| x as u32);
    chars.chain(raw)
}

/// Marks the files and directories whose name folds to an earlier one's
/// (see [`super::case_duplicates`]). Empty when there are none.
pub(crate) fn duplicates(entries: &[Entry]) -> Vec<bool> {
    super::case_duplicates(
        entries,
        |e| matches!(e.kind, Kind::File | Kind::Dir).then(|| upcase_hash(e)),
        |x, y| upcased(x).eq(upcased(y)),
    )
}

/// FNV-1a over [`upcased`], a unit a step ([`super::quick_hash`] takes
/// bytes: four a unit here would quadruple the steps).
fn upcase_hash(e: &Entry) -> u64 {
    upcased(e).fold(0xcbf2_9ce4_8422_2325, |h, c| {
        (h ^ c as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Model for ExfatModel {
    fn free_bytes(&self) -> u64 {
        self.layout.free_clusters() * self.layout.cluster
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        let cluster = self.layout.cluster;
        // Which entries the driver creates and how many 32-byte entries they
        // take does not depend on the cluster size: worked out once per
        // directory for all exFAT configs.
        super::with_digest(
            &DIGEST,
            dir,
            self.driver as u64,
            |d| {
                if !dir.is_root && !self.reachable(dir) {
                    d.stored = false;
                    return;
                }
                // The root starts with mkfs's label, bitmap and up-case entries; a
                // subdirectory starts empty (exFAT has no "." and ".." entries).
                d.slots = if dir.is_root { ROOT_SYSTEM_ENTRIES } else { 0 };
                // A name equal to an earlier one through the up-case table is
                // not created: cp fails with EEXIST (measured, exfat-fuse).
                let dup = if dir.may_collide() {
                    duplicates(dir.entries)
                } else {
                    Vec::new()
                };
                for (i, e) in dir.entries.iter().enumerate() {
                    if dup.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    let created = match e.kind {
                        Kind::File | Kind::Dir => true,
                        // cp -r makes a symlink with symlink(2): neither driver has it.
                        Kind::Symlink => false,
                        Kind::Other => self.driver == Driver::Fuse,
                    };
                    if !created {
                        continue;
                    }
                    let Some(set) = self.entry_set_of(e) else {
                        continue;
                    };
                    d.slots += set;
                    if e.kind == Kind::File {
                        d.sizes.push(e.size);
                    }
                }
            },
            |d| {
                if !d.stored {
                    return;
                }
                // exFAT spec 7.6.6/7.6.7: contents in whole clusters; an empty file
                // has FirstCluster 0 and no cluster (exfat-fuse node.c
                // commit_entry; kernel namei.c exfat_add_entry).
                for &size in &d.sizes {
                    acc.add_content(size, cluster);
                }
                // exfat-fuse node.c find_slot and kernel namei.c exfat_find_empty_entry:
                // entry sets are packed, may span clusters, and the directory grows
                // by whole clusters; a new directory gets one cluster at mkdir
                // (exfat-fuse exfat_mkdir, kernel exfat_alloc_new_dir).
                let clusters = (d.slots * ENTRY).div_ceil(cluster).max(1);
                // The root's first cluster is mkfs's, already out of free_bytes.
                let own = if dir.is_root { clusters - 1 } else { clusters };
                acc.meta += own * cluster;
            },
        )
    }
}

thread_local! {
    static DIGEST: std::cell::RefCell<super::Digest> = std::cell::RefCell::default();
}

pub const INFO: FsInfo = FsInfo {
    name: "exfat",
    title: "exFAT",
    // tests/it/exfat.rs: mkfs.exfat + exfat-fuse, free_bytes and tree_bytes
    // to the byte.
    exact: true,
    limits: Limits {
        // exFAT spec 7.6.7: DataLength is 64-bit; in practice the volume.
        max_file_bytes: u64::MAX,
        // exFAT spec 7.2: names compare through the up-case table.
        case_insensitive: true,
        // exFAT spec 7.7.3: the forbidden characters.
        windows_names: true,
        name_max_utf16: Some(NAME_MAX_UTF16),
        name_max_bytes: None,
        path_max: Some(260),
        symlinks: false,
        special_files: false,
        // exFAT spec 7.4 Timestamp fields: 1980 to 2107.
        from_1980: true,
        // exFAT spec 7.4 10msIncrement fields: 10 ms steps.
        mtime_2s: false,
    },
    drivers: Drivers {
        kernel: Some("exfat"),
        kernel_modules: &["exfat"],
        fuse: Some(FuseDriver {
            program: "mount.exfat-fuse",
            args: &[],
            slow: false,
            defers_writes: false,
            // exfat-fuse 1.3 drops `-o sync` and `-o dirsync` before
            // mounting, but answers fsync by writing its nodes, bitmap and
            // the device's cache out, so a file opened O_SYNC writes through:
            // 4 MiB written so on a loop device reached it before the close.
            sync_ignored: None,
        }),
        windows: Some("exfat"),
        kernel_sync: None,
    },
    mount_options: &["sync", "dirsync"],
    // udisks2 data/builtin_mount_options.conf `exfat_defaults`; exfat-fuse
    // 1.3 takes uid and gid, and accepts but ignores the others.
    desktop_options: super::DesktopOptions {
        kernel: &[
            "uid=$UID",
            "gid=$GID",
            "iocharset=utf8",
            "errors=remount-ro",
        ],
        fuse: &["uid=$UID", "gid=$GID"],
    },
    copies_mount: Some(""),
    label_flag: "-L",
    formats: Formats {
        windows: Some("exFAT"),
        windows_note: None,
        macos: Some(
            "sudo newfs_exfat -b {cluster} -v {label} /dev/diskNsM   \
             (diskutil eraseVolume ExFAT {label} diskNsM picks its own cluster)",
        ),
    },
    robustness:
        "no journal (one FAT copy, a dirty bit): unplugging mid-write can lose recent files",
    checker: Some(Checker {
        program: "fsck.exfat",
        check_args: &["-n"],
        repair_args: &["-y"],
        repair_stdin: "",
        exit_codes: ExitCodes::Fsck,
    }),
    preference: 3,
    signature: probe::SIGNATURE,
};

impl Filesystem for Exfat {
    fn keeps_xattrs(&self) -> bool {
        false
    }
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // exfatprogs mkfs.exfat: -c cluster size in bytes.
        Some(super::argv(&["mkfs.exfat", "-c", &cluster.to_string()]))
    }
    fn format(&self, p: &crate::fs::FormatParams) -> crate::Result<crate::fs::FormatCmd> {
        // mkfs.exfat aligns the FAT and the cluster heap to -b from the
        // device's start (it reads the partition's start): half the
        // alignment puts the FAT at align/2 and the heap at align, the SD
        // layout, when the FAT fits in half of it; else the FAT at align.
        let a = p.align_bytes;
        // mkfs.c exfat_build_mkfs_info, with the partition offset.
        let fat = round_up(p.volume_bytes / p.cluster * 4, p.cluster);
        let s = p.start_bytes;
        let fits = round_up(s + 24 * SECTOR, a / 2) - s + fat <= a;
        let b = if fits { a / 2 } else { a };
        let fat_off = round_up(s + 24 * SECTOR, b) - s;
        let heap = round_up(s + fat_off + fat, b) - s;
        let mut argv = super::argv(&["mkfs.exfat", "-c", &p.cluster.to_string()]);
        argv.extend(["-b".to_string(), b.to_string()]);
        if let Some(l) = p.label {
            argv.extend(super::label_args(self.info(), l));
        }
        Ok(crate::fs::FormatCmd {
            argv,
            data_offset: Some(heap),
        })
    }
    fn partition_type(&self) -> crate::fs::PartType {
        crate::fs::PartType::WINDOWS
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        // exFAT spec 7.3: VolumeLabel holds 11 UTF-16 units; Windows refuses
        // the characters it refuses in file names.
        crate::fs::LabelRule {
            max_utf16: Some(11),
            forbidden: "\"*/:<>?\\|",
            ..crate::fs::LabelRule::ANY
        }
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // mkfs/mkfs.c: -c from the 512-byte sector to EXFAT_MAX_CLUSTER_SIZE.
        (512, 32 << 20)
    }
    fn default_cluster(&self, volume: u64) -> u64 {
        default_cluster(volume)
    }
    fn bench_sweep(&self, _volume: u64) -> Vec<u64> {
        // The clusters people argue about (seeds 000-004): 4K like NTFS,
        // 32K, the 128K Windows picks for big sticks, and 1M.
        vec![4096, 32768, 131072, 1 << 20]
    }
    fn sweep(&self, volume: u64) -> Vec<u64> {
        let mut v = powers_of_two(512, 32 << 20);
        let d = default_cluster(volume);
        if !v.contains(&d) {
            v.push(d);
        }
        v
    }
    /// Windows' exfat.sys is modelled as exfat-fuse is: both follow
    /// Microsoft's exFAT specification (learn.microsoft.com, "exFAT file
    /// system specification"), whose rules decide the space: an entry set of
    /// a File, a Stream Extension and one File Name entry per 15 UTF-16
    /// units (32 bytes each), clusters per file ceil(size / cluster), none
    /// for an empty file. Assumed equal, not checked against a volume
    /// Windows filled: a new folder's one cluster, growth one cluster at a
    /// time, entry sets packed across cluster boundaries. Windows strips a
    /// name's trailing dots and spaces as Linux's fs/exfat does; a tree of
    /// such names is the one place the two models could differ.
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        Ok(Box::new(ExfatModel::new(volume, cluster, DEFAULT_DRIVER)?))
    }
}

/// exfatprogs 1.2.0 lib/libexfat.c exfat_set_default_cluster_size:
/// 4 KiB up to 256 MiB, 32 KiB up to 32 GiB, 128 KiB above.
pub fn default_cluster(volume: u64) -> u64 {
    if volume <= 256 << 20 {
        4 << 10
    } else if volume <= 32 << 30 {
        32 << 10
    } else {
        128 << 10
    }
}

fn round_up(n: u64, unit: u64) -> u64 {
    n.div_ceil(unit) * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_equal_through_the_up_case_table_are_duplicates() {
        // U+017F LATIN SMALL LETTER LONG S uppercases to S.
        let es = [
            Entry::new("s.txt".into(), Kind::File, 0, 0),
            Entry::new("\u{17f}.txt".into(), Kind::File, 0, 0),
            Entry::new("S.TXT".into(), Kind::File, 0, 0),
        ];
        assert_eq!(duplicates(&es), vec![false, true, true]);
    }
    use std::ffi::OsString;
    use std::path::Path;

    const M: u64 = 1 << 20;
    const G: u64 = 1 << 30;

    #[test]
    fn layout_64m_4k_matches_mkfs() {
        // measured: mkfs.exfat -v on a 64 MiB image: FAT offset 2048
        // sectors, length 128, heap offset 4096, 15872 clusters, root cluster
        // 5, and exfat-fuse statvfs f_bfree 15868.
        let l = Layout::new(64 * M, 4096).unwrap();
        assert_eq!(l.fat_offset, 2048 * 512);
        assert_eq!(l.fat_length, 128 * 512);
        assert_eq!(l.heap_offset, 4096 * 512);
        assert_eq!(l.clusters, 15872);
        assert_eq!(2 + l.bitmap_clusters + l.upcase_clusters, 5);
        assert_eq!(l.free_clusters(), 15868);
    }

    #[test]
    fn layout_edge_cases_match_mkfs() {
        // measured with mkfs.exfat 1.2.0 + dump.exfat.
        assert_eq!(Layout::new(G, 32 * M).unwrap().free_clusters(), 27);
        assert_eq!(Layout::new(2 * G, 512).unwrap().free_clusters(), 4158459);
        assert_eq!(Layout::new(5 * M, M).unwrap().free_clusters(), 0);
        assert_eq!(Layout::new(3 * M, 256 << 10).unwrap().free_clusters(), 1);
    }

    #[test]
    fn refusals_match_mkfs() {
        // "boundary alignment is too big"
        assert!(Layout::new(M, 4096).is_err());
        assert!(Layout::new(2 * M, 4096).is_err());
        assert!(Layout::new(3 * M, 4096).is_ok());
        // "cluster size (512 bytes) is too small"
        assert!(Layout::new(513 * G, 512).is_err());
        assert!(Layout::new(600 * G, 512).is_err());
        // formats a heap too small for bitmap + up-case + root
        assert!(Layout::new(4 * M, M).is_err());
        assert!(Layout::new(64 * M, 32 * M).is_err());
        // 32-bit overflow of the FAT length / heap offset / root offset
        // (measured: exfat-fuse "upcase table is not found" on 511 GiB, 512 B)
        assert!(Layout::new(511 * G, 512).is_err());
        assert!(Layout::new(256 * G, 512).is_ok());
        assert!(Layout::new((1 << 30) * 4096 - 4096, 4096).is_err());
        assert!(Layout::new(((1 << 30) - 262144) * 4096, 4096).is_err());
        assert!(Layout::new(2 << 40, 32 << 10).is_ok());
        // 2^32 clusters wrap mkfs's cluster count to 0: FAT Length 0
        assert!(Layout::new(2 << 40, 512)
            .unwrap_err()
            .to_string()
            .contains("corrupt"));
        assert!(Layout::new(600 * G, 512)
            .unwrap_err()
            .to_string()
            .contains("refuses"));
        // not a cluster mkfs accepts
        assert!(Layout::new(G, 64 * M).is_err());
        assert!(Layout::new(G, 3000).is_err());
    }

    #[test]
    fn default_cluster_by_size() {
        assert_eq!(default_cluster(3 * M), 4096);
        assert_eq!(default_cluster(256 * M), 4096);
        assert_eq!(default_cluster(256 * M + 512), 32768);
        assert_eq!(default_cluster(32 * G), 32768);
        assert_eq!(default_cluster(33 * G), 131072);
    }

    fn entry(name: &str, kind: Kind, size: u64) -> Entry {
        Entry::new(OsString::from(name), kind, size, 0)
    }

    fn tree_bytes(m: &ExfatModel, rel: &str, root: bool, entries: &[Entry]) -> Acc {
        let mut acc = Acc::default();
        m.add_dir(&Dir::new(Path::new(rel), root, entries), &mut acc);
        acc
    }

    #[test]
    fn entry_sets() {
        let m = ExfatModel::new(64 * M, 4096, Driver::Fuse).unwrap();
        let k = ExfatModel::new(64 * M, 4096, Driver::Kernel).unwrap();
        let set = |m: &ExfatModel, n: &str| m.entry_set_of(&entry(n, Kind::File, 0));
        assert_eq!(set(&m, "a"), Some(3));
        assert_eq!(set(&m, &"x".repeat(15)), Some(3));
        assert_eq!(set(&m, &"x".repeat(16)), Some(4));
        assert_eq!(set(&m, &"x".repeat(255)), Some(19));
        // one emoji is two UTF-16 units
        assert_eq!(set(&m, &"😀".repeat(8)), Some(4));
        assert_eq!(set(&m, "a?b"), None);
        assert_eq!(set(&m, "tab\there"), None);
        assert_eq!(set(&m, &format!("{}.", "x".repeat(15))), Some(4));
        assert_eq!(set(&k, &format!("{}.", "x".repeat(15))), Some(3));
        assert_eq!(set(&k, "..."), None);
    }

    /// Plain paths (the quick answer) and the rest (asked name by name)
    /// come out as each driver makes folders.
    #[test]
    fn a_folder_is_reachable_when_every_folder_on_the_way_can_be_made() {
        let long = "x".repeat(256);
        for driver in [Driver::Fuse, Driver::Kernel] {
            let m = ExfatModel::new(64 * M, 4096, driver).unwrap();
            let reach = |rel: &str| m.reachable(&Dir::new(Path::new(rel), false, &[]));
            for ok in ["usr/share/doc", "a", "a.b/c", "résumé/x", "x.y./z"] {
                assert!(reach(ok), "{ok} with {driver:?}");
            }
            for bad in ["ok/bad?dir", "a:b", "x/tab\there", &format!("a/{long}")] {
                assert!(!reach(bad), "{bad} with {driver:?}");
            }
            // A name of dots alone: the kernel strips them to nothing.
            assert_eq!(reach("a/.../b"), driver == Driver::Fuse, "{driver:?}");
        }
    }

    #[test]
    fn directories_grow_by_clusters() {
        let m = ExfatModel::new(64 * M, 512, Driver::Fuse).unwrap();
        // 16 entries of 32 bytes fill one 512-byte cluster.
        let five: Vec<Entry> = (0..5)
            .map(|i| entry(&format!("f{i}"), Kind::File, 0))
            .collect();
        assert_eq!(tree_bytes(&m, "d", false, &five[..5]).meta, 512); // 15 entries
        let six: Vec<Entry> = (0..6)
            .map(|i| entry(&format!("f{i}"), Kind::File, 0))
            .collect();
        assert_eq!(tree_bytes(&m, "d", false, &six).meta, 1024); // 18 entries
        assert_eq!(tree_bytes(&m, "d", false, &[]).meta, 512);
        // the root holds 3 system entries in mkfs's cluster: 4 files fit (15).
        assert_eq!(tree_bytes(&m, "", true, &five[..4]).meta, 0);
        assert_eq!(tree_bytes(&m, "", true, &five[..5]).meta, 512);
        // contents: whole clusters, empty files none
        let files = [entry("a", Kind::File, 0), entry("b", Kind::File, 513)];
        let acc = tree_bytes(&m, "d", false, &files);
        assert_eq!((acc.data, acc.slack), (1024, 511));
        // a directory whose name the driver refuses is not made
        assert_eq!(tree_bytes(&m, "ok/bad?dir", false, &files).meta, 0);
        // symlinks never; FIFOs leave an empty file with exfat-fuse only
        let odd = [
            entry("l", Kind::Symlink, 5),
            entry("p1", Kind::Other, 0),
            entry("p2", Kind::Other, 0),
            entry("p3", Kind::Other, 0),
            entry("p4", Kind::Other, 0),
            entry("p5", Kind::Other, 0),
            entry("p6", Kind::Other, 0),
        ];
        assert_eq!(tree_bytes(&m, "d", false, &odd).meta, 1024);
        let k = ExfatModel::new(64 * M, 512, Driver::Kernel).unwrap();
        assert_eq!(tree_bytes(&k, "d", false, &odd).meta, 512);
    }

    /// Names that fold to the same up-case form: every later one is marked,
    /// whatever its kind (file/dir clashes too); ß has no one-unit
    /// uppercase, so `straße` and `STRASSE` are two names.
    #[test]
    fn case_duplicates_fold_through_upcase() {
        let names = [
            ("abc", Kind::File),
            ("ABC", Kind::File),
            ("Abc", Kind::Dir),
            ("xyz", Kind::File),
            ("ÉTÉ", Kind::Dir),
            ("été", Kind::Dir),
            ("straße", Kind::File),
            ("STRASSE", Kind::File),
            ("link", Kind::Symlink),
            ("LINK", Kind::File),
        ];
        let entries: Vec<Entry> = names
            .iter()
            .map(|(n, k)| Entry::new(OsString::from(n), *k, 1, 0))
            .collect();
        let dup = duplicates(&entries);
        let want = [
            false, true, true, false, false, true, false, false, false, false,
        ];
        assert_eq!(dup, want);
    }
}
