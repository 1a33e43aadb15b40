//! Running `fsfit crash` (Linux only: loop devices, mounts, the FUSE
//! recorder): record each config × workload, build its crash states,
//! serve, mount, judge and tally them, and rebuild one state for
//! `--replay`. The module is compiled on Linux only, so its items need no
//! cfg of their own.

use super::results::{CrashResult, Report, Skipped, Worst, SCHEMA};
use super::{check, faults, log, oracle, recorder, states, workloads};
use crate::device::loopdev::LoopDev;
use crate::device::mount::{self, Driver};
use crate::fs::drivers::{self, Choice};
use crate::fs::spec::FsSpec;
use crate::fs::Filesystem;
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

static SEQ: AtomicU64 = AtomicU64::new(0);

/// A number unique within this process, for temporary names.
pub fn unique() -> u64 {
    SEQ.fetch_add(1, Ordering::Relaxed)
}

pub struct Options {
    pub specs: Vec<FsSpec>,
    pub driver: Choice,
    pub mount_options: String,
    /// `--mount-policy`: its options go before `mount_options`.
    pub mount_policy: crate::fs::policy::MountPolicy,
    pub workloads: Vec<&'static dyn workloads::Workload>,
    /// Random states per flush epoch.
    pub states: usize,
    /// The fewest states per config × workload (more inside epochs if the
    /// flushes and random subsets give fewer).
    pub min_states: usize,
    pub model: faults::Model,
    /// The flash geometry (flash-gc, or torn at page granularity).
    pub flash: Option<faults::Geometry>,
    pub seed: u64,
    pub jobs: usize,
    pub quick: bool,
    /// Where logs, base images and state lists are kept for --replay.
    pub run_dir: PathBuf,
    pub quiet: bool,
    pub command: String,
}

/// The volume size a crash run uses: 64 MiB, or the smallest multiple of it
/// the mkfs tool accepts (the registry's model knows: btrfs 128 MiB, XFS
/// 320 MiB).
pub fn image_bytes(fs: &dyn Filesystem) -> u64 {
    const STEP: u64 = 64 << 20;
    (1..=64)
        .map(|k| k * STEP)
        .find(|&v| fs.model(v, fs.default_cluster(v)).is_ok())
        .unwrap_or(STEP)
}

/// Extra options every read-only mount of a state needs.
fn state_mount_extra(fs: &dyn Filesystem, d: &Driver) -> &'static str {
    match d {
        // Several copies of one volume are mounted at once (--jobs).
        Driver::Kernel { .. } => fs.info().copies_mount.unwrap_or(""),
        _ => "",
    }
}

/// A FUSE driver that writes nothing to the device until unmount (the
/// registry says which); crash runs use it only when asked (`--driver fuse`).
fn defers_writes(fs: &dyn Filesystem, d: &Driver) -> bool {
    matches!(d, Driver::Fuse { .. }) && fs.info().drivers.fuse.is_some_and(|f| f.defers_writes)
}

