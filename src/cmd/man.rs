//! `fsfit man`: the man pages, rendered by clap_mangen from the clap
//! definitions, with two things it does not do: a SYNOPSIS that names each
//! option's value (`[--device <DEV>]`), and examples one per line (roff
//! runs a paragraph's lines together).

use crate::cli::Cli;
use crate::Result;
use clap::CommandFactory;

/// fsfit(1) in roff, from the clap definitions.
pub fn man() -> Result<String> {
    Ok(man_pages()?.remove(0).1)
}

/// Every man page: fsfit(1) first, then fsfit-COMMAND(1) for each
/// subcommand, as (file name, roff).
pub fn man_pages() -> Result<Vec<(String, String)>> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let render = |c: clap::Command| -> Result<(String, String)> {
        let m = clap_mangen::Man::new(c.clone());
        let mut out = Vec::new();
        m.render(&mut out)
            .map_err(|e| crate::Error::work(format!("cannot render the man page: {e}")))?;
        let roff = String::from_utf8_lossy(&out).into_owned();
        Ok((m.get_filename(), page_fixes(&roff, &synopsis(&c))))
    };
    let mut pages = vec![render(cmd.clone())?];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(render(sub.clone())?);
    }
    Ok(pages)
}

/// `fsfit man [COMMAND] [--dir DIR]`.
pub fn run(a: &crate::cli::ManArgs) -> Result<()> {
    let pages = man_pages()?;
    if let Some(dir) = &a.dir {
        if !dir.is_dir() {
            // cmd's and PowerShell's mkdir make the parents too; Unix's
            // man folders belong to root.
            let shown = dir.to_string_lossy();
            let how = if cfg!(windows) {
                let q = crate::quote::windows(&shown);
                format!(
                    "mkdir {}",
                    q.unwrap_or_else(|| crate::quote::powershell(&shown))
                )
            } else {
                format!("sudo mkdir -p {}", crate::quote::quote(&shown))
            };
            return Err(crate::Error::input(format!(
                "{}: no such folder (create it, e.g. {how})",
                dir.display()
            )));
        }
        for (name, page) in &pages {
            crate::report::write_atomic(&dir.join(name), page.as_bytes())?;
        }
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        return super::print_text(&format!(
            "wrote {} into {}\n",
            names.join(", "),
            dir.display()
        ));
    }
    let want = match &a.command {
        None => "fsfit.1".to_string(),
        Some(c) => format!("fsfit-{c}.1"),
    };
    match pages.iter().find(|(n, _)| *n == want) {
        Some((_, page)) => super::print(page),
        None => Err(crate::Error::input(format!(
            "no man page for '{}' (choose from {})",
            a.command.as_deref().unwrap_or_default(),
            pages
                .iter()
                .skip(1)
                .map(|(n, _)| n.trim_start_matches("fsfit-").trim_end_matches(".1"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// `\-` for every `-`, as roff wants options written.
fn roff_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('-', "\\-")
}

/// The SYNOPSIS line: every visible option with its value's name, then the
/// positional arguments, then the subcommand.
fn synopsis(c: &clap::Command) -> String {
    let mut out = format!(
        "\\fB{}\\fR",
        roff_escape(c.get_bin_name().unwrap_or(c.get_name()))
    );
    let value = |a: &clap::Arg| -> String {
        let names = a.get_value_names().map(|v| v.join(" ")).unwrap_or_default();
        let range = a.get_num_args().unwrap_or_default();
        match (range.takes_values(), range.min_values()) {
            (false, _) => String::new(),
            (true, 0) => format!(" [\\fI<{}>\\fR]", roff_escape(&names)),
            (true, _) => format!(" \\fI<{}>\\fR", roff_escape(&names)),
        }
    };
    for a in c
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let name = match (a.get_short(), a.get_long()) {
            (Some(s), Some(l)) => format!("\\fB\\-{s}\\fR|\\fB\\-\\-{}\\fR", roff_escape(l)),
            (Some(s), None) => format!("\\fB\\-{s}\\fR"),
            (None, Some(l)) => format!("\\fB\\-\\-{}\\fR", roff_escape(l)),
            (None, None) => continue,
        };
        let (l, r) = if a.is_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        out += &format!(" {l}{name}{}{r}", value(a));
    }
    for a in c.get_positionals().filter(|a| !a.is_hide_set()) {
        let names = a.get_value_names().map(|v| v.join(" ")).unwrap_or_default();
        let (l, r) = if a.is_required_set() {
            ("<", ">")
        } else {
            ("[", "]")
        };
        let many = if a.get_num_args().is_some_and(|n| n.max_values() > 1) {
            "..."
        } else {
            ""
        };
        out += &format!(" {l}\\fI{}\\fR{r}{many}", roff_escape(&names));
    }
    if c.has_subcommands() {
        out += " <\\fIcommand\\fR>";
    }
    out
}

/// The page with `synopsis` in place of clap_mangen's, and the examples
/// unfilled: DESCRIPTION's prose paragraphs are one line each, so lines
/// that follow one another are examples, kept one per line as written.
fn page_fixes(roff: &str, synopsis: &str) -> String {
    let mut out = String::new();
    let mut section = "";
    let mut in_examples = false;
    let text = |l: &str| !l.is_empty() && !l.starts_with('.');
    let mut lines = roff.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix(".SH ") {
            section = match name {
                "SYNOPSIS" | "DESCRIPTION" => name,
                _ => "",
            };
            out += &format!("{line}\n");
            if section == "SYNOPSIS" {
                out += &format!("{synopsis}\n");
                lines.next();
            }
            continue;
        }
        let next_is_text = lines.peek().is_some_and(|n| text(n));
        if section == "DESCRIPTION" && text(line) && next_is_text && !in_examples {
            out += ".nf\n";
            in_examples = true;
        }
        out += &format!("{line}\n");
        if in_examples && !next_is_text {
            out += ".fi\n";
            in_examples = false;
        }
    }
    out
}
