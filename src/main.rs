//! fsfit: parse the command line, run the subcommand, map the error's kind
//! to the exit status (0 done, 1 failed while working, 2 bad input, 130
//! interrupted). Everything else is in the library (src/cmd/).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};
use fsfit::report::text::{one_line, WIDTH};
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
            eprintln!("{}", one_line(&format!("fsfit: {e}"), WIDTH, &help));
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
    let mut what = line
        .strip_prefix("error: ")
        .unwrap_or(line)
        // Shorter words for clap's, so that the line fits beside its tip.
        .replace(
            "the following required arguments were not provided:",
            "missing",
        )
        .replace(
            "the following required argument was not provided:",
            "missing",
        );
    if let Some(rest) = what.strip_prefix("unexpected argument '") {
        if let Some(at) = rest.find("' found") {
            what = format!("unexpected argument '{}'{}", &rest[..at], &rest[at + 7..]);
        }
    }
    // "invalid value 'x' for '--opt <NAME,...>': reason" said in fewer
    // columns, "invalid --opt 'x': reason", the value in POSIX quotes (it
    // may be pasted back) and named once, not again by its parser's reason.
    if let Some(rest) = what.strip_prefix("invalid value '") {
        if let Some(at) = rest.find("' for '") {
            let (value, after) = (&rest[..at], &rest[at + 7..]);
            if let Some(end) = after.find('\'') {
                let arg = &after[..end];
                let opt = if arg.starts_with('-') {
                    arg.split_whitespace().next().unwrap_or(arg)
                } else {
                    arg
                };
                let reason = after[end + 1..]
                    .replacen(&format!(": '{value}': "), ": ", 1)
                    .replacen(&format!(": '{value}' is "), ": ", 1)
                    .replacen(&format!(" '{value}'"), "", 1);
                let quoted = format!("'{}'", value.replace('\'', "'\\''"));
                what = format!("invalid {opt} {quoted}{reason}");
            }
        }
    }
    // A list under the first line ("not provided:" then "  <TARGET>").
    if what.ends_with(':') || what == "missing" {
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
    // clap's tip: a similar name it found (the likeliest fix, kept before
    // the list of choices) or other advice.
    let tip_text = text.lines().find_map(|l| l.trim().strip_prefix("tip: "));
    let similar = tip_text.and_then(|t| {
        t.strip_prefix("a similar argument exists: ")
            .or_else(|| t.strip_prefix("a similar value exists: "))
    });
    let tip = match (similar, tip_text) {
        (Some(s), _) => format!(" (did you mean {s}?)"),
        (None, Some(t)) => format!(" ({t})"),
        (None, None) => String::new(),
    };
    // "Usage: fsfit advise [OPTIONS] ..." names the command whose help to
    // read, after the program, which is said as people type it (clap names
    // it from argv[0]: `fsfit.exe` on Windows). A value error's text has
    // no usage line: the command is then the first word of the command
    // line that names one.
    let value = matches!(
        e.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    );
    let command = text
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .map(|usage| {
            std::iter::once("fsfit")
                .chain(
                    usage
                        .split_whitespace()
                        .skip(1)
                        .take_while(|w| !w.starts_with(['[', '<', '-'])),
                )
                .collect::<Vec<&str>>()
                .join(" ")
        })
        .or_else(|| {
            let cli = fsfit::cli::Cli::command();
            std::env::args_os().skip(1).find_map(|a| {
                cli.find_subcommand(a)
                    .map(|c| format!("fsfit {}", c.get_name()))
            })
        });
    let help = match &command {
        Some(c) if !value => format!("; see {c} --help"),
        _ => String::new(),
    };
    // A list of choices too long for the line says where the whole list is.
    let more = command
        .map(|c| format!("in {c} --help"))
        .unwrap_or_default();
    let mut line = format!("fsfit: {what}{tip}{choices}{help}");
    if line.chars().count() > WIDTH {
        // Too long: a similar name stands for the list (the list is in the
        // help); other advice is the first thing to give up, what is wrong
        // and where the help is come first.
        line = match similar {
            Some(_) => format!("fsfit: {what}{tip}{help}"),
            None => format!("fsfit: {what}{choices}{help}"),
        };
    }
    eprintln!("{}", one_line(&line, WIDTH, &more));
    ExitCode::from(2)
}