pub fn run(o: &Options) -> Result<Report> {
    std::fs::create_dir_all(&o.run_dir)
        .map_err(|e| Error::work(format!("cannot create {}: {e}", o.run_dir.display())))?;
    let mut rep = new_report(o);
    // The workers' state servers, kept from one config × workload to the
    // next while the image size stays (dropped before the report returns).
    let mut pool: Vec<Slot> = Vec::new();
    for spec in &o.specs {
        let fs = spec.fs;
        let (driver, label) = match usable_driver(fs, o) {
            Ok(d) => d,
            Err(skipped) => {
                rep.skipped.push(skipped);
                continue;
            }
        };
        let size = image_bytes(fs);
        let policy = crate::fs::policy::apply(fs, o.mount_policy, &driver);
        let mount_options = [policy.options.as_str(), o.mount_options.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(",");
        for cluster in &spec.clusters {
            let cluster = cluster.unwrap_or_else(|| fs.default_cluster(size));
            for (wi, w) in o.workloads.iter().enumerate() {
                crate::cancel::check()?;
                let c = Config {
                    fs,
                    cluster,
                    driver: &driver,
                    label: &label,
                    mount_options: &mount_options,
                    policy_note: policy.note.as_deref(),
                    size,
                    workload: *w,
                    seed: o.seed ^ ((wi as u64) << 32) ^ cluster,
                };
                rep.results.push(run_config(o, &c, &mut pool)?);
            }
        }
    }
    Ok(rep)
}

/// The report's head, before any result.
fn new_report(o: &Options) -> Report {
    Report {
        schema: SCHEMA.into(),
        fsfit: env!("CARGO_PKG_VERSION").into(),
        date: crate::units::now_utc(),
        command: o.command.clone(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
            .into(),
        device_model: o.model.name().into(),
        device: o.model.params(o.flash.as_ref()),
        seed: o.seed,
        quick: o.quick,
        results: Vec::new(),
        skipped: Vec::new(),
        lab: crate::bench::lab(),
    }
}

/// The driver (and its label) a filesystem is crash-tested with, or why
/// it is skipped.
fn usable_driver(
    fs: &dyn Filesystem,
    o: &Options,
) -> std::result::Result<(Driver, String), Skipped> {
    let skip = |reason: String| Skipped {
        fs: fs.name().into(),
        reason,
    };
    let chosen = match drivers::choose(fs, o.driver) {
        Ok((d, _)) if o.driver == Choice::Auto && defers_writes(fs, &d) => {
            return Err(skip("no kernel vfat here: crash-test FAT in the lab (scripts/lab/uml -- fsfit crash --fs fat32 --driver kernel), or ask for fusefat with --driver fuse (it writes nothing until unmount, unlike the vfat users have)".into()));
        }
        Ok(d) => d,
        Err(reason) => return Err(skip(reason.to_string())),
    };
    if fs.mkfs(4096).is_none() {
        return Err(skip("fsfit cannot format it".into()));
    }
    Ok(chosen)
}

/// One config × workload of a run.
struct Config<'a> {
    fs: &'a dyn Filesystem,
    cluster: u64,
    driver: &'a Driver,
    /// The driver as the results name it.
    label: &'a str,
    /// The mount policy's options, then `--mount-options`.
    mount_options: &'a str,
    /// What the mount policy only approximates with this driver.
    policy_note: Option<&'a str>,
    /// The volume's size.
    size: u64,
    workload: &'a dyn workloads::Workload,
    seed: u64,
}

/// Where a config × workload is kept in the run directory.
fn config_dir(o: &Options, c: &Config) -> PathBuf {
    let name = format!(
        "{}-{}-{}{}-{}",
        c.fs.name(),
        c.cluster,
        if c.driver.is_fuse() { "fuse" } else { "kernel" },
        if c.mount_options.is_empty() {
            String::new()
        } else {
            format!("-{}", c.mount_options.replace([',', '=', '/', '$'], "_"))
        },
        c.workload.name()
    );
    o.run_dir.join(name)
}

/// Record, explore and judge one config × workload. Its failure is its
/// result's error; only an interruption stops the run.
fn run_config(o: &Options, c: &Config, pool: &mut Vec<Slot>) -> Result<CrashResult> {
    let dir = config_dir(o, c);
    let fs = c.fs;
    let mut res = CrashResult {
        fs: fs.name().into(),
        cluster_bytes: c.cluster,
        driver: c.label.into(),
        mount_options: c.mount_options.to_string(),
        mount_policy: o.mount_policy.name().to_string(),
        mount_policy_note: c.policy_note.map(str::to_string),
        checker: fs
            .info()
            .checker
            .map(|c| format!("{} {}", c.program, drivers::tool_version(c.program))),
        workload: c.workload.name().into(),
        image_bytes: c.size,
        run_dir: dir.to_string_lossy().into_owned(),
        ..Default::default()
    };
    if !o.quiet {
        eprintln!(
            "fsfit crash: {} {} {} {}: recording...",
            fs.name(),
            crate::units::iec(c.cluster),
            c.label,
            c.workload.name()
        );
    }
    let got =
        record(c, &dir, o, &mut res).and_then(|rec| explore(c, &dir, &rec, o, pool, &mut res));
    match got {
        Err(Error::Interrupted) => return Err(Error::Interrupted),
        Err(e) => res.error = Some(e.to_string()),
        Ok(()) => {}
    }
    if !o.quiet {
        eprintln!("  {}", one_line(&res));
    }
    Ok(res)
}

/// A short summary for progress output, on two lines that fit 100
/// columns.
fn one_line(r: &CrashResult) -> String {
    if let Some(e) = &r.error {
        return format!("error: {e}");
    }
    let o = &r.outcomes;
    format!(
        "{} ({} distinct) in {:.1} s ({:.1}/s):\n    {} mount as is, {} durable lost, {} old damaged, {} unrepairable",
        crate::units::count(r.states, "state"), crate::units::count(r.images, "image"), r.seconds, r.states_per_s, o.mountable_as_is, o.durable_lost, o.old_files_damaged, o.unrepairable
    )
}

/// What recording leaves for exploring.
struct Recording {
    oracle: oracle::Oracle,
}

/// A loop device on `path` that the kernel shows no partitions on. A free
/// loop device can keep a stale partition (seen here: another program's
/// partitioned loop device detached while a partition was open), and
/// mkfs.fat refuses such a device; the next free one is tried instead.
fn attach_unpartitioned(path: &Path) -> Result<LoopDev> {
    let mut stale = Vec::new();
    for _ in 0..4 {
        let lo = LoopDev::attach(path)?;
        let name = lo.name().to_string();
        let parts = std::fs::read_dir(format!("/sys/block/{name}"))
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(&name))
            })
            .unwrap_or(false);
        if !parts {
            return Ok(lo);
        }
        stale.push(lo);
    }
    Err(Error::work(
        "every loop device tried shows a stale partition",
    ))
}

