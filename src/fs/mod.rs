//! Everything fsfit knows about each filesystem, one folder per filesystem
//! (`src/fs/<name>/`): its static facts in an [`FsInfo`] and its behaviour
//! (model, clusters, mkfs, on-disk probe) behind the [`Filesystem`] trait.
//! advise, info, bench and report loop over [`all`] and never spell a
//! filesystem's name (tests.rs checks). docs/adding-a-filesystem.md walks
//! through adding one, starting from the unregistered [`skeleton`].

pub mod btrfs;
pub mod checker;
pub mod drivers;
pub mod every;
pub mod exfat;
pub mod ext4;
pub mod f2fs;
pub mod fat;
pub mod ntfs;
pub mod policy;
pub mod probe;
pub mod sd;
pub mod skeleton;
pub mod spec;
pub mod udf;
pub mod xfs;

pub use crate::fs::probe::{Magic, Signature};
use crate::scan::{Dir, Entry};
pub use checker::{Checker, ExitCodes, Verdict};
pub use spec::FsSpec;

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
    /// Can a copy of this size be written? Where free space is one pool,
    /// statvfs's free space says it; a filesystem that splits space into
    /// data and metadata chunks (btrfs) says it from its data capacity.
    fn fits(&self, sizes: &Sizes) -> bool {
        sizes.tree_bytes() <= self.free_bytes()
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

/// How the kernel and FUSE mount a filesystem.
#[derive(Clone, Copy, Debug)]
pub struct Drivers {
    /// The kernel driver's filesystem type (`mount -t`), if one exists.
    pub kernel: Option<&'static str>,
    /// The modules that driver lives in (`modprobe` loads their dependencies).
    pub kernel_modules: &'static [&'static str],
    /// A FUSE driver, if one exists.
    pub fuse: Option<FuseDriver>,
    /// Windows' own driver (`ntfs`, `exfat`, `fastfat`), where Windows has
    /// one: `usage --driver windows` models what it writes (the default of
    /// the Windows build).
    pub windows: Option<&'static str>,
    /// Where the kernel driver under the windows-write-through approximation
    /// (files `O_SYNC`, folders `dirsync`) writes measurably differently
    /// from Windows' own write-through, what differs; None where no
    /// difference is known.
    pub kernel_sync: Option<&'static str>,
}

/// Which kind of driver writes the copy (`fsfit usage --driver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverKind {
    Kernel,
    Fuse,
    /// Windows' own driver: modelled from Microsoft's specifications, never
    /// checked against a volume Windows filled (`exact: false`).
    Windows,
}

impl Drivers {
    /// `kernel:ntfs3`, `fuse:ntfs-3g`: the driver as the usage JSON names it.
    /// A kind the filesystem lacks falls back to the one it has.
    pub fn label(&self, kind: DriverKind) -> String {
        let kind = match (kind, self.windows) {
            (DriverKind::Windows, Some(w)) => return format!("windows:{w}"),
            (DriverKind::Windows, None) => DriverKind::Kernel,
            (k, _) => k,
        };
        match (kind, self.kernel, self.fuse) {
            (DriverKind::Fuse, _, Some(f)) | (_, None, Some(f)) => {
                format!("fuse:{}", f.program.trim_start_matches("mount."))
            }
            (_, Some(k), _) => format!("kernel:{k}"),
            (_, None, None) => "none".to_string(),
        }
    }
}

/// A FUSE driver: program and options (device and directory appended).
#[derive(Clone, Copy, Debug)]
pub struct FuseDriver {
    pub program: &'static str,
    pub args: &'static [&'static str],
    /// Too slow for anything but tiny runs: bench leaves it out unless named.
    pub slow: bool,
    /// Writes nothing to the device until unmount (fusefat): a power cut
    /// loses everything, unlike the kernel driver users have, so crash runs
    /// use it only when asked.
    pub defers_writes: bool,
    /// Why it does not write through a file opened `O_SYNC` (the
    /// windows-write-through policy), if it does not; None: it honours it.
    pub sync_ignored: Option<&'static str>,
}

