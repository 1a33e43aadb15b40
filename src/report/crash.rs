//! The crash document (`fsfit.crash/1`, DESIGN.md) through report/: its
//! JSON, and its place among an HTML report's inputs. The table is
//! text/crash.rs; the HTML section html/crash.rs.

use super::inputs::{Input, Inputs};
use crate::crash::Report;
use crate::{Error, Result};
use std::path::Path;

/// The results as `--json` writes them: pretty-printed, no newline after.
pub fn json(rep: &Report) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(rep).map_err(|e| Error::work(e.to_string()))
}

/// This run's results as the only input of a `--report`, named after the
/// JSON file written beside it (`json`), if any.
pub fn inputs(rep: Report, json: Option<&Path>) -> Inputs {
    let source = match json {
        Some(j) => format!("{} (this run)", j.display()),
        None => "fsfit crash (this run)".to_string(),
    };
    let mut inputs = Inputs::default();
    inputs.add("this run", &source, Input::Crash(Box::new(rep)));
    inputs
}
