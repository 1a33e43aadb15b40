//! `fsfit bench` on real images, real mkfs tools and real drivers (ext4 by
//! the kernel, exFAT and NTFS through FUSE), at a tiny scale.

use crate::common;

use common::fsfit;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn ready() -> bool {
    common::can_mount()
        && common::can_fuse()
        && common::have(&[
            "mkfs.ext4",
            "mkfs.exfat",
            "mount.exfat-fuse",
            "mkntfs",
            "ntfs-3g",
        ])
}

fn state_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsfit-state-")
        .tempdir()
        .unwrap()
}

/// Mounts and loop devices that belong to a state dir (by path).
fn leftovers(state: &Path) -> Vec<String> {
    let s = state.to_string_lossy().into_owned();
    let mut left: Vec<String> = std::fs::read_to_string("/proc/self/mounts")
        .unwrap()
        .lines()
        .filter(|l| l.contains(&s))
        .map(String::from)
        .collect();
    left.extend(
        String::from_utf8_lossy(&Command::new("losetup").arg("-a").output().unwrap().stdout)
            .lines()
            .filter(|l| l.contains(&s))
            .map(String::from),
    );
    left
}

fn bench_json(state: &Path, image: &Path, args: &[&str]) -> Value {
    bench_run(state, image, args).0
}

/// A bench run's JSON and its table.
fn bench_run(state: &Path, image: &Path, args: &[&str]) -> (Value, String) {
    let json = state.join("out.json");
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state)
        .args(["bench", "--quiet", "--image"])
        .arg(image)
        .arg("--json")
        .arg(&json)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fsfit bench failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("WORKLOAD"), "{table}");
    // The first config's figures end in one column, whether or not a cell
    // carries a flag (a `~` once pushed the next config's figures right).
    let ends: Vec<usize> = table
        .lines()
        .skip_while(|l| !l.starts_with("WORKLOAD"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            ["MB/s", "f/s"]
                .iter()
                .filter_map(|u| l.find(u).map(|i| i + u.len()))
                .min()
        })
        .collect();
    assert!(
        !ends.is_empty() && ends.iter().all(|&e| e == ends[0]),
        "{table}"
    );
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (v, table.into_owned())
}

