//! The device models: what a drive may have kept of the writes it was sent
//! when the power went. Each turns the recorded log into crash states.
//!
//! - `honest`: flushes are kept; between two, any subset of the writes.
//! - `lying`: most flushes are ignored (the drive acknowledges them early).
//! - `torn`: as honest, and the write in flight persists only in part, at
//!   sector granularity (at flash page granularity with `--flash`): a
//!   "shorn write" (Zheng et al., FAST'13).
//! - `no-flush`: the host sends no flush at all, as Linux does to a USB
//!   stick that reports a write-through cache; what persists is a prefix of
//!   the write stream plus any subset of the last `cache` bytes of writes
//!   (the stick's write cache).
//! - `flash-gc`: as honest, and the drive was copying an allocation unit
//!   (garbage collection, merging the last write into its AU) when the
//!   power went: the AU's pages not yet copied are lost or scrambled,
//!   whatever they held, even data synced long before.

use super::log::{Kind, Record};
use super::states::{self, Gc, Rng, State, Tear};
use serde::{Deserialize, Serialize};

/// 512 bytes: the sector, the unit a disk tears a write at.
pub const SECTOR: u64 = 512;
/// The write cache a `no-flush` stick has without `--cache`: 1 MiB (the
/// flash profiles' caches are SLC areas, flash themselves, not a window).
pub const DEFAULT_CACHE: u64 = 1 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    Honest,
    Lying,
    /// `unit`: the granularity a write tears at.
    Torn {
        unit: u64,
    },
    /// `cache`: bytes of writes the stick may still hold, in any order.
    NoFlush {
        cache: u64,
    },
    FlashGc {
        geometry: Geometry,
    },
}

/// A flash drive's allocation unit and page, and where they come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    pub au_bytes: u64,
    pub page_bytes: u64,
    /// The flash profile's name.
    pub profile: String,
}

/// The flash profile a stick is modelled by when `--flash` names none: a
/// USB 2 stick of 4 MiB allocation units and 16 KiB pages.
pub const DEFAULT_PROFILE: &str = "usb2-stick";

/// The geometry of a flash profile (`fsfit bench --list-profiles`); None:
/// [`DEFAULT_PROFILE`].
pub fn geometry(profile: Option<&str>) -> crate::Result<Geometry> {
    let name = profile.unwrap_or(DEFAULT_PROFILE);
    let p = crate::flash::profile(name)?;
    Ok(Geometry {
        au_bytes: p.au_bytes(),
        page_bytes: p.page_bytes(),
        profile: name.into(),
    })
}

/// The model and its parameters, as the JSON reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    pub model: String,
    /// torn: the granularity a write in flight tears at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tear_bytes: Option<u64>,
    /// no-flush: the stick's write cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// flash-gc, and torn with --flash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub au_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash_profile: Option<String>,
    /// What the model does, in a sentence.
    pub meaning: String,
}

impl Model {
    pub fn name(&self) -> &'static str {
        match self {
            Model::Honest => "honest",
            Model::Lying => "lying",
            Model::Torn { .. } => "torn",
            Model::NoFlush { .. } => "no-flush",
            Model::FlashGc { .. } => "flash-gc",
        }
    }

    pub fn params(&self, flash: Option<&Geometry>) -> Params {
        let mut p = Params {
            model: self.name().into(),
            meaning: meaning(self),
            ..Default::default()
        };
        if let Some(g) = flash {
            p.au_bytes = Some(g.au_bytes);
            p.page_bytes = Some(g.page_bytes);
            p.flash_profile = Some(g.profile.clone());
        }
        match self {
            Model::Torn { unit } => p.tear_bytes = Some(*unit),
            Model::NoFlush { cache } => p.cache_bytes = Some(*cache),
            _ => {}
        }
        p
    }
}

