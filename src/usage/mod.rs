//! Tree × filesystem models → UsageReport. The walk streams directories; each
//! walker thread adds them into its own counters for every config, and the
//! counters are summed when the walk ends.

pub mod problems;
pub mod top;

use crate::fs::spec::FsSpec;
use crate::fs::{self, Acc, Filesystem, Model};
use crate::scan::{self, TreeCounts, WalkError};
use crate::Error;
use problems::{DirFacts, Findings};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

pub const SCHEMA: &str = "fsfit.usage/1";

/// The volume planned when none is given: 64 GiB, as the contract
/// (DESIGN.md) has it. The output says it was assumed, and that a stick
/// sold as "64 GB" holds less (about 61.5 to 64.1 GB).
pub const ASSUMED_VOLUME: u64 = 64 << 30;

/// How the output says the volume was assumed.
pub fn assumed_volume_note(bytes: u64) -> String {
    format!(
        "the volume is {} ({}): assumed, no --volume given; a stick sold as \"64 GB\" holds less (61.5 to 64 GB): --volume 64GB plans that, --volume DEV|IMAGE reads a drive's size",
        crate::units::iec(bytes),
        crate::units::decimal(bytes)
    )
}

/// One filesystem at one cluster size, as asked for.
#[derive(Clone)]
pub struct Config {
    pub fs: &'static dyn Filesystem,
    pub cluster: u64,
    /// Who writes the copy, as the JSON names it (`kernel:ntfs3`).
    pub driver: String,
    /// The model for that driver is checked against real volumes.
    pub exact: bool,
    /// `cp` keeps a sparse file's holes under that driver.
    pub keeps_holes: bool,
}

/// Sparse files in a sentence: what they hold, and what a copy takes by
/// tools that keep holes (cp, rsync -S; onto ext4, XFS, Btrfs, F2FS, NTFS
/// under ntfs-3g) and by those that fill them (FAT, exFAT, Explorer).
pub fn sparse_note(t: &crate::scan::TreeCounts) -> Option<String> {
    use crate::units::iec;
    (t.sparse_files > 0).then(|| {
        format!(
            "sparse files: {} ({} long, {} of data in them): a copy that keeps holes writes \
             {}, one that fills them (FAT, exFAT, most copy tools) writes {}",
            crate::units::thousands(t.sparse_files),
            iec(t.sparse_apparent_bytes),
            iec(t.sparse_data_bytes),
            iec(t.sparse_data_bytes),
            iec(t.sparse_apparent_bytes)
        )
    })
}

/// Under this much data to store, a percentage measures a cluster's and
/// the metadata's fixed cost, not the data (a 100-byte file alone once
/// showed +1170185.71 %).
pub const PCT_FLOOR: u64 = 64 << 10;

/// Why a config's overhead percentage would mean nothing: too little data
/// to store, or sparse files whose holes are not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPercentage {
    TooLittleData,
    SparseHoles,
}

impl NoPercentage {
    /// The CSV's `overhead_note`: a word for programs.
    pub fn key(self) -> &'static str {
        match self {
            NoPercentage::TooLittleData => "too-little-data",
            NoPercentage::SparseHoles => "sparse-holes",
        }
    }

    /// What a person reads (text, JSON, HTML).
    pub fn why(self) -> &'static str {
        match self {
            NoPercentage::TooLittleData => {
                "under 64 KiB of data to store: a percentage would measure a cluster's and the \
                 metadata's fixed cost, not the data; ON DISK is the figure"
            }
            NoPercentage::SparseHoles => {
                "less on disk than the data's apparent size: sparse files' holes are not \
                 written; ON DISK is the figure"
            }
        }
    }
}

/// Whether an overhead percentage means anything for `apparent` bytes of
/// which `cannot_store` are left out: the one place that decides, for
/// every view (text, JSON, CSV, HTML).
pub fn no_percentage(apparent: u64, cannot_store: u64, pct: f64) -> Option<NoPercentage> {
    let stored = apparent - cannot_store.min(apparent);
    if stored < PCT_FLOOR {
        Some(NoPercentage::TooLittleData)
    } else if pct < 0.0 {
        Some(NoPercentage::SparseHoles)
    } else {
        None
    }
}

