//! The run: plan the configs, set up the target, and for each config format,
//! mount, run every workload `repeat` times with cold caches before reads and
//! durable writes inside the timing, reading the device's own counters.

use super::counters::{self, DiskStat};
use super::flash::Sim;
use super::results::*;
use super::stats;
use super::workloads::{self, Ctx, Data, Phase, Workload};
use crate::cancel;
use crate::device::confirm::{self, Answer, Confirmed};
use crate::device::guard::DeviceInfo;
use crate::device::identity::Identity;
use crate::device::loopdev::LoopDev;
use crate::device::mount::{self, Driver, Mounted};
use crate::device::target::TargetSpec;
use crate::device::target::{self, Sizing};
use crate::device::{image, run_tool};
use crate::fs::drivers::{self, Choice};
use crate::fs::spec::FsSpec;
use crate::fs::{self, Filesystem};
use crate::info::describe::{describe_contents, describe_file};
use crate::units::{iec, short};
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
}

const DEFAULT_IMAGE: u64 = 4 << 30;

/// One config to run.
struct Planned {
    fs: &'static dyn Filesystem,
    cluster: u64,
    driver: Driver,
    label: String,
}

/// Bytes the target must hold for these workloads at this scale.
pub fn space_needed(opts: &Options) -> u64 {
    let need = opts
        .workloads
        .iter()
        .map(|w| w.space_needed(opts.scale))
        .max()
        .unwrap_or(0);
    // Room for metadata, slack at big clusters and the filesystem's own share.
    need + need / 3 + (256 << 20)
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
                planned.push(Planned {
                    fs: f,
                    cluster,
                    driver,
                    label,
                });
            }
            Err(e) => skipped.push(skip(e.to_string())),
        }
    }
    (planned, skipped)
}

fn host() -> Host {
    Host {
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        fsfit: env!("CARGO_PKG_VERSION").to_string(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        lab: lab(),
    }
}

/// Which lab VM this runs in, if any: `FSFIT_LAB` (scripts/lab/ sets it), or
/// user-mode Linux recognised by its CPU line, so a run started by hand in
/// the lab is labelled too.
pub(crate) fn lab() -> Option<String> {
    if let Some(v) = std::env::var("FSFIT_LAB").ok().filter(|v| !v.is_empty()) {
        return Some(v);
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpu.contains("User Mode Linux").then(|| "uml".to_string())
}

/// What the report's `error` says for an error: an interruption is
/// "interrupted" there (the JSON field's text since the first release).
fn report_text(e: &Error) -> String {
    match e {
        Error::Interrupted => "interrupted".to_string(),
        e => e.to_string(),
    }
}

/// The progress display: one bar over every run of every config.
fn progress(quiet: bool, total: u64) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} runs  {elapsed_precise}  {msg}",
        )
        .unwrap(),
    );
    pb
}

/// Counters of the block device behind a mounted directory, if it has one.
fn counters_of_dir(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let p = counters::stat_path_of_devno(major, minor);
    p.exists().then_some(p)
}

/// The target, set up: where each config's mkfs goes (none in dir mode).
struct Prepared {
    info: TargetInfo,
    /// Block device to format and mount (loop device or real device).
    dev: Option<String>,
    /// Counters file read around each phase.
    counters: Option<PathBuf>,
    volume: u64,
    /// Checked, with an exclusive open, immediately before every mkfs.
    identity: Option<Identity>,
    /// Device reads and writes may be served by the host's page cache
    /// (a buffered loop device, an image on a RAM-backed filesystem).
    host_cache: bool,
    _loop: Option<LoopDev>,
    _temp: Option<image::TempDir>,
}

