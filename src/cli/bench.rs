//! `fsfit bench`: format, mount and measure configs on an image, a drive or a folder.

use super::{bench_workloads, flash_profiles, size, FsSpecParser};
use crate::fs::FsSpec;
use clap::Args;
use std::path::PathBuf;

/// `fsfit bench --help`'s text above the options.
pub const LONG_ABOUT: &str = "Formats an image file (default: a temporary one under $TMPDIR) or a \
real drive with each filesystem x cluster size, mounts it with a real driver (the kernel's, \
else FUSE), runs the workloads people run (fsfit bench --list) and reports figures a skeptic \
can check: writes end durable inside the timing, reads start cold after a remount, the block \
device's own counters are read around every phase (flags: cache-suspect, write-not-durable, \
high-cv), repeats give medians and spread.\n\n\
  # every filesystem this host mounts, at a small scale, on a temporary image:\n\
  sudo fsfit bench --quick\n\
  sudo fsfit bench --image /media/stick/t.img --size 8G --fs exfat:4K,128K\n\
  # /dev/sdX: your drive, as lsblk names it; everything on it is erased\n\
  sudo fsfit bench --device /dev/sdX --yes-erase /dev/sdX --json sdx.json\n\
  fsfit bench --dir /mnt/usb --workloads small-write,small-read\n\n\
Exit status: 0 done (some configs may have failed: see the table), 1 failed, 2 bad arguments, \
130 interrupted (everything fsfit mounted is unmounted first).";

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Configs: `exfat`, `exfat:4K,32K`, repeatable [default: every filesystem
    /// this host can format and mount, plus exFAT at 4K, 32K, 128K and 1M].
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", value_parser = FsSpecParser)]
    pub fs: Vec<FsSpec>,

    /// Workloads to run, comma-separated [default: all; see --list].
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', value_parser = bench_workloads())]
    pub workloads: Vec<String>,

    /// A small scale, each workload grown until one run takes --min-time
    /// (0.5 s), as far as the volume allows (with --flash: not grown, the
    /// simulated runs last seconds already). For a busy machine: the runs
    /// take the CPU before other programs (real-time priority), a run that
    /// still waited for a CPU over 10 % of its time is set aside and run
    /// again, and runs repeat until their spread settles, all of them or
    /// the 5 or more after the first 2 runs (a warm-up), up to 10 runs or
    /// 12 s a figure; the table marks the figures that did not.
    #[arg(long)]
    pub quick: bool,

    /// Also give each workload's simulated speed on these flash profiles
    /// (a class of stick or card each): every run's block requests are
    /// traced and replayed through the model. The table then shows the
    /// simulated figures; the host's stay in the JSON. PROFILE@usb2 puts
    /// one behind a USB 2 port (a USB 3 stick in a USB 2 socket);
    /// PROFILE+new starts it new (a profile is a device written over
    /// before, whose every AU holds old data to copy). See --list-profiles.
    #[arg(long, value_name = "PROFILE,...", value_delimiter = ',', value_parser = flash_profiles(), conflicts_with = "dir")]
    pub flash: Vec<String>,

    /// Benchmark on this image file (created sparse if missing).
    #[arg(help_heading = "Measure on", long, value_name = "PATH", conflicts_with_all = ["device", "dir"])]
    pub image: Option<PathBuf>,

    /// Size of the image [default: 4G, more if the workloads need it].
    #[arg(help_heading = "Measure on", long, value_name = "SIZE", conflicts_with_all = ["device", "dir"], value_parser = size)]
    pub size: Option<u64>,

    /// Format --image even though it is a file fsfit did not make (without
    /// it, an existing file is used only if it is empty or fsfit's own).
    #[arg(help_heading = "Measure on", long, requires = "image")]
    pub overwrite_image: bool,

    /// Benchmark on this drive or partition: EVERYTHING ON IT IS ERASED.
    #[arg(
        help_heading = "Measure on",
        long,
        value_name = "DEV",
        conflicts_with = "dir"
    )]
    pub device: Option<String>,

    /// Confirms --device: must name the same device.
    #[arg(
        help_heading = "Measure on",
        long,
        value_name = "DEV",
        requires = "device"
    )]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk with --device.
    #[arg(help_heading = "Measure on", long, requires = "device")]
    pub allow_fixed: bool,

    /// Run in an already-mounted directory, without formatting.
    #[arg(help_heading = "Measure on", long, value_name = "PATH")]
    pub dir: Option<PathBuf>,

    /// Write the fsfit.bench/1 JSON results to FILE (atomically); no FILE
    /// or `-`: print them, and the table on stderr (with --list-profiles:
    /// the profiles as JSON).
    #[arg(help_heading = "Output", long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Also write an HTML report with charts of this run (see fsfit report).
    #[arg(help_heading = "Output", long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Print every workload's definition at the chosen scale and exit.
    #[arg(help_heading = "Output", long)]
    pub list: bool,

    /// Print the flash profiles as a table with a legend, and exit (with
    /// --json: as JSON; with --sources: where each figure comes from).
    #[arg(help_heading = "Output", long)]
    pub list_profiles: bool,

    /// With --list-profiles: each profile's parameters with the public
    /// measurement each comes from (the long form).
    #[arg(long, requires = "list_profiles", help_heading = "Output")]
    pub sources: bool,

    /// Which driver mounts each filesystem.
    #[arg(help_heading = "Tuning", long, value_enum, default_value = "auto")]
    pub driver: crate::fs::drivers::Choice,

    /// How volumes are mounted: server (the kernel's defaults), desktop
    /// (udisks2's options, as a Linux desktop mounts a stick) or
    /// windows-write-through (every write request synchronous, files opened
    /// O_SYNC and folders mounted dirsync: an approximation of Windows'
    /// quick-removal policy).
    #[arg(
        help_heading = "Tuning",
        long,
        value_enum,
        value_name = "POLICY",
        default_value = "server",
        conflicts_with = "dir"
    )]
    pub mount_policy: crate::fs::policy::MountPolicy,

    /// Multiply file counts and sizes (1 = the documents' sizes).
    #[arg(
        help_heading = "Tuning",
        long,
        value_name = "F",
        default_value = "1",
        conflicts_with = "quick"
    )]
    pub scale: f64,

    /// Grow each workload until one run takes at least this many seconds,
    /// as far as the volume allows [default: 0.5 with --quick and no
    /// --flash, else 0: sized by --scale alone].
    #[arg(help_heading = "Tuning", long, value_name = "SECONDS", value_parser = min_time)]
    pub min_time: Option<f64>,

    /// Runs per workload (median, min, max, CV).
    #[arg(help_heading = "Tuning", long, value_name = "N", default_value = "3", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,

    /// The config relative figures compare with (`fat32` or `exfat:32K`) [default: the first].
    #[arg(help_heading = "Tuning", long, value_name = "FS[:CLUSTER]")]
    pub baseline: Option<String>,

    /// Where the simulated volume starts on the flash: alignment matters
    /// (default 1M, where fdisk puts the first partition). Several
    /// (`32256,1M,4M`): each run's one trace replayed at each, a table per
    /// profile and offset.
    #[arg(help_heading = "Tuning", long, value_name = "SIZE,...", value_delimiter = ',', requires = "flash", value_parser = size)]
    pub partition_offset: Vec<u64>,
}

fn min_time(s: &str) -> crate::Result<f64> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(crate::Error::input("give seconds, 0 to 3600")),
    }
}
