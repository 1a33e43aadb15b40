//! The figures every view of a bench run shows, computed here once: a
//! workload's figure from the host's own runs or from one flash profile's
//! simulation, and its speed relative to the baseline config on the same
//! source. The runner stores the relative figures in the results; the
//! terminal table, the JSON and the HTML read them and compute them
//! nowhere else (results from an older fsfit, without the simulated ones,
//! get them here once when they are read).

use super::kinds::{unit_of, Unit};
use super::results::{BenchReport, ConfigResult, SimWorkload, WorkloadResult, TRACE_SOURCE};
use super::stats;
use crate::units::iec;

/// Where a figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The host's own runs (on an image, this machine's disk and cache, not
    /// a drive's).
    Host,
    /// The simulated figures of a flash profile (`--flash`).
    Sim(SimKey),
}

/// One series of simulated figures: a flash profile, and the partition
/// offset when the run replayed its traces at several
/// (`--partition-offset 32256,1M`); `None` when it had one offset (the
/// run's `partition_offset_bytes`), or in results from an older fsfit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimKey {
    pub profile: String,
    pub offset: Option<u64>,
}

impl SimKey {
    /// The series `profile` of a run with one offset.
    pub fn profile(profile: &str) -> SimKey {
        SimKey {
            profile: profile.into(),
            offset: None,
        }
    }

    /// Whether a simulated figure (`profile`, at `offset`) is of this series.
    fn holds(&self, profile: &str, offset: Option<u64>) -> bool {
        self.profile == profile && (self.offset.is_none() || offset == self.offset)
    }

    /// Where this series' volume starts on the flash.
    pub fn offset_in(&self, r: &BenchReport) -> Option<u64> {
        self.offset.or(r.sim.partition_offset_bytes)
    }

    /// Where this series' volume falls against its profile's pages and AUs:
    /// as the run recorded it, or for results from an older fsfit, from the
    /// profile of that name (None when this fsfit has none).
    /// What the profile's device held before the run, for people
    /// ([`crate::flash::Profile::state_said`]); None for a page-mapped
    /// profile or one this fsfit does not know.
    pub fn state_said(&self) -> Option<String> {
        crate::flash::profile(&self.profile)
            .ok()
            .and_then(|p| p.state_said())
    }

    pub fn alignment(&self, r: &BenchReport) -> Option<crate::flash::Alignment> {
        let at = self.offset_in(r)?;
        let recorded = r.sim.flash.as_ref().and_then(|f| {
            f.alignments
                .iter()
                .find(|a| a.profile == self.profile && a.partition_offset_bytes == at)
        });
        match recorded {
            Some(a) => Some(a.clone()),
            None => crate::flash::profile(&self.profile)
                .ok()
                .map(|p| crate::flash::Alignment::of(&p, at)),
        }
    }

    /// How views name the series: the profile, and the offset when the run
    /// had several ("usb2-stick at 32256 B").
    pub fn label(&self) -> String {
        match self.offset {
            Some(b) => format!("{} at {}", self.profile, offset_text(b)),
            None => self.profile.clone(),
        }
    }
}

/// A partition offset as every view prints it: IEC units when it is a
/// whole KiB, else bytes (sector 63: 32256 B).
pub fn offset_text(bytes: u64) -> String {
    if bytes % 1024 == 0 {
        iec(bytes)
    } else {
        format!("{bytes} B")
    }
}

impl Source {
    /// The run's sources: the simulated series first (what a `--flash` run
    /// is about; with several offsets, each profile at each offset), then
    /// the host.
    pub fn of_run(r: &BenchReport) -> Vec<Source> {
        let mut v = Vec::new();
        if let Some(f) = &r.sim.flash {
            let offsets: Vec<Option<u64>> = match f.partition_offsets_bytes.len() {
                0 | 1 => vec![None],
                _ => f
                    .partition_offsets_bytes
                    .iter()
                    .copied()
                    .map(Some)
                    .collect(),
            };
            for offset in offsets {
                for p in &f.profiles {
                    v.push(Source::Sim(SimKey {
                        profile: p.clone(),
                        offset,
                    }));
                }
            }
        }
        v.push(Source::Host);
        v
    }

