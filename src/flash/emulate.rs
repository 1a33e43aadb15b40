//! A device that behaves like a flash profile (`fsfit emulate`): an image
//! file served through fsfit's own FUSE filesystem under a loop device
//! (src/device/served.rs), each request taking the service time the
//! profile's model gives it, so that any tool (fsfit bench --device, fio,
//! dd, fsfit probe) runs against a slow "stick" — simulated, not a real
//! device's speed.

use super::delayed::Delayed;
use super::{Device, Op, Profile, Request};
use crate::device::served::{self, Served, SparseImage};
use crate::Result;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Where reads cost more, so that the read-boundary test (flashbench -a,
/// `fsfit probe`) sees the profile's geometry: the flash reads whole pages,
/// so a read across a page boundary reads a second page; a read across an
/// AU boundary looks up a second AU's mapping.
#[derive(Clone, Copy, Debug)]
pub struct ReadGeometry {
    pub page_bytes: u64,
    pub au_bytes: u64,
    /// Seconds to read one more page.
    pub page_read_s: f64,
    /// Seconds to look up one more AU.
    pub au_lookup_s: f64,
}

impl ReadGeometry {
    /// A profile's: one more page at its read speed, one more AU lookup
    /// at its read latency (the time it takes to reach data anywhere).
    pub fn of(p: &Profile) -> ReadGeometry {
        ReadGeometry {
            page_bytes: p.params.page_bytes,
            au_bytes: p.params.au_bytes,
            page_read_s: p.params.page_bytes as f64 / (p.params.read_mb_s * 1e6),
            au_lookup_s: p.params.read_latency_us * 1e-6,
        }
    }
}

/// A model whose reads pay for the pages and AUs they cross, on top of
/// what the model itself charges.
pub struct BoundaryReads {
    model: Box<dyn Device>,
    g: ReadGeometry,
}

/// How many `unit` boundaries `[off, off + len)` crosses.
fn crossings(off: u64, len: u64, unit: u64) -> u64 {
    if len == 0 || unit == 0 {
        return 0;
    }
    (off + len - 1) / unit - off / unit
}

impl BoundaryReads {
    pub fn new(model: Box<dyn Device>, g: ReadGeometry) -> BoundaryReads {
        BoundaryReads { model, g }
    }
}

impl Device for BoundaryReads {
    fn serve(&mut self, req: &Request) -> f64 {
        let t = self.model.serve(req);
        if req.op != Op::Read {
            return t;
        }
        let pages = crossings(req.offset, req.len, self.g.page_bytes);
        let aus = crossings(req.offset, req.len, self.g.au_bytes);
        t + pages as f64 * self.g.page_read_s + aus as f64 * self.g.au_lookup_s
    }
    fn flash_bytes_written(&self) -> u64 {
        self.model.flash_bytes_written()
    }
    fn au_copies(&self) -> u64 {
        self.model.au_copies()
    }
}

/// A running emulated device.
pub struct Emulated {
    served: Served,
    log: Arc<Mutex<Vec<(Request, f64)>>>,
}

/// Serve `image` as a device of `profile` (see [`start_with`]), its loop
/// device's largest request set to the profile's largest transfer (a USB
/// stick's queue is not a loop device's), as `bench --flash` does.
pub fn start(profile: &Profile, image: &Path, size: Option<u64>) -> Result<Emulated> {
    let model = BoundaryReads::new(profile.device(), ReadGeometry::of(profile));
    let e = start_with(Box::new(model), image, size)?;
    super::trace::limit_requests(Path::new(e.loop_dev()), profile.max_transfer_bytes());
    Ok(e)
}

/// The loop devices that serve `image` now (`/dev/loopN`), from sysfs.
pub fn loops_serving(image: &Path) -> Vec<String> {
    let Ok(want) = image.canonicalize() else {
        return Vec::new();
    };
    let Ok(dir) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let f = std::fs::read_to_string(e.path().join("loop/backing_file")).ok()?;
            let held = Path::new(f.trim_end_matches('\n'));
            (held == want).then(|| format!("/dev/{}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// Serve `image` (created sparse at `size` if missing; `size` None keeps an
/// existing image's size) through `model` under a loop device.
pub fn start_with(model: Box<dyn Device>, image: &Path, size: Option<u64>) -> Result<Emulated> {
    let new = !image.exists();
    let backing = SparseImage::open(image, size)?;
    let delayed = Delayed::new(Box::new(backing), model);
    let log = delayed.log();
    let served = served::start(Box::new(delayed)).inspect_err(|_| {
        // An image made for this run and never served is not left behind.
        if new {
            let _ = std::fs::remove_file(image);
        }
    })?;
    Ok(Emulated { served, log })
}

impl Emulated {
    /// `/dev/loopN`: the emulated device.
    pub fn loop_dev(&self) -> &str {
        self.served.loop_dev()
    }

    /// Every request served so far, with the model's service time.
    pub fn log(&self) -> Vec<(Request, f64)> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Forget the requests logged so far.
    pub fn clear_log(&self) {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Detach the loop device and stop serving.
    pub fn stop(self) {
        self.served.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossings_count_boundaries_inside_a_request() {
        assert_eq!(crossings(0, 4096, 4096), 0);
        assert_eq!(crossings(4095, 2, 4096), 1);
        assert_eq!(crossings(4096 - 512, 1024, 4096), 1);
        assert_eq!(crossings(0, 3 * 4096 + 1, 4096), 3);
        assert_eq!(crossings(10, 0, 4096), 0);
    }
}