fn mkfs_base(fs: &dyn Filesystem, cluster: u64, path: &Path, size: u64) -> Result<()> {
    let f = std::fs::File::create(path)
        .map_err(|e| Error::work(format!("cannot create {}: {e}", path.display())))?;
    f.set_len(size).map_err(|e| Error::work(e.to_string()))?;
    drop(f);
    let lo = attach_unpartitioned(path)?;
    let mut argv = fs
        .mkfs(cluster)
        .ok_or_else(|| Error::work("fsfit cannot format it"))?;
    argv.push(lo.dev.clone());
    let args: Vec<&str> = argv[1..].iter().map(|s| s.as_str()).collect();
    crate::device::run_tool(&argv[0], &args)?;
    Ok(())
}

fn dio_of(lo: &LoopDev) -> bool {
    std::fs::read_to_string(format!("/sys/block/{}/loop/dio", lo.name()))
        .is_ok_and(|s| s.trim() == "1")
}

fn record(c: &Config, dir: &Path, o: &Options, res: &mut CrashResult) -> Result<Recording> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::work(format!("cannot create {}: {e}", dir.display())))?;
    let base = dir.join("base.img");
    mkfs_base(c.fs, c.cluster, &base, res.image_bytes)?;
    let image = std::fs::read(&base)
        .map_err(|e| Error::work(format!("cannot read {}: {e}", base.display())))?;
    let rec = recorder::Recorder::start(image, &dir.join("log"))?;
    let mut oracle = oracle::Oracle::default();
    {
        let lo = LoopDev::attach(&rec.image_path())?;
        res.recorder_dio = dio_of(&lo);
        let mut m = mount::mount(
            &lo.dev,
            &crate::fs::policy::with_options(c.driver, c.mount_options),
        )?;
        // Dropped before m and lo: their cleanup, whatever ends this block,
        // is watched (recorder.rs, CLEANUP_LIMIT).
        let _watch = rec.arm_on_drop();
        let pos = || rec.position();
        let mut rng = states::Rng::new(c.seed);
        let mut ctx = workloads::Ctx {
            root: &m.dir,
            oracle: &mut oracle,
            rng: &mut rng,
            scale: workloads::Scale::new(o.quick),
            pos: &pos,
            through: o.mount_policy.writes_through(),
        };
        workloads::prepare(c.workload, &mut ctx)?;
        rec.mark();
        c.workload.run(&mut ctx)?;
        m.unmount()?;
    }
    let (w, f, bytes) = rec.finish()?;
    res.writes = w;
    res.flushes = f;
    res.log_bytes = bytes;
    let text = serde_json::to_vec(&oracle).map_err(|e| Error::work(e.to_string()))?;
    crate::atomic::write_atomic(&dir.join("oracle.json"), &text)?;
    Ok(Recording { oracle })
}

