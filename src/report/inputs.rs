//! What a report is made of: results files read back through the JSON
//! contracts (the same types that write them), each with a label.

use crate::bench::results::{BenchReport, SCHEMA as BENCH_SCHEMA};
use crate::crash::{Report as CrashReport, SCHEMA as CRASH_SCHEMA};
use crate::usage::UsageReport;
use crate::{Error, Result};
use std::path::Path;

/// One input file's results, as the report names them.
#[derive(Clone, Debug)]
pub struct Named<T> {
    /// Short name shown in headings, legends and comparisons.
    pub label: String,
    /// Where it came from: the file, or the run that made it.
    pub source: String,
    pub doc: T,
}

pub enum Input {
    Bench(Box<BenchReport>),
    Usage(Box<UsageReport>),
    Advise(Box<super::html::advice::AdviseDoc>),
    Crash(Box<CrashReport>),
}

/// Read a results file; the `schema` field says which kind it is.
/// Bad input (exit 2): unreadable, not JSON, not a schema fsfit reads.
pub fn load(path: &Path) -> Result<Input> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    parse(&bytes).map_err(|e| Error::input(format!("{}: {e}", path.display())))
}

/// The results in `bytes`, or why they are not fsfit results (bad input).
pub fn parse(bytes: &[u8]) -> Result<Input> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| Error::input(format!("not JSON ({e})")))?;
    let schema = v
        .get("schema")
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    let schema = schema.as_str();
    // Few words, so that a long path and serde's reason fit one line.
    let one_line = |e: serde_json::Error| Error::input(format!("bad {schema}: {e}"));
    if schema == BENCH_SCHEMA {
        let mut r: BenchReport = serde_json::from_value(v).map_err(one_line)?;
        crate::bench::relative::complete_loaded(&mut r);
        Ok(Input::Bench(Box::new(r)))
    } else if schema == crate::usage::SCHEMA {
        Ok(Input::Usage(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema == crate::advise::SCHEMA {
        Ok(Input::Advise(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema == CRASH_SCHEMA {
        Ok(Input::Crash(Box::new(
            serde_json::from_value(v).map_err(one_line)?,
        )))
    } else if schema.is_empty() {
        Err(Error::input(format!(
            "no \"schema\" field: not {}",
            known()
        )))
    } else {
        Err(Error::input(format!(
            "schema \"{schema}\" is not {}",
            known()
        )))
    }
}

/// The schemas read, said compactly, "fsfit.{bench,usage,advise,crash}/1",
/// so that a refusal naming them and its file fits one 100-column line.
fn known() -> String {
    let names: Vec<&str> = [
        BENCH_SCHEMA,
        crate::usage::SCHEMA,
        crate::advise::SCHEMA,
        CRASH_SCHEMA,
    ]
    .iter()
    .map(|s| {
        s.strip_prefix("fsfit.")
            .and_then(|s| s.strip_suffix("/1"))
            .unwrap_or(s)
    })
    .collect();
    format!("fsfit.{{{}}}/1", names.join(","))
}

/// The inputs of one report, bench and usage apart, in the order given.
#[derive(Default)]
pub struct Inputs {
    pub bench: Vec<Named<BenchReport>>,
    pub usage: Vec<Named<UsageReport>>,
    pub advice: Vec<Named<super::html::advice::AdviseDoc>>,
    pub crash: Vec<Named<CrashReport>>,
}

impl Inputs {
    /// Add one input; labels are made unique by a number.
    pub fn add(&mut self, label: &str, source: &str, input: Input) {
        let taken = |l: &str| {
            self.bench.iter().any(|b| b.label == l)
                || self.usage.iter().any(|u| u.label == l)
                || self.advice.iter().any(|a| a.label == l)
                || self.crash.iter().any(|c| c.label == l)
        };
        let mut name = label.to_string();
        let mut n = 2;
        while taken(&name) {
            name = format!("{label} ({n})");
            n += 1;
        }
        match input {
            Input::Bench(r) => self.bench.push(Named {
                label: name,
                source: source.into(),
                doc: *r,
            }),
            Input::Usage(u) => self.usage.push(Named {
                label: name,
                source: source.into(),
                doc: *u,
            }),
            Input::Crash(c) => self.crash.push(Named {
                label: name,
                source: source.into(),
                doc: *c,
            }),
            Input::Advise(mut a) => {
                // Its evidence is drawn like any bench and usage results.
                a.rounds = a.measurements.len();
                for (i, m) in std::mem::take(&mut a.measurements).into_iter().enumerate() {
                    let round = format!("{name} round {}", i + 1);
                    self.add(&round, source, Input::Bench(Box::new(m)));
                }
                // A copy stays with the advice for its log-scale size chart.
                if let Some(u) = a.usage.clone() {
                    self.add(&format!("{name} sizes"), source, Input::Usage(Box::new(u)));
                }
                self.advice.push(Named {
                    label: name,
                    source: source.into(),
                    doc: *a,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_decides_the_kind() {
        // fsfit info's JSON is no results file: refused, in one line.
        assert!(matches!(
            parse(br#"{"schema":"fsfit.info/1"}"#),
            Err(e) if e.to_string().contains("fsfit.info/1")
                && e.to_string().contains("fsfit.{bench,usage,advise,crash}/1")
                && !e.to_string().contains('\n')
        ));
        // Crash results are read; a truncated one says what is missing.
        assert!(matches!(
            parse(br#"{"schema":"fsfit.crash/1"}"#),
            Err(e) if e.to_string().contains("bad fsfit.crash/1: missing field")
                && !e.to_string().contains('\n')
        ));
        let crash = br#"{"schema":"fsfit.crash/1","fsfit":"0.2.0","date":"d","command":"c",
          "kernel":"k","device_model":"lying","seed":7,"quick":true,"lab":"uml",
          "results":[{"fs":"ext4","cluster_bytes":4096,"driver":"kernel:ext4","mount_options":"",
            "checker":null,"workload":"save","writes":1,"flushes":1,"log_bytes":1,"states":2,
            "seconds":1.0,"states_per_s":2.0,
            "outcomes":{"mountable_as_is":2,"checker_clean":0,"checker_repaired":0,"unrepairable":0,
              "no_checker":2,"old_files_damaged":0,"durable_lost":1,"inflight_lost":0,"inflight_garbage":0},
            "worst":[],"error":null}],
          "skipped":[{"fs":"udf","reason":"no driver"}]}"#;
        let Ok(Input::Crash(c)) = parse(crash) else {
            panic!("crash JSON of the contract should parse")
        };
        assert_eq!((c.seed, c.lab.as_deref()), (7, Some("uml")));
        assert_eq!(c.results[0].outcomes.durable_lost, 1);
        assert!(matches!(parse(b"[1,2]"), Err(e) if e.to_string().contains("no \"schema\"")));
        assert!(matches!(parse(b"not json"), Err(e) if e.to_string().contains("not JSON")));
        let usage = br#"{"schema":"fsfit.usage/1","volume_bytes":1048576,
          "tree":{"files":1,"dirs":0,"symlinks":0,"other":0,"apparent_bytes":5,"errors":0},
          "configs":[{"fs":"exfat","cluster_bytes":4096,"free_bytes":1,"tree_bytes":4096,
            "data_bytes":4096,"slack_bytes":4091,"metadata_bytes":0,"overhead_pct":81820.0,
            "fits":true,"exact":true,"problems":{"too_large":0,"bad_name":1}}]}"#;
        let Ok(Input::Usage(u)) = parse(usage) else {
            panic!("usage JSON of the contract should parse")
        };
        assert_eq!(u.configs[0].problems.bad_name, 1);
    }
}
