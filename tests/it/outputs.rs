//! Every command checks where it will write (--json, --report, -o) before
//! it works, exit 2, as bench does (#20).

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
