//! One plan everywhere: what `fsfit advise` plans for a drive is what
//! `fsfit format` plans when given the line advise prints, over a grid of
//! sizes and uses; and the cases a new user tried (a camera's card, a 4 TB
//! drive, a car's stick) get the layout their use needs.

use crate::common;

use common::{fsfit, write_file};
use serde_json::Value;
use std::path::Path;

/// `fsfit advise --json FILE` (a file: the JSON option's spelling for
/// stdout may change) and the text it printed.
fn advise(tree: &Path, dir: &Path, args: &[&str]) -> (Value, String) {
    let json = dir.join("advice.json");
    let _ = std::fs::remove_file(&json);
    let out = fsfit()
        .arg("advise")
        .arg(tree)
        .arg("--json")
        .arg(&json)
        // The plan does not depend on how speeds are simulated: the quick
        // estimate keeps a grid of many runs from copying samples each time.
        .arg("--synthetic")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "advise {args:?}: {err}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (v, joined(&String::from_utf8_lossy(&out.stdout)))
}

/// The text with every command the terminal width continued after ` \`
/// joined back into one line, as the shell reads it when pasted.
fn joined(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.to_string();
        while let Some(head) = line.strip_suffix(" \\") {
            let next = lines.next().unwrap_or("");
            line = format!("{head} {}", next.trim_start());
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The options of the printed `sudo fsfit format /dev/sdX ... --yes-erase
/// /dev/sdX` line, without the device and the confirmation.
fn format_flags(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        &words[..4],
        ["sudo", "fsfit", "format", "/dev/sdX"],
        "{line}"
    );
    let n = words.len();
    assert_eq!(&words[n - 2..], ["--yes-erase", "/dev/sdX"], "{line}");
    words[4..n - 2].iter().map(|w| w.to_string()).collect()
}

/// `fsfit format IMG --size S --dry-run --json FILE` with the printed
/// line's options: its fsfit.format/1 report.
fn format_plan(dir: &Path, size: u64, flags: &[String]) -> Value {
    let json = dir.join("format.json");
    let _ = std::fs::remove_file(&json);
    let out = fsfit()
        .arg("format")
        .arg(dir.join("new-card.img"))
        .args(["--size", &size.to_string(), "--dry-run", "--json"])
        .arg(&json)
        .args(flags)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "format {flags:?} at {size}: {err}");
    assert!(
        !dir.join("new-card.img").exists(),
        "a dry run makes no image"
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

const FIELDS: &[&str] = &[
    "table",
    "partition_start_bytes",
    "partition_size_bytes",
    "partition_type",
    "alignment_bytes",
    "sd_layout",
    "fs",
    "cluster_bytes",
    "label",
    "data_offset_bytes",
];

/// The candidate's plan equals what format plans from its printed line:
/// every field and every command; `why` may word the table's reason
/// differently (format does not know the use).
fn same_plan(what: &str, plan: &Value, size: u64, dir: &Path) {
    let line = plan["commands"]["fsfit"].as_str().unwrap();
    let f = format_plan(dir, size, &format_flags(line));
    for k in FIELDS {
        assert!(
            plan.get(k).is_some(),
            "{what}: advise's plan has no {k}: {plan}"
        );
        assert_eq!(plan[k], f[k], "{what}: {k} (advise {plan}, format {f})");
        assert_eq!(plan[k], f["plan"][k], "{what}: {k} in format's plan");
    }
    assert_eq!(plan["commands"], f["plan"]["commands"], "{what}: commands");
    assert_eq!(
        plan["unused_bytes"], f["plan"]["unused_bytes"],
        "{what}: unused_bytes"
    );
}

fn tree(dir: &Path) -> std::path::PathBuf {
    let t = dir.join("tree");
    for i in 0..12u64 {
        write_file(&t.join(format!("d{}/f{i}.jpg", i % 3)), 3_000 + i * 190_001);
    }
    t
}

#[test]
fn advise_plans_what_format_plans_over_sizes_and_uses() {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    let sizes: [u64; 9] = [
        1_000_000_000,
        2_000_000_000,
        16_000_000_000,
        32_000_000_000,
        64_000_000_000,
        256_000_000_000,
        1_000_000_000_000,
        1 << 41,
        4_000_000_000_000,
    ];
    let mut uses: Vec<String> = [
        "windows",
        "macos",
        "linux",
        "android",
        "camera",
        "tv",
        "car",
        "car-exfat",
        "switch",
        "playstation",
        "xbox",
        "console",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    uses.extend(["windows,macos", "camera,tv", "linux,car", "android,windows"].map(String::from));
    let mut checked = 0;
    for size in sizes {
        for u in uses.iter().map(Some).chain([None]) {
            let mut args = vec!["--volume".to_string(), size.to_string()];
            if let Some(u) = u {
                args.extend(["--for".to_string(), u.clone()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (v, _) = advise(&t, d.path(), &args);
            // The choice, the runner-up (for a camera: another cluster on
            // the SD layout's alignment), and the last candidate.
            let list = v["candidates"].as_array().unwrap();
            let picks = [list.first(), list.get(1), list.last()];
            for c in picks.into_iter().flatten() {
                let what = format!("{args:?} {}:{}", c["fs"], c["cluster_bytes"]);
                same_plan(&what, &c["plan"], size, d.path());
                checked += 1;
            }
            assert_eq!(v["choice"]["plan"], list[0]["plan"], "{args:?}");
        }
    }
    assert!(checked > 9 * 17, "{checked} plans checked");
}

/// The camera's card gets the SD specification's layout, and the line
/// to paste says --sd; at 16 and 32 GB FAT32 with 32K clusters, at
/// 256 GB exFAT with 256K and a 32 MiB boundary unit.
#[test]
fn a_camera_card_gets_the_sd_layout() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("photos");
    for i in 0..30u64 {
        write_file(&t.join(format!("IMG_{i}.JPG")), 37_000 * (i + 1));
    }
    for (volume, fs, cluster, bu) in [
        ("64GB", "exfat", 128u64 << 10, 16u64 << 20),
        ("16GB", "fat32", 32 << 10, 4 << 20),
        ("32GB", "fat32", 32 << 10, 4 << 20),
        ("256GB", "exfat", 256 << 10, 32 << 20),
    ] {
        let (v, text) = advise(&t, d.path(), &["--for", "camera", "--volume", volume]);
        let p = &v["choice"]["plan"];
        assert_eq!(
            (p["fs"].as_str(), p["cluster_bytes"].as_u64()),
            (Some(fs), Some(cluster))
        );
        assert_eq!(
            p["partition_start_bytes"].as_u64(),
            Some(bu),
            "{volume}: {p}"
        );
        assert_eq!(p["alignment_bytes"].as_u64(), Some(bu), "{volume}");
        assert_eq!(
            (p["table"].as_str(), p["sd_layout"].as_bool()),
            (Some("mbr"), Some(true))
        );
        assert_eq!(p["data_offset_bytes"].as_u64().unwrap() % bu, 0, "{volume}");
        let line = p["commands"]["fsfit"].as_str().unwrap();
        assert!(line.contains(" --sd "), "{line}");
        // The label may stand on the line above when the two do not fit
        // the width together.
        assert!(
            text.contains("or in one line:") && text.contains(line),
            "{text}"
        );
        let why = v["why"].to_string();
        assert!(why.contains("SD specification"), "{volume}: {why}");
        assert!(!text.contains("(cameras"), "the system's name once: {text}");
    }
    // The HTML page renders the same plan, from the JSON.
    let (v, _) = advise(&t, d.path(), &["--for", "camera", "--volume", "64GB"]);
    let html = d.path().join("a.html");
    let page = common::report_html(&d.path().join("advice.json"), &html);
    let p = &v["choice"]["plan"];
    let line = p["commands"]["fsfit"].as_str().unwrap();
    assert!(page.contains(line) && line.contains("--sd"), "{line}");
    assert!(
        page.contains("one partition from 16M"),
        "the plan's summary"
    );
    let why = p["why"][0].as_str().unwrap().replace('\'', "&#39;");
    assert!(
        page.contains("Why this layout") && page.contains(&why),
        "{why}"
    );
}

/// Over 2 TiB an MBR cannot address the drive: GPT, and the reason said;
/// but a system that reads only MBR gets MBR with the partition ending at
/// its reach, and what stays unused is said.
#[test]
fn a_4_tb_drive_gets_gpt_unless_a_system_reads_only_mbr() {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    for sys in ["linux", "windows,macos"] {
        let (v, text) = advise(&t, d.path(), &["--for", sys, "--volume", "4TB"]);
        let p = &v["choice"]["plan"];
        assert_eq!(p["table"], "gpt", "{sys}: {p}");
        let steps = p["commands"]["linux"].to_string();
        assert!(
            steps.contains("--label gpt") && !steps.contains("--label dos"),
            "{steps}"
        );
        assert!(
            p["why"][0].as_str().unwrap().contains("2 TiB"),
            "{sys}: {}",
            p["why"]
        );
        assert_eq!(p["unused_bytes"], 0, "{sys}: {p}");
        assert!(text.contains("sfdisk --label gpt"), "{text}");
    }
    let (v, text) = advise(&t, d.path(), &["--for", "car-exfat", "--volume", "4TB"]);
    let p = &v["choice"]["plan"];
    assert_eq!(p["table"], "mbr", "{p}");
    let (start, len) = (
        p["partition_start_bytes"].as_u64().unwrap(),
        p["partition_size_bytes"].as_u64().unwrap(),
    );
    assert_eq!(
        start + len,
        1 << 41,
        "the partition ends at MBR's reach: {p}"
    );
    assert!(p["unused_bytes"].as_u64().unwrap() > 0, "{p}");
    assert!(text.contains("stays unused"), "{text}");
    assert!(text.contains(&format!("size={}", len / 512)), "{text}");
    // The pasted one-liner runs: format takes --table mbr over 2 TiB and
    // plans the same partition.
    let line = p["commands"]["fsfit"].as_str().unwrap();
    assert!(line.contains("--table mbr"), "{line}");
    let f = format_plan(
        d.path(),
        4_000_000_000_000,
        &[
            "--fs".into(),
            "exfat".into(),
            "--table".into(),
            "mbr".into(),
        ],
    );
    assert_eq!(f["table"], "mbr");
    assert_eq!(f["partition_size_bytes"].as_u64(), Some(len), "{f}");
    assert_eq!(f["plan"]["unused_bytes"], p["unused_bytes"], "{f}");
    // fsfit format alone: GPT over 2 TiB.
    let f = format_plan(
        d.path(),
        4_000_000_000_000,
        &["--fs".into(), "exfat".into()],
    );
    assert_eq!(f["table"], "gpt");
}

/// A car's music drive is a USB stick; a camera's and the Switch's an SD card.
#[test]
fn the_simulated_drive_follows_what_the_system_takes() {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    for (sys, want) in [
        ("car", "usb"),
        ("tv", "usb"),
        ("camera", "microsd"),
        ("switch", "microsd"),
    ] {
        let (v, _) = advise(&t, d.path(), &["--for", sys, "--volume", "16GB"]);
        let profile = v["choice"]["profile"].as_str().unwrap();
        assert!(profile.starts_with(want), "{sys}: {profile}");
    }
    // A drive named as an SD card is laid out on its boundary unit (4 MiB
    // at 16 GB) whatever the filesystem, and format plans the same.
    let args = [
        "--for",
        "linux",
        "--volume",
        "16GB",
        "--flash",
        "sd-2011-1au",
    ];
    let (v, _) = advise(&t, d.path(), &args);
    let p = &v["choice"]["plan"];
    assert!(
        p["commands"]["fsfit"].as_str().unwrap().contains(" --sd "),
        "{p}"
    );
    assert_eq!(p["partition_start_bytes"], 4 << 20, "{p}");
    same_plan("--flash sd-2011-1au", p, 16_000_000_000, d.path());
}
