//! `fsfit usage --manifest`: listings made by the real tools (find, rclone,
//! ncdu) of real and generated trees give the same report as walking them;
//! S3 Inventory and CSV rows written here from a walked tree do too; bad
//! listings fail with their line.

use crate::common;

use common::fsfit;
use std::path::PathBuf;
// What only the Linux tests (real listings by find, rclone, ncdu) use.
#[cfg(target_os = "linux")]
use {common::usage_json, serde_json::Value, std::path::Path, std::process::Command};

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `cmd`'s stdout written to `file`; panics with its stderr on failure.
#[cfg(target_os = "linux")]
fn listing(cmd: &mut Command, file: &Path) {
    let out = cmd.output().expect("run the listing tool");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(file, out.stdout).unwrap();
}

#[cfg(target_os = "linux")]
fn find_listing(tree: &Path, file: &Path) {
    listing(
        Command::new("find")
            .arg(tree)
            .args(["-printf", "%y %s %T@ %P\\0"]),
        file,
    );
}

/// The byte figures of every config, for listings that cannot say everything.
#[cfg(target_os = "linux")]
fn bytes(v: &Value) -> Vec<(String, u64, [u64; 4])> {
    v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_u64().unwrap();
            (
                c["fs"].as_str().unwrap().to_string(),
                n("cluster_bytes"),
                [
                    n("tree_bytes"),
                    n("data_bytes"),
                    n("slack_bytes"),
                    n("metadata_bytes"),
                ],
            )
        })
        .collect()
}

/// Same tree, data, slack and metadata bytes from a listing whose folders
/// are in another order than this disk's readdir (rclone sorts each folder,
/// S3 sorts keys). Every model gives the same bytes, except that ext4's
/// model replays htree leaf splits in the order the copy creates names, as
/// the kernel does: that order is the listing's, so ext4's metadata may
/// differ by a few blocks (never data or slack).
#[cfg(target_os = "linux")]
fn assert_same_bytes(walk: &Value, man: &Value) {
    assert_eq!(walk["tree"], man["tree"]);
    let (w, m) = (bytes(walk), bytes(man));
    assert_eq!(w.len(), m.len());
    for (a, b) in w.iter().zip(&m) {
        if a.0 != "ext4" {
            assert_eq!(a, b);
            continue;
        }
        assert_eq!(
            (a.1, a.2[1], a.2[2]),
            (b.1, b.2[1], b.2[2]),
            "ext4 data and slack"
        );
        let diff = a.2[3].abs_diff(b.2[3]);
        assert!(
            diff <= 4 * a.1,
            "ext4:{} metadata {} vs {}",
            a.1,
            a.2[3],
            b.2[3]
        );
    }
}

