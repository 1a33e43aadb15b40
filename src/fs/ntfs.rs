//! ntfs: placeholder model (cluster rounding only), replaced by the real one.

use super::{Acc, Filesystem, Limits, Model, POSIX_LIMITS};
use crate::scan::{Dir, Kind};

pub struct Ntfs;

struct Simple {
    cluster: u64,
    volume: u64,
}

impl Model for Simple {
    fn free_bytes(&self) -> u64 {
        self.volume / 100 * 95
    }
    fn add_dir(&self, dir: &Dir, acc: &mut Acc) {
        for e in dir.entries {
            if e.kind == Kind::File {
                acc.add_content(e.size, self.cluster);
            }
        }
    }
}

impl Filesystem for Ntfs {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // mkntfs: -Q quick (no zeroing), -F force on a non-partition, -c cluster size.
        Some(super::argv(&[
            "mkntfs",
            "-Q",
            "-F",
            "-q",
            "-c",
            &cluster.to_string(),
        ]))
    }
    fn kernel_driver(&self) -> Option<&'static str> {
        Some("ntfs3")
    }
    fn fuse_driver(&self) -> Option<(&'static str, &'static [&'static str])> {
        Some(("ntfs-3g", &[]))
    }
    fn name(&self) -> &'static str {
        "ntfs"
    }
    fn exact(&self) -> bool {
        false
    }
    fn limits(&self) -> Limits {
        POSIX_LIMITS
    }
    fn cluster_range(&self) -> (u64, u64) {
        (512, 2097152)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        4096
    }
    fn model(&self, volume: u64, cluster: u64) -> Result<Box<dyn Model>, String> {
        Ok(Box::new(Simple { cluster, volume }))
    }
}