/// A config's overhead as a person should read it, or why a percentage
/// would mean nothing there; the JSON keeps the number beside the reason
/// (`overhead_note`).
pub fn overhead_shown(t: &crate::scan::TreeCounts, c: &ConfigReport) -> Result<f64, &'static str> {
    match no_percentage(t.apparent_bytes, c.cannot_store_bytes, c.overhead_pct) {
        Some(n) => Err(n.why()),
        None => Ok(c.overhead_pct),
    }
}

/// The driver that fills `fs` for `fsfit usage`: the one asked for, else
/// the one this host would mount with (on Windows, Windows' own where it has
/// one; on Linux its kernel's when the kernel has it, else a FUSE driver,
/// else the kernel's as on most Linux systems).
pub fn driver_for(fs: &dyn Filesystem, asked: Option<fs::DriverKind>) -> fs::DriverKind {
    let d = &fs.info().drivers;
    asked.unwrap_or_else(|| {
        if cfg!(windows) && d.windows.is_some() {
            return fs::DriverKind::Windows;
        }
        let here = d
            .kernel
            .is_some_and(|k| fs::drivers::kernel_available(k, d.kernel_modules));
        if !here
            && d.fuse
                .is_some_and(|f| crate::device::have_program(f.program))
        {
            fs::DriverKind::Fuse
        } else {
            fs::DriverKind::Kernel
        }
    })
}

/// A config that cannot be made at this volume size, and why.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Refused {
    pub fs: String,
    pub cluster_bytes: u64,
    pub reason: String,
}

/// The configs to evaluate, each with its model, and the refused ones.
pub type Plan = (Vec<(Config, Box<dyn Model>)>, Vec<Refused>);

/// The configs to evaluate. Explicit configs the mkfs tool refuses are an
/// error; in the default matrix they are listed as refused.
pub fn plan(specs: &[FsSpec], volume: u64, driver: Option<fs::DriverKind>) -> crate::Result<Plan> {
    let mut configs = Vec::new();
    let mut refused = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |fs: &'static dyn Filesystem, cluster: u64, explicit: bool| {
        if !seen.insert((fs.name(), cluster)) {
            return Ok(());
        }
        let kind = fs.modelled_driver(driver_for(fs, driver));
        match fs.model_with(volume, cluster, kind) {
            Ok(m) => configs.push((
                Config {
                    fs,
                    cluster,
                    driver: fs.info().drivers.label(kind),
                    exact: fs.exact_with(kind),
                    keeps_holes: fs.keeps_holes(kind),
                },
                m,
            )),
            Err(reason) if explicit => {
                return Err(Error::input(format!(
                    "{}:{} on a {} volume: {reason}",
                    fs.name(),
                    crate::units::short(cluster),
                    crate::units::iec(volume)
                )))
            }
            Err(reason) => refused.push(Refused {
                fs: fs.name().to_string(),
                cluster_bytes: cluster,
                reason: reason.to_string(),
            }),
        }
        Ok(())
    };
    if specs.is_empty() {
        for &fs in fs::all() {
            let mut clusters = fs.sweep(volume);
            clusters.sort_unstable();
            for c in clusters {
                push(fs, c, false)?;
            }
        }
    } else {
        for spec in specs {
            for c in &spec.clusters {
                push(
                    spec.fs,
                    c.unwrap_or_else(|| spec.fs.default_cluster(volume)),
                    true,
                )?;
            }
        }
    }
    Ok((configs, refused))
}

