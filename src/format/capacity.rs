//! `--check-capacity`: does the drive store what it claims? Counterfeit
//! sticks report 1-2 TB and hold 8-32 GB: writes past the real capacity
//! wrap to the start or onto some other region (overwriting what is
//! there), vanish, or fail. fsfit's own check, in the way of f3probe
//! (destructive: the drive is about to be erased anyway): distinct 4 KiB
//! test blocks, every 512-byte sector of them naming its own offset and
//! this run's nonce, written with O_DIRECT over the first and the last G
//! bytes densely and as the first and last block of every G bytes between
//! (G = capacity / 1024), then all read back once every one is written.
//! A write past the real end that lands on another test block shows as
//! that block reading back the later one's offset: of the blocks that
//! share storage, all but the lowest are not storage. A dense run of G
//! bytes at the end folds onto G contiguous bytes somewhere, which hold
//! a test block wherever they are. Blocks that read back anything else
//! (zeros, old data, noise, errors) or whose writes fail are not kept.
//! From the lowest block known not to be storage the search goes down and
//! then bisects, one fresh block at a time, testing also whether a fresh
//! write lands where an earlier one was seen to, to the 4 KiB block where
//! storage ends.

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

const SECTOR: usize = 512;

/// The block written at `offset`: in every sector the magic, the sector's
/// own offset and the nonce, then bytes from both. Stamping each sector,
/// not only the block, catches a drive whose real size is not a multiple
/// of 4 KiB: its last block's tail sectors land on other data alone.
fn pattern(buf: &mut [u8], offset: u64, nonce: u64) {
    for (i, s) in buf.chunks_mut(SECTOR).enumerate() {
        let at = offset + (i * SECTOR) as u64;
        s[..8].copy_from_slice(MAGIC);
        s[8..16].copy_from_slice(&at.to_le_bytes());
        s[16..24].copy_from_slice(&nonce.to_le_bytes());
        let mut x = at ^ nonce.rotate_left(17) | 1;
        for c in s[24..].chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c.copy_from_slice(&x.to_le_bytes()[..c.len()]);
        }
    }
}

/// The offset a sector read back says it was written for, if it is one
/// of the sectors written with `nonce`.
fn stamp(sector: &[u8], nonce: u64) -> Option<u64> {
    (&sector[..8] == MAGIC && sector[16..24] == nonce.to_le_bytes())
        .then(|| u64::from_le_bytes(sector[8..16].try_into().expect("8 bytes")))
}

/// The offsets written and G: every block of the first and the last G
/// bytes, and the first and last block of every G bytes between. The last
/// blocks of each G catch a tail folded onto the end of an aligned region
/// (where a small shortfall's few blocks land), the dense end a tail
/// folded anywhere else.
pub fn offsets(capacity: u64) -> (u64, Vec<u64>) {
    let b = BLOCK as u64;
    let g = crate::fs::round_up(capacity.div_ceil(GRID), 1 << 20);
    let end = capacity / b * b;
    let mut v: Vec<u64> = (0..g.min(end) / b).map(|i| i * b).collect();
    for start in (1..).map(|k| k * g).take_while(|&s| s < end) {
        v.push(start);
        v.push((start + g).min(end) - b);
    }
    v.extend((end.saturating_sub(g) / b..end / b).map(|i| i * b));
    v.sort_unstable();
    v.dedup();
    (g, v)
}

/// What the drive does with writes past what it stores, as observed on the
/// first block it does not keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Past {
    /// They land on earlier data: the write at the end shows up at `at`.
    Lands { at: u64 },
    /// They are dropped: the block reads back as zeros.
    Vanish,
    /// They are dropped: the block keeps reading the same other data.
    Stale,
    /// Each read of the block gives different bytes.
    Random,
    /// Reading the block fails.
    ReadError,
    /// Writing the block fails.
    WriteError,
}

