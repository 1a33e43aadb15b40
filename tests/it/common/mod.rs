//! Shared test helpers: run fsfit, make trees, make real volumes (image file,
//! mkfs, loop device, mount) and measure them with statvfs. Every guard
//! undoes what it set up when dropped, also when a test panics.
#![allow(dead_code)]

#[cfg(target_os = "linux")]
pub mod lab;
#[cfg(target_os = "linux")]
pub mod volume;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fsfit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fsfit"))
}

/// Run a command that must succeed; panics with the command and its
/// stderr when it does not.
pub fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("run fsfit");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `fsfit report JSON -o HTML`: the page the tests then read; panics with
/// fsfit's stderr when the report fails.
pub fn report_html(json: &Path, html: &Path) -> String {
    run_ok(fsfit().arg("report").arg(json).arg("-o").arg(html));
    std::fs::read_to_string(html).unwrap()
}

/// `fsfit usage --json ARGS...`, parsed; panics with stderr on failure.
pub fn usage_json(args: &[&str]) -> Value {
    let out = fsfit()
        .arg("usage")
        .arg("--json")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("run fsfit");
    assert!(
        out.status.success(),
        "fsfit usage {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("fsfit usage --json prints JSON")
}

/// The one config of a `usage --json` answer for `fs` and `cluster`.
pub fn config<'a>(v: &'a Value, fs: &str, cluster: u64) -> &'a Value {
    v["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fs"] == fs && c["cluster_bytes"] == cluster)
        .unwrap_or_else(|| panic!("no config {fs}:{cluster} in {v}"))
}

/// A test cannot run here because `what` is missing. Under
/// `FSFIT_REQUIRE_ALL=1` (CI sets it) that is a failure naming what is
/// missing, so a green CI proves the real-volume tests ran; elsewhere it
/// prints `SKIP: needs ...` and the caller returns early.
pub fn skip(what: &str) -> bool {
    if std::env::var_os("FSFIT_REQUIRE_ALL").is_some_and(|v| v == "1") {
        panic!("FSFIT_REQUIRE_ALL=1 and this test needs {what}");
    }
    eprintln!("SKIP: needs {what}");
    false
}

/// True when every program is on PATH; otherwise says which is missing so
/// the calling test can return early (a visible skip, never a silent pass;
/// a failure under `FSFIT_REQUIRE_ALL=1`).
pub fn have(tools: &[&str]) -> bool {
    for t in tools {
        let found = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
            .unwrap_or(false)
            || Path::new("/usr/sbin").join(t).is_file()
            || Path::new("/sbin").join(t).is_file();
        if !found {
            return skip(&format!(
                "`{t}` (install the Debian package that provides it)"
            ));
        }
    }
    true
}

/// True when we may make loop devices and mount (root, /dev/loop-control).
#[cfg(target_os = "linux")]
pub fn can_mount() -> bool {
    let root = fsfit::device::is_root();
    if !root || !Path::new("/dev/loop-control").exists() {
        return skip("root and /dev/loop-control to attach loop devices and mount");
    }
    true
}

pub fn can_fuse() -> bool {
    if !Path::new("/dev/fuse").exists() {
        return skip("/dev/fuse");
    }
    true
}

pub fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A sparse image file of `size` bytes in a temporary directory.
pub struct Image {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Image {
    pub fn new(size: u64) -> Image {
        let dir = tempfile::Builder::new()
            .prefix("fsfit-test-")
            .tempdir()
            .unwrap();
        let path = dir.path().join("volume.img");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(size).unwrap();
        Image { dir, path }
    }

