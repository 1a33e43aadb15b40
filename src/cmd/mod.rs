//! One file per subcommand: each turns its arguments into checked options
//! (bad input fails here, before anything is done: exit 2), then runs and
//! prints. main.rs only parses, calls [`run`] and maps the error's kind to
//! the exit status.
//!
//! On other systems than Linux only the portable core's commands are
//! built: usage, info, advise (without --device, --image or --format),
//! report, completions and man; on Windows also bench --dir.

pub mod advise;
#[cfg(any(target_os = "linux", windows))]
pub mod bench;
#[cfg(target_os = "linux")]
pub mod cleanup;
#[cfg(target_os = "linux")]
pub mod crash;
#[cfg(target_os = "linux")]
pub mod emulate;
#[cfg(target_os = "linux")]
pub mod format;
pub mod info;
#[cfg(target_os = "linux")]
pub mod probe;
pub mod report;
pub mod usage;

pub mod man;
mod progress;

use crate::cli::{Cli, Command};
use crate::Result;
use clap::CommandFactory;

/// Run the subcommand the command line asked for.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.cmd {
        Command::Usage(a) => usage::run(&usage::Options::new(a)?, cli.quiet),
        #[cfg(any(target_os = "linux", windows))]
        Command::Bench(a) => bench::run(&bench::Options::new(a, cli.quiet)?),
        #[cfg(target_os = "linux")]
        Command::Cleanup => cleanup::run(),
        Command::Advise(a) => advise::run(&advise::Options::new(a)?, cli.quiet),
        Command::Info(a) => info::run(&info::Options::new(a)?),
        Command::Report(a) => report::run(&report::Options::new(a)?),
        #[cfg(target_os = "linux")]
        Command::Crash(a) => crash::run(a, cli.quiet),
        #[cfg(target_os = "linux")]
        Command::Format(a) => format::run(&format::request(a, cli.quiet)?),
        #[cfg(target_os = "linux")]
        Command::Probe(a) => probe::run(a, cli.quiet),
        #[cfg(target_os = "linux")]
        Command::Emulate(a) => emulate::run(a),
        Command::Completions { shell } => print(&completions(*shell)),
        Command::Man(a) => man::run(a),
        #[cfg(not(target_os = "linux"))]
        _ => Err(crate::Error::input(if cfg!(windows) {
            "this command runs on Linux only (here: usage, info, advise without a drive, report, \
             bench --dir)"
        } else {
            "this command runs on Linux only (here: usage, info, advise without a drive, report)"
        })),
    }
}

/// The completion script for `shell`, from the clap definitions.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fsfit", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `--json [FILE]` (and usage's `--csv [FILE]`) on every command: no
/// value, or `-`, is stdout.
pub fn is_stdout(dest: &std::path::Path) -> bool {
    dest.as_os_str() == "-"
}

/// A document where its option sent it: printed for `-`, else written to
/// FILE whole or not at all.
pub fn emit(dest: &std::path::Path, text: &str) -> Result<()> {
    if is_stdout(dest) {
        print(text)
    } else {
        crate::report::write_atomic(dest, text.as_bytes())
    }
}

/// `--json` given before the input it was once a flag for (`usage --json
/// DIR`, `info --json TARGET`): clap took the input for the option's FILE.
/// When that value is an input (`is_input`), it is handed back as one, the
/// document goes to stdout as it did, and stderr says how to write it now.
pub fn old_spelling(
    option: &str,
    dest: &mut Option<std::path::PathBuf>,
    is_input: impl Fn(&std::path::Path) -> bool,
) -> Option<std::path::PathBuf> {
    let input = dest
        .as_ref()
        .filter(|p| !is_stdout(p) && is_input(p))?
        .clone();
    let shown = crate::quote::quote(&input.to_string_lossy());
    print_to_stderr(&format!(
        "{}note: `{option} {shown}` is the old spelling of `{shown} {option}` \
         ({shown} read, the output printed); `{option} FILE` now writes FILE\n",
        crate::PREFIX
    ))
    .ok();
    *dest = Some(std::path::PathBuf::from("-"));
    Some(input)
}