fn prepare_target(opts: &Options) -> Result<Prepared> {
    let need = space_needed(opts);
    match &opts.target {
        TargetSpec::TempImage { size } => {
            let t = image::TempDir::new()?;
            let path = t.path().join("bench.img");
            let default = DEFAULT_IMAGE.max(need);
            prepare_image(opts, need, path, (*size, default, false), Some(t))
        }
        TargetSpec::Image {
            path,
            size,
            overwrite,
        } => prepare_image(
            opts,
            need,
            path.clone(),
            (*size, DEFAULT_IMAGE, *overwrite),
            None,
        ),
        TargetSpec::Device {
            dev,
            yes_erase,
            allow_fixed,
        } => prepare_device(opts, need, dev, yes_erase.as_deref(), *allow_fixed),
        TargetSpec::Dir(dir) => prepare_dir(opts, need, dir),
    }
}

/// `--image` or a temporary image: checked and marked (image.rs), attached
/// to a loop device. `sizing` is (--size, the default size, --overwrite-image).
fn prepare_image(
    opts: &Options,
    need: u64,
    path: PathBuf,
    sizing: (Option<u64>, u64, bool),
    temp: Option<image::TempDir>,
) -> Result<Prepared> {
    let (size, default, overwrite) = sizing;
    let fits = |size: u64| {
        if size < need {
            Err(Error::work(format!(
                "the workloads at --scale {} need about {} but the image is {}: pass --size {} or a smaller --scale",
                opts.scale,
                iec(need),
                iec(size),
                short(crate::fs::round_up(need, 1 << 30))
            )))
        } else {
            Ok(())
        }
    };
    let sizing = Sizing {
        size,
        default,
        overwrite,
    };
    let img = target::attach_image(&path, sizing, fits, describe_file, false)?;
    let (size, lp, identity) = (img.volume, img.loop_dev, img.identity);
    let dio = crate::device::loopdev::direct_io(&lp.dev);
    let ram = ram_backed(&path);
    Ok(Prepared {
        info: TargetInfo {
            kind: "image".into(),
            path: path.to_string_lossy().into_owned(),
            size_bytes: size,
            model: None,
            bus: None,
            cold_cache: image_cold_cache(dio, ram.as_deref()),
            counters: lp.dev.clone(),
            loop_direct_io: dio,
            backing_fs: crate::device::mount_of(&path).map(|m| m.0),
        },
        dev: Some(lp.dev.clone()),
        counters: Some(counters::stat_path(lp.name())),
        volume: size,
        identity: Some(identity),
        host_cache: dio != Some(true) || ram.is_some(),
        _loop: Some(lp),
        _temp: temp,
    })
}

/// How an image's reads are made cold, and what may still serve them.
fn image_cold_cache(dio: Option<bool>, ram: Option<&str>) -> String {
    let mut cold_cache = "remount+BLKFLSBUF".to_string();
    match dio {
        Some(true) => cold_cache.push_str(", loop direct I/O"),
        Some(false) => {
            cold_cache.push_str(", loop buffered (the host's page cache may serve reads)")
        }
        None => {}
    }
    if let Some(fs) = ram {
        cold_cache.push_str(&format!(", image on {fs} (RAM)"));
    }
    cold_cache
}

/// `--device`: provisioned through device::confirm, as `fsfit format` does.
fn prepare_device(
    opts: &Options,
    need: u64,
    dev: &str,
    yes_erase: Option<&str>,
    allow_fixed: bool,
) -> Result<Prepared> {
    let answer = match yes_erase {
        Some(y) => Answer::Given(y),
        None => Answer::Ask,
    };
    let Confirmed { info, identity } =
        confirm::erase(dev, answer, allow_fixed, &mut print_contents)?;
    if info.size_bytes < need {
        return Err(Error::work(format!(
            "{} holds {} but the workloads at --scale {} need about {}",
            info.path,
            iec(info.size_bytes),
            opts.scale,
            iec(need)
        )));
    }
    Ok(Prepared {
        info: TargetInfo {
            kind: "device".into(),
            path: info.path.clone(),
            size_bytes: info.size_bytes,
            model: Some(format!("{} {}", info.vendor, info.model).trim().to_string()),
            bus: Some(info.bus.clone()),
            cold_cache: "remount+BLKFLSBUF".into(),
            counters: info.name.clone(),
            loop_direct_io: None,
            backing_fs: None,
        },
        dev: Some(info.path.clone()),
        counters: Some(counters::stat_path(&info.name)),
        volume: info.size_bytes,
        identity: Some(identity),
        host_cache: false,
        _loop: None,
        _temp: None,
    })
}

