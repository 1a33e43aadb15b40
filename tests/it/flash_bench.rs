//! `fsfit bench --flash` on real images: every workload and run gains
//! simulated figures per profile, from block traces of the real drivers
//! (ext4 in the kernel, exFAT through FUSE), in the fields DESIGN.md names,
//! and every view of a run shows the same relative figures.

use crate::common::{can_fuse, can_mount, fsfit, have};
use serde_json::Value;

const PROFILES: [&str; 2] = ["usb2-stick", "sd-2011-1au"];

fn flash_bench(args: &[&str]) -> (Value, String, u32, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let image = dir.path().join("b.img");
    let child = fsfit()
        .env("FSFIT_STATE_DIR", dir.path())
        .args([
            "bench", "--quiet", "--size", "1G", "--repeat", "2", "--image",
        ])
        .arg(&image)
        .arg("--json")
        .arg(&json)
        .arg("--report")
        .arg(dir.path().join("r.html"))
        .args(["--flash", &PROFILES.join(",")])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}\n{table}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (v, table, pid, html)
}

#[test]
fn bench_flash_gives_simulated_figures_per_profile_for_every_workload_and_run() {
    if !can_mount() || !can_fuse() || !have(&["mkfs.ext4", "mkfs.exfat", "mount.exfat-fuse"]) {
        return;
    }
    let (v, table, pid, html) = flash_bench(&[
        "--fs",
        "ext4",
        "--fs",
        "exfat:32K",
        "--scale",
        "0.02",
        "--workloads",
        "single-write,small-write,small-read",
    ]);
    assert_eq!(v["trace"], "tracefs:block_rq_issue");
    assert_eq!(v["partition_offset_bytes"], 1 << 20);
    assert_eq!(
        v["flash"]["max_sectors_kb"], 120,
        "the loop device took the USB 2 request size"
    );
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for c in results {
        for w in c["workloads"].as_array().unwrap() {
            let sims = w["simulated"]
                .as_array()
                .unwrap_or_else(|| panic!("no simulated in {w}"));
            let names: Vec<&str> = sims
                .iter()
                .map(|s| s["profile"].as_str().unwrap())
                .collect();
            assert_eq!(names, PROFILES, "{}", w["name"]);
            for s in sims {
                let secs = s["median_seconds"].as_f64().unwrap();
                assert!(
                    secs >= s["device_seconds"].as_f64().unwrap() * 0.999 && secs > 0.0,
                    "{s}"
                );
                assert!(s["mb_per_s"].as_f64().unwrap() > 0.0, "{s}");
            }
            for r in w["runs"].as_array().unwrap() {
                assert_eq!(r["simulated"].as_array().unwrap().len(), 2, "{r}");
                assert!(r["simulated"][0]["seconds"].as_f64().unwrap() > 0.0);
            }
        }
        let w = |n: &str| {
            c["workloads"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["name"] == n)
                .unwrap()
                .clone()
        };
        let single = &w("single-write")["simulated"][0];
        // A stick cannot beat its write speed (9.2 MB/s), nor a big
        // sequential write fall far below it.
        let mb = single["mb_per_s"].as_f64().unwrap();
        assert!(
            (3.0..9.2).contains(&mb),
            "{}: single-write {mb} MB/s on usb2-stick",
            c["fs"]
        );
        assert!(single["flash_write_amplification"].as_f64().unwrap() >= 1.0);
        // Small files on the one-open-AU card: slower than one big file.
        let small = w("small-write")["simulated"][1]["mb_per_s"]
            .as_f64()
            .unwrap();
        assert!(
            small
                < w("single-write")["simulated"][1]["mb_per_s"]
                    .as_f64()
                    .unwrap(),
            "{}",
            c["fs"]
        );
    }
    assert!(
        table.contains("simulated (usb2-stick)") && table.contains("simulated (sd-2011-1au)"),
        "{table}"
    );
    // The report: a panel per profile, labelled simulated.
    assert!(html.contains("Simulated on usb2-stick") && html.contains("Simulated on sd-2011-1au"));
    let wide: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("simulated"))
        .filter(|l| l.len() > 100)
        .collect();
    assert!(wide.is_empty(), "lines over 100 columns: {wide:?}");
    let instances = std::fs::read_dir("/sys/kernel/tracing/instances").unwrap();
    let left: Vec<_> = instances
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("fsfit-{pid}-"))
        })
        .collect();
    assert!(left.is_empty(), "ftrace instances left: {left:?}");
}

