//! The allocation-unit model of sticks and cards (Bergmann, LWN 428584;
//! the SD specification's performance model).
//!
//! The device is cut into AUs. Only `open_aus_linear` of them can be open
//! for writing at once, each written in order from its write pointer; of
//! those, `open_aus_random` may take writes in any order. What a request
//! costs:
//! - a write continues an open AU: page-rounded bytes at Pw; skipped pages
//!   between the write pointer and the write are copied at Pm first;
//! - a write to an AU that is not open closes the least recently used one
//!   when all are open, copying its unwritten rest at Pm (one AU copy), and
//!   opens the new one, copying the pages before the write at Pm;
//! - a write back into a linear AU without a random slot closes and reopens it.
//!
//! Writing the free N_RU − N_u recording units of an AU whose N_u units
//! hold data therefore takes N_u·RU/Pm + (N_RU − N_u)·RU/Pw: exactly the SD
//! specification's P(N_u) = (N_RU−N_u)·Pw·Pm / ((N_RU−N_u)·Pm + N_u·Pw).
//! Writes into the FAT area cost their pages only (cards special-case it).
//!
//! What a copy moves is the old data: on a device written over before (the
//! profiles as listed) every page holds some, so an AU closed part-written
//! copies all its rest; on a new one (`PROFILE+new`) only the pages this
//! run wrote hold data, and an AU never written before copies nothing
//! (N_u = 0 in the formula above).
//!
//! Pages are programmed whole, so a write that covers part of a page first
//! reads it to merge the old contents (Bergmann, LWN 428584: a write smaller
//! than a page is a read-modify-write). That is where a partition off the
//! page boundary pays: each of its 4 KiB blocks straddles two pages, and "a
//! cluster write that splits two pages forces the FTL to perform four
//! internal I/O operations instead of one" (a guide to FAT layouts on NAND,
//! quoted at theoven.org/index.php?topic=1358.0). A merged page therefore
//! costs a small read (the read latency flashbench -a measures) and a
//! program on its own, outside the write's stream of whole pages (the floor
//! a lone small write pays, `write_latency`). A card keeps the last page a
//! write left partial in its buffer: the write that continues it merges
//! nothing; when none does, that page is completed from its old contents,
//! a read-modify-write like the first page's.

use super::{profile::Params, Device, Op, Request};
use std::collections::HashMap;

/// Set the bits `first..last` of a page bitmap.
fn set_bits(bits: &mut Vec<u64>, first: u64, last: u64) {
    for p in first..last {
        let (word, bit) = ((p / 64) as usize, p % 64);
        if bits.len() <= word {
            bits.resize(word + 1, 0);
        }
        bits[word] |= 1 << bit;
    }
}

/// Whether bit `p` of a page bitmap is set.
fn bit(bits: &[u64], p: u64) -> bool {
    bits.get((p / 64) as usize)
        .is_some_and(|w| w & (1 << (p % 64)) != 0)
}

/// One open AU.
#[derive(Clone, Debug)]
struct Open {
    index: u64,
    /// Linear mode: bytes from the AU's start already written.
    wp: u64,
    /// Random mode: any order accepted; `pages` marks the pages written in
    /// this cycle, each once however often it was rewritten (what is left
    /// to copy at close does not shrink when a page is written twice).
    random: bool,
    pages: Vec<u64>,
    last_use: u64,
}

impl Open {
    fn new(index: u64, tick: u64) -> Open {
        Open {
            index,
            wp: 0,
            random: false,
            pages: Vec::new(),
            last_use: tick,
        }
    }

    /// Mark pages `first..last` written.
    fn mark(&mut self, first: u64, last: u64) {
        set_bits(&mut self.pages, first, last);
    }

