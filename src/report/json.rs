//! JSON: the contracts of DESIGN.md, pretty-printed.

use crate::usage::UsageReport;

pub fn usage(r: &UsageReport) -> String {
    let mut s = serde_json::to_string_pretty(r).expect("usage report serializes");
    s.push('\n');
    s
}

pub fn bench(r: &crate::bench::results::BenchReport) -> String {
    let mut s = serde_json::to_string_pretty(r).expect("bench report serializes");
    s.push('\n');
    s
}