/// `--dir`: an already-mounted directory, measured where it is.
fn prepare_dir(opts: &Options, need: u64, dir: &Path) -> Result<Prepared> {
    let md = std::fs::metadata(dir).map_err(|e| Error::work(format!("{}: {e}", dir.display())))?;
    if !md.is_dir() {
        return Err(Error::work(format!("{}: not a directory", dir.display())));
    }
    let counters = counters_of_dir(dir);
    let free = free_space(dir)?;
    // The user's own volume, partly used: run what fits, and let a
    // workload that does not report that the volume is full.
    if free < need {
        eprintln!(
            "fsfit: warning: {} has {} free but the workloads at --scale {} need about {}; \
those that do not fit will stop with \"the volume is full\"",
            dir.display(),
            iec(free),
            opts.scale,
            iec(need)
        );
    }
    Ok(Prepared {
        info: TargetInfo {
            kind: "dir".into(),
            path: dir.to_string_lossy().into_owned(),
            size_bytes: free,
            model: None,
            bus: None,
            cold_cache: String::new(),
            counters: counters
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            loop_direct_io: None,
            backing_fs: None,
        },
        dev: None,
        counters,
        volume: free,
        identity: None,
        host_cache: false,
        _loop: None,
        _temp: None,
    })
}

/// The RAM-backed filesystem (tmpfs, ramfs) holding `p`, if it is on one:
/// an image there is read from memory whatever fsfit does.
fn ram_backed(p: &Path) -> Option<String> {
    let (fstype, _, _) = crate::device::mount_of(p)?;
    matches!(fstype.as_str(), "tmpfs" | "ramfs").then_some(fstype)
}

/// Space an unprivileged writer may still use there (f_bavail).
fn free_space(dir: &Path) -> Result<u64> {
    let s = crate::device::statvfs(dir)?;
    Ok(s.f_bavail * s.f_frsize)
}

/// What would be lost, in the words `fsfit info` uses.
fn print_contents(info: &DeviceInfo) {
    let parts: Vec<String> = if info.partitions.is_empty() {
        vec![info.path.clone()]
    } else {
        info.partitions
            .iter()
            .map(|p| format!("/dev/{p}"))
            .collect()
    };
    for p in parts {
        eprintln!(
            "  {p}: {}",
            describe_contents(Path::new(&p)).trim_start_matches("holding ")
        );
    }
}

/// Everything measured around one timed run.
fn measure(
    w: &dyn Workload,
    ctx: &mut Ctx,
    counters_path: Option<&Path>,
    daemon: Option<u32>,
    sim: Option<&mut Sim>,
) -> Result<(Run, workloads::Outcome)> {
    let tracer = sim.as_ref().map(|s| s.start()).transpose()?;
    let disk0 = counters_path.and_then(counters::read_stat);
    let ru0 = counters::rusage();
    let d0 = daemon.and_then(counters::process_cpu);
    ctx.ops = 0;
    let sc0 = counters::syscalls();
    let t0 = Instant::now();
    let out = w.run(ctx)?;
    let seconds = t0.elapsed().as_secs_f64();
    let sc1 = counters::syscalls();
    let ru = counters::rusage().since(&ru0);
    let disk1 = counters_path.and_then(counters::read_stat);
    let d1 = daemon.and_then(counters::process_cpu);
    let disk = match (disk0, disk1) {
        (Some(a), Some(b)) => DiskStat {
            read_bytes: b.read_bytes.saturating_sub(a.read_bytes),
            write_bytes: b.write_bytes.saturating_sub(a.write_bytes),
        },
        _ => DiskStat::default(),
    };
    let daemon_cpu_s = match (d0, d1) {
        (Some(a), Some(b)) => Some((b.0 + b.1) - (a.0 + a.1)),
        _ => None,
    };
    Ok((
        Run {
            seconds,
            device_read_bytes: disk.read_bytes,
            device_write_bytes: disk.write_bytes,
            cpu_user_s: ru.user_s,
            cpu_sys_s: ru.sys_s,
            ctx_voluntary: ru.ctx_voluntary,
            ctx_involuntary: ru.ctx_involuntary,
            ops: ctx.ops,
            syscalls_read: sc0.zip(sc1).map(|(a, b)| b.0.saturating_sub(a.0)),
            syscalls_write: sc0.zip(sc1).map(|(a, b)| b.1.saturating_sub(a.1)),
            daemon_cpu_s,
            mount_read_bytes: None,
            extents: out.extents,
            trace_cpu_s: None,
            simulated: Vec::new(),
        },
        out,
    ))
    .and_then(|(mut run, out)| {
        if let (Some(s), Some(t)) = (sim, tracer) {
            s.finish(t, &mut run, w.name())?;
        }
        Ok((run, out))
    })
}