/// The options udisks2 (a Linux desktop's automounter) adds for this
/// filesystem: its `<fs>_defaults` in data/builtin_mount_options.conf
/// (storaged-project/udisks), `$UID`/`$GID` filled in when mounting.
#[derive(Clone, Copy, Debug)]
pub struct DesktopOptions {
    /// Under the kernel driver.
    pub kernel: &'static [&'static str],
    /// What of them the FUSE driver takes.
    pub fuse: &'static [&'static str],
}

/// A caveat about Windows' `format`, for volumes over a size (below it,
/// a warning that does not apply only worries).
#[derive(Clone, Copy, Debug)]
pub struct WindowsNote {
    pub over_bytes: u64,
    pub text: &'static str,
    /// Over the size `format` refuses outright: the text stands in for a
    /// command that would only fail.
    pub refuses: bool,
}

/// How to format it on Windows and macOS (Linux: [`Filesystem::mkfs`] plus
/// [`FsInfo::label_flag`]).
#[derive(Clone, Copy, Debug)]
pub struct Formats {
    /// The `/FS:` value of Windows' `format`, if Windows formats it.
    pub windows: Option<&'static str>,
    /// A caveat printed after the Windows command where it applies.
    pub windows_note: Option<WindowsNote>,
    /// The macOS command, if macOS formats it: `{cluster}` (bytes),
    /// `{sectors}` (512-byte sectors per cluster) and `{label}` are filled in.
    pub macos: Option<&'static str>,
}

/// Everything fsfit knows about one filesystem that is plain data. Each
/// `src/fs/<name>/mod.rs` fills one; advise, info, bench and report read it
/// through [`Filesystem::info`] and never spell a filesystem's name.
#[derive(Clone, Copy, Debug)]
pub struct FsInfo {
    /// The name used on the command line and in JSON (`exfat`, `fat32`, ...).
    pub name: &'static str,
    /// The name people write (`exFAT`, `FAT32`).
    pub title: &'static str,
    /// True only where tests check the model against real volumes.
    pub exact: bool,
    pub limits: Limits,
    pub drivers: Drivers,
    /// Mount options worth comparing in bench and crash runs (`sync`,
    /// `dirsync`, `data=journal`, ...).
    pub mount_options: &'static [&'static str],
    /// The `desktop` mount policy's options (src/fs/policy.rs).
    pub desktop_options: DesktopOptions,
    /// Mounting several copies of one volume at once (crash checks its
    /// states in parallel): the extra kernel mount options that takes (XFS:
    /// `nouuid`), or None when the kernel refuses a second copy (btrfs: one
    /// fsid, one volume).
    pub copies_mount: Option<&'static str>,
    /// The Linux mkfs tool's label option: `-L` takes the label as the next
    /// argument, an option ending in `=` (`--label=`) takes it glued on.
    pub label_flag: &'static str,
    pub formats: Formats,
    /// What survives unplugging mid-write, shown beside a recommendation.
    pub robustness: &'static str,
    /// The filesystem's own checker (fsck), for `fsfit crash`. None: no
    /// checker exists on Linux (UDF), which is itself a finding.
    pub checker: Option<Checker>,
    /// Rank when speed was not measured: journaled and native first (1 best).
    pub preference: u8,
    /// How `fsfit info` recognises it on disk (its `probe.rs` declares it).
    pub signature: Signature,
}