impl Past {
    pub fn describe(self) -> String {
        match self {
            Past::Lands { at: 0 } => {
                "what is written past that lands on earlier data (on the start of the drive)".into()
            }
            Past::Lands { at } => format!(
                "what is written past that lands on earlier data (at {} into the drive)",
                crate::units::iec(at)
            ),
            Past::Vanish => "what is written past that vanishes (it reads back as zeros)".into(),
            Past::Stale => {
                "what is written past that is not kept (it reads back as other, older data)".into()
            }
            Past::Random => {
                "what is written past that is lost (each read gives other bytes)".into()
            }
            Past::ReadError => "what is written past that cannot be read back (I/O errors)".into(),
            Past::WriteError => "writing past that fails (I/O errors)".into(),
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
    let mut found = Found::default();
    for (i, &(start, n)) in runs.iter().enumerate() {
        stop_if_cancelled(i)?;
        let buf = b.buf(n);
        pattern(buf, start, nonce);
        if f.write_all_at(buf, start).is_err() {
            // One block at a time: the run may straddle the real end.
            for k in 0..n {
                let o = start + (k * BLOCK) as u64;
                let one = &buf[k * BLOCK..(k + 1) * BLOCK];
                if f.write_all_at(one, o).is_err() {
                    found.not_kept(o);
                }
            }
        }
    }
    f.sync_all()
        .map_err(|e| Error::work(format!("{dev}: {e}")))?;
    for (i, &(start, n)) in runs.iter().enumerate() {
        stop_if_cancelled(i)?;
        let buf = b.buf(n);
        if f.read_exact_at(buf, start).is_ok() {
            found.blocks(start, buf, nonce);
            continue;
        }
        for k in 0..n {
            let o = start + (k * BLOCK) as u64;
            let one = &mut buf[k * BLOCK..(k + 1) * BLOCK];
            match f.read_exact_at(one, o) {
                Ok(()) => found.blocks(o, one, nonce),
                Err(_) => found.not_kept(o),
            }
        }
    }
    let Some(bad) = found.first_bad() else {
        return Ok(Verdict::Honest);
    };
    let mut d = Direct {
        f: &f,
        b,
        nonce,
        shifts: found.shifts(),
        write_failed: false,
    };
    let real = d.last_good(bad)?;
    let past = d.past(real)?;
    Ok(Verdict::Fake { real, past })
}

/// Single-block writes and reads for the search after the first bad block.
struct Direct<'a> {
    f: &'a std::fs::File,
    b: Aligned,
    nonce: u64,
    /// How far below themselves writes were seen to land.
    shifts: Vec<u64>,
    /// The last write of a fresh block failed.
    write_failed: bool,
}

impl Direct<'_> {
    /// Write fresh blocks at `offs` in order (a failed write is remembered,
    /// not an error: it is what some fakes do past their end), then sync;
    /// the nonce they carry.
    fn write_fresh(&mut self, offs: &[u64]) -> u64 {
        self.nonce = self.nonce.wrapping_add(1);
        self.write_failed = false;
        for &o in offs {
            let buf = self.b.buf(1);
            pattern(buf, o, self.nonce);
            self.write_failed = self.f.write_all_at(buf, o).is_err();
        }
        // A drive that fails writes may fail the flush too: what is read
        // back says what was kept.
        let _ = self.f.sync_all();
        self.nonce
    }

    /// Write a fresh block at `o` and read it back: does the drive keep it?
    fn keeps(&mut self, o: u64) -> bool {
        let nonce = self.write_fresh(&[o]);
        let mut want = vec![0u8; BLOCK];
        pattern(&mut want, o, nonce);
        !self.write_failed && self.read(o).is_some_and(|g| g == want)
    }

    /// Does a fresh write at `o` land `shift` bytes lower? The blocks there
    /// are written first, then `o`; if they then hold `o`'s sectors, `o`
    /// shares storage with lower offsets and is not storage itself.
    fn lands(&mut self, o: u64, shift: u64) -> Option<u64> {
        let b = BLOCK as u64;
        if o + b <= shift {
            return None;
        }
        let low = o.saturating_sub(shift);
        let first = low / b * b;
        let last = (o + b - shift - 1) / b * b;
        let mut offs: Vec<u64> = (first / b..=last / b).map(|i| i * b).collect();
        offs.retain(|&x| x < o);
        if offs.is_empty() {
            return None;
        }
        self.write_fresh(&offs);
        let nonce = self.write_fresh(&[o]);
        for x in offs {
            let Some(got) = self.read(x) else { continue };
            let ours = got
                .chunks(SECTOR)
                .any(|s| stamp(s, nonce).is_some_and(|t| (o..o + b).contains(&t)));
            if ours {
                return Some(low);
            }
        }
        None
    }