/// The `%` column of each workload row of the table under `heading`: one
/// entry per config, in the table's order.
fn table_pcts(table: &str, heading: &str) -> Vec<(String, Vec<String>)> {
    let start = table
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in\n{table}"));
    table[start..]
        .lines()
        .skip_while(|l| !l.starts_with("WORKLOAD"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let mut t = l.split_whitespace();
            let name = t.next().unwrap().to_string();
            (
                name,
                t.filter(|x| x.ends_with('%')).map(String::from).collect(),
            )
        })
        .collect()
}

/// The rows of the first HTML table after `heading`: workload, then each
/// config's cell text.
fn html_rows(html: &str, heading: &str) -> Vec<(String, Vec<String>)> {
    let start = html
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the HTML"));
    let rest = &html[start..];
    let body = &rest[rest.find("<tbody>").unwrap()..rest.find("</tbody>").unwrap()];
    let cells = |row: &str| -> Vec<String> {
        row.split("<td")
            .skip(1)
            .map(|c| {
                let c = &c[c.find('>').unwrap() + 1..];
                c[..c.find("</td>").unwrap()].to_string()
            })
            .collect()
    };
    body.split("<tr>")
        .skip(1)
        .map(|r| {
            let c = cells(r);
            (c[0].clone(), c[1..].to_vec())
        })
        .collect()
}

/// The JSON's relative figures of workload `name`, one per config, as the
/// views print them (`{p:.0}` then the unit's spacing).
fn json_pcts(v: &Value, name: &str, profile: Option<&str>, sep: &str) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let w = c["workloads"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["name"] == name)
                .unwrap();
            let p = match profile {
                None => &w["relative_pct"],
                Some(p) => w["simulated"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["profile"] == p)
                    .map(|s| &s["relative_pct"])
                    .unwrap(),
            };
            let p = p.as_f64().unwrap_or_else(|| panic!("no relative_pct: {w}"));
            format!("{p:.0}{sep}%")
        })
        .collect()
}

#[test]
fn terminal_json_and_html_show_the_same_relative_figures_simulated_first() {
    if !can_mount() || !can_fuse() || !have(&["mkfs.ext4", "mkfs.exfat", "mount.exfat-fuse"]) {
        return;
    }
    let (v, table, _, html) = flash_bench(&[
        "--fs",
        "ext4",
        "--fs",
        "exfat",
        "--scale",
        "0.02",
        "--workloads",
        "tiny-write,large-write",
    ]);
    for p in PROFILES {
        // The terminal's simulated table against the JSON's figures.
        let rows = table_pcts(&table, &format!("simulated ({p})"));
        assert_eq!(rows.len(), 2, "{table}");
        for (name, got) in &rows {
            assert_eq!(
                *got,
                json_pcts(&v, name, Some(p), ""),
                "{p} {name}\n{table}"
            );
        }
        // The HTML's simulated relative table against the same figures.
        let rows = html_rows(
            &html,
            &format!("Simulated on {p}: relative to the baseline"),
        );
        assert_eq!(rows.len(), 2);
        for (name, got) in &rows {
            assert_eq!(*got, json_pcts(&v, name, Some(p), " "), "{p} {name}");
        }
    }
    // The host's own relative figures, in the HTML after the simulated ones.
    let host = "Relative to the baseline: this machine's image, not a drive";
    for (name, got) in html_rows(&html, host) {
        assert_eq!(got, json_pcts(&v, &name, None, " "), "host {name}");
    }
    // The first chart after the environment is a simulated one.
    let first = &html[html.find("<figure id=\"").unwrap()..];
    assert!(
        first.starts_with(&format!("<figure id=\"fig-bench-1-sim-{}-", PROFILES[0])),
        "{}",
        &first[..80]
    );
    let sim = html.find(&format!("Simulated on {}", PROFILES[0])).unwrap();
    let host_at = html.find("Throughput per workload: this machine").unwrap();
    assert!(
        sim < host_at,
        "the host's panels come after the simulated ones"
    );
}

