//! The run: plan the configs, set up the target, and for each config format,
//! mount, run every workload `repeat` times with cold caches before reads and
//! durable writes inside the timing, reading the device's own counters.

use super::flash::Sim;
use super::measure::{host, progress, report_text, run_workloads, Cold, Runs, Site};
use super::prepare::{prepare_target, Prepared};
use super::results::*;
use super::workloads::{Data, Workload};
use crate::cancel;
use crate::device::mount::{self, Driver, Mounted};
use crate::device::run_tool;
use crate::device::target::TargetSpec;
use crate::fs::drivers::{self, Choice};
use crate::fs::spec::FsSpec;
use crate::fs::{self, Filesystem};
use crate::units::short;
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct Options {
    pub target: TargetSpec,
    pub specs: Vec<FsSpec>,
    pub driver: Choice,
    pub workloads: Vec<&'static dyn Workload>,
    pub scale: f64,
    /// Grow each workload family's scale until one run takes at least this
    /// long (0: sized by --scale alone).
    pub min_seconds: f64,
    pub repeat: u32,
    /// More runs than `repeat` while a figure's spread has not settled
    /// (`--quick`); None: exactly `repeat`.
    pub settle: Option<super::settle::Settle>,
    pub quiet: bool,
    /// "fs:cluster" or "fs"; default the first config.
    pub baseline: Option<String>,
    pub command: Vec<String>,
    /// `--flash`: trace every run and replay it through these profiles.
    pub flash: Option<super::flash::FlashOptions>,
    /// `--mount-policy`: the options every config is mounted with.
    pub mount_policy: fs::policy::MountPolicy,
}

impl Options {
    /// What the measuring loop takes of them.
    fn runs(&self) -> Runs<'_> {
        Runs {
            workloads: &self.workloads,
            scale: self.scale,
            min_seconds: self.min_seconds,
            repeat: self.repeat,
            settle: self.settle,
        }
    }
}

pub(super) const DEFAULT_IMAGE: u64 = 4 << 30;

/// One config to run.
struct Planned {
    fs: &'static dyn Filesystem,
    cluster: u64,
    driver: Driver,
    label: String,
    /// What the mount policy only approximates with this driver.
    policy_note: Option<String>,
}

/// Bytes the target must hold for these workloads at this scale.
pub fn space_needed(opts: &Options) -> u64 {
    opts.runs().space_needed()
}

fn plan(opts: &Options, volume: u64) -> (Vec<Planned>, Vec<Skipped>) {
    let mut wanted: Vec<(&'static dyn Filesystem, u64, bool)> = Vec::new();
    if opts.specs.is_empty() {
        for &f in fs::all() {
            wanted.push((f, f.default_cluster(volume), false));
        }
        // Every default first, then the extra clusters each filesystem asks for.
        for &f in fs::all() {
            for c in f.bench_sweep(volume) {
                wanted.push((f, c, false));
            }
        }
    } else {
        for s in &opts.specs {
            for c in &s.clusters {
                wanted.push((
                    s.fs,
                    c.unwrap_or_else(|| s.fs.default_cluster(volume)),
                    true,
                ));
            }
        }
    }
    let mut planned = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (f, cluster, explicit) in wanted {
        if !seen.insert((f.name(), cluster)) {
            continue;
        }
        let skip = |reason: String| Skipped {
            fs: f.name().into(),
            cluster_bytes: cluster,
            reason,
        };
        let Some(mkfs) = f.mkfs(cluster) else {
            skipped.push(skip("fsfit cannot format it".into()));
            continue;
        };
        if !crate::device::have_program(&mkfs[0]) {
            skipped.push(skip(format!("{} is not installed", mkfs[0])));
            continue;
        }
        if let Err(e) = f.model(volume, cluster) {
            skipped.push(skip(e.to_string()));
            continue;
        }
        match drivers::choose(f, opts.driver) {
            Ok((driver, label)) => {
                // A slow FUSE driver only for tiny runs, or when asked for by name.
                if driver.is_fuse()
                    && f.info().drivers.fuse.is_some_and(|d| d.slow)
                    && !explicit
                    && opts.scale > 0.005
                {
                    skipped.push(skip(format!(
                        "only a slow FUSE driver here ({label}); name it with --fs {} to run it anyway",
                        f.name()
                    )));
                    continue;
                }
                let applied = fs::policy::apply(f, opts.mount_policy, &driver);
                planned.push(Planned {
                    fs: f,
                    cluster,
                    driver: applied.driver,
                    label,
                    policy_note: applied.note,
                });
            }
            Err(e) => skipped.push(skip(e.to_string())),
        }
    }
    (planned, skipped)
}

struct ConfigRun<'a> {
    opts: &'a Options,
    prepared: &'a Prepared,
    data: &'a Data,
    pb: &'a indicatif::ProgressBar,
}