fn meaning(m: &Model) -> String {
    match m {
        Model::Honest => "flushes are kept; writes since the last flush persist in any subset".into(),
        Model::Lying => "the device honours only every 2nd to 4th flush, as cheap sticks do".into(),
        Model::Torn { unit } => format!(
            "as honest, and the write in flight persists only its first {}-byte units",
            unit
        ),
        Model::NoFlush { cache } => format!(
            "the host sends no flush (write-through USB stick): a prefix of the writes persists, plus any subset of the last {} of writes (the stick's cache)",
            crate::units::iec(*cache)
        ),
        Model::FlashGc { geometry: g } => format!(
            "as honest, and a cut during an allocation unit's copy ({} AU, {} pages, profile {}) loses or scrambles its pages not yet copied, old data included: the device's fault",
            crate::units::iec(g.au_bytes),
            crate::units::iec(g.page_bytes),
            g.profile
        ),
    }
}

/// The crash states of a log under `model`: at least `min` of them when the
/// log has enough writes (see [`states::top_up`]).
pub fn generate(
    records: &[Record],
    start: usize,
    per_epoch: usize,
    min: usize,
    model: &Model,
    rng: &mut Rng,
) -> Vec<State> {
    if let Model::NoFlush { cache } = model {
        return no_flush(records, start, per_epoch, min, *cache, rng);
    }
    let lying = *model == Model::Lying;
    let mut all = states::generate(records, start, per_epoch, lying, rng);
    states::top_up(records, start, &mut all, min, rng);
    match model {
        Model::Torn { unit } => with_variants(all, |s| torn(records, s, *unit, rng)),
        Model::FlashGc { geometry } => with_variants(all, |s| gc(records, s, geometry, rng)),
        _ => all,
    }
}

/// Each state followed by its damaged variant, when it has one: the state
/// without the damage is judged too, so a loss can be blamed on the damage.
fn with_variants(all: Vec<State>, mut f: impl FnMut(&State) -> Option<State>) -> Vec<State> {
    let mut out = Vec::with_capacity(all.len() * 2);
    for s in all {
        let v = f(&s);
        out.push(s);
        out.extend(v);
    }
    out
}

/// `s` with its last write (the one in flight at the cut) torn: only its
/// first k units persisted, 0 < k < its units. None when the cut is not
/// right after a write of `s`'s, or the write is a single unit.
fn torn(records: &[Record], s: &State, unit: u64, rng: &mut Rng) -> Option<State> {
    let last = s.cut.checked_sub(1)?;
    let r = records.get(last)?;
    let units = (r.data.len() as u64).div_ceil(unit);
    if r.kind != Kind::Write || units < 2 || s.extra.last() != Some(&(last as u32)) {
        return None;
    }
    let mut v = s.clone();
    v.extra.pop();
    v.id = format!("{}-t", s.id);
    v.tear = Some(Tear {
        record: last as u32,
        keep: unit * (1 + rng.below(units - 1)),
    });
    Some(v)
}

/// `s` with the device cut in the middle of copying the allocation unit of
/// the last write before the cut: its pages from a random one to the AU's
/// end lost (zeros) or, half the time, scrambled.
fn gc(records: &[Record], s: &State, g: &Geometry, rng: &mut Rng) -> Option<State> {
    let last = records[..s.cut]
        .iter()
        .rposition(|r| r.kind == Kind::Write)?;
    let au = records[last].offset / g.au_bytes * g.au_bytes;
    let pages = g.au_bytes / g.page_bytes;
    let from = rng.below(pages);
    let scramble = (rng.below(2) == 1).then(|| rng.next_u64());
    let mut v = s.clone();
    v.id = format!("{}-g", s.id);
    v.gc = Some(Gc {
        offset: au + from * g.page_bytes,
        len: (pages - from) * g.page_bytes,
        scramble,
    });
    Some(v)
}