/// The honesty checks on a workload's runs.
pub fn flags_for(
    phase: Phase,
    bytes: u64,
    runs: &[Run],
    have_counters: bool,
    cv_pct: f64,
) -> Vec<String> {
    let mut flags = Vec::new();
    if !have_counters {
        flags.push("no-device-counters".to_string());
    } else {
        // Judged on the phase's own device reads, during its own timing:
        // what the remount before it read (mount_read_bytes) is metadata or
        // readahead the phase then finds cached, not a cold read of its own.
        let suspect = match phase {
            Phase::Read => {
                bytes > 0
                    && runs
                        .iter()
                        .any(|r| (r.device_read_bytes as f64) < 0.9 * bytes as f64)
            }
            Phase::Scan => runs.iter().any(|r| r.device_read_bytes == 0),
            _ => false,
        };
        if suspect {
            flags.push("cache-suspect".to_string());
        }
        if phase == Phase::Write
            && runs
                .iter()
                .any(|r| (r.device_write_bytes as f64) < 0.9 * bytes as f64)
        {
            flags.push("write-not-durable".to_string());
        }
    }
    if cv_pct > 10.0 {
        flags.push("high-cv".to_string());
    }
    flags
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
            opts: self.opts,
            data: self.data,
            counters,
            pb: self.pb,
            label: &label,
            root: &root,
        };
        run_workloads(&site, &mut cold, res, sim.as_mut())
    }
}

/// How a config's read, scan and dupsearch phases are made cold.
enum Cold<'a> {
    /// Unmount (the filesystem's caches go), flush the device's buffer cache,
    /// mount again.
    Remount(&'a mut Mounted),
    /// `--dir`: syncfs, posix_fadvise and drop_caches; what it managed
    /// ("drop_caches+fadvise", or "fadvise" when not root).
    DropCaches(&'static str),
}

impl Cold<'_> {
    /// Make the next phase cold. Returns the device bytes a remount read
    /// (a driver's readahead at mount time), which count as cold reads.
    fn chill(&mut self, root: &Path, counters: Option<&Path>) -> Result<Option<u64>> {
        match self {
            Cold::Remount(m) => {
                let before = counters.and_then(counters::read_stat);
                m.remount()?;
                let after = counters.and_then(counters::read_stat);
                Ok(before
                    .zip(after)
                    .map(|(x, y)| y.read_bytes.saturating_sub(x.read_bytes)))
            }
            Cold::DropCaches(how) => {
                *how = super::cache::drop_caches(root);
                Ok(None)
            }
        }
    }

    /// The FUSE daemon serving the mount, for its CPU time.
    fn daemon(&self) -> Option<u32> {
        match self {
            Cold::Remount(m) => m.daemon_pid,
            Cold::DropCaches(_) => None,
        }
    }
}

