//! Crash states from a recorded log, and building their images fast.
//!
//! A state is the log's prefix up to a flush the device honoured, plus a
//! random subset of the writes issued after it and before the crash point
//! (a drive's volatile cache may persist those in any order). States are
//! built in log order by one [`Builder`] per worker: it moves its prefix
//! image forward record by record and undoes only the blocks the previous
//! state's subset changed, so a state costs what it changes, not a copy of
//! the whole image.

use super::log::{Kind, Record};
use serde::{Deserialize, Serialize};

/// 4 KiB: the unit the builder tracks changes in.
pub const BLOCK: u64 = 4096;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// `e3`: at the third honoured flush; `e3-r1`: the second random state
    /// inside the epoch ending at that flush.
    pub id: String,
    /// Records `[0, prefix)` are all applied.
    pub prefix: usize,
    /// Records after the prefix that are applied too (ascending).
    pub extra: Vec<u32>,
    /// The crash point: the workload had seen log positions up to here.
    pub cut: usize,
    /// `torn`: the write in flight at the cut, persisted only in part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tear: Option<Tear>,
    /// `flash-gc`: the pages of an allocation unit the device had not yet
    /// copied when the power went, lost or scrambled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc: Option<Gc>,
}

impl State {
    pub fn new(id: String, prefix: usize, extra: Vec<u32>, cut: usize) -> State {
        State {
            id,
            prefix,
            extra,
            cut,
            tear: None,
            gc: None,
        }
    }
}

/// A write that persisted only its first `keep` bytes (a whole number of
/// sectors or flash pages); the rest of its range keeps the old bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tear {
    pub record: u32,
    pub keep: u64,
}

/// Bytes `[offset, offset + len)` of the image damaged by the device: read
/// back as zeros (`scramble` None: the pages were lost) or as noise from
/// that seed (the pages were half programmed).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gc {
    pub offset: u64,
    pub len: u64,
    pub scramble: Option<u64>,
}

/// A small reproducible generator (SplitMix64): the same `--seed` gives the
/// same states on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for c in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

/// The crash states of the records after `start` (the workload's mark):
/// one at each honoured flush and `per_epoch` random ones inside each epoch.
/// `lying`: the device honours only every 2nd to 4th flush, as cheap sticks
/// that acknowledge a flush before their cache is written do.
pub fn generate(
    records: &[Record],
    start: usize,
    per_epoch: usize,
    lying: bool,
    rng: &mut Rng,
) -> Vec<State> {
    let flushes: Vec<usize> = (start..records.len())
        .filter(|&i| records[i].kind == Kind::Flush)
        .collect();
    let mut honoured = Vec::new();
    let mut skip = 0;
    for (n, &f) in flushes.iter().enumerate() {
        if skip == 0 || n + 1 == flushes.len() {
            honoured.push(f);
            skip = if lying { 1 + rng.below(3) as usize } else { 0 };
        } else {
            skip -= 1;
        }
    }
    let mut states = vec![State::new("e0".into(), start, Vec::new(), start)];
    let mut from = start;
    // Each epoch ends at an honoured flush; the last may end at the log's end.
    let mut ends: Vec<Option<usize>> = honoured.iter().map(|&f| Some(f)).collect();
    if honoured.last().is_none_or(|&f| f + 1 < records.len()) {
        ends.push(None);
    }
    for (k, end) in ends.iter().enumerate() {
        let stop = end.unwrap_or(records.len());
        let writes: Vec<usize> = (from..stop)
            .filter(|&i| records[i].kind == Kind::Write)
            .collect();
        for r in 0..if writes.is_empty() { 0 } else { per_epoch } {
            let upto = 1 + rng.below(writes.len() as u64) as usize;
            let extra: Vec<u32> = writes[..upto]
                .iter()
                .filter(|_| rng.below(2) == 1)
                .map(|&i| i as u32)
                .collect();
            states.push(State::new(
                format!("e{}-r{r}", k + 1),
                from,
                extra,
                writes[upto - 1] + 1,
            ));
        }
        if let Some(f) = end {
            states.push(State::new(format!("e{}", k + 1), f + 1, Vec::new(), f + 1));
            from = f + 1;
        }
    }
    states
}

/// The writes of each epoch after `start` that the generated `states` cover:
/// (the epoch's first record, its writes), from the flush states' prefixes.
fn epochs(records: &[Record], start: usize, states: &[State]) -> Vec<(usize, Vec<usize>)> {
    let mut bounds: Vec<usize> = states
        .iter()
        .filter(|s| s.extra.is_empty() && s.tear.is_none())
        .map(|s| s.prefix)
        .filter(|&p| p >= start)
        .collect();
    bounds.push(start);
    bounds.push(records.len());
    bounds.sort_unstable();
    bounds.dedup();
    bounds
        .windows(2)
        .map(|w| {
            let writes = (w[0]..w[1]).filter(|&i| records[i].kind == Kind::Write);
            (w[0], writes.collect())
        })
        .filter(|(_, w): &(usize, Vec<usize>)| !w.is_empty())
        .collect()
}

