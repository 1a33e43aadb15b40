//! Everything fsfit knows about each filesystem, one file per filesystem, all
//! behind the [`Filesystem`] trait. Adding a filesystem means adding a file
//! here and a line to [`all`].

pub mod btrfs;
pub mod exfat;
pub mod ext4;
pub mod f2fs;
pub mod fat;
pub mod ntfs;
pub mod udf;
pub mod xfs;

use crate::scan::Dir;

/// The size-on-disk figures of one config, as the JSON contract names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Bytes of clusters holding file contents.
    pub data_bytes: u64,
    /// Unused tails of those clusters.
    pub slack_bytes: u64,
    /// Everything else the copy takes: directories, MFT records, inodes, ...
    pub metadata_bytes: u64,
}

impl Sizes {
    pub fn tree_bytes(&self) -> u64 {
        self.data_bytes + self.metadata_bytes
    }
}

/// Counters one config accumulates while the walk streams directories. They
/// only ever add up, so each walker thread keeps its own and they are summed
/// at the end; what is not additive (MFT growth, say) is done in
/// [`Model::finish`] from the counters in `n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acc {
    pub data: u64,
    pub slack: u64,
    pub meta: u64,
    /// Free for each model's own counts (records, inodes, ...).
    pub n: [u64; 4],
}

impl Acc {
    pub fn add(&mut self, o: &Acc) {
        self.data += o.data;
        self.slack += o.slack;
        self.meta += o.meta;
        for (a, b) in self.n.iter_mut().zip(o.n.iter()) {
            *a += b;
        }
    }

    /// Account a file's contents stored in whole units of `unit` bytes.
    pub fn add_content(&mut self, size: u64, unit: u64) {
        let on_disk = round_up(size, unit);
        self.data += on_disk;
        self.slack += on_disk - size;
    }
}

/// One filesystem at one volume size and cluster size: what mkfs leaves free
/// and what a copied tree takes.
pub trait Model: Send + Sync {
    /// statvfs `f_bfree × f_frsize` of the fresh, empty volume.
    fn free_bytes(&self) -> u64;
    /// Account one directory: its own storage and the storage of each of its
    /// entries' contents (files, symlinks). Called once per directory,
    /// including the root, from several threads at once (each with its own
    /// `acc`).
    fn add_dir(&self, dir: &Dir, acc: &mut Acc);
    /// The final figures from the summed counters.
    fn finish(&self, acc: &Acc) -> Sizes {
        Sizes {
            data_bytes: acc.data,
            slack_bytes: acc.slack,
            metadata_bytes: acc.meta,
        }
    }
}

/// What a filesystem can store, for the compatibility findings.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest file in bytes.
    pub max_file_bytes: u64,
    /// Names that differ only in case collide (FAT, exFAT, NTFS).
    pub case_insensitive: bool,
    /// Windows' name rules: no `" * / : < > ? \ |`, control characters,
    /// trailing dot or space; names must be valid Unicode.
    pub windows_names: bool,
    /// Longest name in UTF-16 code units, if limited that way.
    pub name_max_utf16: Option<u32>,
    /// Longest name in bytes, if limited that way.
    pub name_max_bytes: Option<u32>,
    /// Longest path Windows programs handle (MAX_PATH), if it applies.
    pub path_max: Option<u32>,
    /// Can store symlinks.
    pub symlinks: bool,
    /// Can store FIFOs, sockets and device nodes.
    pub special_files: bool,
    /// DOS timestamps (FAT, exFAT): nothing before 1980-01-01.
    pub from_1980: bool,
    /// FAT keeps mtime in 2-second steps (`rsync --modify-window=1`).
    pub mtime_2s: bool,
}

/// Limits of POSIX filesystems that store any byte name up to 255 bytes.
pub const POSIX_LIMITS: Limits = Limits {
    max_file_bytes: u64::MAX,
    case_insensitive: false,
    windows_names: false,
    name_max_utf16: None,
    name_max_bytes: Some(255),
    path_max: None,
    symlinks: true,
    special_files: true,
    from_1980: false,
    mtime_2s: false,
};

