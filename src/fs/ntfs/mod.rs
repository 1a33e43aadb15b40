//! NTFS: the layout `mkntfs` (ntfs-3g 2022.10.3) writes, and what a tree
//! copied with `cp -r` through the ntfs-3g FUSE driver takes on it.
//!
//! Free space: every cluster mkntfs allocates ($Boot, $MFT and its bitmap,
//! $MFTMirr, $LogFile sized by the volume, $Bitmap, $UpCase, $AttrDef,
//! $Secure:$SDS, the root's security descriptor and first index block); the
//! result matches statvfs to the byte. ntfs-3g reports `f_frsize` = cluster
//! size and `f_bfree` = clear bits of $Bitmap below the cluster count.
//!
//! Tree: one 1 KiB MFT record per file, directory, symlink and special file
//! (allocated from record 64 up, the $MFT growing 16 records or one cluster
//! at a time); file contents resident in the record when they fit, whole
//! clusters otherwise; one index entry per name in its directory, the index
//! spilling from the record into 4 KiB index blocks as a B-tree. The B-tree
//! is modelled for names inserted in ascending order (what `cp -r` does for
//! files created in name order: it copies in inode order), the worst usual
//! case; names inserted in random order fill blocks better (~70 % instead of
//! ~50 %), which the model does not know about.

mod ntfs3;
pub mod probe;

use super::{
    powers_of_two, round_up, Acc, Drivers, Filesystem, Formats, FsInfo, FuseDriver, Limits, Model,
    Sizes,
};
use super::{Checker, ExitCodes};
use crate::scan::{Dir, Kind};

pub struct Ntfs;

/// Sector size mkntfs uses on image files and loop devices (mkntfs.c
/// mkntfs_override_vol_params: BLKSSZGET, else 512).
const SECTOR: u64 = 512;
/// MFT record size (mkntfs.c mkntfs_override_vol_params: 1024, or the
/// sector size if larger).
const RECORD: u64 = 1024;
/// Index block size (mkntfs.c mkntfs_override_vol_params: 4096).
const INDX: u64 = 4096;
/// ntfs-3g never gives ordinary files a record below 64
/// (libntfs-3g/mft.c RESERVED_MFT_RECORDS).
const RESERVED_RECORDS: u64 = 64;

/// `$FILE_NAME` value: 0x42 bytes of fixed fields plus the UTF-16 name
/// (layout.h FILE_NAME_ATTR).
fn file_name_value(len: u64) -> u64 {
    0x42 + 2 * len
}

/// A resident `$FILE_NAME` attribute: 0x18 header + value, 8-aligned
/// (layout.h ATTR_RECORD; attrib.c ntfs_make_room_for_attr aligns to 8).
fn file_name_attr(len: u64) -> u64 {
    0x18 + round_up(file_name_value(len), 8)
}

/// A directory index entry: 0x10 header + the `$FILE_NAME` value, 8-aligned
/// (index.c ntfs_index_add_filename).
fn index_entry(len: u64) -> u64 {
    round_up(0x10 + file_name_value(len), 8)
}

/// Bytes of a new ntfs-3g record other than the name and the data/index:
/// header 0x38 (mft.c ntfs_mft_record_layout: 0x30 + 3-entry update sequence,
/// 8-aligned), $STANDARD_INFORMATION 0x18+0x30 (dir.c __ntfs_create: the
/// short NTFS 1.2 form when no security id is used), $SECURITY_DESCRIPTOR
/// 0x18+0x50 (security.c ntfs_sd_add_everyone, as ntfs-3g mounts without the
/// `permissions` option), and the 8-byte end marker.
const RECORD_BASE: u64 = 0x38 + (0x18 + 0x30) + (0x18 + 0x50) + 8;

/// Does a resident attribute value of `value` bytes (a file's $DATA, a
/// symlink's interix $DATA) still fit in the record of a file named with
/// `name_len` UTF-16 units? measured: 648 bytes fit for an 8-unit name, 649
/// do not (0x18 resident header + value 8-aligned; the record may fill up).
fn data_is_resident(name_len: u64, value: u64) -> bool {
    RECORD_BASE + file_name_attr(name_len) + 0x18 + round_up(value, 8) <= RECORD
}

/// An $INDEX_ROOT may not grow into the last 120 bytes of its record while
/// it fits without them (attrib.c ntfs_attr_record_resize: "Too big
/// INDEX_ROOT"); measured: 4 entries of 112 bytes in a small root, not 5.
fn root_room(base: u64) -> u64 {
    if base + 120 <= RECORD {
        RECORD - 120 - base
    } else {
        RECORD.saturating_sub(base)
    }
}