/// `--partition-offset 32256,1M`: each run's one trace is replayed at both
/// offsets (the volume is made alone, so the filesystem's writes do not
/// depend on the offset): every figure states its offset, each run has
/// the same requests at both, and every view has a table per profile and
/// offset, named by the one function that names them.
#[test]
fn bench_replays_one_trace_at_every_partition_offset() {
    if !can_mount() || !have(&["mkfs.ext4"]) {
        return;
    }
    let (v, table, _, html) = flash_bench(&[
        "--fs",
        "ext4",
        "--scale",
        "0.02",
        "--workloads",
        "small-write",
        "--partition-offset",
        "32256,1M",
    ]);
    let offsets = [32256u64, 1 << 20];
    assert_eq!(
        v["flash"]["partition_offsets_bytes"],
        serde_json::json!(offsets)
    );
    assert_eq!(v["partition_offset_bytes"], 32256, "the first offset");
    let w = &v["results"][0]["workloads"][0];
    let got: Vec<(String, u64)> = w["simulated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let at = s["partition_offset_bytes"].as_u64().unwrap();
            (s["profile"].as_str().unwrap().to_string(), at)
        })
        .collect();
    let want: Vec<(String, u64)> = offsets
        .iter()
        .flat_map(|&o| PROFILES.iter().map(move |p| (p.to_string(), o)))
        .collect();
    assert_eq!(got, want);
    for run in w["runs"].as_array().unwrap() {
        let sims = run["simulated"].as_array().unwrap();
        assert_eq!(sims.len(), 4, "{run}");
        for (a, b) in sims[..2].iter().zip(&sims[2..]) {
            assert_eq!(a["profile"], b["profile"]);
            assert_eq!(a["requests"], b["requests"], "one trace at both offsets");
            assert!(a["requests"].as_u64().unwrap() > 0);
        }
    }
    for at in [
        "volume at 32256 B on the flash",
        "volume at 1.00 MiB on the flash",
    ] {
        assert_eq!(table.matches(at).count(), 2, "{at}:\n{table}");
    }
    // Each profile at each offset says where the volume falls against its
    // pages and AUs, from the profile's own sizes: 1 MiB is on the pages of
    // both sticks but inside their 4 MiB AUs, so it is not "aligned" there.
    let falls = v["flash"]["alignments"].as_array().unwrap();
    assert_eq!(falls.len(), want.len(), "{falls:?}");
    for (a, (profile, at)) in falls.iter().zip(&want) {
        let p = fsfit::flash::profile(profile).unwrap();
        assert_eq!(a["profile"], profile.as_str());
        assert_eq!(a["partition_offset_bytes"], *at);
        assert_eq!(a["into_page_bytes"], at % p.page_bytes(), "{a}");
        assert_eq!(a["into_au_bytes"], at % p.au_bytes(), "{a}");
        let said = fsfit::flash::Alignment::of(&p, *at).said();
        assert_eq!(table.matches(&said).count(), 1, "{said}:\n{table}");
        assert!(html.contains(&said), "{said} in the HTML");
    }
    assert!(
        table.contains("1.00 MiB into its 4.00 MiB AUs"),
        "1 MiB against 4 MiB AUs:\n{table}"
    );
    assert!(html.contains("Simulated on usb2-stick at 32256 B"), "html");
    assert!(
        html.contains("Simulated on sd-2011-1au at 1.00 MiB"),
        "html"
    );
}

