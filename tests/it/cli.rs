//! `fsfit usage` as a user meets it: the JSON contract, the tree counts, the
//! other output formats, and bad input.

use crate::common;

use common::{fsfit, usage_json, write_file};
use std::path::Path;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn missing_path_is_one_line_and_exit_2() {
    let out = fsfit()
        .args(["usage", "/no/such/path/here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("/no/such/path/here"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Every kind of bad argument clap finds is one line too, with where the
/// help is: an unknown option or command, a missing argument, two that
/// conflict, a value that looks like an option.
#[test]
fn every_bad_argument_is_one_line_with_where_the_help_is() {
    for (args, help) in [
        (
            &["advise", ".", "--max-overhead", "-5"][..],
            "fsfit advise --help",
        ),
        (&["bogus"][..], "fsfit --help"),
        (&["format"][..], "fsfit format --help"),
        (&["usage", "--bogus"][..], "fsfit usage --help"),
        (
            &["usage", ".", "--matrix", "--json"][..],
            "fsfit usage --help",
        ),
    ] {
        let out = fsfit().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("fsfit: ") && err.contains(help),
            "{args:?}: {err}"
        );
    }
    let out = fsfit().args(["format"]).output().unwrap();
    assert!(
        stderr_of(&out).contains("<TARGET>"),
        "what is missing is named"
    );
    // Help and the version still print in full, exit 0.
    for args in [&["--help"][..], &["advise", "-h"], &["--version"]] {
        let out = fsfit().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn unknown_filesystem_names_the_choices() {
    let out = fsfit()
        .args(["usage", "--fs", "hfs+", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    // As many names as fit the line, then how many more and where.
    let all = [
        "fat12", "fat16", "fat32", "exfat", "ntfs", "ext4", "udf", "btrfs", "xfs", "f2fs",
    ];
    let list = err
        .split("(choose from ")
        .nth(1)
        .and_then(|l| l.split(')').next())
        .unwrap_or_else(|| panic!("no choices in: {err}"));
    let named: Vec<&str> = list.split(", ").filter(|n| all.contains(n)).collect();
    let more = all.len() - named.len();
    assert_eq!(named, all[..named.len()], "{err}");
    if more > 0 {
        assert!(
            list.ends_with(&format!("… {more} more in fsfit usage --help")),
            "{err}"
        );
    }
}

#[test]
fn impossible_cluster_sizes_are_refused() {
    for bad in [
        "exfat:3K",
        "exfat:64M",
        "exfat:256",
        "fat32:128K",
        "ntfs:12345",
        "exfat:4Q",
    ] {
        let out = fsfit().args(["usage", "--fs", bad, "."]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad} should exit 2");
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = fsfit()
        .args(["usage", "--volume", "ten", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn json_follows_the_contract() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 1000);
    write_file(&t.path().join("sub/b.bin"), 70_000);
    let v = usage_json(&["--volume", "8G", t.path().to_str().unwrap()]);
    assert_eq!(v["schema"], "fsfit.usage/1");
    assert_eq!(v["volume_bytes"], 8u64 << 30);
    for k in [
        "files",
        "dirs",
        "symlinks",
        "other",
        "apparent_bytes",
        "errors",
    ] {
        assert!(v["tree"][k].is_u64(), "tree.{k} in {}", v["tree"]);
    }
    assert_eq!(v["tree"]["files"], 2);
    assert_eq!(v["tree"]["dirs"], 1);
    assert_eq!(v["tree"]["apparent_bytes"], 71_000);
    let configs = v["configs"].as_array().unwrap();
    // Every filesystem appears with no --fs, exFAT with its whole sweep.
    for fs in [
        "fat32", "exfat", "ntfs", "ext4", "udf", "btrfs", "xfs", "f2fs",
    ] {
        assert!(configs.iter().any(|c| c["fs"] == fs), "{fs} missing");
    }
    let exfat: Vec<u64> = configs
        .iter()
        .filter(|c| c["fs"] == "exfat")
        .map(|c| c["cluster_bytes"].as_u64().unwrap())
        .collect();
    assert!(
        exfat.contains(&512) && exfat.contains(&(32 << 20)),
        "{exfat:?}"
    );
    for c in configs {
        for k in [
            "free_bytes",
            "tree_bytes",
            "data_bytes",
            "slack_bytes",
            "metadata_bytes",
        ] {
            assert!(c[k].is_u64(), "{k} in {c}");
        }
        assert!(c["overhead_pct"].is_f64(), "{c}");
        assert!(c["fits"].is_boolean() && c["exact"].is_boolean());
        for k in [
            "too_large",
            "bad_name",
            "case_collision",
            "name_too_long",
            "path_too_long",
            "unsupported_type",
        ] {
            assert!(c["problems"][k].is_u64(), "problems.{k} in {c}");
        }
        let (tree, data, slack, meta) = (
            c["tree_bytes"].as_u64().unwrap(),
            c["data_bytes"].as_u64().unwrap(),
            c["slack_bytes"].as_u64().unwrap(),
            c["metadata_bytes"].as_u64().unwrap(),
        );
        assert_eq!(tree, data + meta, "{c}");
        assert!(slack <= data, "{c}");
        let pct = c["overhead_pct"].as_f64().unwrap();
        let want = tree as f64 / 71_000.0 * 100.0 - 100.0;
        assert!((pct - want).abs() < 0.01, "overhead {pct} vs {want}");
    }
}

#[test]
#[cfg(target_os = "linux")]
fn tree_counts_links_specials_and_odd_names() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    write_file(&r.join("f1"), 10);
    std::fs::hard_link(r.join("f1"), r.join("f1-again")).unwrap();
    std::os::unix::fs::symlink("f1", r.join("link")).unwrap();
    std::os::unix::fs::symlink("loop2", r.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", r.join("loop2")).unwrap();
    std::os::unix::fs::symlink(".", r.join("self")).unwrap();
    let fifo = std::ffi::CString::new(r.join("pipe").as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let bad =
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"latin1-\xe9t\xe9.txt");
    write_file(&r.join(bad), 7);
    write_file(&r.join("new\nline"), 3);
    write_file(&r.join("Case.txt"), 1);
    write_file(&r.join("CASE.TXT"), 1);
    write_file(&r.join("what?.txt"), 1);

    let out = fsfit()
        .args(["usage", "--json", "--fs", "exfat", "--fs", "ext4"])
        .arg(r)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("not valid UTF-8"), "{err}");
    assert!(err.contains("newline"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tree = &v["tree"];
    // A hard-linked file is copied twice by cp -r: two files.
    assert_eq!(tree["files"], 7, "{tree}");
    assert_eq!(
        tree["apparent_bytes"],
        10 + 10 + 7 + 3 + 1 + 1 + 1,
        "{tree}"
    );
    assert_eq!(tree["symlinks"], 4, "{tree}");
    assert_eq!(tree["other"], 1, "{tree}");
    assert_eq!(tree["errors"], 0, "{tree}");
    let exfat = common::config(
        &v,
        "exfat",
        v["configs"][0]["cluster_bytes"].as_u64().unwrap(),
    );
    let p = &exfat["problems"];
    assert_eq!(p["unsupported_type"], 5, "{p}");
    assert_eq!(p["case_collision"], 1, "{p}");
    // the Latin-1 name, the newline and the question mark
    assert_eq!(p["bad_name"], 3, "{p}");
    let ext4 = v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "ext4")
        .unwrap();
    assert_eq!(ext4["problems"]["bad_name"], 0);
    assert_eq!(ext4["problems"]["unsupported_type"], 0);
}

#[test]
#[cfg(target_os = "linux")]
fn symlink_loop_on_the_command_line_is_a_clean_error() {
    let t = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("b", t.path().join("a")).unwrap();
    std::os::unix::fs::symlink("a", t.path().join("b")).unwrap();
    let out = fsfit()
        .arg("usage")
        .arg(t.path().join("a"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr_of(&out).lines().count(), 1, "{}", stderr_of(&out));
}

#[test]
#[cfg(target_os = "linux")]
fn unreadable_directories_are_counted_and_the_walk_goes_on() {
    if !fsfit::device::is_root() {
        common::skip("root to run fsfit as another user (root reads every directory)");
        return;
    }
    if !common::have(&["setpriv"]) {
        return;
    }
    let t = tempfile::Builder::new()
        .prefix("fsfit-perm-")
        .tempdir()
        .unwrap();
    let r = t.path();
    std::fs::set_permissions(r, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    write_file(&r.join("open/a"), 100);
    write_file(&r.join("closed/secret"), 100);
    write_file(&r.join("z"), 5);
    for d in ["open", "closed"] {
        std::fs::set_permissions(
            r.join(d),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }
    std::fs::set_permissions(
        r.join("closed"),
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_fsfit"))
        .args(["usage", "--json", "--quiet", "--fs", "exfat"])
        .arg(r)
        .output()
        .unwrap();
    std::fs::set_permissions(
        r.join("closed"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("closed") && err.contains("warning"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tree"]["errors"], 1);
    assert_eq!(v["tree"]["files"], 2);
    assert_eq!(v["tree"]["dirs"], 2);
}

#[test]
fn threads_do_not_change_the_answer() {
    let t = tempfile::tempdir().unwrap();
    common::mixed_tree(t.path(), 500);
    let p = t.path().to_str().unwrap();
    // Everything but the time of the run: which examples are kept and their
    // order must not depend on which walker thread met a file first (#8).
    let normal = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("date");
        v
    };
    let one = normal(usage_json(&["--threads", "1", p]));
    let many = normal(usage_json(&["--threads", "7", p]));
    assert_eq!(one, many);
    assert_eq!(one["tree"]["files"], 12 + 5 + 9 + 500 + 1 + 1);
}

#[test]
fn several_paths_and_a_single_file() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a/x"), 10);
    write_file(&t.path().join("b/y"), 20);
    write_file(&t.path().join("c"), 30);
    let a = t.path().join("a");
    let b = t.path().join("b");
    let c = t.path().join("c");
    let v = usage_json(&["--fs", "exfat", a.to_str().unwrap(), b.to_str().unwrap()]);
    // Two folders in the root, one file each.
    assert_eq!(v["tree"]["dirs"], 2);
    assert_eq!(v["tree"]["files"], 2);
    let v = usage_json(&["--fs", "exfat", c.to_str().unwrap()]);
    assert_eq!(v["tree"]["files"], 1);
    assert_eq!(v["tree"]["apparent_bytes"], 30);
}

#[test]
fn csv_and_table() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a"), 5000);
    let p = t.path().to_str().unwrap();
    let out = fsfit()
        .args(["usage", "--csv", "--fs", "exfat:4K,32K", "--fs", "ext4", p])
        .output()
        .unwrap();
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[0].starts_with("fs,cluster_bytes,"));
    assert!(lines[1].starts_with("exfat,4096,"));
    let cols = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == cols));

    let out = fsfit()
        .args(["usage", "--fs", "exfat:4K,1M", "--fs", "ext4", p])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("ON DISK") && text.contains("OVERHEAD"),
        "{text}"
    );
    // Sorted by size on disk: 4K before 1M.
    let k4 = text.find("4K").unwrap();
    let m1 = text.find("1M").unwrap();
    assert!(k4 < m1, "{text}");
}

#[test]
fn file_too_large_for_fat32_is_found_and_does_not_fit() {
    let t = tempfile::tempdir().unwrap();
    // A sparse 5 GiB file: apparent size is what counts.
    let f = std::fs::File::create(t.path().join("big.iso")).unwrap();
    f.set_len(5 << 30).unwrap();
    let v = usage_json(&["--fs", "fat32", "--fs", "exfat", t.path().to_str().unwrap()]);
    let fat = v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "fat32")
        .unwrap();
    assert_eq!(fat["problems"]["too_large"], 1);
    assert_eq!(fat["fits"], false);
    let ex = v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "exfat")
        .unwrap();
    assert_eq!(ex["problems"]["too_large"], 0);
    assert_eq!(ex["fits"], true);
    assert!(Path::new(&t.path().join("big.iso")).exists());
}

#[cfg(target_os = "linux")]
fn usage_text(args: &[&str]) -> String {
    let out = fsfit().arg("-q").arg("usage").args(args).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// A shortened list says how many it left out; a note about ext4's
/// root-reserved blocks appears only where ext4 is shown.
#[test]
#[cfg(target_os = "linux")]
fn shortened_lists_say_how_many_more_and_notes_follow_the_filesystems_shown() {
    let t = tempfile::tempdir().unwrap();
    let links = t.path().join("links");
    std::fs::create_dir(&links).unwrap();
    for i in 0..89 {
        std::os::unix::fs::symlink("/nonexistent", links.join(format!("l{i}"))).unwrap();
    }
    let links = links.to_str().unwrap();
    let text = usage_text(&[links, "--fs", "exfat"]);
    assert!(text.contains("… 79 more"), "{text}");
    assert!(
        !text.contains("mkfs.ext4"),
        "ext4's note without ext4: {text}"
    );
    let text = usage_text(&[links, "--fs", "exfat", "--fs", "ext4"]);
    assert!(text.contains("mkfs.ext4 -m 0"), "{text}");
}

/// A percentage that means nothing is "—" with the reason, in the table
/// and the matrix: a sparse file's holes make ext4's size on disk less than
/// the data; FAT32, leaving the 5 GiB file out, has 3 bytes to store. The
/// JSON keeps the numbers.
// Sparse files are seen on Linux (the Windows walk does not detect them).
#[cfg(target_os = "linux")]
#[test]
fn sparse_files_and_tiny_remainders_give_no_meaningless_percentages() {
    let t = tempfile::tempdir().unwrap();
    std::fs::File::create(t.path().join("big.img"))
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    std::fs::write(t.path().join("notes.txt"), "hi\n").unwrap();
    let tree = t.path().to_str().unwrap();
    let args = [tree, "--fs", "fat32", "--fs", "ext4", "--volume", "64GB"];
    let text = usage_text(&args);
    for fs in ["ext4", "fat32"] {
        let row = text.lines().find(|l| l.starts_with(fs)).unwrap();
        assert!(row.contains(" — ") && !row.contains('%'), "{row}");
    }
    assert!(text.contains("— under 64 KiB of data to store"), "{text}");
    assert!(text.contains("— less on disk than the data"), "{text}");
    let matrix = usage_text(&[&args[..], &["--matrix"]].concat());
    assert!(!matrix.contains('%'), "{matrix}");
    let v = usage_json(&args);
    assert!(v["configs"][0]["overhead_pct"].is_number());
    // Every view says the same: the JSON names why beside the number, the
    // CSV leaves the cell empty with a word for why, the HTML shows "—".
    for c in v["configs"].as_array().unwrap() {
        let note = c["overhead_note"].as_str().unwrap_or_default();
        assert!(note.contains("ON DISK is the figure"), "{c}");
    }
    let out = common::fsfit()
        .args(["usage", "--csv"])
        .args(args)
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let pct = head.iter().position(|h| *h == "overhead_pct").unwrap();
    let note = head.iter().position(|h| *h == "overhead_note").unwrap();
    let notes: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f[pct], "", "{l}");
            f[note]
        })
        .collect();
    assert!(notes.contains(&"sparse-holes") && notes.contains(&"too-little-data"));
    let json = t.path().join("u.json");
    let html = t.path().join("u.html");
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let page = common::report_html(&json, &html);
    assert!(page.contains(">—</span></td>"), "no — in the HTML table");
    assert!(page.contains("Overhead —: less on disk than the data"));
    for bad in ["-100.00 %", "-99", "1170185"] {
        assert!(!page.contains(bad), "{bad} in the HTML");
    }
    // The sparse file is its own line: its length, the data it holds, and
    // what each kind of copy writes.
    assert!(
        text.contains("sparse files: 1 (5.00 GiB long, 0 B of data in them)"),
        "{text}"
    );
    assert_eq!(v["tree"]["sparse_files"], 1, "{}", v["tree"]);
    assert_eq!(v["tree"]["sparse_apparent_bytes"], 5u64 << 30);
}

/// advise on a sparse file: no negative overhead, and data "like yours"
/// never more than the volume holds (it said "-99.6 % overhead … at 203
/// TiB of data like yours" on a 931 GiB volume).
// Sparse files are seen on Linux (the Windows walk does not detect them).
#[cfg(target_os = "linux")]
#[test]
fn advise_on_a_sparse_file_weighs_no_more_than_the_volume() {
    let t = tempfile::tempdir().unwrap();
    std::fs::File::create(t.path().join("big.img"))
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    std::fs::write(t.path().join("notes.txt"), vec![b'x'; 100_000]).unwrap();
    let out = common::fsfit()
        .arg("advise")
        .arg(t.path())
        .args(["--for", "linux", "--volume", "1TB", "--synthetic"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("-99") && !text.contains("-100"), "{text}");
    assert!(
        text.contains("no overhead percentage (less on disk"),
        "{text}"
    );
    assert!(text.contains("sparse files: 1"), "{text}");
    for unit in ["TiB of data", "PiB of data", "EiB of data"] {
        assert!(!text.contains(unit), "{unit}: {text}");
    }
}