    fn pages_written(&self) -> u64 {
        self.pages.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

pub struct AuDevice {
    au: u64,
    page: u64,
    open_max: usize,
    random_max: usize,
    fat_area: u64,
    /// Seconds per byte.
    write_s: f64,
    move_s: f64,
    read_s: f64,
    /// What a port slower than the card adds to each byte the host sends
    /// (0 in the card's own transport), and a host read's cost a byte.
    bus_write_extra_s: f64,
    host_read_s: f64,
    switch_s: f64,
    read_latency_s: f64,
    write_latency_s: f64,
    command_s: f64,
    max_transfer: u64,
    flush_s: Option<f64>,
    open: Vec<Open>,
    tick: u64,
    last_au: u64,
    last_read_end: u64,
    last_write_end: u64,
    flash_written: u64,
    au_copies: u64,
    /// A new device: only the pages marked here (written by this run, by
    /// AU) hold data to copy. None: every page holds old data.
    held: Option<HashMap<u64, Vec<u64>>>,
}

/// Seconds per byte at `mb_s` decimal MB/s.
pub(crate) fn per_byte(mb_s: f64) -> f64 {
    1.0 / (mb_s * 1e6)
}

/// Seconds a byte the host moves takes: the device's own rate or the
/// port's ceiling, whichever is slower (the two work as a pipeline, so the
/// slower one sets the pace of a long transfer).
pub(crate) fn host_per_byte(device_mb_s: f64, bus_mb_s: Option<f64>) -> f64 {
    per_byte(device_mb_s).max(bus_mb_s.map_or(0.0, per_byte))
}

/// Commands needed for `len` bytes at `max` bytes a command (at least one).
pub(crate) fn commands(len: u64, max: u64) -> u64 {
    len.div_ceil(max.max(512)).max(1)
}

/// Bytes of the whole pages `[off, off + len)` touches.
pub(crate) fn page_span(off: u64, len: u64, page: u64) -> u64 {
    let first = off / page;
    let last = (off + len.max(1)).div_ceil(page);
    (last - first) * page
}

/// Of the pages `[off, off + len)` touches, how many it covers only in part
/// (0, 1 or 2): those the card reads back to merge before programming.
pub(crate) fn partial_pages(off: u64, len: u64, page: u64) -> u64 {
    let end = off + len.max(1);
    let (head, tail) = (off % page != 0, end % page != 0);
    if off / page == (end - 1) / page {
        return u64::from(head || tail);
    }
    u64::from(head) + u64::from(tail)
}

/// The SD specification's write performance for an AU whose `n_u` of
/// `n_ru` recording units are used: P(N_u) in the unit of `pw` and `pm`.
pub fn sd_spec_speed(n_ru: u64, n_u: u64, pw: f64, pm: f64) -> f64 {
    let free = (n_ru - n_u) as f64;
    free * pw * pm / (free * pm + n_u as f64 * pw)
}

impl AuDevice {
    pub fn new(p: &Params) -> AuDevice {
        AuDevice {
            au: p.au_bytes,
            page: p.page_bytes,
            open_max: p.open_aus_linear.max(1) as usize,
            random_max: p.open_aus_random as usize,
            fat_area: p.fat_area_bytes,
            write_s: per_byte(p.write_mb_s),
            move_s: per_byte(p.move_mb_s),
            read_s: per_byte(p.read_mb_s),
            bus_write_extra_s: host_per_byte(p.write_mb_s, p.bus_write_mb_s)
                - per_byte(p.write_mb_s),
            host_read_s: host_per_byte(p.read_mb_s, p.bus_read_mb_s),
            switch_s: p.au_switch_us * 1e-6,
            read_latency_s: p.read_latency_us * 1e-6,
            write_latency_s: p.write_latency_us * 1e-6,
            command_s: p.command_overhead_us * 1e-6,
            max_transfer: p.max_transfer_bytes,
            flush_s: p
                .host_flushes
                .then_some((p.flush_us + p.command_overhead_us) * 1e-6),
            open: Vec::with_capacity(p.open_aus_linear as usize + 1),
            tick: 0,
            last_au: u64::MAX,
            last_read_end: u64::MAX,
            last_write_end: u64::MAX,
            flash_written: 0,
            au_copies: 0,
            held: p.new_device.then(HashMap::new),
        }
    }

    /// Bytes of old data in pages `first..last` of AU `index`: all of them
    /// on a device written over before, on a new one those this run wrote.
    fn old_data(&self, index: u64, first: u64, last: u64) -> u64 {
        let pages = match &self.held {
            None => last.saturating_sub(first),
            Some(held) => held.get(&index).map_or(0, |bits| {
                (first..last).filter(|&p| bit(bits, p)).count() as u64
            }),
        };
        pages * self.page
    }

    /// Bytes of old data in the pages of random-mode AU `o` it has not
    /// written in this cycle: a word of the bitmaps at a time.
    fn old_data_unwritten(&self, o: &Open) -> u64 {
        let pages = match &self.held {
            None => (self.au / self.page).saturating_sub(o.pages_written()),
            Some(held) => held.get(&o.index).map_or(0, |bits| {
                let written = |i: usize| o.pages.get(i).copied().unwrap_or(0);
                let free = bits.iter().enumerate().map(|(i, h)| h & !written(i));
                free.map(|w| u64::from(w.count_ones())).sum()
            }),
        };
        pages * self.page
    }

    fn read(&mut self, req: &Request) -> f64 {
        let mut t = commands(req.len, self.max_transfer) as f64 * self.command_s;
        if req.offset != self.last_read_end {
            t += self.read_latency_s;
        }
        self.last_read_end = req.offset + req.len;
        t + req.len as f64 * self.host_read_s
    }

    fn write(&mut self, req: &Request) -> f64 {
        let mut t = commands(req.len, self.max_transfer) as f64 * self.command_s
            + req.len as f64 * self.bus_write_extra_s;
        // A write that does not continue the previous one waits for the
        // controller to look up its place (cards measured with a floor under
        // small random writes even inside open AUs; 0 on the others).
        if req.offset != self.last_write_end {
            t += self.write_latency_s;
        }
        self.last_write_end = req.offset + req.len;
        let (mut off, end) = (req.offset, req.offset + req.len.max(1));
        while off < end {
            let index = off / self.au;
            let piece_end = end.min((index + 1) * self.au);
            t += self.write_piece(index, off - index * self.au, piece_end - off);
            off = piece_end;
        }
        t
    }

    /// Program the pages of `[off, off + len)` inside AU `index`. A page the
    /// write covers only in part is read first, to merge its old contents
    /// (a page is programmed whole): a 4 KiB block that straddles two pages
    /// costs two programs and two reads where an aligned one costs one each.
    fn program(&mut self, off: u64, len: u64) -> (f64, u64) {
        let merged = partial_pages(off, len, self.page);
        self.program_merging(off, len, merged)
    }

    /// As [`Self::program`], `merged` of the pages being read-modify-writes.
    fn program_merging(&mut self, off: u64, len: u64, merged: u64) -> (f64, u64) {
        let bytes = page_span(off, len, self.page);
        self.flash_written += bytes;
        let rmw = merged as f64 * self.merge_s();
        (bytes as f64 * self.write_s + rmw, bytes)
    }

    /// One page's read-modify-write beyond its bytes at Pw: its old
    /// contents read ([`Self::old_page_s`]), then the page programmed on its
    /// own, outside the write's stream of whole pages, paying the floor of a
    /// lone small write. The same for a first page a write starts inside and
    /// for a last page left partial that no write continues: a 4 KiB block
    /// across two pages is "four internal I/O operations instead of one",
    /// two reads and two programs, whichever of its pages comes first.
    fn merge_s(&self) -> f64 {
        self.old_page_s() + self.write_latency_s
    }

    /// Reading a page's old contents to merge them: a read that continues
    /// nothing, so it pays the read latency flashbench -a measures on small
    /// reads (the README's example: a second page costs ~150 us more). The
    /// merged page is then programmed on its own ([`Self::merge_s`]).
    fn old_page_s(&self) -> f64 {
        self.read_latency_s + self.page as f64 * self.read_s
    }

    /// Copy `bytes` inside the flash at Pm.
    fn copy(&mut self, bytes: u64) -> f64 {
        self.flash_written += bytes;
        bytes as f64 * self.move_s
    }

    fn write_piece(&mut self, index: u64, off: u64, len: u64) -> f64 {
        if (index * self.au + off) < self.fat_area {
            return self.program(off, len).0;
        }
        self.tick += 1;
        let mut t = 0.0;
        if index != self.last_au {
            t += self.switch_s;
            self.last_au = index;
        }
        let slot = match self.open.iter().position(|o| o.index == index) {
            Some(slot) => slot,
            None => {
                t += self.open_new(index);
                self.open.len() - 1
            }
        };
        t += self.write_open(slot, off, len);
        // From now on these pages hold data a later copy must move.
        if let Some(held) = &mut self.held {
            let (first, last) = (off / self.page, (off + len.max(1)).div_ceil(self.page));
            set_bits(held.entry(index).or_default(), first, last);
        }
        t
    }

    /// Open AU `index`, closing the least recently used one if all are open.
    fn open_new(&mut self, index: u64) -> f64 {
        let mut t = 0.0;
        if self.open.len() >= self.open_max {
            let lru = (0..self.open.len())
                .min_by_key(|&i| self.open[i].last_use)
                .unwrap_or(0);
            t += self.close(lru);
        }
        self.open.push(Open::new(index, self.tick));
        t
    }

    /// Close slot `i`: copy what was not written in this cycle (one AU copy).
    fn close(&mut self, i: usize) -> f64 {
        let o = self.open.swap_remove(i);
        let (rest, partial) = if o.random {
            (self.old_data_unwritten(&o), false)
        } else {
            let partial = o.wp % self.page != 0;
            let first = o.wp.div_ceil(self.page);
            (self.old_data(o.index, first, self.au / self.page), partial)
        };
        // A last page left partial in the buffer is completed from the old
        // contents before the AU is closed.
        let t = if partial { self.merge_s() } else { 0.0 };
        if rest == 0 {
            return t;
        }
        self.au_copies += 1;
        t + self.copy(rest)
    }

    fn write_open(&mut self, slot: usize, off: u64, len: u64) -> f64 {
        self.open[slot].last_use = self.tick;
        let (random, wp) = (self.open[slot].random, self.open[slot].wp);
        if random {
            let (t, _) = self.program(off, len);
            let last = (off + len.max(1)).div_ceil(self.page);
            self.open[slot].mark(off / self.page, last);
            return t;
        }
        if off < wp {
            return self.rewrite(slot, off, len);
        }
        // The card buffers a partly written last page: a write that starts
        // inside it does not program that page again.
        let page_start = (wp / self.page) * self.page;
        let shared = wp % self.page != 0 && off < page_start + self.page;
        let index = self.open[slot].index;
        let gap = self.old_data(index, wp.div_ceil(self.page), off / self.page);
        // In order, only a first page the write starts inside is merged
        // (its earlier part comes from the AU's old copy); a last page left
        // partial waits in the buffer for the write that continues it.
        let merged = u64::from(off % self.page != 0 && !shared);
        let (mut t, _) = self.program_merging(off, len, merged);
        if shared {
            // Still in the card's buffer: not programmed again.
            self.flash_written -= self.page;
            t -= self.page as f64 * self.write_s;
            if off > wp {
                // ... but the bytes the write skips inside it are old
                // contents: the page is read to fill them before it is
                // programmed with the write (a read-modify-write whose
                // program goes with the write's stream).
                t += self.old_page_s();
            }
        }
        t += self.copy(gap);
        if wp % self.page != 0 && !shared {
            // The write does not continue the buffered last page: the card
            // completes it from the old contents before going on.
            t += self.merge_s();
        }
        let wp = off + len;
        self.open[slot].wp = wp.min(self.au);
        if wp >= self.au {
            self.open.swap_remove(slot);
        }
        t
    }

    /// A write behind the write pointer of a linear AU: switch it to random
    /// mode if a random slot is free, else close and reopen it.
    fn rewrite(&mut self, slot: usize, off: u64, len: u64) -> f64 {
        let randoms = self.open.iter().filter(|o| o.random).count();
        if randoms < self.random_max {
            let page = self.page;
            let o = &mut self.open[slot];
            o.random = true;
            let written = o.wp.div_ceil(page);
            o.mark(0, written);
            return self.write_open(slot, off, len);
        }
        let index = self.open[slot].index;
        let t = self.close(slot);
        self.open.push(Open::new(index, self.tick));
        let last = self.open.len() - 1;
        t + self.write_open(last, off, len)
    }
}

impl Device for AuDevice {
    fn serve(&mut self, req: &Request) -> f64 {
        match req.op {
            Op::Read => self.read(req),
            Op::Write => self.write(req),
            Op::Flush => self.flush_s.unwrap_or(0.0),
            // USB sticks and card readers take no discard: the host sends none.
            Op::Discard => 0.0,
        }
    }

    fn flash_bytes_written(&self) -> u64 {
        self.flash_written
    }

    fn au_copies(&self) -> u64 {
        self.au_copies
    }

    fn settle(&mut self) -> f64 {
        let mut t = 0.0;
        while !self.open.is_empty() {
            t += self.close(self.open.len() - 1);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::{profile, Op};

    fn w(offset: u64, len: u64) -> Request {
        Request {
            op: Op::Write,
            offset,
            len,
            t_ns: 0,
        }
    }

    /// Every profile of the AU family, from the registry.
    fn au_profiles() -> Vec<crate::flash::Profile> {
        crate::flash::profiles()
            .into_iter()
            .filter(|p| p.family == crate::flash::Family::Au)
            .collect()
    }

    /// Reading one page's old contents to merge it: the read latency and
    /// the page at the read speed.
    fn old_page(q: &Params) -> f64 {
        q.read_latency_us * 1e-6 + q.page_bytes as f64 / (q.read_mb_s * 1e6)
    }

    fn cost(name: &str, trace: &[Request]) -> (f64, u64) {
        let mut d = AuDevice::new(&profile(name).unwrap().params);
        let t = trace.iter().map(|r| d.serve(r)).sum();
        (t, d.au_copies())
    }

    /// A 4 KiB write 512 bytes into a page, then a write elsewhere in the
    /// same AU that does not continue it: both pages it covers in part are
    /// read-modify-writes (old contents read, page programmed on its own),
    /// on every AU profile; against the same write on the page boundary it
    /// also programs one page more and leaves one page less to copy.
    #[test]
    fn a_4k_write_across_two_pages_pays_both_pages_read_modify_write() {
        for p in au_profiles() {
            let (name, q) = (p.name.as_str(), &p.params);
            let at = q.fat_area_bytes + 16 * q.au_bytes;
            let far = at + 3 * q.page_bytes;
            let (aligned, _) = cost(name, &[w(at, 4096), w(far, 4096)]);
            let (shifted, _) = cost(name, &[w(at + 512, 4096), w(far, 4096)]);
            let page = q.page_bytes as f64;
            let merge = old_page(q) + q.write_latency_us * 1e-6;
            let straddles = (512 + 4096) > q.page_bytes;
            let expected = if straddles {
                page / (q.write_mb_s * 1e6) + 2.0 * merge - page / (q.move_mb_s * 1e6)
            } else {
                // Inside one page: that page alone is merged, as the
                // aligned write's is not (it starts on the boundary).
                merge
            };
            let extra = shifted - aligned;
            assert!(
                (extra - expected).abs() < 1e-9,
                "{name}: extra {extra:.6} s, two read-modify-writes are {expected:.6} s"
            );
        }
    }

    /// A write that starts later inside the page the last one left partial
    /// (a file ending mid-page, the next file at its next cluster in the same
    /// page) skips bytes whose old contents must be kept: the card reads the
    /// page to fill them before programming it with the write. Only a write
    /// that continues exactly where the last one ended merges nothing.
    #[test]
    fn a_write_that_skips_bytes_inside_the_buffered_page_reads_it() {
        for p in au_profiles() {
            let (name, q) = (p.name.as_str(), &p.params);
            let at = q.fat_area_bytes + 16 * q.au_bytes;
            let (continued, _) = cost(name, &[w(at, 1024), w(at + 1024, 1024)]);
            let (skipping, _) = cost(name, &[w(at, 1024), w(at + 2048, 1024)]);
            // and, as any write that does not continue the last, the floor
            // of a lone write where the card has one
            let expected = old_page(q) + q.write_latency_us * 1e-6;
            let extra = skipping - continued;
            assert!(
                (extra - expected).abs() < 1e-9,
                "{name}: skipping 1 KiB inside the buffered page costs {extra:.6} s, \
                 reading the page (and the floor) is {expected:.6} s"
            );
        }
    }

    /// A write across an AU boundary on a card with one open AU is two
    /// partial AU writes: the first AU's pages before it copied when it is
    /// opened, the second's pages after it copied when it is closed.
    #[test]
    fn a_write_across_two_aus_costs_two_partial_au_writes() {
        let name = "sd-2011-1au";
        let q = profile(name).unwrap().params;
        let (au, half) = (q.au_bytes, 64 << 10);
        let (pw, pm) = (1.0 / (q.write_mb_s * 1e6), 1.0 / (q.move_mb_s * 1e6));
        let cmd = q.command_overhead_us * 1e-6;
        // A later write far away closes the AU the straddling write left open.
        let later = w(40 * au, 4096);
        let (alone, _) = cost(name, &[later]);
        let (across, copies) = cost(name, &[w(17 * au - half, 2 * half), later]);
        let piece = (au - half) as f64 * pm + half as f64 * pw;
        let expected = 2.0 * cmd + 2.0 * piece;
        assert!(
            (across - alone - expected).abs() < 1e-9,
            "across {:.6} s, two partial AU writes {expected:.6} s",
            across - alone
        );
        assert_eq!(copies, 1, "the second AU's rest is copied when it closes");
        // The same bytes inside one AU: one partial AU write.
        let (inside, _) = cost(name, &[w(17 * au + half, 2 * half), later]);
        let one = 2.0 * cmd + (au - 2 * half) as f64 * pm + (2 * half) as f64 * pw;
        assert!((inside - alone - one).abs() < 1e-9);
        assert!(
            across - inside > 0.9 * au as f64 * pm,
            "the straddle costs an AU copy more"
        );
    }

    /// A new device copies only old data: an AU closed part-written copies
    /// nothing when it never held any, and when it is opened again, only the
    /// pages the run wrote there before. Written over before, the same
    /// writes copy every AU's whole rest. On every AU profile.
    #[test]
    fn a_new_device_copies_only_what_the_run_wrote() {
        for p in au_profiles() {
            let (au, page) = (p.params.au_bytes, p.params.page_bytes);
            // An AU past the FAT area: page 0, settled, then page 2.
            let base = (p.params.fat_area_bytes / au + 2) * au;
            let run = |q: &crate::flash::Profile| {
                let mut d = q.device();
                d.serve(&w(base, page));
                d.settle();
                d.serve(&w(base + 2 * page, page));
                d.settle();
                (d.flash_bytes_written(), d.au_copies())
            };
            let new = crate::flash::profile::profile(&format!("{}+new", p.name)).unwrap();
            assert!(new.params.new_device && !p.params.new_device);
            // Two pages written, and page 0 copied once, where the second
            // write skips it: nothing of the never-written rest.
            assert_eq!(run(&new), (3 * page, 0), "{}", p.name);
            // Written over before: each close copies the AU's rest, and the
            // second opening copies the two pages it skips.
            let used = (au - page) + 2 * page + page + (au - 3 * page) + page;
            assert_eq!(run(&p), (used, 2), "{}", p.name);
        }
    }
}
