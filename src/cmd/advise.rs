//! `fsfit advise`: walk the tree, rank the configs, print the choice.

use super::usage::Walk;
use crate::advise::{self, systems::System};
use crate::bench::results::{BenchReport, SCHEMA as BENCH_SCHEMA};
use crate::cli::AdviseArgs;
use crate::{report, Error, Result};

pub struct Options {
    pub walk: Walk,
    pub volume: u64,
    pub systems: Vec<&'static System>,
    pub max_overhead: f64,
    pub bench: Option<BenchReport>,
    pub label: String,
    pub json: bool,
}

impl Options {
    pub fn new(a: &AdviseArgs) -> Result<Options> {
        let mut systems = Vec::new();
        for s in &a.systems {
            systems.push(advise::systems::by_name(s.trim()).ok_or_else(|| {
                Error::input(format!(
                    "unknown system '{s}' for --for (choose from {})",
                    advise::systems::names().join(", ")
                ))
            })?);
        }
        if a.max_overhead.is_nan() || a.max_overhead < 0.0 {
            return Err(Error::input("--max-overhead: give a percentage, 0 or more"));
        }
        let bench = a.bench.as_deref().map(read_bench).transpose()?;
        let mut walk = Walk::new(&a.tree, false)?;
        walk.paths.dedup();
        Ok(Options {
            walk,
            volume: a.volume.volume,
            systems,
            max_overhead: a.max_overhead,
            bench,
            label: a.label.clone(),
            json: a.json,
        })
    }
}

/// A `fsfit bench --json` file, or why it is not one.
fn read_bench(p: &std::path::Path) -> Result<BenchReport> {
    let bytes = std::fs::read(p).map_err(|e| Error::input(format!("{}: {e}", p.display())))?;
    let r: BenchReport = serde_json::from_slice(&bytes)
        .map_err(|e| Error::input(format!("{}: not fsfit bench results: {e}", p.display())))?;
    if r.schema != BENCH_SCHEMA {
        return Err(Error::input(format!(
            "{}: schema {} is not {BENCH_SCHEMA}",
            p.display(),
            r.schema
        )));
    }
    Ok(r)
}

pub fn run(o: &Options, quiet: bool) -> Result<()> {
    let r = super::usage::walk(&o.walk, &[], o.volume, None, quiet)?;
    let mut advice = advise::advise(&r, o.bench.as_ref(), &o.systems, o.max_overhead);
    if let Some(c) = &advice.choice {
        advice.commands = Some(advise::commands(&c.fs, c.cluster_bytes, &o.label));
    }
    let out = if o.json {
        let mut s = serde_json::to_string_pretty(&advice).expect("advice serializes");
        s.push('\n');
        s
    } else {
        report::advice::text(&advice)
    };
    super::print(&out)?;
    if advice.choice.is_none() {
        return Err(Error::work(
            "no filesystem fits these constraints (see the rejected list)",
        ));
    }
    Ok(())
}
