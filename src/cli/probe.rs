//! `fsfit probe`: the drive to read for its flash geometry.

use super::size;
use clap::Args;
use std::path::PathBuf;

/// `fsfit probe --help`'s text above the options.
pub const LONG_ABOUT: &str =
    "Times small reads just before, across and just after every power-of-two \
boundary of DEV (the read-boundary test of flashbench -a, done by fsfit itself), and reads what \
sysfs knows (preferred_erase_size on SD hosts, optimal_io_size, minimum_io_size, \
discard_granularity, rotational, removable, max_sectors_kb). A read across a flash page or \
allocation unit (AU) takes longer: the steps give the page and AU sizes, with a confidence \
(high, low, none), and the closest flash profile (a class of device, not your stick).\n\n\
It only reads: DEV is opened O_RDONLY|O_DIRECT, never for writing. A plain disk, an image file \
or a loop device has no such steps: the probe then says confidence none and reports no AU \
(0); it never invents one. Many sticks hide their geometry too.\n\n\
  # /dev/sdX, /dev/mmcblkX: your stick or card, as lsblk names it\n\
  sudo fsfit probe /dev/sdX\n\
  sudo fsfit probe /dev/mmcblkX --json\n\n\
Exit status: 0 done (even when nothing was found), 1 could not read, 2 bad arguments.";

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// A block device (a stick, a card) or an image file; read only.
    #[arg(value_name = "DEV|IMAGE", required_unless_present = "json")]
    pub target: Option<PathBuf>,

    /// Write the fsfit.probe/1 JSON to FILE (atomically) and print the
    /// text; no FILE or `-`: print the JSON instead. `--json DEV` alone is
    /// the old spelling of `DEV --json`.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Bytes per timed read [default: twice the logical block, at least 1K].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub read_size: Option<u64>,

    /// Tries per place; each place keeps its fastest read.
    #[arg(long, value_name = "N", default_value = "8")]
    pub tries: u32,
}
