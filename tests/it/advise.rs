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

/// A camera takes what the SD standard formats the card's class with:
/// SDSC (up to 2 GB) FAT16, SDHC (up to 32 GB) FAT32, SDXC exFAT; a TV
/// beside it reads all three.
#[test]
fn camera_by_capacity_formats_as_the_sd_standard() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..20 {
        write_file(
            &t.path().join(format!("DCIM/100CANON/IMG_{i:04}.JPG")),
            3_000_000 + i * 1000,
        );
    }
    for (volume, fs, class) in [
        ("2GB", "fat16", "SDSC"),
        ("16GB", "fat32", "SDHC"),
        ("64GB", "exfat", "SDXC"),
    ] {
        let (v, code) = advise(&[
            t.path().to_str().unwrap(),
            "--for",
            "camera,tv",
            "--volume",
            volume,
        ]);
        assert_eq!(code, 0, "{volume}: {v}");
        assert_eq!(names(&v["candidates"]), [fs], "{volume}");
        assert_eq!(v["choice"]["fs"], fs, "{volume}");
        let notes = v["notes"].to_string();
        assert!(notes.contains(class), "{volume}: {notes}");
        let rejected = v["rejected"].to_string();
        assert!(
            !rejected.contains("tv cannot") && !rejected.contains("tv does not read fat"),
            "{rejected}"
        );
        assert_eq!(v["speed_measured"], false);
    }
}

/// A car stereo gets FAT32 on an MBR partition, and the reason names the
/// car and its fact; exFAT only for units that say so.
#[test]
fn a_car_gets_fat32_on_mbr() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..30u64 {
        write_file(
            &t.path().join(format!("Album {}/{i:02} track.mp3", i / 10)),
            3_000_000 + i * 7919,
        );
    }
    let tree = t.path().to_str().unwrap();
    let (v, code) = advise(&[tree, "--for", "car", "--volume", "32GB"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["choice"]["fs"], "fat32", "{}", v["why"]);
    let why = v["why"].to_string();
    assert!(
        why.contains("car") && why.contains("FAT16 or FAT32"),
        "{why}"
    );
    let notes = v["notes"].to_string();
    assert!(notes.contains("MBR") && notes.contains("0x0C"), "{notes}");
    let exfat = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "exfat")
        .unwrap();
    assert!(exfat["reasons"][0]
        .as_str()
        .unwrap()
        .contains("car does not read exfat"));
    // Over 32 GB the limit is said; a unit that lists exFAT may get it.
    let (v, _) = advise(&[tree, "--for", "car", "--volume", "64GB"]);
    assert!(
        v["notes"].to_string().contains("up to 32 GB"),
        "{}",
        v["notes"]
    );
    let (v, code) = advise(&[tree, "--for", "car-exfat", "--volume", "64GB"]);
    assert_eq!(code, 0);
    assert_eq!(v["choice"]["fs"], "exfat", "{}", v["why"]);
    // A 2 GB stick for a TV and a car: FAT16 and FAT32 both read, never
    // "cannot read fat16".
    let (v, code) = advise(&[tree, "--for", "tv,car", "--volume", "2GB"]);
    assert_eq!(code, 0);
    assert!(
        names(&v["candidates"]).contains(&"fat16".to_string()),
        "{v}"
    );
    assert!(!v.to_string().contains("read fat16"), "{}", v["rejected"]);
}

/// A Linux backup drive: a journaled filesystem first and as runner-up,
/// never NTFS, for a home folder of many small files.
#[test]
fn a_linux_backup_drive_is_journaled() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..400u64 {
        write_file(
            &t.path().join(format!("d{}/.config/f{i}.conf", i % 20)),
            100 + i * 37 % 3000,
        );
    }
    write_file(&t.path().join("big.tar"), 5_000_000);
    let (v, code) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "linux",
        "--volume",
        "1TB",
    ]);
    assert_eq!(code, 0, "{v}");
    let journaled = ["ext4", "xfs", "btrfs", "f2fs"];
    let fs = |c: &Value| c["fs"].as_str().unwrap().to_string();
    assert!(
        journaled.contains(&fs(&v["choice"]).as_str()),
        "{}",
        v["why"]
    );
    assert!(
        journaled.contains(&fs(&v["runner_up"]).as_str()),
        "{}",
        v["runner_up"]
    );
    // Every journaled candidate comes before NTFS, NTFS before exFAT, exFAT before FAT.
    let order = names(&v["candidates"]);
    let pos = |f: &str| order.iter().position(|x| x == f).unwrap();
    for j in journaled {
        assert!(pos(j) < pos("ntfs"), "{order:?}");
    }
    assert!(
        pos("ntfs") < pos("exfat") && pos("exfat") < pos("fat32"),
        "{order:?}"
    );
}