/// Where a config's workloads run, and what watches them.
struct Site<'a> {
    opts: &'a Options,
    data: &'a Data,
    /// The device counters read around each run.
    counters: Option<&'a Path>,
    pb: &'a indicatif::ProgressBar,
    /// "fs:cluster " before each progress message.
    label: &'a str,
    root: &'a Path,
}

impl<'a> Site<'a> {
    fn ctx(&self, scale: f64) -> Ctx<'a> {
        Ctx {
            root: self.root,
            scale,
            data: self.data,
            ops: 0,
        }
    }
}

/// Every selected workload, `repeat` times, measured, in `root`: cold
/// before cold phases, read back once after the runs, the family's files
/// removed after its last selected workload.
fn run_workloads(
    site: &Site,
    cold: &mut Cold,
    res: &mut ConfigResult,
    mut sim: Option<&mut Sim>,
) -> Result<()> {
    let opts = site.opts;
    let sel = &opts.workloads;
    for (i, w) in sel.iter().enumerate() {
        cancel::check()?;
        let scale = if opts.min_seconds > 0.0 {
            site.pb
                .set_message(format!("{}{} sizing", site.label, w.name()));
            let ctx_at = |scale: f64| site.ctx(scale);
            size_by_time(*w, opts, site.root, site.counters, cold, &ctx_at)?
        } else {
            opts.scale
        };
        let (runs, last, mut error, stopped) =
            repeat_runs(site, *w, scale, cold, sim.as_deref_mut())?;
        if error.is_none() && !runs.is_empty() {
            if let Err(e) = w.verify(&mut site.ctx(scale)) {
                error = Some(format!("read-back check failed: {e}"));
            }
        }
        let mut wr = summarize(*w, last, runs, error, site.counters.is_some());
        if opts.settle.is_some() {
            wr.flags.extend(super::settle::flags(
                wr.median_seconds,
                stopped.filter(|_| wr.cv_pct > 10.0),
            ));
        }
        if scale != opts.scale {
            wr.scale = Some(scale);
        }
        let cold_phase = matches!(w.phase(), Phase::Read | Phase::Scan);
        if cold_phase && matches!(cold, Cold::DropCaches("fadvise")) {
            wr.flags.push("cache-drop-partial".into());
        }
        res.workloads.push(wr);
        // Free the family's space after its last selected workload.
        if !sel[i + 1..].iter().any(|o| o.family() == w.family()) {
            free_family(site, &site.ctx(scale).dir(w.family()));
        }
    }
    Ok(())
}

/// `repeat` measured runs of one workload at `scale`, and more while
/// `settle` asks for them: the runs, the last outcome, the error that
/// stopped them (Ctrl-C is an `Err`), and why the repeats stopped.
fn repeat_runs(
    site: &Site,
    w: &dyn Workload,
    scale: f64,
    cold: &mut Cold,
    mut sim: Option<&mut Sim>,
) -> Result<Repeated> {
    let (opts, pb, root, counters) = (site.opts, site.pb, site.root, site.counters);
    let cold_phase = matches!(w.phase(), Phase::Read | Phase::Scan);
    let mut runs: Vec<Run> = Vec::new();
    let mut last = workloads::Outcome::default();
    let started = Instant::now();
    let mut stopped = None;
    for rep in 0.. {
        if rep >= opts.repeat {
            let secs: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
            stopped = opts
                .settle
                .map_or(Some(super::settle::Stopped::Settled), |s| {
                    s.next(&secs, opts.repeat, started)
                });
            if stopped.is_some() {
                break;
            }
            // A run beyond the ones counted in the progress bar's length.
            pb.inc_length(1);
        }
        pb.set_message(format!(
            "{}{} {}/{}",
            site.label,
            w.name(),
            rep + 1,
            opts.repeat.max(rep + 1)
        ));
        let mut c = site.ctx(scale);
        let mut step = || -> Result<_> {
            w.prepare(&mut c)?;
            let remount_read = if cold_phase {
                cold.chill(root, counters)?
            } else {
                None
            };
            let (mut run, out) = measure(w, &mut c, counters, cold.daemon(), sim.as_deref_mut())?;
            run.mount_read_bytes = remount_read;
            Ok((run, out))
        };
        let r = step();
        pb.inc(1);
        match r {
            Ok((run, out)) => {
                runs.push(run);
                last = out;
            }
            Err(e) => {
                cancel::check()?;
                pb.inc(u64::from(opts.repeat.saturating_sub(rep + 1)));
                return Ok((runs, last, Some(e.to_string()), None));
            }
        }
    }
    Ok((runs, last, None, stopped))
}

