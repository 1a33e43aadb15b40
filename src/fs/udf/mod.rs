//! UDF 2.01 as `mkudffs --media-type=hd` (udftools 2.3) lays it out and as
//! the Linux udf driver fills it with its default mount options. There is no
//! udf driver on the test machine: free space is checked against mkudffs's
//! own integrity descriptor (udfinfo), the per-file rules against udfclient
//! (a userland UDF writer), which embeds data only below bs − 216 bytes where
//! Linux embeds up to bs − 216.

pub mod probe;

use super::{powers_of_two, round_up, Acc, Drivers, Filesystem, Formats, FsInfo, Limits, Model};
use crate::scan::{Dir, Entry, Kind};
use std::ffi::OsStr;

pub struct Udf;

/// Fixed part of an Extended File Entry (ECMA-167 4/14.17); Linux uses EFEs
/// on UDF ≥ 2.00 (super.c: minUDFReadRev ≥ UDF_VERS_USE_EXTENDED_FE) and
/// creates them without extended attributes (ialloc.c: i_lenEAttr = 0).
const EFE: u64 = 216;
/// Fixed part of a File Identifier Descriptor (ECMA-167 4/14.4); Linux
/// writes no implementation use (namei.c: lengthOfImpUse = 0) and pads the
/// descriptor to 4 bytes (UDF_NAME_PAD).
const FID: u64 = 38;
/// The parent-directory FID every directory starts with: 38 bytes, padded.
const PARENT_FID: u64 = 40;
/// long_ad (ECMA-167 4/14.14.2): Linux's default allocation descriptor
/// (inode.c: no "shortad" option → ICBTAG_FLAG_AD_LONG).
const LONG_AD: u64 = 16;
/// Allocation Extent Descriptor header (ECMA-167 4/14.5).
const AED: u64 = 24;
/// Largest extent: UDF_EXTENT_LENGTH_MASK, 2^30 − 1 bytes.
const MAX_EXTENT: u64 = 0x3FFF_FFFF;
/// Longest name the driver looks up (udfdecl.h: UDF_NAME_LEN) and longest
/// OSTA CS0 name it writes (UDF_NAME_LEN_CS0).
const NAME_LEN: usize = 254;
const NAME_LEN_CS0: u64 = 255;
/// Linux s_maxbytes for UDF (super.c: UDF_MAX_FILESIZE = 1 << 42).
const MAX_FILE: u64 = 1 << 42;
/// Below this many blocks mkudffs places its descriptors differently
/// (mkudffs.c split_space: "blocks < 770"); fsfit does not model that.
const MIN_BLOCKS: u64 = 770;

/// Free blocks of a fresh `mkudffs --media-type=hd --blocksize=bs` volume, as
/// the Logical Volume Integrity Descriptor records them (udfinfo freeblocks).
pub(crate) fn free_blocks(volume: u64, bs: u64) -> Option<u64> {
    // mkudffs caps a volume at 2^32 − 1 blocks ("Disk is too big").
    let n = (volume / bs).min(u32::MAX as u64);
    if n < MIN_BLOCKS {
        return None;
    }
    // The partition runs from block 257 (after the anchor at 256) to the
    // anchor at N − 257, or for fewer than 3072 blocks to the reserve volume
    // descriptor sequence at N − 17; measured: mkudffs 2.3 rounds its length
    // down to a multiple of 8 blocks.
    let span = if n >= 3072 { n - 514 } else { n - 274 };
    let partition = span & !7;
    // In it: the unallocated-space bitmap (24-byte header + one bit per
    // block), the File Set Descriptor, the system stream directory (UDF ≥
    // 2.00) and the root directory's EFE (mkudffs.c setup_space,
    // setup_fileset, setup_root).
    let bitmap = (AED + partition.div_ceil(8)).div_ceil(bs);
    Some(partition - bitmap - 3)
}