pub trait Filesystem: Sync {
    /// The static facts: name, limits, drivers, checker, format commands,
    /// notes. Callers read them there (`f.info().limits`).
    fn info(&self) -> &'static FsInfo;
    /// Smallest and largest cluster (block) size the Linux mkfs tool accepts.
    fn cluster_range(&self) -> (u64, u64);
    /// The cluster size the Linux mkfs tool picks for this volume size.
    fn default_cluster(&self, volume: u64) -> u64;
    /// The configs worth showing when the user names none: the default
    /// cluster plus the sweep that matters for this filesystem.
    fn sweep(&self, volume: u64) -> Vec<u64> {
        vec![self.default_cluster(volume)]
    }
    /// Why a volume of this cluster (block) size cannot be mounted where
    /// fsfit's users are, if it cannot: ext4 and XFS refuse blocks larger
    /// than the page size, 4 KiB on x86.
    fn unmountable(&self, _cluster: u64) -> Option<String> {
        None
    }
    /// Clusters `fsfit bench` adds to every filesystem's default when the
    /// user names no config (a bench run is minutes per config, so few).
    fn bench_sweep(&self, _volume: u64) -> Vec<u64> {
        Vec::new()
    }
    /// The largest volume this filesystem addresses at `cluster`, with why,
    /// where that is less than any drive fsfit meets; None: no such limit.
    /// A partition longer than this holds a volume that leaves the rest of
    /// it unused (mkfs.fat only warns), so a plan makes it no longer.
    fn max_volume(&self, _cluster: u64) -> Option<(u64, &'static str)> {
        None
    }
    /// The model for one config, or why the mkfs tool refuses it.
    fn model(&self, volume: u64, cluster: u64) -> crate::Result<Box<dyn Model>>;
    /// The model for one config filled by `driver`, where drivers lay the
    /// same tree out differently (NTFS: ntfs3 and ntfs-3g); by default one
    /// model fits every driver.
    fn model_with(
        &self,
        volume: u64,
        cluster: u64,
        _driver: DriverKind,
    ) -> crate::Result<Box<dyn Model>> {
        self.model(volume, cluster)
    }
    /// Is the model for `driver` checked against real volumes (the JSON's
    /// `exact`)?
    fn exact_with(&self, driver: DriverKind) -> bool {
        driver != DriverKind::Windows && self.info().exact
    }
    /// Can it keep a file's extended attributes? Where it cannot (FAT,
    /// exFAT), macOS's Finder writes each file's into a `._NAME`
    /// AppleDouble file beside it.
    fn keeps_xattrs(&self) -> bool {
        true
    }
    /// Does a copy with `cp --sparse=auto` (cp's default) keep a sparse
    /// file's holes here, under this driver? FAT and exFAT have no holes:
    /// the driver writes them out as zeros.
    fn keeps_holes(&self, _driver: DriverKind) -> bool {
        false
    }
    /// The driver whose layout the model for `asked` follows (what the JSON
    /// names): the one asked for, unless the model knows only another.
    fn modelled_driver(&self, asked: DriverKind) -> DriverKind {
        if asked == DriverKind::Windows && self.info().drivers.windows.is_none() {
            DriverKind::Kernel
        } else {
            asked
        }
    }

    // What `fsfit bench` needs to make and mount it.

    /// The mkfs command (program first) for this cluster size; the device is
    /// appended. None: fsfit cannot format it.
    fn mkfs(&self, _cluster: u64) -> Option<Vec<String>> {
        None
    }

    // What `fsfit format` needs to prepare a drive with it.

    /// The mkfs command `fsfit format` runs (the volume's device appended)
    /// and where it puts the data area, or None when fsfit cannot make it.
    /// By default: [`Filesystem::mkfs`] plus the label; where the data
    /// area lands is left to what `fsfit info` reads afterwards.
    fn format(&self, p: &FormatParams) -> crate::Result<FormatCmd> {
        let mut argv = self.mkfs(p.cluster).ok_or_else(|| {
            crate::Error::work(format!("fsfit cannot make {}", self.info().title))
        })?;
        if let Some(l) = p.label {
            argv.extend(label_args(self.info(), l));
        }
        Ok(FormatCmd {
            argv,
            data_offset: None,
        })
    }
    /// The TYPE `blkid` gives its volumes.
    fn blkid_type(&self) -> &'static str {
        self.info().name
    }
    /// The partition type systems expect for it.
    fn partition_type(&self) -> PartType {
        PartType::LINUX
    }
    /// What its volume label may hold.
    fn label_rule(&self) -> LabelRule {
        LabelRule {
            max_bytes: Some(16),
            ..LabelRule::ANY
        }
    }
}