/// The states of a recorded log and the log itself.
fn load(dir: &Path) -> Result<(log::Log, Vec<u8>)> {
    let log = log::read(&dir.join("log"))?;
    let base = std::fs::read(dir.join("base.img"))
        .map_err(|e| Error::work(format!("cannot read base.img in {}: {e}", dir.display())))?;
    if base.len() as u64 != log.image_size {
        return Err(Error::work(format!(
            "{}: base.img does not match the log",
            dir.display()
        )));
    }
    Ok((log, base))
}

/// A worker's state server (the recorder in overlay mode) and the loop
/// device on it, set up once per job and image size for the whole run:
/// a FUSE mount, a losetup and their teardown cost more than dozens of
/// states.
pub struct Slot {
    /// Its mount folder, kept too (each one is written to the state file).
    mnt: Option<check::Mounter>,
    lo: Option<LoopDev>,
    server: recorder::Recorder,
    size: u64,
}

impl Slot {
    fn new(base: &Arc<Vec<u8>>) -> Result<Slot> {
        let server = recorder::Recorder::serve(base.clone())?;
        // FUSE drivers too mount the state through a loop device:
        // exfat-fuse insists on a block device. The checker reads it there.
        let lo = LoopDev::attach(&server.image_path())?;
        let none = Driver::Kernel {
            fstype: String::new(),
            opts: String::new(),
        };
        let mnt = check::Mounter::new(&none, Path::new(&lo.dev), Some(&lo.dev))?;
        Ok(Slot {
            mnt: Some(mnt),
            lo: Some(lo),
            server,
            size: base.len() as u64,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // The loop device's release is watched (recorder.rs, CLEANUP_LIMIT);
        // the server goes after it.
        drop(self.server.arm_on_drop());
        drop(self.mnt.take());
        drop(self.lo.take());
    }
}

/// `jobs` slots for images of `size` bytes in `pool`, made as needed.
fn slots(pool: &mut Vec<Slot>, base: &Arc<Vec<u8>>, jobs: usize) -> Result<()> {
    pool.retain(|s| s.size == base.len() as u64);
    while pool.len() < jobs {
        pool.push(Slot::new(base)?);
    }
    Ok(())
}

fn explore(
    c: &Config,
    dir: &Path,
    rec: &Recording,
    o: &Options,
    pool: &mut Vec<Slot>,
    res: &mut CrashResult,
) -> Result<()> {
    let (fs, driver) = (c.fs, c.driver);
    let (log, base) = load(dir)?;
    let base = Arc::new(base);
    let mark = log
        .records
        .iter()
        .position(|r| r.kind == log::Kind::Mark)
        .ok_or_else(|| Error::work("the log has no workload mark"))?;
    let mut rng = states::Rng::new(c.seed.rotate_left(17));
    let all = faults::generate(
        &log.records,
        mark + 1,
        o.states,
        o.min_states,
        &o.model,
        &mut rng,
    );
    res.selection = faults::selection(&o.model, &all, o.min_states, o.states);
    let text = serde_json::to_vec(&all).map_err(|e| Error::work(e.to_string()))?;
    crate::atomic::write_atomic(&dir.join("states.json"), &text)?;
    let checker = fs.info().checker;
    let ro = check::ro_driver(driver, state_mount_extra(fs, driver));
    // A kernel that refuses a second copy of a volume (btrfs): one worker.
    let jobs = if fs.info().copies_mount.is_none() {
        1
    } else {
        o.jobs.max(1)
    };
    // Identical images are judged once, whichever worker would meet them.
    let (distinct, rep) = distinct_images(&log.records, &all);
    let work = Work {
        base: &base,
        records: &log.records,
        checker: checker.as_ref(),
        ro: &ro,
        oracle: &rec.oracle,
    };
    let t0 = Instant::now();
    let (looked, steps) = judge_all(&distinct, jobs, pool, &work)?;
    res.seconds = t0.elapsed().as_secs_f64();
    // Each state judged against the oracle at its own crash point.
    let judged: Vec<(usize, check::Outcome)> = all
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                i,
                check::outcome(&looked[rep[i]], &rec.oracle, s.cut as u64),
            )
        })
        .collect();
    res.images = distinct.len() as u64;
    res.states = judged.len() as u64;
    res.states_per_s = res.states as f64 / res.seconds.max(1e-9);
    res.step_seconds = steps.per(res.states);
    tally(&all, &judged, checker.is_some(), dir, res);
    res.outcomes.device_fault = device_fault(&log.records, &all, &judged, checker.is_some());
    Ok(())
}

