//! `fsfit advise`: the recommendation with its reasons. Candidates are the
//! filesystem × cluster configs every named system reads and writes and that
//! store the tree as it is; they are ranked by measured speed where bench
//! results are given (weighted by the tree's mix of file sizes), else by the
//! filesystem's robustness and the mkfs default, always within the space
//! overhead the user accepts.

pub mod systems;

use crate::bench::results::BenchReport;
use crate::fs::{self, Filesystem};
use crate::scan::TreeCounts;
use crate::units::short;
use crate::usage::{ConfigReport, UsageReport};
use serde::Serialize;

pub const SCHEMA: &str = "fsfit.advise/1";

#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub fs: String,
    pub cluster_bytes: u64,
    pub tree_bytes: u64,
    pub overhead_pct: f64,
    pub fits: bool,
    /// Files the filesystem cannot store as they are.
    pub problems: u64,
    /// Estimated seconds to copy the tree, from bench results.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub est_copy_seconds: Option<f64>,
    /// Which bench workloads the estimate used.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speed_from: Vec<String>,
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Commands {
    pub linux: String,
    pub windows: String,
    pub macos: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub schema: &'static str,
    pub volume_bytes: u64,
    pub systems: Vec<String>,
    /// Where each named system's list of filesystems comes from.
    pub sources: Vec<String>,
    pub max_overhead_pct: f64,
    pub tree: TreeCounts,
    pub speed_measured: bool,
    pub choice: Option<Candidate>,
    pub runner_up: Option<Candidate>,
    pub why: Vec<String>,
    pub tradeoff: Option<String>,
    pub commands: Option<Commands>,
    /// Every candidate, best first.
    pub candidates: Vec<Candidate>,
    /// Configs left out, with the reason.
    pub rejected: Vec<Candidate>,
}

/// The filesystems every named system reads and writes.
pub fn allowed(systems: &[&systems::System]) -> Vec<&'static str> {
    fs::names()
        .into_iter()
        .filter(|f| systems.iter().all(|s| s.reads_writes(f)))
        .collect()
}

/// Seconds to write `tree` on a config, from its bench write speeds: each
/// size class at the speed of the workload of files that size.
pub fn copy_estimate(
    tree: &TreeCounts,
    bench: &BenchReport,
    fs: &str,
    cluster: u64,
) -> Option<(f64, Vec<String>)> {
    let r = bench
        .results
        .iter()
        .find(|r| r.fs == fs && r.cluster_bytes == cluster && r.error.is_none())?;
    let speed = |names: &[&str]| {
        names.iter().find_map(|n| {
            r.workloads
                .iter()
                .find(|w| w.name == *n && w.error.is_none() && w.mb_per_s > 0.0)
                .map(|w| (w.mb_per_s, w.name.clone()))
        })
    };
    let classes: [&[&str]; 3] = [
        &[
            "small-write",
            "tiny-write",
            "tree-write",
            "medium-write",
            "single-write",
        ],
        &["medium-write", "small-write", "large-write", "single-write"],
        &["large-write", "single-write", "medium-write"],
    ];
    let mut secs = 0.0;
    let mut used = Vec::new();
    for (class, names) in tree.by_size.iter().zip(classes) {
        if class.bytes == 0 {
            continue;
        }
        let (mbps, name) = speed(names)?;
        secs += class.bytes as f64 / 1e6 / mbps;
        if !used.contains(&name) {
            used.push(name);
        }
    }
    Some((secs, used))
}

fn candidate(c: &ConfigReport) -> Candidate {
    Candidate {
        fs: c.fs.clone(),
        cluster_bytes: c.cluster_bytes,
        tree_bytes: c.tree_bytes,
        overhead_pct: c.overhead_pct,
        fits: c.fits,
        problems: c.problems.blocking(),
        est_copy_seconds: None,
        speed_from: Vec::new(),
        reasons: Vec::new(),
    }
}

fn pct(a: f64, b: f64) -> String {
    let p = (a / b - 1.0) * 100.0;
    format!("{p:+.0} %")
}

