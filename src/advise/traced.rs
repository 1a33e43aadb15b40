//! advise on the user's own files: a sample of the tree, stratified by file
//! size, copied onto each candidate with its real driver under block
//! tracing, and the trace replayed through the flash profile (bench
//! --flash's capture and replay, through bench's runner: the same cold
//! volume, cleanup and progress). Candidates of different filesystems then
//! carry simulated times that compare, since each one's own metadata
//! pattern (journal, inode tables, allocation tables) is in its trace.

use super::{Simulation, TracedSample};
use crate::bench::{self, results::BenchReport, workloads};
use crate::scan::{size_class, TreeCounts};
use crate::{Error, Result};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// At most this many files of each size class are copied.
const MAX_FILES_PER_CLASS: usize = 100;
/// At most this many bytes of each size class are copied.
const MAX_BYTES_PER_CLASS: u64 = 24 << 20;
/// The walk that finds the sample stops after this many entries.
const MAX_WALKED: u64 = 200_000;
/// The image each candidate is made on: the volume's size, at most this
/// (a sparse file: only what is written takes space).
const MAX_IMAGE: u64 = 32 << 30;
/// The workloads' names, one per size class (scan::SIZE_CLASS_LIMITS).
const NAMES: [&str; 3] = [
    "your-files-under-64k",
    "your-files-64k-16m",
    "your-files-16m-up",
];

/// Their kinds: writes, which wait for the device in a replay. Not in
/// bench/kinds.rs: they copy the user's files, so no bench run lists them.
const fn copy_kind(name: &'static str) -> workloads::Kind {
    workloads::Kind {
        name,
        unit: workloads::Unit::MbPerS,
        phase: workloads::Phase::Write,
        overlap: crate::flash::Overlap::Wait,
    }
}
static KINDS: [workloads::Kind; 3] = [
    copy_kind(NAMES[0]),
    copy_kind(NAMES[1]),
    copy_kind(NAMES[2]),
];

/// One file of the sample: where it is, where its copy goes, how long.
#[derive(Clone, Debug)]
struct Pick {
    src: PathBuf,
    rel: PathBuf,
    size: u64,
}

/// The sample of one size class, copied as one bench workload.
struct ClassCopy {
    class: usize,
    files: Vec<Pick>,
}

/// Files of the tree by size class, in walk order, until the walk's bound.
fn walk(paths: &[PathBuf]) -> [Vec<Pick>; 3] {
    let mut out: [Vec<Pick>; 3] = Default::default();
    let mut seen = 0u64;
    for (i, root) in paths.iter().enumerate() {
        let mut stack = vec![(root.clone(), PathBuf::from(format!("p{i}")))];
        while let Some((dir, rel)) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = rd.flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                seen += 1;
                if seen > MAX_WALKED {
                    return out;
                }
                let Ok(t) = e.file_type() else { continue };
                let r = rel.join(format!("e{seen}"));
                if t.is_dir() {
                    stack.push((e.path(), r));
                } else if t.is_file() {
                    let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                    out[size_class(size)].push(Pick {
                        src: e.path(),
                        rel: r,
                        size,
                    });
                }
            }
        }
    }
    out
}

/// Every k-th file of a class, k chosen so at most MAX_FILES_PER_CLASS are
/// kept, then cut where the bytes pass MAX_BYTES_PER_CLASS; a first file
/// larger than that is copied in part (its first MAX_BYTES_PER_CLASS: the
/// class of files of 16 MiB and up is scaled by bytes).
fn stratify(class: Vec<Pick>) -> Vec<Pick> {
    let step = class.len().div_ceil(MAX_FILES_PER_CLASS).max(1);
    let mut bytes = 0;
    let mut v = Vec::new();
    for mut p in class.into_iter().step_by(step) {
        if !v.is_empty() && bytes + p.size > MAX_BYTES_PER_CLASS {
            break;
        }
        p.size = p.size.min(MAX_BYTES_PER_CLASS);
        bytes += p.size;
        v.push(p);
    }
    v
}

