//! The Windows build under wine, from Linux: `fsfit.exe info` on a drive
//! (wine's `\\.\Y:` is whatever its dosdevices/y:: link names: here a FAT32
//! image) answers what Linux's `fsfit info` says of the image, without
//! changing a byte of it; `fsfit.exe bench --dir` writes an fsfit.bench/1 file
//! that Linux's `fsfit report` renders, and removes the folder it made.
//!
//! They need wine, mingw (for the ProcessPrng shim wine 8.0 lacks) and the
//! Windows build (`cargo build --target x86_64-pc-windows-gnu`).
use crate::common;

use common::{fsfit, have, run, Image};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// wine 8.0 has no bcryptprimitives.dll!ProcessPrng, which Rust's std
/// imports: this one fills the buffer from RtlGenRandom.
const SHIM: &str = r#"#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
BOOL WINAPI ProcessPrng(PBYTE buf, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(buf, n)) return FALSE;
        buf += n; len -= n;
    }
    return TRUE;
}
"#;

/// The Windows build and a wine prefix that runs it, made once.
struct Wine {
    exe: PathBuf,
    prefix: PathBuf,
}

fn wine() -> Option<&'static Wine> {
    static W: OnceLock<Option<Wine>> = OnceLock::new();
    W.get_or_init(|| {
        if !have(&["wine", "wineboot", "x86_64-w64-mingw32-gcc"]) {
            return None;
        }
        let exe = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/x86_64-pc-windows-gnu/debug/fsfit.exe");
        if !exe.is_file() {
            common::skip("the Windows build (cargo build --target x86_64-pc-windows-gnu)");
            return None;
        }
        let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-drive-prefix");
        let dll = prefix.join("drive_c/windows/system32/bcryptprimitives.dll");
        if !dll.is_file() {
            let w = Wine {
                exe: exe.clone(),
                prefix: prefix.clone(),
            };
            let st = w
                .env(&mut Command::new("wineboot"))
                .arg("-i")
                .status()
                .unwrap();
            assert!(st.success(), "wineboot -i failed");
            let src = prefix.join("processprng.c");
            let def = prefix.join("processprng.def");
            std::fs::write(&src, SHIM).unwrap();
            std::fs::write(&def, "LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng\n").unwrap();
            let (s, d, o) = (
                src.to_str().unwrap(),
                def.to_str().unwrap(),
                dll.to_str().unwrap(),
            );
            run(
                "x86_64-w64-mingw32-gcc",
                &["-shared", "-O2", "-o", o, s, d, "-ladvapi32"],
            );
        }
        Some(Wine { exe, prefix })
    })
    .as_ref()
}

impl Wine {
    fn env<'c>(&self, c: &'c mut Command) -> &'c mut Command {
        c.env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "bcryptprimitives=n;mscoree,mshtml=")
    }

    /// `fsfit.exe ARGS...` under wine.
    fn fsfit(&self, args: &[&str]) -> std::process::Output {
        let mut c = Command::new("wine");
        self.env(&mut c).arg(&self.exe).args(args);
        c.output().expect("run wine")
    }

    /// Wine's drive `letter` as the raw device `target` (dosdevices/x::).
    fn device(&self, letter: char, target: &Path) {
        let link = self.prefix.join(format!("dosdevices/{letter}::"));
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, link).unwrap();
    }
}

/// A Linux path as wine's programs see it (its Z: drive is /).
fn wine_path(p: &Path) -> String {
    format!("Z:{}", p.display()).replace('/', "\\")
}