    /// This series' simulated entry of `w`.
    pub fn sim<'a>(&self, w: &'a WorkloadResult) -> Option<&'a SimWorkload> {
        match self {
            Source::Host => None,
            Source::Sim(k) => w
                .simulated
                .iter()
                .find(|s| k.holds(&s.profile, s.partition_offset_bytes)),
        }
    }

    /// A workload's figure: MB/s, or files/s for those whose unit is files.
    pub fn figure(&self, w: &WorkloadResult) -> Option<f64> {
        let (mb, files) = match self {
            Source::Host => (w.mb_per_s, w.files_per_s),
            Source::Sim(_) => self.sim(w).map(|s| (s.mb_per_s, s.files_per_s))?,
        };
        Some(match unit_of(&w.name) {
            Unit::FilesPerS => files,
            Unit::MbPerS => mb,
        })
    }

    /// The median seconds of a run on this source.
    pub fn median_seconds(&self, w: &WorkloadResult) -> Option<f64> {
        match self {
            Source::Host => Some(w.median_seconds),
            Source::Sim(_) => self.sim(w).map(|s| s.median_seconds),
        }
    }

    /// The stored relative figure: % of the baseline's on the same source.
    pub fn relative_pct(&self, w: &WorkloadResult) -> Option<f64> {
        match self {
            Source::Host => w.relative_pct,
            Source::Sim(_) => self.sim(w).and_then(|s| s.relative_pct),
        }
    }

    /// Each repeat's seconds on this source.
    pub fn run_seconds(&self, w: &WorkloadResult) -> Vec<f64> {
        match self {
            Source::Host => w.runs.iter().map(|r| r.seconds).collect(),
            Source::Sim(k) => w
                .runs
                .iter()
                .filter_map(|r| {
                    r.simulated
                        .iter()
                        .find(|s| k.holds(&s.profile, s.partition_offset_bytes))
                })
                .map(|s| s.seconds)
                .collect(),
        }
    }

    /// Slowest and fastest repeat, as rates.
    pub fn spread(&self, w: &WorkloadResult) -> Option<(f64, f64)> {
        let u = unit_of(&w.name);
        let secs: Vec<f64> = self
            .run_seconds(w)
            .into_iter()
            .filter(|s| *s > 0.0)
            .collect();
        let s = stats::summarize(&secs)?;
        Some((
            u.rate(w.files, w.bytes, s.max),
            u.rate(w.files, w.bytes, s.min),
        ))
    }

    /// How much the repeats vary on this source (CV of their seconds, %).
    pub fn cv_pct(&self, w: &WorkloadResult) -> f64 {
        match self {
            Source::Host => w.cv_pct,
            Source::Sim(_) => stats::summarize(&self.run_seconds(w)).map_or(0.0, |s| s.cv_pct),
        }
    }

    /// A workload's flags on this source: a simulated figure is `high-cv`
    /// when the simulated runs vary by more than 10 %, not the host's.
    pub fn flags<'a>(&self, w: &'a WorkloadResult) -> Vec<&'a str> {
        let mut out: Vec<&str> = w.flags.iter().map(String::as_str).collect();
        if let Source::Sim(_) = self {
            out.retain(|f| *f != super::flags::HIGH_CV);
            if self.cv_pct(w) > 10.0 {
                out.push(super::flags::HIGH_CV);
            }
        }
        out
    }
}

/// `x` as a % of `base`, to a tenth; None unless both are measured.
fn pct(x: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (x, base) {
        (Some(x), Some(b)) if x > 0.0 && b > 0.0 => Some(((x / b) * 1000.0).round() / 10.0),
        _ => None,
    }
}

/// The config `r.baseline` names ("fs:cluster").
fn baseline(r: &BenchReport) -> Option<&ConfigResult> {
    r.results.iter().find(|c| c.label() == r.baseline)
}

/// Every relative figure of the run, host and simulated, against the
/// config `r.baseline` names; `only_missing` keeps those already there.
fn apply(r: &mut BenchReport, only_missing: bool) {
    let Some(base) = baseline(r).cloned() else {
        return;
    };
    for c in &mut r.results {
        for w in &mut c.workloads {
            let b = base.workloads.iter().find(|b| b.name == w.name);
            let b = b.filter(|b| b.error.is_none());
            let failed = w.error.is_some();
            let rel = |src: &Source, w: &WorkloadResult| {
                pct(src.figure(w), b.and_then(|b| src.figure(b))).filter(|_| !failed)
            };
            if !(only_missing && w.relative_pct.is_some()) {
                w.relative_pct = rel(&Source::Host, w);
            }
            let keys: Vec<SimKey> = w
                .simulated
                .iter()
                .map(|s| SimKey {
                    profile: s.profile.clone(),
                    offset: s.partition_offset_bytes,
                })
                .collect();
            for (i, k) in keys.into_iter().enumerate() {
                if !(only_missing && w.simulated[i].relative_pct.is_some()) {
                    w.simulated[i].relative_pct = rel(&Source::Sim(k), w);
                }
            }
        }
    }
}

/// The runner's one call: every relative figure of a finished run.
pub fn relate(r: &mut BenchReport) {
    apply(r, false);
}