/// Bytes of index entries (terminator included) an index block holds: the
/// header's allocated size 4096 - 0x18 minus the entries offset 0x28
/// (index.c ntfs_ib_alloc: 0x10 + 9-entry update sequence, 8-aligned).
const BLOCK_ROOM: u64 = INDX - 0x18 - 0x28;

/// Entries a block takes before the next one makes it split: a new entry
/// goes in when the block's entries, its end entry and the new entry fit
/// (index.c ntfs_ie_add); `end` is 16 in a leaf, 24 in a node.
fn block_capacity(entry: f64, end: u64) -> u64 {
    (((BLOCK_ROOM - end) as f64 / entry).floor() as u64).max(1)
}

/// Splits of the rightmost block when `n` entries arrive in ascending order
/// into an empty one holding `m`: each split leaves m/2 entries behind and
/// sends one up (index.c ntfs_ib_split; measured: splits at 36, 54, 72 with
/// m = 35 and at 39, 59, 79 with m = 38).
fn splits(n: u64, m: u64) -> u64 {
    if n <= m {
        0
    } else {
        (n - m).div_ceil(m / 2 + 1)
    }
}

/// Node blocks above `medians` entries sent up from the level below, with
/// room for `k` of them in the $INDEX_ROOT: when the root overflows its
/// entries move into a new node block (index.c ntfs_ir_reparent), which then
/// splits like a leaf, its own medians going up again.
fn node_blocks(mut medians: u64, k: u64, m: u64) -> u64 {
    let mut blocks = 0;
    while medians > k {
        let s = splits(medians, m);
        blocks += 1 + s;
        medians = s;
    }
    blocks
}

/// The names of one directory, as far as its index cares.
#[derive(Clone, Copy, Debug)]
struct Names {
    n: u64,
    /// Index entry bytes, all of them.
    bytes: u64,
    /// Smallest and largest index entry.
    min: u64,
    max: u64,
}

impl Names {
    #[cfg(test)]
    fn uniform(n: u64, entry: u64) -> Names {
        Names {
            n,
            bytes: n * entry,
            min: entry,
            max: entry,
        }
    }

    fn mean(&self) -> f64 {
        self.bytes as f64 / self.n as f64
    }
}

/// What a directory's $I30 index costs beyond its base record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct IndexCost {
    /// 4 KiB index blocks.
    blocks: u64,
    /// Attributes pushed out of a full record, one cluster each (expected
    /// count when names differ in length).
    clusters: f64,
    /// Extension MFT records (expected count, likewise).
    records: f64,
}

/// A small $INDEX_ROOT: 0x18 header + "$I30", 0x10 root + 0x10 index header,
/// 0x10 end entry (layout.h INDEX_ROOT).
const IR_SMALL: u64 = 0x20 + 0x20 + 0x10;
/// A large one: the end entry carries a VCN (index.c ntfs_ir_reparent).
const IR_LARGE: u64 = 0x20 + 0x20 + 0x18;
/// $BITMAP (0x18 + "$I30" + 8) and $INDEX_ALLOCATION (0x40 + "$I30" + 8
/// bytes of mapping pairs) added when the index goes large (index.c
/// ntfs_ia_add); measured: 552 bytes in use with a 5-unit name.
const IA_ATTRS: u64 = 0x28 + 0x50;
/// An extension record's header and end marker.
const EXT_BASE: u64 = 0x38 + 8;

/// What happens when a resident $INDEX_ROOT holding `used` record bytes
/// cannot take an `entry` more. If the entry would still fit in the record,
/// the index just moves to blocks (the 120-byte rule in attrib.c
/// ntfs_attr_record_resize). If not, attrib.c ntfs_resident_attr_resize_i
/// first makes the $SECURITY_DESCRIPTOR non-resident (a cluster; the record
/// gains 32 bytes), and if that is not enough adds an $ATTRIBUTE_LIST
/// (non-resident too) and moves the root to an extension record (measured:
/// 208-byte entries, 840 bytes in use: the SD only; a 448-byte entry after
/// 880 bytes: SD, list and a record).
/// Returns the chances of (SD only, SD or none + list + record): 0 or 1 when
/// all names are as long; when they differ, the root's fill when the
/// overflowing entry `x` arrives is spread over the last `x` bytes of its
/// room, the outcome depending on where in those bytes it is.
fn spill(names: &Names, used: f64, x: f64, sd_resident: bool) -> (f64, f64) {
    let sd_gain = if sd_resident { 32.0 } else { 0.0 };
    let limit = RECORD as f64;
    if names.min == names.max {
        if used + x <= limit {
            (0.0, 0.0)
        } else if used - sd_gain + x <= limit {
            (1.0, 0.0)
        } else {
            (0.0, 1.0)
        }
    } else {
        let (a, b) = (120.0, 120.0 + sd_gain);
        ((x.min(b) - a).max(0.0) / x, (x - b).max(0.0) / x)
    }
}