#[test]
fn bad_flash_arguments_are_refused_with_one_line() {
    for args in [
        vec!["bench", "--flash", "no-such-stick"],
        vec![
            "bench",
            "--flash",
            "usb2-stick",
            "--partition-offset",
            "1000",
        ],
        vec![
            "bench",
            "--flash",
            "usb2-stick",
            "--partition-offset",
            "32256,1M,32256",
        ],
        vec!["bench", "--flash", "usb2-stick", "--dir", "/tmp"],
        // `--json` alone prints to stdout now; a folder that is not there
        // is refused before any work.
        vec!["bench", "--json", "/nonexistent-fsfit-dir/x.json"],
    ] {
        let out = fsfit().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

fn advise_json(args: &[&str]) -> (Value, Option<i32>) {
    let out = fsfit()
        .arg("advise")
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (v, out.status.code())
}

/// A tree of a few bytes writes at well under 0.01 MB/s: its rates and the
/// trade-offs between candidates still say something (no "0.00 MB/s", no
/// NaN from comparing two rates rounded to zero).
#[test]
fn advise_on_a_few_bytes_compares_speeds_without_nan() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("a.txt"), b"hi\n").unwrap();
    let path = t.path().to_str().unwrap();
    for method in [&["--synthetic"][..], &[]] {
        let out = fsfit()
            .args([
                "advise", path, "--for", "windows", "--volume", "16GB", "--quiet",
            ])
            .args(method)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{method:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for bad in ["NaN", "inf %", "0.00 MB/s"] {
            assert!(!text.contains(bad), "{method:?}: {bad} in\n{text}");
        }
        assert!(
            text.contains(" B/s"),
            "{method:?}: the rate in B/s:\n{text}"
        );
        let (v, _) = advise_json(&[path, "--for", "windows", "--volume", "16GB"]);
        for c in v["candidates"].as_array().unwrap() {
            if c["speed"] == "simulated" {
                assert!(c["simulated_mb_per_s"].as_f64().unwrap() > 0.0, "{c}");
            }
            // What a volume holds of data like a few bytes is its free
            // space, not the few bytes' ratio to a cluster.
            assert!(c["holds_bytes"].as_u64().unwrap() > 14_000_000_000, "{c}");
        }
    }
}

#[test]
fn advise_flash_ranks_by_the_speed_simulated_on_the_profile() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..200u64 {
        crate::common::write_file(&t.path().join(format!("d/f{i}")), 3000 + i * 97);
    }
    crate::common::write_file(&t.path().join("big.bin"), 20 << 20);
    let path = t.path().to_str().unwrap();
    let (v, code) = advise_json(&[path, "--volume", "16G", "--flash", "sd-2011-1au"]);
    assert_eq!(code, Some(0));
    let all = v["candidates"].as_array().unwrap();
    // As root the sample of the tree is copied under trace onto the
    // candidates that can still win; the others carry no figure rather
    // than a synthetic one that would not compare with theirs.
    let traced = v["simulation"]["method"] == "traced";
    let simulated: Vec<&Value> = all.iter().filter(|c| c["speed"] == "simulated").collect();
    assert!(simulated.len() > 3, "{}", v["simulation"]);
    assert!(all
        .iter()
        .all(|c| c["speed"] == "simulated" || (traced && c["speed"] == "unmeasured")));
    for c in simulated {
        assert_eq!(c["profile"], "sd-2011-1au", "{c}");
        let mb = c["simulated_mb_per_s"].as_f64().unwrap();
        assert!(mb > 0.0 && mb <= 10.0, "a card of Pw 10 MB/s: {mb}");
    }
    let assumed = v["assumptions"].to_string();
    assert!(assumed.contains("sd-2011-1au (--flash)"), "{assumed}");
    // Where the simulated volume starts is where the plan printed beside
    // the figures puts it: on an SD card of 16 GB, the SD layout's one
    // boundary unit (4 MiB), on this card's pages and AUs, as fsfit format
    // would make it (not fdisk's 1 MiB, a quarter into its AUs).
    let fall = &v["simulation"]["alignment"];
    let planned = &v["choice"]["plan"]["partition_start_bytes"];
    assert_eq!(&fall["partition_offset_bytes"], planned, "{fall}");
    assert_eq!(fall["partition_offset_bytes"], 4 << 20, "{fall}");
    assert_eq!(fall["into_au_bytes"], 0, "{fall}");
    assert_eq!(fall["into_page_bytes"], 0, "{fall}");
    assert!(
        assumed.contains("the choice's volume 4.00 MiB into the flash, where its plan puts it: on its 32.0 KiB page and 4.00 MiB AU boundaries"),
        "{assumed}"
    );
    // Every simulated candidate's plan starts there too: each figure is
    // simulated where its own plan puts the volume.
    for c in all.iter().filter(|c| c["speed"] == "simulated") {
        assert_eq!(c["plan"]["partition_start_bytes"], 4 << 20, "{c}");
    }
    // --drive, the older name, still works and hides in the help.
    let (old, code) = advise_json(&[path, "--volume", "16G", "--drive", "sd-2011-1au"]);
    assert_eq!(code, Some(0));
    assert_eq!(old["choice"]["profile"], "sd-2011-1au");
    // Without --flash the default is named, with how it was chosen.
    let (v, _) = advise_json(&[path, "--volume", "1T"]);
    assert_eq!(v["choice"]["profile"], "nvme-usb-sn570");
    assert!(v["assumptions"].to_string().contains("no --flash given"));
    // Measured speeds win: --flash cannot be combined with a measurement.
    let (_, code) = advise_json(&[path, "--flash", "usb2-stick", "--bench", "x.json"]);
    assert_eq!(code, Some(2));
    let (_, code) = advise_json(&[path, "--drive", "no-such-card"]);
    assert_eq!(code, Some(2));
}
