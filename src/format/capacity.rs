//! `--check-capacity`: does the drive store what it claims? Counterfeit
//! sticks report 1-2 TB and hold 8-32 GB: writes past the real capacity
//! wrap to the start (or vanish). fsfit's own check, in the way of f3probe
//! (destructive: the drive is about to be erased anyway): distinct 4 KiB
//! blocks, each naming its own offset and this run's nonce, written with
//! O_DIRECT over the first G bytes densely and then every G bytes to the
//! end (G = capacity / 1024), then all read back. A drive that wraps at R
//! bytes maps the first grid block past R into [0, G), where a dense block
//! then reads back another block's offset: R is their difference. A drive
//! that drops what is written past R (reads give zeros, old data or noise)
//! keeps no trace of where: the blocks between the last good grid block and
//! the first bad one are then bisected, one fresh block written and read
//! back at a time, to the 4 KiB block where storage ends.

use crate::device::identity::Identity;
use crate::{Error, Result};
use std::os::unix::fs::{FileExt, OpenOptionsExt};

const BLOCK: usize = 4096;
const GRID: u64 = 1024;
const MAGIC: &[u8; 8] = b"FSFITCAP";

/// Blocks written (and read) in one request where they are consecutive.
const RUN: usize = 256;

/// A 4 KiB-aligned buffer of RUN blocks for O_DIRECT.
struct Aligned {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl Aligned {
    fn new() -> Aligned {
        let layout =
            std::alloc::Layout::from_size_align(BLOCK * RUN, BLOCK).expect("4 KiB-aligned layout");
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory");
        Aligned { ptr, layout }
    }
    fn buf(&mut self, blocks: usize) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, BLOCK * blocks.min(RUN)) }
    }
}

/// The offsets as runs of consecutive blocks: (first offset, blocks).
fn runs(offs: &[u64]) -> Vec<(u64, usize)> {
    let mut v: Vec<(u64, usize)> = Vec::new();
    for &o in offs {
        match v.last_mut() {
            Some((s, n)) if *n < RUN && *s + (*n * BLOCK) as u64 == o => *n += 1,
            _ => v.push((o, 1)),
        }
    }
    v
}

impl Drop for Aligned {
    fn drop(&mut self) {
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// The block written at `offset`: magic, offset, nonce, then bytes from both.
fn pattern(buf: &mut [u8], offset: u64, nonce: u64) {
    buf[..8].copy_from_slice(MAGIC);
    buf[8..16].copy_from_slice(&offset.to_le_bytes());
    buf[16..24].copy_from_slice(&nonce.to_le_bytes());
    let mut x = offset ^ nonce.rotate_left(17) | 1;
    for c in buf[24..].chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.copy_from_slice(&x.to_le_bytes()[..c.len()]);
    }
}

/// The offsets written: every block of [0, G), then every G to the end.
pub fn offsets(capacity: u64) -> (u64, Vec<u64>) {
    let g = crate::fs::round_up(capacity.div_ceil(GRID), 1 << 20);
    let dense = (0..g.min(capacity) / BLOCK as u64).map(|i| i * BLOCK as u64);
    let grid = (1..)
        .map(|k| k * g)
        .take_while(|&o| o + BLOCK as u64 <= capacity);
    let last = capacity / BLOCK as u64 * BLOCK as u64 - BLOCK as u64;
    let mut v: Vec<u64> = dense.chain(grid).collect();
    if v.last() != Some(&last) {
        v.push(last);
    }
    (g, v)
}

/// What the drive does with writes past what it stores, as observed on the
/// first block it does not keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Past {
    /// They land on earlier data: the block reads back another offset's.
    Wrap,
    /// They are dropped: the block reads back as zeros.
    Vanish,
    /// They are dropped: the block keeps reading the same other data.
    Stale,
    /// Each read of the block gives different bytes.
    Random,
    /// Reading the block fails.
    ReadError,
}

impl Past {
    pub fn describe(self) -> &'static str {
        match self {
            Past::Wrap => "what is written past that lands on earlier data",
            Past::Vanish => "what is written past that vanishes (it reads back as zeros)",
            Past::Stale => {
                "what is written past that is not kept (it reads back as other, older data)"
            }
            Past::Random => "what is written past that is lost (each read gives other bytes)",
            Past::ReadError => "what is written past that cannot be read back (I/O errors)",
        }
    }
}