/// Judge the distinct images, split evenly over `jobs` workers (the
/// pool's slots, made as needed); what each showed, in order.
fn judge_all(
    distinct: &[&states::State],
    jobs: usize,
    pool: &mut Vec<Slot>,
    w: &Work,
) -> Result<(Vec<check::Looked>, check::Steps)> {
    let chunk = distinct.len().div_ceil(jobs).max(1);
    slots(pool, w.base, distinct.len().div_ceil(chunk))?;
    let outcomes: Vec<Result<Judged>> = std::thread::scope(|s| {
        let handles: Vec<_> = distinct
            .chunks(chunk)
            .zip(pool.iter_mut())
            .map(|(part, slot)| s.spawn(move || worker(w, part, slot)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::work("a worker panicked")))
            })
            .collect()
    });
    let mut looked = Vec::new();
    let mut steps = check::Steps::default();
    for r in outcomes {
        let (l, t) = r?;
        looked.extend(l);
        steps.add(&t);
    }
    Ok((looked, steps))
}

/// What a worker saw of each of its images, in order, and the time each
/// step took.
type Judged = (Vec<check::Looked>, check::Steps);

/// The states whose images are distinct (the first of each, in order) and,
/// for every state, the index among those of the one with its image.
fn distinct_images<'s>(
    records: &[log::Record],
    all: &'s [states::State],
) -> (Vec<&'s states::State>, Vec<usize>) {
    let mut first: std::collections::HashMap<check::Key, usize> = Default::default();
    let mut distinct = Vec::new();
    let rep = all
        .iter()
        .map(|s| {
            *first
                .entry(check::image_key(records, s))
                .or_insert_with(|| {
                    distinct.push(s);
                    distinct.len() - 1
                })
        })
        .collect();
    (distinct, rep)
}

/// What every worker of a config × workload shares.
struct Work<'a> {
    base: &'a Arc<Vec<u8>>,
    records: &'a [log::Record],
    checker: Option<&'a crate::fs::Checker>,
    ro: &'a Driver,
    oracle: &'a oracle::Oracle,
}

/// One worker: build its states in order, serve each from memory (its
/// slot's state server, under the slot's loop device) and judge it.
fn worker(w: &Work, part: &[&states::State], slot: &mut Slot) -> Result<Judged> {
    let t0 = Instant::now();
    let mut b = states::Builder::new(w.base, w.records);
    slot.server.load_base(w.base.clone());
    let m = slot
        .mnt
        .as_mut()
        .ok_or_else(|| Error::work("the worker's mount folder is gone"))?;
    m.set_driver(w.ro);
    let m = &*m;
    let mut out = Vec::new();
    let mut t = check::Steps {
        setup: t0.elapsed().as_secs_f64(),
        ..Default::default()
    };
    for s in part {
        crate::cancel::check()?;
        let t0 = Instant::now();
        let changed = b.build(s)?;
        let t1 = Instant::now();
        // What the last state's mount, check or repair wrote is dropped here.
        slot.server.load(&changed, |k| b.block(k));
        t.build += (t1 - t0).as_secs_f64();
        t.load += t1.elapsed().as_secs_f64();
        out.push(check::judge(w.checker, m, w.oracle, &mut t));
    }
    Ok((out, t))
}

