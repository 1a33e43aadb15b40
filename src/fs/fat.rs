//! FAT12/16/32: placeholder model (cluster rounding only), replaced by the real one.

use super::{Acc, Filesystem, Limits, Model, POSIX_LIMITS};
use crate::scan::{Dir, Kind};

pub struct Fat {
    bits: u32,
}

pub static FAT12: Fat = Fat { bits: 12 };
pub static FAT16: Fat = Fat { bits: 16 };
pub static FAT32: Fat = Fat { bits: 32 };

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

impl Filesystem for Fat {
    fn mkfs(&self, cluster: u64) -> Option<Vec<String>> {
        // mkfs.fat: -F FAT type, -s sectors per cluster (512-byte sectors).
        let spc = (cluster / 512).max(1).to_string();
        Some(super::argv(&[
            "mkfs.fat",
            "-F",
            &self.bits.to_string(),
            "-s",
            &spc,
        ]))
    }
    fn kernel_driver(&self) -> Option<&'static str> {
        Some("vfat")
    }
    fn fuse_driver(&self) -> Option<(&'static str, &'static [&'static str])> {
        Some(("fusefat", &["-o", "rw+"]))
    }
    fn fuse_is_slow(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        match self.bits {
            12 => "fat12",
            16 => "fat16",
            _ => "fat32",
        }
    }
    fn exact(&self) -> bool {
        false
    }
    fn limits(&self) -> Limits {
        POSIX_LIMITS
    }
    fn cluster_range(&self) -> (u64, u64) {
        (512, 65536)
    }
    fn default_cluster(&self, _volume: u64) -> u64 {
        32768
    }
    fn model(&self, volume: u64, cluster: u64) -> Result<Box<dyn Model>, String> {
        Ok(Box::new(Simple { cluster, volume }))
    }
}