/// One config's row of the report; the JSON contract's `configs[]`.
/// Fields added after the contract was first written default when an older
/// file lacks them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConfigReport {
    pub fs: String,
    pub cluster_bytes: u64,
    /// The driver the figures are for (`kernel:ntfs3`, `fuse:ntfs-3g`);
    /// empty in files older than the field.
    #[serde(default)]
    pub driver: String,
    pub free_bytes: u64,
    pub tree_bytes: u64,
    pub data_bytes: u64,
    pub slack_bytes: u64,
    pub metadata_bytes: u64,
    /// Apparent bytes of the files it cannot store (over its size limit):
    /// left out of the figures above and of `overhead_pct`.
    #[serde(default)]
    pub cannot_store_bytes: u64,
    pub overhead_pct: f64,
    /// Why `overhead_pct` means nothing here (see [`no_percentage`]):
    /// absent where it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_note: Option<String>,
    pub fits: bool,
    /// Why a volume of this config cannot be mounted (ext4 or XFS blocks
    /// over x86's 4 KiB page): then it does not fit either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmountable: Option<String>,
    pub exact: bool,
    pub problems: problems::Counts,
    /// Up to ten example paths per finding.
    #[serde(default)]
    pub problem_examples: BTreeMap<String, Vec<String>>,
    /// The cluster the Linux mkfs tool picks for this volume size.
    #[serde(default)]
    pub default_cluster: bool,
}

/// The JSON contract `fsfit.usage/1`: what `fsfit usage --json` prints and
/// what `fsfit report` reads back (older files lack the defaulted fields).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UsageReport {
    pub schema: String,
    /// fsfit's version and when the walk ran, for reports.
    #[serde(default)]
    pub fsfit: String,
    #[serde(default)]
    pub date: String,
    pub volume_bytes: u64,
    /// No --volume was given: `volume_bytes` is [`ASSUMED_VOLUME`].
    #[serde(default)]
    pub volume_assumed: bool,
    #[serde(default)]
    pub paths: Vec<String>,
    pub tree: TreeCounts,
    pub configs: Vec<ConfigReport>,
    #[serde(default)]
    pub refused: Vec<Refused>,
    /// Mount points met and not entered.
    #[serde(default)]
    pub skipped_mounts: u64,
    /// `--top N`: the folders that waste the most at the first config.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<top::TopFolder>,
    /// Only for `--manifest`: which listing, and what it cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing: Option<Listing>,
    #[serde(skip)]
    pub errors: Vec<WalkError>,
}

/// The JSON's `listing` object of a report made from a manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Listing {
    pub format: crate::manifest::Format,
    /// What the listing lacks, each said in a sentence (never guessed).
    pub lacks: Vec<String>,
}

/// Where the tree comes from: a walk of paths here, or a listing.
pub enum Source<'a> {
    Walk(&'a [PathBuf]),
    Manifest {
        file: &'a std::path::Path,
        format: Option<crate::manifest::Format>,
    },
}

struct ThreadState {
    accs: Vec<Acc>,
    /// One per distinct filesystem in the plan.
    findings: Vec<Findings>,
    /// Apparent bytes of the files each filesystem cannot store (over its
    /// size limit), one per distinct filesystem: left out of its figures.
    cannot_store: Vec<u64>,
    /// `--top`: each folder's own waste at the first config.
    folders: Vec<(PathBuf, top::Own)>,
}

/// A Finder copy's `._NAME` AppleDouble file for each file: 4 KiB each
/// (the header and the extended attributes, as Finder writes them).
fn appledouble_files(entries: &[scan::Entry]) -> Vec<scan::Entry> {
    entries
        .iter()
        .filter(|e| e.kind == scan::Kind::File)
        .map(|e| {
            let mut name = std::ffi::OsString::from("._");
            name.push(e.name());
            scan::Entry::new(name, scan::Kind::File, APPLEDOUBLE_BYTES, e.mtime)
        })
        .collect()
}

/// What Finder writes for a file's `._` companion: 4096 bytes.
pub const APPLEDOUBLE_BYTES: u64 = 4096;