    pub fn path_str(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

/// A loop device over an image file, detached when dropped.
pub struct Loop {
    pub dev: String,
}

impl Loop {
    pub fn attach(image: &Path) -> Loop {
        let dev = run("losetup", &["-f", "--show", image.to_str().unwrap()])
            .trim()
            .to_string();
        Loop { dev }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// A mounted filesystem, unmounted when dropped.
pub struct Mount {
    pub dir: tempfile::TempDir,
    fuse: bool,
}

impl Mount {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Kernel driver: `mount -t FSTYPE [-o OPTS] DEV DIR`.
    pub fn kernel(dev: &str, fstype: &str, opts: Option<&str>) -> Mount {
        let dir = tempfile::Builder::new()
            .prefix("fsfit-mnt-")
            .tempdir()
            .unwrap();
        let mut args = vec!["-t", fstype];
        if let Some(o) = opts {
            args.extend(["-o", o]);
        }
        args.extend([dev, dir.path().to_str().unwrap()]);
        run("mount", &args);
        Mount { dir, fuse: false }
    }

    /// FUSE driver: `PROGRAM [ARGS...] DEV DIR` (mount.exfat-fuse, ntfs-3g).
    pub fn fuse(program: &str, args: &[&str], dev: &str) -> Mount {
        let dir = tempfile::Builder::new()
            .prefix("fsfit-mnt-")
            .tempdir()
            .unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.extend([dev, dir.path().to_str().unwrap()]);
        run(program, &all);
        Mount { dir, fuse: true }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let p = self.dir.path().to_str().unwrap().to_string();
        let _ = Command::new("sync").status();
        let ok = Command::new("umount")
            .arg(&p)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            if self.fuse {
                let _ = Command::new("fusermount").args(["-u", "-z", &p]).status();
            }
            let _ = Command::new("umount").args(["-l", &p]).status();
        }
    }
}

/// statvfs `f_bfree × f_frsize`: the contract's free space.
#[cfg(target_os = "linux")]
pub fn free_bytes(path: &Path) -> u64 {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut s) };
    assert_eq!(rc, 0, "statvfs {}", path.display());
    s.f_bfree as u64 * s.f_frsize as u64
}

/// `cp -r SRC/. DST/` then sync: the copy the contract describes.
pub fn copy_tree(src: &Path, dst: &Path) {
    let from = format!("{}/.", src.display());
    run("cp", &["-r", &from, dst.to_str().unwrap()]);
    run("sync", &[]);
}

/// Deterministic, incompressible-enough contents, never all zeros.
pub fn contents(seed: u64, size: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..size)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

pub fn write_file(path: &Path, size: u64) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(path, contents(size ^ path.as_os_str().len() as u64, size)).unwrap();
}

/// A tree that exercises the models: tiny files, exact cluster multiples,
/// empty files, long and Unicode names, a directory with `many` entries,
/// deep nesting and a multi-megabyte file.
pub fn mixed_tree(root: &Path, many: usize) {
    for (i, size) in [
        1u64, 100, 511, 512, 513, 4095, 4096, 4097, 32768, 65536, 131072, 1_000_000,
    ]
    .iter()
    .enumerate()
    {
        write_file(&root.join(format!("sizes/f{i}_{size}.bin")), *size);
    }
    for i in 0..5 {
        write_file(&root.join(format!("empty/e{i}")), 0);
    }
    std::fs::create_dir_all(root.join("empty-dir")).unwrap();
    let long = "a_rather_long_file_name_that_needs_several_long_name_entries_".repeat(4);
    write_file(&root.join("names").join(format!("{long}.txt")), 10);
    write_file(&root.join("names").join(&long[..200]), 10);
    write_file(&root.join("names/Ünïcödé — ファイル名.txt"), 300);
    write_file(&root.join("names/emoji_😀😀😀.dat"), 700);
    write_file(&root.join("names/short.txt"), 5);
    write_file(&root.join("names/UPPER.TXT"), 5);
    write_file(&root.join("names/MixedCase.Txt"), 5);
    write_file(&root.join("names/noext"), 5);
    write_file(&root.join("names/two.dots.name"), 5);
    for i in 0..many {
        write_file(
            &root.join(format!("many/file_{i:05}.txt")),
            (i as u64 * 37) % 3000 + 1,
        );
    }
    let mut deep = root.join("deep");
    for d in 0..20 {
        deep = deep.join(format!("level{d}"));
    }
    write_file(&deep.join("bottom.txt"), 42);
    write_file(&root.join("big/multi_megabyte.bin"), 5 * 1024 * 1024 + 123);
}

/// A wine prefix fit to run fsfit.exe (scripts/wine/prefix: wineboot and
/// the ProcessPrng shim wine 8.0 needs), made once in target/tmp and reused.
pub struct Wine {
    prefix: PathBuf,
}

/// The test prefix, or None (a skip; a failure under FSFIT_REQUIRE_ALL=1)
/// when wine or mingw is missing.
pub fn wine() -> Option<&'static Wine> {
    static WINE: std::sync::OnceLock<Option<Wine>> = std::sync::OnceLock::new();
    let made = WINE.get_or_init(|| {
        if !have(&["wine", "x86_64-w64-mingw32-gcc"]) {
            return None;
        }
        let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-prefix");
        let shim = prefix.join("drive_c/windows/system32/bcryptprimitives.dll");
        if !shim.is_file() {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wine/prefix");
            run(
                "bash",
                &[script.to_str().unwrap(), prefix.to_str().unwrap()],
            );
        }
        Some(Wine { prefix })
    });
    made.as_ref()
}

impl Wine {
    /// `wine exe ARGS...`: its stdout; panics with stderr on failure.
    pub fn run(&self, exe: &Path, args: &[&str]) -> String {
        let out = self.command(exe).args(args).output().expect("run wine");
        assert!(
            out.status.success(),
            "wine {} {args:?} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    pub fn command(&self, exe: &Path) -> Command {
        let mut c = Command::new("wine");
        c.arg(exe)
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all");
        c
    }
}

/// A Linux path as wine's programs see it (its Z: drive is /).
pub fn wine_path(p: &Path) -> String {
    format!("Z:{}", p.display()).replace('/', "\\")
}

/// Partition the image file `disk` with an sfdisk `script` (no kernel
/// re-read: a file, not a device).
pub fn sfdisk(disk: &Path, script: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new("sfdisk")
        .args([
            "--quiet",
            "--no-reread",
            "--no-tell-kernel",
            "--wipe",
            "always",
        ])
        .arg(disk)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run sfdisk");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "sfdisk failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