/// Why a run stops before its end (interrupted, or a device that is no
/// longer the one confirmed), with what the config measured until then.
struct Stop(Error, Option<Box<ConfigResult>>);

impl ConfigRun<'_> {
    fn run(&self, p: &Planned) -> Result<ConfigResult, Stop> {
        let dev = self.prepared.dev.as_deref().expect("a device to format");
        let mut argv = p.fs.mkfs(p.cluster).expect("planned configs have mkfs");
        argv.push(dev.to_string());
        let mkfs_line = format!(
            "{} ({} {})",
            argv.join(" "),
            argv[0],
            drivers::tool_version(&argv[0])
        );
        let mut res = ConfigResult {
            fs: p.fs.name().into(),
            cluster_bytes: p.cluster,
            driver: p.label.clone(),
            format_seconds: 0.0,
            mkfs: mkfs_line,
            mount_options: match &p.driver {
                Driver::Kernel { opts, .. } => opts.clone(),
                Driver::Fuse { args, .. } => args.join(" "),
            },
            mount_policy: self.opts.mount_policy.name().to_string(),
            mount_policy_note: p.policy_note.clone(),
            error: None,
            workloads: Vec::new(),
        };
        // Still the device confirmed, and nobody else's: else stop the run.
        if let Some(id) = &self.prepared.identity {
            id.confirm().map_err(|e| Stop(e, None))?;
        }
        let t0 = Instant::now();
        let args: Vec<&str> = argv[1..].iter().map(|s| s.as_str()).collect();
        if let Err(e) = run_tool(&argv[0], &args) {
            res.error = Some(e.to_string());
            return Ok(res);
        }
        res.format_seconds = t0.elapsed().as_secs_f64();
        let mut m = match mount::mount(dev, &p.driver) {
            Ok(m) => m,
            Err(e) => {
                res.error = Some(e.to_string());
                return Ok(res);
            }
        };
        let outcome = self.workloads(p, &mut m, &mut res);
        if let Err(e) = m.unmount() {
            res.error.get_or_insert(format!("unmount: {e}"));
        }
        match outcome {
            // Stop the whole run: the caller reports the interruption, and
            // writes what this config measured until then.
            Err(_) if cancel::requested() => {
                res.error = Some(report_text(&Error::Interrupted));
                Err(Stop(Error::Interrupted, Some(Box::new(res))))
            }
            Err(e) => {
                res.error = Some(e.to_string());
                Ok(res)
            }
            Ok(()) => Ok(res),
        }
    }

    fn workloads(&self, p: &Planned, m: &mut Mounted, res: &mut ConfigResult) -> Result<()> {
        let root = m.dir.clone();
        let label = format!("{}:{} ", p.fs.name(), short(p.cluster));
        let counters = self.prepared.counters.as_deref();
        let mut cold = Cold::Remount(m);
        // A fresh flash device per config: what a card is after its format.
        let dev = self.prepared.dev.as_deref().map(Path::new);
        let mut sim = dev
            .zip(self.opts.flash.as_ref())
            .map(|(d, f)| Sim::new(d, f));
        let site = Site {
            runs: self.opts.runs(),
            data: self.data,
            counters,
            pb: self.pb,
            label: &label,
            root: &root,
            through: self.opts.mount_policy.writes_through(),
        };
        run_workloads(&site, &mut cold, res, sim.as_mut())
    }
}

