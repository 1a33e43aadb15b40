//! `fsfit report`: one HTML page from any mix of results files.

use clap::Args;
use std::path::PathBuf;

/// `fsfit report --help`'s text above the options.
pub const LONG_ABOUT: &str =
    "Reads results of `fsfit bench --json` (fsfit.bench/1) and `fsfit usage --json` \
(fsfit.usage/1), any mix and any number, and writes one HTML file that needs nothing else to \
be read or printed: charts drawn as inline SVG (throughput per workload with the spread of the \
runs, speed relative to the baseline, cluster-size sweeps, write amplification, fragmented \
against contiguous, size on disk and wasted space), tables with medians, spread and flags, the \
compatibility findings, and the environment of every run. Two bench files of the same configs \
are also compared side by side.\n\n\
  fsfit report stick.json usage.json -o report.html\n\
  fsfit report before.json after.json -o compare.html --png charts/\n\n\
Exit status: 0 done, 1 could not write, 2 bad arguments or a file that is not fsfit results.";

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results files: fsfit bench, usage, advise or crash --json (fsfit.bench/1, fsfit.usage/1, fsfit.advise/1, fsfit.crash/1).
    #[arg(value_name = "FILE.json", required = true)]
    pub files: Vec<PathBuf>,

    /// The HTML file to write (atomically).
    #[arg(short, long, value_name = "FILE.html")]
    pub output: PathBuf,

    /// Also write every chart as SVG and PNG files into DIR.
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,
}