/// The folder as `cp -r` (sparse=auto, its default) leaves it on a
/// filesystem that cannot store files over `max` and keeps holes or not:
/// without the files too large (their bytes counted apart), sparse files
/// as the data they hold where holes are kept. None: as it is.
fn as_copied(
    dir: &scan::Dir,
    max: u64,
    holes: bool,
    appledouble: bool,
) -> Option<(Vec<scan::Entry>, u64)> {
    let too_large = |e: &scan::Entry| e.kind == scan::Kind::File && e.size > max;
    let changes = |e: &scan::Entry| too_large(e) || (holes && e.is_sparse());
    if !appledouble && !dir.entries.iter().any(changes) {
        return None;
    }
    let bytes = dir
        .entries
        .iter()
        .filter(|e| too_large(e))
        .map(|e| e.size)
        .sum();
    let kept = dir
        .entries
        .iter()
        .filter(|e| !too_large(e))
        .map(|e| {
            let mut e = e.clone();
            if holes {
                e.size = e.stored;
            }
            e
        })
        .collect();
    let mut kept: Vec<scan::Entry> = kept;
    if appledouble {
        kept.extend(appledouble_files(&kept));
    }
    Some((kept, bytes))
}

pub struct UsageOptions {
    pub threads: usize,
    pub cross_mounts: bool,
    /// `--top N`: the N folders that waste the most at the first config.
    pub top: Option<usize>,
    /// `--appledouble`: a Finder copy from a Mac, which adds a `._NAME`
    /// file for each file where the filesystem keeps no xattrs.
    pub appledouble: bool,
}

/// What the walk needs per config and per distinct filesystem, worked out
/// once before it starts.
struct Shape {
    /// Per config: its index among the distinct filesystems.
    fs_of: Vec<usize>,
    /// Per distinct filesystem: its configs.
    configs_of: Vec<Vec<usize>>,
    /// Per distinct filesystem (the findings are the same for every cluster).
    limits: Vec<fs::Limits>,
    /// Per distinct filesystem: does a Finder copy add `._` files to it?
    doubles: Vec<bool>,
    /// Per distinct filesystem: does its driver keep a sparse file's holes?
    holes: Vec<bool>,
    /// Some filesystem needs the Windows name findings.
    want_windows: bool,
}

impl Shape {
    fn of(configs: &[(Config, Box<dyn Model>)], opts: &UsageOptions) -> Shape {
        let mut fss: Vec<&'static dyn Filesystem> = Vec::new();
        for (c, _) in configs {
            if !fss.iter().any(|f| f.name() == c.fs.name()) {
                fss.push(c.fs);
            }
        }
        let fs_of: Vec<usize> = configs
            .iter()
            .map(|(c, _)| fss.iter().position(|f| f.name() == c.fs.name()).unwrap())
            .collect();
        let configs_of = (0..fss.len())
            .map(|f| (0..fs_of.len()).filter(|&i| fs_of[i] == f).collect())
            .collect();
        let limits: Vec<fs::Limits> = fss.iter().map(|f| f.info().limits).collect();
        let doubles: Vec<bool> = fss
            .iter()
            .map(|f| opts.appledouble && !f.keeps_xattrs())
            .collect();
        let holes: Vec<bool> = fss
            .iter()
            .map(|f| {
                configs
                    .iter()
                    .find(|(c, _)| c.fs.name() == f.name())
                    .is_some_and(|(c, _)| c.keeps_holes)
            })
            .collect();
        let want_windows = limits
            .iter()
            .any(|l| l.windows_names || l.case_insensitive || l.path_max.is_some());
        Shape {
            fs_of,
            configs_of,
            limits,
            doubles,
            holes,
            want_windows,
        }
    }

    fn new_state(&self, configs: usize) -> ThreadState {
        ThreadState {
            accs: vec![Acc::default(); configs],
            findings: self.limits.iter().map(Findings::new).collect(),
            cannot_store: vec![0; self.limits.len()],
            folders: Vec::new(),
        }
    }
}

