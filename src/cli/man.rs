//! `fsfit man`: print one page or write them all.

use clap::Args;
use std::path::PathBuf;

/// `fsfit man --help`'s text above the options.
pub const LONG_ABOUT: &str = "Prints fsfit(1), or with COMMAND fsfit-COMMAND(1), in roff; \
with --dir writes every page (fsfit.1, fsfit-usage.1, fsfit-advise.1, ...) into DIR.\n\n  \
fsfit man | man -l -\n  \
fsfit man advise | man -l -\n  \
sudo fsfit man --dir /usr/local/share/man/man1   # then: man fsfit-usage";

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print (usage, advise, info, ...).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,

    /// Write every page into this folder (e.g. /usr/local/share/man/man1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
