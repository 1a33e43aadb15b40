//! `fsfit advise`: the recommendation with its reasons. Candidates are the
//! filesystem × cluster configs every named system reads and writes and that
//! store the tree as it is; they are ranked by speed (measured on the target
//! within a time budget, read from `--bench` results, or assumed from an
//! explicit prior, and said which) against the space they waste, within the
//! overhead the user accepts.

#[cfg(target_os = "linux")]
pub mod measure;
pub mod plan;
pub mod prior;
mod rank;
pub mod systems;
#[cfg(target_os = "linux")]
pub mod traced;

pub use rank::{advise, candidates, compare};

use crate::bench::results::BenchReport;
use crate::fs;
use crate::scan::TreeCounts;
use crate::units::short;
use crate::usage::UsageReport;
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "fsfit.advise/1";

/// The choice's plan's commands (kept beside `choice.plan` for older
/// readers).
#[derive(Clone, Debug, Serialize)]
pub struct Commands {
    /// The mkfs line alone (as before).
    pub linux: String,
    /// Every step on Linux, each line safe to paste.
    pub linux_steps: Vec<String>,
    /// The one-line alternative: `sudo fsfit format ...`.
    pub fsfit: String,
    /// Why the label given cannot be used on this filesystem (the commands
    /// then make the volume without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_problem: Option<String>,
    pub windows: String,
    pub macos: String,
}

/// How a candidate's speed is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpeedKind {
    /// Benchmarked on the target (or read from `--bench` results).
    Measured,
    /// From the prior ([`prior`]): nothing was measured.
    Assumed,
    /// Others were measured, this one was not (budget, or it failed).
    Unmeasured,
    /// Nothing measured: the tree's copy simulated on a flash profile
    /// (`--flash`, or a default), see src/flash/synth.rs.
    Simulated,
}

#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub fs: String,
    pub cluster_bytes: u64,
    pub tree_bytes: u64,
    pub overhead_pct: f64,
    /// Why `overhead_pct` means nothing here (usage's `overhead_note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead_note: Option<String>,
    pub fits: bool,
    /// Files the filesystem cannot store as they are.
    pub problems: u64,
    /// How much data like yours a full volume of this config holds.
    pub holds_bytes: u64,
    /// Space lost to slack and metadata at the expected fill; none where
    /// `overhead_note` says the percentage means nothing, since the same
    /// ratio would scale a cluster's fixed cost (or a sparse file's holes)
    /// up to the fill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wasted_at_fill_bytes: Option<u64>,
    pub speed: SpeedKind,
    /// Measured: your tree's mix of sizes written at the workloads' speeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_mb_per_s: Option<f64>,
    /// Estimated seconds to copy the tree, from bench results.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub est_copy_seconds: Option<f64>,
    /// Measured: seconds to write the expected fill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill_seconds: Option<f64>,
    /// Assumed: write speed relative to 128 KiB clusters on flash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumed_relative_speed: Option<f64>,
    /// Simulated: the flash profile and your tree's write speed on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_mb_per_s: Option<f64>,
    /// Which bench workloads the estimate used.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speed_from: Vec<String>,
    /// The last measuring round this config took part in (1 = the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// Measured MB/s for your mix in each round (0: not in that round):
    /// rounds run at different scales, so only one round compares two.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mb_per_s_by_round: Vec<f64>,
    /// What crash results say, when given (see [`Robustness`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<String>,
    pub reasons: Vec<String>,
    /// The drive prepared for it (format/layout.rs), as `fsfit format`
    /// would prepare it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<crate::format::layout::DrivePlan>,
}

impl Candidate {
    pub fn name(&self) -> String {
        format!("{} {}", self.fs, short(self.cluster_bytes))
    }

    /// As `--fs` takes it ("exfat:32K"): how the lists of configs without
    /// a figure name each one, whichever step left it out.
    pub fn fs_spelling(&self) -> String {
        fs_spelling(&self.fs, self.cluster_bytes)
    }

    /// Time per byte, comparable between candidates of the same speed kind.
    pub(crate) fn cost(&self) -> Option<f64> {
        match self.speed {
            SpeedKind::Measured => self.write_mb_per_s,
            SpeedKind::Assumed => self.assumed_relative_speed,
            SpeedKind::Simulated => self.simulated_mb_per_s,
            SpeedKind::Unmeasured => None,
        }
        // A rate of 0 (nothing timed) has no cost to compare: an infinite
        // one would make every ratio with it NaN.
        .filter(|s| *s > 0.0)
        .map(|s| 1.0 / s)
    }
}

