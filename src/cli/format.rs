//! `fsfit format`: the drive or image to prepare and how.

use super::size;
use clap::Args;
use std::path::PathBuf;

/// `fsfit format --help`'s text above the options.
pub const LONG_ABOUT: &str = "Erases TARGET and makes one filesystem on it as the advice says: \
wipes old signatures (wipefs), writes one partition (sfdisk; MBR by default up to 2 TiB, GPT above \
or with --table gpt, none for UDF) starting on the alignment (4 MiB, or the SD boundary unit with --align \
auto or --sd) with the type each system expects, aligns the data area too (FAT reserved \
sectors, exFAT boundary), runs mkfs with a checked label, then checks the result with fsfit \
info, the filesystem's checker (read-only) and blkid. The plan, with the exact commands, is \
printed first. TARGET is a block device (confirm with --yes-erase TARGET; mounted, system and \
fixed disks are refused) or an image file (new, empty or made by fsfit). --check-capacity \
first checks that the drive stores what it claims (counterfeit sticks wrap around), writing \
test blocks spread over it. In the examples, /dev/sdX and /dev/mmcblkX stand for your drive: find \
its name with lsblk.\n\n\
  sudo fsfit format /dev/sdX --fs exfat --label STICK --yes-erase /dev/sdX\n\
  sudo fsfit format /dev/mmcblkX --sd --yes-erase /dev/mmcblkX\n\
  sudo fsfit format card.img --size 16G --sd --json card.json\n\
  fsfit format /dev/sdX --fs ext4 --dry-run   # the plan only\n\n\
Exit status: 0 formatted and verified, 1 failed or a check disagrees, 2 bad arguments or \
refused, 130 interrupted (the message says which step).";

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// A block device or an image file. EVERYTHING ON IT IS ERASED.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Filesystem and cluster: exfat, exfat:128K, fat32:32K, ext4, ...
    /// [default with --sd: the SD specification's for the capacity].
    #[arg(long, value_name = "FS[:CLUSTER]")]
    pub fs: Option<String>,

    /// Volume label, checked against the filesystem's rules.
    #[arg(long, value_name = "L")]
    pub label: Option<String>,

    /// The SD Association's layout for the capacity (filesystem, cluster,
    /// boundary unit).
    #[arg(long)]
    pub sd: bool,

    /// Size of a new image file.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub size: Option<u64>,

    /// Confirms a block device TARGET: must name the same device.
    #[arg(long, value_name = "TARGET")]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk.
    #[arg(long)]
    pub allow_fixed: bool,

    /// Print the plan and stop: nothing is written.
    #[arg(long)]
    pub dry_run: bool,

    /// Partition table [default: mbr up to 2 TiB, gpt above; none for UDF].
    /// mbr on a larger drive ends the partition at 2 TiB, as far as MBR
    /// reaches.
    #[arg(help_heading = "Layout and checks", long, value_enum)]
    pub table: Option<FormatTable>,

    /// Alignment of the partition start and the data area: a size (4M,
    /// 16M) or auto (the SD boundary unit for the capacity) [default: 4M].
    #[arg(help_heading = "Layout and checks", long, value_name = "SIZE|auto")]
    pub align: Option<String>,

    /// Check that the drive stores what it claims before formatting:
    /// writes 4 KiB test blocks (every block of the first and last 1/1024
    /// of it, at least 1 MiB, and two in every such part between) and
    /// reads them back. Not every block is tested: f3write and f3read
    /// test them all.
    #[arg(help_heading = "Layout and checks", long)]
    pub check_capacity: bool,

    /// Write the fsfit.format/1 JSON to FILE, atomically; no FILE or `-`:
    /// print it, and the plan and steps on stderr.
    #[arg(help_heading = "Output", long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatTable {
    Mbr,
    Gpt,
    None,
}