/// Count outcomes and pick the worst states.
fn tally(
    all: &[states::State],
    judged: &[(usize, check::Outcome)],
    has_checker: bool,
    dir: &Path,
    res: &mut CrashResult,
) {
    let c = &mut res.outcomes;
    let mut worst: Vec<(u8, usize, String, String)> = Vec::new();
    for (i, oc) in judged {
        let f = &oc.findings;
        let oc = &oc.looked;
        c.mountable_as_is += oc.mountable as u64;
        c.checker_clean += (oc.clean == Some(true)) as u64;
        c.checker_repaired += (oc.repaired == Some(true)) as u64;
        let unrepairable = oc.repaired == Some(false) || (!has_checker && !oc.mountable);
        c.unrepairable += unrepairable as u64;
        c.no_checker += (!has_checker) as u64;
        c.old_files_damaged += !f.old_damaged.is_empty() as u64;
        c.durable_lost += !f.durable_lost.is_empty() as u64;
        c.inflight_lost += !f.inflight_lost.is_empty() as u64;
        c.inflight_garbage += !f.inflight_garbage.is_empty() as u64;
        let (rank, kind, first) = if let Some(d) = f.old_damaged.first() {
            (5, "old_files_damaged", d.clone())
        } else if let Some(d) = f.durable_lost.first() {
            (4, "durable_lost", d.clone())
        } else if unrepairable {
            (3, "unrepairable", String::new())
        } else if !oc.mountable {
            (2, "not_mountable", String::new())
        } else if let Some(d) = f.inflight_garbage.first() {
            (1, "inflight_garbage", d.clone())
        } else {
            continue;
        };
        let detail = [first, oc.note.clone()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        worst.push((rank, *i, kind.to_string(), detail));
    }
    worst.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    res.worst = worst
        .into_iter()
        .take(5)
        .map(|(_, i, kind, detail)| {
            let id = &all[i].id;
            Worst {
                state: id.clone(),
                kind,
                detail,
                replay: format!(
                    "fsfit crash --replay {} --state {} -o {}",
                    crate::quote::quote(&dir.to_string_lossy()),
                    crate::quote::quote(id),
                    crate::quote::quote(&format!("{id}.img"))
                ),
            }
        })
        .collect();
}

/// Whether a state lost anything a user would miss: a durable or old
/// file, or the volume itself.
fn lost(oc: &check::Outcome, has_checker: bool) -> bool {
    let l = &oc.looked;
    !oc.findings.old_damaged.is_empty()
        || !oc.findings.durable_lost.is_empty()
        || l.repaired == Some(false)
        || (!has_checker && !l.mountable)
}

/// States with the device's damage (torn, flash-gc) that lost something
/// their undamaged twin, judged in the same run, did not.
fn device_fault(
    records: &[log::Record],
    all: &[states::State],
    judged: &[(usize, check::Outcome)],
    has_checker: bool,
) -> u64 {
    let mut twin: std::collections::HashMap<check::Key, bool> = Default::default();
    for (i, oc) in judged {
        let s = &all[*i];
        if s.tear.is_none() && s.gc.is_none() {
            twin.insert(check::image_key(records, s), lost(oc, has_checker));
        }
    }
    let undamaged = |s: &states::State| {
        let mut u = s.clone();
        // A torn write's twin has the whole write.
        if let Some(t) = u.tear.take() {
            u.extra.push(t.record);
        }
        u.gc = None;
        check::image_key(records, &u)
    };
    judged
        .iter()
        .filter(|(i, oc)| {
            let s = &all[*i];
            (s.tear.is_some() || s.gc.is_some())
                && lost(oc, has_checker)
                && twin.get(&undamaged(s)) == Some(&false)
        })
        .count() as u64
}

/// `fsfit crash --replay RUN_DIR --state ID -o IMAGE`: write one state's image.
pub fn replay(dir: &Path, id: &str, out: &Path) -> Result<()> {
    // --replay's folder and --state are what the user typed: a wrong one
    // is bad input (exit 2), as an unreadable PATH is.
    let text = std::fs::read(dir.join("states.json")).map_err(|e| {
        Error::input(format!(
            "{} is not a crash run directory (no states.json): {e}",
            dir.display()
        ))
    })?;
    let all: Vec<states::State> =
        serde_json::from_slice(&text).map_err(|e| Error::input(format!("states.json: {e}")))?;
    let s = all.iter().find(|s| s.id == id).ok_or_else(|| {
        Error::input(format!(
            "no state {} in {} ({} states)",
            crate::quote::quote(id),
            dir.display(),
            all.len()
        ))
    })?;
    let (log, base) = load(dir)?;
    let mut b = states::Builder::new(&base, &log.records);
    b.build(s)?;
    crate::atomic::write_atomic(out, &b.image())
}
