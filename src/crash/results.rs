//! What a crash run reports, as data: the results file's types, apart from
//! the recorder and the checker runs that produce them (Linux only), so
//! `fsfit report` reads them on any system.

use super::faults;
use serde::{Deserialize, Serialize};

/// The `schema` of the results `--json` writes.
pub const SCHEMA: &str = "fsfit.crash/1";

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Outcomes {
    pub mountable_as_is: u64,
    pub checker_clean: u64,
    pub checker_repaired: u64,
    pub unrepairable: u64,
    pub no_checker: u64,
    pub old_files_damaged: u64,
    pub durable_lost: u64,
    pub inflight_lost: u64,
    pub inflight_garbage: u64,
    /// Added: states that lost or damaged data (or no longer mount) only
    /// because of the device's own damage (torn, flash-gc): the same writes
    /// without that damage were judged too and lost nothing.
    #[serde(default)]
    pub device_fault: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Worst {
    pub state: String,
    pub kind: String,
    pub detail: String,
    pub replay: String,
}

/// A worst state's kind (its JSON name) in words, for the text and the
/// page: a person reads "a durable file lost", not `durable_lost`.
pub fn kind_said(k: &str) -> &str {
    match k {
        "old_files_damaged" => "an old file damaged",
        "durable_lost" => "a durable file lost",
        "unrepairable" => "unrepairable",
        "not_mountable" => "did not mount as is",
        "inflight_garbage" => "a file in flight holds wrong bytes",
        _ => k,
    }
}

/// Results written before mount policies existed were mounted the server way.
fn server_policy() -> String {
    "server".to_string()
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CrashResult {
    pub fs: String,
    pub cluster_bytes: u64,
    pub driver: String,
    pub mount_options: String,
    /// The `--mount-policy` whose options `mount_options` starts with.
    #[serde(default = "server_policy")]
    pub mount_policy: String,
    /// What the policy only approximates here, or a driver ignores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_policy_note: Option<String>,
    pub checker: Option<String>,
    pub workload: String,
    pub writes: u64,
    pub flushes: u64,
    pub log_bytes: u64,
    pub states: u64,
    pub seconds: f64,
    pub states_per_s: f64,
    pub outcomes: Outcomes,
    pub worst: Vec<Worst>,
    pub error: Option<String>,
    /// Added fields: the volume's size, where the run is kept for --replay,
    /// and whether the recorder's loop device ran with direct I/O.
    #[serde(default)]
    pub image_bytes: u64,
    #[serde(default)]
    pub run_dir: String,
    #[serde(default)]
    pub recorder_dio: bool,
    /// Distinct images among the states (crash points that leave the same
    /// image are mounted and checked once, judged each against the oracle).
    #[serde(default)]
    pub images: u64,
    /// Added: how the states were chosen.
    #[serde(default)]
    pub selection: faults::Selection,
    /// Added: seconds per distinct image spent in each step, averaged.
    #[serde(default)]
    pub step_seconds: Steps,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skipped {
    pub fs: String,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub fsfit: String,
    pub date: String,
    pub command: String,
    pub kernel: String,
    pub device_model: String,
    /// Added: the device model's parameters (cache, geometry) and meaning.
    #[serde(default)]
    pub device: faults::Params,
    pub seed: u64,
    pub quick: bool,
    pub results: Vec<CrashResult>,
    pub skipped: Vec<Skipped>,
    /// Added field: the lab VM this ran in (`uml`, `qemu`), absent on the
    /// host. A lab run's figures check the driver, not the host's speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
}

/// Seconds spent in each step of judging states (totals while running;
/// the JSON gives them per state judged).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Steps {
    /// A worker's start: its copy of the base image, the server loaded.
    #[serde(default)]
    pub setup: f64,
    /// Building the state's image (the log's writes, the device's damage).
    pub build: f64,
    /// Handing the image to the loop device.
    pub load: f64,
    pub mount: f64,
    /// Reading the files the oracle knows of.
    pub read: f64,
    pub unmount: f64,
    /// The checker, read-only.
    pub check: f64,
    /// Repair and the check after it (failing states only).
    pub repair: f64,
    /// Putting back what a journal replay or repair wrote (0 since states
    /// are served from memory: the overlay is dropped in `load`).
    #[serde(default)]
    pub restore: f64,
}

impl Steps {
    pub fn add(&mut self, o: &Steps) {
        self.setup += o.setup;
        self.build += o.build;
        self.load += o.load;
        self.mount += o.mount;
        self.read += o.read;
        self.unmount += o.unmount;
        self.check += o.check;
        self.repair += o.repair;
        self.restore += o.restore;
    }

    pub fn per(&self, n: u64) -> Steps {
        let d = n.max(1) as f64;
        let r = |v: f64| (v / d * 1e6).round() / 1e6;
        Steps {
            setup: r(self.setup),
            build: r(self.build),
            load: r(self.load),
            mount: r(self.mount),
            read: r(self.read),
            unmount: r(self.unmount),
            check: r(self.check),
            repair: r(self.repair),
            restore: r(self.restore),
        }
    }
}