/// Walk the tree (or read the listing) once and evaluate every config on the way.
pub fn run(
    source: &Source,
    configs: Vec<(Config, Box<dyn Model>)>,
    refused: Vec<Refused>,
    volume: u64,
    opts: &UsageOptions,
    progress: &AtomicU64,
) -> crate::Result<UsageReport> {
    let shape = Shape::of(&configs, opts);
    let threads = opts.threads.max(1);
    let states: Vec<Mutex<ThreadState>> = (0..threads + 1)
        .map(|_| Mutex::new(shape.new_state(configs.len())))
        .collect();
    let eval = Eval {
        shape: &shape,
        configs: &configs,
        opts,
    };
    let visit = |dir: &scan::Dir| {
        let slot = rayon::current_thread_index().unwrap_or(threads) % states.len();
        if dir.entries.len() >= PARALLEL_DIR && rayon::current_thread_index().is_some() {
            // Worked out before the lock is taken: while it waits for the
            // other threads' parts, this thread may visit other folders.
            let part = eval.dir_in_parallel(dir);
            states[slot].lock().unwrap().merge(part);
        } else {
            eval.dir(dir, &mut states[slot].lock().unwrap());
        }
    };
    let (summary, listing) = read_source(source, threads, opts, progress, &visit)?;
    let mut total = shape.new_state(configs.len());
    for s in states {
        total.merge(s.into_inner().unwrap());
    }
    let apparent = summary.counts.apparent_bytes;
    let rows = configs
        .iter()
        .enumerate()
        .map(|(i, (cfg, model))| {
            row(
                cfg,
                model.as_ref(),
                &total,
                i,
                shape.fs_of[i],
                apparent,
                volume,
            )
        })
        .collect();

    Ok(UsageReport {
        schema: SCHEMA.into(),
        fsfit: env!("CARGO_PKG_VERSION").to_string(),
        date: crate::units::now_utc(),
        volume_bytes: volume,
        volume_assumed: false,
        paths: match source {
            Source::Walk(paths) => paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            Source::Manifest { file, .. } => vec![file.to_string_lossy().into_owned()],
        },
        tree: summary.counts,
        configs: rows,
        refused,
        skipped_mounts: summary.skipped_mounts,
        top: opts
            .top
            .map_or_else(Vec::new, |n| top::top(total.folders, n)),
        listing,
        errors: summary.errors,
    })
}

/// A folder with at least this many entries has its filesystems evaluated
/// by every walker thread, one task each, rather than by the thread that
/// read it: one large folder met last left the other threads idle.
const PARALLEL_DIR: usize = 1024;

/// What every directory is evaluated against.
struct Eval<'a> {
    shape: &'a Shape,
    configs: &'a [(Config, Box<dyn Model>)],
    opts: &'a UsageOptions,
}

/// One directory, with what every filesystem's evaluation asks of it.
struct Seen<'a> {
    dir: &'a scan::Dir<'a>,
    facts: DirFacts,
    biggest: u64,
    sparse: bool,
    has_files: bool,
}