/// Results as read from a file: the figures an older fsfit did not store
/// (simulated relative figures) computed once, by the same rule; the trace
/// source under its true name (older files say `blktrace` for the same
/// block tracepoints read through tracefs).
pub fn complete_loaded(r: &mut BenchReport) {
    apply(r, true);
    if r.sim.trace.as_deref() == Some("blktrace") {
        r.sim.trace = Some(TRACE_SOURCE.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> BenchReport {
        let w = |name: &str, mb: f64, sim_mb: f64| {
            json!({"name": name, "files": 1, "bytes": 1_000_000, "median_seconds": 1.0 / mb,
                "mb_per_s": mb, "files_per_s": mb, "cv_pct": 0.0, "flags": [], "runs": [],
                "simulated": [{"profile": "usb2-stick", "median_seconds": 1.0 / sim_mb,
                    "mb_per_s": sim_mb, "files_per_s": sim_mb, "device_seconds": 0.1,
                    "flash_write_amplification": 1.0, "au_copies": 0}]})
        };
        let c = |fs: &str, mb: f64, sim_mb: f64| {
            json!({"fs": fs, "cluster_bytes": 4096, "driver": "k", "format_seconds": 0.0,
                "workloads": [w("large-write", mb, sim_mb)]})
        };
        serde_json::from_value(json!({
            "schema": "fsfit.bench/1", "host": {"kernel": "k", "fsfit": "0", "cpus": 1},
            "target": {"kind": "image", "path": "/x", "size_bytes": 1}, "baseline": "ext4:4K",
            "trace": "blktrace", "flash": {"profiles": ["usb2-stick"], "note": ""},
            "results": [c("ext4", 800.0, 4.0), c("exfat", 400.0, 6.0)]
        }))
        .unwrap()
    }

    #[test]
    fn host_and_simulated_figures_are_relative_to_the_baseline_on_their_own_source() {
        let mut r = report();
        relate(&mut r);
        let w = &r.results[1].workloads[0];
        assert_eq!(w.relative_pct, Some(50.0));
        assert_eq!(w.simulated[0].relative_pct, Some(150.0));
        let sim = Source::Sim(SimKey::profile("usb2-stick"));
        assert_eq!(sim.relative_pct(w), Some(150.0));
        assert_eq!(Source::of_run(&r), [sim, Source::Host]);
    }

    #[test]
    fn an_older_file_gains_what_it_lacks_and_keeps_what_it_has() {
        let mut r = report();
        r.results[1].workloads[0].relative_pct = Some(49.0);
        complete_loaded(&mut r);
        let w = &r.results[1].workloads[0];
        assert_eq!(w.relative_pct, Some(49.0), "stored figures are kept");
        assert_eq!(w.simulated[0].relative_pct, Some(150.0));
        assert_eq!(r.sim.trace.as_deref(), Some(TRACE_SOURCE));
    }

    /// Two offsets: each profile's figures at each offset are a series of
    /// their own, relative to the baseline's at the same offset.
    #[test]
    fn each_offset_is_a_series_relative_to_the_baseline_at_that_offset() {
        let sim = |offset: u64, mb: f64| {
            json!({"profile": "usb2-stick", "partition_offset_bytes": offset,
                "median_seconds": 1.0 / mb, "mb_per_s": mb, "files_per_s": mb,
                "device_seconds": 0.1, "flash_write_amplification": 1.0, "au_copies": 0})
        };
        let mut r = report();
        r.sim.partition_offset_bytes = Some(32256);
        r.sim.flash.as_mut().unwrap().partition_offsets_bytes = vec![32256, 1 << 20];
        for (c, (at63, at1m)) in r.results.iter_mut().zip([(4.0, 5.0), (2.0, 10.0)]) {
            let w = &mut c.workloads[0];
            w.simulated = vec![
                serde_json::from_value(sim(32256, at63)).unwrap(),
                serde_json::from_value(sim(1 << 20, at1m)).unwrap(),
            ];
        }
        relate(&mut r);
        let keys: Vec<String> = Source::of_run(&r)
            .iter()
            .map(|s| match s {
                Source::Sim(k) => k.label(),
                Source::Host => "host".into(),
            })
            .collect();
        assert_eq!(
            keys,
            ["usb2-stick at 32256 B", "usb2-stick at 1.00 MiB", "host"]
        );
        let w = &r.results[1].workloads[0];
        let at = |offset: u64| {
            Source::Sim(SimKey {
                profile: "usb2-stick".into(),
                offset: Some(offset),
            })
        };
        assert_eq!(at(32256).relative_pct(w), Some(50.0));
        assert_eq!(at(1 << 20).relative_pct(w), Some(200.0));
        assert_eq!(at(1 << 20).figure(w), Some(10.0));
    }
}