/// The $I30 index of a directory created by ntfs-3g, `base` bytes of its
/// record being taken by other attributes.
fn dir_index(names: &Names, base: u64) -> IndexCost {
    let mut cost = IndexCost::default();
    let small = base + IR_SMALL;
    if names.n == 0 || names.bytes <= root_room(small) {
        return cost;
    }
    let e = names.mean();
    let fit = (root_room(small) as f64 / e).floor();
    let (p_sd, p_full) = spill(names, small as f64 + fit * e, e, true);
    cost.clusters += p_sd + 2.0 * p_full;
    cost.records += p_full;
    let in_ext = p_full >= 0.5;
    let mut base = base as f64;
    let mut sd_resident = true;
    if in_ext {
        if names.bytes <= root_room(EXT_BASE + IR_SMALL) {
            // The root went to its own record and still holds everything.
            return cost;
        }
    } else if p_sd >= 0.5 {
        base -= 32.0;
        sd_resident = false;
    }
    let s = splits(names.n, block_capacity(e, 16));
    cost.blocks = 1 + s;
    let em = e + 8.0;
    let room = |used: f64| root_room(used.ceil() as u64) as f64;
    let ext_k = (room((EXT_BASE + IR_LARGE) as f64) / em).floor();
    let mut k = ext_k;
    if !in_ext {
        // The large root fills up with medians in the base record.
        let large = base + (IR_LARGE + IA_ATTRS) as f64;
        k = (room(large) / em).floor();
        if s as f64 > k {
            let (q_sd, q_full) = spill(names, large + k * em, em, sd_resident);
            let (q_sd, q_full) = (q_sd * (1.0 - p_full), q_full * (1.0 - p_full));
            let sd = if sd_resident { 1.0 } else { 0.0 };
            cost.clusters += q_sd + (1.0 + sd) * q_full;
            cost.records += q_full;
            if q_full >= 0.5 {
                k = ext_k;
            } else if q_sd >= 0.5 {
                k = (room(large - 32.0) / em).floor();
            }
        }
    }
    cost.blocks += node_blocks(s, k as u64, block_capacity(em, 24));
    cost
}

/// The leaf blocks the volume root's names take beyond mkntfs's first
/// one, and the entries they send up: None while that one holds them all.
fn root_leaves(names: &Names) -> Option<(u64, u64)> {
    if names.n == 0 {
        return None;
    }
    let n = names.n;
    let e = names.mean();
    let m = block_capacity(e, 16);
    // Entries go in while they fit in bytes, then the leaf splits by count,
    // keeping the system entries and half of ours.
    let fit = ((BLOCK_ROOM - 16 - ROOT_PRESET.1) as f64 / e).floor() as u64;
    if n <= fit {
        return None;
    }
    let i = ROOT_PRESET.0 + fit;
    let right = i - i / 2 - 1;
    let s = splits(right + (n - fit), m);
    Some((1 + s, 1 + s))
}

/// The volume root's index: mkntfs made it large, with one leaf holding "."
/// and the 11 system files (1176 bytes) and a record 512 bytes full
/// (measured: ntfsinfo -i 5). New names go after the system files.
fn root_index(names: &Names) -> IndexCost {
    let mut cost = IndexCost::default();
    let Some((blocks, medians)) = root_leaves(names) else {
        return cost;
    };
    cost.blocks = blocks;
    let em = names.mean() + 8.0;
    let mut k = (root_room(ROOT_RECORD_USED) as f64 / em).floor();
    if medians as f64 > k {
        // Its security descriptor is already non-resident: only the
        // attribute list and the extension record.
        let (_, p) = spill(names, ROOT_RECORD_USED as f64 + k * em, em, false);
        cost.clusters += p;
        cost.records += p;
        if p >= 0.5 {
            k = (root_room(EXT_BASE + IR_LARGE) as f64 / em).floor();
        }
    }
    cost.blocks += node_blocks(medians, k as u64, block_capacity(em, 24));
    cost
}

/// What mkntfs lays out on a volume of `volume` bytes with `cluster`-byte
/// clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub clusters: u64,
    pub used: u64,
    /// $LogFile bytes.
    pub logfile: u64,
}