/// `--dir`: the workloads in an already-mounted directory, caches dropped
/// with drop_caches and posix_fadvise before reads.
fn run_dir(
    opts: &Options,
    prepared: &Prepared,
    data: &Data,
    pb: &indicatif::ProgressBar,
) -> Result<ConfigResult> {
    let dir = PathBuf::from(&prepared.info.path);
    let (fstype, source, _) = crate::device::mount_of(&dir).unwrap_or_default();
    let bsize = crate::device::statvfs(&dir)?.f_bsize;
    let root = dir.join(format!("fsfit-bench-{}", std::process::id()));
    std::fs::create_dir(&root).map_err(|e| Error::work(format!("{}: {e}", root.display())))?;
    // Recorded, so that `fsfit cleanup` removes it after a SIGKILL.
    crate::device::state::add_dir(&root);
    let mut res = ConfigResult {
        fs: fstype.clone(),
        cluster_bytes: bsize,
        driver: format!("mounted:{fstype} {source}"),
        format_seconds: 0.0,
        mkfs: String::new(),
        mount_options: String::new(),
        mount_policy: "as-mounted".to_string(),
        mount_policy_note: None,
        error: None,
        workloads: Vec::new(),
    };
    let mut cold = Cold::DropCaches("");
    let site = Site {
        runs: opts.runs(),
        data,
        counters: prepared.counters.as_deref(),
        pb,
        label: "",
        root: &root,
        // Measured as mounted: the policy is the mount's own.
        through: false,
    };
    let outcome = run_workloads(&site, &mut cold, &mut res, None);
    if std::fs::remove_dir_all(&root).is_ok() {
        crate::device::state::remove_dir(&root);
    }
    outcome?;
    Ok(res)
}

/// `--baseline fs[:cluster]`, checked against the plan before anything is
/// formatted: the index of the config it names.
fn baseline_index(b: &str, planned: &[(String, u64)]) -> Result<usize> {
    let (name, cl) = match b.split_once(':') {
        Some((n, c)) => (
            n,
            Some(
                crate::units::parse_size(c)
                    .map_err(|e| Error::input(format!("--baseline {b}: {e}")))?,
            ),
        ),
        None => (b, None),
    };
    planned
        .iter()
        .position(|(f, c)| f == name && cl.is_none_or(|x| x == *c))
        .ok_or_else(|| {
            let have: Vec<String> = planned
                .iter()
                .map(|(f, c)| format!("{f}:{}", short(*c)))
                .collect();
            Error::input(format!(
                "--baseline {b}: no such config in this run (it runs {})",
                have.join(", ")
            ))
        })
}

/// Run every config. An error before anything is measured is an `Err`
/// (Ctrl-C then, whatever error the interrupted step returned, is an
/// interruption; a --baseline naming no config or a target fsfit refuses is
/// bad input); one after (interrupted, a device that changed) is the
/// report's `error`, so that what was measured is still written.
pub fn run(opts: &Options) -> Result<BenchReport> {
    run_configs(opts).map_err(|e| {
        if cancel::requested() {
            Error::Interrupted
        } else {
            e
        }
    })
}