/// `no-flush` states: at each crash point, every write older than the
/// stick's cache persisted, and of the writes in the cache the state at
/// the point itself (`cN`: all of them) and `per_epoch` random subsets
/// (`cN-wK`). Crash points: where the host would have flushed (its fsync
/// returned there, believing the data safe), and write boundaries evenly
/// spaced between them until there are `min` states.
fn no_flush(
    records: &[Record],
    start: usize,
    per_epoch: usize,
    min: usize,
    cache: u64,
    rng: &mut Rng,
) -> Vec<State> {
    let writes: Vec<usize> = (start..records.len())
        .filter(|&i| records[i].kind == Kind::Write)
        .collect();
    let mut cuts: Vec<usize> = (start..records.len())
        .filter(|&i| records[i].kind == Kind::Flush)
        .map(|i| i + 1)
        .collect();
    cuts.push(records.len());
    let per_cut = 1 + per_epoch;
    let want = min
        .div_ceil(per_cut)
        .saturating_sub(cuts.len())
        .min(writes.len());
    cuts.extend((1..=want).map(|j| writes[(j * writes.len()).div_ceil(want + 1) - 1] + 1));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = vec![State::new("e0".into(), start, Vec::new(), start)];
    for c in cuts {
        let window = cached(records, &writes, c, cache);
        let from = window.first().map_or(c, |&i| i as usize);
        out.push(State::new(format!("c{c}"), c, Vec::new(), c));
        for k in 0..if window.is_empty() { 0 } else { per_epoch } {
            let extra = window.iter().copied().filter(|_| rng.below(2) == 1);
            out.push(State::new(format!("c{c}-w{k}"), from, extra.collect(), c));
        }
    }
    out.sort_by_key(|s| s.prefix);
    out
}

/// The writes before `cut` still in a cache of `cache` bytes (newest last).
fn cached(records: &[Record], writes: &[usize], cut: usize, cache: u64) -> Vec<u32> {
    let mut bytes = 0;
    let mut out: Vec<u32> = writes
        .iter()
        .rev()
        .filter(|&&i| i < cut)
        .take_while(|&&i| {
            bytes += records[i].data.len() as u64;
            bytes <= cache
        })
        .map(|&i| i as u32)
        .collect();
    out.reverse();
    out
}

/// How the states were chosen, for the JSON: a sentence and the count of
/// each kind (by the suffix of their ids).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Selection {
    pub method: String,
    /// The fewest states asked for per filesystem × workload.
    pub min_states: u64,
    /// Random subsets per flush epoch (or per crash point under no-flush).
    pub per_epoch: u64,
    pub counts: std::collections::BTreeMap<String, u64>,
}

pub fn selection(model: &Model, all: &[State], min: usize, per_epoch: usize) -> Selection {
    let mut counts = std::collections::BTreeMap::new();
    for s in all {
        *counts.entry(kind_of(&s.id).to_string()).or_insert(0) += 1;
    }
    let method = match model {
        Model::NoFlush { .. } => "no_flush: at each point where the host would have flushed and at evenly spaced write boundaries, the stream up to the point (cut) and random subsets of the writes in the stick's cache (cache_subset)",
        _ => "flush: the image at each flush the device honoured; random_subset: random subsets of an epoch's writes; write_prefix: in-order prefixes at evenly spaced write boundaries inside epochs, added until min_states; bounded_subset: such a prefix missing up to 2 random writes; torn / flash_gc: a state above with the device's damage",
    };
    Selection {
        method: method.into(),
        min_states: min as u64,
        per_epoch: per_epoch as u64,
        counts,
    }
}

fn kind_of(id: &str) -> &'static str {
    let last = id.rsplit('-').next().unwrap_or(id);
    match last.chars().next() {
        _ if id.ends_with("-t") => "torn",
        _ if id.ends_with("-g") => "flash_gc",
        Some('r') => "random_subset",
        Some('b') => "bounded_subset",
        Some('w') => "cache_subset",
        Some('p') => "write_prefix",
        Some('c') => "cut",
        _ => "flush",
    }
}

#[cfg(test)]
mod tests;
