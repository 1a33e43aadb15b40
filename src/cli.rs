//! Command-line definitions (clap) and nothing else.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "fsfit",
    version,
    about = "Which filesystem and cluster size should this drive get, for my data?",
    long_about = "fsfit answers with measurements, not folklore.\n\n\
  fsfit usage ~/Photos            size on disk of your data on every filesystem x cluster size\n\
  fsfit usage --fs exfat:4K,128K  just two exFAT configs\n\
  fsfit usage --volume 64GB --json   machine-readable, for a 64 GB (decimal) stick",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,

    /// No progress display on stderr (warnings and errors still show).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Exact size on disk of a real tree on every filesystem x cluster size.
    #[command(
        long_about = "Walks PATH once and computes, for each filesystem and cluster size, \
how much of a fresh volume's free space a copy of the tree would take (`cp -r`), \
how much of it is slack (unused cluster tails) and metadata, whether it fits, \
and which files could not be stored as they are.\n\n\
One directory's contents land in the volume's root; several paths land as \
folders of the root. Symlinks below PATH are not followed; other mounted \
filesystems are not entered unless --cross-mounts.\n\n\
Exit status: 0 done, 1 failed while working, 2 bad arguments or unreadable PATH."
    )]
    Usage(UsageArgs),
}

#[derive(Args, Debug)]
pub struct UsageArgs {
    /// Files or directories to measure [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// A filesystem, optionally with cluster sizes: `exfat`, `exfat:4K,32K`,
    /// `fat32:default`. Repeatable. Filesystems: fat12 fat16 fat32 exfat ntfs
    /// ext4 udf btrfs xfs f2fs. Without it: every filesystem at its default
    /// cluster plus the sweep that matters for it.
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]")]
    pub fs: Vec<String>,

    /// Size of the volume being planned: 64G (GiB), 64GB (10^9), 512M, ...
    #[arg(long, value_name = "SIZE", default_value = "64G")]
    pub volume: String,

    /// Print the fsfit.usage/1 JSON object.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print one CSV row per config.
    #[arg(long)]
    pub csv: bool,

    /// Walker threads [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,

    /// Also descend into other filesystems mounted below PATH.
    #[arg(long)]
    pub cross_mounts: bool,
}