/// $LogFile's clusters and bytes: sized by the volume, halved until it fits
/// after `log_lcn` (mkntfs_initialize_rl_logfile).
fn logfile(nr: u64, c: u64, log_lcn: u64) -> (u64, u64) {
    let vs = nr * c;
    let mut log = if vs < 2048 * 1024 {
        256 * 1024
    } else if vs < 4_000_000 {
        512 * 1024
    } else if vs <= 200 << 20 {
        2048 * 1024
    } else if vs >= 12 << 30 {
        64 << 20
    } else {
        (vs / 200) & !(c - 1)
    };
    while log > 0 && log_lcn + log / c >= nr {
        log >>= 1;
    }
    (log / c, round_up(log, c))
}

pub fn layout(volume: u64, cluster: u64) -> crate::Result<Layout> {
    let c = cluster;
    if !c.is_power_of_two() || !(SECTOR..=65536).contains(&c) {
        // mkntfs.c mkntfs_override_vol_params: sector size .. 64 KiB,
        // at most 128 sectors.
        return Err(crate::Error::input(format!(
            "mkntfs takes clusters of 512 B to 64 KiB, not {c}"
        )));
    }
    // The last sector holds the backup boot sector (mkntfs_override_vol_params).
    let sectors = (volume / SECTOR).saturating_sub(1);
    let bytes = sectors * SECTOR;
    if bytes < 1 << 20 {
        return Err(crate::Error::input("mkntfs needs at least 1 MiB"));
    }
    let nr = bytes / c;
    if nr >> 32 != 0 {
        return Err(crate::Error::input(format!(
            "more than 2^32 clusters of {c} B; mkntfs refuses (use a larger cluster)"
        )));
    }
    let cl = |b: u64| b.div_ceil(c);
    let mut used = 0;
    // $Boot: 8 KiB or one cluster (mkntfs_initialize_rl_boot).
    used += cl(8192);
    // $MFT/$BITMAP: one cluster (mkntfs_initialize_bitmaps).
    used += 1;
    // $MFT: 27 records or one cluster (mkntfs_initialize_bitmaps).
    used += cl((27 * RECORD).max(c));
    // $MFTMirr: 4 records or one cluster, mid-volume (mkntfs_initialize_rl_mft).
    let mirr_lcn = (bytes / 2) / c;
    let mirr = cl(4 * RECORD);
    used += mirr;
    // $LogFile right after $MFTMirr (mkntfs_initialize_rl_logfile).
    let (log_clusters, log) = logfile(nr, c, mirr_lcn + mirr);
    if log < 256 * 1024 {
        return Err(crate::Error::input(
            "volume too small for the $LogFile mkntfs requires",
        ));
    }
    used += log_clusters;
    // $Bitmap: one bit per cluster, in 8-byte units (mkntfs_initialize_bitmaps).
    used += cl(round_up(nr.div_ceil(8), 8));
    // $UpCase: 64 Ki UTF-16 units (mkntfs_create_root_structures).
    used += cl(131072);
    // $AttrDef: 0xa00 bytes, too big for its record (attrdef.c).
    used += cl(2560);
    // The root's security descriptor: 4140 bytes, non-resident (sd.c init_root_sd;
    // measured: ntfsinfo -i 5).
    used += cl(4140);
    // $Secure:$SDS: 256 KiB + the 0xfc-byte mirror of its first block.
    used += cl(0x40000 + 0xfc);
    // The root's first index block (upgrade_to_large_index).
    used += cl(INDX);
    if used >= nr {
        return Err(crate::Error::input(format!(
            "volume too small for clusters of {c} B (mkntfs cannot place its system files)"
        )));
    }
    Ok(Layout {
        clusters: nr,
        used,
        logfile: log,
    })
}

/// The index entries mkntfs puts in the root: "." and the 11 system files
/// ($AttrDef $BadClus $Bitmap $Boot $Extend $LogFile $MFT $MFTMirr $Secure
/// $UpCase $Volume), 1176 bytes in the one leaf block.
const ROOT_PRESET: (u64, u64) = (12, 1176);
/// The root's record after mkntfs: 512 bytes in use (measured: ntfsinfo -i 5).
const ROOT_RECORD_USED: u64 = 512;

/// What one directory adds to every NTFS config of one driver (see
/// [`NtfsModel::digest`]).
#[derive(Default)]
struct Shared {
    /// MFT records: one per name, plus symlinks' extension records.
    records: u64,
    /// Interix $DATA values too big even for an extension record.
    big_values: Vec<u64>,
    cost: IndexCost,
}

thread_local! {
    static DIGEST: std::cell::RefCell<super::Digest<Shared>> = std::cell::RefCell::default();
}