fn run_configs(opts: &Options) -> Result<BenchReport> {
    let prepared = prepare_target(opts)?;
    let data = Data::new(super::measure::DATA_SEED);
    let mut report = BenchReport {
        schema: SCHEMA.into(),
        host: host(),
        target: prepared.info.clone(),
        command: opts.command.clone(),
        date: crate::units::now_utc(),
        scale: opts.scale,
        repeat: opts.repeat,
        baseline: String::new(),
        results: Vec::new(),
        skipped: Vec::new(),
        error: None,
        priority: None,
        freed_memory: None,
        sim: Default::default(),
    };
    if let Some(f) = &opts.flash {
        setup_flash(&prepared, f, &mut report)?;
    }
    // --quick: the runs before other programs' work (bench/priority.rs),
    // back to the priority fsfit had once they end.
    let raised = opts.settle.and_then(|_| super::priority::raise());
    report.priority = raised.as_ref().map(|r| r.said().to_string());
    // Every bench, busy machine or not: the host's faults on memory it took
    // back move runs on a quiet machine too (bench/reclaim.rs).
    let held = super::reclaim::hold_off();
    report.freed_memory = held.said();
    let mut baseline = 0;
    if let TargetSpec::Dir(_) = opts.target {
        run_in_dir(opts, &prepared, &data, &mut report)?;
    } else {
        baseline = run_planned(opts, &prepared, &data, &mut report)?;
    }
    drop(raised);
    drop(held);
    finish(&prepared, baseline, &mut report);
    Ok(report)
}

/// `--flash`: trace the block device fsfit formats (the loop device fsfit
/// attached gets the profile's largest transfer).
fn setup_flash(
    prepared: &Prepared,
    f: &super::flash::FlashOptions,
    report: &mut BenchReport,
) -> Result<()> {
    let dev = prepared.dev.as_deref().map(Path::new).ok_or_else(|| {
        Error::work(
            "--flash traces the block device fsfit formats: use --image or --device, not --dir",
        )
    })?;
    // Only the loop device fsfit attached is fsfit's to change.
    let kb = if prepared._loop.is_some() {
        super::flash::limit(dev, f)
    } else {
        crate::flash::trace::max_sectors_kb(dev)
    };
    crate::flash::trace::ensure_tracefs().map_err(|e| Error::work(format!("--flash: {e}")))?;
    report.sim.trace = Some(super::results::TRACE_SOURCE.into());
    report.sim.partition_offset_bytes = f.partition_offsets.first().copied();
    report.sim.flash = Some(super::flash::info(f, kb));
    Ok(())
}

/// `--dir`: one config, the mounted directory's own.
fn run_in_dir(
    opts: &Options,
    prepared: &Prepared,
    data: &Data,
    report: &mut BenchReport,
) -> Result<()> {
    if let Some(b) = &opts.baseline {
        return Err(Error::input(format!(
            "--baseline {b}: --dir runs one config, there is nothing to compare"
        )));
    }
    let pb = progress(
        opts.quiet,
        (opts.workloads.len() as u64) * opts.repeat as u64,
    );
    let r = run_dir(opts, prepared, data, &pb);
    pb.finish_and_clear();
    match r {
        Ok(r) => report.results.push(r),
        Err(e) => report.error = Some(report_text(&e)),
    }
    report.target.cold_cache = if report.results.iter().flat_map(|r| &r.workloads).any(|w| {
        w.flags
            .iter()
            .any(|f| f == super::flags::CACHE_DROP_PARTIAL)
    }) {
        "fadvise (not root: no drop_caches)".into()
    } else {
        "drop_caches+fadvise".into()
    };
    Ok(())
}