/// Length of a name in OSTA Compressed Unicode as Linux writes it
/// (unicode.c udf_name_to_CS0): one compression-ID byte, then one byte per
/// character if all are ≤ U+00FF, else two per UTF-16 unit. Invalid UTF-8
/// bytes become '?' one by one. None when the name cannot be stored.
fn cs0_len(name: &OsStr) -> Option<u64> {
    let b = name.as_encoded_bytes();
    if b.len() > NAME_LEN || b.is_empty() {
        return None;
    }
    if b.is_ascii() {
        // Most names: one byte per character, none above U+00FF.
        let len = 1 + b.len() as u64;
        return (len <= NAME_LEN_CS0).then_some(len);
    }
    // (characters, UTF-16 units, any character above U+00FF)
    let (mut chars, mut units, mut wide) = (0u64, 0u64, false);
    let mut count = |s: &str| {
        // In valid UTF-8 a character above U+00FF starts with a byte ≥ 0xC4.
        wide |= s.bytes().any(|c| c >= 0xC4);
        if s.is_ascii() {
            chars += s.len() as u64;
            units += s.len() as u64;
        } else {
            for c in s.chars() {
                chars += 1;
                units += c.len_utf16() as u64;
            }
        }
    };
    let mut rest = b;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                count(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                count(std::str::from_utf8(good).unwrap());
                count("?");
                rest = &bad[1..];
            }
        }
    }
    let len = if wide { 1 + 2 * units } else { 1 + chars };
    (len <= NAME_LEN_CS0).then_some(len)
}

/// Bytes of the FID naming an entry, or None when Linux refuses the name.
fn fid_len(e: &Entry) -> Option<u64> {
    cs0_len(e.name()).map(|l| round_up(FID + l, 4))
}

/// Can every component of this directory's path be created?
fn path_storable(dir: &Dir) -> bool {
    // An ASCII path shorter than the longest name: every name in it is
    // storable (one CS0 byte a character), said without splitting it.
    if dir
        .rel_str
        .is_some_and(|r| r.is_ascii() && r.len() < NAME_LEN)
    {
        return true;
    }
    dir.rel.iter().all(|c| cs0_len(c).is_some())
}

struct UdfModel {
    bs: u64,
    free_blocks: u64,
}

impl UdfModel {
    /// Data embedded in the EFE up to bs − 216 bytes: files start "in ICB"
    /// (default mount option adinicb) and move to blocks only when a write
    /// goes past that (file.c udf_file_write_iter, namei.c for directories).
    fn inline_max(&self) -> u64 {
        self.bs - EFE
    }

    /// Blocks of Allocation Extent Descriptors a file or directory needs for
    /// `extents` long_ads: the EFE takes them while two more would still fit
    /// (inode.c udf_add_aext), then each AED block does the same.
    fn aed_blocks(&self, extents: u64) -> u64 {
        let in_efe = (self.bs - EFE - 2 * LONG_AD) / LONG_AD + 1;
        let in_aed = (self.bs - AED - 2 * LONG_AD) / LONG_AD + 1;
        extents.saturating_sub(in_efe).div_ceil(in_aed)
    }
}

impl Model for UdfModel {
    /// udf_statfs: f_bfree = the free-space count of the integrity descriptor.
    fn free_bytes(&self) -> u64 {
        self.free_blocks * self.bs
    }

    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        // The names' CS0 encoding (the costly part) does not depend on the
        // block size: worked out once per directory for every UDF config.
        // Digest: `sizes` holds each entry's FID length (0: not storable),
        // `stored` whether the directory itself can be created.
        super::with_digest(
            &DIGEST,
            dir,
            0,
            |d| {
                // cp cannot create a directory with a name Linux refuses, nor anything below it.
                d.stored = path_storable(dir);
                if d.stored {
                    d.sizes
                        .extend(dir.entries.iter().map(|e| fid_len(e).unwrap_or(0)));
                }
            },
            |d| self.add_digested(dir, d, acc),
        )
    }
}

thread_local! {
    static DIGEST: std::cell::RefCell<super::Digest> = std::cell::RefCell::default();
}