#[test]
fn ext4_exfat_ntfs_figures_are_honest() {
    if !ready() {
        return;
    }
    let state = state_dir();
    let image = state.path().join("bench.img");
    let v = bench_json(
        state.path(),
        &image,
        &[
            "--size",
            "512M",
            "--scale",
            "0.002",
            "--repeat",
            "2",
            "--fs",
            "ext4",
            "--fs",
            "exfat:32K",
            "--fs",
            "ntfs",
            "--workloads",
            "single-write,single-read,small-write,small-read,tiny-write,tiny-read,scan,dupsearch",
        ],
    );
    assert_eq!(v["schema"], "fsfit.bench/1");
    assert!(v["host"]["kernel"].as_str().unwrap().len() > 1);
    assert!(v["host"]["cpus"].as_u64().unwrap() >= 1);
    assert_eq!(v["target"]["kind"], "image");
    // bench's --size is the volume (as mkfs sees it); the marker follows.
    assert_eq!(v["target"]["size_bytes"], 512u64 << 20);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{v}");
    let drivers: Vec<&str> = results
        .iter()
        .map(|r| r["driver"].as_str().unwrap())
        .collect();
    assert!(drivers[0].starts_with("kernel:ext4"), "{drivers:?}");
    assert!(drivers[1].starts_with("fuse:exfat-fuse "), "{drivers:?}");
    assert!(drivers[2].starts_with("fuse:ntfs-3g "), "{drivers:?}");
    for r in results {
        assert!(r.get("error").is_none(), "{}", r);
        assert!(r["format_seconds"].as_f64().unwrap() > 0.0);
        let ws = r["workloads"].as_array().unwrap();
        assert_eq!(ws.len(), 8);
        for w in ws {
            let name = w["name"].as_str().unwrap();
            assert!(w.get("error").is_none(), "{name}: {w}");
            for k in ["files", "bytes"] {
                assert!(w[k].is_u64(), "{k}");
            }
            for k in ["median_seconds", "mb_per_s", "files_per_s", "cv_pct"] {
                assert!(w[k].is_f64(), "{name}.{k}: {w}");
            }
            assert!(w["median_seconds"].as_f64().unwrap() > 0.0);
            let flags: Vec<&str> = w["flags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            // Bulk reads must be cold. Tiny files may be read with the
            // metadata at mount time (NTFS keeps them resident in MFT
            // records, which the driver may read ahead while mounting): there
            // the flag must say so, checked against the counters below.
            let tiny = name == "tiny-read" || name == "dupsearch";
            let below_90 = w["runs"].as_array().unwrap().iter().any(|run| {
                (run["device_read_bytes"].as_u64().unwrap() as f64)
                    < 0.9 * w["bytes"].as_u64().unwrap() as f64
            });
            if name.ends_with("-read") || name == "dupsearch" {
                assert_eq!(
                    flags.contains(&"cache-suspect"),
                    below_90,
                    "{} {name}: the flag follows the device counters: {w}",
                    r["fs"]
                );
            }
            // A small volume's whole directory tree can be read while
            // mounting (exfat-fuse reads it then): a scan that then reads
            // nothing of its own must say so.
            if name == "scan" {
                let nothing = w["runs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|run| run["device_read_bytes"].as_u64().unwrap() == 0);
                assert_eq!(
                    flags.contains(&"cache-suspect"),
                    nothing,
                    "{} scan: the flag follows the device counters: {w}",
                    r["fs"]
                );
            }
            assert!(
                tiny || name == "scan" || !flags.contains(&"cache-suspect"),
                "{} {name}: {flags:?} {w}",
                r["fs"]
            );
            assert!(
                !flags.contains(&"write-not-durable"),
                "{} {name}: {flags:?} {w}",
                r["fs"]
            );
            assert!(!flags.contains(&"no-device-counters"), "{name}");
            let runs = w["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 2);
            let bytes = w["bytes"].as_u64().unwrap();
            for run in runs {
                for k in ["seconds", "cpu_user_s", "cpu_sys_s"] {
                    assert!(run[k].is_f64(), "{k}");
                }
                for k in [
                    "device_read_bytes",
                    "device_write_bytes",
                    "ctx_voluntary",
                    "ctx_involuntary",
                    "ops",
                ] {
                    assert!(run[k].is_u64(), "{k}");
                }
                assert!(run["ops"].as_u64().unwrap() > 0);
                let (rd, wr) = (
                    run["device_read_bytes"].as_u64().unwrap(),
                    run["device_write_bytes"].as_u64().unwrap(),
                );
                if name.ends_with("-read") || name == "dupsearch" {
                    // Cold reads come from the device during the phase's own
                    // timing (what the remount before it read is recorded
                    // apart and does not count), and not wildly more than asked.
                    assert!(run["mount_read_bytes"].is_u64(), "{name}: {run}");
                    let mount = run["mount_read_bytes"].as_u64().unwrap();
                    let from_device = if tiny { rd + mount } else { rd };
                    assert!(
                        from_device as f64 >= 0.9 * bytes as f64,
                        "{name}: read {rd} (+{mount} while mounting) of {bytes}"
                    );
                    assert!(rd < bytes * 4 + (8 << 20), "{name}: read {rd} of {bytes}");
                }
                if name.ends_with("-write") {
                    assert!(
                        wr as f64 >= 0.9 * bytes as f64,
                        "{name}: wrote {wr} of {bytes}"
                    );
                }
                if name == "scan" {
                    let mount = run["mount_read_bytes"].as_u64().unwrap();
                    assert!(
                        rd + mount > 0,
                        "a cold scan reads metadata from the device, during the scan or the mount"
                    );
                }
                if r["driver"].as_str().unwrap().starts_with("fuse:") {
                    assert!(
                        run["daemon_cpu_s"].is_f64(),
                        "FUSE daemon CPU recorded: {run}"
                    );
                }
            }
        }
    }
    // Relative figures against the first config.
    assert_eq!(v["baseline"], "ext4:4K");
    assert_eq!(results[0]["workloads"][0]["relative_pct"], 100.0);
    assert!(
        leftovers(state.path()).is_empty(),
        "{:?}",
        leftovers(state.path())
    );
}

/// The median of the runs a `--quick` figure comes from (those not set
/// aside), and their times.
fn used_runs(w: &Value) -> (Vec<f64>, Vec<&Value>) {
    let used: Vec<&Value> = w["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("set_aside").is_none())
        .collect();
    let secs = used
        .iter()
        .map(|r| r["seconds"].as_f64().unwrap())
        .collect();
    (secs, used)
}

/// Whether this process may take the real-time policy, as fsfit asks for
/// its measuring thread under `--quick` (a thread of its own tries it).
/// Whether this machine grants the real-time priority `--quick` asks for,
/// asked of the library's own function on a thread of its own (the raise
/// is undone when that thread's guard drops).
fn may_take_fifo() -> bool {
    std::thread::spawn(|| fsfit::bench::priority::raise().is_some())
        .join()
        .unwrap()
}

#[test]
fn quick_figures_say_which_runs_they_rest_on_and_why_they_are_flagged() {
    if !ready() {
        return;
    }
    let state = state_dir();
    let image = state.path().join("quick.img");
    let args = ["--quick", "--size", "1G", "--fs", "ext4", "--workloads"];
    let mut args = args.to_vec();
    // single-delete: deleting one file, which sizing cannot make last
    // 0.1 s, so its runs are made of rounds.
    args.push("tenmb-write,tenmb-read,fragmented-write,single-delete");
    let (v, table) = bench_run(state.path(), &image, &args);
    if may_take_fifo() {
        let p = v["priority"].as_str().unwrap_or_default();
        assert!(p.starts_with("SCHED_FIFO 1"), "{v}");
        assert!(table.contains("Runs at priority SCHED_FIFO 1"), "{table}");
    }
    // On a virtual machine that hands freed memory back to its host, the
    // report says so and what was done about it; nowhere else.
    let freed = v["freed_memory"].as_str();
    if fsfit::bench::reclaim::hypervisor_reclaims() {
        let said = freed.unwrap_or_else(|| panic!("no freed_memory: {v}"));
        assert!(said.contains("free page reporting"), "{said}");
        let knob = Path::new("/sys/module/page_reporting/parameters/min_free_ms");
        assert_eq!(said.contains("min_free_ms"), knob.exists(), "{said}");
        assert!(table.contains("Freed memory: the hypervisor"), "{table}");
    } else {
        assert_eq!(freed, None, "{v}");
    }
    let have_psi = Path::new("/proc/pressure/cpu").exists();
    let have_mem_psi = Path::new("/proc/pressure/memory").exists();
    let workloads = v["results"][0]["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 4, "{v}");
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("WORKLOAD"))
        .collect();
    // The table's note on warm-ups is one line for every figure.
    let mut any_warmup = false;
    for w in workloads {
        let name = w["name"].as_str().unwrap();
        let flags: Vec<&str> = w["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        let (mut secs, used) = used_runs(w);
        assert!(secs.len() >= 3, "{name}: {w}");
        // Every run says how long its tasks waited for a CPU.
        for r in w["runs"].as_array().unwrap() {
            let wait = r["cpu_wait_s"].as_f64().unwrap();
            assert!(
                wait >= 0.0 && wait <= r["seconds"].as_f64().unwrap() * 2.0,
                "{r}"
            );
            assert_eq!(r.get("cpu_pressure_s").is_some(), have_psi, "{r}");
            assert_eq!(r.get("mem_pressure_s").is_some(), have_mem_psi, "{r}");
            // Said only when the cache was dropped before the run.
            assert!(r.get("made_room").is_none_or(|m| m == true), "{r}");
        }
        // A figure made of rounds: the runs timed under 0.1 s before it
        // are set aside as too short, and its counts are of every round.
        let too_short = |r: &&Value| {
            r["set_aside"]
                .as_str()
                .is_some_and(|s| s.starts_with("too short"))
        };
        let runs = w["runs"].as_array().unwrap();
        let shorts: Vec<&Value> = runs.iter().filter(too_short).collect();
        match w["rounds"].as_u64() {
            Some(n) => {
                assert!(n > 1 && !shorts.is_empty(), "{name}: {w}");
                assert!(shorts.iter().all(|r| r["seconds"].as_f64().unwrap() < 0.1));
                if name == "single-delete" {
                    assert_eq!(w["files"].as_u64(), Some(n), "one file a round: {w}");
                }
                assert!(table.contains("several rounds of the"), "{table}");
            }
            None => assert!(shorts.is_empty(), "{name}: {w}"),
        }
        // The figure is the median of the runs not set aside.
        secs.sort_by(f64::total_cmp);
        let n = secs.len();
        let median = if n % 2 == 1 {
            secs[n / 2]
        } else {
            (secs[n / 2 - 1] + secs[n / 2]) / 2.0
        };
        assert!(
            (w["median_seconds"].as_f64().unwrap() - median).abs() < 1e-9,
            "{w}"
        );
        // Flags exactly where their rule holds, and the table's marks with them.
        let short = secs[0] < 0.1;
        let waited = used
            .iter()
            .any(|r| r["cpu_wait_s"].as_f64().unwrap() > 0.1 * r["seconds"].as_f64().unwrap());
        let noisy = w["cv_pct"].as_f64().unwrap() > 10.0;
        let row = rows.iter().find(|l| l.starts_with(name)).unwrap();
        for (on, flag, mark) in [
            (short, "short-run", '<'),
            (waited, "cpu-wait", '*'),
            (noisy, "high-cv", '~'),
        ] {
            assert_eq!(flags.contains(&flag), on, "{name} {flag}: {w}");
            assert_eq!(row.contains(mark), on, "{name} {mark}: {row}\n{table}");
        }
        // A first run set aside as a warm-up is said as one, not as a run
        // set aside and run again.
        let warmup = |r: &&Value| {
            r["set_aside"]
                .as_str()
                .is_some_and(|s| s.starts_with(fsfit::bench::settle::WARMUP_ASIDE))
        };
        let warmups = runs.iter().filter(warmup).count();
        any_warmup |= warmups > 0;
        let aside = runs.len() - n - shorts.len() - warmups;
        if aside > 0 {
            assert!(
                table.contains("runs were set aside and run again"),
                "{table}"
            );
        }
    }
    assert_eq!(
        any_warmup,
        table.contains("set aside as a warm-up"),
        "{table}"
    );
    // The per-file workload grew by more files of 10 MiB, not bigger ones.
    let ten = workloads
        .iter()
        .find(|w| w["name"] == "tenmb-write")
        .unwrap();
    assert_eq!(
        ten["bytes"].as_u64().unwrap(),
        ten["files"].as_u64().unwrap() * (10 << 20)
    );
    assert!(
        leftovers(state.path()).is_empty(),
        "{:?}",
        leftovers(state.path())
    );
}

#[test]
fn a_temporary_image_is_removed_and_bad_arguments_are_refused() {
    let out = fsfit()
        .args(["bench", "--workloads", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("single-write"));
    let out = fsfit()
        .args(["bench", "--fs", "exfat:3K"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = fsfit().args(["bench", "--scale", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = fsfit().args(["bench", "--list"]).output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8_lossy(&out.stdout);
    for w in [
        "single-write",
        "small-read",
        "tiny-write",
        "tree-write",
        "tree-read",
        "scan",
        "dupsearch",
        "delete",
        "random-write",
        "random-read",
        "fragmented-read",
    ] {
        assert!(list.contains(w), "{w} in {list}");
    }
    if !ready() {
        return;
    }
    let state = state_dir();
    let tmp = state.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .env("TMPDIR", &tmp)
        .args([
            "bench",
            "-q",
            "--fs",
            "ext4",
            "--scale",
            "0.001",
            "--repeat",
            "1",
            "--workloads",
            "tiny-write,tiny-read",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the temporary image is removed"
    );
    assert!(leftovers(state.path()).is_empty());
}

fn wait_for_mount(state: &Path, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if std::fs::read_to_string("/proc/self/mounts")
            .unwrap()
            .contains(&*state.to_string_lossy())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn ctrl_c_unmounts_and_detaches() {
    if !ready() {
        return;
    }
    for fs in ["ext4", "exfat"] {
        let state = state_dir();
        let image = state.path().join("i.img");
        let out_dir = tempfile::tempdir().unwrap();
        let json = out_dir.path().join("partial.json");
        let child = fsfit()
            .env("FSFIT_STATE_DIR", state.path())
            .args(["bench", "-q", "--image"])
            .arg(&image)
            .arg("--json")
            .arg(&json)
            .args([
                "--size",
                "1G",
                "--fs",
                fs,
                "--scale",
                "0.2",
                "--workloads",
                "small-write,small-read",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        assert!(
            wait_for_mount(state.path(), Duration::from_secs(60)),
            "{fs}: never mounted"
        );
        std::thread::sleep(Duration::from_millis(300));
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{fs}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            leftovers(state.path()).is_empty(),
            "{fs}: {:?}",
            leftovers(state.path())
        );
        // What was measured is written, with why it stopped.
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(v["error"], "interrupted", "{fs}: {v}");
        // Nothing recorded as still held.
        let records = std::fs::read_dir(state.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "json")
            })
            .count();
        assert_eq!(records, 0, "{fs}: state left behind");
    }
}

#[test]
fn cleanup_releases_what_a_killed_run_left() {
    if !ready() {
        return;
    }
    let state = state_dir();
    let image = state.path().join("k.img");
    let mut child = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .args(["bench", "-q", "--image"])
        .arg(&image)
        .args([
            "--size",
            "1G",
            "--fs",
            "exfat",
            "--scale",
            "0.2",
            "--workloads",
            "small-write",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_for_mount(state.path(), Duration::from_secs(60)));
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !leftovers(state.path()).is_empty(),
        "SIGKILL leaves the mount behind"
    );
    // The kernel settings the run held (the reporting delay on a virtual
    // machine that takes freed memory back), from the run's own record.
    let record = state.path().join(format!("{}.json", child.id()));
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let settings: Vec<String> = record["settings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["path"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .arg("cleanup")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("unmounted") && said.contains("detached"),
        "{said}"
    );
    // Each is put back, or left to whoever changed it since (another
    // fsfit measuring beside this test).
    for path in &settings {
        assert!(
            said.contains(&format!("put {path} back to"))
                || said.contains(&format!("left {path} alone")),
            "{said}"
        );
    }

    assert!(
        leftovers(state.path()).is_empty(),
        "{:?}",
        leftovers(state.path())
    );
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .arg("cleanup")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to clean up"));
}

#[test]
fn dir_mode_runs_in_a_mounted_directory() {
    let d = tempfile::tempdir().unwrap();
    let out = fsfit()
        .args(["bench", "-q", "--dir"])
        .arg(d.path())
        .args([
            "--scale",
            "0.001",
            "--repeat",
            "1",
            "--workloads",
            "tiny-write,tiny-read",
            "--json",
        ])
        .arg(d.path().join("r.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(v["target"]["kind"], "dir");
    assert!(v["results"][0]["driver"]
        .as_str()
        .unwrap()
        .starts_with("mounted:"));
    assert_eq!(v["results"][0]["workloads"].as_array().unwrap().len(), 2);
    // Only the results file is left in the directory.
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("r.json")]);
}

#[test]
fn a_device_needs_every_confirmation() {
    if !ready() {
        return;
    }
    let state = state_dir();
    let img = common::Image::new(512 << 20);
    let lp = common::Loop::attach(&img.path);
    let run = |extra: &[&str]| {
        fsfit()
            .env("FSFIT_STATE_DIR", state.path())
            .args(["bench", "-q", "--device", &lp.dev])
            .args(extra)
            .args([
                "--fs",
                "ext4",
                "--scale",
                "0.001",
                "--repeat",
                "1",
                "--workloads",
                "tiny-write,tiny-read",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // No confirmation and no terminal to ask on.
    let out = run(&[]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--yes-erase"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A loop device is not removable: --allow-fixed is needed too.
    let out = run(&["--yes-erase", &lp.dev]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--allow-fixed"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The confirmation must name the same device.
    let out = run(&["--yes-erase", "/dev/loop99", "--allow-fixed"]);
    assert!(!out.status.success());
    // Mounted: refused.
    common::run("mkfs.ext4", &["-q", "-F", &lp.dev]);
    {
        let _m = common::Mount::kernel(&lp.dev, "ext4", None);
        let out = run(&["--yes-erase", &lp.dev, "--allow-fixed"]);
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("mounted"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Everything confirmed: it runs, and reads the device's own counters.
    let json = state.path().join("d.json");
    let out = run(&[
        "--yes-erase",
        &lp.dev,
        "--allow-fixed",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["target"]["kind"], "device");
    assert_eq!(v["target"]["bus"], "loop");
    assert!(
        v["results"][0]["workloads"][0]["runs"][0]["device_write_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(leftovers(state.path()).is_empty());
}

/// Bytes read and written of a block device, from /sys/block/NAME/stat,
/// read by the test itself (fields 3 and 7, 512-byte sectors).
fn sys_stat(dev: &str) -> (u64, u64) {
    let name = dev.trim_start_matches("/dev/");
    let t = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let f: Vec<u64> = t.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (f[2] * 512, f[6] * 512)
}

#[test]
fn device_counters_agree_with_the_kernels_own() {
    if !ready() {
        return;
    }
    let state = state_dir();
    let img = common::Image::new(512 << 20);
    let lp = common::Loop::attach(&img.path);
    let json = state.path().join("c.json");
    let (r0, w0) = sys_stat(&lp.dev);
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .args(["bench", "-q", "--device", &lp.dev, "--yes-erase", &lp.dev])
        .args(["--allow-fixed", "--fs", "ext4", "--scale", "0.01"])
        .args(["--repeat", "2", "--workloads", "single-write,single-read"])
        .arg("--json")
        .arg(&json)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (r1, w1) = sys_stat(&lp.dev);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ws = v["results"][0]["workloads"].as_array().unwrap();
    let (mut said_read, mut said_write) = (0u64, 0u64);
    for w in ws {
        for run in w["runs"].as_array().unwrap() {
            said_read += run["device_read_bytes"].as_u64().unwrap()
                + run["mount_read_bytes"].as_u64().unwrap_or(0);
            said_write += run["device_write_bytes"].as_u64().unwrap();
        }
    }
    let bytes = |n: &str| {
        let w = ws.iter().find(|w| w["name"] == n).unwrap();
        w["bytes"].as_u64().unwrap() * w["runs"].as_array().unwrap().len() as u64
    };
    let (read, written) = (r1 - r0, w1 - w0);
    // The data really went to the device and came back from it...
    assert!(written >= bytes("single-write"), "{written} < written data");
    assert!(read >= bytes("single-read"), "{read} < read data");
    // ...and fsfit's per-phase figures are parts of what the kernel counted.
    assert!(
        said_write <= written,
        "fsfit says {said_write}, kernel {written}"
    );
    assert!(said_read <= read, "fsfit says {said_read}, kernel {read}");
    assert!(leftovers(state.path()).is_empty());
}

#[test]
fn a_run_where_every_config_failed_fails() {
    if !common::can_mount() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // An mkfs that fails, first on PATH: the one config never runs.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("mkfs.ext4");
    std::fs::write(&fake, "#!/bin/sh\necho 'broken' >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let j = dir.path().join("b.json");
    let out = common::fsfit()
        .args([
            "-q",
            "bench",
            "--fs",
            "ext4",
            "--quick",
            "--workloads",
            "single-write",
        ])
        .args(["--size", "1G", "--json"])
        .arg(&j)
        .env("PATH", &path)
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the only config failed"), "{err}");
    // What was tried is still written, the error in its row.
    let v: Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
    assert!(v["results"][0]["error"].is_string(), "{v}");
}