/// At most this many writes are left out of an in-order prefix in a
/// bounded subset (Chipmunk bounds its reorderings the same way).
pub const SUBSET_BOUND: u64 = 2;

/// More states inside the epochs until there are at least `min`: where a
/// driver flushes rarely (exfat-fuse) the flush points and a few random
/// subsets are too few to judge it by. Each epoch gets a share by its
/// writes: in-order prefixes at evenly spaced write boundaries (`pN`) and,
/// beside each, the same prefix missing up to [`SUBSET_BOUND`] random
/// writes (`pN-bK`, as many as it takes). States stay in order of their
/// prefix.
pub fn top_up(
    records: &[Record],
    start: usize,
    states: &mut Vec<State>,
    min: usize,
    rng: &mut Rng,
) {
    if states.len() >= min {
        return;
    }
    let eps = epochs(records, start, states);
    let total: usize = eps.iter().map(|(_, w)| w.len()).sum();
    let need = min - states.len();
    for (from, writes) in &eps {
        let n = writes.len();
        let share = (need * n).div_ceil(total.max(1));
        let m = share.div_ceil(2).clamp(1, n);
        let subsets = (share.div_ceil(m).saturating_sub(1)).clamp(1, 8);
        for j in 1..=m {
            let k = (j * n).div_ceil(m);
            let cut = writes[k - 1] + 1;
            let head: Vec<u32> = writes[..k].iter().map(|&i| i as u32).collect();
            for b in 0..subsets {
                let mut extra = head.clone();
                for _ in 0..SUBSET_BOUND.min(k as u64) {
                    extra.remove(rng.below(extra.len() as u64) as usize);
                }
                states.push(State::new(format!("p{cut}-b{b}"), *from, extra, cut));
            }
            states.push(State::new(format!("p{cut}"), *from, head, cut));
        }
    }
    states.sort_by_key(|s| s.prefix);
}

fn blocks_of(r: &Record) -> std::ops::Range<u64> {
    r.offset / BLOCK..(r.offset + r.data.len() as u64).div_ceil(BLOCK)
}

#[cfg(test)]
fn apply(img: &mut [u8], r: &Record) {
    let s = r.offset as usize;
    img[s..s + r.data.len()].copy_from_slice(&r.data);
}

/// Blocks (4 KiB) that differ from a lower layer.
type Layer = std::collections::HashMap<u64, Vec<u8>>;

/// Builds state images in log order, incrementally and sparsely: the base
/// image is shared, never copied; the prefix's blocks and the state's own
/// (its extra writes, the device's damage) are kept apart over it, so a
/// state costs what it changes, not a copy of the image.
pub struct Builder<'a> {
    records: &'a [Record],
    base: &'a [u8],
    /// Blocks where the image with records `[0, pos)` differs from `base`.
    prefix: Layer,
    pos: usize,
    /// Blocks where the current state differs from the prefix.
    own: Layer,
}

