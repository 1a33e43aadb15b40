//! Every command checks where it will write (--json, --report, -o) before
//! it works, exit 2, as bench does.

use crate::common;

use common::{fsfit, write_file};

#[test]
fn output_paths_are_checked_before_the_work() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("tree/a.txt"), 1000);
    let tree = t.path().join("tree");
    let tree = tree.to_str().unwrap();
    let usage = t.path().join("usage.json");
    let out = fsfit().args(["usage", tree, "--json"]).output().unwrap();
    std::fs::write(&usage, &out.stdout).unwrap();
    let usage = usage.to_str().unwrap();
    let folder = t.path().to_str().unwrap();
    let mut cases = vec![
        vec!["usage", tree, "--report", "/nonexistent/x.html"],
        vec!["usage", tree, "--report", folder],
        vec!["advise", tree, "--json", "/nonexistent/x"],
        vec!["report", usage, "-o", "/nonexistent/x"],
        vec!["report", usage, "-o", folder],
    ];
    // crash and bench run on Linux only.
    if cfg!(target_os = "linux") {
        cases.push(vec!["crash", "--fs", "ext4", "--json", "/nonexistent/x"]);
        cases.push(vec!["bench", "--quick", "--json", "/nonexistent/x"]);
    }
    for args in cases {
        let out = fsfit().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("does not exist") || err.contains("is a folder"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: worked first");
    }
}

#[cfg(target_os = "linux")]
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    fsfit().current_dir(dir).args(args).output().unwrap()
}

#[cfg(target_os = "linux")]
fn is_json(out: &[u8], schema: &str) -> bool {
    serde_json::from_slice::<serde_json::Value>(out)
        .is_ok_and(|v| v["schema"] == schema || v.is_array())
}

