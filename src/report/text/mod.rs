//! Text views for a terminal, one file per command: the usage table, the
//! bench table, the advice, the volume info.

pub mod advise;
pub mod bench;
pub mod crash;
pub mod flash;
pub mod info;
pub mod usage;

pub use crate::units::{count, count_as, first_fitting, WIDTH};

/// The columns text output wraps to: the terminal's, or [`WIDTH`] when
/// stdout is not a terminal (a file, a pipe, a test).
pub fn width() -> usize {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
            return usize::from(w).max(40);
        }
    }
    WIDTH
}

/// Every line of `text` longer than `width` columns broken at spaces, its
/// continuation indented two more than the line; shorter lines as they
/// are. A shell command is never broken (it must paste whole): a trailing
/// `   # comment` or `   (note)` moves above it (not the PowerShell
/// marker, which says what the command is for), a `Label: command` line puts the command
/// on the next line; a command still too long continues on the next
/// lines after a ` \`.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let mut lines = Vec::new();
        wrap_line(body, width, &mut lines);
        out += &lines.join("\n");
        out += end;
    }
    out
}

/// A bad command line's refusal kept to one line of at most `width`
/// columns: a list of choices too long for the line keeps the choices
/// that fit and says how many more there are and where they all are
/// (`more`: "in fsfit bench --help", [`fit_list`]); then the value just
/// typed, if still too long, is cut keeping its end. A line with nothing
/// to cut stays whole: one line is the promise that comes first.
pub fn one_line(line: &str, width: usize, more: &str) -> String {
    let mut line = fit_list(line, width, more);
    let over = unicode_width::UnicodeWidthStr::width(line.as_str()).saturating_sub(width);
    if over > 0 {
        cut_longest_word(&mut line, over);
    }
    line
}

/// `line` with a list of choices too long for `width` columns cut to the
/// choices that fit, how many more and where they are (`more`); nothing
/// else changed. A command's own refusal goes through this alone: the
/// path it names (`listing:3:`) is one to open, and stays whole.
pub fn fit_list(line: &str, width: usize, more: &str) -> String {
    let cols = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    if cols(line) <= width {
        return line.to_string();
    }
    const LIST: &str = "(choose from ";
    let Some(start) = line.find(LIST) else {
        return line.to_string();
    };
    let body = start + LIST.len();
    let Some(len) = line[body..].find(')') else {
        return line.to_string();
    };
    let (head, tail) = (&line[..body], &line[body + len..]);
    let items: Vec<&str> = line[body..body + len].split(", ").collect();
    let more = if more.is_empty() {
        String::new()
    } else {
        format!(" {more}")
    };
    let kept = |keep: usize| {
        let rest = items.len() - keep;
        format!(
            "{head}{}, … {rest} more{more}{tail}",
            items[..keep].join(", ")
        )
    };
    // The most choices that fit, at least one.
    (1..items.len())
        .rev()
        .map(kept)
        .find(|c| cols(c) <= width)
        .or_else(|| (items.len() > 1).then(|| kept(1)))
        .unwrap_or_else(|| line.to_string())
}

/// The echoed word (the longest) cut by `over` columns, never below a
/// width that still shows both its ends.
fn cut_longest_word(line: &mut String, over: usize) {
    let cols = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let Some(longest) = line.split(' ').max_by_key(|w| cols(w)).map(str::to_string) else {
        return;
    };
    let room = cols(&longest).saturating_sub(over).max(16);
    if room < cols(&longest) {
        // A third before the cut: the end of a path names the file.
        *line = line.replacen(&longest, &usage::shorten_with_head(&longest, room, 3), 1);
    }
}

/// What a printed command starts with (fsfit's own, and the steps advise
/// and format print for Linux, Windows and macOS).
const COMMANDS: &[&str] = &[
    "sudo ",
    "fsfit ",
    "printf ",
    "lsblk ",
    "format ",
    "diskutil ",
    "newfs",
    "mkfs",
];

fn is_command(s: &str) -> bool {
    COMMANDS.iter().any(|c| s.starts_with(c))
}

