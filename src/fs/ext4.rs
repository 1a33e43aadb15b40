//! ext4: placeholder model (cluster rounding only), replaced by the real one.

use super::{Acc, Filesystem, Limits, Model, POSIX_LIMITS};
use crate::scan::{Dir, Kind};

pub struct Ext4;

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

impl Filesystem for Ext4 {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        Some(super::argv(&[
            "mkfs.ext4",
            "-F",
            "-q",
            "-b",
            &cluster.to_string(),
        ]))
    }
    fn kernel_driver(&self) -> Option<&'static str> {
        Some("ext4")
    }
    fn name(&self) -> &'static str {
        "ext4"
    }
    fn exact(&self) -> bool {
        false
    }
    fn limits(&self) -> Limits {
        POSIX_LIMITS
    }
    fn cluster_range(&self) -> (u64, u64) {
        (1024, 65536)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        4096
    }
    fn model(&self, volume: u64, cluster: u64) -> Result<Box<dyn Model>, String> {
        Ok(Box::new(Simple { cluster, volume }))
    }
}
