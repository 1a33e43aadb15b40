//! The probe kit every filesystem's `probe.rs` reads a volume with (as
//! libblkid's `superblocks.h`): a bounded reader over the device and checked
//! field access ([`bytes`]), the DOS code pages of FAT labels
//! ([`codepage`]), and what a parse yields ([`VolumeInfo`]).
//!
//! Everything read from the device is untrusted: a truncated or corrupt
//! structure is an `Err` naming the field, never a panic; every size read
//! from disk is checked before it drives an allocation or a loop.

pub mod bytes;
pub mod codepage;
pub mod error;
pub mod signature;

pub use bytes::Dev;
pub(crate) use error::corrupt;
pub use error::ProbeError;
use serde::Serialize;
pub use signature::{Magic, Signature};

/// What a volume's own structures say about it.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct VolumeInfo {
    /// "fat12" "fat16" "fat32" "exfat" "ntfs" "ext2" "ext3" "ext4" "udf"
    /// "btrfs" "xfs" "f2fs".
    pub fs: String,
    /// Allocation unit: FAT/exFAT/NTFS cluster, ext4 block (cluster with
    /// bigalloc), XFS/F2FS block, btrfs sectorsize, UDF logical block.
    pub cluster_bytes: u64,
    pub sector_bytes: u64,
    /// The size the filesystem says it spans.
    pub volume_bytes: u64,
    pub label: Option<String>,
    /// UUID, or the volume serial number as that filesystem is usually shown.
    pub uuid: Option<String>,
    pub total_clusters: Option<u64>,
    /// From the on-disk free counts, where the filesystem keeps them (or
    /// where counting its bitmap is cheap).
    pub free_bytes: Option<u64>,
    pub used_bytes: Option<u64>,
    /// Extra facts worth showing, in display order.
    pub details: Vec<(String, String)>,
    /// The label's bytes as stored, in hex, where the filesystem stores a
    /// label in a code page (FAT: 11 bytes, blank-padded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_bytes_hex: Option<String>,
    /// The code page `label` was decoded with ("cp437").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_codepage: Option<String>,
    /// FAT: the boot sector's copy of the label (BS_VolLab), shown apart
    /// because Windows, Linux and blkid take the label from the root
    /// directory only; the copy goes stale when the label is erased or was
    /// set by a tool that wrote only one of the two.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boot_label: Option<String>,
    /// Why the label is unknown (rather than absent): the structure that
    /// holds it (FAT root directory, NTFS $Volume) could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_error: Option<String>,
    /// Things the user should know: the volume is longer than the file or
    /// device holding it, a layout outside the spec that operating systems
    /// accept anyway, ...
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where the data area (FAT data region, exFAT cluster heap; the first
    /// block where allocation units count from the volume's start) begins,
    /// in bytes from the volume's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_offset_bytes: Option<u64>,
    /// What this device must hold when it is less than `volume_bytes` (a
    /// member of a multi-device btrfs): what the truncation check uses.
    #[serde(skip)]
    pub device_bytes: Option<u64>,
}

/// How to read what the volume leaves to convention.
#[derive(Debug, Clone, Copy)]
pub struct ProbeOptions {
    /// The OEM code page of FAT labels.
    pub codepage: &'static codepage::CodePage,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            codepage: codepage::default_page(),
        }
    }
}
