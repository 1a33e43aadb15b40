//! The page-mapped model with a write cache (external SSDs, A1/A2 cards).
//!
//! Any page can be written anywhere, so there are no AU copies; what a
//! request costs is its commands, a latency when it does not continue the
//! previous request of its kind (random I/O: the A1 class's IOPS floor),
//! and its page-rounded bytes at Pw while the fast cache (SLC area) has
//! room, at the sustained speed (`move_mb_s`) once it is full. The cache
//! drains at the sustained speed while the device is idle (the gaps
//! between the trace's issue times).

use super::au::{commands, host_per_byte, page_span, per_byte};
use super::{profile::Params, Device, Op, Request};

/// What a page-mapped controller maps: 4 KiB, finer than its NAND page.
/// The SD specification's A1/A2 classes are defined on random 4 KiB
/// writes, which those cards serve at their IOPS floor without merging a
/// page, so a write on the 4 KiB grid is not a read-modify-write there.
const MAP_UNIT: u64 = 4096;

pub struct PagedDevice {
    page: u64,
    write_s: f64,
    sustained_s: f64,
    sustained_b_s: f64,
    /// A port's ceiling on the bytes the host sends (0: none slower than
    /// the device).
    bus_write_s: f64,
    /// The flash's own read rate (merges) and a host read's, which a port
    /// slower than the device caps.
    read_s: f64,
    host_read_s: f64,
    read_latency_s: f64,
    write_latency_s: f64,
    command_s: f64,
    max_transfer: u64,
    flush_s: Option<f64>,
    cache: f64,
    /// Bytes in the cache not yet moved to their final place.
    fill: f64,
    /// The device's clock: when it finishes its last request (seconds).
    busy_until: f64,
    last_read_end: u64,
    last_write_end: u64,
    /// The last write ended inside a page the device still holds in its
    /// buffer: the next write may continue it without a merge.
    tail_partial: bool,
    flash_written: u64,
}

impl PagedDevice {
    pub fn new(p: &Params) -> PagedDevice {
        PagedDevice {
            page: p.page_bytes,
            write_s: per_byte(p.write_mb_s),
            sustained_s: per_byte(p.move_mb_s),
            bus_write_s: p.bus_write_mb_s.map_or(0.0, per_byte),
            sustained_b_s: p.move_mb_s * 1e6,
            read_s: per_byte(p.read_mb_s),
            host_read_s: host_per_byte(p.read_mb_s, p.bus_read_mb_s),
            read_latency_s: p.read_latency_us * 1e-6,
            write_latency_s: p.write_latency_us * 1e-6,
            command_s: p.command_overhead_us * 1e-6,
            max_transfer: p.max_transfer_bytes,
            flush_s: p
                .host_flushes
                .then_some((p.flush_us + p.command_overhead_us) * 1e-6),
            cache: p.cache_bytes as f64,
            fill: 0.0,
            busy_until: 0.0,
            last_read_end: u64::MAX,
            last_write_end: u64::MAX,
            tail_partial: false,
            flash_written: 0,
        }
    }

    /// Let the cache drain over the idle time before a request issued at `t`.
    fn idle_until(&mut self, t: f64) {
        if t > self.busy_until {
            self.fill = (self.fill - (t - self.busy_until) * self.sustained_b_s).max(0.0);
            self.busy_until = t;
        }
    }

    fn write(&mut self, req: &Request) -> f64 {
        let bytes = page_span(req.offset, req.len, self.page);
        self.flash_written += bytes;
        let mut t = commands(req.len, self.max_transfer) as f64 * self.command_s;
        let continues = req.offset == self.last_write_end;
        if !continues {
            t += self.write_latency_s;
        }
        // Each merged unit: its old contents read, then programmed on its
        // own (as the AU family charges a read-modify-write).
        let merge_s = self.read_latency_s + self.unit_read_s() + self.write_latency_s;
        t += self.merges(req, continues) as f64 * merge_s;
        self.last_write_end = req.offset + req.len;
        let room = (self.cache - self.fill).clamp(0.0, bytes as f64);
        // The port and the flash work as a pipeline: the slower sets the pace.
        let flash = room * self.write_s + (bytes as f64 - room) * self.sustained_s;
        t += flash.max(req.len as f64 * self.bus_write_s);
        self.fill += room;
        t
    }

    /// Mapping units whose old contents must be read to merge them: a
    /// first unit `req` starts inside, unless it continues the previous
    /// write's last unit (still in the buffer), and that buffered unit when
    /// `req` does not continue it. A last unit left partial waits in the
    /// buffer. (A write off the 4 KiB grid is what a partition at sector 63
    /// makes of every filesystem block: four internal operations, two
    /// reads and two programs, instead of one.)
    fn merges(&mut self, req: &Request, continues: bool) -> u64 {
        let end = req.offset + req.len.max(1);
        let head = req.offset % MAP_UNIT != 0 && !(continues && self.tail_partial);
        let dropped = self.tail_partial && !continues;
        self.tail_partial = end % MAP_UNIT != 0;
        u64::from(head) + u64::from(dropped)
    }

    fn unit_read_s(&self) -> f64 {
        MAP_UNIT as f64 * self.read_s
    }

    fn read(&mut self, req: &Request) -> f64 {
        let mut t = commands(req.len, self.max_transfer) as f64 * self.command_s;
        if req.offset != self.last_read_end {
            t += self.read_latency_s;
        }
        self.last_read_end = req.offset + req.len;
        t + req.len as f64 * self.host_read_s
    }
}

impl Device for PagedDevice {
    fn serve(&mut self, req: &Request) -> f64 {
        self.idle_until(req.t_ns as f64 * 1e-9);
        let t = match req.op {
            Op::Read => self.read(req),
            Op::Write => self.write(req),
            Op::Flush => self.flush_s.unwrap_or(0.0),
            Op::Discard => self.command_s,
        };
        self.busy_until += t;
        t
    }

    fn flash_bytes_written(&self) -> u64 {
        self.flash_written
    }

    fn au_copies(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::profile;

    fn w(offset: u64, t_ns: u64) -> Request {
        Request {
            op: Op::Write,
            offset,
            len: 4096,
            t_ns,
        }
    }

    /// A 4 KiB write 512 bytes off the 4 KiB grid, then a write elsewhere:
    /// both mapping units it covers in part are read-modify-writes (old
    /// contents read, unit programmed on its own), on both page-mapped
    /// profiles; on the grid it merges nothing.
    #[test]
    fn a_4k_write_off_the_grid_pays_both_units_read_modify_write() {
        for name in ["microsd-a1", "nvme-usb-sn570"] {
            let p = profile(name).unwrap();
            let q = &p.params;
            let cost = |shift: u64| {
                let mut d = PagedDevice::new(q);
                // Far apart in time: the cache has drained before each write.
                d.serve(&w((1 << 30) + shift, 0)) + d.serve(&w(2 << 30, 10_000_000_000))
            };
            let merge = q.read_latency_us * 1e-6
                + MAP_UNIT as f64 / (q.read_mb_s * 1e6)
                + q.write_latency_us * 1e-6;
            let extra = cost(512) - cost(0);
            assert!(
                (extra - 2.0 * merge).abs() < 1e-9,
                "{name}: extra {extra:.6} s, two read-modify-writes are {:.6} s",
                2.0 * merge
            );
        }
    }
}
