//! Replaying a block trace through a simulated device, and turning device
//! time plus the run's host CPU time into a simulated run time.

use super::{Device, Op, Request};

/// What one replay cost on the device (deltas: a device keeps its state
/// across the workloads of a config, as a real stick does).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Replay {
    pub device_seconds: f64,
    pub requests: u64,
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub flash_bytes_written: u64,
    pub au_copies: u64,
}

impl Replay {
    /// Bytes the flash wrote / bytes the host wrote (0 when nothing was written).
    pub fn write_amplification(&self) -> f64 {
        if self.host_write_bytes == 0 {
            return 0.0;
        }
        self.flash_bytes_written as f64 / self.host_write_bytes as f64
    }
}

/// Serve every request of `trace` on `dev`, in order.
pub fn replay(dev: &mut dyn Device, trace: &[Request]) -> Replay {
    let (flash0, copies0) = (dev.flash_bytes_written(), dev.au_copies());
    let mut r = Replay::default();
    for req in trace {
        r.device_seconds += dev.serve(req);
        match req.op {
            Op::Read => r.host_read_bytes += req.len,
            Op::Write => r.host_write_bytes += req.len,
            Op::Flush | Op::Discard => {}
        }
    }
    r.requests = trace.len() as u64;
    r.flash_bytes_written = dev.flash_bytes_written() - flash0;
    r.au_copies = dev.au_copies() - copies0;
    r
}

/// As [`replay`], then the device settled ([`Device::settle`]): what the
/// trace costs the device in all, now or at its next writes elsewhere. For
/// comparing one trace placed at several partition offsets.
pub fn replay_settled(dev: &mut dyn Device, trace: &[Request]) -> Replay {
    let (flash0, copies0) = (dev.flash_bytes_written(), dev.au_copies());
    let mut r = replay(dev, trace);
    r.device_seconds += dev.settle();
    r.flash_bytes_written = dev.flash_bytes_written() - flash0;
    r.au_copies = dev.au_copies() - copies0;
    r
}

/// How much of the host's CPU time can hide behind the device's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// The workload waits for the device (writes ending in sync / fsync,
    /// deletes, metadata): host time and device time add up. Each bench
    /// workload says which it allows (bench/kinds.rs).
    Wait,
    /// Readahead keeps the device busy while the host works: the longer of
    /// the two.
    Readahead,
}

/// A run's simulated seconds: device time plus host CPU time as `overlap` allows.
pub fn simulated_seconds(device_s: f64, host_cpu_s: f64, overlap: Overlap) -> f64 {
    match overlap {
        Overlap::Wait => device_s + host_cpu_s,
        Overlap::Readahead => device_s.max(host_cpu_s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_adds_and_readahead_overlaps() {
        assert_eq!(simulated_seconds(2.0, 0.5, Overlap::Wait), 2.5);
        assert_eq!(simulated_seconds(2.0, 0.5, Overlap::Readahead), 2.0);
        assert_eq!(simulated_seconds(0.1, 0.5, Overlap::Readahead), 0.5);
    }
}
