//! A bad command line said as every other bad input is: one line that
//! fits the width, what clap found wrong, its tip where it has one, the
//! choices where there is a list, and where the help is.

use crate::report::text::{one_line, WIDTH};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

/// The one line that refuses `e` (not help or version, which print), for
/// the command line `argv` (without the program) that clap refused.
pub fn refusal(e: &clap::Error, argv: &[std::ffi::OsString]) -> String {
    let text = e.to_string();
    let what = what_is_wrong(&text);
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
    // A refused value names its choices rather than the help.
    let value = matches!(
        e.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    );
    let command = command_of(&text, argv);
    let help = match &command {
        Some(c) if !value => format!("; see {c} --help"),
        _ => String::new(),
    };
    // A list of choices too long for the line says where the whole list is.
    let more = command
        .map(|c| format!("in {c} --help"))
        .unwrap_or_default();
    let mut line = format!("{}{what}{tip}{choices}{help}", crate::PREFIX);
    if unicode_width::UnicodeWidthStr::width(line.as_str()) > WIDTH {
        // Too long: a similar name stands for the list (the list is in the
        // help); other advice is the first thing to give up, what is wrong
        // and where the help is come first.
        line = match similar {
            Some(_) => format!("{}{what}{tip}{help}", crate::PREFIX),
            None => format!("{}{what}{choices}{help}", crate::PREFIX),
        };
    }
    one_line(&line, WIDTH, &more)
}

/// clap's first line in fewer words, so that it fits beside its tip.
fn what_is_wrong(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut what = line
        .strip_prefix("error: ")
        .unwrap_or(line)
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
    if let Some(shorter) = invalid_value(&what) {
        what = shorter;
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
    what
}

/// "invalid value 'x' for '--opt <NAME,...>': reason" said in fewer
/// columns, "invalid --opt 'x': reason", the value in POSIX quotes (it may
/// be pasted back) and named once, not again by its parser's reason.
fn invalid_value(what: &str) -> Option<String> {
    let rest = what.strip_prefix("invalid value '")?;
    let at = rest.find("' for '")?;
    let (value, after) = (&rest[..at], &rest[at + 7..]);
    let end = after.find('\'')?;
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
    Some(format!("invalid {opt} {quoted}{reason}"))
}

/// The command whose help to read: "Usage: fsfit advise [OPTIONS] ..."
/// names it after the program, which is said as people type it (clap
/// names it from argv[0]: `fsfit.exe` on Windows). A value error's text
/// has no usage line: the command is then the first word of the command
/// line that names one.
fn command_of(text: &str, argv: &[std::ffi::OsString]) -> Option<String> {
    text.lines()
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
            let cli = super::Cli::command();
            argv.iter().find_map(|a| {
                cli.find_subcommand(a)
                    .map(|c| format!("fsfit {}", c.get_name()))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::refusal;
    use clap::Parser;

    fn said(args: &[&str]) -> String {
        let parsed =
            super::super::Cli::try_parse_from(std::iter::once("fsfit").chain(args.iter().copied()));
        let Err(e) = parsed else {
            panic!("accepted: {args:?}")
        };
        let argv: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        refusal(&e, &argv)
    }

    /// One line within the width however long the list of choices or the
    /// value given; a close name stands for the list.
    #[test]
    fn every_bad_argument_is_one_line_within_the_width() {
        let long = format!("{}x", "a".repeat(150));
        for (args, says) in [
            (
                &["bench", "--workloads", "bogus"][..],
                "more in fsfit bench --help)",
            ),
            (
                &["bench", "--workloads", "tree-wrte"],
                "(did you mean 'tree-write'?)",
            ),
            (
                &["advise", "--for", "toaster", "."],
                "(choose from windows, ",
            ),
            (
                &["usage", ".", "--fs", "exfat:3K"],
                "invalid --fs 'exfat:3K': exfat clusters",
            ),
            (
                &["usage", ".", "--volume", "1XB"],
                "invalid --volume '1XB': unknown unit 'XB'",
            ),
            (&["bench", "--size", &long], "invalid --size 'aaaa"),
            (&["report", "r.json"], "missing --output"),
            (&["crash", "--scenario", "x"], "see fsfit crash --help"),
            (&["bogus"], "unrecognized subcommand 'bogus'"),
        ] {
            let line = said(args);
            let cols = unicode_width::UnicodeWidthStr::width(line.as_str());
            assert!(
                !line.contains('\n') && cols <= crate::report::text::WIDTH,
                "{cols}: {line}"
            );
            assert!(
                line.starts_with("fsfit: ") && line.contains(says),
                "{args:?}: {line}"
            );
        }
    }

    /// A value with a quote is echoed as the shell would take it back.
    #[test]
    fn an_echoed_value_pastes_as_typed() {
        let line = said(&["bench", "--size", "it's"]);
        assert!(line.contains(r"invalid --size 'it'\''s'"), "{line}");
    }
}