struct NtfsModel {
    cluster: u64,
    free: u64,
    /// The kernel's ntfs3 fills the volume (ntfs3.rs), not ntfs-3g.
    ntfs3: bool,
}

impl NtfsModel {
    /// Bytes an index of `blocks` 4 KiB blocks allocates: whole clusters.
    fn index_bytes(&self, blocks: u64) -> u64 {
        round_up(blocks * INDX, self.cluster)
    }

    /// Does a file's $DATA of `value` bytes stay in its record?
    fn resident(&self, name_len: u64, value: u64) -> bool {
        let less = if self.ntfs3 { ntfs3::RESIDENT_LESS } else { 0 };
        data_is_resident(name_len, value + less)
    }

    /// One directory's share for every cluster size: the non-resident
    /// files' sizes, the records and the index.
    fn digest(&self, dir: &Dir, d: &mut super::Digest<Shared>) {
        let mut names = Names {
            n: 0,
            bytes: 0,
            min: u64::MAX,
            max: 0,
        };
        for e in dir.entries {
            if !e.is_utf8() {
                continue;
            }
            let len = e.utf16_len as u64;
            let entry = index_entry(len);
            names.n += 1;
            names.bytes += entry;
            names.min = names.min.min(entry);
            names.max = names.max.max(entry);
            match e.kind {
                Kind::File => {
                    if !self.resident(len, e.size) {
                        d.sizes.push(e.size);
                    }
                }
                Kind::Symlink => {
                    // Interix symlink: "IntxLNK\1" + UTF-16 target in $DATA
                    // (dir.c __ntfs_create S_IFLNK), target length taken as
                    // its byte length. Added whole (attrib.c ntfs_attr_add):
                    // too big for the record, it goes to an extension record,
                    // non-resident beyond that (measured: 934 bytes resident
                    // there, 948 not).
                    let value = 8 + 2 * e.size;
                    if !data_is_resident(len, value) {
                        d.extra.records += 1;
                        if EXT_BASE + 0x18 + round_up(value, 8) > RECORD {
                            d.extra.big_values.push(value);
                        }
                    }
                }
                // Directories: accounted in their own call. FIFOs, sockets
                // and devices: interix $DATA of at most 24 bytes, resident.
                Kind::Dir | Kind::Other => {}
            }
        }
        d.extra.records += names.n;
        d.extra.cost = if dir.is_root && self.ntfs3 {
            ntfs3::root_index(&names)
        } else if dir.is_root {
            root_index(&names)
        } else {
            // The directory's own name (UTF-8: checked by the caller).
            let own = dir.name_utf16 as u64;
            if self.ntfs3 {
                ntfs3::dir_index(&names, own)
            } else {
                dir_index(&names, RECORD_BASE + file_name_attr(own))
            }
        };
    }

    /// Initial $MFT allocation (mkntfs_initialize_bitmaps).
    fn mft_initial(&self) -> u64 {
        round_up((27 * RECORD).max(self.cluster), self.cluster)
    }
}

impl Model for NtfsModel {
    fn free_bytes(&self) -> u64 {
        self.free
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        // A directory whose name is not UTF-8 was never created (ntfs-3g
        // refuses the name: EILSEQ), nor anything below it.
        if dir.rel_str.is_none() {
            return;
        }
        // Which files stay resident, the MFT records and the index do not
        // depend on the cluster size: worked out once per directory for
        // every NTFS config of the same driver.
        super::with_digest(
            &DIGEST,
            dir,
            self.ntfs3 as u64,
            |d| self.digest(dir, d),
            |d| {
                for &size in &d.sizes {
                    acc.add_content(size, self.cluster);
                }
                for &value in &d.extra.big_values {
                    acc.meta += round_up(value, self.cluster);
                }
                // One MFT record per name created; $MFT growth is in `finish`.
                acc.n[0] += d.extra.records;
                let cost = d.extra.cost;
                acc.meta += if dir.is_root && self.ntfs3 && cost.blocks > 0 {
                    // The root's $INDEX_ALLOCATION grows from mkntfs's first
                    // block, within its cluster first (measured: 8 blocks in
                    // one 64K cluster).
                    self.index_bytes(1 + cost.blocks) - self.index_bytes(1)
                } else {
                    self.index_bytes(cost.blocks)
                };
                acc.meta += (cost.clusters * self.cluster as f64).round() as u64;
                // Expected extension records, in 1/1024ths.
                acc.n[1] += (cost.records * 1024.0).round() as u64;
            },
        )
    }