impl Eval<'_> {
    fn seen<'a>(&self, dir: &'a scan::Dir<'a>) -> Seen<'a> {
        Seen {
            dir,
            facts: DirFacts::new(dir, self.shape.want_windows),
            biggest: dir.entries.iter().map(|e| e.size).max().unwrap_or(0),
            sparse: dir.entries.iter().any(|e| e.is_sparse()),
            has_files: dir.entries.iter().any(|e| e.kind == scan::Kind::File),
        }
    }

    /// Account one directory for every config, and judge it for every
    /// distinct filesystem, into this thread's state.
    fn dir(&self, dir: &scan::Dir, st: &mut ThreadState) {
        let seen = self.seen(dir);
        for f in 0..self.shape.limits.len() {
            self.fs(&seen, f, &self.shape.configs_of[f], st);
        }
    }

    /// The same for a large directory, one task per config (ext4's three
    /// htree replays of /usr/share/man/man1 on one thread were the walk's
    /// last few milliseconds, the other thread idle); a filesystem's
    /// findings go with its first config. The parts are sums and sorted
    /// examples, so how the tasks fall on the threads changes nothing.
    fn dir_in_parallel(&self, dir: &scan::Dir) -> ThreadState {
        let seen = self.seen(dir);
        let fresh = || self.shape.new_state(self.configs.len());
        let shape = self.shape;
        let tasks: Vec<(usize, &[usize])> = (0..shape.limits.len())
            .flat_map(|f| shape.configs_of[f].chunks(1).map(move |c| (f, c)))
            .collect();
        tasks
            .into_par_iter()
            .map(|(f, configs)| {
                let mut st = fresh();
                self.fs(&seen, f, configs, &mut st);
                st
            })
            .reduce(fresh, |mut a, b| {
                a.merge(b);
                a
            })
    }

    /// Distinct filesystem `f`: the figures of `configs` (some of its
    /// configs), and its findings when they include its first.
    fn fs(&self, seen: &Seen, f: usize, configs: &[usize], st: &mut ThreadState) {
        let first = configs.first() == self.shape.configs_of[f].first();
        let (dir, shape) = (seen.dir, self.shape);
        let (l, holes) = (&shape.limits[f], shape.holes[f]);
        let ad = shape.doubles[f] && seen.has_files;
        // The folder without the files it cannot store, as copied there.
        let needed = seen.biggest > l.max_file_bytes || (holes && seen.sparse) || ad;
        let kept = needed
            .then(|| as_copied(dir, l.max_file_bytes, holes, ad))
            .flatten();
        if first {
            st.cannot_store[f] += kept.as_ref().map_or(0, |(_, b)| *b);
        }
        let copied = kept
            .as_ref()
            .map(|(e, _)| scan::Dir::new(dir.rel, dir.is_root, e));
        let d = copied.as_ref().unwrap_or(dir);
        for &i in configs {
            let before = st.accs[i].slack + st.accs[i].meta;
            self.configs[i].1.add_dir(d, &mut st.accs[i]);
            if i == 0 && self.opts.top.is_some() {
                let wasted = st.accs[i].slack + st.accs[i].meta - before;
                st.folders
                    .push((dir.rel.to_path_buf(), own_waste(d, wasted)));
            }
        }
        if first {
            problems::judge(dir, &seen.facts, l, &mut st.findings[f]);
        }
    }
}

/// `--top`: a folder's own files and what the first config wastes on them.
fn own_waste(d: &scan::Dir, wasted: u64) -> top::Own {
    let files = || d.entries.iter().filter(|e| e.kind == scan::Kind::File);
    top::Own {
        wasted,
        apparent: files().map(|e| e.size).sum(),
        files: files().count() as u64,
    }
}

/// Walk the paths or read the listing, calling `visit` for each directory.
fn read_source(
    source: &Source,
    threads: usize,
    opts: &UsageOptions,
    progress: &AtomicU64,
    visit: &(dyn Fn(&scan::Dir) + Sync),
) -> crate::Result<(scan::WalkSummary, Option<Listing>)> {
    match source {
        Source::Walk(paths) => {
            let opts = scan::WalkOptions {
                threads,
                cross_mounts: opts.cross_mounts,
            };
            Ok((scan::walk(paths, &opts, progress, visit)?, None))
        }
        Source::Manifest { file, format } => {
            let m = crate::manifest::read(file, *format, progress, visit)?;
            let summary = scan::WalkSummary {
                counts: m.counts,
                errors: Vec::new(),
                skipped_mounts: 0,
            };
            let listing = Listing {
                format: m.format,
                lacks: m.lacks,
            };
            Ok((summary, Some(listing)))
        }
    }
}

impl ThreadState {
    fn merge(&mut self, s: ThreadState) {
        for (a, b) in self.accs.iter_mut().zip(&s.accs) {
            a.add(b);
        }
        for (a, b) in self.findings.iter_mut().zip(&s.findings) {
            a.merge(b);
        }
        for (a, b) in self.cannot_store.iter_mut().zip(&s.cannot_store) {
            *a += b;
        }
        self.folders.extend(s.folders);
    }
}