    /// Is block `o` not storage: not kept, or its write lands lower?
    fn bad(&mut self, o: u64) -> bool {
        !self.keeps(o) || self.landing(o).is_some()
    }

    /// Where a write at `o` lands lower down, by the shifts seen.
    fn landing(&mut self, o: u64) -> Option<u64> {
        for shift in self.shifts.clone() {
            if let Some(at) = self.lands(o, shift) {
                return Some(at);
            }
        }
        None
    }

    /// The first block that is not storage, from `bad` (known not to be):
    /// down in growing steps to one that is, then by bisection between
    /// them. Blocks that read back as written are not trusted on their
    /// own, as a write past the end may land on a region no test block is
    /// in and read back from there.
    fn last_good(&mut self, bad: u64) -> Result<u64> {
        let b = BLOCK as u64;
        let mut hi = bad;
        let mut step = b;
        let mut n = 0;
        let lo = loop {
            stop_if_cancelled(n * 16)?;
            n += 1;
            if hi == 0 {
                return Ok(0);
            }
            let x = hi.saturating_sub(step);
            if !self.bad(x) {
                break x;
            }
            hi = x;
            step *= 2;
        };
        let mut lo = lo;
        while hi - lo > b {
            stop_if_cancelled(n * 16)?;
            n += 1;
            let mid = lo + (hi - lo) / 2 / b * b;
            if self.bad(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(hi)
    }

    /// What the block at `o` (not storage) does with a fresh write: read
    /// back twice; only the sectors that differ from it are judged.
    fn past(&mut self, o: u64) -> Result<Past> {
        let nonce = self.write_fresh(&[o]);
        if self.write_failed {
            return Ok(Past::WriteError);
        }
        let (a, b) = (self.read(o), self.read(o));
        let (Some(a), Some(b)) = (a, b) else {
            return Ok(Past::ReadError);
        };
        if a != b {
            return Ok(Past::Random);
        }
        let mut want = vec![0u8; BLOCK];
        pattern(&mut want, o, nonce);
        let lost: Vec<&[u8]> = a
            .chunks(SECTOR)
            .zip(want.chunks(SECTOR))
            .filter(|(g, w)| g != w)
            .map(|(g, _)| g)
            .collect();
        if lost.is_empty() {
            let at = self.landing(o).unwrap_or(0);
            return Ok(Past::Lands { at });
        }
        Ok(if lost.iter().all(|s| s.iter().all(|&x| x == 0)) {
            Past::Vanish
        } else {
            Past::Stale
        })
    }

    fn read(&mut self, o: u64) -> Option<Vec<u8>> {
        let buf = self.b.buf(1);
        self.f.read_exact_at(buf, o).ok().map(|_| buf.to_vec())
    }
}

/// What the read-back found: sectors that read back someone else's stamp
/// (by the stamp read), and the lowest offset known not to be storage.
#[derive(Default)]
struct Found {
    /// For each stamp read back in another sector: the sectors it was
    /// read in.
    seen: std::collections::BTreeMap<u64, Vec<u64>>,
    lowest_bad: Option<u64>,
    want: Vec<u8>,
}

impl Found {
    fn not_kept(&mut self, o: u64) {
        self.lowest_bad = Some(self.lowest_bad.map_or(o, |b| b.min(o)));
    }

    /// Blocks read from `start` on.
    fn blocks(&mut self, start: u64, got: &[u8], nonce: u64) {
        let mut want = std::mem::take(&mut self.want);
        want.resize(got.len(), 0);
        pattern(&mut want, start, nonce);
        for (i, (g, w)) in got.chunks(SECTOR).zip(want.chunks(SECTOR)).enumerate() {
            if g == w {
                continue;
            }
            let at = start + (i * SECTOR) as u64;
            match stamp(g, nonce) {
                Some(tag) => self.seen.entry(tag).or_default().push(at),
                None => self.not_kept(at),
            }
        }
        self.want = want;
    }

    /// The block of the lowest offset known not to be storage: of the
    /// sectors that share storage (one written, others reading it back),
    /// only the lowest can be real.
    fn first_bad(&self) -> Option<u64> {
        let shared = self
            .seen
            .iter()
            .filter_map(|(&tag, at)| sharing(tag, at).get(1).copied());
        let low = shared.chain(self.lowest_bad).min()?;
        Some(low / BLOCK as u64 * BLOCK as u64)
    }

    /// How far below themselves writes were seen to land: for each set of
    /// sectors sharing storage, from the second lowest to the lowest,
    /// nearest the first bad block first (there the search runs), at most
    /// a few.
    fn shifts(&self) -> Vec<u64> {
        let mut v: Vec<(u64, u64)> = self
            .seen
            .iter()
            .filter_map(|(&tag, at)| match sharing(tag, at)[..] {
                [low, second, ..] => Some((second, second - low)),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        let mut out: Vec<u64> = Vec::new();
        for (_, s) in v {
            if !out.contains(&s) && out.len() < 8 {
                out.push(s);
            }
        }
        out
    }
}

/// The sectors `at` and `tag`, all sharing storage, lowest first (only the
/// lowest can be real storage).
fn sharing(tag: u64, at: &[u64]) -> Vec<u64> {
    let mut all: Vec<u64> = at.iter().copied().chain([tag]).collect();
    all.sort_unstable();
    all.dedup();
    all
}

fn stop_if_cancelled(i: usize) -> Result<()> {
    if i % 16 == 0 && crate::cancel::requested() {
        return Err(Error::work("interrupted during the capacity check: test blocks were written over the old contents; no table or filesystem was written"));
    }
    Ok(())
}

/// What the check writes, for the plan and the progress line.
pub fn what_it_writes(capacity: u64) -> String {
    let (g, offs) = offsets(capacity);
    format!(
        "writes {} test blocks of 4 KiB: the first and last {} densely and two in every {} between, \
         then reads them back",
        offs.len(),
        crate::units::iec(g),
        crate::units::iec(g)
    )
}

/// The check before formatting: Ok for an honest drive, else an error with
/// the real size and the way out.
pub fn check(dev: &str, capacity: u64, id: &Identity) -> crate::Result<()> {
    id.confirm()?;
    eprintln!(
        "Checking that {dev} stores its {} ({})...",
        crate::units::iec(capacity),
        what_it_writes(capacity)
    );
    let verdict = probe(dev, capacity).map_err(|e| {
        if crate::cancel::requested() {
            crate::say!("{e}");
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

/// f3fix starts its partition at sector 2048 unless told otherwise, and
/// refuses a last sector before that.
const F3FIX_FIRST_SECTOR: u64 = 2048;

fn fake_message(dev: &str, capacity: u64, usable: u64, past: Past) -> String {
    use crate::units::iec;
    let q = crate::quote::quote(dev);
    if usable == 0 {
        return format!(
            "{q} keeps nothing written to it: {}. Nothing was formatted; the drive is \
             broken or not a drive that stores data",
            past.describe()
        );
    }
    // Sizes that print alike would hide the shortfall: say it instead.
    let stores = if iec(usable) == iec(capacity) {
        format!("{} less", iec(capacity - usable))
    } else {
        iec(usable)
    };
    let last_sec = usable / 512 - 1;
    let way_out = if last_sec > F3FIX_FIRST_SECTOR {
        format!(
            "To use it safely, give it a partition that ends inside the real capacity: \
             sudo f3fix --last-sec={last_sec} {q} (Debian package f3), then format that \
             partition, or return the drive"
        )
    } else {
        format!(
            "It stores too little for a partition after the first {} that f3fix leaves \
             free: return the drive",
            iec(F3FIX_FIRST_SECTOR * 512)
        )
    };
    format!(
        "{q} is a fake-capacity drive: it claims {} but stores only {stores} ({usable} \
         bytes); {}. Nothing was formatted. {way_out}",
        iec(capacity),
        past.describe(),
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
