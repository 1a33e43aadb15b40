//! Loop devices over image files, detached when their guard drops.

use super::{run_tool, state};
use crate::{Error, Result};
use std::path::Path;

pub struct LoopDev {
    /// `/dev/loopN`
    pub dev: String,
}

use super::state::Backing;

impl LoopDev {
    /// Attach `image` with direct I/O, so the host's page cache does not hold
    /// a second copy of what the filesystem reads and writes.
    pub fn attach(image: &Path) -> Result<LoopDev> {
        LoopDev::attach_with(image, None)
    }

    /// Attach the first `limit` bytes of `image` (the rest holds fsfit's
    /// marker, see image.rs).
    pub fn attach_limited(image: &Path, limit: u64) -> Result<LoopDev> {
        LoopDev::attach_with(image, Some(limit))
    }

    /// `attach_limited` with partition scanning (`losetup -P`), so the
    /// partitions of a table written to it appear as /dev/loopNpM.
    pub fn attach_partscan(image: &Path, limit: u64) -> Result<LoopDev> {
        LoopDev::attach_args(image, Some(limit), &["-P"])
    }

    fn attach_with(image: &Path, limit: Option<u64>) -> Result<LoopDev> {
        LoopDev::attach_args(image, limit, &[])
    }

    fn attach_args(image: &Path, limit: Option<u64>, extra: &[&str]) -> Result<LoopDev> {
        let img = image
            .to_str()
            .ok_or_else(|| Error::work("image path is not UTF-8"))?;
        let lim = limit.map(|l| l.to_string());
        let mut args = vec!["-f", "--show"];
        args.extend(extra);
        if let Some(l) = &lim {
            args.extend(["--sizelimit", l.as_str()]);
        }
        args.push(img);
        let mut dio = vec!["--direct-io=on"];
        dio.extend(&args);
        let out = run_tool("losetup", &dio).or_else(|_| run_tool("losetup", &args))?;
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !dev.starts_with("/dev/loop") {
            return Err(Error::work(format!("losetup gave no device for {img}")));
        }
        state::add_loop(&dev, backing(&dev));
        Ok(LoopDev { dev })
    }

    /// `loop3`: the name under /sys/class/block.
    pub fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }
}

/// Is direct I/O on for this loop device (`/sys/block/loopN/loop/dio`)?
/// `losetup --direct-io=on` silently falls back to buffered I/O when the
/// backing filesystem cannot do it; only this file says what happened.
pub fn direct_io(dev: &str) -> Option<bool> {
    let name = dev.trim_start_matches("/dev/");
    let s = std::fs::read_to_string(format!("/sys/block/{name}/loop/dio")).ok()?;
    Some(s.trim() == "1")
}

/// The backing file of a loop device now, or None when it has none.
pub fn backing(dev: &str) -> Option<Backing> {
    let f = std::fs::File::open(dev).ok()?;
    backing_of(&f, dev)
}

/// LOOP_GET_STATUS64 on an open loop device (linux/loop.h).
pub fn backing_of(f: &std::fs::File, dev: &str) -> Option<Backing> {
    use std::os::fd::AsRawFd;
    #[repr(C)]
    struct LoopInfo64 {
        lo_device: u64,
        lo_inode: u64,
        lo_rdevice: u64,
        lo_offset: u64,
        lo_sizelimit: u64,
        lo_number: u32,
        lo_encrypt_type: u32,
        lo_encrypt_key_size: u32,
        lo_flags: u32,
        lo_file_name: [u8; 64],
        lo_crypt_name: [u8; 64],
        lo_encrypt_key: [u8; 32],
        lo_init: [u64; 2],
    }
    const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // ENXIO: nothing attached.
    if unsafe { libc::ioctl(f.as_raw_fd(), LOOP_GET_STATUS64 as _, &mut info) } != 0 {
        return None;
    }
    // lo_file_name is cut at 64 bytes: sysfs has the whole path.
    let name = dev.trim_start_matches("/dev/");
    let file = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .map(|s| s.trim_end_matches('\n').to_string())
        .unwrap_or_else(|_| cstr(&info.lo_file_name));
    Some(Backing {
        file,
        st_dev: info.lo_device,
        st_ino: info.lo_inode,
    })
}

/// A NUL-terminated name in a fixed-size kernel field.
fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

pub fn detach(dev: &str) -> Result<()> {
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