/// One config's row from the summed counters (config `i`, of distinct
/// filesystem `f`).
fn row(
    cfg: &Config,
    model: &dyn Model,
    total: &ThreadState,
    i: usize,
    f: usize,
    apparent: u64,
    volume: u64,
) -> ConfigReport {
    let sizes = model.finish(&total.accs[i]);
    let tree_bytes = sizes.tree_bytes();
    let free_bytes = model.free_bytes();
    let found = &total.findings[f];
    // Against the files it stores: what it cannot store is apart.
    let cannot_store_bytes = total.cannot_store[f];
    let unmountable = cfg.fs.unmountable(cfg.cluster);
    let stored = apparent - cannot_store_bytes;
    let overhead_pct = if stored == 0 {
        0.0
    } else {
        tree_bytes as f64 / stored as f64 * 100.0 - 100.0
    };
    ConfigReport {
        fs: cfg.fs.name().to_string(),
        cluster_bytes: cfg.cluster,
        driver: cfg.driver.clone(),
        free_bytes,
        tree_bytes,
        data_bytes: sizes.data_bytes,
        slack_bytes: sizes.slack_bytes,
        metadata_bytes: sizes.metadata_bytes,
        cannot_store_bytes,
        overhead_pct: (overhead_pct * 100.0).round() / 100.0,
        overhead_note: no_percentage(apparent, cannot_store_bytes, overhead_pct)
            .map(|n| n.why().to_string()),
        fits: model.fits(&sizes) && found.counts.too_large == 0 && unmountable.is_none(),
        unmountable,
        exact: cfg.exact,
        problems: found.counts.clone(),
        problem_examples: found
            .examples
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        default_cluster: cfg.fs.default_cluster(volume) == cfg.cluster,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scan::{Entry, Kind};

    /// A large folder as the walk hands it over: names that collide, that
    /// Windows refuses, that are too long, not UTF-8 or odd in time, files
    /// too large for FAT, a sparse one, links, subfolders.
    fn large_folder() -> Vec<Entry> {
        let mut v: Vec<Entry> = (0..3000u64)
            .map(|i| {
                let name = match i % 7 {
                    0 => format!("File{i}.TXT"),
                    1 => format!("file{}.txt", i - 1),
                    2 => format!("bad:{i}?"),
                    3 => format!("{}{i}", "é".repeat(130)),
                    4 => format!("trailing{i}."),
                    _ => format!("plain-{i}"),
                };
                let kind = match i % 11 {
                    0 => Kind::Dir,
                    1 => Kind::Symlink,
                    _ => Kind::File,
                };
                let mtime = 315_532_700 + (i as i64) * 3_600_001;
                Entry::new(name.into(), kind, i * 4099 % 300_000, mtime)
            })
            .collect();
        v.push(Entry::new("big.iso".into(), Kind::File, 5 << 30, 0));
        v.push(Entry::new("sparse".into(), Kind::File, 1 << 30, 0).with_allocated(8192));
        #[cfg(unix)]
        v.push(Entry::new(
            std::os::unix::ffi::OsStringExt::from_vec(b"x\xff".to_vec()),
            Kind::File,
            1,
            1,
        ));
        v
    }

    #[test]
    fn a_large_folder_evaluated_in_parallel_counts_as_on_one_thread() {
        for top in [None, Some(3)] {
            let opts = UsageOptions {
                threads: 3,
                cross_mounts: false,
                top,
                appledouble: top.is_some(),
            };
            let (configs, _) = plan(&[], 64 << 30, None).unwrap();
            let shape = Shape::of(&configs, &opts);
            let eval = Eval {
                shape: &shape,
                configs: &configs,
                opts: &opts,
            };
            let entries = large_folder();
            assert!(entries.len() >= PARALLEL_DIR);
            let rel = std::path::Path::new("some/folder");
            let dir = scan::Dir::new(rel, false, &entries);
            let mut one = shape.new_state(configs.len());
            eval.dir(&dir, &mut one);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap();
            let many = pool.install(|| eval.dir_in_parallel(&dir));
            assert_eq!(one.accs, many.accs);
            assert_eq!(one.cannot_store, many.cannot_store);
            assert!(one.cannot_store.contains(&(5 << 30)));
            for (a, b) in one.findings.iter().zip(&many.findings) {
                assert_eq!(a.counts, b.counts);
                assert_eq!(a.examples, b.examples);
            }
            assert!(one.findings.iter().any(|f| f.counts.case_collision > 0));
            let folders = |s: &ThreadState| format!("{:?}", s.folders);
            assert_eq!(folders(&one), folders(&many));
            assert_eq!(one.folders.len(), usize::from(top.is_some()));
        }
    }
}