/// Copy the first `len` bytes of `from` to a new file `to` (written
/// through if `through`: the mount policy's); the bytes copied.
fn copy_prefix(
    from: &std::path::Path,
    to: &std::path::Path,
    len: u64,
    through: bool,
) -> std::io::Result<u64> {
    use std::io::Read;
    let src = std::fs::File::open(from)?;
    let mut dst = crate::fs::policy::create(to, through)?;
    std::io::copy(&mut src.take(len), &mut dst)
}

impl workloads::Workload for ClassCopy {
    fn kind(&self) -> &'static workloads::Kind {
        &KINDS[self.class]
    }
    fn family(&self) -> &'static str {
        NAMES[self.class]
    }
    fn describe(&self, _scale: f64) -> String {
        format!("copy {} of your files, syncfs", self.files.len())
    }
    fn space_needed(&self, _scale: f64) -> u64 {
        self.files.iter().map(|p| p.size).sum()
    }
    fn run(&self, ctx: &mut workloads::Ctx) -> Result<workloads::Outcome> {
        let root = ctx.dir(self.family());
        let mut out = workloads::Outcome::default();
        for p in &self.files {
            ctx.check_cancel()?;
            let to = root.join(&p.rel);
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d)
                    .map_err(|e| Error::work(format!("{}: {e}", d.display())))?;
            }
            // A file that vanished or cannot be read since the walk is left
            // out of the copy (and of its bytes).
            if let Ok(n) = copy_prefix(&p.src, &to, p.size, ctx.through) {
                out.files += 1;
                out.bytes += n;
            }
            ctx.ops += 4;
        }
        ctx.syncfs()?;
        Ok(out)
    }
}

/// Why the traced copy cannot run here, if it cannot: it needs root to
/// make and mount volumes, and files to copy (not a listing).
pub fn unavailable(from_listing: bool) -> Option<String> {
    if !crate::device::is_root() {
        return Some("it needs root to make and mount the candidates' volumes".into());
    }
    if from_listing {
        return Some("the tree is a listing (--manifest), not files to copy".into());
    }
    if let Err(e) = crate::flash::trace::ensure_tracefs() {
        return Some(format!("no block trace here ({e})"));
    }
    None
}

/// At most this many configs are traced.
const MAX_TRACED: usize = 16;

/// The configs worth a traced copy: of each filesystem (in the ranking's
/// order, among the candidates that store every file), its first two
/// within the overhead limit, else its first, and its least wasteful;
/// every filesystem gets a figure before any gets a second cluster. The
/// ranking's first goes first whatever its overhead: a card's
/// specification layout, or the least space when nothing is within the
/// limit, is the choice, and the advice needs its own figure.
pub fn pick(ranked: &[super::Candidate], max_overhead: f64) -> Vec<(String, u64)> {
    let fewest = ranked.iter().map(|c| c.problems).min().unwrap_or(0);
    let ok: Vec<&super::Candidate> = ranked.iter().filter(|c| c.problems == fewest).collect();
    let mut fss: Vec<&str> = Vec::new();
    for c in &ok {
        if !fss.contains(&c.fs.as_str()) {
            fss.push(&c.fs);
        }
    }
    let per_fs = |f: &str| -> Vec<(String, u64)> {
        let mine: Vec<&super::Candidate> = ok.iter().copied().filter(|c| c.fs == f).collect();
        let within: Vec<&super::Candidate> = mine
            .iter()
            .copied()
            .filter(|c| c.overhead_pct <= max_overhead)
            .take(2)
            .collect();
        let chosen = if within.is_empty() {
            mine.iter().copied().take(1).collect()
        } else {
            within
        };
        // The least wasteful, which the trade-offs weigh the choice against.
        let least = mine.iter().copied().min_by_key(|c| c.tree_bytes);
        let mut v: Vec<(String, u64)> = Vec::new();
        for c in chosen.into_iter().chain(least) {
            if !v.iter().any(|(_, k)| *k == c.cluster_bytes) {
                v.push((c.fs.clone(), c.cluster_bytes));
            }
        }
        v
    };
    let lists: Vec<Vec<(String, u64)>> = fss.iter().map(|f| per_fs(f)).collect();
    let mut out: Vec<(String, u64)> = ranked
        .first()
        .map(|c| (c.fs.clone(), c.cluster_bytes))
        .into_iter()
        .collect();
    for round in 0..3 {
        for c in lists.iter().filter_map(|l| l.get(round)) {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
    }
    out.truncate(MAX_TRACED);
    out
}

/// What tracing needs from advise.
pub struct Tracing<'a> {
    pub paths: &'a [PathBuf],
    pub tree: &'a TreeCounts,
    pub profile: &'a crate::flash::Profile,
    pub policy: crate::fs::policy::MountPolicy,
    pub volume: u64,
    /// Where each config's plan puts the volume on the drive
    /// ([`super::plan::volume_start`]): its traced copy is replayed there.
    pub volume_start: &'a dyn Fn(&str, u64) -> u64,
    pub budget: Duration,
    pub quiet: bool,
}