/// Crash results for one filesystem (and cluster, when they name one):
/// the hook `fsfit crash --json` results come in by. States in which
/// durable or older files were damaged rank a config after clean ones.
#[derive(Clone, Debug)]
pub struct Robustness {
    pub fs: String,
    pub cluster_bytes: Option<u64>,
    pub states: u64,
    pub damaged: u64,
    /// The device models the states come from (`honest`, `no-flush`,
    /// `flash-gc`, ...), for the reason line.
    pub models: Vec<String>,
}

/// What the ranking needs besides the usage report.
pub struct Options<'a> {
    pub systems: Vec<&'static systems::System>,
    pub max_overhead: f64,
    /// Apparent bytes of data like the tree the volume will hold; None: as
    /// much as fills it.
    pub fill: Option<u64>,
    /// Measured speeds: one report per measuring round, in order, or the
    /// results given with `--bench`. Empty: speeds are assumed.
    pub measured: &'a [BenchReport],
    /// Where the measurements come from, for the reasons.
    pub measured_on: String,
    pub crash: &'a [Robustness],
    /// Nothing measured: simulate on this flash profile (`--flash`, or the
    /// default for the volume), with how it was chosen.
    pub drive: Option<(crate::flash::Profile, String)>,
    /// How the candidates are mounted when measured: the policy `--for`
    /// implies or `--mount-policy` names, and why.
    pub mount_policy: Policy,
    /// How the simulated speeds come about (with a profile and nothing
    /// measured): a traced copy of a sample of the tree, or synthetic.
    pub simulation: Option<Simulation>,
    /// The volume label the plans and commands give it.
    pub label: String,
    /// Candidates measured on the target that got no figure, each as
    /// `name: why` (not picked, over the budget, stopped, failed).
    pub unmeasured: Vec<String>,
}

impl Options<'_> {
    /// The simulation when it is a traced copy of the user's files, whose
    /// figures compare across filesystems (a synthetic one does not).
    pub fn traced(&self) -> Option<&Simulation> {
        self.simulation.as_ref().filter(|s| s.is_traced())
    }
}

/// A sample of the user's files that was copied under trace.
#[derive(Clone, Debug, Serialize)]
pub struct TracedSample {
    pub files: u64,
    pub bytes: u64,
    /// Files in the whole tree, which the sample stands for.
    pub tree_files: u64,
    /// Files copied of each size class (under 64 KiB, to 16 MiB, above).
    pub per_class: Vec<u64>,
    pub how: String,
}

/// How the simulated speeds of `--drive` (or the default profile) came
/// about: `traced`, a sample of the user's files copied onto each
/// candidate with its real driver and the block trace replayed through the
/// profile, so filesystems compare; or `synthetic`, each file written
/// whole then one metadata block (src/flash/synth.rs), which orders only
/// clusters within a filesystem.
#[derive(Clone, Debug, Serialize)]
pub struct Simulation {
    pub method: &'static str,
    /// Why this method (the traced copy's fallback says what was missing).
    pub why: String,
    pub profile: String,
    /// Where the choice's simulated volume starts on the flash (its plan's
    /// partition start, [`plan::volume_start`]), and what that is against
    /// the profile's pages and AUs. Each candidate's figure assumes its own
    /// plan's start, which its `plan` states. Set once the ranking knows
    /// the choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alignment: Option<crate::flash::Alignment>,
    pub mount_policy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<TracedSample>,
    /// Seconds the traced copies took.
    pub seconds: f64,
    /// Candidates left without a traced figure, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_traced: Vec<String>,
    /// Whole-tree simulated MB/s per traced config.
    #[serde(skip)]
    pub figures: Vec<(String, u64, f64)>,
}

impl Simulation {
    pub fn synthetic(profile: &crate::flash::Profile, policy: &Policy, why: String) -> Simulation {
        Simulation {
            method: "synthetic",
            why,
            profile: profile.name.clone(),
            alignment: None,
            mount_policy: policy.name,
            sample: None,
            seconds: 0.0,
            not_traced: Vec::new(),
            figures: Vec::new(),
        }
    }

    /// A traced copy of the user's files, not the synthetic estimate.
    pub fn is_traced(&self) -> bool {
        self.method == "traced"
    }

    /// The traced figure of a config, if it has one.
    pub fn figure(&self, fs: &str, cluster: u64) -> Option<f64> {
        self.figures
            .iter()
            .find(|(f, c, _)| f == fs && *c == cluster)
            .map(|x| x.2)
    }
}

