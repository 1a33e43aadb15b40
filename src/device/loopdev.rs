//! Loop devices over image files, detached when their guard drops.

use super::{run_tool, state};
use std::path::Path;

pub struct LoopDev {
    /// `/dev/loopN`
    pub dev: String,
}

impl LoopDev {
    /// Attach `image` with direct I/O, so the host's page cache does not hold
    /// a second copy of what the filesystem reads and writes.
    pub fn attach(image: &Path) -> Result<LoopDev, String> {
        let img = image.to_str().ok_or("image path is not UTF-8")?;
        let out = run_tool("losetup", &["-f", "--show", "--direct-io=on", img])
            .or_else(|_| run_tool("losetup", &["-f", "--show", img]))?;
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !dev.starts_with("/dev/loop") {
            return Err(format!("losetup gave no device for {img}"));
        }
        state::add_loop(&dev);
        Ok(LoopDev { dev })
    }

    /// `loop3`: the name under /sys/class/block.
    pub fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }
}

pub fn detach(dev: &str) -> Result<(), String> {
    run_tool("losetup", &["-d", dev]).map(|_| ())
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        // A FUSE daemon may still be letting go of the device: try a few times.
        for i in 0..20 {
            if detach(&self.dev).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50 * (i + 1)));
        }
        state::remove_loop(&self.dev);
    }
}
