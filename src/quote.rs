//! Commands printed for people to paste, and input echoed back in
//! messages: each argument quoted for the shell it will be pasted into, so
//! a label with spaces, `;` or `$(...)` stays one argument and runs
//! nothing. The one place that knows each shell's rules.

/// Characters a POSIX shell does not treat specially.
fn plain(arg: &str, also: &[u8]) -> bool {
    !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+".contains(&b) || also.contains(&b))
}

/// Characters neither cmd.exe nor PowerShell nor the program's own switch
/// parser treats specially: not `,` (PowerShell makes `a,b` an array, two
/// arguments), `=` or `;` (cmd.exe's argument separators), nor `/` (a
/// switch to Windows' tools: `/V:a/b` would end the label at `a`).
fn plain_windows(arg: &str) -> bool {
    !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:+".contains(&b))
}

/// One argument for a POSIX shell (Linux, macOS): bare when it holds only
/// characters no shell treats specially, else in single quotes (a `'` as
/// `'\''`).
pub fn quote(arg: &str) -> String {
    if plain(arg, b"@%") {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// One argument for a Windows line that is pasted into cmd.exe or
/// PowerShell: bare when plain; in double quotes when neither expands
/// anything inside them (cmd: `%` and `!`; PowerShell: `$` and a
/// backtick; both: `"`). None when only PowerShell's single quotes keep it
/// whole: see [`powershell`].
pub fn windows(arg: &str) -> Option<String> {
    if plain_windows(arg) {
        return Some(arg.to_string());
    }
    let expands = arg.chars().any(|c| "%!$`\"".contains(c) || c.is_control());
    (!expands).then(|| format!("\"{arg}\""))
}

/// One argument for PowerShell: single quotes take everything literally
/// (a `'` doubled).
pub fn powershell(arg: &str) -> String {
    if plain_windows(arg) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "''"))
    }
}

/// A command line from its argv.
pub fn join<S: AsRef<str>>(argv: &[S]) -> String {
    argv.iter()
        .map(|a| quote(a.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A POSIX command line cut into its words, each as written (quotes
/// kept): the places a line may be broken with a ` \` continuation. Only
/// a space outside quotes ends a word: inside single quotes everything is
/// literal (a backslash-newline too, so a break there would land in the
/// argument), and a backslash outside them, or inside double quotes,
/// keeps the next character, as in `'it'\''s a'`.
pub fn words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote, mut escaped) = (None, None, false);
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ' ') => {
                if let Some(s) = start.take() {
                    out.push(&line[s..i]);
                }
                continue;
            }
            _ => {}
        }
        start.get_or_insert(i);
    }
    out.extend(start.map(|s| &line[s..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quoted `'`, space or backslash stays inside its word.
    #[test]
    fn words_are_split_only_at_spaces_the_shell_splits_at() {
        let label = quote("IT'S A B");
        let line = format!("sudo mkfs -L {label} /dev/sdX1");
        assert_eq!(words(&line), ["sudo", "mkfs", "-L", &label, "/dev/sdX1"]);
        assert_eq!(
            words("a\\ b  \"c \\\" d\" 'e\\' f"),
            ["a\\ b", "\"c \\\" d\"", "'e\\'", "f"]
        );
        assert_eq!(words("  x  "), ["x"]);
        assert!(words("").is_empty());
    }

    #[test]
    fn quoting_keeps_each_argument_whole() {
        assert_eq!(quote("DATA"), "DATA");
        assert_eq!(quote("/dev/sdX1"), "/dev/sdX1");
        assert_eq!(quote("x; rm -rf ~"), "'x; rm -rf ~'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(join(&["mkfs.ext4", "-L", "$(id)"]), "mkfs.ext4 -L '$(id)'");
    }

    /// cmd.exe expands `%VAR%` even in double quotes, PowerShell `$(...)`:
    /// such a label has only PowerShell's single quotes.
    #[test]
    fn windows_quoting_expands_nothing() {
        assert_eq!(windows("DATA").as_deref(), Some("DATA"));
        assert_eq!(windows("My Stick").as_deref(), Some("\"My Stick\""));
        assert_eq!(windows("a&b").as_deref(), Some("\"a&b\""));
        // Kept whole where PowerShell would split an array or a tool would
        // see a switch.
        for whole in ["a,b", "a/b", "a=b", "a;b"] {
            assert_eq!(windows(whole), Some(format!("\"{whole}\"")), "{whole}");
        }
        assert_eq!(powershell("a,b"), "'a,b'");
        for bad in ["$(id)", "%PATH%", "a`b", "x\"y", "!x!"] {
            assert_eq!(windows(bad), None, "{bad}");
        }
        assert_eq!(powershell("$(id)"), "'$(id)'");
        assert_eq!(powershell("it's"), "'it''s'");
    }
}
