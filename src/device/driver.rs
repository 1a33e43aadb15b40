//! How a filesystem is mounted, as data: the registry (fs/) names a driver
//! for each filesystem on every system; mount.rs (Linux) runs it.

/// How to mount one filesystem on one device.
#[derive(Clone, Debug)]
pub enum Driver {
    /// `mount -t FSTYPE -o OPTS DEV DIR`
    Kernel { fstype: String, opts: String },
    /// `PROGRAM ARGS... DEV DIR` (mount.exfat-fuse, ntfs-3g, fusefat)
    Fuse { program: String, args: Vec<String> },
}

impl Driver {
    pub fn is_fuse(&self) -> bool {
        matches!(self, Driver::Fuse { .. })
    }
}
