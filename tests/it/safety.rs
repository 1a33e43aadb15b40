//! Nothing a user owns is at risk: fsfit formats only files it made, only
//! the device confirmed (checked again before every mkfs), detaches only its
//! own loop devices, and ends quietly when its reader goes away. On real
//! images, loop devices and mounts.

use crate::common;

use ::fsfit::device::identity::Identity;
use common::fsfit;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn state_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsfit-state-")
        .tempdir()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tiny_bench(state: &Path, image: &Path, extra: &[&str]) -> Output {
    fsfit()
        .env("FSFIT_STATE_DIR", state)
        .args(["bench", "-q", "--image"])
        .arg(image)
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
        .args(extra)
        .output()
        .unwrap()
}

fn digest(p: &Path) -> (u64, u64) {
    let b = std::fs::read(p).unwrap();
    let h = b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    });
    (b.len() as u64, h)
}

#[test]
fn a_file_fsfit_did_not_make_is_never_formatted() {
    if !(common::can_mount() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let state = state_dir();
    let d = state.path();
    // Someone's disk image with a labelled filesystem, and someone's video.
    let vm = d.join("vm.img");
    std::fs::File::create(&vm)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    common::run("mkfs.ext4", &["-q", "-L", "HOLIDAYS", vm.to_str().unwrap()]);
    let video = d.join("video.mp4");
    std::fs::write(&video, common::contents(7, 3 << 20)).unwrap();
    for (f, looks) in [(&vm, "300 MiB"), (&video, "3.00 MiB")] {
        let before = digest(f);
        let out = tiny_bench(d, f, &["--size", "512M"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let e = stderr(&out);
        assert_eq!(e.lines().count(), 1, "one line: {e}");
        // The path whole, and what to do, in 100 columns; what the file
        // holds as far as they allow.
        assert!(
            e.contains("refusing to overwrite") && e.contains(f.to_str().unwrap()),
            "{e}"
        );
        assert!(
            e.contains("not made by fsfit; --overwrite-image erases it"),
            "{e}"
        );
        // (The test's folder stands for a short path: the path is never cut.)
        let shown = e.replace(&d.display().to_string(), "/tmp/x");
        assert!(shown.trim_end().chars().count() <= 100, "{e}");
        // Named as a person would type it, there is room for its size at
        // least (what it holds, where the line has room: info::describe).
        let name = f.file_name().unwrap();
        let out = fsfit()
            .current_dir(d)
            .env("FSFIT_STATE_DIR", d)
            .args(["bench", "-q", "--fs", "ext4", "--image"])
            .arg(name)
            .output()
            .unwrap();
        let e = stderr(&out);
        assert!(e.contains(&format!("({looks})")), "{e}");
        assert_eq!(digest(f), before, "{} untouched", f.display());
    }
    // A symbolic link to it is refused too, whatever it points to.
    let link = d.join("link.img");
    std::os::unix::fs::symlink(&video, &link).unwrap();
    let out = tiny_bench(d, &link, &["--overwrite-image"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));

    // An empty file is fine, and becomes fsfit's: used again without asking.
    let empty = d.join("empty.img");
    std::fs::File::create(&empty).unwrap();
    let out = tiny_bench(d, &empty, &["--size", "512M"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tiny_bench(d, &empty, &[]);
    assert!(out.status.success(), "fsfit's own image: {}", stderr(&out));
    // It kept its size: bench's 512 MiB volume, the marker after it.
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), (512 << 20) + 4096);
    // --overwrite-image is the explicit way on.
    let out = tiny_bench(d, &vm, &["--overwrite-image", "--size", "512M"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_loop_device_reused_for_another_file_is_not_formatted() {
    if !common::can_mount() {
        return;
    }
    let a = common::Image::new(64 << 20);
    let b = common::Image::new(64 << 20);
    let lp = common::Loop::attach(&a.path);
    let confirmed = Identity::of(&lp.dev).unwrap();
    assert!(
        confirmed.backing.is_some(),
        "a loop's backing file is known"
    );
    confirmed.confirm().unwrap();
    // Mounted: the exclusive open fails, nothing may be formatted.
    common::run("mkfs.ext4", &["-q", "-F", &lp.dev]);
    {
        let _m = common::Mount::kernel(&lp.dev, "ext4", None);
        let e = confirmed.confirm().unwrap_err().to_string();
        assert!(
            e.contains("busy") && e.contains("nothing was formatted"),
            "{e}"
        );
    }
    // Detached and attached to another file of the same size, same number.
    common::run("losetup", &["-d", &lp.dev]);
    let reattached = Command::new("losetup")
        .args([&lp.dev, b.path_str()])
        .status()
        .unwrap()
        .success();
    if !reattached {
        // Another test took the number in between: nothing to check.
        eprintln!("SKIP part: {} was taken by someone else", lp.dev);
        return;
    }
    let e = confirmed.confirm().unwrap_err().to_string();
    assert!(e.contains("backing file was"), "{e}");
    assert!(e.contains("nothing was formatted"), "{e}");
    assert!(!e.contains('\n'));
}

/// The loop device and backing file of a run recorded in `state`.
fn write_record(state: &Path, pid: u32, dev: &str, file: &Path, ino: u64) {
    let rec = serde_json::json!({
        "pid": pid, "loops": [dev], "mounts": [], "files": [],
        "backing": [[dev, {"file": file, "st_dev": 0, "st_ino": ino}]],
        "dirs": []
    });
    std::fs::write(state.join(format!("{pid}.json")), rec.to_string()).unwrap();
}

#[test]
fn cleanup_detaches_only_the_loop_it_recorded() {
    if !common::can_mount() {
        return;
    }
    let state = state_dir();
    let mine = common::Image::new(16 << 20);
    let theirs = common::Image::new(16 << 20);
    let lp = common::Loop::attach(&theirs.path);
    // A dead run's record says this loop number served another file.
    let dead = Command::new("true").spawn().unwrap();
    let pid = dead.id();
    let mut dead = dead;
    dead.wait().unwrap();
    write_record(state.path(), pid, &lp.dev, &mine.path, 12345);
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .arg("cleanup")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("left {} alone", lp.dev)), "{said}");
    let still = common::run("losetup", &[&lp.dev]);
    assert!(still.contains(theirs.path_str()), "{still}");

    // A record naming what the loop really serves: detached.
    let real = ::fsfit::device::loopdev::backing(&lp.dev).unwrap();
    let rec = serde_json::json!({
        "pid": pid, "loops": [lp.dev], "mounts": [], "files": [],
        "backing": [[lp.dev, real]], "dirs": []
    });
    std::fs::write(state.path().join(format!("{pid}.json")), rec.to_string()).unwrap();
    let out = fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .arg("cleanup")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("detached {}", lp.dev)), "{said}");
}

#[test]
fn a_full_volume_stops_one_workload_and_the_others_run() {
    if !(common::can_mount() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let img = common::Image::new(96 << 20);
    let lp = common::Loop::attach(&img.path);
    common::run("mkfs.ext4", &["-q", "-F", "-m", "0", &lp.dev]);
    let m = common::Mount::kernel(&lp.dev, "ext4", None);
    // Leave about 24 MiB: tiny files fit, a large-write set does not.
    let free = common::free_bytes(m.path());
    let filler = m.path().join("filler");
    let f = std::fs::File::create(&filler).unwrap();
    let rc = unsafe {
        libc::fallocate(
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
            0,
            (free - (24 << 20)) as i64,
        )
    };
    assert_eq!(rc, 0, "fallocate the filler");
    drop(f);
    let json = img.dir.path().join("r.json");
    let out = fsfit()
        .args(["bench", "-q", "--dir"])
        .arg(m.path())
        .args([
            "--scale",
            "0.05",
            "--repeat",
            "1",
            "--workloads",
            "tiny-write,tiny-read,large-write,tree-write",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    // A workload that failed is reported in its row; the run itself is done.
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ws = v["results"][0]["workloads"].as_array().unwrap();
    let by = |n: &str| ws.iter().find(|w| w["name"] == n).unwrap();
    let full = by("large-write");
    assert!(
        full["error"]
            .as_str()
            .is_some_and(|e| e.contains("the volume is full")),
        "{full}"
    );
    // Before it and after it (tree-write runs after large-write).
    for n in ["tiny-write", "tiny-read", "tree-write"] {
        assert!(by(n).get("error").is_none(), "{n} ran: {}", by(n));
        assert!(by(n)["median_seconds"].as_f64().unwrap() > 0.0);
    }
    // fsfit's work folder is gone; the filler is untouched.
    let left: Vec<_> = std::fs::read_dir(m.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fsfit-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Run fsfit with its stdout a pipe nobody reads.
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut fds = [0i32; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    unsafe { libc::close(fds[0]) };
    let w = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[1]) };
    fsfit()
        .args(args)
        .stdout(Stdio::from(w))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn every_command_ends_quietly_on_a_closed_pipe() {
    let d = tempfile::tempdir().unwrap();
    common::mixed_tree(d.path(), 50);
    let tree = d.path().to_str().unwrap();
    let state = state_dir();
    let img = common::Image::new(8 << 20);
    if common::have(&["mkfs.fat"]) {
        common::run("mkfs.fat", &["-n", "PIPE", img.path_str()]);
    }
    let runs: Vec<Vec<&str>> = vec![
        vec!["usage", tree, "--fs", "exfat"],
        vec!["usage", tree, "--json"],
        vec!["bench", "--list"],
        vec!["info", img.path_str()],
        vec!["info", img.path_str(), "--json"],
        vec!["advise", tree, "--for", "windows"],
        vec!["cleanup"],
    ];
    for args in runs {
        let mut cmd_args = args.clone();
        cmd_args.push("-q");
        let out = if args[0] == "cleanup" {
            let mut fds = [0i32; 2];
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            unsafe { libc::close(fds[0]) };
            let w = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[1]) };
            fsfit()
                .env("FSFIT_STATE_DIR", state.path())
                .arg("cleanup")
                .stdout(Stdio::from(w))
                .stderr(Stdio::piped())
                .output()
                .unwrap()
        } else {
            with_closed_stdout(&cmd_args)
        };
        let e = stderr(&out);
        assert!(!e.contains("panicked"), "{args:?}: {e}");
        assert!(!e.contains("Broken pipe"), "{args:?}: {e}");
        assert!(
            out.status.code().is_some(),
            "{args:?} killed by a signal: {:?}",
            out.status
        );
    }
}

/// A device path that names no block device is a bad argument for every
/// command that takes one (exit 2, one line), and nothing runs.
#[test]
fn a_device_that_is_not_there_is_a_bad_argument_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, b"x").unwrap();
    let missing = "/dev/fsfit-no-such-device";
    let f = file.to_str().unwrap();
    for (dev, says) in [(missing, "no such block device"), (f, "not a block device")] {
        for args in [
            vec![
                "bench",
                "-q",
                "--fs",
                "ext4",
                "--device",
                dev,
                "--yes-erase",
                dev,
            ],
            vec!["format", dev, "--fs", "ext4", "--yes-erase", dev],
        ] {
            if args[0] == "format" && dev == f {
                continue; // a file is format's image target, not a device
            }
            let out = fsfit().args(&args).output().unwrap();
            let e = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
            assert!(e.contains(says), "{args:?}: {e}");
            assert_eq!(e.trim().lines().count(), 1, "{args:?}: {e}");
        }
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

/// A loop device on the drive, with a mounted filesystem: erasing the
/// drive erases that filesystem, though the loop device neither holds the
/// drive exclusively nor shows in its holders. Refused, naming both; and
/// refused too while the loop device is only attached.
#[test]
fn a_drive_under_a_mounted_loop_device_is_not_erased() {
    if !(common::can_mount() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let img = common::Image::new(64 << 20);
    let drive = common::Loop::attach(&img.path);
    let upper = common::Loop::attach(Path::new(&drive.dev));
    common::run("mkfs.ext4", &["-q", "-F", &upper.dev]);
    let mnt = common::Mount::kernel(&upper.dev, "ext4", None);
    std::fs::write(mnt.path().join("keep"), b"precious").unwrap();
    let format = || {
        fsfit()
            .args(["format", &drive.dev, "--fs", "ext4", "--allow-fixed"])
            .args(["--yes-erase", &drive.dev])
            .output()
            .unwrap()
    };
    let out = format();
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    let point = mnt.path().to_str().unwrap();
    assert!(
        e.contains(&format!("mounted: {} on {point}", upper.dev)),
        "{e}"
    );
    let why: Vec<&str> = e.lines().filter(|l| l.starts_with("fsfit:")).collect();
    assert_eq!(why.len(), 1, "one line: {e}");
    assert!(
        why[0].contains(&format!("{}, which is built on", upper.dev)),
        "{e}"
    );
    assert!(why[0].contains(&format!("is mounted on {point}")), "{e}");
    drop(mnt);
    let before = digest(&img.path);
    let out = format();
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    let detach = format!("losetup -d {}", upper.dev);
    assert!(e.contains(&detach), "{e}");
    assert_eq!(digest(&img.path), before, "the drive was written");
    drop(upper);
}
