//! The `fsfit.bench/1` results, as DESIGN.md's contract names them.

use serde::{Deserialize, Serialize};

/// Bytes from the flash's start to the volume `bench --flash` and advise's
/// simulated speeds assume (1 MiB, as fdisk).
pub const DEFAULT_PARTITION_OFFSET: u64 = 1 << 20;

pub const SCHEMA: &str = "fsfit.bench/1";

/// Where `--flash` takes its block traces: the kernel's `block_rq_issue`
/// tracepoint read through tracefs (src/flash/trace.rs), not blktrace.
pub const TRACE_SOURCE: &str = "tracefs:block_rq_issue";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    pub schema: String,
    pub host: Host,
    pub target: TargetInfo,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub scale: f64,
    #[serde(default)]
    pub repeat: u32,
    /// The config the relative figures compare with ("fs:cluster").
    #[serde(default)]
    pub baseline: String,
    pub results: Vec<ConfigResult>,
    /// Configs of the plan that could not run here, and why.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Why the run stopped before its end (what was measured is above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The scheduling priority the measuring ran at, when fsfit raised it
    /// (`--quick`: other programs' work waits for the runs, not the
    /// reverse); absent: the priority fsfit was started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// On a virtual machine whose hypervisor takes back the memory the
    /// guest frees: what fsfit did about it for the measuring
    /// (bench/reclaim.rs); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freed_memory: Option<String>,
    /// `--flash`: the trace, the partition offset and the profiles.
    #[serde(flatten)]
    pub sim: SimInfo,
}

/// The top-level fields `--flash` adds to a bench result.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SimInfo {
    /// Where the block traces came from ([`TRACE_SOURCE`]; files from an
    /// older fsfit say `blktrace` for the same tracepoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Where the simulated volume starts on the flash (with several
    /// offsets, the first; `flash.partition_offsets_bytes` lists them all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_offset_bytes: Option<u64>,
    /// The profiles and the request size limit the traces had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash: Option<FlashInfo>,
}

/// What `--flash` simulated, and with which request sizes.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FlashInfo {
    pub profiles: Vec<String>,
    /// The traced device's max_sectors_kb: for fsfit's loop device, set to
    /// the smallest largest transfer of the profiles (as far as the device
    /// allowed); a real device's is left as it is and recorded.
    #[serde(default)]
    pub max_sectors_kb: Option<u64>,
    /// The model's figures are simulated, never a device's measurement.
    pub note: String,
    /// With several `--partition-offset`s: each, in the order given; every
    /// trace was replayed at each of them (the filesystem is made on the
    /// volume alone, so its layout and trace do not depend on the offset),
    /// and each simulated figure states its own `partition_offset_bytes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partition_offsets_bytes: Vec<u64>,
    /// Each profile at each offset: where the volume falls against its
    /// pages and AUs (what the offset costs depends on it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alignments: Vec<crate::flash::Alignment>,
}

/// One workload on one flash profile (`--flash`): simulated figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SimWorkload {
    pub profile: String,
    /// Where the simulated volume started on the flash for this figure
    /// (absent in results from an older fsfit: the run's one offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_offset_bytes: Option<u64>,
    pub median_seconds: f64,
    pub mb_per_s: f64,
    pub files_per_s: f64,
    /// The model's service time alone (median over the runs).
    pub device_seconds: f64,
    /// Bytes the flash wrote / bytes the host wrote (median run; 0: no writes).
    pub flash_write_amplification: f64,
    /// Allocation-unit copies (median run).
    pub au_copies: u64,
    /// This figure against the baseline config's on the same profile, in
    /// percent (above 100: faster), from bench/relative.rs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_pct: Option<f64>,
}

/// One run on one flash profile.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SimRun {
    pub profile: String,
    /// Where the simulated volume started on the flash for this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_offset_bytes: Option<u64>,
    /// Simulated run time: device time plus host CPU time as the workload
    /// lets them overlap.
    pub seconds: f64,
    pub device_seconds: f64,
    pub flash_write_amplification: f64,
    pub au_copies: u64,
    /// Block requests in the run's trace.
    #[serde(default)]
    pub requests: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    pub kernel: String,
    pub fsfit: String,
    pub cpus: u32,
    /// Set when the run happened inside a lab VM (`uml`: user-mode Linux,
    /// `qemu`: QEMU without KVM): its figures check that the driver works,
    /// they are not the device's speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetInfo {
    /// image, device or dir
    pub kind: String,
    pub path: String,
    pub size_bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus: Option<String>,
    /// How caches were made cold before read phases.
    #[serde(default)]
    pub cold_cache: String,
    /// The block device whose counters were read.
    #[serde(default)]
    pub counters: String,
    /// For an image: whether its loop device does direct I/O, as
    /// /sys/block/loopN/loop/dio says (`losetup --direct-io=on` falls back to
    /// buffered silently). false: the host's page cache may serve reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_direct_io: Option<bool>,
    /// For an image: the filesystem type holding the image file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing_fs: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skipped {
    pub fs: String,
    pub cluster_bytes: u64,
    pub reason: String,
}