/// What the read-back found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Honest,
    /// Stores the first `real` bytes (to 4 KiB) and no more.
    Fake {
        real: u64,
        past: Past,
    },
}

/// Write every block, then read every block back; on a fake, find where
/// the good blocks end to 4 KiB and what happens past it.
pub fn probe(dev: &str, capacity: u64) -> Result<Verdict> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_EXCL)
        .open(dev)
        .map_err(|e| Error::work(format!("{dev}: {e}")))?;
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let runs = runs(&offsets(capacity).1);
    let mut b = Aligned::new();
    for (i, &(start, n)) in runs.iter().enumerate() {
        stop_if_cancelled(i)?;
        let buf = b.buf(n);
        for (k, blk) in buf.chunks_mut(BLOCK).enumerate() {
            pattern(blk, start + (k * BLOCK) as u64, nonce);
        }
        f.write_all_at(buf, start)
            .map_err(|e| Error::work(format!("{dev}: writing the test blocks at {start}: {e}")))?;
    }
    f.sync_all()
        .map_err(|e| Error::work(format!("{dev}: {e}")))?;
    let mut found = Found::default();
    for (i, &(start, n)) in runs.iter().enumerate() {
        stop_if_cancelled(i)?;
        let buf = b.buf(n);
        let read = f.read_exact_at(buf, start).is_ok();
        for (k, blk) in buf.chunks(BLOCK).enumerate() {
            found.block(start + (k * BLOCK) as u64, read.then_some(blk), nonce);
        }
    }
    let Some(first_bad) = found.first_bad else {
        return Ok(Verdict::Honest);
    };
    if let Some(real) = found.real {
        return Ok(Verdict::Fake {
            real,
            past: Past::Wrap,
        });
    }
    let mut d = Direct { f: &f, b, nonce };
    let real = d.last_good(found.last_good_before, first_bad)?;
    let past = d.past(real)?;
    Ok(Verdict::Fake { real, past })
}

/// Single-block writes and reads for the search after the first bad block.
struct Direct<'a> {
    f: &'a std::fs::File,
    b: Aligned,
    nonce: u64,
}

