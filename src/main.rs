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

/// Bad arguments are one line, as every other bad input: what clap found
/// wrong, its tip where it has one, the choices where there is a list, and
/// where the help is; help and version print and exit 0.
fn bad_arguments(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    let mut what = line.strip_prefix("error: ").unwrap_or(line).to_string();
    // A list under the first line ("not provided:" then "  <TARGET>").
    if what.ends_with(':') {
        let items: Vec<&str> = text
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("  ") && !l.trim().starts_with("tip:"))
            .map(str::trim)
            .collect();
        what = format!("{what} {}", items.join(", "));
    }
    let choices = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(v)) => format!(" (choose from {})", v.join(", ")),
        _ => String::new(),
    };
    let tip = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("tip: "))
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    // "Usage: fsfit advise [OPTIONS] ..." names the command whose help to
    // read, after the program, which is said as people type it (clap names
    // it from argv[0]: `fsfit.exe` on Windows). A refused value names its
    // choices instead.
    let value = matches!(
        e.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    );
    let help = match text.lines().find_map(|l| l.strip_prefix("Usage: ")) {
        Some(usage) if !value => {
            let command: Vec<&str> = std::iter::once("fsfit")
                .chain(
                    usage
                        .split_whitespace()
                        .skip(1)
                        .take_while(|w| !w.starts_with(['[', '<', '-'])),
                )
                .collect();
            format!("; see {} --help", command.join(" "))
        }
        _ => String::new(),
    };
    eprintln!("fsfit: {what}{choices}{tip}{help}");
    ExitCode::from(2)
}
