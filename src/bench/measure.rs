//! The measuring loop every target shares: each selected workload run
//! `repeat` times in a folder, cold before its read and scan phases, timed
//! with its durable writes inside, read back once, and summarized with the
//! honesty flags. The runner (Linux: formatted volumes, `--dir`) and the
//! Windows `--dir` run (bench/windows.rs) both measure through it; only how
//! a phase is made cold ([`Cold`]) differs by system.

use super::counters::{self, DiskStat};
use super::results::*;
use super::settle::Stopped;
use super::stats;
use super::workloads::{self, Ctx, Data, Phase, Workload};
use crate::cancel;
use crate::{Error, Result};
use std::path::Path;
use std::time::Instant;

#[cfg(target_os = "linux")]
use super::flash::Sim;
#[cfg(target_os = "linux")]
use crate::device::mount::Mounted;

/// No block trace to replay off Linux: `--flash` is refused before a run,
/// so no value of this type ever exists there.
#[cfg(not(target_os = "linux"))]
pub enum Sim {}

#[cfg(not(target_os = "linux"))]
impl Sim {
    fn start(&self) -> Result<()> {
        match *self {}
    }

    fn finish(&mut self, _: (), _: &mut Run, _: crate::flash::Overlap) -> Result<()> {
        match *self {}
    }
}

/// The seed of the content every run writes and reads back.
pub const DATA_SEED: u64 = 0x000f_5f17;

/// What every config's runs share: the workloads, their scale and repeats.
pub struct Runs<'a> {
    pub workloads: &'a [&'static dyn Workload],
    pub scale: f64,
    /// Grow each family's scale until one run takes this long (0: off).
    pub min_seconds: f64,
    pub repeat: u32,
    /// More runs than `repeat` while a figure's spread has not settled
    /// (`--quick`); None: exactly `repeat`.
    pub settle: Option<super::settle::Settle>,
}

impl Runs<'_> {
    /// Bytes the target must hold for these workloads at this scale.
    pub fn space_needed(&self) -> u64 {
        let need = self
            .workloads
            .iter()
            .map(|w| w.space_needed(self.scale))
            .max()
            .unwrap_or(0);
        // Room for metadata, slack at big clusters and the filesystem's own share.
        need + need / 3 + (256 << 20)
    }
}

/// What the report's `error` says for an error: an interruption is
/// "interrupted" there (the JSON field's text since the first release).
pub fn report_text(e: &Error) -> String {
    match e {
        Error::Interrupted => "interrupted".to_string(),
        e => e.to_string(),
    }
}

/// The progress display: one bar over every run of every config.
pub fn progress(quiet: bool, total: u64) -> indicatif::ProgressBar {
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
    let wait0 = Waits::now(daemon);
    ctx.ops = 0;
    let sc0 = counters::syscalls();
    let t0 = Instant::now();
    let out = w.run(ctx)?;
    let seconds = t0.elapsed().as_secs_f64();
    let sc1 = counters::syscalls();
    let ru = counters::rusage().since(&ru0);
    let disk1 = counters_path.and_then(counters::read_stat);
    let d1 = daemon.and_then(counters::process_cpu);
    let (cpu_wait_s, cpu_pressure_s, mem_pressure_s) = Waits::now(daemon).since(&wait0);
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
            cpu_wait_s,
            cpu_pressure_s,
            mem_pressure_s,
            made_room: false,
            set_aside: None,
        },
        out,
    ))
    .and_then(|(mut run, out)| {
        if let (Some(s), Some(t)) = (sim, tracer) {
            s.finish(t, &mut run, w.kind().overlap)?;
        }
        Ok((run, out))
    })
}

/// What the scheduler says about waiting for a CPU, read around a run.
struct Waits {
    /// fsfit's threads.
    own: Option<Vec<(u32, u64)>>,
    /// The FUSE daemon's threads.
    daemon: Option<Vec<(u32, u64)>>,
    pressure: Option<f64>,
    /// The machine's memory pressure (reclaim, compaction).
    memory: Option<f64>,
}

impl Waits {
    fn now(daemon: Option<u32>) -> Waits {
        Waits {
            own: counters::runqueue_waits(std::process::id()),
            daemon: daemon.and_then(counters::runqueue_waits),
            pressure: counters::cpu_pressure(),
            memory: counters::memory_pressure(),
        }
    }

