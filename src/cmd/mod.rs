//! One file per subcommand: each turns its arguments into checked options
//! (bad input fails here, before anything is done: exit 2), then runs and
//! prints. main.rs only parses, calls [`run`] and maps the error's kind to
//! the exit status.

pub mod advise;
pub mod bench;
pub mod cleanup;
pub mod crash;
pub mod emulate;
pub mod info;
pub mod probe;
pub mod report;
pub mod usage;

mod progress;

use crate::cli::{Cli, Command};
use crate::Result;
use clap::CommandFactory;

/// Run the subcommand the command line asked for.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.cmd {
        Command::Usage(a) => usage::run(&usage::Options::new(a)?, cli.quiet),
        Command::Bench(a) => bench::run(&bench::Options::new(a, cli.quiet)?),
        Command::Cleanup => cleanup::run(),
        Command::Advise(a) => advise::run(&advise::Options::new(a)?, cli.quiet),
        Command::Info(a) => info::run(&info::Options::new(a)?),
        Command::Report(a) => report::run(&report::Options::new(a)?),
        Command::Crash(a) => crash::run(a, cli.quiet),
        Command::Probe(a) => probe::run(a, cli.quiet),
        Command::Emulate(a) => emulate::run(a),
        Command::Completions { shell } => print(&completions(*shell)),
        Command::Man => print(&man()?),
    }
}

/// The completion script for `shell`, from the clap definitions.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fsfit", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// fsfit(1) in roff, from the clap definitions.
pub fn man() -> Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| crate::Error::work(format!("cannot render the man page: {e}")))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The folders of the files a long run will write (`--json`, `--report`)
/// must exist before it spends its time: checked once, for every command.
pub fn output_folders_exist<'a>(
    files: impl IntoIterator<Item = &'a Option<std::path::PathBuf>>,
) -> Result<()> {
    for p in files.into_iter().flatten() {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if !dir.is_dir() {
            return Err(crate::Error::input(format!(
                "{}: the folder {} does not exist",
                p.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Ctrl-C (and SIGTERM) asks the running bench, crash or advise to stop
/// after it has unmounted and detached what it set up; `also` runs first
/// (advise tells its budget loop the user stopped it). A second Ctrl-C
/// only says what is going on.
pub fn cancel_on_ctrl_c(also: fn()) {
    use std::sync::atomic::Ordering;
    let _ = ctrlc::set_handler(move || {
        also();
        if crate::bench::CANCEL.swap(true, Ordering::SeqCst) {
            eprintln!("\nfsfit: still cleaning up; run `fsfit cleanup` if it is killed");
        } else {
            eprintln!("\nfsfit: stopping after cleaning up...");
        }
    });
}

/// Every command's output goes through here: a closed pipe (`fsfit usage |
/// head`, `fsfit info X | head -1`) ends it quietly, not with a panic.
pub fn print(out: &str) -> Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(crate::Error::work(format!("cannot write the output: {e}"))),
    }
}