/// A generated tree with a symlink and a FIFO as well.
#[cfg(target_os = "linux")]
fn generated(root: &Path) {
    common::mixed_tree(root, 300);
    std::os::unix::fs::symlink("sizes/f0_1.bin", root.join("link")).unwrap();
    let fifo = std::ffi::CString::new(root.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
}

/// The manifest's report must be the walk's: every config's figures,
/// findings and examples, and the tree counts.
#[cfg(target_os = "linux")]
fn assert_same_as_walk(walk: &Value, man: &Value, file: &Path) {
    assert_eq!(walk["tree"], man["tree"]);
    assert_eq!(walk["configs"], man["configs"]);
    assert_eq!(man["paths"][0], file.to_str().unwrap());
    assert_eq!(man["listing"]["lacks"], serde_json::json!([]));
    assert!(
        walk.get("listing").is_none(),
        "a walk has no listing object"
    );
}

#[test]
#[cfg(target_os = "linux")]
fn find_listing_of_a_generated_tree_is_the_walk() {
    if !common::have(&["find", "gzip"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    generated(&tree);
    let file = t.path().join("list.find");
    find_listing(&tree, &file);
    let walk = usage_json(&[tree.to_str().unwrap()]);
    let man = usage_json(&["--manifest", file.to_str().unwrap()]);
    assert_same_as_walk(&walk, &man, &file);
    assert_eq!(man["listing"]["format"], "find");
    assert_eq!(man["tree"]["symlinks"], 1);
    assert_eq!(man["tree"]["other"], 1);

    // Gzipped, with the format named: the same.
    let status = Command::new("gzip").arg("-k").arg(&file).status().unwrap();
    assert!(status.success());
    let gz = PathBuf::from(format!("{}.gz", file.display()));
    let man = usage_json(&["--manifest", gz.to_str().unwrap(), "--format", "find"]);
    assert_eq!(walk["configs"], man["configs"]);
}

#[cfg(target_os = "linux")]
#[test]
fn find_listing_of_a_real_tree_is_the_walk() {
    // A real tree with symlinks, thousands of files and deep folders, which
    // nothing rewrites while the test runs (unlike /usr/share/doc during apt).
    let real = Path::new("/usr/share/zoneinfo");
    if !real.is_dir() {
        common::skip("/usr/share/zoneinfo (Debian package tzdata)");
        return;
    }
    if !common::have(&["find"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("zoneinfo.find");
    find_listing(real, &file);
    let walk = usage_json(&[real.to_str().unwrap()]);
    let man = usage_json(&["--manifest", file.to_str().unwrap()]);
    assert!(walk["tree"]["files"].as_u64().unwrap() > 500);
    assert_same_as_walk(&walk, &man, &file);
}

#[cfg(target_os = "linux")]
#[test]
fn rclone_listing_gives_the_same_bytes() {
    if !common::have(&["rclone"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    // rclone lists no symlinks or FIFOs: a tree without them.
    common::mixed_tree(&tree, 300);
    let file = t.path().join("list.json");
    listing(
        Command::new("rclone")
            .args(["lsjson", "-R", "--config", "/dev/null"])
            .arg(&tree),
        &file,
    );
    let walk = usage_json(&[tree.to_str().unwrap()]);
    let man = usage_json(&["--manifest", file.to_str().unwrap()]);
    assert_eq!(man["listing"]["format"], "rclone-lsjson");
    assert_same_bytes(&walk, &man);
    let lacks = man["listing"]["lacks"].to_string();
    assert!(lacks.contains("symlinks"), "{lacks}");
}

#[cfg(target_os = "linux")]
#[test]
fn ncdu_export_gives_the_same_bytes() {
    if !common::have(&["ncdu"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    common::mixed_tree(&tree, 300);
    let file = t.path().join("export.ncdu");
    let out = Command::new("ncdu")
        .args(["-0", "-e", "-o"])
        .arg(&file)
        .arg(&tree)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let walk = usage_json(&[tree.to_str().unwrap()]);
    let man = usage_json(&["--manifest", file.to_str().unwrap()]);
    assert_eq!(man["listing"]["format"], "ncdu");
    assert_eq!(walk["tree"], man["tree"]);
    // With -e ncdu keeps mtimes, so the timestamp findings agree too.
    assert_eq!(walk["configs"], man["configs"]);
}

/// Every entry below `root`, depth first as find would list it.
#[cfg(target_os = "linux")]
fn entries(root: &Path, rel: &Path, out: &mut Vec<(PathBuf, std::fs::Metadata)>) {
    for e in std::fs::read_dir(root.join(rel)).unwrap() {
        let e = e.unwrap();
        let r = rel.join(e.file_name());
        let md = std::fs::symlink_metadata(e.path()).unwrap();
        let dir = md.is_dir();
        out.push((r.clone(), md));
        if dir {
            entries(root, &r, out);
        }
    }
}

#[cfg(target_os = "linux")]
fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
#[cfg(target_os = "linux")]
fn s3_inventory_and_csv_give_the_same_bytes() {
    use std::os::unix::fs::MetadataExt;
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    common::mixed_tree(&tree, 300);
    let mut all = Vec::new();
    entries(&tree, Path::new(""), &mut all);
    // S3 Inventory as AWS writes it (quoted, URL-encoded keys, folder
    // markers), sorted by key as S3 lists; plus a noncurrent version that a
    // copy would not write.
    let mut rows: Vec<String> = all
        .iter()
        .map(|(p, md)| {
            let mut key = p.to_str().unwrap().to_string();
            if md.is_dir() {
                key.push('/');
            }
            format!(
                "\"bkt\",\"{}\",\"v1\",\"true\",\"false\",\"{}\",\"{}\",\"etag\"",
                url_encode(&key),
                if md.is_dir() { 0 } else { md.len() },
                // The seconds only: the odd-second finding must agree.
                fsfit::units::utc(md.mtime()).replace('Z', ".000Z")
            )
        })
        .collect();
    rows.push(
        "\"bkt\",\"many/old\",\"v0\",\"false\",\"false\",\"99\",\"2020-01-01T00:00:00.000Z\",\"e\""
            .into(),
    );
    rows.sort();
    let s3 = t.path().join("inventory.csv");
    std::fs::write(&s3, rows.join("\n") + "\n").unwrap();
    // A path,size CSV with a header, in the walk's order.
    let mut csv = String::from("path,size\n");
    for (p, md) in &all {
        let p = p.to_str().unwrap().replace('"', "\"\"");
        if md.is_dir() {
            csv.push_str(&format!("\"{p}/\",0\n"));
        } else {
            csv.push_str(&format!("\"{p}\",{}\n", md.len()));
        }
    }
    let csv_file = t.path().join("sizes.csv");
    std::fs::write(&csv_file, csv).unwrap();

    let walk = usage_json(&[tree.to_str().unwrap()]);
    let man = usage_json(&["--manifest", s3.to_str().unwrap()]);
    assert_eq!(man["listing"]["format"], "s3-inventory");
    assert_same_bytes(&walk, &man);
    assert!(man["listing"]["lacks"]
        .to_string()
        .contains("1 noncurrent object versions left out"));
    let man = usage_json(&["--manifest", csv_file.to_str().unwrap()]);
    assert_eq!(man["listing"]["format"], "csv");
    // In the walk's own order: every byte the same, ext4 too.
    assert_eq!(bytes(&walk), bytes(&man));
}

/// `fsfit usage --manifest FILE` on `text`: exit code and stderr.
fn run_on(text: &[u8], format: Option<&str>) -> (Option<i32>, String, PathBuf, tempfile::TempDir) {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("listing");
    std::fs::write(&file, text).unwrap();
    let mut cmd = fsfit();
    cmd.args(["usage", "--json", "--quiet", "--manifest"])
        .arg(&file);
    if let Some(f) = format {
        cmd.args(["--format", f]);
    }
    let out = cmd.output().unwrap();
    assert!(out.stdout.is_empty() || out.status.success());
    (out.status.code(), stderr_of(&out), file, t)
}

#[test]
fn a_malformed_listing_fails_with_its_line() {
    let cases: [(&[u8], Option<&str>, u32); 5] = [
        (b"d 4096 1700000000.0 \0f 12 1700000000.0 a\0f twelve 1.0 b\0", None, 3),
        (b"path,size\na,1\nb,1\nc,lots\n", Some("csv"), 4),
        (b"[\n{\"Path\":\"a\",\"Size\":1,\"IsDir\":false},\n{\"Path\":\"b\",\"Size\":\n]\n", None, 3),
        (b"[1,2,{\"progname\":\"ncdu\"},\n[{\"name\":\"/x\"},\n{\"name\":\"a\",\"asize\":\"big\"}]]\n", None, 3),
        (b"\"b\",\"a\",\"1\",\"2024-01-01T00:00:00.000Z\"\n\"b\",\"c\",\"x\",\"2024-01-01T00:00:00.000Z\"\n", None, 2),
    ];
    for (text, format, line) in cases {
        let (code, err, file, _t) = run_on(text, format);
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        let want = format!("{}:{line}:", file.display());
        assert!(err.contains(&want), "want {want} in: {err}");
    }
}

#[test]
fn out_of_order_listing_is_refused_not_guessed() {
    // a/'s entries in two places, and an unsorted path list.
    let text = b"f 1 1.0 a/x\0f 1 1.0 b/y\0f 1 1.0 a/z\0";
    let (code, err, file, _t) = run_on(text, None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("{}:3:", file.display())), "{err}");
    assert!(
        err.contains("'a/' comes back") && err.contains("sort"),
        "{err}"
    );
    // Sorted by path, the same listing is read.
    let (code, err, _, _t) = run_on(b"f 1 1.0 a/x\0f 1 1.0 a/z\0f 1 1.0 b/y\0", None);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn unknown_format_and_missing_file_are_one_line() {
    let (code, err, _, _t) = run_on(b"hello world\n", None);
    assert_eq!(code, Some(2));
    assert!(err.contains("--format"), "{err}");
    let out = fsfit()
        .args(["usage", "--manifest", "/no/such/listing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr_of(&out).lines().count(), 1);
    // A manifest and a path together make no sense.
    let out = fsfit()
        .args(["usage", "--manifest", "/x", "/tmp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The same rclone listing in any JSON layout (compacted onto one line as
/// `jq -c .` does, or pretty-printed across many lines) gives the same
/// figures as rclone's own layout.
#[cfg(target_os = "linux")]
#[test]
fn rclone_listing_in_any_json_layout() {
    if !common::have(&["rclone"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    common::mixed_tree(&tree, 200);
    let file = t.path().join("list.json");
    listing(
        Command::new("rclone")
            .args(["lsjson", "-R", "--config", "/dev/null"])
            .arg(&tree),
        &file,
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let compact = t.path().join("compact.json");
    std::fs::write(&compact, serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&compact).unwrap().lines().count(),
        1
    );
    let pretty = t.path().join("pretty.json");
    std::fs::write(&pretty, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let base = usage_json(&["--manifest", file.to_str().unwrap()]);
    for f in [&compact, &pretty] {
        let other = usage_json(&["--manifest", f.to_str().unwrap()]);
        assert_eq!(other["listing"]["format"], "rclone-lsjson");
        assert_eq!(base["tree"], other["tree"], "{}", f.display());
        assert_eq!(base["configs"], other["configs"], "{}", f.display());
    }
    // A broken array: one line, exit 2.
    let broken = t.path().join("broken.json");
    std::fs::write(&broken, r#"[{"Path":"a","Size":1,"IsDir":false},{"Path":"#).unwrap();
    let out = common::fsfit()
        .args(["usage", "--manifest"])
        .arg(&broken)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
