//! `--volume` as people give it: sizes as typed, a drive or image to
//! read the size from, nonsense refused with one line, the default said to
//! be assumed.

use crate::common;

use common::{fsfit, usage_json, write_file};
#[cfg(target_os = "linux")]
use common::{Image, Loop};

fn err_of(args: &[&str]) -> (String, Option<i32>) {
    let out = fsfit().args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn sizes_as_people_type_them() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 1000);
    let tree = t.path().to_str().unwrap();
    for (given, bytes) in [
        ("64g", 64u64 << 30),
        ("64 GB", 64_000_000_000),
        ("1.5T", 3 << 39),
        ("32gb", 32_000_000_000),
    ] {
        let v = usage_json(&[tree, "--fs", "exfat", "--volume", given]);
        assert_eq!(v["volume_bytes"], bytes, "{given}");
        assert_eq!(v["volume_assumed"], false, "{given}");
    }
}

#[test]
fn nonsense_sizes_get_one_line() {
    for (given, says) in [
        ("-1", "a size must be positive"),
        ("-64G", "a size must be positive"),
        ("12 parsecs", "unknown unit"),
        ("0", "too small"),
    ] {
        for cmd in ["usage", "advise"] {
            let (err, code) = err_of(&[cmd, ".", "--volume", given]);
            assert_eq!(code, Some(2), "{cmd} {given}: {err}");
            assert_eq!(err.lines().count(), 1, "{cmd} {given}: {err}");
            assert!(err.contains(says), "{cmd} {given}: {err}");
            assert!(!err.contains("-- -1") && !err.contains("tip"), "{err}");
        }
    }
}

#[test]
fn the_default_volume_is_said_to_be_assumed() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 1000);
    let tree = t.path().to_str().unwrap();
    let v = usage_json(&[tree, "--fs", "exfat"]);
    assert_eq!(v["volume_assumed"], true);
    // The contract's default (64 GiB), said to be assumed.
    assert_eq!(v["volume_bytes"], 64u64 << 30);
    let out = fsfit()
        .args(["usage", tree, "--fs", "exfat"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("assumed, no --volume given"), "{text}");
    let out = fsfit()
        .args(["advise", "-q", tree, "--for", "windows"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().unwrap().contains("(assumed"), "{text}");
    assert!(text.contains("assumed, no --volume given"), "{text}");
    let out = fsfit()
        .args(["advise", "-q", tree, "--for", "windows", "--volume", "8GB"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("assumed, no --volume"), "{text}");
}

/// `--volume IMAGE` and `--volume DEV` read the size, and change nothing.
#[test]
#[cfg(target_os = "linux")]
fn the_volume_read_from_an_image_and_a_loop_device() {
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 1000);
    let tree = t.path().to_str().unwrap();
    let img = Image::new(3 << 30);
    let v = usage_json(&[tree, "--fs", "exfat", "--volume", img.path_str()]);
    assert_eq!(v["volume_bytes"], 3u64 << 30);
    if !common::can_mount() {
        return;
    }
    let img = Image::new(700 << 20);
    // Something on it that must stay as it is.
    std::fs::write(&img.path, b"not touched").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&img.path)
        .unwrap()
        .set_len(700 << 20)
        .unwrap();
    let lo = Loop::attach(&img.path);
    let v = usage_json(&[tree, "--fs", "exfat", "--volume", &lo.dev]);
    assert_eq!(v["volume_bytes"], 700u64 << 20);
    let (_, code) = err_of(&[
        "advise", "-q", tree, "--for", "windows", "--volume", &lo.dev,
    ]);
    assert_eq!(code, Some(0));
    drop(lo);
    assert!(std::fs::read(&img.path)
        .unwrap()
        .starts_with(b"not touched"));
    let (err, code) = err_of(&["usage", tree, "--volume", "/no/such/dev"]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
}
