//! `fsfit info`: what is on a drive, an image or a mounted path now.

use clap::Args;
use std::path::PathBuf;

/// `fsfit info --help`'s text above the options.
pub const LONG_ABOUT: &str = "Reads the boot sector or superblock of a block device or image file \
(FAT12/16/32, exFAT, NTFS, ext2/3/4, UDF, btrfs, XFS, F2FS), lists MBR/GPT partitions with their \
alignment to 1 MiB and 4 MiB (flash erase blocks), or, for a mounted path, statvfs plus the \
on-disk details of its device and how fragmented its files are (FIEMAP, where the driver \
answers it). Read-only.\n\n\
  fsfit info /dev/sdX   # your drive, as lsblk names it\n\
  fsfit info stick.img --json\n\
  fsfit info /media/me/STICK";

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A block device, an image file or a mounted directory.
    #[arg(value_name = "TARGET", required_unless_present = "json")]
    pub target: Option<PathBuf>,

    /// Write the fsfit.info/1 JSON to FILE (atomically) and print the
    /// text; no FILE or `-`: print the JSON instead. `--json TARGET` alone
    /// is the old spelling of `TARGET --json`.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// At most this many files are asked for their extents (mounted path).
    #[arg(long, value_name = "N", default_value = "100000")]
    pub max_files: usize,

    /// DOS code page of FAT labels: 437 (the Linux default), 850, 852,
    /// 855, 857, 858, 860, 861, 862, 863, 865, 866, 737, 775, 869, 874.
    /// Use the one of the system that wrote the label (Western Europe: 850).
    #[arg(long, value_name = "CP", default_value = "437")]
    pub codepage: String,
}