/// What [`repeat_runs`] gives back.
type Repeated = (
    Vec<Run>,
    workloads::Outcome,
    Option<String>,
    Option<super::settle::Stopped>,
);

/// Remove a workload family's folder once no later workload needs it.
fn free_family(site: &Site, dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir) {
        if e.kind() != std::io::ErrorKind::NotFound {
            site.pb
                .suspend(|| eprintln!("fsfit: warning: {}: {e}", dir.display()));
        }
    }
}

/// The scale at which one run of `w` takes at least `--min-time` (as fio's
/// `runtime=` and hyperfine's minimum time do): untimed runs, the first at
/// the chosen scale (also a warm-up: the first write after mkfs or a
/// quiesce pays for things later ones do not), then grown by what was
/// missing, up to three tries, at most 64 times the chosen scale and as far
/// as half the volume's free space allows.
fn size_by_time<'a>(
    w: &dyn Workload,
    opts: &Options,
    root: &Path,
    counters: Option<&Path>,
    cold: &mut Cold,
    ctx_at: &dyn Fn(f64) -> Ctx<'a>,
) -> Result<f64> {
    // Deletes grow only as far as a run that can be timed (--quick): their
    // files are written untimed first, and a bigger delete lasts hardly
    // longer when it is of fewer, larger files.
    let want = match (w.phase(), opts.settle) {
        (Phase::Delete, None) => return Ok(opts.scale),
        (Phase::Delete, Some(_)) => super::settle::MIN_RUN_SECONDS.min(opts.min_seconds),
        _ => opts.min_seconds,
    };
    let room = free_space(root).unwrap_or(0) / 2;
    let mut scale = opts.scale;
    for _ in 0..3 {
        let mut c = ctx_at(scale);
        let mut once = || -> Result<f64> {
            w.prepare(&mut c)?;
            if matches!(w.phase(), Phase::Read | Phase::Scan) {
                cold.chill(root, counters)?;
            }
            let t0 = Instant::now();
            w.run(&mut c)?;
            Ok(t0.elapsed().as_secs_f64())
        };
        let t = match once() {
            Ok(t) => t,
            Err(e) if cancel::requested() => return Err(e),
            // The timed runs will meet and report the same error.
            Err(_) => return Ok(scale),
        };
        if t >= want {
            break;
        }
        let mut grow = (want / t.max(1e-3) * 1.2).min(64.0 * opts.scale / scale);
        while grow > 1.0 && w.space_needed(scale * grow) > room {
            grow /= 1.5;
        }
        if grow < 1.05 {
            break;
        }
        scale *= grow;
    }
    Ok(scale)
}