fn wrap_line(line: &str, width: usize, out: &mut Vec<String>) {
    if line.chars().count() <= width {
        out.push(line.to_string());
        return;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let (pad, body) = line.split_at(indent);
    if is_command(body) {
        let (cmd, note) = split_note(body);
        if !note.is_empty() {
            note_above(pad, note, width, out);
        }
        continued(pad, &cmd, width, out);
        return;
    }
    if let Some((label, cmd)) = labelled_command(body) {
        out.push(format!("{pad}{label}"));
        wrap_line(&format!("{pad}    {cmd}"), width, out);
        return;
    }
    let hang = " ".repeat(indent + 2);
    let mut rest = body;
    let mut lead = pad.to_string();
    while !rest.is_empty() {
        let room = width.saturating_sub(lead.chars().count());
        let mut cut = break_at(rest, room);
        // No word left alone on the last line ("... (141,990,324 bytes)" then
        // "apparent"): the word before it goes down with it.
        let tail = rest[cut..].trim_start();
        if !tail.is_empty() && !tail.contains(' ') {
            let head = rest[..cut].trim_end();
            if let Some(sp) = head.rfind(' ').filter(|&sp| !head[..sp].trim().is_empty()) {
                let carried = head[sp..].trim().chars().count() + 1 + tail.chars().count();
                if hang.chars().count() + carried <= width {
                    cut = sp;
                }
            }
        }
        out.push(format!("{lead}{}", rest[..cut].trim_end()));
        rest = rest[cut..].trim_start();
        lead.clone_from(&hang);
    }
}

/// A command and its trailing `   # comment` or `   (note)`, which start at
/// a word of their own outside quotes (a label holding `   (` is part of
/// the command). The PowerShell marker is not a note but which shell the
/// line is for: it stays on the command's line.
fn split_note(body: &str) -> (String, &str) {
    let at = crate::quote::words(body).into_iter().find_map(|w| {
        let at = w.as_ptr() as usize - body.as_ptr() as usize;
        let note = w == "#" || w.starts_with('(');
        (note && body[..at].ends_with("   ")).then_some(at)
    });
    let Some(at) = at else {
        return (body.to_string(), "");
    };
    let (cmd, note) = (body[..at].trim_end(), &body[at..]);
    match note.strip_prefix(crate::format::paste::IN_POWERSHELL) {
        Some(rest) => (
            format!("{cmd}   {}", crate::format::paste::IN_POWERSHELL),
            rest.trim_start(),
        ),
        None => (cmd.to_string(), note),
    }
}

/// Where a line of prose breaks to fit `room` columns: after the last
/// space that leaves the part before within `room` (the spacing inside
/// the part kept, so a table row's columns stay aligned), else after the
/// first word (a word longer than the line is not split).
fn break_at(text: &str, room: usize) -> usize {
    if text.chars().count() <= room {
        return text.len();
    }
    let mut last = None;
    for (n, (i, c)) in text.char_indices().enumerate() {
        if n > room {
            break;
        }
        if c == ' ' && !text[..i].trim_end().is_empty() {
            last = Some(i);
        }
    }
    last.or_else(|| text.find(' ')).unwrap_or(text.len())
}

/// A command's note, moved above it, wrapped as prose; a `# comment` keeps
/// its `#` on every line, so the block still pastes as comments.
fn note_above(pad: &str, note: &str, width: usize, out: &mut Vec<String>) {
    let Some(text) = note.strip_prefix("# ") else {
        wrap_line(&format!("{pad}{note}"), width, out);
        return;
    };
    let mut lines = Vec::new();
    wrap_line(&format!("{pad}{text}"), width.saturating_sub(2), &mut lines);
    out.extend(lines.iter().map(|l| format!("{pad}# {}", l.trim_start())));
}

/// A POSIX command longer than `width` on several lines joined by ` \`
/// (pasted, the shell reads one command), broken only between the shell's
/// words ([`crate::quote::words`]): a break inside quotes would put the
/// backslash and newline into the argument. A word longer than the line
/// gets a continuation line of its own, whole. Windows' `format` line
/// (whose shells continue lines otherwise) stays whole.
fn continued(pad: &str, cmd: &str, width: usize, out: &mut Vec<String>) {
    if cmd.starts_with("format ") || pad.len() + cmd.chars().count() <= width {
        out.push(format!("{pad}{cmd}"));
        return;
    }
    let mut current = pad.to_string();
    for (i, w) in crate::quote::words(cmd).into_iter().enumerate() {
        let fresh = current.trim().is_empty();
        if !fresh && current.chars().count() + 1 + w.chars().count() + 2 > width {
            out.push(format!("{current} \\"));
            current = format!("{pad}    ");
        } else if i > 0 {
            current.push(' ');
        }
        current += w;
    }
    out.push(current);
}

/// `Windows: format X: ...`, `or in one line: sudo fsfit ...`: the label
/// (with its colon) and the command after it.
fn labelled_command(body: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(i) = body[from..].find(": ") {
        let at = from + i;
        let rest = body[at + 2..].trim_start();
        if is_command(rest) {
            return Some((&body[..=at], rest));
        }
        from = at + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn prose_wraps_with_a_hanging_indent_and_short_lines_stay() {
        let text = "  - one two three four five six\nshort\n";
        assert_eq!(
            wrap(text, 16),
            "  - one two\n    three four\n    five six\nshort\n"
        );
        assert_eq!(wrap("a  b   c\n", 100), "a  b   c\n");
        // A long table row keeps its columns' spacing where it breaks.
        assert_eq!(
            wrap("name      MB/s   one two three\n", 20),
            "name      MB/s   one\n  two three\n"
        );
        assert_eq!(wrap("abcdefghij klm\n", 5), "abcdefghij\n  klm\n");
    }

    #[test]
    fn commands_are_never_broken() {
        let cmd = "    sudo wipefs -a /dev/sdX   # erase old signatures\n";
        assert_eq!(
            wrap(cmd, 30),
            "    # erase old signatures\n    sudo wipefs -a /dev/sdX\n"
        );
        let line = "  Windows: format X: /FS:exFAT /A:128K /Q /V:DATA\n";
        assert_eq!(
            wrap(line, 40),
            "  Windows:\n      format X: /FS:exFAT /A:128K /Q /V:DATA\n"
        );
        let long = "sudo fsfit format /dev/sdX --label 'My Data'";
        assert_eq!(
            wrap(long, 24),
            "sudo fsfit format \\\n    /dev/sdX --label \\\n    'My Data'"
        );
        let windows = "format X: /FS:exFAT /A:128K /Q /V:DATA";
        assert_eq!(wrap(windows, 20), windows);
    }

    /// The lines of a wrapped command joined as the shell joins them: a
    /// `\` at a line's end and the newline after it vanish.
    fn joined(wrapped: &str) -> String {
        wrapped.replace("\\\n", "")
    }

    /// A label with a quote, spaces, `$(...)`, a backslash or `   (`, at
    /// any width: the wrapped command breaks only between words, so joined
    /// again it is the same words, each argument whole; a word wider than
    /// the line gets a line of its own.
    #[test]
    fn a_command_breaks_only_between_its_words() {
        let long = "x".repeat(60);
        for label in [
            "IT'S AB",
            "a  b",
            "$(id)",
            "a\\ b",
            "x   (y",
            "it's   # z",
            &long,
        ] {
            let q = crate::quote::quote(label);
            let cmd = format!(
                "sudo fsfit format /dev/sdX --fs ntfs:4096 --label {q} --table gpt --yes-erase /dev/sdX"
            );
            for width in [20, 40, 60, 100] {
                let out = wrap(&format!("    {cmd}   # note\n"), width);
                let body = joined(&out);
                let line = body.lines().find(|l| l.contains("sudo")).unwrap();
                assert_eq!(
                    crate::quote::words(line),
                    crate::quote::words(&cmd),
                    "{label:?} at {width}:\n{out}"
                );
                assert!(out.starts_with("    # note\n"), "{out}");
                for l in out.lines() {
                    let alone = crate::quote::words(l.trim_end_matches(" \\")).len() == 1;
                    assert!(
                        l.chars().count() <= width || alone,
                        "{label:?} at {width}:\n{out}"
                    );
                }
            }
        }
    }

    /// The line says which shell it is for: that stays with the command
    /// while its notes move above.
    #[test]
    fn the_powershell_marker_stays_with_its_command() {
        let line = format!(
            "      format X: /FS:FAT /A:32K /Q /V:'IT''S $(ID)'   {}   (the SD Association's formatter lays the card out)\n",
            crate::format::paste::IN_POWERSHELL
        );
        assert_eq!(
            wrap(&line, 60),
            "      (the SD Association's formatter lays the card out)\n      \
             format X: /FS:FAT /A:32K /Q /V:'IT''S $(ID)'   (in PowerShell)\n"
        );
    }

    #[test]
    fn a_refusal_fits_by_its_list_then_its_longest_word() {
        use super::one_line;
        let cols = |s: &str| unicode_width::UnicodeWidthStr::width(s);
        let short = "fsfit: invalid --x 'a' (choose from b, c)";
        assert_eq!(one_line(short, 100, "in fsfit x --help"), short);
        let items: Vec<String> = (0..40).map(|i| format!("choice-{i}")).collect();
        let long = format!(
            "fsfit: invalid --x 'a' (choose from {}); more",
            items.join(", ")
        );
        let fit = one_line(&long, 100, "in fsfit x --help");
        assert!(cols(&fit) <= 100, "{fit}");
        assert!(fit.starts_with("fsfit: invalid --x 'a' (choose from choice-0, choice-1"));
        // The number said is the number left out, and the text after the
        // list stays.
        let kept = fit.matches("choice-").count();
        assert!(
            fit.ends_with(&format!(", … {} more in fsfit x --help); more", 40 - kept)),
            "{fit}"
        );
        // An echoed path is cut in the middle; the words around it stay.
        let path = format!("/{}/end", "日".repeat(80));
        let fit = one_line(&format!("fsfit: {path}: no such file"), 100, "");
        assert!(
            cols(&fit) <= 100 && fit.ends_with("/end: no such file"),
            "{fit}"
        );
        assert!(fit.starts_with("fsfit: /日") && fit.contains('…'), "{fit}");
        // Nothing to cut: the one line stays whole.
        let prose = "word ".repeat(30);
        assert_eq!(one_line(&prose, 100, ""), prose);
    }

    /// A refusal keeps the most it can say in one line: the first that fits
    /// with main's "fsfit: " before it, and the shortest when none does.
    #[test]
    fn a_refusal_says_the_most_that_fits() {
        use super::first_fitting;
        let said = |n: usize| format!("refusing {}", "x".repeat(n));
        // 93 columns and "fsfit: " make 100: it fits; one more does not.
        assert_eq!(first_fitting([said(84), said(10)]), said(84));
        assert_eq!(first_fitting([said(85), said(20), said(10)]), said(20));
        assert_eq!(first_fitting([said(200), said(150)]), said(150));
    }
}
