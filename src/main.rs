//! fsfit: parse the command line, run the subcommand, map the error's kind
//! to the exit status (0 done, 1 failed while working, 2 bad input, 130
//! interrupted). Everything else is in the library (src/cmd/).

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};
use fsfit::report::text::{fit_list, WIDTH};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = fsfit::cli::Cli::command()
        .try_get_matches()
        .and_then(|m| Ok((fsfit::cli::Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(both) => both,
        Err(e) => return bad_arguments(e),
    };
    match fsfit::cmd::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let help = matches
                .subcommand_name()
                .map(|c| format!("in fsfit {c} --help"))
                .unwrap_or_default();
            eprintln!(
                "{}",
                fit_list(&format!("{}{e}", fsfit::PREFIX), WIDTH, &help)
            );
            ExitCode::from(e.exit_code())
        }
    }
}

/// Bad arguments are one line (`cli::refusal`) and exit 2; help and
/// version print and exit 0.
fn bad_arguments(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    eprintln!("{}", fsfit::cli::refusal(&e, &argv));
    ExitCode::from(2)
}
