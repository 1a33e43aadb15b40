//! `fsfit crash`: crash states of recorded workloads, or one of them rebuilt.

use super::{crash_workloads, flash_profiles, size, FsSpecParser};
use crate::fs::FsSpec;
use clap::Args;
use std::path::PathBuf;

/// `fsfit crash --help`'s text above the options.
pub const LONG_ABOUT: &str = "Records every write and flush a filesystem sends to its device while a workload runs (through fsfit's own FUSE write recorder under a loop device), then builds every crash state a drive could be left in (the image at each flush, plus random subsets of the writes since the last flush), runs the filesystem's checker read-only, mounts it read-only, compares it with what the workload had made durable, and repairs a copy. Images only, never a real device.\n\n  fsfit crash --fs ext4 --quick\n  fsfit crash --fs exfat --driver fuse --workloads save --json exfat.json\n  fsfit crash --fs ext4 --device-model lying --seed 7\n  fsfit crash --fs exfat --device-model flash-gc --flash usb2-stick\n  fsfit crash --fs ext4 --device-model no-flush --cache 512K\n  fsfit crash --replay RUN_DIR --state e12-r3 -o x.img\n\nExit status: 0 done (some configs may have failed: see the table), 1 failed, 2 bad arguments, 130 interrupted (everything fsfit mounted is released first).";

#[derive(Args, Debug)]
pub struct CrashArgs {
    /// Configs: `ext4`, `exfat:4K,32K`, repeatable [default: ext4].
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", conflicts_with = "replay", value_parser = FsSpecParser)]
    pub fs: Vec<FsSpec>,

    /// Which driver mounts each filesystem.
    ///
    /// auto: this kernel's driver where it has one, else FUSE; but FAT
    /// without a kernel vfat is skipped, naming the lab command that runs it
    /// (`scripts/lab/uml -- fsfit crash --fs fat32 --driver kernel`), since
    /// fusefat writes nothing until unmount: `fuse` asks for it anyway.
    #[arg(long, value_enum, default_value = "auto")]
    pub driver: crate::fs::drivers::Choice,

    /// Mount options for the run (`sync`, `flush`, `dirsync`, `data=journal`, ...).
    #[arg(long, value_name = "OPTS", default_value = "")]
    pub mount_options: String,

    /// How volumes are mounted: server (the kernel's defaults), desktop
    /// (udisks2's options, as a Linux desktop mounts a stick) or
    /// windows-write-through (every write request synchronous, files opened
    /// O_SYNC and folders mounted dirsync: an approximation of Windows'
    /// quick-removal policy).
    #[arg(long, value_enum, value_name = "POLICY", default_value = "server")]
    pub mount_policy: crate::fs::policy::MountPolicy,

    /// Workloads, comma-separated [default: all].
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', value_parser = crash_workloads())]
    pub workloads: Vec<String>,

    /// Random crash states inside each flush epoch [default: 4, 2 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub states: Option<u64>,

    /// honest: the device keeps its flush promises; lying: it ignores most
    /// flushes; torn: the write in flight persists in part (sectors, or
    /// flash pages with --flash); no-flush: the host sends no flush
    /// (write-through USB stick, see --cache); flash-gc: a cut during an
    /// allocation unit's copy loses its pages not yet copied, old data too.
    #[arg(long, value_enum, default_value = "honest")]
    pub device_model: DeviceModel,

    /// no-flush: the stick's write cache; any subset of the last SIZE of
    /// writes may be lost at the cut [default: 1M].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub cache: Option<u64>,

    /// The flash profile (`fsfit bench --list-profiles`) whose geometry
    /// flash-gc uses (allocation unit, page) and torn tears at (pages)
    /// [default for flash-gc: usb2-stick, 4 MiB AU, 16 KiB pages].
    #[arg(long, value_name = "PROFILE", value_parser = flash_profiles())]
    pub flash: Option<String>,

    /// The fewest crash states per filesystem and workload: more are made
    /// inside flush epochs when flushes are rare [default: 40].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100000))]
    pub min_states: Option<u64>,

    /// Seed for the workloads' data and the random states (same seed, same states).
    #[arg(long, default_value = "1")]
    pub seed: u64,

    /// States checked at once [default: the number of CPUs].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,

    /// Smaller workloads, fewer states.
    #[arg(long)]
    pub quick: bool,

    /// Keep logs, base images and state lists here, for --replay
    /// [default: /var/tmp/fsfit-crash-DATE-PID].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,

    /// Write the fsfit.crash/1 results to FILE (atomically); no FILE or
    /// `-`: print them, and the table on stderr.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Write the HTML report with the survival chart here.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Rebuild a state of this run directory (see the replay commands in the table).
    #[arg(long, value_name = "RUN_DIR", requires_all = ["state", "output"])]
    pub replay: Option<PathBuf>,

    /// The state to rebuild, e.g. e12-r3.
    #[arg(long, value_name = "ID", requires = "replay")]
    pub state: Option<String>,

    /// Where to write the rebuilt image.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "IMAGE",
        requires = "replay"
    )]
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceModel {
    Honest,
    Lying,
    Torn,
    NoFlush,
    FlashGc,
}
