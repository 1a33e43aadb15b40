//! `bench --flash`: each timed run is traced at the block layer and the
//! trace replayed through every chosen flash profile; the simulated run
//! time is the model's device time plus the run's host CPU time, as the
//! workload lets them overlap (src/flash/replay.rs).

use super::results::{FlashInfo, Run, SimRun, SimWorkload};
use super::stats;
use crate::flash::trace::{self, Tracer};
use crate::flash::{self, Device, Overlap, Profile};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// What the user asked for: profiles and where the volume starts.
#[derive(Clone, Debug)]
pub struct FlashOptions {
    pub profiles: Vec<Profile>,
    /// Bytes from the flash's start to the volume (default 1 MiB, as
    /// fdisk), at least one: each run's one trace is replayed at each, so
    /// offsets compare on the same writes (the filesystem is made on the
    /// volume alone: neither its layout nor its trace knows the offset).
    pub partition_offsets: Vec<u64>,
}

/// Kept in results.rs, which advise reads on any system.
pub use super::results::DEFAULT_PARTITION_OFFSET;

/// Said wherever simulated figures are shown.
pub const NOTE: &str = "simulated: the block trace of each run replayed through a flash profile \
(a class of device, not your stick; see fsfit bench --list-profiles for each parameter's source)";

/// The simulated devices of one config, fresh after its mkfs: one per
/// profile and offset, offsets outer (the order of `simulated[]`).
pub struct Sim {
    dev: PathBuf,
    lanes: Vec<Lane>,
}

/// One simulated device: a profile with the volume at an offset.
struct Lane {
    profile: String,
    offset: u64,
    device: Box<dyn Device>,
}

/// The request size limit for the traced device: the smallest largest
/// transfer of the profiles (USB 2 sticks take 120 KiB a command).
pub fn limit(dev: &Path, o: &FlashOptions) -> Option<u64> {
    let bytes = o.profiles.iter().map(Profile::max_transfer_bytes).min()?;
    trace::limit_requests(dev, bytes)
}

pub fn info(o: &FlashOptions, max_sectors_kb: Option<u64>) -> FlashInfo {
    FlashInfo {
        profiles: o.profiles.iter().map(|p| p.name.clone()).collect(),
        max_sectors_kb,
        note: NOTE.into(),
        partition_offsets_bytes: if o.partition_offsets.len() > 1 {
            o.partition_offsets.clone()
        } else {
            Vec::new()
        },
        alignments: o
            .partition_offsets
            .iter()
            .flat_map(|&at| o.profiles.iter().map(move |p| flash::Alignment::of(p, at)))
            .collect(),
    }
}

impl Sim {
    pub fn new(dev: &Path, o: &FlashOptions) -> Sim {
        let lanes = o
            .partition_offsets
            .iter()
            .flat_map(|&offset| {
                o.profiles.iter().map(move |p| Lane {
                    profile: p.name.clone(),
                    offset,
                    device: p.device(),
                })
            })
            .collect();
        Sim {
            dev: dev.to_path_buf(),
            lanes,
        }
    }

    pub fn start(&self) -> Result<Tracer> {
        Tracer::start(&self.dev).map_err(|e| Error::work(format!("block trace: {e}")))
    }

    /// Stop the trace of `run` and replay it on every profile at every offset.
    pub fn finish(&mut self, t: Tracer, run: &mut Run, overlap: Overlap) -> Result<()> {
        let (volume, tracer_cpu) = t
            .stop_with_cost()
            .map_err(|e| Error::work(format!("block trace: {e}")))?;
        run.trace_cpu_s = Some(tracer_cpu);
        let host_cpu = (run.cpu_user_s + run.cpu_sys_s - tracer_cpu).max(0.0)
            + run.daemon_cpu_s.unwrap_or(0.0);
        let mut reqs = volume.clone();
        let mut at = None;
        for lane in &mut self.lanes {
            if at != Some(lane.offset) {
                reqs.clone_from(&volume);
                trace::at_partition(&mut reqs, lane.offset);
                at = Some(lane.offset);
            }
            let r = flash::replay(&mut *lane.device, &reqs);
            run.simulated.push(SimRun {
                profile: lane.profile.clone(),
                partition_offset_bytes: Some(lane.offset),
                seconds: flash::simulated_seconds(r.device_seconds, host_cpu, overlap),
                device_seconds: r.device_seconds,
                flash_write_amplification: r.write_amplification(),
                au_copies: r.au_copies,
                requests: r.requests,
            });
        }
        Ok(())
    }
}

/// Per profile and offset: the median simulated run, its rates and its counts.
pub fn summarize(runs: &[Run], files: u64, bytes: u64) -> Vec<SimWorkload> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, s) in first.simulated.iter().enumerate() {
        let of_profile: Vec<&SimRun> = runs.iter().filter_map(|r| r.simulated.get(i)).collect();
        let secs: Vec<f64> = of_profile.iter().map(|r| r.seconds).collect();
        let Some(sum) = stats::summarize(&secs) else {
            continue;
        };
        // The run nearest the median gives the write amplification and copies.
        let mid = of_profile
            .iter()
            .min_by(|a, b| {
                (a.seconds - sum.median)
                    .abs()
                    .total_cmp(&(b.seconds - sum.median).abs())
            })
            .expect("at least one run");
        let dev: Vec<f64> = of_profile.iter().map(|r| r.device_seconds).collect();
        out.push(SimWorkload {
            profile: s.profile.clone(),
            partition_offset_bytes: s.partition_offset_bytes,
            median_seconds: sum.median,
            mb_per_s: stats::mb_per_s(bytes, sum.median),
            files_per_s: if sum.median > 0.0 {
                files as f64 / sum.median
            } else {
                0.0
            },
            // Median too: never above median_seconds, as in every run.
            device_seconds: stats::summarize(&dev).map_or(0.0, |d| d.median),
            flash_write_amplification: mid.flash_write_amplification,
            au_copies: mid.au_copies,
            // Against the baseline: once every config has run (relative.rs).
            relative_pct: None,
        });
    }
    out
}
