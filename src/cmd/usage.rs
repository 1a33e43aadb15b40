//! `fsfit usage`: walk the tree (or read a listing of it) once, print the
//! size on disk of every config.

use super::progress::Spinner;
use crate::cli::{TreeArgs, UsageArgs};
use crate::fs::spec::FsSpec;
use crate::report;
use crate::usage::{self, UsageReport};
use crate::{Error, Result};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// What to print on stdout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Table,
    Json,
    Csv,
    /// `--matrix`: filesystem rows × cluster columns.
    Matrix,
}

/// The tree to walk, checked: every path exists.
#[derive(Debug)]
pub struct Walk {
    pub paths: Vec<PathBuf>,
    pub threads: usize,
    pub cross_mounts: bool,
    /// `--manifest FILE [--format F]`: read the tree from a listing instead.
    pub manifest: Option<(PathBuf, Option<crate::manifest::Format>)>,
    /// `--top N`: the folders that waste the most at the first config.
    pub top: Option<usize>,
    /// `--appledouble`: count a Finder copy's `._` files.
    pub appledouble: bool,
}

impl Walk {
    pub fn new(a: &TreeArgs, cross_mounts: bool) -> Result<Walk> {
        let paths = if a.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            a.paths.clone()
        };
        for p in &paths {
            readable(p)?;
        }
        overlapping(&paths)?;
        let threads = a.threads.map_or_else(default_threads, |t| t as usize);
        Ok(Walk {
            paths,
            threads,
            cross_mounts,
            manifest: None,
            top: None,
            appledouble: false,
        })
    }
}

/// Walker threads per core when `--threads` is not given. A thread blocks
/// now and then inside a system call (a directory read, a lock in the
/// kernel's dentry cache); with one thread per core that core idles, with
/// more another thread takes it. On /usr (2 cores, quiet machine) fsfit
/// kept 1.84 cores busy with 2 threads and 1.91 with 8, against diskus's
/// 1.97 with its own 3 per core.
const THREADS_PER_CORE: usize = 4;

/// The walker threads `--threads` defaults to (its help says so).
pub fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores * THREADS_PER_CORE
}

/// A top-level PATH must be readable: a folder listed, a file opened (an
/// unreadable one is a bad argument, exit 2, not a table of zeros).
fn readable(p: &std::path::Path) -> Result<()> {
    let bad = |e: std::io::Error| Error::input(format!("{}: {e}", p.display()));
    let meta = std::fs::metadata(p).map_err(bad)?;
    if meta.is_dir() {
        std::fs::read_dir(p).map_err(bad)?;
    } else if meta.is_file() {
        std::fs::File::open(p).map_err(bad)?;
    }
    Ok(())
}

/// The same tree given twice, or one PATH inside another, would be counted
/// twice: refused, naming both.
fn overlapping(paths: &[PathBuf]) -> Result<()> {
    let real: Vec<PathBuf> = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    for (i, a) in real.iter().enumerate() {
        for (j, b) in real.iter().enumerate().skip(i + 1) {
            let (pa, pb) = (paths[i].display(), paths[j].display());
            if a == b {
                return Err(Error::input(format!(
                    "{pa} and {pb} are the same folder: give it once (it would be counted twice)"
                )));
            }
            let (inner, outer) = if a.starts_with(b) {
                (pa, pb)
            } else if b.starts_with(a) {
                (pb, pa)
            } else {
                continue;
            };
            return Err(Error::input(format!(
                "{inner} is inside {outer}: give only {outer} (it would be counted twice)"
            )));
        }
    }
    Ok(())
}

#[derive(Debug)]
pub struct Options {
    pub walk: Walk,
    /// Empty: every filesystem at its default cluster plus its sweep.
    pub specs: Vec<FsSpec>,
    pub volume: u64,
    /// No --volume: the volume is assumed (and the output says so).
    pub volume_assumed: bool,
    /// `--driver`; None: the one this host would mount with.
    pub driver: Option<crate::fs::DriverKind>,
    pub format: Format,
    /// `--json FILE` or `--csv FILE`: also written there, the table printed.
    pub file: Option<(Format, PathBuf)>,
    pub report: Option<PathBuf>,
}

