//! `fsfit usage`: size on disk of a tree on every filesystem x cluster size.

use super::{FsSpecParser, TreeArgs, VolumeArgs};
use crate::fs::FsSpec;
use clap::Args;
use std::path::PathBuf;

/// `fsfit usage --help`'s text above the options.
pub const LONG_ABOUT: &str = "Walks PATH once and computes, for each filesystem and cluster size, \
how much of a fresh volume's free space a copy of the tree would take (`cp -r`), \
how much of it is slack (unused cluster tails) and metadata, whether it fits, \
and which files could not be stored as they are.\n\n\
One directory's contents land in the volume's root; several paths land as \
folders of the root. Symlinks below PATH are not followed; other mounted \
filesystems are not entered unless --cross-mounts.\n\n\
  fsfit usage ~/Photos\n\
  fsfit usage ~/Photos --fs exfat:4K,32K,128K --volume 64GB\n\
  fsfit usage ~/Photos --matrix\n\
  fsfit usage ~/Photos --fs exfat --fs ntfs --json photos.json\n\
  find /data -printf '%y %s %T@ %P\\0' | fsfit usage --manifest -\n\n\
Exit status: 0 done, 1 failed while working, 2 bad arguments or unreadable PATH.";

#[derive(Args, Debug)]
pub struct UsageArgs {
    /// A filesystem, optionally with cluster sizes: `exfat`, `exfat:4K,32K`,
    /// `fat32:default`. Repeatable. Filesystems: fat12 fat16 fat32 exfat ntfs
    /// ext4 udf btrfs xfs f2fs. Without it: every filesystem at its default
    /// cluster plus the sweep that matters for it.
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", value_parser = FsSpecParser)]
    pub fs: Vec<FsSpec>,

    #[command(flatten)]
    pub volume: VolumeArgs,

    /// Read the tree from a listing instead of walking PATH: find's
    /// `-printf '%y %s %T@ %P\0'`, `rclone lsjson -R`, `ncdu -o`, an S3
    /// Inventory CSV or `path,size` CSV; gzip or not; `-` for stdin. It must
    /// be in tree order (as find, ncdu and S3 write it, or sorted by path).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "cross_mounts"])]
    pub manifest: Option<PathBuf>,

    /// The manifest's format [default: recognised from its first lines].
    #[arg(long, value_name = "FORMAT", requires = "manifest")]
    pub format: Option<crate::manifest::Format>,

    /// Write the fsfit.usage/1 JSON to FILE (atomically) and print the
    /// table; no FILE or `-`: print the JSON instead. `--json DIR` with an
    /// existing folder DIR is the old spelling of `DIR --json`: DIR is
    /// walked and the JSON printed (with a note on stderr).
    #[arg(help_heading = "Output", long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-", conflicts_with = "csv")]
    pub json: Option<PathBuf>,

    /// Write one CSV row per config to FILE (atomically); no FILE or `-`:
    /// print them instead of the table. An existing folder is walked, as
    /// with --json.
    #[arg(help_heading = "Output", long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub csv: Option<PathBuf>,

    /// Print overhead as a matrix: a row per filesystem, a column per
    /// cluster size, instead of a row per config.
    #[arg(help_heading = "Output", long, conflicts_with_all = ["json", "csv"])]
    pub matrix: bool,

    /// List the N folders (with what is below them) that waste the most
    /// at the first --fs config: slack and metadata, as ncdu lists size.
    #[arg(help_heading = "Output", long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub top: Option<u64>,

    /// Also write an HTML report with charts of this run (see fsfit report).
    #[arg(help_heading = "Output", long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Which driver writes the copy, where drivers lay a tree out
    /// differently (NTFS: kernel ntfs3, FUSE ntfs-3g, windows ntfs.sys)
    /// [default: the one this host would mount with]
    #[arg(help_heading = "Tuning", long, value_enum)]
    pub driver: Option<UsageDriver>,

    /// Also descend into other filesystems mounted below PATH.
    #[arg(help_heading = "Tuning", long)]
    pub cross_mounts: bool,

    /// Count the `._NAME` file macOS's Finder adds beside every file on
    /// FAT and exFAT (its extended attributes, 4 KiB: a whole cluster each).
    #[arg(help_heading = "Tuning", long)]
    pub appledouble: bool,

    // Last: the synopsis lists options in this order, and --threads (in
    // TreeArgs, with PATH) is tuning, not what a newcomer gives first.
    #[command(flatten)]
    pub tree: TreeArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum UsageDriver {
    Kernel,
    Fuse,
    /// Windows' own drivers (NTFS, exFAT, FAT), modelled from Microsoft's
    /// specifications; the default of the Windows build.
    Windows,
}

impl From<UsageDriver> for crate::fs::DriverKind {
    fn from(d: UsageDriver) -> Self {
        match d {
            UsageDriver::Kernel => crate::fs::DriverKind::Kernel,
            UsageDriver::Fuse => crate::fs::DriverKind::Fuse,
            UsageDriver::Windows => crate::fs::DriverKind::Windows,
        }
    }
}