impl UdfModel {
    fn add_digested(&self, dir: &Dir, d: &super::Digest, acc: &mut Acc) {
        if !d.stored {
            return;
        }
        let bs = self.bs;
        let inline = self.inline_max();
        // Files up to this size are one extent, whose long_ad the EFE holds.
        let one_extent = MAX_EXTENT / bs * bs;
        let mut fids = PARENT_FID;
        for (e, &fid) in dir.entries.iter().zip(&d.sizes) {
            if fid == 0 {
                continue;
            }
            match e.kind {
                Kind::File => {
                    if e.size > MAX_FILE {
                        continue;
                    }
                    // One EFE block per file (ialloc.c udf_new_inode).
                    acc.meta += bs;
                    if e.size > inline {
                        acc.add_content(e.size, bs);
                        // A fresh volume gives a file contiguous blocks, cut
                        // into extents of at most 2^30 − bs bytes.
                        if e.size > one_extent {
                            let blocks = e.size.div_ceil(bs);
                            let extents = blocks.div_ceil(MAX_EXTENT / bs);
                            acc.meta += self.aed_blocks(extents) * bs;
                        }
                    }
                }
                Kind::Symlink => {
                    // namei.c udf_symlink: the target, as path components
                    // (4-byte header + CS0 name each), must fit in the EFE;
                    // estimated as one component. Longer ones fail.
                    if e.size + 5 > inline {
                        continue;
                    }
                    acc.meta += bs;
                }
                // FIFOs, sockets, devices (device numbers go in the EFE's
                // extended attributes): one EFE.
                Kind::Other => acc.meta += bs,
                Kind::Dir => {}
            }
            fids += fid;
        }
        // The directory's own EFE (the root's exists already).
        if !dir.is_root {
            acc.meta += bs;
        }
        // FIDs stay in the EFE while they fit, then take whole blocks; FIDs
        // may straddle blocks (namei.c udf_fiiter_add_entry). Each new block
        // is allocated after the files created meanwhile, so every block is
        // its own extent (no preallocation for directories).
        if fids > inline {
            let blocks = fids.div_ceil(bs);
            acc.meta += (blocks + self.aed_blocks(blocks)) * bs;
        }
    }
}

pub const INFO: FsInfo = FsInfo {
    name: "udf",
    title: "UDF",
    // tests/it/lab.rs: mkudffs + the kernel's udf driver in user-mode
    // Linux, free_bytes and tree_bytes to the byte.
    exact: true,
    limits: Limits {
        max_file_bytes: MAX_FILE,
        case_insensitive: false,
        // Windows reads UDF and refuses what its name rules forbid.
        windows_names: true,
        name_max_utf16: None,
        // UDF_NAME_LEN; non-Latin-1 names are also limited to 127 UTF-16 units.
        name_max_bytes: Some(NAME_LEN as u32),
        path_max: None,
        symlinks: true,
        special_files: true,
        from_1980: false,
        mtime_2s: false,
    },
    drivers: Drivers {
        kernel: Some("udf"),
        kernel_modules: &["udf"],
        fuse: None,
        windows: None,
        kernel_sync: None,
    },
    mount_options: &["sync"],
    // udisks2 data/builtin_mount_options.conf `udf_defaults`.
    desktop_options: super::DesktopOptions {
        kernel: &["uid=$UID", "gid=$GID", "iocharset=utf8"],
        fuse: &[],
    },
    copies_mount: Some(""),
    label_flag: "--label=",
    formats: Formats {
        windows: Some("UDF"),
        windows_note: None,
        macos: None,
    },
    robustness: "no journal on hard-disk media; few fsck tools",
    // No UDF checker exists on Linux (udftools has none; the exFAT-vs-UDF stick test found none
    // on Windows either that repairs): `fsfit crash` reports that as a result.
    checker: None,
    preference: 10,
    signature: probe::SIGNATURE,
};