impl Direct<'_> {
    /// Write a fresh block at `o` and read it back: does the drive keep it?
    fn keeps(&mut self, o: u64) -> Result<bool> {
        self.nonce = self.nonce.wrapping_add(1);
        let mut want = vec![0u8; BLOCK];
        pattern(&mut want, o, self.nonce);
        let buf = self.b.buf(1);
        buf.copy_from_slice(&want);
        let io = |e: std::io::Error| Error::work(format!("writing a test block at {o}: {e}"));
        self.f.write_all_at(buf, o).map_err(io)?;
        self.f.sync_all().map_err(io)?;
        Ok(self.f.read_exact_at(buf, o).is_ok() && *buf == want[..])
    }

    /// The first block the drive does not keep, between `good` (kept) and
    /// `bad` (not kept), by bisection on 4 KiB blocks: the bytes it stores.
    fn last_good(&mut self, good: Option<u64>, bad: u64) -> Result<u64> {
        let (mut lo, mut hi) = match good {
            Some(g) => (g, bad),
            None => return Ok(bad),
        };
        let mut step = 0;
        while hi - lo > BLOCK as u64 {
            stop_if_cancelled(step * 16)?;
            step += 1;
            let mid = lo + (hi - lo) / 2 / BLOCK as u64 * BLOCK as u64;
            if self.keeps(mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(hi)
    }

    /// What the block at `o` (not kept) gives: written once more, then read
    /// twice.
    fn past(&mut self, o: u64) -> Result<Past> {
        let before = self.read(o);
        self.keeps(o)?;
        let (a, b) = (self.read(o), self.read(o));
        let (Some(a), Some(b)) = (a, b) else {
            return Ok(Past::ReadError);
        };
        let ours =
            |g: &[u8]| &g[..8] == MAGIC && u64::from_le_bytes(g[8..16].try_into().unwrap()) != o;
        Ok(if a != b {
            Past::Random
        } else if a.iter().all(|&x| x == 0) {
            Past::Vanish
        } else if ours(&a) && before.as_deref() != Some(&a[..]) {
            Past::Wrap
        } else {
            Past::Stale
        })
    }

    fn read(&mut self, o: u64) -> Option<Vec<u8>> {
        let buf = self.b.buf(1);
        self.f.read_exact_at(buf, o).ok().map(|_| buf.to_vec())
    }
}

/// What the read-back has found so far.
#[derive(Default)]
struct Found {
    real: Option<u64>,
    first_bad: Option<u64>,
    /// The last block read back as written before the first bad one.
    last_good_before: Option<u64>,
    want: Vec<u8>,
}

impl Found {
    /// Block `o` as read (None: the read failed).
    fn block(&mut self, o: u64, got: Option<&[u8]>, nonce: u64) {
        self.want.resize(BLOCK, 0);
        pattern(&mut self.want, o, nonce);
        let Some(got) = got.filter(|g| *g != &self.want[..]) else {
            if got.is_none() {
                self.first_bad = self.first_bad.or(Some(o));
            } else if self.first_bad.is_none() {
                self.last_good_before = Some(o);
            }
            return;
        };
        self.first_bad = self.first_bad.or(Some(o));
        // Another of this run's blocks, from further on: the drive wraps.
        let tag = u64::from_le_bytes(got[8..16].try_into().expect("8 bytes"));
        let ours = &got[..8] == MAGIC && got[16..24] == nonce.to_le_bytes();
        if ours && tag > o {
            self.real = Some(self.real.map_or(tag - o, |r| r.min(tag - o)));
        }
    }
}

fn stop_if_cancelled(i: usize) -> Result<()> {
    if i % 16 == 0 && crate::cancel::requested() {
        return Err(Error::work("interrupted during the capacity check: test blocks were written over the old contents; no table or filesystem was written"));
    }
    Ok(())
}

/// The check before formatting: Ok for an honest drive, else an error with
/// the real size and the way out.
pub fn check(dev: &str, capacity: u64, id: &Identity) -> crate::Result<()> {
    id.confirm()?;
    eprintln!(
        "Checking that {dev} stores its {} (writes {} test blocks over it)...",
        crate::units::iec(capacity),
        offsets(capacity).1.len()
    );
    let verdict = probe(dev, capacity).map_err(|e| {
        if crate::cancel::requested() {
            eprintln!("fsfit: {e}");
            crate::Error::Interrupted
        } else {
            e
        }
    })?;
    match verdict {
        Verdict::Honest => {
            eprintln!("Capacity: every test block read back as written.");
            Ok(())
        }
        Verdict::Fake { real, past } => {
            Err(crate::Error::work(fake_message(dev, capacity, real, past)))
        }
    }
}

fn fake_message(dev: &str, capacity: u64, usable: u64, past: Past) -> String {
    use crate::units::iec;
    format!(
        "{dev} is a fake-capacity drive: it claims {} but stores only {} ({usable} bytes); \
         {}. Nothing was formatted. To use it \
         safely, give it a partition that ends inside the real capacity: \
         sudo f3fix --last-sec={} {dev} (Debian package f3), then format that partition, \
         or return the drive",
        iec(capacity),
        iec(usable),
        past.describe(),
        (usable / 512).saturating_sub(1),
        dev = crate::quote::quote(dev)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_grid_block_past_any_wrap_lands_in_the_dense_region() {
        let cap = 64u64 << 30;
        let (g, offs) = offsets(cap);
        for real in [8u64 << 30, (8 << 30) + 12345 * 4096, 31 << 30] {
            let first_past = offs.iter().find(|&&o| o >= real).unwrap();
            assert!(first_past % real < g, "{real}");
        }
        assert_eq!(*offs.last().unwrap(), cap - 4096);
    }

    #[test]
    fn consecutive_blocks_go_in_runs() {
        let r = runs(&[0, 4096, 8192, 1 << 20, (1 << 20) + 4096, 1 << 30]);
        assert_eq!(r, [(0, 3), (1 << 20, 2), (1 << 30, 1)]);
        let many: Vec<u64> = (0..600).map(|i| i * 4096).collect();
        assert_eq!(
            runs(&many).iter().map(|r| r.1).collect::<Vec<_>>(),
            [256, 256, 88]
        );
    }

    #[test]
    fn patterns_differ_by_offset_and_run() {
        let (mut a, mut b) = (vec![0u8; BLOCK], vec![0u8; BLOCK]);
        pattern(&mut a, 0, 1);
        pattern(&mut b, 4096, 1);
        assert_ne!(a, b);
        pattern(&mut b, 0, 2);
        assert_ne!(a, b);
    }
}