/// Copy the sample onto each of `configs` in turn while the budget lasts.
/// Returns the figures (whole-tree MB/s per config) and the statement.
pub fn run(t: &Tracing, configs: &[(String, u64)]) -> Result<Simulation> {
    let started = Instant::now();
    let classes: Vec<ClassCopy> = walk(t.paths)
        .into_iter()
        .enumerate()
        .map(|(class, files)| ClassCopy {
            class,
            files: stratify(files),
        })
        .filter(|c| !c.files.is_empty())
        .collect();
    let sample = statement(&classes, t.tree);
    let wl: Vec<&'static dyn workloads::Workload> = classes
        .into_iter()
        .map(|c| &*Box::leak(Box::new(c)) as &'static dyn workloads::Workload)
        .collect();
    let mut sim = Simulation {
        method: "traced",
        why: "a sample of your files copied onto each candidate with its real driver, the block \
              trace replayed through the profile"
            .into(),
        profile: t.profile.name.clone(),
        alignment: None,
        mount_policy: t.policy.name(),
        sample: Some(sample),
        seconds: 0.0,
        not_traced: Vec::new(),
        figures: Vec::new(),
    };
    // Counted over the configs that can be traced here, so the progress
    // reads 1, 2, 3 of 3 (not 1, 2, 5 of 8 when some have no driver).
    let drivers: Vec<Option<String>> = configs.iter().map(|(fs, _)| no_driver(fs)).collect();
    let traceable = drivers.iter().filter(|d| d.is_none()).count();
    let mut nth = 0;
    for ((fs, cluster), no_driver) in configs.iter().zip(drivers) {
        if let Some(why) = no_driver {
            let line = format!("{fs}: not traced, {why}");
            if !sim.not_traced.contains(&line) {
                sim.not_traced.push(line);
            }
            continue;
        }
        nth += 1;
        if started.elapsed() >= t.budget {
            sim.not_traced.push(format!(
                "{fs} {}: not traced, the budget ({} s) was spent",
                crate::units::short(*cluster),
                t.budget.as_secs()
            ));
            continue;
        }
        if !t.quiet {
            eprintln!(
                "advise: copying a sample of your files onto {fs} {} ({nth} of {traceable}) under trace",
                crate::units::short(*cluster),
            );
        }
        match one(t, &wl, fs, *cluster) {
            Ok(r) => match whole_tree_mb_s(&r, t.tree, t.profile) {
                Some(mbps) => sim.figures.push((fs.clone(), *cluster, mbps)),
                None => sim.not_traced.push(format!("{fs}: {}", failure(&r))),
            },
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(e) => sim.not_traced.push(format!("{fs}: {e}")),
        }
    }
    sim.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    Ok(sim)
}

/// Why `fs` cannot be traced as people use it here, if it cannot: no
/// driver, or only one that writes nothing until unmount (fusefat), whose
/// trace says nothing of the kernel driver people have.
fn no_driver(fs: &str) -> Option<String> {
    let f = crate::fs::by_name(fs)?;
    match crate::fs::drivers::choose(f, crate::fs::drivers::Choice::Auto) {
        Err(e) => Some(e.to_string()),
        Ok((d, label)) if d.is_fuse() && f.info().drivers.fuse.is_some_and(|x| x.defers_writes) => {
            Some(format!(
                "only {label} here, which writes nothing until unmount"
            ))
        }
        Ok(_) => None,
    }
}

fn failure(r: &BenchReport) -> String {
    r.results
        .iter()
        .find_map(|c| c.error.clone())
        .or_else(|| r.skipped.first().map(|s| s.reason.clone()))
        .unwrap_or_else(|| "no simulated figure".into())
}

/// One config: bench's runner on a temporary image, one traced run per
/// size class.
fn one(
    t: &Tracing,
    wl: &[&'static dyn workloads::Workload],
    fs: &str,
    cluster: u64,
) -> Result<BenchReport> {
    let spec = crate::fs::spec::parse_fs_spec(&format!("{fs}:{cluster}"))?;
    bench::run(&bench::Options {
        target: crate::device::target::TargetSpec::TempImage {
            size: Some(t.volume.min(MAX_IMAGE)),
        },
        specs: vec![spec],
        driver: crate::fs::drivers::Choice::Auto,
        workloads: wl.to_vec(),
        scale: 1.0,
        min_seconds: 0.0,
        repeat: 1,
        quiet: t.quiet,
        baseline: None,
        command: std::env::args().collect(),
        flash: Some(bench::flash::FlashOptions {
            profiles: vec![t.profile.clone()],
            partition_offsets: vec![(t.volume_start)(fs, cluster)],
        }),
        mount_policy: t.policy,
        // One traced run per class: the simulated figure, not the host's
        // spread, is what advise uses.
        settle: None,
    })
}

/// The whole tree's simulated MB/s from the sample's: each class's
/// simulated seconds scaled up by the class's files over the sample's
/// (under 16 MiB: the per-file cost dominates) or bytes (16 MiB and up).
fn whole_tree_mb_s(r: &BenchReport, tree: &TreeCounts, p: &crate::flash::Profile) -> Option<f64> {
    let c = r.results.iter().find(|c| c.error.is_none())?;
    let mut secs = 0.0;
    for (class, name) in NAMES.iter().enumerate() {
        let want = &tree.by_size[class];
        if want.files == 0 {
            continue;
        }
        let w = c.workloads.iter().find(|w| w.name == *name)?;
        let s = w.simulated.iter().find(|s| s.profile == p.name)?;
        let factor = if class < 2 {
            want.files as f64 / w.files.max(1) as f64
        } else {
            want.bytes as f64 / w.bytes.max(1) as f64
        };
        secs += s.median_seconds * factor;
    }
    (secs > 0.0).then(|| tree.apparent_bytes as f64 / 1e6 / secs)
}

/// What was copied, and how it was chosen.
fn statement(classes: &[ClassCopy], tree: &TreeCounts) -> TracedSample {
    let files: u64 = classes.iter().map(|c| c.files.len() as u64).sum();
    let bytes: u64 = classes.iter().flat_map(|c| &c.files).map(|p| p.size).sum();
    TracedSample {
        files,
        bytes,
        tree_files: tree.files,
        per_class: classes.iter().map(|c| c.files.len() as u64).collect(),
        how: format!(
            "stratified by file size (under 64 KiB, 64 KiB-16 MiB, 16 MiB and up): every k-th \
             file of each class in walk order, at most {MAX_FILES_PER_CLASS} files and {} per \
             class (the walk stops after {MAX_WALKED} entries); each class's simulated time is \
             scaled to the class's files (under 16 MiB) or bytes (16 MiB and up)",
            crate::units::iec(MAX_BYTES_PER_CLASS)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn picks(sizes: &[u64]) -> Vec<Pick> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| Pick {
                src: PathBuf::from(format!("/x/{i}")),
                rel: PathBuf::from(format!("{i}")),
                size,
            })
            .collect()
    }

    #[test]
    fn the_sample_is_bounded_in_files_and_bytes() {
        let s = stratify(picks(&[1000; 1000]));
        assert!(s.len() <= MAX_FILES_PER_CLASS && s.len() >= MAX_FILES_PER_CLASS / 2);
        // Evenly spread: the first and a late file are both in.
        assert_eq!(s[0].rel, Path::new("0"));
        assert!(
            s.last()
                .unwrap()
                .rel
                .to_string_lossy()
                .parse::<u32>()
                .unwrap()
                > 900
        );
        let big = stratify(picks(&[20 << 20; 10]));
        assert_eq!(big.len(), 1, "24 MiB holds one 20 MiB file");
        let one = stratify(picks(&[100 << 20]));
        assert_eq!(one.len(), 1, "at least one file");
        assert_eq!(one[0].size, MAX_BYTES_PER_CLASS, "copied in part");
    }
}