/// Every planned config in turn (the skipped ones said first), until the
/// end or a stop; returns the baseline's index in the plan.
fn run_planned(
    opts: &Options,
    prepared: &Prepared,
    data: &Data,
    report: &mut BenchReport,
) -> Result<usize> {
    let (planned, skipped) = plan(opts, prepared.volume);
    report.skipped = skipped;
    for s in &report.skipped {
        crate::say!("skipping {}:{}: {}", s.fs, short(s.cluster_bytes), s.reason);
    }
    if planned.is_empty() {
        return Err(Error::work(
            "no config can run on this host (see the reasons above)",
        ));
    }
    let mut baseline = 0;
    if let Some(b) = &opts.baseline {
        let names: Vec<(String, u64)> = planned
            .iter()
            .map(|p| (p.fs.name().to_string(), p.cluster))
            .collect();
        baseline = baseline_index(b, &names)?;
    }
    let total = planned.len() as u64 * opts.workloads.len() as u64 * opts.repeat as u64;
    let pb = progress(opts.quiet, total);
    let cr = ConfigRun {
        opts,
        prepared,
        data,
        pb: &pb,
    };
    for p in &planned {
        if let Err(e) = cancel::check() {
            report.error = Some(report_text(&e));
            break;
        }
        match cr.run(p) {
            Ok(r) => {
                if let Some(e) = &r.error {
                    pb.suspend(|| crate::say!("{}:{}: {e}", r.fs, short(r.cluster_bytes)));
                }
                report.results.push(r);
            }
            Err(Stop(e, partial)) => {
                report.results.extend(partial.map(|b| *b));
                report.error = Some(report_text(&e));
                break;
            }
        }
    }
    pb.finish_and_clear();
    Ok(baseline)
}

/// The flags and warnings on the whole run, and the relative figures.
fn finish(prepared: &Prepared, baseline: usize, report: &mut BenchReport) {
    if prepared.host_cache {
        for w in report
            .results
            .iter_mut()
            .flat_map(|r| r.workloads.iter_mut())
        {
            w.flags.push(super::flags::HOST_CACHE.into());
        }
        crate::say!(
            "warning: the host's page cache may serve this image's I/O ({}): figures are marked host-cache",
            report.target.cold_cache
        );
    }
    super::measure::conclude(baseline, report);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::measure::flags_for;
    use crate::bench::workloads::Phase;

    fn run_with(read: u64, write: u64) -> Run {
        Run {
            device_read_bytes: read,
            device_write_bytes: write,
            seconds: 1.0,
            ..Default::default()
        }
    }

    #[test]
    fn baseline_must_name_a_planned_config() {
        let p = vec![("ext4".to_string(), 4096), ("exfat".to_string(), 32768)];
        assert_eq!(baseline_index("exfat", &p).unwrap(), 1);
        assert_eq!(baseline_index("exfat:32K", &p).unwrap(), 1);
        let e = baseline_index("exfta", &p).unwrap_err();
        assert!(matches!(e, Error::Input(_)), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("ext4:4K, exfat:32K"), "{e}");
        assert!(baseline_index("exfat:3Q", &p).is_err());
    }

    #[test]
    fn honesty_flags() {
        let mb = 1_000_000;
        assert!(flags_for(Phase::Read, 100 * mb, &[run_with(100 * mb, 0)], true, 1.0).is_empty());
        assert_eq!(
            flags_for(Phase::Read, 100 * mb, &[run_with(10 * mb, 0)], true, 1.0),
            ["cache-suspect"]
        );
        assert_eq!(
            flags_for(Phase::Write, 100 * mb, &[run_with(0, 50 * mb)], true, 1.0),
            ["write-not-durable"]
        );
        assert!(flags_for(Phase::Write, 100 * mb, &[run_with(0, 120 * mb)], true, 1.0).is_empty());
        assert_eq!(
            flags_for(Phase::Scan, 0, &[run_with(0, 0)], true, 1.0),
            ["cache-suspect"]
        );
        // Mount-time reads are not the phase's: a read phase that took
        // nothing from the device during its timing is suspect however much
        // the remount read.
        let mut r = run_with(0, 0);
        r.mount_read_bytes = Some(200 * mb);
        assert_eq!(
            flags_for(Phase::Read, 100 * mb, &[r.clone()], true, 1.0),
            ["cache-suspect"]
        );
        assert_eq!(
            flags_for(Phase::Scan, 0, &[r], true, 1.0),
            ["cache-suspect"]
        );
        assert_eq!(
            flags_for(Phase::Read, 1, &[run_with(0, 0)], false, 12.0),
            ["no-device-counters", "high-cv"]
        );
    }
}