    fn finish(&self, acc: &Acc) -> Sizes {
        let records = acc.n[0] + (acc.n[1] + 512) / 1024;
        let mut meta = acc.meta;
        if self.ntfs3 {
            meta += ntfs3::mft_growth(self.mft_initial(), records, self.cluster);
        } else if records > 0 {
            // Records 64.. are used (mft.c ntfs_mft_bitmap_find_free_rec);
            // $MFT/$DATA grows by 16 records or one cluster, whichever is
            // larger (mft.c ntfs_mft_data_extend_allocation).
            let need = (RESERVED_RECORDS + records) * RECORD;
            let init = self.mft_initial();
            if need > init {
                let chunk = (16 * RECORD).max(self.cluster);
                meta += round_up(need - init, chunk);
            }
            // $MFT/$BITMAP: 8 bytes per 64 records, grown a cluster at a time
            // from the one mkntfs allocates (mft.c ntfs_mft_bitmap_extend_*).
            let bitmap = 8 * (RESERVED_RECORDS + records).div_ceil(64);
            meta += (bitmap.div_ceil(self.cluster) - 1) * self.cluster;
        }
        Sizes {
            data_bytes: acc.data,
            slack_bytes: acc.slack,
            metadata_bytes: meta,
        }
    }
}

pub const INFO: FsInfo = FsInfo {
    name: "ntfs",
    title: "NTFS",
    exact: true,
    limits: Limits {
        // NTFS file sizes are 64-bit (layout.h ATTR_RECORD data_size).
        max_file_bytes: u64::MAX,
        // Windows' view: case-insensitive names, Win32 name rules,
        // MAX_PATH (ntfs-3g itself stores POSIX names).
        case_insensitive: true,
        windows_names: true,
        name_max_utf16: Some(255),
        name_max_bytes: None,
        path_max: Some(260),
        // ntfs-3g stores symlinks, FIFOs, sockets and devices as interix
        // files (dir.c __ntfs_create).
        symlinks: true,
        special_files: true,
        from_1980: false,
        mtime_2s: false,
    },
    drivers: Drivers {
        kernel: Some("ntfs3"),
        kernel_modules: &["ntfs3"],
        fuse: Some(FuseDriver {
            program: "ntfs-3g",
            args: &[],
            slow: false,
            defers_writes: false,
            // ntfs-3g passes `sync` on to the mount: findmnt shows it.
            sync_ignored: None,
        }),
        windows: Some("ntfs"),
        // None known. (Mounted `sync`, ntfs3 of Linux 6.12.95 read 7 to 9 of
        // 20 files back different after a remount in the QEMU lab; the
        // policy mounts `dirsync` and writes files O_SYNC instead, and
        // every read-back of the DiskBoss seed's workloads under it matched:
        // docs/VALIDATION.md.)
        kernel_sync: None,
    },
    mount_options: &["sync"],
    // udisks2 data/builtin_mount_options.conf: `ntfs3_defaults` for the
    // kernel's ntfs3, `ntfs_defaults` for ntfs-3g (which udisks2 mounts as
    // type ntfs when ntfs3 is missing).
    desktop_options: super::DesktopOptions {
        kernel: &["uid=$UID", "gid=$GID"],
        fuse: &["uid=$UID", "gid=$GID", "windows_names"],
    },
    copies_mount: Some(""),
    label_flag: "-L",
    formats: Formats {
        windows: Some("NTFS"),
        windows_note: None,
        macos: None,
    },
    robustness: "journaled metadata: survives unplugging better than FAT/exFAT",
    checker: Some(Checker {
        // ntfs-3g's only checker: it checks $MFT/$MFTMirr, the boot sectors
        // and the dirty flag, far less than chkdsk; that is what Linux has.
        program: "ntfsfix",
        check_args: &["-n"],
        repair_args: &["-d"],
        repair_stdin: "",
        // ntfsfix: 0 when the volume is fine (or was fixed), 1 otherwise.
        exit_codes: ExitCodes::ZeroClean,
    }),
    preference: 2,
    signature: probe::SIGNATURE,
};