pub fn advise(
    usage: &UsageReport,
    bench: Option<&BenchReport>,
    systems: &[&systems::System],
    max_overhead: f64,
) -> Advice {
    let ok_fs = allowed(systems);
    let mut good = Vec::new();
    let mut rejected = Vec::new();
    for c in &usage.configs {
        let mut cand = candidate(c);
        if let Some(b) = bench {
            if let Some((s, used)) = copy_estimate(&usage.tree, b, &c.fs, c.cluster_bytes) {
                cand.est_copy_seconds = Some((s * 100.0).round() / 100.0);
                cand.speed_from = used;
            }
        }
        if !ok_fs.contains(&c.fs.as_str()) {
            let why: Vec<String> = systems
                .iter()
                .filter(|s| !s.reads_writes(&c.fs))
                .map(|s| {
                    if s.only_reads(&c.fs) {
                        format!("{} only reads {}", s.name, c.fs)
                    } else {
                        format!("{} cannot read {}", s.name, c.fs)
                    }
                })
                .collect();
            cand.reasons.push(why.join(", "));
            rejected.push(cand);
        } else if c.problems.too_large > 0 {
            cand.reasons.push(format!(
                "{} files are over {}'s size limit",
                c.problems.too_large, c.fs
            ));
            rejected.push(cand);
        } else if !c.fits {
            cand.reasons.push(format!(
                "the tree does not fit: needs {} of {} free",
                crate::units::iec(c.tree_bytes),
                crate::units::iec(c.free_bytes)
            ));
            rejected.push(cand);
        } else {
            good.push(cand);
        }
    }
    let speed_measured = good.iter().any(|c| c.est_copy_seconds.is_some());
    // Preference when speed was not measured (FsInfo::preference, 1 best).
    let pref = |fs: &str| fs::by_name(fs).map_or(u8::MAX, |f| f.info().preference);
    let default_of =
        |fs: &str| fs::by_name(fs).map(|f: &dyn Filesystem| f.default_cluster(usage.volume_bytes));
    // Lower is better: problems first, then the overhead limit, then speed or preference.
    good.sort_by(|a, b| {
        let ka = (a.problems > 0, a.overhead_pct > max_overhead);
        let kb = (b.problems > 0, b.overhead_pct > max_overhead);
        ka.cmp(&kb).then_with(|| {
            if ka.1 {
                // Over the limit: the least space first.
                a.tree_bytes.cmp(&b.tree_bytes)
            } else if speed_measured {
                let sa = a.est_copy_seconds.unwrap_or(f64::INFINITY);
                let sb = b.est_copy_seconds.unwrap_or(f64::INFINITY);
                sa.partial_cmp(&sb)
                    .unwrap()
                    .then(a.tree_bytes.cmp(&b.tree_bytes))
            } else {
                // Same filesystem: the mkfs default if it is within the limit,
                // else the largest cluster within it (bigger clusters write big
                // files faster: 000 measured 338 MB/s at 8K, 390 at 128K).
                pref(&a.fs).cmp(&pref(&b.fs)).then_with(|| {
                    let da = Some(a.cluster_bytes) == default_of(&a.fs);
                    let db = Some(b.cluster_bytes) == default_of(&b.fs);
                    db.cmp(&da).then(b.cluster_bytes.cmp(&a.cluster_bytes))
                })
            }
        })
    });
    let choice = good.first().cloned();
    let runner_up = good.get(1).cloned();
    let mut why = Vec::new();
    let mut tradeoff = None;
    if let Some(c) = &choice {
        let names: Vec<&str> = systems.iter().map(|s| s.name).collect();
        if names.is_empty() {
            why.push("no --for given: every filesystem counts".into());
        } else if names.len() == 1 {
            why.push(format!("{} reads and writes {}", names[0], c.fs));
        } else {
            why.push(format!("{} all read and write {}", names.join(", "), c.fs));
        }
        why.push(format!(
            "your {} files ({}) take {} on it: {:+.1} % overhead (limit {max_overhead} %)",
            usage.tree.files,
            crate::units::iec(usage.tree.apparent_bytes),
            crate::units::iec(c.tree_bytes),
            c.overhead_pct
        ));
        if c.problems > 0 {
            why.push(format!(
                "{} files must be renamed or left out: no candidate stores them all as they are",
                c.problems
            ));
        }
        if c.overhead_pct > max_overhead {
            why.push(format!("no candidate stays within {max_overhead} % overhead; this one takes the least space"));
        }
        match c.est_copy_seconds {
            Some(s) => why.push(format!(
                "copying it would take about {s:.1} s on the benchmarked drive (from {})",
                c.speed_from.join(", ")
            )),
            None => why.push(
                "speed was not measured (give --bench results from `fsfit bench` to rank by speed)"
                    .into(),
            ),
        }
        if let Some(f) = fs::by_name(&c.fs) {
            why.push(format!("{}: {}", c.fs, f.info().robustness));
        }
        if let Some(r) = &runner_up {
            let mut parts = Vec::new();
            if let (Some(a), Some(b)) = (c.est_copy_seconds, r.est_copy_seconds) {
                parts.push(format!("{} copy speed", pct(a, b)));
            }
            parts.push(format!(
                "{} size on disk",
                pct(r.tree_bytes as f64, c.tree_bytes as f64)
            ));
            tradeoff = Some(format!(
                "{}:{} instead: {}",
                r.fs,
                short(r.cluster_bytes),
                parts.join(", ")
            ));
        }
    }
    let commands = choice
        .as_ref()
        .map(|c| commands(&c.fs, c.cluster_bytes, "DATA"));
    Advice {
        schema: SCHEMA,
        volume_bytes: usage.volume_bytes,
        systems: systems.iter().map(|s| s.name.to_string()).collect(),
        sources: systems
            .iter()
            .map(|s| format!("{}: {}", s.name, s.source))
            .collect(),
        max_overhead_pct: max_overhead,
        tree: usage.tree.clone(),
        speed_measured,
        choice,
        runner_up,
        why,
        tradeoff,
        commands,
        candidates: good,
        rejected,
    }
}

