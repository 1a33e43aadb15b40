//! `fsfit completions SHELL` and `fsfit man`, generated from the clap
//! definitions: each script is loaded by its real shell and asked to
//! complete, the man page is typeset by groff without a warning.

use crate::common::fsfit;
#[cfg(target_os = "linux")]
use {crate::common::have, std::process::Command};

#[cfg(target_os = "linux")]
const SUBCOMMANDS: [&str; 7] = [
    "usage", "bench", "cleanup", "advise", "info", "report", "crash",
];

fn generated(args: &[&str]) -> String {
    let out = fsfit().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "fsfit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Run `shell -c script` with the completion script in a file beside it.
#[cfg(target_os = "linux")]
fn in_shell(shell: &str, completions: &str, script: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fsfit.completion");
    std::fs::write(&file, completions).unwrap();
    let script = script.replace("FILE", file.to_str().unwrap());
    let out = Command::new(shell).args(["-c", &script]).output().unwrap();
    assert!(
        out.status.success(),
        "{shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[cfg(target_os = "linux")]
#[test]
fn bash_completes_subcommands_and_flags() {
    if !have(&["bash"]) {
        return;
    }
    let script = generated(&["completions", "bash"]);
    let words = in_shell(
        "bash",
        &script,
        // As bash calls it: _fsfit COMMAND WORD PREVIOUS-WORD.
        "source FILE; COMP_WORDS=(fsfit ''); COMP_CWORD=1; _fsfit fsfit '' fsfit; \
         echo \"${COMPREPLY[@]}\"; COMP_WORDS=(fsfit usage --vo); COMP_CWORD=2; \
         _fsfit fsfit --vo usage; echo \"${COMPREPLY[@]}\"",
    );
    let mut lines = words.lines();
    let first = lines.next().unwrap_or_default();
    for s in SUBCOMMANDS.iter().chain(&["completions", "man"]) {
        assert!(
            first.split(' ').any(|w| w == *s),
            "{s} not offered: {first}"
        );
    }
    assert_eq!(lines.next(), Some("--volume"), "{words}");
}

#[cfg(target_os = "linux")]
#[test]
fn fish_completes_subcommands() {
    if !have(&["fish"]) {
        return;
    }
    let script = generated(&["completions", "fish"]);
    let out = in_shell("fish", &script, "source FILE; complete -C 'fsfit '");
    for s in SUBCOMMANDS {
        assert!(
            out.lines().any(|l| l.split('\t').next() == Some(s)),
            "{s} not offered: {out}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn zsh_script_parses_and_names_every_subcommand() {
    if !have(&["zsh"]) {
        return;
    }
    let script = generated(&["completions", "zsh"]);
    assert!(script.starts_with("#compdef fsfit"), "{script:.40}");
    in_shell("zsh", &script, "zsh -n FILE");
    for s in SUBCOMMANDS {
        assert!(script.contains(&format!("'{s}:")), "{s} missing");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn man_page_typesets_without_warnings() {
    if !have(&["groff"]) {
        return;
    }
    let page = generated(&["man"]);
    assert!(page.contains(".TH fsfit 1"), "{page:.200}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fsfit.1");
    std::fs::write(&file, &page).unwrap();
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "groff warnings: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for s in SUBCOMMANDS {
        assert!(text.contains(s), "{s} missing from the man page");
    }
}

#[test]
fn unknown_shell_is_bad_arguments() {
    let out = fsfit().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// One man page per subcommand, each typeset without a warning, and
/// every fsfit-X(1) the main page names exists.
#[cfg(target_os = "linux")]
#[test]
fn a_man_page_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let out = fsfit()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for s in SUBCOMMANDS {
        let page = std::fs::read_to_string(dir.path().join(format!("fsfit-{s}.1")))
            .unwrap_or_else(|e| panic!("fsfit-{s}.1: {e}"));
        assert!(page.contains(&format!(".TH fsfit-{s} 1")), "{page:.200}");
        assert_eq!(page, generated(&["man", s]), "fsfit man {s}");
    }
    let main = std::fs::read_to_string(dir.path().join("fsfit.1")).unwrap();
    for (i, _) in main.match_indices("fsfit\\-") {
        let name: String = main[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        if !name.is_empty() {
            assert!(
                dir.path().join(format!("fsfit-{name}.1")).exists(),
                "fsfit-{name}(1) named but missing"
            );
        }
    }
    let out = fsfit().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    if !have(&["groff"]) {
        return;
    }
    for s in SUBCOMMANDS {
        let out = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .arg(dir.path().join(format!("fsfit-{s}.1")))
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{s}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The top-level help leads with advise and usage, then info and bench.
#[test]
fn the_help_leads_with_advise_and_usage() {
    let help = generated(&["--help"]);
    let commands = help.split("Commands:").nth(1).unwrap();
    let order: Vec<&str> = commands
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        .take(4)
        .collect();
    assert_eq!(order, ["advise", "usage", "info", "bench"], "{help}");
    let examples = help.split("Usage:").next().unwrap();
    assert!(
        examples.find("fsfit advise").unwrap() < examples.find("fsfit usage").unwrap(),
        "{help}"
    );
}

/// Every subcommand's name, from `fsfit --help`.
fn every_subcommand() -> Vec<String> {
    let help = generated(&["--help"]);
    let commands = help.split("Commands:").nth(1).unwrap();
    commands
        .lines()
        .filter_map(|l| l.strip_prefix("  ").filter(|r| !r.starts_with(' ')))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()) && *w != "help")
        .map(String::from)
        .collect()
}

/// Each `--help` and man page: the top-level one first.
fn every_help_and_page() -> Vec<(String, String)> {
    let mut v = vec![
        ("--help".to_string(), generated(&["--help"])),
        ("man".to_string(), generated(&["man"])),
    ];
    for c in every_subcommand() {
        v.push((format!("{c} --help"), generated(&[&c, "--help"])));
        v.push((format!("man {c}"), generated(&["man", &c])));
    }
    v
}

/// An example pasted as it stands must not write to whatever drive has a
/// real name here (`dd of=/dev/loop7` once did): help names only
/// placeholders (`/dev/sdX`, `$DEV` set from what emulate printed).
#[test]
fn help_examples_name_no_real_device() {
    for (what, text) in every_help_and_page() {
        for (i, _) in text.match_indices("/dev/") {
            let name: String = text[i + 5..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            assert!(
                name.ends_with('X') || name.ends_with('N') || name == "zero",
                "{what}: names /dev/{name}, a device that may exist"
            );
        }
    }
}

/// Examples stay whole in an 80-column terminal, one per line: clap wraps
/// longer lines there, so `image` once stood alone on a line; and the man
/// pages keep them unfilled (.nf), not run together into a paragraph.
#[test]
fn help_examples_fit_80_columns_one_per_line() {
    let commands = every_subcommand();
    let example = |l: &str| {
        let mut words = l.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("#"), ..) => true,
            (Some("fsfit"), Some(c), _) | (Some("sudo"), Some("fsfit"), Some(c)) => {
                commands.iter().any(|k| k == c)
            }
            _ => false,
        }
    };
    for (what, text) in every_help_and_page() {
        for line in text.lines() {
            if !what.starts_with("man") && example(line) {
                assert!(line.chars().count() <= 80, "{what}: {line:?} is over 80");
            }
        }
        if what.starts_with("man") && text.contains("\nfsfit ") {
            assert!(text.contains("\n.nf\n"), "{what}: examples run together");
        }
    }
}

/// A newcomer reads what to give first (PATH, --for, --volume), then what
/// to measure with, then output, then tuning; the SYNOPSIS names values.
#[test]
fn advise_help_and_synopsis_in_a_newcomers_order() {
    let help = generated(&["advise", "--help"]);
    let at = |s: &str| help.find(s).unwrap_or_else(|| panic!("{s} missing"));
    assert!(at("--for") < at("--volume"));
    assert!(at("--volume") < at("Measure with:"));
    assert!(at("--device <DEV>") > at("Measure with:"));
    assert!(at("Measure with:") < at("Output:"));
    assert!(at("--json [<FILE>]") > at("Output:"));
    assert!(at("Output:") < at("Tuning:"));
    assert!(at("--threads") > at("Tuning:"));
    // The flags every command shares come last, not between the inputs
    // and "Measure with:".
    assert!(at("Every command:") > at("--threads"));
    assert!(at("--quiet") > at("Every command:") && at("--help") > at("Every command:"));
    // usage's synopsis starts with what to give, not with tuning.
    let usage = generated(&["man", "usage"]);
    let first = usage
        .split(
            ".SH SYNOPSIS
",
        )
        .nth(1)
        .unwrap();
    let first = first.lines().next().unwrap();
    assert!(
        first.find(r"\-\-fs\fR").unwrap() < first.find("threads").unwrap(),
        "{first}"
    );
    let page = generated(&["man", "advise"]);
    let synopsis = page.split(".SH SYNOPSIS\n").nth(1).unwrap();
    let synopsis = synopsis.lines().next().unwrap();
    assert!(
        synopsis.contains(r"[\fB\-\-device\fR \fI<DEV>\fR]"),
        "{synopsis}"
    );
    assert!(
        synopsis.contains(r"[\fB\-\-json\fR [\fI<FILE>\fR]]"),
        "{synopsis}"
    );
}