/// A drive passed between a Mac and a Windows PC gets exFAT.
#[test]
fn a_mac_and_windows_exchange_drive_is_exfat() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..50u64 {
        write_file(
            &t.path().join(format!("Docs/report {i}.docx")),
            40_000 + i * 1013,
        );
    }
    let (v, code) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "macos,windows",
        "--volume",
        "128GB",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["choice"]["fs"], "exfat", "{}", v["why"]);
    let ntfs = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == "ntfs")
        .unwrap();
    assert!(ntfs["reasons"][0]
        .as_str()
        .unwrap()
        .contains("macos only reads ntfs"));
}

/// The order the text states is the order of the JSON's candidates: each
/// candidate's robustness class, as the text names them, never goes back.
#[test]
fn the_json_order_follows_the_stated_ranking() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..200u64 {
        write_file(
            &t.path().join(format!("src/m{}/f{i}.rs", i % 7)),
            50 + i * 131 % 9000,
        );
    }
    let tree = t.path().to_str().unwrap();
    let (v, code) = advise(&[tree, "--for", "linux", "--volume", "64GB"]);
    assert_eq!(code, 0);
    let args = [
        "advise", "--quiet", tree, "--for", "linux", "--volume", "64GB",
    ];
    let out = fsfit().args(args).arg("--verbose").output().unwrap();
    // The text wraps to 100 columns: compare word by word.
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = flat(&String::from_utf8_lossy(&out.stdout));
    let ranking = v["ranking"].as_array().unwrap();
    // Without --verbose the long explanation is one line saying where it is.
    let plain = fsfit().args(args).output().unwrap();
    let plain = flat(&String::from_utf8_lossy(&plain.stdout));
    assert!(plain.contains("ranked: --verbose (or the JSON's ranking) says"));
    assert!(
        !plain.contains(&flat(ranking[0].as_str().unwrap())),
        "{plain}"
    );
    for r in ranking {
        assert!(
            text.contains(&flat(r.as_str().unwrap())),
            "{r} not in\n{text}"
        );
    }
    // The classes, in the order the text states them (the same sentence).
    let line = ranking
        .iter()
        .filter_map(|r| r.as_str())
        .find(|l| l.contains("by robustness class:"))
        .unwrap();
    let class_of = |fs: &str| {
        let title = match fs {
            "ext4" => "ext4",
            "xfs" => "XFS",
            "btrfs" => "Btrfs",
            "f2fs" => "F2FS",
            "ntfs" => "NTFS",
            "exfat" => "exFAT",
            "udf" => "UDF",
            _ => "FAT",
        };
        line.split(", then ")
            .position(|c| c.contains(title))
            .unwrap_or_else(|| panic!("{fs} in {line}"))
    };
    let over = |c: &Value| c["overhead_pct"].as_f64().unwrap() > 10.0;
    let cands = v["candidates"].as_array().unwrap();
    for w in cands.windows(2) {
        let (a, b) = (
            class_of(w[0]["fs"].as_str().unwrap()),
            class_of(w[1]["fs"].as_str().unwrap()),
        );
        assert!(a <= b, "{} before {}", w[0]["fs"], w[1]["fs"]);
        let small = |c: &Value| c["cluster_bytes"].as_u64().unwrap() < 4096;
        if a == b && small(&w[0]) == small(&w[1]) {
            assert!(
                !over(&w[0]) || over(&w[1]),
                "within the limit first: {} {}",
                w[0],
                w[1]
            );
        }
    }
    // The text lists the candidates in the JSON's order.
    let listed: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Candidates, best first"))
        .skip(1)
        .take_while(|l| l.contains(" on disk "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let json: Vec<String> = cands
        .iter()
        .take(listed.len())
        .map(|c| {
            format!(
                "{}:{}",
                c["fs"].as_str().unwrap(),
                short(c["cluster_bytes"].as_u64().unwrap())
            )
        })
        .collect();
    assert_eq!(listed, json);
}

fn short(n: u64) -> String {
    for (shift, s) in [(30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{}{s}", n >> shift);
        }
    }
    n.to_string()
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
    // Whole 32 KiB clusters in a folder: the same size on disk on FAT32
    // and FAT16, one robustness class (a car takes both).
    for i in 0..4 {
        write_file(&tree.join(format!("d/f{i}.bin")), 32768 * (i + 1));
    }
    let args = |b: &Path| {
        vec![
            tree.to_str().unwrap().to_string(),
            "--for".into(),
            "car".into(),
            "--volume".into(),
            "1G".into(),
            "--max-overhead".into(),
            "1000".into(),
            "--bench".into(),
            b.to_str().unwrap().to_string(),
        ]
    };
    for (fast, slow) in [("fat32", "fat16"), ("fat16", "fat32")] {
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
    // Twelve systems do not fit one line: the first, and where all are.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(choose from windows, ") && err.contains("more in fsfit advise --help)"),
        "{err}"
    );
    // A name close to one of them: that one.
    let out = fsfit()
        .args(["advise", "--for", "camra", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(did you mean 'camera'?)"), "{err}");
    let out = fsfit()
        .args(["advise", "--bench", "/nonexistent.json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A hand-made bench result: `configs` as (fs, cluster, MB/s) for the
/// large-file workload.
fn speeds_file(dir: &Path, name: &str, configs: &[(&str, u64, f64)]) -> std::path::PathBuf {
    let results: Vec<Value> = configs
        .iter()
        .map(|(fs, cluster, mbps)| {
            serde_json::json!({"fs": fs, "cluster_bytes": cluster, "driver": "kernel:x",
                "format_seconds": 0.1,
                "workloads": [{"name": "large-write", "files": 10, "bytes": 100_000_000u64,
                    "median_seconds": 100.0 / mbps, "mb_per_s": mbps, "files_per_s": 1.0,
                    "cv_pct": 1.0, "flags": [], "runs": []}]})
        })
        .collect();
    let v = serde_json::json!({
        "schema": "fsfit.bench/1",
        "host": {"kernel": "6.1", "fsfit": "0.1.0", "cpus": 2},
        "target": {"kind": "image", "path": "/tmp/x.img", "size_bytes": 1u64 << 32},
        "results": results
    });
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

#[test]
fn known_speeds_decide_the_cluster_in_both_orders() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("videos");
    // Big files in whole 128 KiB clusters: 32K and 128K both within 10 %.
    for i in 0..4 {
        write_file(&tree.join(format!("v{i}.mkv")), (16 << 20) + (i << 17));
    }
    let run = |b: &Path| {
        advise(&[
            tree.to_str().unwrap(),
            "--for",
            "windows,macos",
            "--volume",
            "64G",
            "--bench",
            b.to_str().unwrap(),
        ])
    };
    let k32 = 32 << 10;
    let k128 = 128 << 10;
    for (fast, slow) in [(k32, k128), (k128, k32)] {
        let b = speeds_file(
            t.path(),
            &format!("b{fast}.json"),
            &[("exfat", fast, 300.0), ("exfat", slow, 150.0)],
        );
        let (v, code) = run(&b);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["choice"]["fs"], "exfat", "{}", v["why"]);
        assert_eq!(v["choice"]["cluster_bytes"], fast, "{}", v["why"]);
        assert_eq!(v["choice"]["speed"], "measured");
        let t0 = v["tradeoffs"][0].as_str().unwrap();
        assert!(
            t0.contains("less time than exfat") && t0.contains("(measured, round 1)"),
            "{t0}"
        );
        // Measured speeds: nothing is assumed about them.
        let assumed = v["assumptions"].to_string();
        assert!(!assumed.contains("write speed"), "{assumed}");
    }
    // Within one run's noise (10 %), the tie goes to the larger cluster even
    // when the smaller measured a little faster, and the reason says so.
    let b = speeds_file(
        t.path(),
        "tie.json",
        &[("exfat", k32, 310.0), ("exfat", k128, 300.0)],
    );
    let (v, _) = run(&b);
    assert_eq!(v["choice"]["cluster_bytes"], k128, "{}", v["why"]);
    assert!(v["why"].to_string().contains("tie goes to the larger"));
}

/// A few bytes of data give no percentage, and no waste scaled up from
/// them either: 3 bytes in a 48 KiB file scaled to a 64 GiB volume once
/// read "1023 TiB wasted".
#[test]
fn a_few_bytes_are_not_scaled_up_to_a_full_volume() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("a.txt"), b"hi\n").unwrap();
    let tree = t.path().to_str().unwrap();
    let args = [
        tree,
        "--for",
        "windows,linux",
        "--volume",
        "64G",
        "--synthetic",
    ];
    let (v, code) = advise(&args);
    assert_eq!(code, 0, "{v}");
    for c in v["candidates"].as_array().unwrap() {
        assert!(c["overhead_note"].is_string(), "{c}");
        assert!(c.get("wasted_at_fill_bytes").is_none(), "{c}");
    }
    let out = fsfit().args(["advise", "-q"]).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no overhead percentage"), "{text}");
    assert!(
        !text.contains("wasted") && !text.contains("overhead limit is"),
        "{text}"
    );
    assert!(
        text.contains("no 10 % overhead limit without a percentage"),
        "{text}"
    );
}

#[test]
fn a_tiny_tree_on_a_large_volume_gets_no_cluster_below_4k_without_a_reason() {
    let t = tempfile::tempdir().unwrap();
    // 300 files of 100-1900 bytes: 512-byte clusters waste least, 4K is
    // far over the 10 % limit.
    for i in 0..300u64 {
        write_file(
            &t.path().join(format!("d{}/n{i}.txt", i / 50)),
            100 + (i * 37) % 1800,
        );
    }
    let (v, code) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "windows,macos",
        "--volume",
        "64G",
    ]);
    assert_eq!(code, 0);
    let c = &v["choice"];
    assert_eq!(c["fs"], "exfat", "{}", v["why"]);
    assert_eq!(c["cluster_bytes"], 4096, "{}", v["why"]);
    // Nothing measured: simulated on the default profile for 64G, said.
    assert_eq!(c["speed"], "simulated");
    assert_eq!(c["profile"], "usb2-stick");
    assert!(c["overhead_pct"].as_f64().unwrap() > 10.0);
    let why = v["why"].to_string();
    assert!(why.contains("without going below 4K"), "{why}");
    // What is assumed is said, and the trade-off against the least wasteful
    // cluster is in numbers.
    let assumed = v["assumptions"].to_string();
    assert!(
        assumed.contains("simulated")
            && assumed.contains("no --flash given")
            && assumed.contains("flash"),
        "{assumed}"
    );
    let trade = v["tradeoffs"].to_string();
    assert!(
        trade.contains("simulated on usb2-stick")
            && trade.contains("512")
            && trade.contains("more wasted"),
        "{trade}"
    );
    // With --fill the trade-offs are weighed at that amount.
    let (v, _) = advise(&[
        t.path().to_str().unwrap(),
        "--for",
        "windows,macos",
        "--fill",
        "1G",
    ]);
    assert_eq!(v["fill_bytes"], 1u64 << 30);
    assert!(v["tradeoffs"]
        .to_string()
        .contains("at 1.00 GiB of data like yours"));
}

#[test]
fn advise_arguments_are_checked() {
    for args in [
        &["advise", "--budget", "5s", "."][..],
        &["advise", "--budget", "ten", "."],
        &["advise", "--fill", "lots", "."],
        &["advise", "--image", "/tmp/x.img", "--bench", "b.json", "."],
        &["advise", "--yes-erase", "/dev/sdz", "."],
        &["advise", "--size", "1G", "."],
    ] {
        let out = fsfit().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Mounts and loop devices under `dir` still there.
#[cfg(target_os = "linux")]
fn leftovers(dir: &Path) -> Vec<String> {
    let s = dir.to_string_lossy().into_owned();
    let mut left: Vec<String> = std::fs::read_to_string("/proc/self/mounts")
        .unwrap()
        .lines()
        .filter(|l| l.contains(&s))
        .map(String::from)
        .collect();
    let losetup = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .unwrap();
    left.extend(
        String::from_utf8_lossy(&losetup.stdout)
            .lines()
            .filter(|l| l.contains(&s))
            .map(String::from),
    );
    left
}

#[test]
#[cfg(target_os = "linux")]
fn measures_on_an_image_within_the_budget_and_reports_it() {
    if !(common::can_mount() && common::have(&["mkfs.ext4", "mkfs.xfs"])) {
        return;
    }
    let state = tempfile::Builder::new()
        .prefix("fsfit-advise-")
        .tempdir()
        .unwrap();
    let tree = state.path().join("tree");
    common::mixed_tree(&tree, 200);
    let img = state.path().join("try.img");
    let json = state.path().join("advice.json");
    let budget = 60.0;
    let t0 = std::time::Instant::now();
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .args(["advise", "--quiet", "--for", "linux", "--budget", "60s"])
        .arg(&tree)
        .arg("--image")
        .arg(&img)
        .args(["--size", "1G", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let took = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The budget holds: measuring inside it, the whole run just after it
    // (the tree walk, and cleanup of a config stopped at the deadline).
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let b = &v["budget"];
    assert!(b["spent_seconds"].as_f64().unwrap() <= budget, "{b}");
    assert!(took <= budget + 15.0, "took {took:.0} s");
    assert!(
        leftovers(state.path()).is_empty(),
        "{:?}",
        leftovers(state.path())
    );
    // Something was measured on the image, and the choice rests on it.
    assert_eq!(v["speed_measured"], true, "{b}");
    assert_eq!(v["choice"]["speed"], "measured", "{}", v["why"]);
    let m = v["measurements"].as_array().unwrap();
    assert!(!m.is_empty());
    assert_eq!(m[0]["schema"], "fsfit.bench/1");
    assert_eq!(m[0]["target"]["kind"], "image");
    assert_eq!(v["volume_bytes"], 1u64 << 30);
    let ran: Vec<&Value> = b["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["configs"].as_array().unwrap())
        .collect();
    assert!(!ran.is_empty(), "{b}");
    // Each measured config's figures are in the evidence.
    for r in m {
        for c in r["results"].as_array().unwrap() {
            assert!(c["workloads"]
                .as_array()
                .unwrap()
                .iter()
                .all(|w| w["mb_per_s"].as_f64().unwrap() > 0.0));
        }
    }
    // fsfit report draws the evidence behind it.
    let html = state.path().join("r.html");
    let page = common::report_html(&json, &html);
    assert!(page.contains("Recommendation: advice"));
    assert!(page.contains("Benchmark: advice round 1"));
    assert!(page.contains("Space usage: advice sizes"));
}

/// A `fsfit.crash/1` file whose one result (`fs` at `cluster`) lost
/// `damaged` durable files in 40 states.
fn crash_file(dir: &Path, name: &str, model: &str, fs: &str, cluster: u64, damaged: u64) -> String {
    let v = serde_json::json!({
        "schema": "fsfit.crash/1", "fsfit": "test", "date": "2026-11-25T00:00:00Z",
        "command": "fsfit crash", "kernel": "test", "device_model": model, "seed": 1,
        "quick": true, "skipped": [],
        "results": [{
            "fs": fs, "cluster_bytes": cluster, "driver": "kernel:test", "mount_options": "",
            "checker": null, "workload": "save", "writes": 100, "flushes": 10,
            "log_bytes": 4096, "states": 40, "seconds": 1.0, "states_per_s": 40.0,
            "outcomes": {"mountable_as_is": 40, "checker_clean": 40, "checker_repaired": 0,
                "unrepairable": 0, "no_checker": 0, "old_files_damaged": 0,
                "durable_lost": damaged, "inflight_lost": 0, "inflight_garbage": 0},
            "worst": [], "error": null
        }]
    });
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

// `advise --crash`: measured crash damage moves a config down; a
// lying device's runs say nothing about the filesystem and are left out.
#[test]
fn crash_results_rank_a_damaged_filesystem_after_clean_ones() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    for i in 0..20 {
        write_file(&tree.join(format!("f{i}.dat")), 100_000 + i * 777);
    }
    let tree = tree.to_str().unwrap();
    let base = [tree, "--for", "linux", "--volume", "8G"];
    let (v, code) = advise(&base);
    assert_eq!(code, 0, "{v}");
    let first = v["choice"]["fs"].as_str().unwrap().to_string();
    let cluster = v["choice"]["cluster_bytes"].as_u64().unwrap();

    // Damage measured at another cluster still speaks for the filesystem.
    let bad = crash_file(t.path(), "bad.json", "honest", &first, cluster * 2, 3);
    let (v, code) = advise(&[&base[..], &["--crash", &bad]].concat());
    assert_eq!(code, 0, "{v}");
    assert_ne!(v["choice"]["fs"], first.as_str(), "{}", v["why"]);
    let hit = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == first.as_str())
        .expect("the damaged filesystem is still a candidate");
    assert!(hit["crash"].as_str().unwrap().contains("3 of 40"), "{hit}");

    let lying = crash_file(t.path(), "lying.json", "lying", &first, cluster, 3);
    let (v, _) = advise(&[&base[..], &["--crash", &lying]].concat());
    assert_eq!(v["choice"]["fs"], first.as_str(), "{}", v["why"]);

    let wrong = t.path().join("wrong.json");
    std::fs::write(&wrong, br#"{"schema":"fsfit.usage/1"}"#).unwrap();
    let out = fsfit()
        .args(["advise", tree, "--crash", wrong.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// No internal names in what a user reads: no seed numbers, no "the
/// article", no "(000)", in the text, the JSON or the HTML report.
#[test]
fn no_internal_names_in_any_output() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..30u64 {
        write_file(
            &t.path().join(format!("d{}/f{i}.txt", i % 3)),
            100 + i * 4093,
        );
    }
    let tree = t.path().to_str().unwrap();
    let json = t.path().join("a.json");
    let html = t.path().join("a.html");
    let text = fsfit()
        .args(["advise", "-q", tree, "--for", "windows,macos", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let usage = fsfit()
        .args(["usage", "-q", tree, "--report"])
        .arg(&html)
        .output()
        .unwrap();
    let report_page = common::report_html(&json, &t.path().join("b.html"));
    let all = [
        String::from_utf8_lossy(&text.stdout).into_owned(),
        String::from_utf8_lossy(&usage.stdout).into_owned(),
        std::fs::read_to_string(&json).unwrap(),
        std::fs::read_to_string(&html).unwrap(),
        report_page,
    ];
    for (i, out) in all.iter().enumerate() {
        let low = out.to_lowercase();
        for bad in ["seed 0", "the article", "(000)", "(001)", "(002)"] {
            assert!(!low.contains(bad), "output {i} says {bad:?}");
        }
    }
}

/// The advise report carries the format commands, the left-out list and a
/// size chart on a log scale with the volume's size drawn.
#[test]
fn the_advise_report_has_commands_left_out_and_a_log_chart() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..40u64 {
        write_file(
            &t.path().join(format!("tree/d{}/f{i}.txt", i % 4)),
            200 + i * 3001,
        );
    }
    let tree = t.path().join("tree");
    let json = t.path().join("a.json");
    let html = t.path().join("a.html");
    let out = fsfit()
        .args([
            "advise",
            "-q",
            "--for",
            "windows,macos",
            "--volume",
            "8GB",
            "--json",
        ])
        .arg(&json)
        .arg(&tree)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = common::report_html(&json, &html);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(page.contains("<h3>Format it</h3>"), "format commands");
    let linux = v["commands"]["linux"].as_str().unwrap();
    assert!(page.contains(&linux.replace('"', "&quot;")), "{linux}");
    assert!(page.contains("<h3>Left out</h3>"));
    assert!(page.contains("ntfs 512") && page.contains("macos only reads ntfs"));
    assert!(page.contains("Size on disk, log scale"));
    assert!(page.contains("volume 7.45 GiB"), "the volume's line");
    assert!(page.contains("How the candidates are ranked"));
    // Made without a drive: one advise file, and no pointer to benchmark
    // sections that are not there.
    assert!(page.contains("from 1 advise result."), "the inputs named");
    assert!(!page.contains("round N"), "no measurement sections");
    assert!(page.contains("no drive was measured for it"));
}

/// A label the choice cannot store is refused (exit 2) with the rule,
/// echoed in POSIX single quotes so pasting it back runs nothing; a label
/// it can store but a Windows shell would expand gets PowerShell's single
/// quotes on the Windows line, and says so.
#[test]
fn a_label_the_choice_cannot_store_is_refused_and_echoed_safely() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.jpg"), 5000);
    let tree = t.path().to_str().unwrap();
    let base = [
        "advise",
        "-q",
        tree,
        "--for",
        "windows,macos",
        "--volume",
        "64GB",
    ];
    let out = fsfit()
        .args(base)
        .args(["--label", "$(touch /tmp/p2)"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--label '$(touch /tmp/p2)'"), "{err}");
    assert!(err.contains(": no '/'"), "the rule: {err}");
    assert!(!err.contains("\"$("), "double quotes would run it: {err}");
    assert!(out.stdout.is_empty(), "printed a plan before refusing");
    let out = fsfit()
        .args(base)
        .args(["--for", "windows", "--label", "$(id)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let windows = text
        .lines()
        .find(|l| l.contains("Windows: format"))
        .unwrap();
    assert!(
        windows.contains("/V:'$(id)'   (in PowerShell)"),
        "{windows}"
    );
}

/// What bash runs for a pasted command line (`sudo` made to print its
/// arguments, one per line): the argv, or None when bash refuses it.
#[cfg(unix)]
fn argv_of(line: &str) -> Option<Vec<String>> {
    let out = std::process::Command::new("bash")
        .args(["-c", "sudo() { printf '<%s>\\n' \"$@\"; }; eval \"$1\""])
        .args(["bash", line])
        .output()
        .unwrap();
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect()
    })
}

/// Every printed `sudo` command, its `\`-newline continuations joined as
/// bash joins them, runs the argv of the JSON's command, with the label
/// one argument: a printed command is broken only between arguments,
/// never inside a quoted label, whatever the label holds.
#[test]
#[cfg(unix)]
fn printed_commands_paste_as_the_argv_intended() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.jpg"), 5000);
    let tree = t.path().to_str().unwrap();
    for label in [
        "IT'S AB",
        "a  b c",
        "$(id)",
        "x   (y",
        "A long label, 'quoted' it's",
    ] {
        let args = [tree, "--for", "windows", "--synthetic", "--label", label];
        let (v, code) = advise(&args);
        assert_eq!(code, 0, "{label}: {v}");
        let c = &v["commands"];
        let mut intended: Vec<&str> = c["linux_steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        intended.push(c["fsfit"].as_str().unwrap());
        let intended: Vec<Vec<String>> = intended
            .into_iter()
            .filter(|s| s.starts_with("sudo "))
            .map(|s| argv_of(s).unwrap())
            .collect();
        assert!(
            intended.iter().any(|a| a.contains(&format!("<{label}>"))),
            "{label}: {intended:?}"
        );
        let out = fsfit().arg("advise").args(args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).replace("\\\n", "");
        let printed: Vec<Vec<String>> = text
            .lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let at = if l.starts_with("sudo ") {
                    0
                } else {
                    l.find(": sudo ")? + 2
                };
                Some(argv_of(&l[at..]).unwrap_or_else(|| panic!("{label}: bash refuses {l}")))
            })
            .collect();
        assert_eq!(printed, intended, "{label}:\n{text}");
    }
}

/// A Windows line for PowerShell only keeps its marker on the command's
/// own line when the SD card's note moves above it.
#[test]
fn the_powershell_marker_stays_on_the_format_line() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.jpg"), 5000);
    let out = fsfit()
        .args(["advise", "-q", "--synthetic", "--for", "camera"])
        .args(["--volume", "2GB", "--label", "IT'S $(id)"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let marked: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("(in PowerShell)"))
        .collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(
        marked[0]
            .trim_start()
            .starts_with("format X: /FS:FAT /A:32K /Q /V:'IT''S $(ID)'"),
        "{text}"
    );
}

/// A tree of a few hundred small files and three large ones, for a 64 GB
/// camera card: its files alone would rank a small exFAT cluster first,
/// the card's specification puts 128K first.
fn card_tree(dir: &Path) {
    for i in 0..300u64 {
        write_file(&dir.join(format!("s{i}")), 100 + i * 37 % 20_000);
    }
    for i in 1..4u64 {
        write_file(&dir.join(format!("big{i}")), i * 3_000_000);
    }
}

/// A camera's card gets the specification's cluster ahead of the one the
/// files alone would rank first: the reason weighs the two with the same
/// figures as the trade-off does.
#[test]
fn a_cards_choice_is_weighed_once() {
    let t = tempfile::tempdir().unwrap();
    card_tree(t.path());
    let tree = t.path().to_str().unwrap();
    let (v, code) = advise(&[tree, "--for", "camera", "--volume", "64GB", "--synthetic"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["choice"]["cluster_bytes"], 128 << 10, "{}", v["why"]);
    let spec = v["why"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .find(|w| w.contains("your files alone would rank"))
        .expect("the ranking's own pick is said");
    let against = v["tradeoffs"][0].as_str().unwrap();
    assert!(spec.contains(against), "{spec}\nagainst\n{against}");
}

/// Traced, the card's choice (over the overhead limit, put first by the
/// specification) has a traced speed of its own, and no line says its
/// speed was "not measured" while the others' were traced.
#[test]
#[cfg(target_os = "linux")]
fn a_cards_choice_is_traced() {
    if !common::can_mount() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    card_tree(t.path());
    let tree = t.path().to_str().unwrap();
    let (v, code) = advise(&[tree, "--for", "camera", "--volume", "64GB"]);
    assert_eq!(code, 0, "{v}");
    if v["simulation"]["method"] != "traced" {
        return;
    }
    assert_eq!(v["choice"]["speed"], "simulated", "{}", v["why"]);
    let said = format!("{}{}", v["why"], v["tradeoffs"]);
    assert!(
        !said.contains("speed against") && !said.contains("budget ran out"),
        "{said}"
    );
}

/// A folder advise cannot read is left out of the advice, and the advice
/// says so, as usage does: the warnings are on stderr, which a reader of
/// stdout alone does not see. Root reads everything, so it runs as nobody.
#[test]
#[cfg(target_os = "linux")]
fn advise_says_part_of_the_tree_could_not_be_read() {
    use std::os::unix::fs::PermissionsExt;
    if !fsfit::device::is_root() {
        common::skip("root (to run fsfit as nobody)");
        return;
    }
    if !common::have(&["setpriv"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    write_file(&r.join("open/a"), 100);
    write_file(&r.join("closed/secret"), 100);
    for (d, mode) in [(r, 0o755), (&r.join("open"), 0o755), (&r.join("closed"), 0)] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_fsfit"))
        .args(["advise", "--quiet", "--synthetic", "--for", "linux"])
        .arg(r)
        .output()
        .unwrap();
    std::fs::set_permissions(r.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("closed"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1 entry could not be read: the warnings are on stderr"),
        "{text}"
    );
}

/// A label is checked against the filesystem it will be used with: one no
/// filesystem the systems use can store is refused with each one's rule,
/// the most robust (the likely choice) first, never with a rule of one
/// alone that the user did not choose; one only the choice cannot store is
/// refused with the choice's rule and the candidates that could store it.
#[test]
fn a_label_is_checked_against_the_filesystems_it_is_for() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.jpg"), 5000);
    let tree = t.path().to_str().unwrap();
    let refusal = |args: &[&str]| {
        let out = fsfit()
            .args(["advise", "-q", "--synthetic", tree])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "printed a plan before refusing");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        err
    };
    // In 100 columns, each rule in a few words after the filesystems that
    // have it.
    let err = refusal(&["--for", "windows,macos", "--label", "a/b"]);
    assert!(err.contains("exFAT/FAT32/FAT16/FAT12: no '/'"), "{err}");
    // Rules that differ are each said, the most robust filesystem's first.
    let err = refusal(&["--for", "windows,macos", "--label", "MY VACATION PHOTOS"]);
    let (exfat, fat) = (
        err.find("exFAT: at most 11 UTF-16 units"),
        err.find("FAT32/FAT16/FAT12: at most 11 bytes"),
    );
    assert!(exfat.is_some() && exfat < fat, "{err}");
    assert!(
        unicode_width::UnicodeWidthStr::width(err.trim_end()) <= 100,
        "{err}"
    );
    // An empty label breaks no filesystem's rule: one refusal, said once.
    let err = refusal(&["--for", "windows", "--label", ""]);
    assert_eq!(
        err.trim(),
        "fsfit: --label '': an empty label; leave --label out for a volume without one"
    );
    // ext4, a Linux drive's choice, holds 16 bytes; btrfs more.
    // The rule always, and as much of why as 100 columns hold: the choice,
    // then the other candidates that could store it.
    let fits = |err: &str| unicode_width::UnicodeWidthStr::width(err.trim_end()) <= 100;
    let err = refusal(&["--for", "linux", "--label", "Seventeen chars!!"]);
    assert!(
        err.contains("ext4 labels hold at most 16 bytes, not 17") && fits(&err),
        "{err}"
    );
    let err = refusal(&["--for", "linux", "--label", "ééééééééé"]);
    assert!(
        err.contains("ext4 labels hold at most 16 bytes, not 18")
            && err.contains("ext4 4K is the choice")
            && fits(&err),
        "{err}"
    );
    let (v, code) = advise(&[tree, "--for", "windows", "--label", "a/b", "--synthetic"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["choice"]["fs"], "ntfs");
    assert!(v["commands"]["windows"]
        .as_str()
        .unwrap()
        .contains("/V:\"a/b\""));
}
