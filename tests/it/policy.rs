//! Mount policies and advise on the user's own files, on real volumes:
//! bench records the policy and the options each config was mounted with,
//! and Windows' write-through (approximated by files opened O_SYNC in
//! folders mounted `dirsync`) costs a tree copy time on a simulated stick,
//! through the kernel's and a FUSE driver alike; advise copies a sample of the tree onto each
//! candidate under block tracing, so its trade-offs compare filesystems,
//! and falls back to the synthetic copy, saying so, without root.

use crate::common::{can_fuse, can_mount, fsfit, have, mixed_tree, write_file};
use serde_json::Value;
use std::path::Path;

fn bench(dir: &Path, policy: &str, fss: &[&str]) -> (Value, String) {
    let json = dir.join(format!("{policy}.json"));
    let mut c = fsfit();
    c.env("FSFIT_STATE_DIR", dir)
        .args(["bench", "--quiet", "--size", "512M", "--repeat", "1"])
        .arg("--image")
        .arg(dir.join("b.img"))
        .args(["--workloads", "tree-write", "--scale", "0.1"])
        .args(["--flash", "usb2-stick", "--mount-policy", policy])
        .arg("--json")
        .arg(&json);
    for f in fss {
        c.args(["--fs", f]);
    }
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{policy}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap(),
        text,
    )
}

fn result<'a>(v: &'a Value, fs: &str) -> &'a Value {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["fs"] == fs)
        .unwrap_or_else(|| panic!("no {fs} in {v}"))
}

fn tree_write_mb_s(r: &Value) -> f64 {
    r["workloads"][0]["simulated"][0]["mb_per_s"]
        .as_f64()
        .unwrap()
}

#[test]
fn bench_records_each_policy_and_write_through_slows_a_tree_copy() {
    if !can_mount() || !can_fuse() || !have(&["mkfs.ext4", "mkfs.exfat", "mount.exfat-fuse"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = bench(dir.path(), "server", &["ext4", "exfat:32K"]);
    let (desktop, _) = bench(dir.path(), "desktop", &["ext4"]);
    let (windows, text) = bench(dir.path(), "windows-write-through", &["ext4", "exfat:32K"]);
    let s = result(&server, "ext4");
    assert_eq!(s["mount_policy"], "server");
    assert_eq!(s["mount_options"], "");
    // udisks2's options: the ones every mount gets, then ext4's default.
    let d = result(&desktop, "ext4");
    assert_eq!(d["mount_policy"], "desktop");
    assert_eq!(
        d["mount_options"],
        "nodev,nosuid,uhelper=udisks2,errors=remount-ro"
    );
    let w = result(&windows, "ext4");
    assert_eq!(w["mount_policy"], "windows-write-through");
    assert_eq!(w["mount_options"], "dirsync");
    assert!(
        w["mount_policy_note"]
            .as_str()
            .unwrap()
            .contains("approximates"),
        "{w}"
    );
    // exfat-fuse drops `-o sync`, but writes a file opened O_SYNC through:
    // no note says it ignores the policy, and the copy slows as ext4's does.
    let e = result(&windows, "exfat");
    let note = e["mount_policy_note"].as_str().unwrap();
    assert!(note.contains("O_SYNC") && !note.contains("ignores"), "{e}");
    assert!(
        text.contains("mount policy windows-write-through"),
        "{text}"
    );
    // The config lines under the target's, policy lines included.
    let configs: Vec<&str> = text
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        configs.iter().all(|l| l.chars().count() <= 100),
        "{configs:?}"
    );
    // Every write through to the stick: many small writes where writeback
    // merged them, on the simulated stick several times slower.
    for fs in ["ext4", "exfat"] {
        let fast = tree_write_mb_s(result(&server, fs));
        let slow = tree_write_mb_s(result(&windows, fs));
        assert!(
            slow * 2.0 < fast,
            "{fs}: server {fast} MB/s, write-through {slow} MB/s"
        );
    }
}

fn tree(root: &Path) {
    mixed_tree(root, 120);
    for i in 0..3 {
        write_file(&root.join(format!("media/clip{i}.bin")), 3_000_000);
    }
}

fn advise(args: &[&str], tree: &Path, uid: Option<&str>) -> Value {
    let bin = env!("CARGO_BIN_EXE_fsfit");
    let mut c = match uid {
        Some(u) => {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                &format!("--reuid={u}"),
                &format!("--regid={u}"),
                "--clear-groups",
                bin,
            ]);
            c
        }
        None => fsfit(),
    };
    let out = c
        .arg("advise")
        .arg(tree)
        .args(["--volume", "8G", "--json", "-"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn advise_traces_a_sample_of_your_files_and_compares_filesystems() {
    if !can_mount() || !have(&["mkfs.ext4", "mkfs.xfs"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let v = advise(
        &["--drive", "usb2-stick", "--for", "linux", "--budget", "5m"],
        dir.path(),
        None,
    );
    // --for linux: a desktop automounts the drive.
    assert_eq!(
        v["mount_policy"]["name"], "desktop",
        "{}",
        v["mount_policy"]
    );
    let sim = &v["simulation"];
    assert_eq!(sim["method"], "traced", "{sim}");
    assert_eq!(sim["profile"], "usb2-stick");
    assert_eq!(sim["mount_policy"], "desktop");
    let sample = &sim["sample"];
    let files = sample["files"].as_u64().unwrap();
    assert!(
        files > 0 && files <= v["tree"]["files"].as_u64().unwrap(),
        "{sample}"
    );
    assert!(sample["how"].as_str().unwrap().contains("stratified"));
    // Filesystems, not only clusters, carry traced figures...
    let mut traced_fs: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["simulated_mb_per_s"].as_f64().is_some_and(|m| m > 0.0))
        .map(|c| c["fs"].as_str().unwrap())
        .collect();
    traced_fs.dedup();
    assert!(
        traced_fs.contains(&"ext4") && traced_fs.contains(&"xfs"),
        "{traced_fs:?}"
    );
    // ...and the trade-offs say what the choice costs against another.
    let choice = v["choice"]["fs"].as_str().unwrap();
    let lines: Vec<&str> = v["tradeoffs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .filter(|t| t.contains("traced"))
        .collect();
    assert!(
        lines.iter().any(|t| traced_fs
            .iter()
            .any(|f| *f != choice && t.contains(&format!(" vs {f} ")))),
        "{lines:?}"
    );
}

#[test]
fn advise_without_root_keeps_the_synthetic_copy_and_says_so() {
    if !have(&["setpriv"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    // The unprivileged user must reach the tree (a temporary dir is 0700).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let v = advise(
        &["--drive", "usb2-stick", "--for", "windows"],
        dir.path(),
        Some("65534"),
    );
    assert_eq!(v["mount_policy"]["name"], "windows-write-through");
    assert_eq!(v["mount_policy"]["approximation"], true);
    let sim = &v["simulation"];
    assert_eq!(sim["method"], "synthetic", "{sim}");
    assert!(sim["why"].as_str().unwrap().contains("needs root"), "{sim}");
    assert!(sim["sample"].is_null());
    assert!(v["choice"]["simulated_mb_per_s"].as_f64().unwrap() > 0.0);
}