/// Results written before mount policies existed were mounted the server way.
fn server_policy() -> String {
    "server".to_string()
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConfigResult {
    pub fs: String,
    pub cluster_bytes: u64,
    /// `kernel:exfat 6.1.0` or `fuse:exfat-fuse 1.3.0`.
    pub driver: String,
    pub format_seconds: f64,
    /// The mkfs command line and its tool's version.
    #[serde(default)]
    pub mkfs: String,
    #[serde(default)]
    pub mount_options: String,
    /// The `--mount-policy` the options come from (`server`, `desktop`,
    /// `windows-write-through`; `as-mounted` for `--dir`).
    #[serde(default = "server_policy")]
    pub mount_policy: String,
    /// What the policy only approximates here, or a driver ignores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_policy_note: Option<String>,
    /// Why this config stopped early, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub workloads: Vec<WorkloadResult>,
}

impl ConfigResult {
    /// `exfat:32K`: how the baseline and every view name a config.
    pub fn label(&self) -> String {
        format!("{}:{}", self.fs, crate::units::short(self.cluster_bytes))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkloadResult {
    pub name: String,
    pub files: u64,
    pub bytes: u64,
    pub median_seconds: f64,
    #[serde(default)]
    pub min_seconds: f64,
    #[serde(default)]
    pub max_seconds: f64,
    pub mb_per_s: f64,
    pub files_per_s: f64,
    pub cv_pct: f64,
    /// The scale this workload ran at, when sizing by time (`--min-time`,
    /// `--quick`) grew it beyond the run's `scale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// `--quick`: how many rounds of the workload make each timed run, when
    /// one round took under 0.1 s (settle.rs); `files`, `bytes` and every
    /// run's counts are those of all its rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// `cache-suspect`, `write-not-durable`, `high-cv`, `no-device-counters`, ...
    pub flags: Vec<String>,
    /// The share of their time (percent, median) the runs the figure comes
    /// from spent waiting for a CPU other programs held; the runs' own
    /// `cpu_wait_s` over their `seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_pct: Option<f64>,
    /// This config's figure over the baseline config's, in percent (above
    /// 100: faster than the baseline), from bench/relative.rs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub runs: Vec<Run>,
    /// `--flash`: the simulated figures, one per profile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub simulated: Vec<SimWorkload>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Run {
    pub seconds: f64,
    pub device_read_bytes: u64,
    pub device_write_bytes: u64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub ctx_voluntary: u64,
    pub ctx_involuntary: u64,
    /// fsfit's own tally of the calls the workload issued (open, read,
    /// write, fsync, stat, unlink, close...), not a kernel count: see
    /// `syscalls_read` and `syscalls_write`.
    pub ops: u64,
    /// Read and write system calls the kernel counted for this process
    /// during the run (/proc/self/io syscr, syscw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syscalls_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syscalls_write: Option<u64>,
    /// CPU seconds (user + system) of the FUSE daemon during the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon_cpu_s: Option<f64>,
    /// Device bytes read while remounting just before a cold phase (a
    /// driver's readahead at mount). Recorded apart and never counted as the
    /// phase's own cold reads: what mount brings in, the phase finds cached.
    #[serde(
        default,
        alias = "remount_read_bytes",
        skip_serializing_if = "Option::is_none"
    )]
    pub mount_read_bytes: Option<u64>,
    /// Extents of the file written (FIEMAP), where the driver answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extents: Option<u32>,
    /// `--flash`: CPU seconds the trace reader thread took during the run
    /// (counted in cpu_*_s, taken out of the simulated host time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_cpu_s: Option<f64>,
    /// `--flash`: this run replayed on each profile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub simulated: Vec<SimRun>,
    /// Seconds the run's own tasks (fsfit's threads, the FUSE daemon's)
    /// were runnable but waited for a CPU other programs held, from the
    /// scheduler's per-thread schedstat. Part of `seconds`, never taken out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_s: Option<f64>,
    /// Seconds of the run in which some task on the machine waited for a
    /// CPU (/proc/pressure/cpu "some"): how busy the machine was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pressure_s: Option<f64>,
    /// Seconds of the run in which some task on the machine stalled on
    /// memory (/proc/pressure/memory "some": reclaim, compaction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_pressure_s: Option<f64>,
    /// `--quick`: the clean page cache was dropped just before this run,
    /// untimed, because free memory was short of what the run would fill
    /// (bench/room.rs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub made_room: bool,
    /// Why this run is not among those the figure comes from (`--quick`:
    /// its tasks waited for a CPU for much of it, and quieter runs of the
    /// same workload were had). Still a real run, kept here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_aside: Option<String>,
}

impl Run {
    /// Count another round of the workload into this run: a timed run made
    /// of several rounds (`rounds`) is their sums, its time the sum of the
    /// rounds' timed parts only.
    pub fn absorb(&mut self, o: &Run) {
        fn add<T: std::ops::Add<Output = T> + Copy>(a: &mut Option<T>, b: Option<T>) {
            *a = match (*a, b) {
                (Some(x), Some(y)) => Some(x + y),
                (x, y) => x.or(y),
            };
        }
        self.seconds += o.seconds;
        self.device_read_bytes += o.device_read_bytes;
        self.device_write_bytes += o.device_write_bytes;
        self.cpu_user_s += o.cpu_user_s;
        self.cpu_sys_s += o.cpu_sys_s;
        self.ctx_voluntary += o.ctx_voluntary;
        self.ctx_involuntary += o.ctx_involuntary;
        self.ops += o.ops;
        add(&mut self.syscalls_read, o.syscalls_read);
        add(&mut self.syscalls_write, o.syscalls_write);
        add(&mut self.daemon_cpu_s, o.daemon_cpu_s);
        add(&mut self.mount_read_bytes, o.mount_read_bytes);
        add(&mut self.cpu_wait_s, o.cpu_wait_s);
        add(&mut self.cpu_pressure_s, o.cpu_pressure_s);
        add(&mut self.mem_pressure_s, o.mem_pressure_s);
        self.extents = o.extents.or(self.extents);
        self.made_room |= o.made_room;
    }
}