impl dyn Filesystem + '_ {
    /// The name used on the command line and in JSON (`exfat`, `fat32`,
    /// ...): `info().name`, kept short because nearly every caller wants it.
    pub fn name(&self) -> &'static str {
        self.info().name
    }
}

/// What `fsfit format` asks of a filesystem's mkfs.
#[derive(Clone, Copy, Debug)]
pub struct FormatParams<'a> {
    pub cluster: u64,
    /// Checked against [`Filesystem::label_rule`] already.
    pub label: Option<&'a str>,
    /// Where the volume starts on its device (the partition start).
    pub start_bytes: u64,
    pub volume_bytes: u64,
    /// The data area (FAT data region, exFAT cluster heap) should start on
    /// a multiple of this, counted from the device's start.
    pub align_bytes: u64,
    /// The user the new volume's root folder should belong to (uid, gid).
    pub owner: (u32, u32),
    /// A whole-device filesystem asked for an MBR (UDF: mkudffs's boot area).
    pub mbr_boot_area: bool,
}

/// The mkfs command of a format and what it lays out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatCmd {
    /// Program first; the device is appended.
    pub argv: Vec<String>,
    /// Where the data area starts, from the volume's start, when known
    /// before formatting.
    pub data_offset: Option<u64>,
}

/// The partition type a filesystem gets in an MBR and a GPT table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartType {
    pub mbr: u8,
    pub gpt: &'static str,
    /// Systems expect it on the whole device, with no partition table (UDF).
    pub whole_device: bool,
}

impl PartType {
    /// GPT "Microsoft basic data".
    pub const MS_BASIC_DATA: &'static str = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7";
    /// GPT "Linux filesystem".
    pub const LINUX_FS: &'static str = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
    pub const LINUX: PartType = PartType {
        mbr: 0x83,
        gpt: PartType::LINUX_FS,
        whole_device: false,
    };
    /// MBR 0x07 (exFAT, NTFS), GPT Microsoft basic data.
    pub const WINDOWS: PartType = PartType {
        mbr: 0x07,
        gpt: PartType::MS_BASIC_DATA,
        whole_device: false,
    };
}

/// What a volume label may hold; `fsfit format` checks a label against it
/// before anything is written.
#[derive(Clone, Copy, Debug)]
pub struct LabelRule {
    /// Longest label in bytes (UTF-8, or the code page with `codepage`).
    pub max_bytes: Option<usize>,
    /// Longest label in UTF-16 code units.
    pub max_utf16: Option<usize>,
    /// Characters the filesystem (or Windows) refuses in a label.
    pub forbidden: &'static str,
    /// Stored upper-cased (FAT, as Windows does).
    pub upper: bool,
    /// Stored in the DOS code page (FAT): every character must have a byte there.
    pub codepage: bool,
}

impl LabelRule {
    pub const ANY: LabelRule = LabelRule {
        max_bytes: None,
        max_utf16: None,
        forbidden: "",
        upper: false,
        codepage: false,
    };
}

/// The Linux mkfs arguments that set the volume label.
pub fn label_args(info: &FsInfo, label: &str) -> Vec<String> {
    if info.label_flag.ends_with('=') {
        vec![format!("{}{label}", info.label_flag)]
    } else {
        vec![info.label_flag.to_string(), label.to_string()]
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

/// The filesystem advise ranks first when speed was not measured: the
/// default of commands that test one filesystem.
pub fn preferred() -> &'static dyn Filesystem {
    *all()
        .iter()
        .min_by_key(|f| f.info().preference)
        .expect("the registry is not empty")
}

/// x86's page size: ext4 and XFS mount blocks up to it (larger blocks
/// need a larger-page kernel, as on some arm64 and ppc64 builds).
pub const X86_PAGE: u64 = 4096;

/// What ext4 and XFS say of blocks over the page size.
pub fn over_page(cluster: u64) -> Option<String> {
    (cluster > X86_PAGE).then(|| {
        format!(
            "cannot be mounted on x86 Linux: blocks of {} are larger than its {} pages",
            crate::units::short(cluster),
            crate::units::short(X86_PAGE)
        )
    })
}

pub fn names() -> Vec<&'static str> {
    all().iter().map(|f| f.name()).collect()
}

