//! `fsfit advise` on generated trees with known answers.

use crate::common;

use common::{fsfit, write_file};
use serde_json::Value;
use std::path::Path;

fn advise(args: &[&str]) -> (Value, i32) {
    let out = fsfit()
        .args(["advise", "--json", "-", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code().unwrap())
}

fn names(list: &Value) -> Vec<String> {
    let mut v: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["fs"].as_str().unwrap().to_string())
        .collect();
    v.dedup();
    v
}

#[test]
fn a_5_gib_file_rules_out_fat32() {
    let t = tempfile::tempdir().unwrap();
    std::fs::File::create(t.path().join("movie.mkv"))
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    write_file(&t.path().join("notes.txt"), 100);
    let (v, code) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "windows,macos",
        "--volume",
        "64G",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["choice"]["fs"], "exfat", "{}", v["why"]);
    assert!(!names(&v["candidates"]).contains(&"fat32".to_string()));
    let fat32 = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "fat32")
        .unwrap();
    assert!(
        fat32["reasons"][0].as_str().unwrap().contains("size limit"),
        "{fat32}"
    );
    let ntfs = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "ntfs")
        .unwrap();
    assert!(
        ntfs["reasons"][0]
            .as_str()
            .unwrap()
            .contains("macos only reads ntfs"),
        "{ntfs}"
    );
    assert!(v["commands"]["linux"]
        .as_str()
        .unwrap()
        .starts_with("sudo mkfs.exfat"));
}

#[test]
fn camera_and_tv_leave_fat32_and_exfat() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..20 {
        write_file(
            &t.path().join(format!("DCIM/IMG_{i:04}.JPG")),
            3_000_000 + i * 1000,
        );
    }
    let (v, code) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "camera,tv",
        "--volume",
        "32G",
    ]);
    assert_eq!(code, 0);
    let mut got = names(&v["candidates"]);
    got.sort();
    got.dedup();
    assert_eq!(got, ["exfat", "fat32"]);
    assert!(v["speed_measured"] == false);
}

/// A bench result for two configs of the same size on disk, `fast` faster.
fn bench_file(dir: &Path, fast: &str, slow: &str) -> std::path::PathBuf {
    let wl = |mbps: f64| {
        serde_json::json!([{"name": "large-write", "files": 10, "bytes": 100_000_000u64,
            "median_seconds": 100.0 / mbps, "mb_per_s": mbps, "files_per_s": 1.0, "cv_pct": 1.0,
            "flags": [], "runs": []},
            {"name": "small-write", "files": 100, "bytes": 10_000_000u64,
            "median_seconds": 10.0 / mbps, "mb_per_s": mbps, "files_per_s": 1.0, "cv_pct": 1.0,
            "flags": [], "runs": []}])
    };
    let cfg = |fs: &str, mbps: f64| {
        serde_json::json!({"fs": fs, "cluster_bytes": 32768, "driver": "kernel:x", "format_seconds": 0.1,
            "workloads": wl(mbps)})
    };
    let v = serde_json::json!({
        "schema": "fsfit.bench/1",
        "host": {"kernel": "6.1", "fsfit": "0.1.0", "cpus": 2},
        "target": {"kind": "image", "path": "/tmp/x.img", "size_bytes": 1u64 << 32},
        "results": [cfg(slow, 20.0), cfg(fast, 80.0)]
    });
    let p = dir.join(format!("bench-{fast}.json"));
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

#[test]
fn with_bench_results_the_faster_of_two_equal_size_configs_wins() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    // Whole 32 KiB clusters in the root: the same size on disk on FAT32 and exFAT.
    for i in 0..4 {
        write_file(&tree.join(format!("f{i}.bin")), 32768 * (i + 1));
    }
    let args = |b: &Path| {
        vec![
            tree.to_str().unwrap().to_string(),
            "--for".into(),
            "camera".into(),
            "--volume".into(),
            "32G".into(),
            "--max-overhead".into(),
            "1000".into(),
            "--bench".into(),
            b.to_str().unwrap().to_string(),
        ]
    };
    for (fast, slow) in [("fat32", "exfat"), ("exfat", "fat32")] {
        let b = bench_file(t.path(), fast, slow);
        let a = args(&b);
        let (v, code) = advise(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert_eq!(code, 0);
        assert_eq!(v["speed_measured"], true);
        let c = &v["choice"];
        let r = &v["runner_up"];
        assert_eq!(c["cluster_bytes"], 32768, "{v}");
        assert_eq!(c["fs"], fast, "{}", v["why"]);
        assert_eq!(r["fs"], slow, "{v}");
        assert_eq!(c["tree_bytes"], r["tree_bytes"], "equal size on disk");
        assert!(c["est_copy_seconds"].as_f64().unwrap() < r["est_copy_seconds"].as_f64().unwrap());
        assert!(
            v["tradeoff"]
                .as_str()
                .unwrap()
                .contains("75 % less time than"),
            "{}",
            v["tradeoff"]
        );
    }
}

#[test]
fn bad_arguments() {
    let out = fsfit()
        .args(["advise", "--for", "toaster", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("camera"));
    let out = fsfit()
        .args(["advise", "--bench", "/nonexistent.json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