fn summarize(
    w: &dyn Workload,
    out: workloads::Outcome,
    runs: Vec<Run>,
    error: Option<String>,
    have_counters: bool,
) -> WorkloadResult {
    let secs: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
    let s = stats::summarize(&secs).unwrap_or(stats::Summary {
        median: 0.0,
        min: 0.0,
        max: 0.0,
        cv_pct: 0.0,
    });
    let mut flags = flags_for(w.phase(), out.bytes, &runs, have_counters, s.cv_pct);
    let simulated = super::flash::summarize(&runs, out.files, out.bytes);
    if error.is_some() {
        flags.push("failed".into());
    }
    WorkloadResult {
        name: w.name().into(),
        files: out.files,
        bytes: out.bytes,
        median_seconds: s.median,
        min_seconds: s.min,
        max_seconds: s.max,
        mb_per_s: stats::mb_per_s(out.bytes, s.median),
        files_per_s: if s.median > 0.0 {
            out.files as f64 / s.median
        } else {
            0.0
        },
        cv_pct: (s.cv_pct * 100.0).round() / 100.0,
        scale: None,
        flags,
        relative_pct: None,
        error,
        runs,
        simulated,
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
        error: None,
        workloads: Vec::new(),
    };
    let mut cold = Cold::DropCaches("");
    let site = Site {
        opts,
        data,
        counters: prepared.counters.as_deref(),
        pb,
        label: "",
        root: &root,
    };
    let outcome = run_workloads(&site, &mut cold, &mut res, None);
    if std::fs::remove_dir_all(&root).is_ok() {
        crate::device::state::remove_dir(&root);
    }
    outcome?;
    Ok(res)
}

/// A workload's speed: bytes per second, or files per second for those
/// that move no bytes (scan, deletes). Sized by time, two configs may run a
/// workload at different scales, so speeds compare where times do not.
fn rate(w: &WorkloadResult) -> f64 {
    if w.bytes > 0 {
        w.mb_per_s
    } else {
        w.files_per_s
    }
}

/// Relative figures: each config's speed over the baseline's, in %.
fn relate(results: &mut [ConfigResult], baseline: usize) {
    let base: Vec<(String, f64)> = results[baseline]
        .workloads
        .iter()
        .map(|w| (w.name.clone(), rate(w)))
        .collect();
    for r in results.iter_mut() {
        for w in r.workloads.iter_mut() {
            if let Some((_, b)) = base.iter().find(|(n, _)| *n == w.name) {
                let x = rate(w);
                if *b > 0.0 && x > 0.0 && w.error.is_none() {
                    w.relative_pct = Some(((x / b) * 1000.0).round() / 10.0);
                }
            }
        }
    }
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
    let data = Data::new(0x000f_5f17);
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
        sim: Default::default(),
    };
    if let Some(f) = &opts.flash {
        setup_flash(&prepared, f, &mut report)?;
    }
    let mut baseline = 0;
    if let TargetSpec::Dir(_) = opts.target {
        run_in_dir(opts, &prepared, &data, &mut report)?;
    } else {
        baseline = run_planned(opts, &prepared, &data, &mut report)?;
    }
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
    report.sim.trace = Some("blktrace".into());
    report.sim.partition_offset_bytes = Some(f.partition_offset);
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
    report.target.cold_cache = if report
        .results
        .iter()
        .flat_map(|r| &r.workloads)
        .any(|w| w.flags.iter().any(|f| f == "cache-drop-partial"))
    {
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
        eprintln!(
            "fsfit: skipping {}:{}: {}",
            s.fs,
            short(s.cluster_bytes),
            s.reason
        );
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
                    pb.suspend(|| eprintln!("fsfit: {}:{}: {e}", r.fs, short(r.cluster_bytes)));
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
            w.flags.push("host-cache".into());
        }
        eprintln!(
            "fsfit: warning: the host's page cache may serve this image's I/O ({}): figures are marked host-cache",
            report.target.cold_cache
        );
    }
    let figures: Vec<_> = report.results.iter().flat_map(|r| &r.workloads).collect();
    let noisy = figures.iter().filter(|w| w.cv_pct > 10.0).count();
    if noisy > 0 {
        eprintln!(
            "fsfit: warning: {noisy} of {} figures vary by more than 10 % between runs (marked ~); \
more --repeat, or a quieter machine, would tighten them",
            figures.len()
        );
    }
    // The baseline named a planned config; it may have stopped before running.
    if baseline < report.results.len() {
        report.baseline = format!(
            "{}:{}",
            report.results[baseline].fs,
            short(report.results[baseline].cluster_bytes)
        );
        relate(&mut report.results, baseline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
