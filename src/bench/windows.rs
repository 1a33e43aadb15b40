//! `fsfit bench --dir E:\` on Windows: the workloads in a folder fsfit makes
//! on the user's mounted drive, without formatting it, through the measuring
//! loop every target shares (measure.rs). Writes end durable inside the
//! timing and reads bypass the cache (workloads/windows.rs). Windows has no
//! per-device byte counters here (they would need a performance-counter
//! query) and no per-process context-switch counts: those figures are
//! absent (`no-device-counters`) or 0.

use super::measure::{self, Cold, Runs, Site};
use super::results::*;
use super::workloads::{Data, Workload};
use crate::units::iec;
use crate::{Error, Result};
use std::os::windows::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub struct Options {
    /// The mounted folder to measure in (`E:\`, or a folder on it).
    pub dir: PathBuf,
    pub workloads: Vec<&'static dyn Workload>,
    pub scale: f64,
    pub min_seconds: f64,
    pub repeat: u32,
    /// More runs while a figure's spread has not settled (`--quick`).
    pub settle: Option<super::settle::Settle>,
    pub quiet: bool,
    pub command: Vec<String>,
}

/// What `cold_cache` says of a Windows `--dir` run.
pub const COLD: &str = "unbuffered reads (FILE_FLAG_NO_BUFFERING); metadata not evicted";

fn wide(p: &Path) -> Vec<u16> {
    p.as_os_str().encode_wide().chain([0]).collect()
}

/// Space the user may still use there (GetDiskFreeSpaceExW).
pub fn free_space(dir: &Path) -> Result<u64> {
    use windows_sys::Win32::Storage::FileSystem::GetDiskFreeSpaceExW;
    let (mut avail, mut total, mut free) = (0u64, 0u64, 0u64);
    let ok = unsafe { GetDiskFreeSpaceExW(wide(dir).as_ptr(), &mut avail, &mut total, &mut free) };
    if ok == 0 {
        return Err(Error::io(dir, std::io::Error::last_os_error()));
    }
    Ok(avail)
}

/// The volume holding `dir`: its root, filesystem name ("NTFS", "exFAT",
/// "FAT32") and cluster size, as Windows reports them.
fn volume_of(dir: &Path) -> (String, String, u64) {
    use windows_sys::Win32::Storage::FileSystem::{
        GetDiskFreeSpaceW, GetVolumeInformationW, GetVolumePathNameW,
    };
    let mut root = [0u16; 261];
    let ok = unsafe { GetVolumePathNameW(wide(dir).as_ptr(), root.as_mut_ptr(), 261) };
    if ok == 0 {
        return (String::new(), String::new(), 0);
    }
    let text = |b: &[u16]| {
        String::from_utf16_lossy(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())])
    };
    let mut fs = [0u16; 64];
    let (mut serial, mut maxlen, mut flags) = (0u32, 0u32, 0u32);
    let named = unsafe {
        GetVolumeInformationW(
            root.as_ptr(),
            std::ptr::null_mut(),
            0,
            &mut serial,
            &mut maxlen,
            &mut flags,
            fs.as_mut_ptr(),
            fs.len() as u32,
        )
    } != 0;
    let (mut spc, mut bps, mut nfree, mut ntotal) = (0u32, 0u32, 0u32, 0u32);
    let sized =
        unsafe { GetDiskFreeSpaceW(root.as_ptr(), &mut spc, &mut bps, &mut nfree, &mut ntotal) }
            != 0;
    (
        text(&root),
        if named { text(&fs) } else { String::new() },
        if sized { spc as u64 * bps as u64 } else { 0 },
    )
}

/// The run: one config, the drive's own, measured in a folder fsfit makes
/// and removes again (also when interrupted).
pub fn run(o: &Options) -> Result<BenchReport> {
    let runs = Runs {
        workloads: &o.workloads,
        scale: o.scale,
        min_seconds: o.min_seconds,
        repeat: o.repeat,
        settle: o.settle,
    };
    let md =
        std::fs::metadata(&o.dir).map_err(|e| Error::work(format!("{}: {e}", o.dir.display())))?;
    if !md.is_dir() {
        return Err(Error::work(format!("{}: not a directory", o.dir.display())));
    }
    let free = free_space(&o.dir)?;
    let need = runs.space_needed();
    if free < need {
        crate::say!(
            "warning: {} has {} free but the workloads at --scale {} need about {}; \
those that do not fit will stop with \"the volume is full\"",
            o.dir.display(),
            iec(free),
            o.scale,
            iec(need)
        );
    }
    let mut report = BenchReport {
        schema: SCHEMA.into(),
        host: measure::host(),
        target: TargetInfo {
            kind: "dir".into(),
            path: o.dir.to_string_lossy().into_owned(),
            size_bytes: free,
            model: None,
            bus: None,
            cold_cache: COLD.into(),
            counters: String::new(),
            loop_direct_io: None,
            backing_fs: None,
        },
        command: o.command.clone(),
        date: crate::units::now_utc(),
        scale: o.scale,
        repeat: o.repeat,
        baseline: String::new(),
        results: Vec::new(),
        skipped: Vec::new(),
        error: None,
        priority: None,
        freed_memory: None,
        sim: Default::default(),
    };
    let pb = measure::progress(o.quiet, (o.workloads.len() as u64) * o.repeat as u64);
    let r = in_folder(o, runs, &pb);
    pb.finish_and_clear();
    match r {
        Ok(r) => report.results.push(r),
        Err(e) => report.error = Some(measure::report_text(&e)),
    }
    measure::conclude(0, &mut report);
    Ok(report)
}

/// The workloads in `fsfit-bench-PID` under the folder, removed after.
fn in_folder(o: &Options, runs: Runs, pb: &indicatif::ProgressBar) -> Result<ConfigResult> {
    let (volume, fs, cluster) = volume_of(&o.dir);
    let root = o.dir.join(format!("fsfit-bench-{}", std::process::id()));
    std::fs::create_dir(&root).map_err(|e| Error::work(format!("{}: {e}", root.display())))?;
    let mut res = ConfigResult {
        fs: fs.to_lowercase(),
        cluster_bytes: cluster,
        driver: format!("mounted:windows:{} {volume}", fs.to_lowercase()),
        format_seconds: 0.0,
        mkfs: String::new(),
        mount_options: String::new(),
        // Measured as Windows mounted it, with the removal policy its user chose.
        mount_policy: "as-mounted".to_string(),
        mount_policy_note: None,
        error: None,
        workloads: Vec::new(),
    };
    let data = Data::new(measure::DATA_SEED);
    let site = Site {
        runs,
        data: &data,
        counters: None,
        pb,
        label: "",
        root: &root,
        through: false,
    };
    let mut cold = Cold::Unbuffered(std::marker::PhantomData);
    let outcome = measure::run_workloads(&site, &mut cold, &mut res, None);
    if let Err(e) = std::fs::remove_dir_all(&root) {
        crate::say!("warning: {}: {e}", root.display());
    }
    outcome?;
    Ok(res)
}
