//! Command-line definitions (clap) and nothing else: values are parsed here
//! (sizes, filesystem specs), checked against each other in src/cmd/. One
//! file per subcommand, as in src/cmd/, holds its arguments and its long
//! help; what several commands share is in shared.rs.

mod advise;
mod bench;
mod completions;
mod crash;
mod emulate;
mod format;
mod info;
mod man;
mod probe;
mod refusal;
mod report;
mod shared;
mod usage;

pub use refusal::refusal;

pub use advise::AdviseArgs;
pub use bench::BenchArgs;
pub use crash::{CrashArgs, DeviceModel};
pub use emulate::EmulateArgs;
pub use format::{FormatArgs, FormatTable};
pub use info::InfoArgs;
pub use man::ManArgs;
pub use probe::ProbeArgs;
pub use report::ReportArgs;
pub use shared::{bench_workloads, crash_workloads, flash_profiles, systems, FsSpecParser};
pub use shared::{budget, fs_spec, size, volume_size, TreeArgs, VolumeArgs};
pub use usage::{UsageArgs, UsageDriver};

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "fsfit",
    version,
    about = "Which filesystem and cluster size should this drive get, for my data?",
    long_about = "fsfit answers with measurements, not folklore. In the examples, /dev/sdX \
stands for your drive: find its name with lsblk.\n\n\
  # which filesystem and cluster, and why (a 32 GB stick; the drive in it):\n\
  fsfit advise ~/Music --for car --volume 32GB\n\
  fsfit advise ~/Photos --for windows,macos --volume /dev/sdX\n\
  # size on disk of your data on every filesystem x cluster; on two exFAT ones:\n\
  fsfit usage ~/Photos\n\
  fsfit usage ~/Photos --fs exfat:4K,128K --volume 64GB --json\n\
  # what is on a drive now; real drivers measured on a temporary image:\n\
  fsfit info /dev/sdX\n\
  sudo fsfit bench --quick\n\n\
Man pages: fsfit man --dir /usr/local/share/man/man1, then man fsfit-advise",
    propagate_version = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,

    /// No progress display on stderr (warnings and errors still show).
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub quiet: bool,

    // -h and -V made here, not by clap, so that they join -q under their
    // own heading at the end of every command's help: a newcomer reads
    // what to give first, not the flags every command shares.
    /// Print help (a summary with -h).
    #[arg(short, long, global = true, action = clap::ArgAction::Help, help_heading = GLOBAL)]
    help: Option<bool>,

    /// Print the version.
    #[arg(short = 'V', long, global = true, action = clap::ArgAction::Version, help_heading = GLOBAL)]
    version: Option<bool>,
}

