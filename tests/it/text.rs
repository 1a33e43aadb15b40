//! What a user reads: plurals, no empty headings, counts that add
//! up, nonsense refused with one line, an empty folder said to be empty.

use crate::common;

use common::{fsfit, write_file};

fn run(args: &[&str]) -> (String, String, Option<i32>) {
    let out = fsfit().args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Every heading (an unindented line ending in ':') has something under it.
fn no_empty_headings(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    // The first line is the title, then a blank line.
    for (i, l) in lines.iter().enumerate().skip(1) {
        if !l.starts_with(' ') && l.ends_with(':') {
            let next = lines.get(i + 1).copied().unwrap_or("");
            assert!(
                next.starts_with("  ") && !next.trim().is_empty(),
                "empty heading {l:?} in\n{text}"
            );
        }
    }
}

/// No "N files" in the text claims more files than the tree holds.
#[cfg(target_os = "linux")]
fn counts_add_up(text: &str, files: u64) {
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in words.windows(2) {
        if w[1].starts_with("files") {
            if let Ok(n) = w[0].replace(',', "").parse::<u64>() {
                assert!(n <= files, "{n} files of {files} in\n{text}");
            }
        }
    }
}

#[test]
fn one_file_is_one_file() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("only/one.txt"), 5000);
    let tree = t.path().to_str().unwrap();
    let (out, _, code) = run(&["usage", tree, "--fs", "exfat", "--volume", "8G"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("1 file, 1 folder, 0 symlinks"), "{out}");
    let (out, _, code) = run(&[
        "advise",
        "-q",
        tree,
        "--for",
        "windows,macos",
        "--volume",
        "8G",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("For 1 file (") && out.contains("your 1 file (") && out.contains("takes"),
        "{out}"
    );
    assert!(
        !out.contains("1 files") && !out.contains("1 names"),
        "{out}"
    );
    no_empty_headings(&out);
}

/// A tree of 30 files with clashing, forbidden and Unicode names, and
/// symlinks: every heading has lines, and no count of files exceeds 30.
#[test]
#[cfg(target_os = "linux")]
fn headings_and_counts_on_a_messy_tree() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    for i in 0..10 {
        write_file(&d.join(format!("a/Name{i}.txt")), 100);
        write_file(&d.join(format!("a/name{i}.TXT")), 100);
        write_file(&d.join(format!("b/what?{i}:x|.txt")), 100);
    }
    for i in 0..5 {
        std::os::unix::fs::symlink("../a/Name0.txt", d.join(format!("b/link{i}"))).unwrap();
    }
    let tree = d.to_str().unwrap();
    for args in [
        vec![
            "advise",
            "-q",
            tree,
            "--for",
            "windows,macos",
            "--volume",
            "8G",
        ],
        vec!["advise", "-q", tree, "--for", "linux", "--volume", "8G"],
        vec!["advise", "-q", tree, "--volume", "8G"],
        vec!["usage", "-q", tree, "--volume", "8G"],
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        no_empty_headings(&out);
        counts_add_up(&out, 30);
    }
    let (out, _, _) = run(&[
        "advise",
        "-q",
        tree,
        "--for",
        "windows,macos",
        "--volume",
        "8G",
    ]);
    assert!(
        out.contains("findings (a name or file can have more than one)"),
        "{out}"
    );
}

#[test]
fn nonsense_is_refused_with_one_line() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 5000);
    let tree = t.path().to_str().unwrap();
    for (args, says) in [
        (
            vec!["advise", tree, "--volume", "64G", "--fill", "10T"],
            "more than the",
        ),
        (vec!["advise", tree, "--fill", "0"], "--fill 0"),
        (vec!["advise", tree, "--budget", "5m"], "--budget"),
        (vec!["usage", tree, "--format", "find"], "--manifest"),
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
    }
}

#[test]
fn an_empty_folder_says_so() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().to_str().unwrap();
    let (out, _, code) = run(&["usage", tree, "--fs", "exfat", "--volume", "8G"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("the tree is empty"), "{out}");
    let (out, err, code) = run(&["advise", "-q", tree, "--volume", "8G"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(err.contains("no files to advise on"), "{err}");
    assert!(!out.contains("0 B wasted"), "{out}");
}

/// A petabyte is not "too small for FAT32".
#[test]
fn a_petabyte_is_not_too_small() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 5000);
    let (out, _, _) = run(&["usage", t.path().to_str().unwrap(), "--volume", "1P"]);
    assert!(!out.contains("too small for FAT32"), "{out}");
    assert!(out.contains("FAT32 addresses at most 2 TiB"), "{out}");
}