/// The mount policy advise measured (or would measure) under, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Policy {
    /// `server`, `desktop` or `windows-write-through`.
    pub name: &'static str,
    pub meaning: &'static str,
    /// True where the policy stands in for a system fsfit cannot run
    /// (Windows' write-through, by Linux drivers' synchronous writes).
    pub approximation: bool,
    pub why: String,
    #[serde(skip)]
    pub policy: crate::fs::policy::MountPolicy,
}

impl Policy {
    pub fn new(policy: crate::fs::policy::MountPolicy, why: String) -> Policy {
        Policy {
            name: policy.name(),
            meaning: policy.describe(),
            approximation: policy == crate::fs::policy::MountPolicy::WindowsWriteThrough,
            why,
            policy,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub schema: &'static str,
    pub fsfit: String,
    pub date: String,
    pub volume_bytes: u64,
    pub systems: Vec<String>,
    /// Where each named system's list of filesystems comes from.
    pub sources: Vec<String>,
    pub max_overhead_pct: f64,
    /// Apparent bytes of data like yours the trade-offs are weighed at.
    pub fill_bytes: u64,
    pub tree: TreeCounts,
    pub speed_measured: bool,
    /// The mount policy the speeds were measured (or traced) under.
    pub mount_policy: Policy,
    /// How simulated speeds came about, when they were simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulation: Option<Simulation>,
    pub choice: Option<Candidate>,
    pub runner_up: Option<Candidate>,
    pub why: Vec<String>,
    /// The choice against the runner-up (kept for older readers).
    pub tradeoff: Option<String>,
    /// The choice against the runner-up, the fastest and the least wasteful.
    pub tradeoffs: Vec<String>,
    /// Which figures are assumed, and from where.
    pub assumptions: Vec<String>,
    /// How the candidates are ranked, in the order applied.
    pub ranking: Vec<String>,
    /// What the named systems need besides the filesystem (partition
    /// table, size and file limits, card class), each with its system.
    pub notes: Vec<String>,
    pub commands: Option<Commands>,
    /// Every candidate, best first.
    pub candidates: Vec<Candidate>,
    /// Configs left out, with the reason.
    pub rejected: Vec<Candidate>,
    /// The measuring run, when advise benchmarked the target itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetReport>,
    /// The measurements the recommendation rests on (fsfit.bench/1 each).
    pub measurements: Vec<BenchReport>,
    /// The size-on-disk figures (fsfit.usage/1).
    pub usage: UsageReport,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundReport {
    pub round: u32,
    pub scale: f64,
    pub configs: Vec<String>,
    pub seconds: f64,
    /// Configs of the round that did not finish, and why.
    pub stopped: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BudgetReport {
    pub budget_seconds: f64,
    pub spent_seconds: f64,
    pub workloads: Vec<String>,
    pub rounds: Vec<RoundReport>,
    /// Candidates that got no first pass, and why.
    pub not_measured: Vec<String>,
}

/// The filesystems every named system can use on a volume of this size.
pub fn allowed(systems: &[&systems::System], volume: u64) -> Vec<&'static str> {
    fs::names()
        .into_iter()
        .filter(|f| systems.iter().all(|s| s.uses(f, volume)))
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
    let speed = |kinds: &[crate::bench::kinds::Kind]| {
        kinds.iter().find_map(|k| {
            r.workloads
                .iter()
                .find(|w| w.name == k.name && w.error.is_none() && w.mb_per_s > 0.0)
                .map(|w| (w.mb_per_s, w.name.clone()))
        })
    };
    let mut secs = 0.0;
    let mut used = Vec::new();
    for (class, names) in tree
        .by_size
        .iter()
        .zip(crate::bench::kinds::SIZE_CLASS_WRITES)
    {
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

/// A config as `--fs` takes it ("exfat:32K").
pub fn fs_spelling(fs: &str, cluster_bytes: u64) -> String {
    format!("{fs}:{}", short(cluster_bytes))
}

/// The whole recommendation: with a target, measure the configs that can
/// still win inside the budget first, then rank with what was measured.
#[cfg(target_os = "linux")]
pub fn recommend(
    usage: &UsageReport,
    opts: Options,
    target: Option<&measure::Measure>,
) -> crate::Result<Advice> {
    let Some(m) = target else {
        return Ok(advise(usage, &opts));
    };
    let ranked = advise(usage, &opts).candidates;
    let (configs, mut left) = measure::pick(&ranked, opts.max_overhead);
    if configs.is_empty() {
        return Err(crate::Error::work(
            "no candidate to measure (see fsfit advise without --device)",
        ));
    }
    let contenders: Vec<(String, u64)> = ranked
        .iter()
        .filter(|c| c.overhead_pct <= opts.max_overhead)
        .map(|c| (c.fs.clone(), c.cluster_bytes))
        .collect();
    // Nothing within the limit: all measured configs contend.
    let contenders = if configs.iter().any(|c| contenders.contains(c)) {
        contenders
    } else {
        configs.clone()
    };
    let (reports, mut budget) = measure::run(m, configs, &contenders, &usage.tree)?;
    left.append(&mut budget.not_measured);
    budget.not_measured = left;
    // Why each candidate without a figure has none, first reason first:
    // not picked or not covered, then stopped in a round, then failed.
    let mut unmeasured = budget.not_measured.clone();
    unmeasured.extend(budget.rounds.iter().flat_map(|r| r.stopped.iter().cloned()));
    unmeasured.extend(reports.iter().flat_map(|r| {
        r.skipped
            .iter()
            .map(|k| format!("{}: {}", fs_spelling(&k.fs, k.cluster_bytes), k.reason))
    }));
    let opts = Options {
        measured: &reports,
        unmeasured,
        ..opts
    };
    let mut a = advise(usage, &opts);
    a.budget = Some(budget);
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::plan::{layout_of, Use};

    fn lines_at(fs: &str, cluster: u64, label: &str, volume: u64) -> (String, String, String) {
        let u = Use {
            mbr_for: vec!["car"],
            sd_for: vec![],
            cards: vec![],
            sd_drive: false,
        };
        let (l, _) = layout_of(fs, cluster, volume, &u, label).unwrap();
        let p = l.doc();
        (
            crate::format::paste::mkfs_line(&l),
            p.commands.windows,
            p.commands.macos,
        )
    }

    fn lines(fs: &str, cluster: u64, label: &str) -> (String, String, String) {
        lines_at(fs, cluster, label, 16 << 30)
    }

    /// Each system's line, from the registry and the one plan.
    #[test]
    fn format_commands_per_system() {
        let (linux, windows, macos) = lines("exfat", 32768, "DATA");
        assert_eq!(
            linux,
            "sudo mkfs.exfat -c 32768 -b 2097152 -L DATA /dev/sdX1"
        );
        assert_eq!(windows, "format X: /FS:exFAT /A:32K /Q /V:DATA");
        assert_eq!(
            macos,
            "sudo newfs_exfat -b 32768 -v DATA /dev/diskNsM   \
             (diskutil eraseVolume ExFAT DATA diskNsM picks its own cluster)"
        );
        // Over 32 GiB, where the FAT32 note applies.
        let (linux, windows, macos) = lines_at("fat32", 4096, "DATA", 64 << 30);
        assert!(
            linux.starts_with("sudo mkfs.fat -F 32 -s 8 -a -R "),
            "{linux}"
        );
        assert!(linux.ends_with(" -h 8192 -n DATA /dev/sdX1"), "{linux}");
        // Refused by Windows' format: the reason, not a command that fails.
        assert_eq!(
            windows,
            "Windows' format refuses FAT32 over 32 GB: use Linux or a third-party tool"
        );
        assert_eq!(macos, "sudo newfs_msdos -F 32 -c 8 -v DATA /dev/diskNsM");
        // A 16 GB card: Windows formats it as FAT32, so no warning.
        let (_, windows, _) = lines_at("fat32", 4096, "DATA", 16_000_000_000);
        assert_eq!(windows, "format X: /FS:FAT32 /A:4K /Q /V:DATA");
        let (linux, windows, macos) = lines("udf", 2048, "DATA");
        assert_eq!(
            linux,
            "sudo mkudffs --media-type=hd --blocksize=2048 --bootarea=erase --label=DATA /dev/sdX"
        );
        assert_eq!(windows, "format X: /FS:UDF /A:2K /Q /V:DATA");
        assert_eq!(macos, "macOS cannot format udf");
        let (linux, windows, _) = lines("f2fs", 4096, "DATA");
        assert_eq!(linux, "sudo mkfs.f2fs -l DATA /dev/sdX1");
        assert_eq!(windows, "Windows cannot format f2fs");
        let (linux, windows, macos) = lines("ntfs", 4096, "DATA");
        assert_eq!(linux, "sudo mkntfs -Q -c 4096 -p 8192 -L DATA /dev/sdX1");
        assert_eq!(windows, "format X: /FS:NTFS /A:4K /Q /V:DATA");
        assert_eq!(macos, "macOS cannot format ntfs");
        assert!(layout_of("nosuchfs", 4096, 1 << 30, &Use::of(&[], None), "DATA").is_err());
    }
}