/// What a model works out once per directory for every cluster size of its
/// filesystem: the usage engine calls a filesystem's configs one after the
/// other on the same thread for the same directory, so the name analysis
/// (the costly part) is shared through a thread-local `Digest`. `X` holds
/// what else a model keeps (reset to its default for each directory).
#[derive(Default)]
pub struct Digest<X = ()> {
    dir: u64,
    variant: u64,
    /// Directory slots (entries) the directory needs.
    pub slots: u64,
    /// Sizes of the files whose contents the filesystem stores.
    pub sizes: Vec<u64>,
    /// False when the directory itself cannot be created.
    pub stored: bool,
    pub extra: X,
}

/// Run `use_it` on `dir`'s digest, made by `make` unless this thread's last
/// digest in `cell` was for the same directory visit and model `variant`.
pub fn with_digest<R, X: Default>(
    cell: &'static std::thread::LocalKey<std::cell::RefCell<Digest<X>>>,
    dir: &Dir,
    variant: u64,
    make: impl FnOnce(&mut Digest<X>),
    use_it: impl FnOnce(&Digest<X>) -> R,
) -> R {
    cell.with(|c| {
        let mut d = c.borrow_mut();
        if d.dir != dir.id || d.variant != variant {
            d.dir = dir.id;
            d.variant = variant;
            d.slots = 0;
            d.sizes.clear();
            d.stored = true;
            d.extra = X::default();
            make(&mut d);
        }
        use_it(&d)
    })
}

thread_local! {
    /// Scratch for [`case_duplicates`]: (folded-name hash, entry index).
    static SEEN: std::cell::RefCell<Vec<(u64, u32)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Marks the entries whose name equals an EARLIER one's once folded (the
/// filesystem looks names up case-insensitively): `hash` folds a name to a
/// hash (None: not a file or directory the copy creates), `same` compares
/// two names folded. Empty when there are none. Measured with exfat-fuse
/// (`cp -r`, coreutils 9.1): the later name fails with EEXIST ("cannot
/// create regular file ...: File exists"), so the first one's entry and
/// contents are what stays. "Earlier" is the walker's (readdir) order; cp
/// copies in inode order (gnulib savedir SAVEDIR_SORT_FASTREAD), so when
/// colliding files differ in size the survivor may be the other one.
pub fn case_duplicates(
    entries: &[Entry],
    hash: impl Fn(&Entry) -> Option<u64>,
    same: impl Fn(&Entry, &Entry) -> bool,
) -> Vec<bool> {
    if entries.len() < 2 {
        return Vec::new();
    }
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        seen.clear();
        seen.extend(
            entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((hash(e)?, i as u32))),
        );
        seen.sort_unstable();
        let mut dup = Vec::new();
        // Compare each entry with every earlier one of the same hash (a
        // many-way collision is one run of equal hashes).
        for (k, &(h, j)) in seen.iter().enumerate() {
            let earlier = seen[..k].iter().rev().take_while(|(g, _)| *g == h);
            if earlier
                .into_iter()
                .any(|&(_, i)| same(&entries[i as usize], &entries[j as usize]))
            {
                if dup.is_empty() {
                    dup = vec![false; entries.len()];
                }
                dup[j as usize] = true;
            }
        }
        dup
    })
}

pub fn round_up(n: u64, unit: u64) -> u64 {
    if unit.is_power_of_two() {
        // Clusters and blocks are powers of two: a mask, not a division
        // (this runs for every file and every config).
        (n + (unit - 1)) & !(unit - 1)
    } else {
        n.div_ceil(unit) * unit
    }
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

/// A well-mixed 64-bit hash of a name's bytes (FNV-1a, then a finaliser):
/// for the models' and checks' per-name keys, where speed matters and a
/// rare equal hash only costs a closer look. Not stable across versions.
pub fn quick_hash(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests;
