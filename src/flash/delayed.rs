//! A served device as slow as a flash model says: the backend
//! [`crate::flash::emulate`] puts under its loop device. It lives with the
//! model, not in device/served, so device/ never imports flash/.

use crate::device::served::Backend;
use crate::flash::{self, Op, Request};
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A device as slow as a flash model says: each request takes the service
/// time the model gives it (the backend's own time included), so that
/// reads across a page or AU boundary, writes to a closed AU, flushes...
/// cost what they would on the profile's device. Requests that reach the
/// model are logged (with the service time it gave) for the replay check.
pub struct Delayed {
    inner: Box<dyn Backend>,
    model: Box<dyn flash::Device>,
    t0: Instant,
    log: Arc<Mutex<Vec<(Request, f64)>>>,
}

impl Delayed {
    pub fn new(inner: Box<dyn Backend>, model: Box<dyn flash::Device>) -> Delayed {
        Delayed {
            inner,
            model,
            t0: Instant::now(),
            log: Arc::default(),
        }
    }

    /// The requests served so far and the model's service time of each
    /// (the handle stays valid after the device is started).
    pub fn log(&self) -> Arc<Mutex<Vec<(Request, f64)>>> {
        self.log.clone()
    }

    /// Give the request its time: run it on the backend, then wait until
    /// the model's service time has passed since it arrived.
    fn serve<T>(
        &mut self,
        op: Op,
        offset: u64,
        len: u64,
        io: impl FnOnce(&mut dyn Backend) -> io::Result<T>,
    ) -> io::Result<T> {
        let start = Instant::now();
        let req = Request {
            op,
            offset,
            len,
            t_ns: start.duration_since(self.t0).as_nanos() as u64,
        };
        let secs = self.model.serve(&req);
        let out = io(self.inner.as_mut());
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((req, secs));
        wait_until(start + Duration::from_secs_f64(secs.max(0.0)));
        out
    }
}

/// Sleep until `t`; the last stretch spins, since a sleep overshoots by
/// tens of microseconds and a read's timing is what the probe measures.
fn wait_until(t: Instant) {
    const SPIN: Duration = Duration::from_micros(200);
    let now = Instant::now();
    if t > now + SPIN {
        std::thread::sleep(t - now - SPIN);
    }
    while Instant::now() < t {
        std::hint::spin_loop();
    }
}

impl Backend for Delayed {
    fn size(&self) -> u64 {
        self.inner.size()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let len = buf.len() as u64;
        self.serve(Op::Read, offset, len, |b| b.read_at(offset, buf))
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let len = data.len() as u64;
        self.serve(Op::Write, offset, len, |b| b.write_at(offset, data))
    }
    fn flush(&mut self) -> io::Result<()> {
        // Not the backing file's fsync: its cost is the model's to say.
        self.serve(Op::Flush, 0, 0, |_| Ok(()))
    }
}