impl<'a> Builder<'a> {
    pub fn new(base: &'a [u8], records: &'a [Record]) -> Builder<'a> {
        Builder {
            records,
            base,
            prefix: Layer::new(),
            pos: 0,
            own: Layer::new(),
        }
    }

    /// Block `b` of the current state.
    pub fn block(&self, b: u64) -> &[u8] {
        if let Some(x) = self.own.get(&b).or_else(|| self.prefix.get(&b)) {
            return x;
        }
        let len = self.base.len();
        &self.base[(b * BLOCK) as usize..(((b + 1) * BLOCK) as usize).min(len)]
    }

    fn below_own(&self, b: u64) -> Vec<u8> {
        match self.prefix.get(&b) {
            Some(x) => x.clone(),
            None => {
                let len = self.base.len();
                self.base[(b * BLOCK) as usize..(((b + 1) * BLOCK) as usize).min(len)].to_vec()
            }
        }
    }

    /// Write `data` at `offset` into the prefix (`own` false) or the
    /// state's own layer.
    fn put(&mut self, offset: u64, data: &[u8], own: bool) {
        let end = offset + data.len() as u64;
        for b in offset / BLOCK..end.div_ceil(BLOCK) {
            let fresh = if own {
                !self.own.contains_key(&b)
            } else {
                !self.prefix.contains_key(&b)
            };
            if fresh {
                let lower = if own {
                    self.below_own(b)
                } else {
                    let len = self.base.len();
                    self.base[(b * BLOCK) as usize..(((b + 1) * BLOCK) as usize).min(len)].to_vec()
                };
                let layer = if own { &mut self.own } else { &mut self.prefix };
                layer.insert(b, lower);
            }
            let layer = if own { &mut self.own } else { &mut self.prefix };
            let blk = layer.get_mut(&b).expect("inserted above");
            let (s, e) = ((b * BLOCK).max(offset), ((b + 1) * BLOCK).min(end));
            blk[(s - b * BLOCK) as usize..(e - b * BLOCK) as usize]
                .copy_from_slice(&data[(s - offset) as usize..(e - offset) as usize]);
        }
    }

    /// Make the current state `s`; returns the blocks that changed (sorted,
    /// deduplicated). States must come in order of their prefix.
    pub fn build(&mut self, s: &State) -> crate::Result<Vec<u64>> {
        if s.prefix < self.pos {
            return Err(crate::Error::work(format!(
                "state {} is out of order",
                s.id
            )));
        }
        let mut changed: Vec<u64> = self.own.drain().map(|(b, _)| b).collect();
        for i in self.pos..s.prefix {
            let r = &self.records[i];
            if r.kind == Kind::Write {
                self.put(r.offset, &r.data, false);
                changed.extend(blocks_of(r));
            }
        }
        self.pos = s.prefix;
        for &i in &s.extra {
            let r = self.records.get(i as usize).ok_or_else(|| {
                crate::Error::work(format!(
                    "state {} names record {i}, past the log's end",
                    s.id
                ))
            })?;
            self.put(r.offset, &r.data, true);
        }
        self.damage(s)?;
        changed.extend(self.own.keys().copied());
        changed.sort_unstable();
        changed.dedup();
        Ok(changed)
    }

    /// The device's own damage to the state: a torn write, lost pages.
    fn damage(&mut self, s: &State) -> crate::Result<()> {
        if let Some(t) = &s.tear {
            let r = self.records.get(t.record as usize).ok_or_else(|| {
                crate::Error::work(format!(
                    "state {} tears record {}, past the log's end",
                    s.id, t.record
                ))
            })?;
            let keep = (t.keep as usize).min(r.data.len());
            self.put(r.offset, &r.data[..keep], true);
        }
        if let Some(g) = &s.gc {
            let end = (g.offset + g.len).min(self.base.len() as u64);
            if g.offset >= end {
                return Err(crate::Error::work(format!(
                    "state {} damages bytes past the image's end",
                    s.id
                )));
            }
            let mut span = vec![0u8; (end - g.offset) as usize];
            if let Some(seed) = g.scramble {
                Rng::new(seed).fill(&mut span);
            }
            self.put(g.offset, &span, true);
        }
        Ok(())
    }

    /// The current state's whole image.
    pub fn image(&self) -> Vec<u8> {
        let mut img = self.base.to_vec();
        for layer in [&self.prefix, &self.own] {
            for (b, x) in layer {
                let at = (b * BLOCK) as usize;
                img[at..at + x.len()].copy_from_slice(x);
            }
        }
        img
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(off: u64, byte: u8) -> Record {
        Record {
            kind: Kind::Write,
            offset: off,
            data: vec![byte; BLOCK as usize],
        }
    }
    fn f() -> Record {
        Record {
            kind: Kind::Flush,
            offset: 0,
            data: vec![],
        }
    }

    #[test]
    fn incremental_images_equal_images_made_from_scratch() {
        let recs = vec![
            w(0, 1),
            w(4096, 2),
            f(),
            w(0, 3),
            w(8192, 4),
            f(),
            w(4096, 5),
        ];
        let states = generate(&recs, 0, 5, false, &mut Rng::new(7));
        // e0, 5 random + e1, 5 random + e2, 5 random in the unflushed tail.
        assert_eq!(states.len(), 18);
        let zero = vec![0; 4 * BLOCK as usize];
        let mut b = Builder::new(&zero, &recs);
        for s in &states {
            b.build(s).unwrap();
            let mut want = vec![0; 4 * BLOCK as usize];
            for r in recs[..s.prefix].iter().filter(|r| r.kind == Kind::Write) {
                apply(&mut want, r);
            }
            for &i in &s.extra {
                apply(&mut want, &recs[i as usize]);
            }
            assert_eq!(b.image(), want, "state {}", s.id);
        }
    }

    #[test]
    fn same_seed_same_states_and_lying_skips_flushes() {
        let recs: Vec<Record> = (0..40)
            .map(|i| if i % 3 == 2 { f() } else { w(0, i as u8) })
            .collect();
        let a = generate(&recs, 0, 3, false, &mut Rng::new(1));
        assert_eq!(a, generate(&recs, 0, 3, false, &mut Rng::new(1)));
        let flush_states = |v: &[State]| v.iter().filter(|s| !s.id.contains('r')).count();
        let lying = generate(&recs, 0, 3, true, &mut Rng::new(1));
        assert!(flush_states(&lying) < flush_states(&a));
    }
}
