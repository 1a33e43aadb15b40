//! What `fsfit info` reports about fragmentation: the data, apart from
//! the FIEMAP reader in frag.rs (Linux only), so the report builds anywhere.

use serde::Serialize;

/// What FIEMAP says about the files under a directory.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FragReport {
    /// False when the driver does not answer FIEMAP (FUSE drivers such as
    /// exfat-fuse and ntfs-3g, tmpfs): the counts below are then empty.
    pub supported: bool,
    pub reason: Option<String>,
    /// Regular files asked (up to the limit).
    pub files_examined: u64,
    /// Files with no extents (empty, or holes only).
    pub files_empty: u64,
    /// Files with more than one extent as the filesystem reports them.
    pub files_multi_extent: u64,
    /// Files whose extents are not all physically contiguous: really
    /// fragmented (ext4 splits contiguous runs at 128 MiB, which is not).
    pub files_fragmented: u64,
    pub total_extents: u64,
    /// Mean extents per file with data.
    pub mean_extents: f64,
    pub max_extents: u64,
    pub max_extents_path: Option<String>,
    /// Mean physically contiguous runs per file with data.
    pub mean_fragments: f64,
    pub max_fragments: u64,
    /// Files that could not be opened or asked.
    pub errors: u64,
    /// The walk stopped at `limit_files`.
    pub truncated: bool,
}
