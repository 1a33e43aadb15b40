//! fsfit: parse the command line, dispatch, map errors to exit codes.

mod cli;
mod fs;
mod report;
mod scan;
mod units;
mod usage;

use clap::Parser;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Why fsfit stopped: bad input (exit 2) or a failure while working (exit 1).
enum Failure {
    Input(String),
    Work(String),
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.cmd {
        cli::Command::Usage(ref a) => run_usage(a, cli.quiet),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            eprintln!("fsfit: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Work(m)) => {
            eprintln!("fsfit: {m}");
            ExitCode::from(1)
        }
    }
}

/// A spinner on stderr counting files, shown only on a terminal.
fn spinner(
    quiet: bool,
    counter: Arc<AtomicU64>,
) -> (Arc<AtomicBool>, Option<std::thread::JoinHandle<()>>) {
    let done = Arc::new(AtomicBool::new(false));
    if quiet {
        return (done, None);
    }
    let d = done.clone();
    let h = std::thread::spawn(move || {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(
            indicatif::ProgressStyle::with_template("{spinner} scanning: {msg} files ({elapsed})")
                .unwrap(),
        );
        while !d.load(Ordering::Relaxed) {
            pb.set_message(counter.load(Ordering::Relaxed).to_string());
            pb.tick();
            std::thread::sleep(Duration::from_millis(100));
        }
        pb.finish_and_clear();
    });
    (done, Some(h))
}

fn run_usage(a: &cli::UsageArgs, quiet: bool) -> Result<(), Failure> {
    let volume =
        units::parse_size(&a.volume).map_err(|e| Failure::Input(format!("--volume: {e}")))?;
    if volume < 1 << 20 {
        return Err(Failure::Input(format!(
            "--volume {}: too small to plan (at least 1M)",
            a.volume
        )));
    }
    let specs =
        a.fs.iter()
            .map(|s| usage::parse_fs_spec(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Input)?;
    let (configs, refused) = usage::plan(&specs, volume).map_err(Failure::Input)?;
    let paths = if a.paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        a.paths.clone()
    };
    for p in &paths {
        if let Err(e) = std::fs::metadata(p) {
            return Err(Failure::Input(format!("{}: {e}", p.display())));
        }
    }
    let threads = a
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

    let counter = Arc::new(AtomicU64::new(0));
    let (done, handle) = spinner(quiet, counter.clone());
    let result = usage::run(
        &paths,
        configs,
        refused,
        volume,
        &usage::UsageOptions {
            threads,
            cross_mounts: a.cross_mounts,
        },
        &counter,
    );
    done.store(true, Ordering::Relaxed);
    if let Some(h) = handle {
        let _ = h.join();
    }
    let r = result.map_err(Failure::Input)?;

    for e in &r.errors {
        eprintln!("fsfit: warning: {}: {}", e.path.display(), e.message);
    }
    if r.tree.errors > r.errors.len() as u64 {
        eprintln!(
            "fsfit: warning: {} more entries could not be read",
            r.tree.errors - r.errors.len() as u64
        );
    }
    if r.tree.non_utf8_names > 0 {
        eprintln!("fsfit: warning: {} names are not valid UTF-8 (FAT, exFAT, NTFS and UDF cannot store them as they are)", r.tree.non_utf8_names);
    }
    if r.tree.control_char_names > 0 {
        eprintln!(
            "fsfit: warning: {} names hold a newline or another control character",
            r.tree.control_char_names
        );
    }

    let out = if a.json {
        report::json::usage(&r)
    } else if a.csv {
        report::csv::usage(&r)
    } else {
        report::table::usage(&r)
    };
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Work(format!("cannot write the output: {e}"))),
    }
}
