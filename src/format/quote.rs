//! Commands printed for people to paste: each argument shell-quoted, so a
//! label with spaces, `;` or `$(...)` stays one argument and runs nothing.

/// One argument for a POSIX shell: bare when it holds only characters no
/// shell treats specially, else in single quotes (a `'` as `'\''`).
pub fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+@%".contains(&b));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// A command line from its argv.
pub fn join<S: AsRef<str>>(argv: &[S]) -> String {
    argv.iter()
        .map(|a| quote(a.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_each_argument_whole() {
        assert_eq!(quote("DATA"), "DATA");
        assert_eq!(quote("/dev/sdX1"), "/dev/sdX1");
        assert_eq!(quote("x; rm -rf ~"), "'x; rm -rf ~'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(join(&["mkfs.ext4", "-L", "$(id)"]), "mkfs.ext4 -L '$(id)'");
    }
}