impl Filesystem for Ntfs {
    /// ntfs-3g keeps holes (measured: a 1 GiB file of 5 data bytes copied
    /// with cp took 52 KiB of a fresh volume, an all-hole one nothing);
    /// ntfs3 creates files non-sparse unless mounted with `sparse`, and
    /// fills them (not measured here: modelled as filled).
    fn keeps_holes(&self, driver: super::DriverKind) -> bool {
        driver == super::DriverKind::Fuse
    }
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // mkntfs: -Q quick (no zeroing), -F force on a non-partition, -c cluster size.
        Some(super::argv(&[
            "mkntfs",
            "-Q",
            "-F",
            "-q",
            "-c",
            &cluster.to_string(),
        ]))
    }
    fn format(&self, p: &crate::fs::FormatParams) -> crate::Result<crate::fs::FormatCmd> {
        // -p: the partition start (hidden sectors), which mkntfs writes to
        // the boot sector (Windows boots and checks with it).
        let mut argv = self
            .mkfs(p.cluster)
            .ok_or_else(|| crate::Error::work("no mkfs"))?;
        argv.extend(["-p".to_string(), (p.start_bytes / 512).to_string()]);
        if let Some(l) = p.label {
            argv.extend(super::label_args(self.info(), l));
        }
        Ok(crate::fs::FormatCmd {
            argv,
            data_offset: Some(0),
        })
    }
    fn partition_type(&self) -> crate::fs::PartType {
        crate::fs::PartType::WINDOWS
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        // Windows takes NTFS labels of up to 32 characters (mkntfs keeps
        // 128 UTF-16 units, but blkid 2.38 misreads labels of 64 and more).
        crate::fs::LabelRule {
            max_utf16: Some(32),
            ..crate::fs::LabelRule::ANY
        }
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // 512-byte sectors: 1 to 128 sectors, at most 64 KiB
        // (mkntfs.c mkntfs_override_vol_params).
        (512, 65536)
    }
    fn default_cluster(&self, volume: u64) -> u64 {
        // 4096, doubled while the cluster count needs more than 32 bits
        // (mkntfs.c mkntfs_override_vol_params).
        let bytes = (volume / SECTOR).saturating_sub(1) * SECTOR;
        let mut c = 4096u64;
        while c < 65536 && bytes >> (c.trailing_zeros() + 32) != 0 {
            c <<= 1;
        }
        c
    }
    fn sweep(&self, volume: u64) -> Vec<u64> {
        let mut v = powers_of_two(512, 65536);
        let d = self.default_cluster(volume);
        if !v.contains(&d) {
            v.push(d);
        }
        v
    }
    fn exact_with(&self, driver: super::DriverKind) -> bool {
        // ntfs3 is checked too (tests/it/lab.rs), but within about 1 %.
        driver == super::DriverKind::Fuse
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        self.model_with(volume, cluster, super::DriverKind::Fuse)
    }
    /// Windows' ntfs.sys gets the ntfs-3g layout. From Microsoft's NTFS
    /// documentation (learn.microsoft.com, "Master File Table"): a file
    /// record segment per file, 1 KiB on the volumes Windows formats, data
    /// resident in it while it fits (about 700 bytes of a 1 KiB record),
    /// directory indexes in 4 KiB index buffers. Assumed equal to ntfs-3g,
    /// not checked against a volume Windows filled: the size of a file's
    /// record and of its $I30 entries (no 8.3 short names: Windows 8 and
    /// later create none on volumes other than the system drive), the
    /// resident limit, how an index grows, and that an MFT record costs
    /// space only as the MFT grows. Not modelled: the MFT zone Windows keeps
    /// free beside the MFT (12.5 % of the volume, given to files last),
    /// which changes where data goes, not how much.
    fn model_with(
        &self,
        volume: u64,
        cluster: u64,
        driver: super::DriverKind,
    ) -> crate::Result<Box<dyn Model>> {
        let l = layout(volume, cluster)?;
        Ok(Box::new(NtfsModel {
            cluster,
            free: (l.clusters - l.used) * cluster,
            ntfs3: driver == super::DriverKind::Kernel,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(volume: u64, cluster: u64) -> u64 {
        let l = layout(volume, cluster).unwrap();
        (l.clusters - l.used) * cluster
    }

    #[test]
    fn free_matches_mkntfs() {
        // measured: mkntfs -Q, $Bitmap bits below the cluster count.
        assert_eq!(free(100 << 20, 4096), 102_293_504);
        assert_eq!(free(100 << 20, 512), 102_288_896);
        assert_eq!(free(100 << 20, 65536), 101_711_872);
        assert_eq!(free(2 << 20, 512), 1_388_544);
        assert_eq!(free(1 << 30, 4096), 1_067_880_448);
        assert_eq!(free(5 << 30, 8192), 5_341_298_688);
        assert_eq!(free(12_345_678_901, 2048), 12_282_744_832);
        assert_eq!(free(16 << 30, 65536), 17_111_711_744);
        assert_eq!(free(2 << 40, 512), 2_198_418_829_824);
    }

    #[test]
    fn refusals() {
        assert!(layout(1 << 20, 4096).is_err());
        assert!(layout((1 << 20) + 512, 65536).is_err());
        assert!(layout(1_500_000, 65536).is_ok());
        assert!(layout(3 << 40, 512).is_err());
        assert!(layout(100 << 20, 131072).is_err());
    }

    #[test]
    fn logfile_size() {
        assert_eq!(layout(100 << 20, 4096).unwrap().logfile, 2 << 20);
        assert_eq!(layout(1 << 30, 4096).unwrap().logfile, 5_365_760);
        assert_eq!(layout(16 << 30, 4096).unwrap().logfile, 64 << 20);
    }

    #[test]
    fn default_cluster() {
        assert_eq!(Ntfs.default_cluster(64 << 30), 4096);
        assert_eq!(Ntfs.default_cluster(16 << 40), 4096);
        assert_eq!(Ntfs.default_cluster((16 << 40) + 1024), 8192);
        assert_eq!(Ntfs.default_cluster(100 << 40), 32768);
    }

    #[test]
    fn resident_threshold() {
        // measured: 8-unit names, 648 bytes resident, 649 not.
        assert!(data_is_resident(8, 648));
        assert!(!data_is_resident(8, 649));
        assert!(data_is_resident(3, 664));
    }

    #[test]
    fn index_blocks_ascending() {
        // measured: 12-unit names (112-byte entries) in a directory named
        // with 5 units: 1 block from 5 entries, splits at 36, 54, a node at 72.
        let blocks =
            |n: u64| dir_index(&Names::uniform(n, 112), RECORD_BASE + file_name_attr(5)).blocks;
        let got: Vec<u64> = [4, 5, 35, 36, 53, 54, 71, 72, 90, 126, 3000]
            .iter()
            .map(|&n| blocks(n))
            .collect();
        assert_eq!(got, [0, 1, 1, 2, 2, 3, 3, 5, 6, 8, 176]);
        // The volume root: splits at 26, 43, 61, a node at 79.
        let root = |n: u64| root_index(&Names::uniform(n, 112)).blocks;
        let got: Vec<u64> = [25, 26, 42, 43, 60, 61, 78, 79, 96, 97]
            .iter()
            .map(|&n| root(n))
            .collect();
        assert_eq!(got, [0, 1, 1, 2, 2, 3, 3, 5, 5, 6]);
        // measured: 136-byte entries: splits at 30, 45, a node at 60;
        // 104-byte entries: splits at 39, 59, 79, a node at 99.
        let b136 =
            |n: u64| dir_index(&Names::uniform(n, 136), RECORD_BASE + file_name_attr(5)).blocks;
        assert_eq!([29, 30, 44, 45, 59, 60].map(b136), [1, 2, 2, 3, 3, 5]);
        let b104 =
            |n: u64| dir_index(&Names::uniform(n, 104), RECORD_BASE + file_name_attr(5)).blocks;
        assert_eq!([38, 39, 58, 59, 98, 99].map(b104), [1, 2, 2, 3, 4, 6]);
    }

    #[test]
    fn full_record_pushes_attributes_out() {
        // measured: "names" holding a 456-byte entry, then a 448-byte one:
        // $SECURITY_DESCRIPTOR and $ATTRIBUTE_LIST non-resident, the root in
        // an extension record, one index block.
        let names = Names {
            n: 2,
            bytes: 904,
            min: 448,
            max: 456,
        };
        let c = dir_index(&names, RECORD_BASE + file_name_attr(5));
        assert_eq!(c.blocks, 1);
        // Names of unequal length: an expected share of the push-out.
        let p_sd = 32.0 / 452.0;
        let p_full = (452.0 - 152.0) / 452.0;
        assert!((c.clusters - p_sd - 2.0 * p_full).abs() < 1e-9);
        assert!((c.records - p_full).abs() < 1e-9);
        // measured: 208-byte entries, the third one: only the SD goes.
        let c = dir_index(&Names::uniform(3, 208), RECORD_BASE + file_name_attr(7));
        assert_eq!((c.blocks, c.clusters, c.records), (1, 1.0, 0.0));
        // Equal lengths: certain (a 456-byte entry fits, a second cannot).
        let c = dir_index(&Names::uniform(2, 456), RECORD_BASE + file_name_attr(5));
        assert_eq!((c.blocks, c.clusters, c.records), (1, 2.0, 1.0));
        // Short names never push anything out (the 120 bytes are kept free).
        let c = dir_index(&Names::uniform(3000, 120), RECORD_BASE + file_name_attr(5));
        assert_eq!((c.clusters, c.records), (0.0, 0.0));
    }
}