impl Filesystem for Udf {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        Some(super::argv(&[
            "mkudffs",
            "--media-type=hd",
            &format!("--blocksize={cluster}"),
        ]))
    }
    fn format(&self, p: &crate::fs::FormatParams) -> crate::Result<crate::fs::FormatCmd> {
        let mut argv = self
            .mkfs(p.cluster)
            .ok_or_else(|| crate::Error::work("no mkfs"))?;
        // mkudffs's default on a fixed whole disk is an MBR in the boot
        // area; a drive for Windows wants none unless asked (--table mbr).
        argv.push(if p.mbr_boot_area {
            "--bootarea=mbr".to_string()
        } else {
            "--bootarea=erase".to_string()
        });
        if let Some(l) = p.label {
            argv.extend(super::label_args(self.info(), l));
        }
        Ok(crate::fs::FormatCmd {
            argv,
            data_offset: None,
        })
    }
    fn partition_type(&self) -> crate::fs::PartType {
        // What Windows expects of a UDF drive: the whole device, no table.
        crate::fs::PartType {
            whole_device: true,
            ..crate::fs::PartType::WINDOWS
        }
    }
    fn label_rule(&self) -> crate::fs::LabelRule {
        // mkudffs --label sets the volume identifier too: a 32-byte
        // dstring, 30 characters in 8-bit CS0 (15 beyond U+00FF); a longer
        // label is cut there in the volume identifier, which some systems
        // show, so fsfit keeps to 30 bytes.
        crate::fs::LabelRule {
            max_bytes: Some(30),
            ..crate::fs::LabelRule::ANY
        }
    }
    fn info(&self) -> &'static FsInfo {
        &INFO
    }
    fn cluster_range(&self) -> (u64, u64) {
        // mkudffs takes 512 … 32768, the Linux driver mounts 512 … 4096.
        (512, 4096)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        // mkudffs: the device's logical sector size, 512 for image files and
        // USB drives.
        512
    }
    fn sweep(&self, _volume: u64) -> Vec<u64> {
        powers_of_two(512, 4096)
    }
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>> {
        let (lo, hi) = self.cluster_range();
        if !cluster.is_power_of_two() || cluster < lo || cluster > hi {
            return Err(crate::Error::input(format!(
                "UDF blocks are 512 B … 4 KiB, not {cluster}"
            )));
        }
        let free_blocks = free_blocks(volume, cluster).ok_or_else(|| {
            crate::Error::input(format!(
                "fsfit models UDF volumes of at least {MIN_BLOCKS} blocks"
            ))
        })?;
        Ok(Box::new(UdfModel {
            bs: cluster,
            free_blocks,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::path::Path;

    fn entry(name: &str, kind: Kind, size: u64) -> Entry {
        Entry::new(OsString::from(name), kind, size, 1_700_000_000)
    }

    fn model(bs: u64) -> UdfModel {
        UdfModel {
            bs,
            free_blocks: free_blocks(1 << 30, bs).unwrap(),
        }
    }

    fn add(m: &UdfModel, rel: &str, root: bool, entries: &[Entry]) -> Acc {
        let mut acc = Acc::default();
        m.add_dir(&Dir::new(Path::new(rel), root, entries), &mut acc);
        acc
    }

    #[test]
    fn free_space_matches_mkudffs() {
        // measured: mkudffs 2.3 --media-type=hd --blocksize=BS, udfinfo freeblocks.
        for (bs, volume, free) in [
            (512u64, 1u64 << 20, 1764u64),
            (512, 2 << 20, 3572),
            (512, 10 << 20, 19952),
            (512, 64 << 20, 130517),
            (512, 100 << 20, 204227),
            (512, 1 << 30, 2096117),
            (512, 4 << 30, 8386037),
            (512, 64 << 30, 134184437),
            (512, 1 << 40, 2146958837),
            (512, 2 << 40, 4293918197), // capped at 2^32 − 1 blocks
            (512, 3 << 40, 4293918197),
            (1024, 1 << 20, 740),
            (1024, 10 << 20, 9715),
            (1024, 1 << 30, 1047925),
            (1024, 3 << 40, 3220831733),
            (2048, 2 << 20, 740),
            (2048, 64 << 20, 32243),
            (2048, 16 << 30, 8387573),
            (2048, 3 << 40, 1610513909),
            (4096, 10 << 20, 2276),
            (4096, 100 << 20, 25076),
            (4096, 64 << 30, 16776181),
            (4096, 3 << 40, 805281269),
            (512, 770 * 512, 492),
            (512, 3071 * 512, 2788),
            (512, 3072 * 512, 2548),
            (4096, 1000 * 4096, 716),
        ] {
            assert_eq!(free_blocks(volume, bs), Some(free), "{bs} {volume}");
        }
        assert_eq!(free_blocks(769 * 512, 512), None);
        assert!(Udf.model(300 << 10, 512).is_err());
        assert!(Udf.model(1 << 30, 8192).is_err());
    }

    #[test]
    fn names_in_cs0() {
        let len = |s: &str| cs0_len(OsStr::new(s));
        assert_eq!(len("a"), Some(2));
        assert_eq!(len("résumé"), Some(7)); // Latin-1: 8 bits per character
        assert_eq!(len("ファイル"), Some(9)); // 16 bits per character
        assert_eq!(len("😀"), Some(5)); // a surrogate pair
        assert_eq!(len(&"a".repeat(254)), Some(255));
        assert_eq!(len(&"a".repeat(255)), None); // over UDF_NAME_LEN
        assert_eq!(len(&"é".repeat(127)), Some(128)); // 254 bytes of UTF-8
        assert_eq!(len(&format!("{}€", "a".repeat(126))), Some(255));
        assert_eq!(len(&format!("{}€", "a".repeat(127))), None); // 257 bytes of CS0
                                                                 // Only Unix names hold bytes that are not UTF-8.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let raw = OsString::from_vec(vec![b'a', 0xff, 0xfe, b'b']);
            assert_eq!(cs0_len(&raw), Some(5)); // each bad byte becomes '?'
        }
        assert_eq!(fid_len(&entry("a", Kind::File, 0)), Some(40));
        assert_eq!(fid_len(&entry("abc", Kind::File, 0)), Some(44));
    }

    #[test]
    fn files_and_inline_data() {
        for bs in [512u64, 1024, 2048, 4096] {
            let m = model(bs);
            let entries = [
                entry("empty", Kind::File, 0),
                entry("inline", Kind::File, bs - 216),
                entry("block", Kind::File, bs - 215),
                entry("two", Kind::File, bs + 1),
            ];
            let acc = add(&m, "", true, &entries);
            // Four EFEs; data for the last two only.
            assert_eq!(acc.data, 3 * bs, "{bs}");
            assert_eq!(acc.slack, 3 * bs - (bs - 215) - (bs + 1));
            // 40 + 44 + 48 + 44 + 44 = 220 bytes of FIDs stay in the root's EFE.
            assert_eq!(acc.meta, 4 * bs, "{bs}");
        }
    }

    #[test]
    fn directories() {
        let m = model(512);
        // An empty directory: its EFE, the parent FID inside it.
        assert_eq!(add(&m, "d", false, &[]).meta, 512);
        // 1-character names: 40-byte FIDs; 6 fit with the parent FID in the
        // 296 bytes of a 512-byte EFE, the 7th moves them to a block
        // (measured with udfclient: 7 and 9 blocks).
        let names: Vec<Entry> = "abcdefg"
            .chars()
            .map(|c| entry(&c.to_string(), Kind::File, 0))
            .collect();
        assert_eq!(add(&m, "d", false, &names[..6]).meta, 7 * 512);
        assert_eq!(add(&m, "d", false, &names).meta, 9 * 512);
        // A big directory: its blocks, plus extent blocks once its 17
        // long_ads no longer fit in the EFE (29 per AED block).
        let many: Vec<Entry> = (0..1000)
            .map(|i| entry(&format!("file_{i:05}.txt"), Kind::Dir, 0))
            .collect();
        let fids = 40 + 1000 * 56;
        let blocks = (fids as u64).div_ceil(512);
        let aed = (blocks - 17).div_ceil(29);
        assert_eq!(add(&m, "d", false, &many).meta, (1 + blocks + aed) * 512);
        // A subdirectory whose name Linux refuses is not copied, nor its contents.
        let long = "x".repeat(255);
        assert_eq!(add(&m, &format!("a/{long}/b"), false, &names).meta, 0);
    }

    #[test]
    fn links_and_specials() {
        let m = model(512);
        let entries = [
            entry("l", Kind::Symlink, 10),
            entry("too_long", Kind::Symlink, 400),
            entry("fifo", Kind::Other, 0),
        ];
        let acc = add(&m, "", true, &entries);
        assert_eq!(acc.meta, 2 * 512);
        assert_eq!(acc.data, 0);
    }

    #[test]
    fn big_files_need_extent_blocks() {
        let m = model(512);
        // 17 extents of 2^30 − 512 bytes fit in a 512-byte EFE, the 18th needs an AED.
        let ext = (MAX_EXTENT / 512) * 512;
        let fits = add(&m, "", true, &[entry("f", Kind::File, 17 * ext)]);
        let more = add(&m, "", true, &[entry("f", Kind::File, 17 * ext + 1)]);
        assert_eq!(fits.meta, 512);
        assert_eq!(more.meta, 2 * 512);
        assert_eq!(m.aed_blocks(17 + 29), 1);
        assert_eq!(m.aed_blocks(17 + 30), 2);
        assert_eq!(model(4096).aed_blocks(241), 0);
        // add_digested skips files of one extent: the EFE always holds one.
        for bs in [512, 1024, 2048, 4096] {
            assert_eq!(model(bs).aed_blocks(1), 0, "{bs}");
        }
    }

    #[test]
    fn limits_and_clusters() {
        let l = Udf.info().limits;
        assert!(l.windows_names && !l.case_insensitive && l.symlinks);
        assert_eq!(l.max_file_bytes, 1 << 42);
        assert_eq!(Udf.default_cluster(64 << 30), 512);
        assert_eq!(Udf.sweep(64 << 30), vec![512, 1024, 2048, 4096]);
    }
}
