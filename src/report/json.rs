//! JSON: the contracts of DESIGN.md, pretty-printed, one function per
//! document (usage, bench, advise, info), each ending in a newline.

use crate::advise::Advice;
use crate::bench::results::BenchReport;
use crate::info::inspect::InfoReport;
use crate::usage::UsageReport;
use serde::Serialize;

/// A document as pretty JSON and a newline; `what` names it if it cannot
/// be serialized (a bug: every document is plain data).
fn pretty(doc: &impl Serialize, what: &str) -> String {
    let mut s =
        serde_json::to_string_pretty(doc).unwrap_or_else(|e| panic!("{what} serializes: {e}"));
    s.push('\n');
    s
}

/// `fsfit usage --json` (fsfit.usage/1).
pub fn usage(r: &UsageReport) -> String {
    pretty(r, "usage report")
}

/// `fsfit bench --json` (fsfit.bench/1).
pub fn bench(r: &BenchReport) -> String {
    pretty(r, "bench report")
}

/// `fsfit advise --json` (fsfit.advise/1).
pub fn advise(a: &Advice) -> String {
    pretty(a, "advice")
}

/// `fsfit info --json` (fsfit.info/1).
pub fn info(r: &InfoReport) -> String {
    pretty(r, "info")
}