fn json(out: &std::process::Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

#[test]
fn info_on_a_drive_letter_reads_the_volume_as_linux_reads_the_image() {
    let Some(w) = wine() else { return };
    if !have(&["mkfs.vfat"]) {
        return;
    }
    let img = Image::new(64 << 20);
    run("mkfs.vfat", &["-F", "32", "-n", "WINE", img.path_str()]);
    let before = std::fs::read(&img.path).unwrap();
    w.device('y', &img.path);
    let linux = json(
        &fsfit()
            .args(["info", "--json", img.path_str()])
            .output()
            .unwrap(),
        "fsfit info IMAGE",
    );
    for target in ["Y:", r"\\.\y:"] {
        let mut win = json(&w.fsfit(&["info", "--json", target]), target);
        assert_eq!(win["kind"], "device", "{target}");
        assert_eq!(win["target"], target);
        assert_eq!(win["volume"]["fs"], "fat32", "{target}: {win}");
        // All the rest is the volume's, and equal.
        for k in ["kind", "target"] {
            win[k] = linux[k].clone();
        }
        assert_eq!(win, linux, "{target}");
    }
    assert!(
        std::fs::read(&img.path).unwrap() == before,
        "the image changed"
    );
    // A drive that is not there: one line, exit 2.
    let out = w.fsfit(&["info", "Q:"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such drive"));
}

#[test]
fn bench_dir_writes_results_that_report_renders_and_removes_its_folder() {
    let Some(w) = wine() else { return };
    let dir = tempfile::tempdir().unwrap();
    let stick = dir.path().join("stick");
    std::fs::create_dir(&stick).unwrap();
    let results = dir.path().join("bench.json");
    let out = w.fsfit(&[
        "bench",
        "--dir",
        &wine_path(&stick),
        "--scale",
        "0.002",
        "--repeat",
        "2",
        "--workloads",
        "single-write,single-read,scan",
        "--json",
        &wine_path(&results),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench --dir failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("single-read"), "{text}");
    let v: Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    assert_eq!(v["schema"], "fsfit.bench/1");
    assert_eq!(v["target"]["kind"], "dir");
    assert!(v["target"]["cold_cache"]
        .as_str()
        .unwrap()
        .contains("NO_BUFFERING"));
    let wl = v["results"][0]["workloads"].as_array().unwrap();
    let names: Vec<&str> = wl.iter().map(|w| w["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["single-write", "single-read", "scan"]);
    for w in wl {
        assert!(w["error"].is_null(), "{w}");
        assert_eq!(w["runs"].as_array().unwrap().len(), 2, "{w}");
        assert!(w["median_seconds"].as_f64().unwrap() > 0.0, "{w}");
        let flags: Vec<&str> = w["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert!(flags.contains(&"no-device-counters"), "{w}");
        // The metadata a scan reads may come from the cache: said so.
        assert_eq!(
            flags.contains(&"cache-drop-partial"),
            w["name"] == "scan",
            "{w}"
        );
    }
    assert!(wl[0]["bytes"].as_u64().unwrap() > 0);
    // Nothing left on the "stick".
    assert_eq!(std::fs::read_dir(&stick).unwrap().count(), 0);
    let html = dir.path().join("report.html");
    let page = common::report_html(&results, &html);
    assert!(page.contains("single-read"));
}

#[test]
fn ctrl_c_stops_bench_dir_writes_what_it_measured_and_removes_its_folder() {
    let Some(w) = wine() else { return };
    let dir = tempfile::tempdir().unwrap();
    let stick = dir.path().join("stick");
    std::fs::create_dir(&stick).unwrap();
    let results = dir.path().join("partial.json");
    let mut c = Command::new("wine");
    w.env(&mut c)
        .arg(&w.exe)
        .args(["bench", "-q", "--dir", &wine_path(&stick), "--scale", "1"])
        .args(["--workloads", "small-write,small-read", "--json"])
        .arg(wine_path(&results))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    // Stopped once it is writing in its folder.
    let t0 = std::time::Instant::now();
    while std::fs::read_dir(&stick).unwrap().count() == 0 {
        assert!(t0.elapsed().as_secs() < 60, "never started");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // wine turns SIGINT into the console's Ctrl-C event.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let v: Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    assert_eq!(v["error"], "interrupted", "{v}");
    assert_eq!(std::fs::read_dir(&stick).unwrap().count(), 0, "folder left");
}

#[test]
fn usage_on_windows_models_windows_own_drivers_by_default() {
    let Some(w) = wine() else { return };
    let dir = tempfile::tempdir().unwrap();
    common::write_file(&dir.path().join("a/notes.txt"), 3000);
    let tree = wine_path(dir.path());
    let v = json(
        &w.fsfit(&[
            "usage", "--json", "--quiet", &tree, "--fs", "ntfs:4K", "--fs", "ext4:4K",
        ]),
        "fsfit.exe usage",
    );
    assert_eq!(common::config(&v, "ntfs", 4096)["driver"], "windows:ntfs");
    assert_eq!(common::config(&v, "ntfs", 4096)["exact"], false);
    assert_eq!(common::config(&v, "ext4", 4096)["driver"], "kernel:ext4");
}