    /// The run's own tasks' runqueue wait and the machine's CPU and memory
    /// pressure, in seconds, where the system keeps them.
    fn since(&self, before: &Waits) -> (Option<f64>, Option<f64>, Option<f64>) {
        let wait = |a: &Option<Vec<_>>, b: &Option<Vec<_>>| {
            a.as_deref()
                .zip(b.as_deref())
                .map(|(a, b)| counters::waited_since(b, a))
        };
        let own = wait(&self.own, &before.own);
        let total = match (own, wait(&self.daemon, &before.daemon)) {
            (Some(o), d) => Some(o + d.unwrap_or(0.0)),
            (None, d) => d,
        };
        let grew = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| (a - b).max(0.0));
        (
            total,
            grew(self.pressure, before.pressure),
            grew(self.memory, before.memory),
        )
    }
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
        flags.push(super::flags::NO_DEVICE_COUNTERS.to_string());
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
            flags.push(super::flags::CACHE_SUSPECT.to_string());
        }
        if phase == Phase::Write
            && runs
                .iter()
                .any(|r| (r.device_write_bytes as f64) < 0.9 * bytes as f64)
        {
            flags.push(super::flags::WRITE_NOT_DURABLE.to_string());
        }
    }
    if cv_pct > 10.0 {
        flags.push(super::flags::HIGH_CV.to_string());
    }
    flags
}