/// How to format it on each system, with this cluster size and label.
pub fn commands(fs_name: &str, cluster: u64, label: &str) -> Commands {
    let dev = "/dev/sdX1";
    let f = fs::by_name(fs_name);
    let linux = match f.and_then(|f| f.mkfs(cluster).map(|argv| (f, argv))) {
        Some((f, mut argv)) => {
            argv.retain(|a| a != "-q");
            argv.extend(fs::label_args(f.info(), label));
            argv.push(dev.to_string());
            format!("sudo {}", argv.join(" "))
        }
        None => format!("(fsfit does not know how to make {fs_name})"),
    };
    let formats = f.map(|f| f.info().formats);
    let windows = match formats.and_then(|x| x.windows.map(|w| (w, x.windows_note))) {
        Some((w, note)) => {
            let mut s = format!("format X: /FS:{w} /A:{} /Q /V:{label}", short(cluster));
            if let Some(note) = note {
                s.push_str(&format!("   ({note})"));
            }
            s
        }
        None => format!("Windows cannot format {fs_name}"),
    };
    let macos = match formats.and_then(|x| x.macos) {
        Some(t) => t
            .replace("{cluster}", &cluster.to_string())
            .replace("{sectors}", &(cluster / 512).max(1).to_string())
            .replace("{label}", label),
        None => format!("macOS cannot format {fs_name}"),
    };
    Commands {
        linux,
        windows,
        macos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The commands as they were before the registry held them.
    #[test]
    fn format_commands_per_system() {
        let c = commands("exfat", 32768, "DATA");
        assert_eq!(c.linux, "sudo mkfs.exfat -c 32768 -L DATA /dev/sdX1");
        assert_eq!(c.windows, "format X: /FS:exFAT /A:32K /Q /V:DATA");
        assert_eq!(
            c.macos,
            "sudo newfs_exfat -b 32768 -v DATA /dev/diskNsM   \
             (diskutil eraseVolume ExFAT DATA diskNsM picks its own cluster)"
        );
        let c = commands("fat32", 4096, "DATA");
        assert_eq!(c.linux, "sudo mkfs.fat -F 32 -s 8 -n DATA /dev/sdX1");
        assert_eq!(
            c.windows,
            "format X: /FS:FAT32 /A:4K /Q /V:DATA   \
             (Windows' format refuses FAT32 over 32 GB: use Linux or a third-party tool)"
        );
        assert_eq!(c.macos, "sudo newfs_msdos -F 32 -c 8 -v DATA /dev/diskNsM");
        let c = commands("fat12", 512, "X");
        assert_eq!(c.windows, "format X: /FS:FAT /A:512 /Q /V:X");
        assert_eq!(c.macos, "sudo newfs_msdos -F 12 -c 1 -v X /dev/diskNsM");
        let c = commands("udf", 2048, "DATA");
        assert_eq!(
            c.linux,
            "sudo mkudffs --media-type=hd --blocksize=2048 --label=DATA /dev/sdX1"
        );
        assert_eq!(c.windows, "format X: /FS:UDF /A:2K /Q /V:DATA");
        assert_eq!(c.macos, "macOS cannot format udf");
        let c = commands("f2fs", 4096, "DATA");
        assert_eq!(c.linux, "sudo mkfs.f2fs -f -l DATA /dev/sdX1");
        assert_eq!(c.windows, "Windows cannot format f2fs");
        let c = commands("ntfs", 4096, "DATA");
        assert_eq!(c.linux, "sudo mkntfs -Q -F -c 4096 -L DATA /dev/sdX1");
        assert_eq!(c.windows, "format X: /FS:NTFS /A:4K /Q /V:DATA");
        assert_eq!(c.macos, "macOS cannot format ntfs");
        let c = commands("nosuchfs", 4096, "DATA");
        assert_eq!(c.linux, "(fsfit does not know how to make nosuchfs)");
    }
}