/// `--json [FILE]` the same on every command: no value or `-` prints the
/// JSON, a FILE is written (and the text printed), a missing folder is
/// refused before the work, and nothing named `-` is ever left behind.
// It makes its image with mkfs.vfat, a Linux tool.
#[cfg(target_os = "linux")]
#[test]
fn json_takes_an_optional_file_on_every_command() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_file(&d.join("photos/a.jpg"), 5000);
    let img = d.join("card.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    crate::common::run("mkfs.vfat", &[img.to_str().unwrap()]);
    let cases: [(&[&str], &str); 7] = [
        (&["usage", "photos", "--fs", "exfat"], "fsfit.usage/1"),
        (&["advise", "photos"], "fsfit.advise/1"),
        (&["info", "card.img"], "fsfit.info/1"),
        (
            &[
                "format",
                "x.img",
                "--size",
                "64G",
                "--fs",
                "exfat",
                "--dry-run",
            ],
            "fsfit.format/1",
        ),
        (&["bench", "--list-profiles"], ""),
        (&["bench", "--list"], ""),
        (&["usage", "photos", "--fs", "exfat", "--csv"], ""),
    ];
    for (args, schema) in cases {
        let doc = if args.contains(&"--csv") {
            "--csv"
        } else {
            "--json"
        };
        let argv: Vec<&str> = args.iter().copied().filter(|a| *a != "--csv").collect();
        for tail in [vec![doc], vec![doc, "-"]] {
            let all = [argv.clone(), tail.clone()].concat();
            let out = run_in(d, &all);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{all:?}: {err}");
            if doc == "--json" {
                assert!(is_json(&out.stdout, schema), "{all:?}: not JSON on stdout");
            } else {
                assert!(out.stdout.starts_with(b"fs,cluster_bytes"), "{all:?}");
            }
            assert!(!d.join("-").exists(), "{all:?} wrote a file named -");
        }
        let file = d.join("out.doc");
        let all = [argv.clone(), vec![doc, "out.doc"]].concat();
        // Twice: what fsfit wrote is replaced, not refused as a file of
        // the user's.
        for _ in 0..2 {
            let out = run_in(d, &all);
            assert_eq!(out.status.code(), Some(0), "{all:?}");
        }
        let out = run_in(d, &all);
        let written = std::fs::read(&file).unwrap();
        if doc == "--json" {
            assert!(
                is_json(&written, schema),
                "{all:?}: the FILE is not the JSON"
            );
            assert!(!is_json(&out.stdout, schema), "{all:?}: JSON on stdout too");
        }
        std::fs::remove_file(&file).unwrap();
        let all = [argv.clone(), vec![doc, "/nonexistent/x.json"]].concat();
        let out = run_in(d, &all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    }
    assert!(!d.join("x.img").exists(), "a dry run made its image");
}

/// The old flag spellings keep working, with a note on stderr: `usage
/// --json DIR` walks DIR and prints JSON (as `usage DIR --json` does),
/// `info --json TARGET` reads TARGET.
// It makes its image with mkfs.vfat, a Linux tool.
#[cfg(target_os = "linux")]
#[test]
fn old_json_flag_spellings_still_work_with_a_note() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_file(&d.join("photos/a.jpg"), 5000);
    let img = d.join("card.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    crate::common::run("mkfs.vfat", &[img.to_str().unwrap()]);
    let new = run_in(d, &["usage", "photos", "--fs", "exfat", "--json"]);
    let old = run_in(d, &["usage", "--json", "photos", "--fs", "exfat"]);
    let tree = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["tree"]["files"].clone()
    };
    assert_eq!(tree(&new), 1);
    assert_eq!(tree(&old), tree(&new), "--json DIR walked something else");
    let note = String::from_utf8_lossy(&old.stderr);
    assert!(note.contains("old spelling"), "{note}");
    assert!(note.lines().all(|l| l.chars().count() <= 100), "{note}");
    assert!(!String::from_utf8_lossy(&new.stderr).contains("old spelling"));
    let out = run_in(d, &["info", "--json", "card.img"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(is_json(&out.stdout, "fsfit.info/1"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("old spelling"));
}

/// Every line of both streams of `args` run in `d`, with COLUMNS unset
/// and neither stream a terminal, fits 100 columns (characters, not
/// bytes); returns stdout for more checks.
#[cfg(target_os = "linux")]
fn fits_100(d: &std::path::Path, args: &[&str]) -> String {
    let out = fsfit()
        .current_dir(d)
        .env_remove("COLUMNS")
        .args(args)
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    for (stream, all) in [("stdout", &text), ("stderr", &err)] {
        for line in all.split(['\n', '\r']) {
            // Display columns: a CJK character takes two.
            let n = unicode_width::UnicodeWidthStr::width(line);
            assert!(n <= 100, "{args:?} {stream}: {n} columns: {line}");
        }
    }
    text.into_owned()
}

/// Every command's output on a fixed input, stdout and stderr, and every
/// help text fits 100 columns (the width when stdout is not a terminal):
/// advise once printed lines of 399 characters, usage's assumed-volume
/// line 170, `bench --list-profiles` 41 lines over 100, format's sfdisk
/// step 132, crash's table 140.
// It makes its image with mkfs.vfat, a Linux tool.
#[cfg(target_os = "linux")]
#[test]
fn every_commands_text_fits_100_columns() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write_file(&d.join("photos/a.jpg"), 5000);
    write_file(&d.join("photos/raw/b.cr2"), 3 << 20);
    write_file(
        &d.join("photos/a folder with a rather long name/and a file name that goes on.jpg"),
        70_000,
    );
    // A sparse file apart: advise would copy it whole onto each candidate.
    std::fs::create_dir(d.join("backup")).unwrap();
    std::fs::File::create(d.join("backup/disk.img"))
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let img = d.join("card.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    crate::common::run("mkfs.vfat", &[img.to_str().unwrap()]);
    // Names no line can wrap: deep folders of long names, a CJK name, a
    // name Windows refuses (listed as an example), an image far down.
    let mut deep = d.join("deep");
    for i in 0..8 {
        deep = deep.join(format!("folder_number_{i}_with_a_rather_long_name_indeed"));
    }
    write_file(
        &deep.join("写真_日本語のとても長いファイル名_写真_日本語の長い名前:1.jpg"),
        100,
    );
    write_file(&deep.join(format!("{}.txt", "n".repeat(150))), 100);
    let far = deep.join("card.img");
    std::fs::copy(&img, &far).unwrap();
    let far = far.to_str().unwrap().to_string();
    let runs: [&[&str]; 21] = [
        &["advise", "photos", "--for", "camera", "--volume", "64GB"],
        &[
            "advise",
            "photos",
            "--for",
            "car",
            "--synthetic",
            "--verbose",
        ],
        &[
            "advise",
            "backup",
            "--for",
            "linux",
            "--volume",
            "1TB",
            "--synthetic",
        ],
        &["usage", "backup", "--fs", "fat32", "--fs", "ext4"],
        &[
            "advise",
            "photos",
            "--for",
            "windows,macos",
            "--label",
            "My Photos",
        ],
        &["advise", "photos", "--for", "linux", "--volume", "1TB"],
        &["usage", "photos"],
        &["usage", "photos", "--volume", "64GB"],
        &["usage", "photos", "--matrix"],
        &["usage", "photos", "--json", "u.json"],
        &["report", "u.json", "-o", "u.html"],
        &["bench", "--list-profiles"],
        &["bench", "--list-profiles", "--sources"],
        &["bench", "--list"],
        &["info", "card.img"],
        &["probe", "card.img"],
        &["format", "x.img", "--size", "64G", "--sd", "--dry-run"],
        &["usage", "deep"],
        &["usage", "deep", "--top", "3", "--fs", "exfat:128K"],
        &["info", &far],
        &["man", "--dir", "."],
    ];
    for args in runs {
        let text = fits_100(d, args);
        assert!(
            text.lines().count() > 1 || args[0] == "report",
            "{args:?}: {text}"
        );
    }
    every_help_fits_100_columns(d);
    // What needs root: bench on a tiny image, a real format, crash.
    if !common::can_mount() {
        return;
    }
    let bench = [
        "bench",
        "--image",
        "b.img",
        "--size",
        "512M",
        "--fs",
        "ext4",
        "--workloads",
        "five-write,five-read",
        "--repeat",
        "1",
    ];
    assert!(fits_100(d, &bench).contains("five-write"));
    let format = ["format", "f.img", "--size", "64M", "--fs", "fat32"];
    assert!(fits_100(d, &[&format[..], &["--label", "a b"]].concat()).contains("Verification"));
    if common::can_fuse() {
        let crash = ["crash", "--fs", "ext4", "--quick", "--workloads", "save"];
        let text = fits_100(d, &[&crash[..], &["--run-dir", "crun"]].concat());
        assert!(text.contains("save"), "{text}");
    }
}

/// `fsfit -h`, `--help`, and both for every subcommand (emulate's help
/// once showed a dd line 100 columns wide, besides naming a fixed device).
#[cfg(target_os = "linux")]
fn every_help_fits_100_columns(d: &std::path::Path) {
    use clap::CommandFactory;
    let cli = ::fsfit::cli::Cli::command();
    let mut runs = vec![vec!["-h".to_string()], vec!["--help".to_string()]];
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name().to_string();
        if name == "help" {
            continue;
        }
        runs.push(vec![name.clone(), "-h".into()]);
        runs.push(vec![name, "--help".into()]);
    }
    assert!(runs.len() > 20, "{runs:?}");
    for args in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(fits_100(d, &args).lines().count() > 3, "{args:?}");
    }
}

/// An output file that exists and is not fsfit's (a file of the user's
/// named by a slip, or by the old `usage --json PATH` spelling) is never
/// overwritten: refused before the work, exit 2, the file as it was; one
/// fsfit wrote is replaced as before. `usage --json FILE` with no PATH is
/// the old spelling: FILE is read.
#[test]
fn a_file_that_is_not_fsfits_output_is_never_overwritten() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("tree/a.txt"), 1000);
    let tree = t.path().join("tree");
    let tree = tree.to_str().unwrap();
    let precious = t.path().join("precious.txt");
    std::fs::write(&precious, "my notes\n").unwrap();
    let p = precious.to_str().unwrap();
    for args in [
        vec!["usage", tree, "--json", p],
        vec!["usage", tree, "--csv", p],
        vec!["usage", tree, "--report", p],
        vec!["advise", tree, "--json", p],
        vec!["info", tree, "--json", p],
    ] {
        let out = fsfit().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is not fsfit's output"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "my notes\n");
    }
    // The old spelling reads the file as the tree, prints the JSON, and
    // leaves it as it was.
    let out = fsfit().args(["usage", "--json", p]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tree"]["files"], 1, "{v}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("old spelling"));
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "my notes\n");
    // fsfit's own output is replaced.
    let json = t.path().join("u.json");
    let j = json.to_str().unwrap();
    for _ in 0..2 {
        let out = fsfit().args(["usage", tree, "--json", j]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let csv = t.path().join("u.csv");
    let c = csv.to_str().unwrap();
    for _ in 0..2 {
        let out = fsfit().args(["usage", tree, "--csv", c]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
