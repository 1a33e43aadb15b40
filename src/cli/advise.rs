//! `fsfit advise`: the tree, the systems and the volume to choose for; how to measure.

use super::{budget, flash_profiles, size, systems, TreeArgs, VolumeArgs};
use clap::Args;
use std::path::PathBuf;

/// `fsfit advise --help`'s text above the options.
pub const LONG_ABOUT: &str = "Walks PATH (as `fsfit usage` does), keeps the filesystem x cluster \
configs that every system named by --for can use (car: FAT on MBR; camera: by SD card class) \
and that store the tree, and ranks them: robustness first (journaled or copy-on-write, then \
NTFS, exFAT, FAT), then within --max-overhead, then write speed against wasted space. Speed \
is measured on the drive itself with --device (or --image), inside --budget: a short pass \
on every config that can still win, longer passes on the faster half; or read from --bench \
results; else assumed from an explicit prior (flash writes clusters under 4K slower), and \
the output says which figures are measured and which assumed. Prints the choice, the \
runner-up, why, the trade-offs in numbers, and the commands to format it on Linux, Windows \
and macOS.\n\n\
  fsfit advise ~/Photos --for windows,macos --volume 64GB\n\
  # /dev/sdX: your drive, as lsblk names it; everything on it is erased\n\
  sudo fsfit advise ~/Photos --for macos --device /dev/sdX --yes-erase /dev/sdX\n\
  sudo fsfit advise ~/Music --for car --image /tmp/try.img --size 8G --json a.json\n\
  fsfit advise ~/Music --for car --bench stick.json";

#[derive(Args, Debug)]
pub struct AdviseArgs {
    /// Systems that must use the drive, comma-separated (camera: by SD
    /// class, the volume size decides; car: FAT only, car-exfat: exFAT too).
    #[arg(long = "for", value_name = "SYSTEM,...", value_delimiter = ',', ignore_case = true, value_parser = systems())]
    pub systems: Vec<String>,

    // With --device or --image the volume is the target's size.
    #[command(flatten)]
    pub volume: VolumeArgs,

    /// How much data like PATH the volume will hold, to weigh waste against
    /// speed [default: as much as fills it].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub fill: Option<u64>,

    /// Volume label for the choice's format commands, checked against the
    /// choice's filesystem: it never changes the choice, and one the choice
    /// cannot store is refused with the rule and the candidates that can.
    #[arg(long, default_value = "DATA")]
    pub label: String,

    /// Measure the candidates on this drive: EVERYTHING ON IT IS ERASED.
    #[arg(help_heading = "Measure with", long, value_name = "DEV", conflicts_with_all = ["image", "bench", "volume"])]
    pub device: Option<String>,

    /// Confirms --device (or --format): must name the same device.
    #[arg(help_heading = "Measure with", long, value_name = "DEV")]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk with --device or --format.
    #[arg(help_heading = "Measure with", long)]
    pub allow_fixed: bool,

    /// Measure the candidates on this image file (created sparse if missing).
    #[arg(help_heading = "Measure with", long, value_name = "FILE", conflicts_with_all = ["bench", "volume"])]
    pub image: Option<PathBuf>,

    /// Size of the --image [default: its size, or 4G for a new one].
    #[arg(help_heading = "Measure with", long, value_name = "SIZE", requires = "image", value_parser = size)]
    pub size: Option<u64>,

    /// Format the --image even if fsfit did not make it (as bench's flag).
    #[arg(help_heading = "Measure with", long, requires = "image")]
    pub overwrite_image: bool,

    /// Time for measuring with --device or --image, or for copying a sample
    /// of your files under trace for --flash: 90s, 10m, 1h [default: 10m].
    #[arg(help_heading = "Measure with", long, value_name = "TIME", value_parser = budget)]
    pub budget: Option<std::time::Duration>,

    /// Results of `fsfit bench --json` on the drive, to rank by speed.
    #[arg(help_heading = "Measure with", long, value_name = "FILE.json")]
    pub bench: Option<PathBuf>,

    /// Without a measurement, rank by the speed simulated on this flash
    /// profile (see fsfit bench --list-profiles) [default: chosen from
    /// --volume and --for, and said].
    // `--drive`: this option's older name, still taken (hidden).
    #[arg(help_heading = "Measure with", long = "flash", value_name = "PROFILE", alias = "drive", value_parser = flash_profiles(), conflicts_with_all = ["device", "image", "bench"])]
    pub drive: Option<String>,

    /// Results of `fsfit crash --json` (repeatable): configs whose crash
    /// states damaged durable or older files rank after clean ones.
    #[arg(help_heading = "Measure with", long, value_name = "FILE.json")]
    pub crash: Vec<PathBuf>,

    /// With --flash (or the default profile): rank by the synthetic copy
    /// (each file written whole, then one metadata block) instead of copying
    /// a sample of your files onto each candidate under trace. Quick, but it
    /// orders only clusters within a filesystem.
    #[arg(help_heading = "Measure with", long, conflicts_with_all = ["device", "image", "bench"])]
    pub synthetic: bool,

    /// How the candidates are mounted when measured: server, desktop or
    /// windows-write-through (an approximation of Windows' quick removal)
    /// [default: the one --for implies, and said].
    #[arg(help_heading = "Measure with", long, value_enum, value_name = "POLICY")]
    pub mount_policy: Option<crate::fs::policy::MountPolicy>,

    /// Write the fsfit.advise/1 JSON (with its measurements) to FILE,
    /// atomically; no FILE or `-`: print it instead of the text.
    #[arg(help_heading = "Output", long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Also print the long explanations: how the candidates are ranked
    /// (the JSON's `ranking` has them always).
    #[arg(help_heading = "Output", short, long)]
    pub verbose: bool,

    /// Format this drive with the choice (as `fsfit format` does: aligned
    /// partition, checked label, verified): EVERYTHING ON IT IS ERASED.
    #[arg(help_heading = "Output", long, value_name = "DEV")]
    pub format: Option<PathBuf>,

    /// Most space overhead (size on disk over apparent size) to accept, in %.
    #[arg(
        help_heading = "Tuning",
        long,
        value_name = "PCT",
        default_value = "10"
    )]
    pub max_overhead: f64,

    /// Count the `._NAME` file macOS's Finder adds beside every file on
    /// FAT and exFAT (as usage --appledouble).
    #[arg(help_heading = "Tuning", long)]
    pub appledouble: bool,

    #[command(flatten)]
    pub tree: TreeArgs,
}