impl Options {
    pub fn new(a: &UsageArgs) -> Result<Options> {
        let (mut json, mut csv) = (a.json.clone(), a.csv.clone());
        // `usage --json DIR`: DIR is the tree (the old flag's spelling).
        let mut tree = TreeArgs {
            paths: a.tree.paths.clone(),
            threads: a.tree.threads,
        };
        // `usage --json PATH` once meant "walk PATH": with no PATH given,
        // an existing file or folder there is that input (a file of the
        // user's would otherwise be overwritten by the JSON).
        let no_path = tree.paths.is_empty() && a.manifest.is_none();
        for (option, dest) in [("--json", &mut json), ("--csv", &mut csv)] {
            let old = |p: &std::path::Path| p.is_dir() || (no_path && p.exists());
            if let Some(p) = super::old_spelling(option, dest, old) {
                tree.paths.insert(0, p);
            }
        }
        let doc = match (&json, &csv) {
            (Some(j), _) => Some((Format::Json, j.clone())),
            (_, Some(c)) => Some((Format::Csv, c.clone())),
            _ => None,
        };
        let shown = if a.matrix {
            Format::Matrix
        } else {
            Format::Table
        };
        let (format, file) = match doc {
            Some((f, p)) if super::is_stdout(&p) => (f, None),
            Some((f, p)) => (shown, Some((f, p))),
            None => (shown, None),
        };
        if a.top.is_some() && a.fs.is_empty() {
            return Err(Error::input(
                "--top shows the waste of one config: give it with --fs (e.g. --fs exfat:128K)",
            ));
        }
        super::output_folders_exist([&a.report, &json, &csv])?;
        let mut walk = Walk::new(&tree, a.cross_mounts)?;
        walk.top = a.top.map(|n| n as usize);
        walk.appledouble = a.appledouble;
        if let Some(file) = &a.manifest {
            if file.as_os_str() != "-" {
                std::fs::metadata(file)
                    .map_err(|e| Error::input(format!("{}: {e}", file.display())))?;
            }
            walk.manifest = Some((file.clone(), a.format));
        } else if a.format.is_some() {
            return Err(Error::input(
                "--format names the format of a --manifest listing: give --manifest FILE too",
            ));
        }
        Ok(Options {
            walk,
            specs: a.fs.clone(),
            volume: a.volume.bytes().0,
            volume_assumed: a.volume.bytes().1,
            driver: a.driver.map(Into::into),
            format,
            file,
            report: a.report.clone(),
        })
    }
}

pub fn run(o: &Options, quiet: bool) -> Result<()> {
    let mut r = walk(&o.walk, &o.specs, o.volume, o.driver, quiet)?;
    r.volume_assumed = o.volume_assumed;
    let render = |f: Format| match f {
        Format::Json => report::json::usage(&r),
        Format::Csv => report::csv::usage(&r),
        Format::Table => report::text::usage::usage(&r),
        Format::Matrix => report::text::usage::matrix(&r),
    };
    let out = render(o.format);
    if let Some((f, path)) = &o.file {
        super::emit(path, &render(*f))?;
    }
    if let Some(path) = &o.report {
        let mut inputs = report::inputs::Inputs::default();
        let input = report::inputs::Input::Usage(Box::new(r));
        inputs.add("this run", "fsfit usage (this run)", input);
        super::report::write(&inputs, path, None)?;
    }
    match o.format {
        Format::Table | Format::Matrix => super::print_text(&out),
        Format::Json | Format::Csv => super::print(&out),
    }
}

/// Walk the tree once for every planned config; warnings go to stderr.
pub fn walk(
    w: &Walk,
    specs: &[FsSpec],
    volume: u64,
    driver: Option<crate::fs::DriverKind>,
    quiet: bool,
) -> Result<UsageReport> {
    let (configs, refused) = usage::plan(specs, volume, driver)?;
    let counter = Arc::new(AtomicU64::new(0));
    let spinner = Spinner::start(quiet, counter.clone());
    let source = match &w.manifest {
        Some((file, format)) => usage::Source::Manifest {
            file,
            format: *format,
        },
        None => usage::Source::Walk(&w.paths),
    };
    let result = usage::run(
        &source,
        configs,
        refused,
        volume,
        &usage::UsageOptions {
            threads: w.threads,
            cross_mounts: w.cross_mounts,
            top: w.top,
            appledouble: w.appledouble,
        },
        &counter,
    );
    drop(spinner);
    let r = result?;
    warn(&r);
    Ok(r)
}

/// What could not be read or stored as it is, on stderr.
fn warn(r: &UsageReport) {
    for e in &r.errors {
        crate::say!("warning: {}: {}", e.path.display(), e.message);
    }
    if r.tree.errors > r.errors.len() as u64 {
        crate::say!(
            "warning: {} more entries could not be read",
            r.tree.errors - r.errors.len() as u64
        );
    }
    for l in r.listing.iter().flat_map(|l| &l.lacks) {
        crate::say!("note: {l}");
    }
    if r.tree.non_utf8_names > 0 {
        let n = &r.tree.non_utf8_names;
        crate::say!(
            "warning: {} not valid UTF-8 (FAT, exFAT, NTFS and UDF cannot store {} as {})",
            crate::units::count_as(*n, "name is", "names are"),
            if *n == 1 { "it" } else { "them" },
            if *n == 1 { "it is" } else { "they are" }
        );
    }
    if r.tree.control_char_names > 0 {
        crate::say!(
            "warning: {} a newline or another control character",
            crate::units::count_as(r.tree.control_char_names, "name holds", "names hold")
        );
    }
}