/// How a config's read, scan and dupsearch phases are made cold.
pub enum Cold<'a> {
    /// Unmount (the filesystem's caches go), flush the device's buffer cache,
    /// mount again.
    #[cfg(target_os = "linux")]
    Remount(&'a mut Mounted),
    /// `--dir`: syncfs, posix_fadvise and drop_caches; what it managed
    /// ("drop_caches+fadvise", or "fadvise" when not root).
    #[cfg(target_os = "linux")]
    DropCaches(&'static str),
    /// Windows `--dir`: file data is read with FILE_FLAG_NO_BUFFERING (the
    /// workloads' reads bypass the cache); the metadata a scan reads may
    /// still be cached, which its figures are flagged for.
    #[cfg(windows)]
    Unbuffered(std::marker::PhantomData<&'a ()>),
}

impl Cold<'_> {
    /// Make the next phase cold. Returns the device bytes a remount read
    /// (a driver's readahead at mount time), which count as cold reads.
    fn chill(&mut self, root: &Path, counters: Option<&Path>) -> Result<Option<u64>> {
        match self {
            #[cfg(target_os = "linux")]
            Cold::Remount(m) => {
                let before = counters.and_then(counters::read_stat);
                m.remount()?;
                let after = counters.and_then(counters::read_stat);
                Ok(before
                    .zip(after)
                    .map(|(x, y)| y.read_bytes.saturating_sub(x.read_bytes)))
            }
            #[cfg(target_os = "linux")]
            Cold::DropCaches(how) => {
                *how = super::cache::drop_caches(root);
                Ok(None)
            }
            #[cfg(windows)]
            Cold::Unbuffered(_) => {
                let _ = (root, counters);
                Ok(None)
            }
        }
    }

    /// A cold phase whose caches could only partly be dropped: `--dir` on
    /// Linux without root (no drop_caches), a scan on Windows (the metadata
    /// it reads cannot be evicted there).
    fn partial(&self, phase: Phase) -> bool {
        match self {
            #[cfg(target_os = "linux")]
            Cold::DropCaches(how) => {
                *how == "fadvise" && matches!(phase, Phase::Read | Phase::Scan)
            }
            #[cfg(windows)]
            Cold::Unbuffered(_) => phase == Phase::Scan,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The FUSE daemon serving the mount, for its CPU time.
    fn daemon(&self) -> Option<u32> {
        match self {
            #[cfg(target_os = "linux")]
            Cold::Remount(m) => m.daemon_pid,
            _ => None,
        }
    }
}

/// Where a config's workloads run, and what watches them.
pub struct Site<'a> {
    pub runs: Runs<'a>,
    pub data: &'a Data,
    /// The device counters read around each run.
    pub counters: Option<&'a Path>,
    pub pb: &'a indicatif::ProgressBar,
    /// "fs:cluster " before each progress message.
    pub label: &'a str,
    pub root: &'a Path,
    /// The mount policy writes files through ([`Ctx::through`]).
    pub through: bool,
}

impl<'a> Site<'a> {
    pub fn ctx(&self, scale: f64) -> Ctx<'a> {
        Ctx {
            root: self.root,
            scale,
            data: self.data,
            ops: 0,
            through: self.through,
        }
    }
}

/// Every selected workload, `repeat` times, measured, in `root`: cold
/// before cold phases, read back once after the runs, the family's files
/// removed after its last selected workload.
pub fn run_workloads(
    site: &Site,
    cold: &mut Cold,
    res: &mut ConfigResult,
    mut sim: Option<&mut Sim>,
) -> Result<()> {
    let opts = &site.runs;
    let sel = opts.workloads;
    // The scale the family's previous workload was sized to: a read starts
    // its sizing where its write ended, instead of rewriting its input at
    // the smallest scale first.
    let mut family_scale: Option<(&str, f64)> = None;
    for (i, w) in sel.iter().enumerate() {
        cancel::check()?;
        let scale = if opts.min_seconds > 0.0 {
            site.pb
                .set_message(format!("{}{} sizing", site.label, w.name()));
            let ctx_at = |scale: f64| site.ctx(scale);
            let start = family_scale
                .filter(|(f, _)| *f == w.family())
                .map_or(opts.scale, |(_, s)| s);
            size_by_time(*w, opts, start, site.root, site.counters, cold, &ctx_at)?
        } else {
            opts.scale
        };
        family_scale = Some((w.family(), scale));
        let Repeated {
            mut runs,
            last,
            mut error,
            stopped,
            rounds,
            discarded,
        } = repeat_runs(site, *w, scale, cold, sim.as_deref_mut())?;
        if error.is_none() && !runs.is_empty() {
            if let Err(e) = w.verify(&mut site.ctx(scale)) {
                error = Some(format!("read-back check failed: {e}"));
            }
        }
        let settled = opts
            .settle
            .map(|_| set_aside(&mut runs, opts.repeat, stopped));
        let mut wr = summarize(*w, last, runs, error, site.counters.is_some());
        wr.flags.extend(settled.into_iter().flatten());
        // Kept in the JSON, after the summary: their counts are of fewer
        // rounds than the figure's `files` and `bytes`.
        wr.runs.extend(discarded);
        wr.rounds = (rounds > 1).then_some(rounds);
        if scale != opts.scale {
            wr.scale = Some(scale);
        }
        if cold.partial(w.phase()) {
            wr.flags.push(super::flags::CACHE_DROP_PARTIAL.into());
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
/// stopped them (Ctrl-C is an `Err`), and why the repeats stopped. Under
/// `--quick` (without `--flash`) a run under 0.1 s is set aside and the
/// figure's runs start over, each made of enough rounds to last that long.
fn repeat_runs(
    site: &Site,
    w: &dyn Workload,
    scale: f64,
    cold: &mut Cold,
    mut sim: Option<&mut Sim>,
) -> Result<Repeated> {
    let (opts, pb) = (&site.runs, site.pb);
    let may_round = opts.settle.is_some() && sim.is_none();
    let mut rep = Repeated {
        rounds: 1,
        ..Repeated::default()
    };
    let started = Instant::now();
    let mut restarts = 0;
    loop {
        let n = rep.runs.len() as u32;
        if n >= opts.repeat {
            rep.stopped = opts.settle.map_or(Some(Stopped::Settled), |s| {
                s.next(&samples(&rep.runs), opts.repeat, started)
            });
            if rep.stopped.is_some() {
                break;
            }
            // A run beyond the ones counted in the progress bar's length.
            pb.inc_length(1);
        }
        pb.set_message(format!(
            "{}{} {}/{}",
            site.label,
            w.name(),
            n + 1,
            opts.repeat.max(n + 1)
        ));
        let r = timed_run(site, w, scale, rep.rounds, cold, sim.as_deref_mut());
        pb.inc(1);
        let (run, out) = match r {
            Ok(x) => x,
            Err(e) => {
                cancel::check()?;
                pb.inc(u64::from(opts.repeat.saturating_sub(n + 1)));
                rep.error = Some(e.to_string());
                return Ok(rep);
            }
        };
        let more = super::settle::rounds_for(run.seconds / f64::from(rep.rounds));
        if may_round
            && run.seconds < super::settle::MIN_RUN_SECONDS
            && more > rep.rounds
            && restarts < 2
        {
            restarts += 1;
            rep.rounds = more;
            let short_s = run.seconds;
            pb.inc_length(rep.runs.len() as u64 + 1);
            for mut r in rep.runs.drain(..) {
                let why = super::settle::started_over_reason(r.seconds, short_s, more);
                r.set_aside = Some(why);
                rep.discarded.push(r);
            }
            let mut run = run;
            run.set_aside = Some(super::settle::short_aside_reason(short_s, more));
            rep.discarded.push(run);
            continue;
        }
        rep.runs.push(run);
        rep.last = out;
    }
    Ok(rep)
}

/// One timed run of `rounds` rounds of the workload, each prepared and
/// made cold untimed: their counts summed (one round: as it was measured).
fn timed_run(
    site: &Site,
    w: &dyn Workload,
    scale: f64,
    rounds: u32,
    cold: &mut Cold,
    mut sim: Option<&mut Sim>,
) -> Result<(Run, workloads::Outcome)> {
    let cold_phase = matches!(w.phase(), Phase::Read | Phase::Scan);
    let mut total: Option<(Run, workloads::Outcome)> = None;
    for _ in 0..rounds.max(1) {
        let mut c = site.ctx(scale);
        w.prepare(&mut c)?;
        let remount_read = if cold_phase {
            cold.chill(site.root, site.counters)?
        } else {
            None
        };
        let made_room = make_room(&site.runs, w, scale);
        let (mut run, out) = measure(w, &mut c, site.counters, cold.daemon(), sim.as_deref_mut())?;
        run.mount_read_bytes = remount_read;
        run.made_room = made_room;
        total = Some(match total {
            None => (run, out),
            Some((mut r, mut o)) => {
                r.absorb(&run);
                o.files += out.files;
                o.bytes += out.bytes;
                o.extents = out.extents.or(o.extents);
                (r, o)
            }
        });
    }
    Ok(total.expect("at least one round"))
}

/// `--quick`: free memory for the run, untimed, when other programs' page
/// cache filled it (bench/room.rs); whether the cache was dropped.
fn make_room(opts: &Runs, w: &dyn Workload, scale: f64) -> bool {
    #[cfg(target_os = "linux")]
    if opts.settle.is_some() {
        return super::room::make(super::room::needed(w.space_needed(scale)));
    }
    let _ = (opts, w, scale);
    false
}

/// The runs as the settling judges them.
fn samples(runs: &[Run]) -> Vec<super::settle::Sample> {
    runs.iter().map(sample).collect()
}

fn sample(r: &Run) -> super::settle::Sample {
    super::settle::Sample {
        seconds: r.seconds,
        wait_s: r.cpu_wait_s,
    }
}

/// Mark the runs the figure does not come from (`--quick`), and return the
/// figure's flags from its settling.
fn set_aside(runs: &mut [Run], repeat: u32, stopped: Option<Stopped>) -> Vec<String> {
    let s = samples(runs);
    let v = super::settle::verdict(&s, repeat, stopped);
    for (i, r) in runs.iter_mut().enumerate() {
        if !v.chosen.contains(&i) {
            r.set_aside = Some(if v.warmed_up {
                super::settle::warmup_reason()
            } else {
                super::settle::set_aside_reason(&s[i])
            });
        }
    }
    v.flags
}

/// What [`repeat_runs`] gives back.
#[derive(Default)]
struct Repeated {
    /// The runs the figure may come from.
    runs: Vec<Run>,
    last: workloads::Outcome,
    /// The error that stopped the runs.
    error: Option<String>,
    /// Why the repeats stopped (None: an error did).
    stopped: Option<Stopped>,
    /// Rounds of the workload in each run.
    rounds: u32,
    /// Runs under 0.1 s taken before the runs were made of more rounds.
    discarded: Vec<Run>,
}

/// Remove a workload family's folder once no later workload needs it.
fn free_family(site: &Site, dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir) {
        if e.kind() != std::io::ErrorKind::NotFound {
            site.pb
                .suspend(|| crate::say!("warning: {}: {e}", dir.display()));
        }
    }
}

/// How far sizing by time may grow a workload beyond the chosen scale. At
/// 64 times `--quick`'s scale the per-file workloads (five, tenmb), the
/// deletes and the fragmented file still ran in 0.01-0.08 s on ext4 over a
/// loop device; 1024 times (20 times the documents' sizes) lets them reach
/// a timeable run, and the volume's free space still bounds them.
const MAX_GROWTH: f64 = 1024.0;

/// The scale at which one run of `w` takes at least `--min-time` (as fio's
/// `runtime=` and hyperfine's minimum time do): untimed runs, the first at
/// `start` (the chosen scale, or where the family's previous workload
/// ended; also a warm-up: the first write after mkfs or a quiesce pays for
/// things later ones do not), then grown by what was missing, up to four
/// tries, a scale believed long enough only when two tries at it were, at
/// most [`MAX_GROWTH`] times the chosen scale and as far as half the
/// volume's free space allows.
fn size_by_time<'a>(
    w: &dyn Workload,
    opts: &Runs,
    start: f64,
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
    let mut scale = start;
    let mut measured_at = None;
    for _ in 0..4 {
        let mut c = ctx_at(scale);
        let mut once = || -> Result<f64> {
            w.prepare(&mut c)?;
            if matches!(w.phase(), Phase::Read | Phase::Scan) {
                cold.chill(root, counters)?;
            }
            make_room(opts, w, c.scale);
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
        // The first try at a scale may pay for first-time costs (the files
        // just written, a journal's first commit): one long enough is
        // measured again before it is believed (ext4's scan, sized on one
        // such try, then ran in 0.08 s).
        let again = measured_at == Some(scale);
        measured_at = Some(scale);
        if t >= want {
            if again {
                break;
            }
            continue;
        }
        let mut grow = (want / t.max(1e-3) * 1.2).min(MAX_GROWTH * opts.scale / scale);
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
    // The figure comes from the runs not set aside; all stay in the JSON.
    let secs: Vec<f64> = runs
        .iter()
        .filter(|r| r.set_aside.is_none())
        .map(|r| r.seconds)
        .collect();
    let s = stats::summarize(&secs).unwrap_or(stats::Summary {
        median: 0.0,
        min: 0.0,
        max: 0.0,
        cv_pct: 0.0,
    });
    let mut flags = flags_for(w.phase(), out.bytes, &runs, have_counters, s.cv_pct);
    #[cfg(target_os = "linux")]
    let simulated = super::flash::summarize(&runs, out.files, out.bytes);
    #[cfg(not(target_os = "linux"))]
    let simulated = Vec::new();
    if error.is_some() {
        flags.push(super::flags::FAILED.into());
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
        rounds: None,
        flags,
        cpu_wait_pct: wait_pct(&runs),
        relative_pct: None,
        error,
        runs,
        simulated,
    }
}

/// The median share of their time the runs a figure comes from waited for
/// a CPU, in percent (None where the system does not count it).
fn wait_pct(runs: &[Run]) -> Option<f64> {
    let used = runs.iter().filter(|r| r.set_aside.is_none());
    let shares: Vec<f64> = used
        .map(|r| r.cpu_wait_s.map(|_| sample(r).wait_share() * 100.0))
        .collect::<Option<_>>()?;
    stats::summarize(&shares).map(|s| (s.median * 10.0).round() / 10.0)
}

/// Space an unprivileged writer may still use there (f_bavail).
#[cfg(target_os = "linux")]
pub fn free_space(dir: &Path) -> Result<u64> {
    let s = crate::device::statvfs(dir)?;
    Ok(s.f_bavail * s.f_frsize)
}

#[cfg(windows)]
pub use super::windows::free_space;

/// The warning on noisy figures: one line within 100 columns even with
/// five-digit counts, as every line a person reads.
fn noisy_warning(noisy: usize, figures: usize) -> String {
    format!(
        "{}warning: {noisy} of {figures} figures vary over 10 % between runs (marked ~): \
try a higher --repeat",
        crate::PREFIX
    )
}

/// The warnings and figures on a whole run: how many figures are noisy, and
/// each config's speed relative to the baseline's.
pub fn conclude(baseline: usize, report: &mut BenchReport) {
    let figures: Vec<_> = report.results.iter().flat_map(|r| &r.workloads).collect();
    let noisy = figures.iter().filter(|w| w.cv_pct > 10.0).count();
    if noisy > 0 {
        eprintln!("{}", noisy_warning(noisy, figures.len()));
    }
    // The baseline named a planned config; it may have stopped before running.
    if baseline < report.results.len() {
        report.baseline = report.results[baseline].label();
        super::relative::relate(report);
    }
}

/// The machine the figures were measured on.
pub fn host() -> Host {
    Host {
        kernel: if cfg!(windows) {
            "windows".to_string()
        } else {
            std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        },
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_noisy_warning_fits_100_columns() {
        let line = super::noisy_warning(11, 48);
        assert!(
            line.starts_with("fsfit: warning: 11 of 48 figures vary"),
            "{line}"
        );
        let widest = super::noisy_warning(99_999, 99_999);
        assert!(widest.chars().count() <= 100, "{widest}");
    }
}
