//! Volume labels checked against the filesystem's rule before anything is
//! written, with a one-line error naming the rule. A label reaches mkfs as
//! one argv element, never through a shell.

use crate::fs::{Filesystem, LabelRule};
use crate::{Error, Result};

/// mkfs.fat's `--codepage` default: labels are stored in cp850.
const FAT_CODEPAGE: u16 = 850;

/// The label as the filesystem will store it (FAT: upper-cased), or why it
/// cannot be.
pub fn check(fs: &dyn Filesystem, label: &str) -> Result<String> {
    if label.is_empty() {
        return Err(Error::input(
            "--label '': an empty label; leave --label out for a volume without one",
        ));
    }
    stored(fs, label).map_err(|why| {
        Error::input(format!(
            "--label {}: {} {why}",
            shown(label),
            fs.info().title
        ))
    })
}

/// The label echoed in a refusal: as it would be typed again, POSIX-quoted,
/// so pasting it runs nothing (Debug's double quotes would let `$(...)`
/// run); a control character escaped (`\n`), so the refusal stays one line.
pub fn shown(label: &str) -> String {
    if label.chars().any(char::is_control) {
        crate::quote::quote(&label.escape_debug().to_string())
    } else {
        crate::quote::quote(label)
    }
}

/// The rule a label breaks, as data: [`Broken::rule`] says it in full,
/// [`Broken::brief`] in the fewest words, for a refusal that names several
/// filesystems on one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Broken {
    Control(char),
    Forbidden {
        found: char,
        all: &'static str,
    },
    Codepage(char),
    TooLong {
        max: usize,
        unit: &'static str,
        is: usize,
    },
}

impl Broken {
    /// In words that follow the filesystem's title ("labels may not hold
    /// '/' ...").
    pub fn rule(&self) -> String {
        match self {
            Broken::Control(c) => format!(
                "labels may not hold control characters (found U+{:04X})",
                *c as u32
            ),
            Broken::Forbidden { found, all } => {
                format!("labels may not hold {found:?} (refused: {all})")
            }
            // mkfs.fat 4.2 converts the label to code page 850 and then
            // refuses every byte from 0x80 up as "below 0x20" (a signed
            // char): in practice ASCII only.
            Broken::Codepage(c) => format!(
                "labels are stored in code page {FAT_CODEPAGE}, and mkfs.fat 4.2 takes only its ASCII half (not {c:?})"
            ),
            Broken::TooLong { max, unit, is } => format!("labels hold at most {max} {unit}, not {is}"),
        }
    }

    /// The same in a few words after a title and a colon ("at most 11
    /// bytes").
    pub fn brief(&self) -> String {
        match self {
            Broken::Control(_) => "no control characters".to_string(),
            Broken::Forbidden { found, .. } => format!("no {found:?}"),
            Broken::Codepage(_) => "ASCII only".to_string(),
            Broken::TooLong { max, unit, .. } => format!("at most {max} {unit}"),
        }
    }
}

/// A non-empty label as `fs` stores it, or the rule it breaks: what
/// [`check`] says, and what advise groups by rule over several filesystems.
pub fn stored(fs: &dyn Filesystem, label: &str) -> std::result::Result<String, String> {
    broken(fs, label).map_err(|b| b.rule())
}

/// [`stored`], with the rule as data.
pub fn broken(fs: &dyn Filesystem, label: &str) -> std::result::Result<String, Broken> {
    let rule = fs.label_rule();
    if let Some(c) = label.chars().find(|c| c.is_control()) {
        return Err(Broken::Control(c));
    }
    let stored = if rule.upper {
        label.to_uppercase()
    } else {
        label.to_string()
    };
    if let Some(c) = stored.chars().find(|c| rule.forbidden.contains(*c)) {
        return Err(Broken::Forbidden {
            found: c,
            all: rule.forbidden,
        });
    }
    if rule.codepage {
        if let Some(c) = stored.chars().find(|c| !c.is_ascii()) {
            return Err(Broken::Codepage(c));
        }
    }
    check_length(&rule, &stored)?;
    Ok(stored)
}

fn check_length(rule: &LabelRule, stored: &str) -> std::result::Result<(), Broken> {
    // In the code page every character is one byte.
    let bytes = if rule.codepage {
        stored.chars().count()
    } else {
        stored.len()
    };
    if let Some(max) = rule.max_bytes.filter(|&m| bytes > m) {
        return Err(Broken::TooLong {
            max,
            unit: "bytes",
            is: bytes,
        });
    }
    let units = stored.encode_utf16().count();
    if let Some(max) = rule.max_utf16.filter(|&m| units > m) {
        return Err(Broken::TooLong {
            max,
            unit: "UTF-16 units",
            is: units,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::by_name;

    fn fs(n: &str) -> &'static dyn Filesystem {
        by_name(n).unwrap()
    }

    /// Pasted back, the echoed label runs nothing: POSIX single quotes,
    /// where Debug's double quotes would run `$(...)`; and it is bad input.
    #[test]
    fn a_refused_label_is_echoed_in_posix_quotes() {
        let e = check(fs("exfat"), "$(touch /tmp/p2)").unwrap_err();
        assert!(
            e.to_string().starts_with("--label '$(touch /tmp/p2)': "),
            "{e}"
        );
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_label_with_a_newline_is_refused_on_one_line() {
        let e = check(fs("ext4"), "A\nB").unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("U+000A"), "{e}");
    }

    #[test]
    fn fat_labels_are_upper_cased_and_checked() {
        assert_eq!(check(fs("fat32"), "Photos").unwrap(), "PHOTOS");
        assert!(check(fs("fat32"), "café")
            .unwrap_err()
            .to_string()
            .contains("ASCII"));
        let e = check(fs("fat32"), "x; rm -rf ~").unwrap_err().to_string();
        assert!(e.contains("may not hold ';'"), "{e}");
        let e = check(fs("fat32"), "My Holiday Photos")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 11 bytes"), "{e}");
        let e = check(fs("fat16"), "日本").unwrap_err().to_string();
        assert!(e.contains("code page 850"), "{e}");
        assert_eq!(check(fs("fat12"), "a-b_c!").unwrap(), "A-B_C!");
    }

    #[test]
    fn each_filesystem_counts_its_own_way() {
        assert!(check(fs("exfat"), "ÄÄÄÄÄÄÄÄÄÄÄ").is_ok());
        assert!(check(fs("exfat"), "ÄÄÄÄÄÄÄÄÄÄÄÄ").is_err());
        // 6 characters, 12 bytes: too long for XFS's 12 bytes? No, exactly 12.
        assert!(check(fs("xfs"), "ÄÄÄÄÄÄ").is_ok());
        assert!(check(fs("xfs"), "ÄÄÄÄÄÄx").is_err());
        assert!(check(fs("ext4"), "$(id)").is_ok());
        assert!(check(fs("ext4"), "a\nb")
            .unwrap_err()
            .to_string()
            .contains("control"));
        assert!(check(fs("btrfs"), &"x".repeat(255)).is_err());
        assert!(check(fs("ext4"), "").is_err());
    }
}
