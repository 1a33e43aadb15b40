//! fsfit: parse the command line, run the subcommand, map the error's kind
//! to the exit status (0 done, 1 failed while working, 2 bad input, 130
//! interrupted). Everything else is in the library (src/cmd/).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match fsfit::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return bad_arguments(e),
    };
    match fsfit::cmd::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fsfit: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// A value clap's parsers refused (a size, a filesystem spec, a name not in
/// a registry's list) is one line, as every other bad input, naming the
/// choices where there is a list; usage errors keep clap's hints; help and
/// version print and exit 0.
fn bad_arguments(e: clap::Error) -> ExitCode {
    if !matches!(
        e.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    ) {
        e.exit();
    }
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    let choices = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(v)) => format!(" (choose from {})", v.join(", ")),
        _ => String::new(),
    };
    eprintln!(
        "fsfit: {}{choices}",
        line.strip_prefix("error: ").unwrap_or(line)
    );
    ExitCode::from(2)
}