/// The heading of the flags every command takes, last in each help.
const GLOBAL: &str = "Every command";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Exact size on disk of a real tree on every filesystem x cluster size.
    #[command(long_about = usage::LONG_ABOUT)]
    #[command(display_order = 2)]
    Usage(UsageArgs),
    /// Format, mount and measure filesystem x cluster-size configs.
    #[command(long_about = bench::LONG_ABOUT)]
    #[command(display_order = 4)]
    Bench(BenchArgs),
    /// Unmount and detach what a killed fsfit run left behind (state in /run/fsfit).
    #[command(
        display_order = 7,
        long_about = "Unmount and detach what a killed fsfit run left behind: each run records \
the mounts, loop devices, files and kernel settings it sets up in /run/fsfit, and a run that \
ends (even by Ctrl-C) removes them itself; after a SIGKILL or a crash, this puts back what the \
record names, only while it still is what the run set up. Runs still alive are left alone.\n\n\
  sudo fsfit cleanup"
    )]
    Cleanup,
    /// Recommend a filesystem and cluster size for your data, with reasons.
    #[command(long_about = advise::LONG_ABOUT)]
    #[command(display_order = 1)]
    Advise(AdviseArgs),
    /// What is on a drive now: filesystem, cluster size, label, free space,
    /// partition alignment; fragmentation of a mounted path.
    #[command(long_about = info::LONG_ABOUT)]
    #[command(display_order = 3)]
    Info(InfoArgs),
    /// Charts and a self-contained HTML page from bench, usage, advise and crash results.
    #[command(long_about = report::LONG_ABOUT)]
    #[command(display_order = 5)]
    Report(ReportArgs),
    /// What survives pulling the drive out mid-write, per filesystem and driver.
    #[command(long_about = crash::LONG_ABOUT)]
    #[command(display_order = 6)]
    Crash(CrashArgs),
    /// Prepare a drive: partition table, alignment, SD layout, mkfs, verification.
    #[command(long_about = format::LONG_ABOUT)]
    Format(FormatArgs),
    /// Estimate a stick's or card's flash geometry (AU and page size) by
    /// reading only: safe on a drive that holds data.
    #[command(long_about = probe::LONG_ABOUT)]
    Probe(ProbeArgs),
    /// Serve an image file as a slow flash device (a profile's model), under
    /// a loop device, until Ctrl-C.
    #[command(long_about = emulate::LONG_ABOUT)]
    Emulate(EmulateArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[command(long_about = completions::LONG_ABOUT)]
    #[command(display_order = 8)]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print or install the man pages (roff): fsfit(1) and one per subcommand.
    #[command(long_about = man::LONG_ABOUT)]
    #[command(display_order = 9)]
    Man(ManArgs),
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    /// `bench --quick`'s help states the limits the settling uses.
    #[test]
    fn quick_help_states_the_settling_limits() {
        let root = Cli::command();
        let bench = root.find_subcommand("bench").expect("bench");
        let quick = bench
            .get_arguments()
            .find(|a| a.get_id() == "quick")
            .expect("--quick");
        let help: String = quick
            .get_long_help()
            .or(quick.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let q = crate::bench::settle::QUICK;
        for said in [
            format!(
                "up to {} runs or {} s a figure",
                q.max_runs,
                q.budget.as_secs()
            ),
            format!(
                "the {} or more after the first {} runs",
                crate::bench::settle::MIN_AFTER_WARMUP,
                crate::bench::settle::MAX_WARMUP
            ),
        ] {
            assert!(help.contains(&said), "{said:?} not in {help:?}");
        }
    }

    /// Every example in every command's help is a command line fsfit
    /// takes: pasted, it runs (a value that names a drive, /dev/sdX, is
    /// only refused for not being there).
    #[test]
    fn every_help_example_parses() {
        let root = Cli::command();
        let mut texts = Vec::new();
        for c in std::iter::once(&root).chain(root.get_subcommands()) {
            for t in [
                c.get_long_about(),
                c.get_after_help(),
                c.get_after_long_help(),
                c.get_before_long_help(),
            ] {
                texts.push(t.map(|s| s.to_string()));
            }
        }
        let mut seen = 0;
        for text in texts.into_iter().flatten() {
            for line in text.lines().map(str::trim) {
                let Some(at) = line.find("fsfit ").filter(|&i| {
                    let before = &line[..i];
                    before.is_empty() || before == "sudo " || before.ends_with("| ")
                }) else {
                    continue;
                };
                // Up to what follows it in a pipe, a list, a redirection or a
                // comment.
                let cmd = [" | ", " && ", "; ", " #", " > ", " < "]
                    .iter()
                    .filter_map(|sep| line[at..].find(sep))
                    .min()
                    .map_or(&line[at..], |end| &line[at..at + end]);
                let argv: Vec<&str> = cmd.split_whitespace().collect();
                // Prose that starts with the name ("fsfit answers ...") is
                // not an example: an example names a command.
                if argv
                    .get(1)
                    .is_none_or(|c| root.find_subcommand(c).is_none())
                {
                    continue;
                }
                seen += 1;
                if let Err(e) = Cli::try_parse_from(&argv) {
                    let drive = argv.iter().any(|a| a.starts_with("/dev/"));
                    assert!(
                        drive && e.kind() == clap::error::ErrorKind::ValueValidation,
                        "{line}: {e}"
                    );
                }
            }
        }
        assert!(seen > 20, "only {seen} examples found");
    }
}