/// The TARGET of info and probe: given, or taken back from `--json
/// TARGET`, the old flag's spelling (then the JSON is printed).
pub fn target_or_old_spelling(
    target: &Option<std::path::PathBuf>,
    json: &mut Option<std::path::PathBuf>,
    name: &str,
) -> Result<std::path::PathBuf> {
    if let Some(t) = target {
        return Ok(t.clone());
    }
    old_spelling("--json", json, |_| true)
        .ok_or_else(|| crate::Error::input(format!("give the {name} to read")))
}

/// A run of `configs` configs (bench, crash) where none ran (each failed to
/// format or mount: its row says why) measured nothing: it fails (exit 1),
/// after its results are written, as a run stopped by an error does.
pub fn some_config_ran(ran: usize, configs: usize) -> Result<()> {
    if configs > 0 && ran == 0 {
        return Err(crate::Error::work(format!(
            "{}: nothing was measured (see the errors above)",
            if configs == 1 {
                "the only config failed".to_string()
            } else {
                format!("all {configs} configs failed")
            }
        )));
    }
    Ok(())
}

/// The folders of the files a long run will write (`--json`, `--report`)
/// must exist before it spends its time: checked once, for every command
/// (`-`, stdout, has none).
pub fn output_folders_exist<'a>(
    files: impl IntoIterator<Item = &'a Option<std::path::PathBuf>>,
) -> Result<()> {
    for p in files.into_iter().flatten().filter(|p| !is_stdout(p)) {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if p.is_dir() {
            return Err(crate::Error::input(format!(
                "{}: is a folder: give a file name",
                p.display()
            )));
        }
        if !dir.is_dir() {
            return Err(crate::Error::input(format!(
                "{}: the folder {} does not exist",
                p.display(),
                dir.display()
            )));
        }
        if !replaceable(p) {
            return Err(crate::Error::input(format!(
                "{}: exists and is not fsfit's output: name a new file, or remove it first",
                crate::quote::quote(&p.to_string_lossy())
            )));
        }
    }
    Ok(())
}

/// Whether an output file may be replaced: it is not there, is empty, or
/// holds what fsfit writes (a JSON document, HTML that names fsfit near
/// its start, a CSV that starts with usage's header). Anything else may be
/// a file of the user's that an old spelling (`usage --json PATH`) or a
/// slip of the keyboard named: it is refused rather than overwritten.
fn replaceable(p: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(md) = std::fs::symlink_metadata(p) else {
        return true;
    };
    if !md.is_file() {
        // A symlink, a device or a FIFO: never written through.
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(p).and_then(|f| f.take(4096).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    // A JSON document (fsfit's have a schema; the listings are arrays) is
    // what `--json FILE` replaces; `"fsfit` is the HTML's generator tag.
    head.is_empty()
        || text.trim_start().starts_with(['{', '['])
        || text.contains("\"fsfit")
        || text.starts_with(crate::report::csv::USAGE_HEADER)
}

/// Ctrl-C (and SIGTERM) asks the running bench, crash or advise to stop
/// after it has unmounted and detached what it set up; `also` runs first
/// (advise tells its budget loop the user stopped it). A second Ctrl-C
/// only says what is going on.
pub fn cancel_on_ctrl_c(also: fn()) {
    let _ = ctrlc::set_handler(move || {
        also();
        if crate::cancel::request() {
            eprintln!("\nfsfit: still cleaning up; run `fsfit cleanup` if it is killed");
        } else {
            eprintln!("\nfsfit: stopping after cleaning up...");
        }
    });
}

/// The text a command prints when `--json -` has stdout: on stderr, so
/// stdout holds the JSON alone; wrapped as [`print_text`] wraps it.
pub fn print_to_stderr(out: &str) -> Result<()> {
    eprint!(
        "{}",
        crate::report::text::wrap(out, crate::report::text::width())
    );
    Ok(())
}

/// Text for a person (tables, advice, plans): wrapped to the terminal's
/// width, 100 columns when stdout is not a terminal. JSON, CSV and man
/// pages go through [`print`] as they are.
pub fn print_text(out: &str) -> Result<()> {
    print(&crate::report::text::wrap(
        out,
        crate::report::text::width(),
    ))
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
