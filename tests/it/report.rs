//! `fsfit report`, `fsfit usage --report`, `fsfit bench --report` and
//! `fsfit crash --report` from real runs, rendered in headless Chromium: the
//! DOM must hold the charts the inputs call for, every config, the
//! environment, and nothing fetched from elsewhere. The screenshot stays at
//! target/report-screenshot.png.

use crate::common;

use common::{fsfit, run_ok};
use serde_json::Value;
use std::path::Path;
#[cfg(target_os = "linux")]
use std::process::Command;

fn tmp(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

#[cfg(target_os = "linux")]
fn chromium() -> Option<std::path::PathBuf> {
    for p in [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ] {
        if Path::new(p).is_file() {
            return Some(std::path::PathBuf::from(p));
        }
    }
    common::skip("chromium (apt-get install chromium)");
    None
}

/// Headless Chromium with everything that could reach the network off;
/// `what` is `--dump-dom` or `--screenshot=FILE`.
#[cfg(target_os = "linux")]
fn chrome(bin: &Path, profile: &Path, page: &Path, what: &str) -> String {
    let mut cmd = if Path::new("/usr/bin/timeout").exists() {
        let mut c = Command::new("/usr/bin/timeout");
        c.arg("180").arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,4000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(what)
    .arg(format!("file://{}", page.display()));
    let out = cmd.output().expect("run chromium");
    assert!(
        out.status.success(),
        "chromium {what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A tree with small and large files and names Windows refuses.
fn tree(root: &Path) {
    common::mixed_tree(root, 200);
    common::write_file(&root.join("odd/a:b.txt"), 10);
    common::write_file(&root.join("odd/Readme"), 10);
    common::write_file(&root.join("odd/README"), 10);
}

const USAGE_FS: [&str; 8] = [
    "--fs",
    "exfat:512,4K,32K,128K,1M",
    "--fs",
    "fat32:4K,32K",
    "--fs",
    "ntfs",
    "--fs",
    "ext4",
];

/// `exfat:32K`, as the report names configs.
fn short(n: u64) -> String {
    for (shift, s) in [(30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{}{s}", n >> shift);
        }
    }
    n.to_string()
}

fn configs(v: &Value, key: &str) -> Vec<Value> {
    v[key].as_array().cloned().unwrap_or_default()
}

fn name(c: &Value) -> String {
    format!(
        "{}:{}",
        c["fs"].as_str().unwrap(),
        short(c["cluster_bytes"].as_u64().unwrap())
    )
}

fn ok(w: &Value) -> bool {
    w["error"].is_null()
        && w["median_seconds"].as_f64().unwrap_or(0.0) > 0.0
        && w["runs"].as_array().is_some_and(|r| !r.is_empty())
}

fn find<'a>(c: &'a Value, wl: &str) -> Option<&'a Value> {
    c["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == wl && ok(w))
}

/// The charts the report promises for these inputs, counted from the JSON.
fn expected_charts(bench: &[Value], usage: &[Value]) -> usize {
    let mut n = 0;
    for b in bench {
        let res = configs(b, "results");
        let mut names: Vec<String> = Vec::new();
        for c in &res {
            for w in c["workloads"].as_array().unwrap() {
                let s = w["name"].as_str().unwrap().to_string();
                if !names.contains(&s) {
                    names.push(s);
                }
            }
        }
        // one chart per workload some config completed
        n += names
            .iter()
            .filter(|w| res.iter().any(|c| find(c, w).is_some()))
            .count();
        // relative to the baseline
        if res.len() >= 2
            && names.iter().any(|w| {
                res.iter()
                    .filter(|c| find(c, w).is_some_and(|w| w["relative_pct"].is_number()))
                    .count()
                    >= 2
            })
        {
            n += 1;
        }
        // write amplification
        if names.iter().filter(|w| w.ends_with("-write")).any(|w| {
            res.iter().any(|c| {
                find(c, w).is_some_and(|w| {
                    w["bytes"].as_u64().unwrap() > 0
                        && !w["flags"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|f| f == "no-device-counters")
                })
            })
        }) {
            n += 1;
        }
        // fragmented against contiguous
        if res.iter().any(|c| {
            (find(c, "single-write").is_some() && find(c, "fragmented-write").is_some())
                || (find(c, "single-read").is_some() && find(c, "fragmented-read").is_some())
        }) {
            n += 1;
        }
    }
    // side by side: every later bench file sharing a config and workload
    for b in bench.iter().skip(1) {
        let a = &bench[0];
        let shared = configs(a, "results").iter().any(|ca| {
            configs(b, "results").iter().any(|cb| {
                name(ca) == name(cb)
                    && ca["workloads"].as_array().unwrap().iter().any(|w| {
                        find(ca, w["name"].as_str().unwrap()).is_some()
                            && find(cb, w["name"].as_str().unwrap()).is_some()
                    })
            })
        });
        n += usize::from(shared);
    }
    // sweeps: per filesystem at two or more cluster sizes in one input
    let mut fss: Vec<String> = Vec::new();
    for c in bench
        .iter()
        .flat_map(|b| configs(b, "results"))
        .chain(usage.iter().flat_map(|u| configs(u, "configs")))
    {
        let f = c["fs"].as_str().unwrap().to_string();
        if !fss.contains(&f) {
            fss.push(f);
        }
    }
    let clusters = |cs: Vec<&Value>| {
        let mut v: Vec<u64> = cs
            .iter()
            .map(|c| c["cluster_bytes"].as_u64().unwrap())
            .collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    for f in &fss {
        let speed = bench.iter().any(|b| {
            ["single-write", "large-write"].iter().any(|wl| {
                clusters(
                    b["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|c| c["fs"] == f.as_str() && find(c, wl).is_some())
                        .collect(),
                ) >= 2
            })
        });
        let format = bench.iter().any(|b| {
            clusters(
                b["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|c| {
                        c["fs"] == f.as_str()
                            && c["format_seconds"].as_f64().unwrap() > 0.0
                            && c["error"].is_null()
                    })
                    .collect(),
            ) >= 2
        });
        let size = usage.iter().any(|u| {
            clusters(
                u["configs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|c| c["fs"] == f.as_str())
                    .collect(),
            ) >= 2
        });
        n += usize::from(speed) + usize::from(format) + 3 * usize::from(size);
    }
    // size on disk per config, per usage run
    n += usage
        .iter()
        .filter(|u| !configs(u, "configs").is_empty())
        .count();
    n
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// What every report must satisfy, in the HTML as written or as rendered.
fn check_page(dom: &str, charts: usize, names: &[String]) {
    assert_eq!(
        count(dom, "<svg"),
        charts,
        "number of charts (<svg>) differs from what the inputs call for"
    );
    assert_eq!(count(dom, "role=\"img\""), charts);
    assert_eq!(
        count(dom, "<title id="),
        charts,
        "every chart has a <title>"
    );
    assert_eq!(count(dom, "<desc id="), charts, "every chart has a <desc>");
    assert_eq!(count(dom, "<figcaption>"), charts);
    for n in names {
        assert!(dom.contains(n.as_str()), "config {n} missing from the page");
    }
    // Self-contained: no scripts, styles, images or frames from elsewhere;
    // the only URL is the SVG namespace.
    let lower = dom.to_ascii_lowercase();
    for bad in [
        "<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url(", "src=",
    ] {
        assert!(!lower.contains(bad), "the page holds {bad}");
    }
    let rest = lower.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !rest.contains("http://") && !rest.contains("https://") && !rest.contains("//cdn"),
        "the page names an external URL"
    );
}

/// The findings of the usage run, counts and examples, are on the page
/// (what a filesystem model flags depends on the build: stub models flag
/// nothing, and the page then says so).
fn check_findings(page: &str, usage: &Value) {
    assert!(page.contains("Compatibility findings"));
    let mut any = false;
    for c in configs(usage, "configs") {
        for (kind, n) in c["problems"].as_object().unwrap() {
            if n.as_u64().unwrap() > 0 {
                any = true;
                assert!(page.contains(kind.as_str()), "finding {kind} missing");
                let ex = c["problem_examples"][kind][0].as_str().unwrap();
                assert!(page.contains(ex), "example {ex} of {kind} missing");
            }
        }
    }
    if !any {
        assert!(page.contains("No findings"));
    }
}

fn short_names(bench: &[Value], usage: &[Value]) -> Vec<String> {
    bench
        .iter()
        .flat_map(|b| configs(b, "results"))
        .chain(usage.iter().flat_map(|u| configs(u, "configs")))
        .map(|c| name(&c))
        .collect()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn files_that_are_not_results_exit_2_with_one_line() {
    let d = tmp("fsfit-report-bad-");
    let other = d.path().join("advice.json");
    std::fs::write(&other, r#"{"schema":"fsfit.advise/1"}"#).unwrap();
    let text = d.path().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    for f in [&other, &text] {
        let out = fsfit()
            .arg("report")
            .arg(f)
            .arg("-o")
            .arg(d.path().join("r.html"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{f:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(err.contains(&f.display().to_string()), "{err}");
        assert!(!d.path().join("r.html").exists());
    }
    let out = fsfit()
        .args(["report", "/nonexistent/x.json", "-o"])
        .arg(d.path().join("r.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // -o is required
    let out = fsfit().arg("report").arg(&other).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Each kind of file that is not results is refused in one line that fits
/// 100 columns beside a short name, and no page is written.
#[test]
fn refusals_of_files_that_are_not_results_fit_100_columns() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("a.txt", "hello"),
        ("b.json", "{\"a\":"),
        ("c.json", "{}"),
        ("d.json", r#"{"schema":"fsfit.foo/1"}"#),
    ];
    for (name, body) in cases {
        std::fs::write(d.path().join(name), body).unwrap();
        let out = fsfit()
            .current_dir(d.path())
            .args(["report", name, "-o", "r.html"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("fsfit: {name}: ")), "{err}");
        assert!(err.trim_end().chars().count() <= 100, "{err}");
        assert!(!d.path().join("r.html").exists(), "{name}");
    }
}

#[test]
fn usage_results_make_a_report_with_svg_and_png_charts() {
    let d = tmp("fsfit-report-usage-");
    let root = d.path().join("tree");
    tree(&root);
    let u = d.path().join("u.json");
    let out = run_ok(
        fsfit()
            .args(["usage", "--json", "--quiet"])
            .arg(&root)
            .args(USAGE_FS)
            .arg("--report")
            .arg(d.path().join("direct.html")),
    );
    std::fs::write(&u, &out.stdout).unwrap();
    let uv = read_json(&u);
    let html = d.path().join("r.html");
    let png = d.path().join("charts");
    run_ok(
        fsfit()
            .arg("report")
            .arg(&u)
            .arg("-o")
            .arg(&html)
            .arg("--png")
            .arg(&png),
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let charts = expected_charts(&[], std::slice::from_ref(&uv));
    // exFAT and FAT32 sweeps (3 panels each) and the size-per-config bars
    assert_eq!(charts, 7);
    check_page(&page, charts, &short_names(&[], std::slice::from_ref(&uv)));
    check_findings(&page, &uv);
    assert!(page.contains("@media print"));
    // --report from the run itself: the same charts
    let direct = std::fs::read_to_string(d.path().join("direct.html")).unwrap();
    check_page(&direct, charts, &short_names(&[], &[uv]));
    // --png: every chart as SVG and PNG
    let mut files: Vec<String> = std::fs::read_dir(&png)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2 * charts, "{files:?}");
    for f in &files {
        let bytes = std::fs::read(png.join(f)).unwrap();
        if f.ends_with(".png") {
            assert_eq!(&bytes[1..4], b"PNG", "{f}");
            assert!(bytes.len() > 5000, "{f} looks empty");
        } else {
            assert!(f.ends_with(".svg"));
            let s = String::from_utf8(bytes).unwrap();
            assert!(s.contains("<title id=") && s.contains("xmlns="), "{f}");
        }
    }
}

#[test]
#[cfg(target_os = "linux")]
fn report_from_real_runs_renders_in_chromium() {
    if !(common::can_mount()
        && common::can_fuse()
        && common::have(&["mkfs.ext4", "mkfs.exfat", "mount.exfat-fuse"]))
    {
        return;
    }
    let Some(chrome_bin) = chromium() else {
        return;
    };
    let d = tmp("fsfit-report-real-");
    let dir = d.path();

    // fsfit usage on a generated tree.
    let root = dir.join("tree");
    tree(&root);
    let u = dir.join("usage.json");
    let out = run_ok(
        fsfit()
            .args(["usage", "--json", "--quiet"])
            .arg(&root)
            .args(USAGE_FS),
    );
    std::fs::write(&u, &out.stdout).unwrap();

    // Two real bench runs of the same configs; the second also writes its
    // report directly.
    let bench = |n: u32, report: Option<&Path>| -> std::path::PathBuf {
        let state = dir.join(format!("state{n}"));
        std::fs::create_dir_all(&state).unwrap();
        let json = dir.join(format!("run{n}.json"));
        let mut cmd = fsfit();
        cmd.env("FSFIT_STATE_DIR", &state)
            .args(["bench", "--quiet", "--json"])
            .arg(&json)
            .arg("--image")
            .arg(state.join("bench.img"))
            .args([
                "--size",
                "512M",
                "--fs",
                "ext4",
                "--fs",
                "exfat:4K,32K",
                "--scale",
                "0.001",
                "--repeat",
                "2",
                "--workloads",
                "single-write,single-read,small-write,small-read,fragmented-write,fragmented-read",
            ]);
        if let Some(r) = report {
            cmd.arg("--report").arg(r);
        }
        run_ok(&mut cmd);
        json
    };
    let b1 = bench(1, None);
    let direct = dir.join("direct.html");
    let b2 = bench(2, Some(&direct));
    let (bv1, bv2, uv) = (read_json(&b1), read_json(&b2), read_json(&u));

    // usage + bench, with PNGs
    let r1 = dir.join("report.html");
    run_ok(
        fsfit()
            .arg("report")
            .arg(&b1)
            .arg(&u)
            .arg("-o")
            .arg(&r1)
            .arg("--png")
            .arg(dir.join("png")),
    );
    // two bench files side by side
    let r2 = dir.join("compare.html");
    run_ok(fsfit().arg("report").arg(&b1).arg(&b2).arg("-o").arg(&r2));

    let profile = dir.join("chromium-profile");
    std::fs::create_dir_all(&profile).unwrap();

    // Report 1 as Chromium renders it.
    let dom1 = chrome(&chrome_bin, &profile, &r1, "--dump-dom");
    let want1 = expected_charts(std::slice::from_ref(&bv1), std::slice::from_ref(&uv));
    // 6 workloads, relative, amplification, fragmentation; exFAT speed,
    // format, 3 size panels; FAT32 3 size panels; size per config: 18 when
    // every workload ran.
    assert!(want1 >= 15, "too few charts expected: {want1}");
    check_page(
        &dom1,
        want1,
        &short_names(std::slice::from_ref(&bv1), std::slice::from_ref(&uv)),
    );
    for must in [
        "Environment",
        bv1["host"]["kernel"].as_str().unwrap(),
        bv1["date"].as_str().unwrap(),
        "mkfs.exfat",
        "fuse:exfat",
        "--scale 0.001",
        "Relative to the baseline",
        "Device write amplification",
        "Fragmented against contiguous",
        "Cluster-size sweeps",
        "exfat: write speed vs cluster size",
        "exfat: size on disk vs cluster size",
    ] {
        assert!(dom1.contains(must), "report lacks {must:?}");
    }
    check_findings(&dom1, &uv);
    assert_eq!(
        std::fs::read_dir(dir.join("png")).unwrap().count(),
        2 * want1,
        "--png writes an SVG and a PNG per chart"
    );

    // Report 2: the side-by-side comparison.
    let dom2 = chrome(&chrome_bin, &profile, &r2, "--dump-dom");
    let want2 = expected_charts(&[bv1.clone(), bv2.clone()], &[]);
    check_page(&dom2, want2, &short_names(&[bv1.clone(), bv2.clone()], &[]));
    assert!(dom2.contains("Side by side") && dom2.contains("run2 against run1: difference"));
    assert!(dom2.contains("Difference</th>"));

    // bench --report: the run's own report.
    let direct_html = std::fs::read_to_string(&direct).unwrap();
    check_page(
        &direct_html,
        expected_charts(std::slice::from_ref(&bv2), &[]),
        &short_names(&[bv2], &[]),
    );

    // The screenshot, kept for people to look at.
    let shot = dir.join("shot.png");
    chrome(
        &chrome_bin,
        &profile,
        &r1,
        &format!("--screenshot={}", shot.display()),
    );
    let bytes = std::fs::read(&shot).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("report-screenshot.png");
    std::fs::write(&keep, &bytes).unwrap();
    eprintln!("screenshot: {}", keep.display());
}

/// `ext4:4K kernel:ext4`, as the survival section names a crash config.
#[cfg(target_os = "linux")]
fn crash_config(r: &Value) -> String {
    let driver = r["driver"].as_str().unwrap().split_whitespace().next();
    let mut n = format!(
        "{}:{} {}",
        r["fs"].as_str().unwrap(),
        short(r["cluster_bytes"].as_u64().unwrap()),
        driver.unwrap_or("")
    );
    if let Some(o) = r["mount_options"].as_str().filter(|o| !o.is_empty()) {
        n.push_str(&format!(" -o {o}"));
    }
    n
}

/// The crash configs, and how many survival charts they call for: one per
/// config with a workload that judged states.
#[cfg(target_os = "linux")]
fn crash_expected(v: &Value) -> (Vec<String>, usize) {
    let mut names: Vec<String> = Vec::new();
    let mut charted: Vec<String> = Vec::new();
    for r in configs(v, "results") {
        let n = crash_config(&r);
        if r["error"].is_null() && r["states"].as_u64().unwrap() > 0 && !charted.contains(&n) {
            charted.push(n.clone());
        }
        if !names.contains(&n) {
            names.push(n);
        }
    }
    (names, charted.len())
}

/// What a survival section must say beyond check_page.
#[cfg(target_os = "linux")]
fn check_survival(dom: &str, v: &Value) {
    assert!(dom.contains("id=\"crash-1\""), "no crash section");
    assert!(dom.contains("Crash survival: "));
    assert!(dom.contains(": what survives a crash"));
    assert!(dom.contains(v["device_model"].as_str().unwrap()));
    assert!(dom.contains(&format!("{} (the same seed", v["seed"])));
    assert_eq!(dom.contains("Lab run"), !v["lab"].is_null());
    for r in configs(v, "results") {
        for w in r["worst"].as_array().unwrap() {
            assert!(dom.contains(w["replay"].as_str().unwrap()), "{w}");
        }
    }
}

#[test]
#[cfg(target_os = "linux")]
fn crash_results_draw_the_survival_chart_in_chromium() {
    if !(common::can_mount()
        && common::can_fuse()
        && common::have(&["mkfs.ext4", "e2fsck", "losetup"]))
    {
        return;
    }
    let Some(chrome_bin) = chromium() else {
        return;
    };
    let d = tmp("fsfit-report-crash-");
    let dir = d.path();
    let state = dir.join("state");
    struct Cleanup<'a>(&'a Path);
    impl Drop for Cleanup<'_> {
        fn drop(&mut self) {
            let _ = fsfit()
                .env("FSFIT_STATE_DIR", self.0)
                .arg("cleanup")
                .output();
        }
    }
    let _cleanup = Cleanup(&state);
    let (json, direct) = (dir.join("crash.json"), dir.join("direct.html"));
    run_ok(
        fsfit()
            .env("FSFIT_STATE_DIR", &state)
            .args([
                "-q",
                "crash",
                "--fs",
                "ext4:4K",
                "--quick",
                "--workloads",
                "save",
            ])
            .args(["--states", "1", "--run-dir"])
            .arg(dir.join("runs"))
            .arg("--json")
            .arg(&json)
            .arg("--report")
            .arg(&direct),
    );
    let v = read_json(&json);
    let (names, charts) = crash_expected(&v);
    assert_eq!((names.len(), charts), (1, 1), "{v}");
    assert!(names[0].starts_with("ext4:4K kernel:ext4"), "{names:?}");

    let page = dir.join("report.html");
    let png = dir.join("png");
    run_ok(
        fsfit()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&page)
            .arg("--png")
            .arg(&png),
    );
    let profile = dir.join("chromium-profile");
    std::fs::create_dir_all(&profile).unwrap();
    for p in [&page, &direct] {
        let dom = chrome(&chrome_bin, &profile, p, "--dump-dom");
        check_page(&dom, charts, &names);
        check_survival(&dom, &v);
    }
    assert_eq!(
        std::fs::read_dir(&png).unwrap().count(),
        2 * charts,
        "--png writes an SVG and a PNG per survival chart"
    );
}