pub trait Filesystem: Sync {
    /// The name used on the command line and in JSON (`exfat`, `fat32`, ...).
    fn name(&self) -> &'static str;
    /// True only where tests check the model against real volumes.
    fn exact(&self) -> bool;
    fn limits(&self) -> Limits;
    /// Smallest and largest cluster (block) size the Linux mkfs tool accepts.
    fn cluster_range(&self) -> (u64, u64);
    /// The cluster size the Linux mkfs tool picks for this volume size.
    fn default_cluster(&self, volume: u64) -> u64;
    /// The configs worth showing when the user names none: the default
    /// cluster plus the sweep that matters for this filesystem.
    fn sweep(&self, volume: u64) -> Vec<u64> {
        vec![self.default_cluster(volume)]
    }
    /// The model for one config, or why the mkfs tool refuses it.
    fn model(&self, volume: u64, cluster: u64) -> Result<Box<dyn Model>, String>;

    // What `fsfit bench` needs to make and mount it.

    /// The mkfs command (program first) for this cluster size; the device is
    /// appended. None: fsfit cannot format it.
    fn mkfs(&self, _cluster: u64) -> Option<Vec<String>> {
        None
    }
    /// The Linux kernel driver's filesystem type (`mount -t`), if one exists.
    fn kernel_driver(&self) -> Option<&'static str> {
        None
    }
    /// A FUSE driver: program and options (device and directory appended).
    fn fuse_driver(&self) -> Option<(&'static str, &'static [&'static str])> {
        None
    }
    /// The FUSE driver is too slow for anything but tiny runs.
    fn fuse_is_slow(&self) -> bool {
        false
    }
}

/// `[program, args...]` from string slices.
pub fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// Every filesystem fsfit knows, in the order tables list them.
pub fn all() -> &'static [&'static dyn Filesystem] {
    static ALL: &[&dyn Filesystem] = &[
        &fat::FAT12,
        &fat::FAT16,
        &fat::FAT32,
        &exfat::Exfat,
        &ntfs::Ntfs,
        &ext4::Ext4,
        &udf::Udf,
        &btrfs::Btrfs,
        &xfs::Xfs,
        &f2fs::F2fs,
    ];
    ALL
}

pub fn by_name(name: &str) -> Option<&'static dyn Filesystem> {
    all()
        .iter()
        .copied()
        .find(|f| f.name().eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    all().iter().map(|f| f.name()).collect()
}

/// What a model works out once per directory for every cluster size of its
/// filesystem: the usage engine calls a filesystem's configs one after the
/// other on the same thread for the same directory, so the name analysis
/// (the costly part) is shared through a thread-local `Digest`.
#[derive(Default)]
pub struct Digest {
    dir: u64,
    variant: u64,
    /// Directory slots (entries) the directory needs.
    pub slots: u64,
    /// Sizes of the files whose contents the filesystem stores.
    pub sizes: Vec<u64>,
    /// False when the directory itself cannot be created.
    pub stored: bool,
}

/// Run `use_it` on `dir`'s digest, made by `make` unless this thread's last
/// digest in `cell` was for the same directory visit and model `variant`.
pub fn with_digest<R>(
    cell: &'static std::thread::LocalKey<std::cell::RefCell<Digest>>,
    dir: &Dir,
    variant: u64,
    make: impl FnOnce(&mut Digest),
    use_it: impl FnOnce(&Digest) -> R,
) -> R {
    cell.with(|c| {
        let mut d = c.borrow_mut();
        if d.dir != dir.id || d.variant != variant {
            d.dir = dir.id;
            d.variant = variant;
            d.slots = 0;
            d.sizes.clear();
            d.stored = true;
            make(&mut d);
        }
        use_it(&d)
    })
}

pub fn round_up(n: u64, unit: u64) -> u64 {
    n.div_ceil(unit) * unit
}

/// Powers of two from `lo` to `hi`, both included.
pub fn powers_of_two(lo: u64, hi: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut c = lo;
    while c <= hi {
        v.push(c);
        c *= 2;
    }
    v
}
