//! `fsfit format` on sparse image files under partition-scanning loop
//! devices: every filesystem fsfit makes, and the SD layouts. Each result is
//! checked from outside fsfit: blkid -p, sfdisk's view of the table, the
//! filesystem's checker, `fsfit info`, and a mount (or mtools) that writes
//! and reads a file. Refusals (labels, unconfirmed or mounted devices) are
//! checked to write nothing.

use crate::common;

use common::fsfit;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
/// fsfit's marker at the end of every image it makes.
const MARKER: u64 = 4096;

fn tools() -> bool {
    common::can_mount() && common::have(&["sfdisk", "wipefs", "blkid", "partx"])
}

/// `fsfit format IMAGE ARGS --json IMAGE.json`.
fn format(image: &Path, args: &[&str]) -> (Output, Value) {
    format_to(image, &image.with_extension("json"), args)
}

fn format_to(image: &Path, json: &Path, args: &[&str]) -> (Output, Value) {
    let out = fsfit()
        .arg("format")
        .arg(image)
        .args(args)
        .arg("--json")
        .arg(json)
        // As under sudo: the new volume's root folder is this user's.
        .env("SUDO_UID", "1234")
        .env("SUDO_GID", "5678")
        .output()
        .unwrap();
    let v = std::fs::read(json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    (out, v)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// The image again, under a loop device of our own with partition scanning
/// (up to the volume: fsfit's marker follows it).
struct Attached {
    dev: String,
}

impl Attached {
    fn new(image: &Path) -> Attached {
        let size = std::fs::metadata(image).unwrap().len() - MARKER;
        let dev = common::run(
            "losetup",
            &[
                "-f",
                "--show",
                "-P",
                "--sizelimit",
                &size.to_string(),
                image.to_str().unwrap(),
            ],
        )
        .trim()
        .to_string();
        Attached { dev }
    }

    fn volume(&self, table: bool) -> String {
        if !table {
            return self.dev.clone();
        }
        let p = format!("{}p1", self.dev);
        for i in 0..50 {
            if Path::new(&p).exists() {
                break;
            }
            if i == 10 {
                let _ = Command::new("partx").args(["-a", &self.dev]).status();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        p
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

fn blkid(dev: &str, key: &str) -> String {
    let out = Command::new("blkid")
        .args(["-p", "-s", key, "-o", "value", dev])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.strip_suffix('\n').unwrap_or(&s).to_string()
}

/// Everything the plan said, checked from outside fsfit.
fn check_volume(image: &Path, v: &Value, want_fs: &str, want_label: Option<&str>) {
    assert_eq!(v["schema"], "fsfit.format/1");
    assert_eq!(v["fs"], want_fs, "{v}");
    for k in ["info", "checker", "blkid"] {
        assert_eq!(v["verified"][k], true, "verified.{k}: {v}");
    }
    let start = v["partition_start_bytes"].as_u64().unwrap();
    // mkudffs's MBR boot area: one entry from sector 0 over the whole
    // device, the volume on the device itself (blkid -p finds nothing in a
    // partition that starts with its own table).
    let boot_area = v["table"] == "mbr" && start == 0;
    let table = v["table"] != "none" && !boot_area;
    let a = Attached::new(image);
    let vol = a.volume(table);
    let align = v["alignment_bytes"].as_u64().unwrap();
    if boot_area {
        let ty = common::run("sfdisk", &["--part-type", &a.dev, "1"]);
        let want = v["partition_type"].as_str().unwrap();
        assert_eq!(
            u8::from_str_radix(ty.trim(), 16).ok(),
            u8::from_str_radix(&want[2..], 16).ok(),
            "{v}"
        );
    }
    if table {
        let off: u64 = blkid(&vol, "PART_ENTRY_OFFSET").parse().unwrap();
        assert_eq!(off * 512, start, "partition start");
        let ty = blkid(&vol, "PART_ENTRY_TYPE");
        let want = v["partition_type"].as_str().unwrap();
        let same = match (
            u8::from_str_radix(want.trim_start_matches("0x"), 16),
            u8::from_str_radix(ty.trim_start_matches("0x"), 16),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => want.eq_ignore_ascii_case(&ty),
        };
        assert!(same, "partition type {ty}, JSON {want}");
        assert_eq!(start % align, 0, "partition start on the alignment");
    }
    if let Some(l) = want_label {
        assert_eq!(blkid(&vol, "LABEL"), l, "blkid label");
        assert_eq!(v["label"], l);
    }
    // fsfit info on the whole device reads the same data area and cluster.
    let info = common::run(env!("CARGO_BIN_EXE_fsfit"), &["info", "--json", &a.dev]);
    let info: Value = serde_json::from_str(&info).unwrap();
    let (vinfo, data) = if table || boot_area {
        let p = &info["partitions"][0];
        (&p["volume"], &p["data_offset_bytes"])
    } else {
        (&info["volume"], &info["data_offset_bytes"])
    };
    assert_eq!(vinfo["cluster_bytes"], v["cluster_bytes"], "{info}");
    if !v["data_offset_bytes"].is_null() {
        assert_eq!(*data, v["data_offset_bytes"], "data area: {info}");
        assert_eq!(data.as_u64().unwrap() % align, 0, "data area aligned");
    }
    checker(want_fs, &vol);
    mounts(want_fs, &vol, image, start);
}

/// The checker, read-only, from the registry's own data.
fn checker(fs: &str, dev: &str) {
    let Some(c) = ::fsfit::fs::by_name(fs).unwrap().info().checker else {
        return;
    };
    let out = Command::new(c.program)
        .args(c.check_args)
        .arg(dev)
        .output()
        .unwrap();
    assert_eq!(
        c.verdict(out.status.code().unwrap_or(-1)),
        ::fsfit::fs::Verdict::Clean,
        "{} on {fs}: {}",
        c.program,
        text(&out)
    );
}

/// Write a file on the new volume and read it back, with whatever driver
/// this host has for it.
fn mounts(fs: &str, dev: &str, image: &Path, start: u64) {
    let data = common::contents(7, 100_000);
    let m = match fs {
        "ext4" | "xfs" | "btrfs" => common::Mount::kernel(dev, fs, None),
        "exfat" => common::Mount::fuse("mount.exfat-fuse", &[], dev),
        "ntfs" => common::Mount::fuse("ntfs-3g", &[], dev),
        "fat12" | "fat16" | "fat32" => {
            // mtools reads the partition inside the image itself.
            let src = image.with_extension("src");
            std::fs::write(&src, &data).unwrap();
            let img = format!("{}@@{start}", image.display());
            common::run("mcopy", &["-i", &img, src.to_str().unwrap(), "::/T.BIN"]);
            let back = image.with_extension("back");
            common::run("mcopy", &["-i", &img, "::/T.BIN", back.to_str().unwrap()]);
            assert_eq!(std::fs::read(&back).unwrap(), data, "{fs} read back");
            return;
        }
        // No driver on this kernel (UDF, F2FS): tests/it/lab.rs mounts those.
        _ => return,
    };
    let f = m.path().join("t.bin");
    std::fs::write(&f, &data).unwrap();
    assert_eq!(std::fs::read(&f).unwrap(), data, "{fs} read back");
}

#[test]
fn every_filesystem_formats_as_planned() {
    if !(tools() && common::can_fuse()) {
        return;
    }
    let all = [
        ("fat16", "mkfs.fat"),
        ("fat32", "mkfs.fat"),
        ("exfat", "mkfs.exfat"),
        ("ntfs", "mkntfs"),
        ("ext4", "mkfs.ext4"),
        ("xfs", "mkfs.xfs"),
        ("btrfs", "mkfs.btrfs"),
        ("f2fs", "mkfs.f2fs"),
        ("udf", "mkudffs"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (fs, tool) in all {
        if !common::have(&[tool, "mcopy", "mount.exfat-fuse", "ntfs-3g"]) {
            return;
        }
        let img = dir.path().join(format!("{fs}.img"));
        let label = if fs.starts_with("fat") {
            "MY DISK"
        } else {
            "My Disk"
        };
        let (out, v) = format(&img, &["--size", "600M", "--fs", fs, "--label", "My Disk"]);
        assert!(out.status.success(), "format {fs}: {}", text(&out));
        check_volume(&img, &v, fs, Some(label));
        if fs == "udf" {
            assert_eq!(v["table"], "none", "UDF goes on the whole device");
        }
        std::fs::remove_file(&img).unwrap();
    }
}

/// A drive over 2 TiB: FAT32 addresses 2^32 - 1 sectors and an MBR table
/// the first 2 TiB, so the partition ends there (mkfs.fat alone would leave
/// the rest unused unsaid), the table on the image says so, and the volume
/// checks clean.
#[test]
fn over_2_tib_the_partition_ends_where_mbr_and_fat_reach() {
    if !(tools() && common::have(&["mkfs.fat", "fsck.fat"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("big.img");
    let (out, v) = format(
        &img,
        &["--size", "3TB", "--fs", "fat32:64K", "--table", "mbr"],
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("stays unused"), "{t}");
    let (start, len) = (
        v["partition_start_bytes"].as_u64().unwrap(),
        v["partition_size_bytes"].as_u64().unwrap(),
    );
    assert_eq!(start + len, 1 << 41, "{v}");
    assert_eq!(
        v["plan"]["unused_bytes"].as_u64(),
        Some(3_000_000_000_000 - (1 << 41)),
        "{v}"
    );
    let dump = common::run("sfdisk", &["-d", img.to_str().unwrap()]);
    let squeezed: String = dump.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = format!("start= {}, size= {}, type=c", start / 512, len / 512);
    assert!(squeezed.contains(&want), "{want} in {dump}");
    assert!(t.contains("checker: ok"), "{t}");
}

#[test]
fn gpt_and_ext4_for_data() {
    if !(tools() && common::have(&["mkfs.ext4", "dumpe2fs"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("gpt.img");
    let (out, v) = format(
        &img,
        &[
            "--size", "300M", "--fs", "ext4", "--table", "gpt", "--align", "1M",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(v["partition_type"], "0FC63DAF-8483-4772-8E79-3D69D8477DE4");
    assert_eq!(v["partition_start_bytes"], MIB);
    check_volume(&img, &v, "ext4", None);
    // -m 0 and the root folder's owner: what mkfs wrote.
    let a = Attached::new(&img);
    let dump = common::run("dumpe2fs", &["-h", &a.volume(true)]);
    assert!(dump.contains("Reserved block count:     0"), "{dump}");
    if common::have(&["debugfs"]) {
        let root = common::run("debugfs", &["-R", "stat /", &a.volume(true)]);
        assert!(root.contains("User:  1234   Group:  5678"), "{root}");
    }
}

#[test]
fn sd_layouts_follow_the_spec_table() {
    let need = ["mkfs.fat", "mkfs.exfat", "mcopy", "mount.exfat-fuse"];
    if !(tools() && common::have(&need) && common::can_fuse()) {
        return;
    }
    // (capacity, fs, cluster, boundary unit) from the SD specification.
    let cases = [
        (GIB, "fat16", 16 << 10, 64 << 10),
        (2 * GIB, "fat16", 32 << 10, 64 << 10),
        (16 * GIB, "fat32", 32 << 10, 4 * MIB),
        (64 * GIB, "exfat", 128 << 10, 16 * MIB),
        (256 * GIB, "exfat", 256 << 10, 32 * MIB),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (size, fs, cluster, bu) in cases {
        let img = dir.path().join(format!("sd{size}.img"));
        let (out, v) = format(
            &img,
            &["--size", &size.to_string(), "--sd", "--label", "CARD"],
        );
        assert!(out.status.success(), "--sd {size}: {}", text(&out));
        assert_eq!(v["fs"], fs, "{v}");
        assert_eq!(v["cluster_bytes"], cluster, "{v}");
        assert_eq!(v["alignment_bytes"], bu, "{v}");
        assert_eq!(v["partition_start_bytes"], bu, "partition at one BU: {v}");
        let data = v["data_offset_bytes"].as_u64().unwrap();
        assert_eq!(data % bu, 0, "data area on a BU: {v}");
        if fs == "exfat" {
            // FAT at BU/2, cluster heap at BU from the partition start.
            assert_eq!(data, 2 * bu, "{v}");
            assert!(v["commands"]
                .to_string()
                .contains(&format!("\"{}\"", bu / 2)));
        }
        check_volume(&img, &v, fs, Some("CARD"));
        info_says_aligned_to_the_bu(&img, bu);
        std::fs::remove_file(&img).unwrap();
    }
}

/// `fsfit info` judges an SD layout against its boundary unit (64K on a
/// 2 GB card, below 1 MiB; 16M on a 64 GB one): aligned, in the JSON and
/// in the text.
fn info_says_aligned_to_the_bu(img: &Path, bu: u64) {
    let out = fsfit().arg("info").arg(img).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["partitions"][0]["alignment_promise"];
    assert_eq!(p["kind"], "sd-boundary-unit", "{}: {p}", img.display());
    assert_eq!(p["alignment_bytes"], bu, "{p}");
    assert_eq!(p["aligned"], true, "{p}");
    let out = fsfit().arg("info").arg(img).output().unwrap();
    let t = text(&out);
    let short = if bu >= MIB {
        format!("{}M", bu / MIB)
    } else {
        format!("{}K", bu >> 10)
    };
    assert!(t.contains(&format!("SD BU {short}")), "{t}");
    // The text wraps to the terminal's width: read its words as a sentence.
    let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(&format!("aligned to its SD boundary unit ({short}) yes")),
        "{t}"
    );
    assert!(!t.contains(" NO"), "{t}");
}

#[test]
fn sd_says_what_the_spec_uses_when_fs_names_another() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("x.img");
    let out = fsfit()
        .args([
            "format",
            img.to_str().unwrap(),
            "--size",
            "64G",
            "--sd",
            "--fs",
            "fat32",
        ])
        .arg("--dry-run")
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("the SD specification uses exfat with 128K clusters"),
        "{t}"
    );
    assert!(!img.exists(), "a dry run made the image");
}

#[test]
fn labels_that_would_break_a_shell_are_refused_or_kept_whole() {
    if !(tools() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("l.img");
    let long = "x".repeat(300);
    // Refused with the rule, before anything is written.
    for (fs, label, rule) in [
        ("fat32", "x; rm -rf ~", "may not hold ';'"),
        ("exfat", "$(id)xxxxxxxxxx", "at most 11 UTF-16 units"),
        ("ext4", "a\nb", "control characters"),
        ("ext4", long.as_str(), "at most 16 bytes"),
        ("btrfs", long.as_str(), "at most 254 bytes"),
    ] {
        let (out, _) = format(&img, &["--size", "300M", "--fs", fs, "--label", label]);
        assert_eq!(out.status.code(), Some(2), "{fs} {label:?}: {}", text(&out));
        assert!(text(&out).contains(rule), "{fs} {label:?}: {}", text(&out));
        assert!(!img.exists() || std::fs::metadata(&img).unwrap().len() <= 300 * MIB + MARKER);
    }
    // Passed intact as one argument: the label on disk is the label given.
    for label in ["x; rm -rf ~", "$(id)", "it's \"q\"", "`id`"] {
        let (out, v) = format(&img, &["--size", "300M", "--fs", "ext4", "--label", label]);
        assert!(out.status.success(), "{label:?}: {}", text(&out));
        let a = Attached::new(&img);
        assert_eq!(blkid(&a.volume(true), "LABEL"), label);
        assert_eq!(v["label"], label);
    }
}

#[test]
fn an_unconfirmed_or_mounted_device_is_never_written() {
    if !(tools() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let img = common::Image::new(64 * MIB);
    common::run("mkfs.ext4", &["-q", "-L", "KEEP", img.path_str()]);
    let lp = common::Loop::attach(&img.path);
    let before = blkid(&lp.dev, "UUID");
    let run = |extra: &[&str]| {
        fsfit()
            .args(["format", &lp.dev, "--fs", "ext4", "--allow-fixed"])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--yes-erase"), "{}", text(&out));
    let out = run(&["--yes-erase", "/dev/loop-control"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(blkid(&lp.dev, "UUID"), before, "nothing written");
    // Mounted: refused even when confirmed.
    let m = common::Mount::kernel(&lp.dev, "ext4", None);
    let out = run(&["--yes-erase", &lp.dev]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("mounted"), "{}", text(&out));
    drop(m);
    assert_eq!(blkid(&lp.dev, "UUID"), before, "nothing written");
    assert_eq!(blkid(&lp.dev, "LABEL"), "KEEP");
}

#[test]
fn a_file_fsfit_did_not_make_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("video.mp4");
    std::fs::write(&f, b"not an image of fsfit's").unwrap();
    let out = fsfit()
        .args(["format", f.to_str().unwrap(), "--fs", "ext4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(std::fs::read(&f).unwrap(), b"not an image of fsfit's");
    // In format's words: bench's --overwrite-image is no flag of format's.
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("refusing to format"), "{e}");
    assert!(!e.contains("--overwrite-image"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
}

/// The words a POSIX shell makes of `line` (after `sudo `, before the
/// comment), by running `set --` on it: nothing in a correctly quoted line
/// runs, and the marker file proves it.
fn shell_words(line: &str) -> Vec<String> {
    let cmd = line.split("   # ").next().unwrap();
    let cmd = cmd.strip_prefix("sudo ").unwrap_or(cmd);
    let script = format!("set -- {cmd}; printf '%s\\0' \"$@\"");
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{line}: {}", text(&out));
    out.stdout
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

#[test]
fn printed_commands_are_safe_to_paste() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), b"hello").unwrap();
    let mark = dir.path().join("RAN");
    let m = mark.to_str().unwrap();
    let labels = [
        format!("x; touch {m}"),
        format!("$(touch {m})"),
        format!("`touch {m}`"),
        "it's \"q\"".to_string(),
        "My Holiday Photos 2024".to_string(),
    ];
    for label in &labels {
        let out = fsfit()
            .args([
                "advise", "-q", "--for", "linux", "--volume", "8G", "--json", "-",
            ])
            .arg(dir.path().join("a.txt"))
            .args(["--label", label])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &v["commands"];
        let mut lines: Vec<String> = c["linux_steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        assert!(lines
            .iter()
            .any(|l| l.starts_with("lsblk -o NAME,SIZE,MODEL,TRAN")));
        assert!(lines.iter().any(|l| l.contains("umount")));
        assert!(lines.iter().any(|l| l.contains("sfdisk")));
        lines.push(c["fsfit"].as_str().unwrap().to_string());
        for l in &lines {
            let n = Command::new("sh").args(["-n", "-c", l]).output().unwrap();
            assert!(n.status.success(), "sh -n {l:?}: {}", text(&n));
        }
        let labelled =
            |l: &&String| !l.contains('|') && (l.contains(" -L ") || l.contains("--label"));
        assert!(lines.iter().filter(labelled).count() >= 2, "{lines:?}");
        for l in lines.iter().filter(labelled) {
            let words = shell_words(l);
            assert!(
                words.contains(label),
                "{label:?} is not one argument of {l:?}: {words:?}"
            );
        }
        assert!(
            !mark.exists(),
            "a printed command ran part of the label {label:?}"
        );
    }
}

/// The one argument a POSIX shell makes of `quoted` (printf'd by `sh -c`).
fn sh_value(quoted: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", &format!("printf '%s' {quoted}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{quoted}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// The value PowerShell's argument mode makes of `arg` (bare, in double
/// quotes with nothing it would expand, or in single quotes with `''` for
/// a quote), or None where PowerShell would expand or split something.
fn powershell_value(arg: &str) -> Option<String> {
    if let Some(inner) = arg.strip_prefix('\'') {
        let body = inner.strip_suffix('\'')?;
        // Inside, a lone quote would end the string early.
        if body.replace("''", "").contains('\'') {
            return None;
        }
        return Some(body.replace("''", "'"));
    }
    if let Some(inner) = arg.strip_prefix('"') {
        let body = inner.strip_suffix('"')?;
        return (!body.contains(['$', '`', '"'])).then(|| body.to_string());
    }
    let special = |c: char| "$`'\"(){};,&|@<># ".contains(c);
    (!arg.contains(special)).then(|| arg.to_string())
}

/// Input echoed back runs nothing when pasted: a refused label quoted back
/// in a refusal, a folder named in man's "create it" hint, and the label
/// on the Windows line, read with PowerShell's rules.
#[test]
fn echoed_input_runs_nothing_when_pasted() {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("RAN");
    let m = mark.to_str().unwrap();
    // exFAT refuses '/', which every marker path holds.
    let labels = [
        format!("x; touch {m}"),
        format!("$(touch {m})"),
        format!("`touch {m}`"),
        format!("it's \"q\" $(touch {m})"),
    ];
    let img = dir.path().join("l.img");
    for label in &labels {
        let out = fsfit()
            .arg("format")
            .arg(&img)
            .args(["--size", "1G", "--fs", "exfat", "--label", label])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        let shown = err
            .strip_prefix("fsfit: --label ")
            .and_then(|r| r.split(": exFAT labels").next())
            .unwrap_or_else(|| panic!("{err}"));
        assert_eq!(&sh_value(shown), label, "{err}");
        assert!(!img.exists(), "a refused label left the image");
    }
    let folder = dir.path().join(format!("a b'$(touch {m})"));
    let out = fsfit()
        .arg("man")
        .arg("--dir")
        .arg(&folder)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    let hint = err
        .split("e.g. sudo mkdir -p ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"));
    let hint = hint.trim_end().strip_suffix(')').unwrap();
    assert_eq!(sh_value(hint), folder.to_str().unwrap(), "{err}");
    assert!(!mark.exists(), "a pasted echo ran part of the input");
    std::fs::write(dir.path().join("a.txt"), b"hello").unwrap();
    for label in ["a'b $(x) %PATH%", "My Stick", "x`y", "50% off"] {
        let out = fsfit()
            .args(["advise", "-q", "--for", "windows", "--synthetic"])
            .args(["--json", "-"])
            .arg(dir.path().join("a.txt"))
            .args(["--label", label])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let line = v["commands"]["windows"].as_str().unwrap();
        let arg = line
            .split("/V:")
            .nth(1)
            .and_then(|r| r.split("   (").next())
            .unwrap_or_else(|| panic!("{line}"))
            .trim_end();
        assert_eq!(powershell_value(arg).as_deref(), Some(label), "{line}");
        // cmd.exe expands %VAR% even in quotes: such a line says PowerShell.
        if label.contains(['%', '!']) || arg.starts_with('\'') {
            assert!(line.contains("PowerShell"), "{line}");
        }
    }
}

#[test]
fn advise_formats_its_choice_through_format() {
    if !(tools() && common::have(&["mkfs.btrfs", "mkfs.ext4"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), b"hello").unwrap();
    let img = common::Image::new(400 * MIB);
    let lp = common::Loop::attach(&img.path);
    let out = fsfit()
        .args([
            "advise", "-q", "--for", "linux", "--volume", "400M", "--json",
        ])
        .arg(dir.path().join("advice.json"))
        .arg(dir.path().join("a.txt"))
        .args(["--label", "Stick", "--format", &lp.dev, "--allow-fixed"])
        .args(["--yes-erase", &lp.dev])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let advice: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("advice.json")).unwrap()).unwrap();
    let fs = advice["choice"]["fs"].as_str().unwrap();
    let part = format!("{}p1", lp.dev);
    let want = ::fsfit::fs::by_name(fs).unwrap().blkid_type();
    assert_eq!(blkid(&part, "TYPE"), want, "{}", text(&out));
    assert_eq!(blkid(&part, "LABEL"), "Stick");
    assert!(text(&out).contains("Verification:"), "{}", text(&out));
    forget_partitions(&lp.dev);
}

/// A device served by fsfit's own FUSE server (src/device/served.rs) under
/// a loop device: `real` bytes that claim to be `claims`, wrapping past them.
fn served(real: u64, claims: u64) -> ::fsfit::device::served::Served {
    use ::fsfit::device::served::{start, Memory, Wrap};
    let backend: Box<dyn ::fsfit::device::served::Backend> = if real == claims {
        Box::new(Memory(vec![0; real as usize]))
    } else {
        Box::new(Wrap::in_memory(real, claims))
    };
    start(backend).expect("serve the device")
}

/// A loop device without partition scanning keeps partitions partx added
/// after it is detached: drop them so the next user of the number starts clean.
fn forget_partitions(dev: &str) {
    let _ = Command::new("partx").args(["-d", dev]).status();
}

fn check_capacity(dev: &str) -> Output {
    fsfit()
        .args([
            "format",
            dev,
            "--fs",
            "ext4",
            "--check-capacity",
            "--allow-fixed",
        ])
        .args(["--yes-erase", dev])
        .output()
        .unwrap()
}

#[test]
fn check_capacity_stops_a_fake_drive_with_its_real_size() {
    if !(tools() && common::can_fuse() && common::have(&["mkfs.ext4"])) {
        return;
    }
    // Claims 1 GiB, holds 96 MiB: writes past 96 MiB land on the start.
    let fake = served(96 * MIB, GIB);
    let out = check_capacity(fake.loop_dev());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("fake-capacity drive"), "{t}");
    assert!(
        t.contains(&format!("stores only 96.0 MiB ({} bytes)", 96 * MIB)),
        "{t}"
    );
    assert!(t.contains("f3fix --last-sec=196607"), "{t}");
    assert!(!t.contains("[1/"), "a format step ran: {t}");
    drop(fake);
    // An honest device passes and is formatted.
    let honest = served(256 * MIB, 256 * MIB);
    let out = check_capacity(honest.loop_dev());
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("every test block read back as written"), "{t}");
    assert!(t.contains("checker: ok"), "{t}");
    forget_partitions(honest.loop_dev());
}

/// Fake drives of every kind at several shortfalls: the size reported is
/// the bytes they store, to 4 KiB, and the message says what the drive was
/// seen doing with writes past it.
#[test]
fn check_capacity_finds_the_last_good_block_of_every_kind_of_fake() {
    use ::fsfit::device::served::{start, Backend, Beyond, Short, Wrap};
    if !(tools() && common::can_fuse()) {
        return;
    }
    let claims = 64 * MIB;
    let kinds: [(&str, &str); 4] = [
        ("wrap", "lands on earlier data"),
        ("vanish", "vanishes (it reads back as zeros)"),
        ("stale", "reads back as other, older data"),
        ("random", "each read gives other bytes"),
    ];
    for (kind, says) in kinds {
        // On the 4 KiB grid but off the 1 MiB one (4 KiB, 128 KiB, 1 MiB +
        // 4 KiB, 3 MiB - 4 KiB), 1 MiB exactly (a wrap that short passed
        // f3probe), and half the claim.
        for short in [
            4 * KIB,
            128 * KIB,
            MIB,
            MIB + 4 * KIB,
            3 * MIB - 4 * KIB,
            claims / 2,
        ] {
            let real = claims - short;
            let backend: Box<dyn Backend> = match kind {
                "wrap" => Box::new(Wrap::in_memory(real, claims)),
                "vanish" => Box::new(Short::new(real, claims, Beyond::Vanish)),
                "stale" => Box::new(Short::new(real, claims, Beyond::Stale)),
                _ => Box::new(Short::new(real, claims, Beyond::Random)),
            };
            let fake = start(backend).expect("serve the device");
            let out = check_capacity(fake.loop_dev());
            let t = text(&out);
            let what = format!("{kind}, {short} bytes short");
            assert_eq!(out.status.code(), Some(1), "{what}: {t}");
            assert!(t.contains(&format!("({real} bytes)")), "{what}: {t}");
            let last_sec = real / 512 - 1;
            assert!(
                t.contains(&format!("--last-sec={last_sec} ")),
                "{what}: {t}"
            );
            assert!(t.contains(says), "{what}: {t}");
            // Only what this drive was seen doing: no other kind's words.
            for (other, words) in kinds.iter().filter(|k| k.0 != kind) {
                assert!(!t.contains(words), "{what} told as {other}: {t}");
            }
            assert!(!t.contains("[1/"), "{what}: a format step ran: {t}");
        }
    }
}

/// The suggested `f3fix --last-sec=N DEV`, run on the fake itself: f3fix
/// must accept it and write its table. N, when there is one.
fn f3fix_accepts(t: &str, dev: &str) -> Option<u64> {
    let n: u64 = t
        .split("f3fix --last-sec=")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    if common::have(&["f3fix"]) {
        let out = Command::new("f3fix")
            .arg(format!("--last-sec={n}"))
            .arg(dev)
            .output()
            .unwrap();
        forget_partitions(dev);
        // On a drive that fails writes past its end, libparted's last
        // write there fails after the table is written.
        let fixed = out.status.success() || text(&out).contains("successfully fixed");
        assert!(fixed, "f3fix refused {n}: {}", text(&out));
    }
    Some(n)
}

/// Fakes whose writes past the end land somewhere (the start, another
/// offset, a small region of real data, a hidden buffer) or fail, with a
/// real size on or off the 4 KiB grid: the size reported is the last good
/// 4 KiB block's end, the partition f3fix is told to make ends inside it,
/// and the words say what the drive was seen doing.
#[test]
fn check_capacity_finds_the_size_of_fakes_that_fold_or_fail() {
    use ::fsfit::device::served::{start, Backend, Beyond, Short, Wrap};
    if !(tools() && common::can_fuse()) {
        return;
    }
    let claims = 64 * MIB;
    let alias = Beyond::Alias {
        at: 8 * MIB,
        len: MIB,
    };
    let onto = Beyond::WrapOnto { at: 4 * MIB };
    let hidden = |len| Beyond::Hidden { len };
    // (real size, past it (None: wraps to the start), size to report, words)
    let cases: [(u64, Option<Beyond>, u64, &str); 13] = [
        // Wraps to the start, 512 B and 4.5 KiB short.
        (
            claims - 512,
            None,
            claims - 4 * KIB,
            "on the start of the drive",
        ),
        (
            claims - 4608,
            None,
            claims - 8 * KIB,
            "on the start of the drive",
        ),
        // Wraps onto 4 MiB.
        (
            claims - 37 * MIB,
            Some(onto),
            claims - 37 * MIB,
            "at 4.00 MiB into",
        ),
        (
            claims - 4 * KIB,
            Some(onto),
            claims - 4 * KIB,
            "at 4.00 MiB into",
        ),
        // The whole tail onto 1 MiB of real data at 8 MiB (the last case
        // passed as honest when every test block read back as written).
        (
            claims - 37 * MIB,
            Some(alias),
            claims - 37 * MIB,
            "at 8.00 MiB into",
        ),
        (
            claims - MIB - 12 * KIB,
            Some(alias),
            claims - MIB - 12 * KIB,
            "at 8.99 MiB into",
        ),
        (
            claims - 128 * KIB,
            Some(alias),
            claims - 128 * KIB,
            "at 8.88 MiB into",
        ),
        (
            claims - 4 * KIB,
            Some(alias),
            claims - 4 * KIB,
            "at 9.00 MiB into",
        ),
        // The tail folded onto a hidden buffer of 1 or 4 MiB: it works as
        // storage for as many bytes past the real ones, and no test can
        // tell it from real storage whose tail folds onto its last bytes.
        (
            claims - 37 * MIB,
            Some(hidden(MIB)),
            claims - 36 * MIB,
            "at 27.0 MiB into",
        ),
        (
            claims - 12 * MIB,
            Some(hidden(4 * MIB)),
            claims - 8 * MIB,
            "at 52.0 MiB into",
        ),
        // Writes past the end fail.
        (
            claims - 37 * MIB,
            Some(Beyond::Fail),
            claims - 37 * MIB,
            "writing past that fails",
        ),
        (
            claims - MIB - 12 * KIB,
            Some(Beyond::Fail),
            claims - MIB - 12 * KIB,
            "writing past that fails",
        ),
        // Vanishes past a real size off the 4 KiB grid.
        (
            claims - 512,
            Some(Beyond::Vanish),
            claims - 4 * KIB,
            "vanishes (it reads back as zeros)",
        ),
    ];
    for (real, beyond, want, says) in cases {
        let backend: Box<dyn Backend> = match beyond {
            None => Box::new(Wrap::in_memory(real, claims)),
            Some(b) => Box::new(Short::new(real, claims, b)),
        };
        let fake = start(backend).expect("serve the device");
        let out = check_capacity(fake.loop_dev());
        let t = text(&out);
        let what = format!("{beyond:?}, {} bytes short", claims - real);
        assert_eq!(out.status.code(), Some(1), "{what}: {t}");
        assert!(t.contains(&format!("({want} bytes)")), "{what}: {t}");
        assert!(t.contains(says), "{what}: {t}");
        let n = f3fix_accepts(&t, fake.loop_dev()).unwrap_or_else(|| panic!("{what}: {t}"));
        assert_eq!((n + 1) * 512, want, "{what}: {t}");
        assert!(!t.contains("[1/"), "{what}: a format step ran: {t}");
    }
}

/// What the capacity check writes is said where it is asked for: in the
/// help and in a dry run's plan, which writes nothing.
#[test]
fn the_capacity_check_says_what_it_writes() {
    let help = text(&fsfit().args(["format", "--help"]).output().unwrap());
    assert!(!help.contains("whole drive"), "{help}");
    assert!(help.contains("Not every block is tested"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("d.img");
    let out = fsfit()
        .args(["format", img.to_str().unwrap(), "--size", "256M"])
        .args(["--fs", "ext4", "--dry-run", "--check-capacity"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("--check-capacity (not run in a dry run) writes 1020 test blocks"),
        "{t}"
    );
    assert!(!img.exists(), "a dry run made the image");
}

#[test]
fn ctrl_c_between_steps_leaves_a_complete_table_and_says_which_step() {
    use std::io::{BufRead, BufReader};
    if !(tools() && common::have(&["mkfs.ext4"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("c.img");
    let format = |extra: &[&str]| {
        let mut c = fsfit();
        c.args(["format", img.to_str().unwrap(), "--fs", "ext4"])
            .args(extra);
        c
    };
    // An image made before (an image this run makes is removed again when
    // the run is stopped): stopped while its table is written, the table
    // is still whole.
    assert!(format(&["--size", "1G"]).output().unwrap().status.success());
    let mut child = format(&[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let mut line = String::new();
    while err.read_line(&mut line).unwrap() > 0 {
        said += &line;
        if line.starts_with("[2/") {
            // Ctrl-C while the partition table is being written.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
        line.clear();
    }
    let status = child.wait().unwrap();
    eprintln!("{said}");
    let table = common::run("sfdisk", &["--dump", img.to_str().unwrap()]);
    // Whatever the timing, the table is the whole planned one: the
    // partition from 4 MiB to the end of the 1 GiB volume.
    assert!(
        table.contains("start=        8192, size=     2088960, type=83"),
        "{table}"
    );
    if status.code() == Some(130) {
        assert!(said.contains("interrupted before step"), "{said}");
        assert!(said.contains("complete partition table"), "{said}");
    } else {
        assert!(status.success(), "{said}");
    }
    assert!(
        !common::run("losetup", &["-a"]).contains(img.to_str().unwrap()),
        "the loop device was left attached"
    );
}

#[test]
fn labels_at_each_filesystems_limit_are_stored_whole() {
    if !tools() {
        return;
    }
    let x = |n: usize| "x".repeat(n);
    let cases = [
        ("fat32", "mkfs.fat", "ABCDEFGHI-K".to_string()),
        ("exfat", "mkfs.exfat", "ÄÄÄÄÄÄÄÄÄÄÄ".to_string()),
        ("ntfs", "mkntfs", x(32)),
        ("ext4", "mkfs.ext4", "0123456789abcdef".to_string()),
        ("xfs", "mkfs.xfs", "0123456789ab".to_string()),
        ("btrfs", "mkfs.btrfs", x(254)),
        ("f2fs", "mkfs.f2fs", x(512)),
        ("udf", "mkudffs", x(30)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (fs, tool, label) in cases {
        if !common::have(&[tool]) {
            return;
        }
        let img = dir.path().join(format!("{fs}.img"));
        let (out, v) = format(&img, &["--size", "400M", "--fs", fs, "--label", &label]);
        assert!(out.status.success(), "{fs}: {}", text(&out));
        let a = Attached::new(&img);
        assert_eq!(
            blkid(&a.volume(v["table"] != "none"), "LABEL"),
            label,
            "{fs}"
        );
        drop(a);
        std::fs::remove_file(&img).unwrap();
    }
}

#[test]
fn a_partition_target_gets_its_filesystem_counted_from_its_start() {
    if !(tools() && common::have(&["mkfs.fat", "mkfs.ext4", "fsck.fat"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("p.img");
    let (out, _) = format(&img, &["--size", "1G", "--fs", "ext4"]);
    assert!(out.status.success(), "{}", text(&out));
    let a = Attached::new(&img);
    let part = a.volume(true);
    let (out, v) = format_to(
        Path::new(&part),
        &dir.path().join("p.json"),
        &[
            "--fs",
            "fat32",
            "--label",
            "PART",
            "--allow-fixed",
            "--yes-erase",
            &part,
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(v["table"], "none");
    assert_eq!(
        v["partition_start_bytes"],
        4 * MIB,
        "the partition's start on its disk"
    );
    assert_eq!(
        v["data_offset_bytes"].as_u64().unwrap() % (4 * MIB),
        0,
        "{v}"
    );
    assert_eq!(blkid(&part, "TYPE"), "vfat");
    // The boot sector's hidden sectors are the partition's start.
    let info = common::run(env!("CARGO_BIN_EXE_fsfit"), &["info", "--json", &a.dev]);
    let info: Value = serde_json::from_str(&info).unwrap();
    assert_eq!(
        info["partitions"][0]["data_offset_bytes"],
        v["data_offset_bytes"]
    );
    checker("fat32", &part);
}

#[test]
fn a_missing_device_is_not_taken_for_an_image() {
    let out = fsfit()
        .args([
            "format",
            "/dev/fsfit-no-such-disk",
            "--fs",
            "ext4",
            "--size",
            "1G",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no such block device"),
        "{}",
        text(&out)
    );
    assert!(!Path::new("/dev/fsfit-no-such-disk").exists());
}

#[test]
fn check_capacity_agrees_with_f3probe() {
    if !(tools() && common::can_fuse() && common::have(&["f3probe"])) {
        return;
    }
    // Counterfeits drop address bits: they wrap at a power of two. (f3probe
    // 8.0 calls a 1 GiB device holding 128 MiB "damaged", usable 0: it
    // wants more real room; 512 MiB it names.)
    let fake = served(512 * MIB, GIB);
    let f3 = Command::new("f3probe")
        .args(["--destructive", "--time-ops", fake.loop_dev()])
        .output()
        .unwrap();
    let t3 = text(&f3);
    assert!(
        t3.contains("counterfeit of type wraparound"),
        "f3probe: {t3}"
    );
    assert!(t3.contains("(1048576 blocks)"), "f3probe: {t3}");
    let ours = text(&check_capacity(fake.loop_dev()));
    assert!(ours.contains(&format!("({} bytes)", 512 * MIB)), "{ours}");
}

#[test]
fn stale_kernel_partitions_are_updated_before_mkfs() {
    if !(tools() && common::have(&["mkfs.ext4"])) {
        return;
    }
    // A loop device without partition scanning, whose kernel partition 1
    // (added by partx) starts at 1 MiB: the old table's, not the new one's.
    let img = common::Image::new(256 * MIB);
    let lp = common::Loop::attach(&img.path);
    let sfdisk = Command::new("sh")
        .args([
            "-c",
            &format!("echo 'start=2048, type=83' | sfdisk -q {}", lp.dev),
        ])
        .output()
        .unwrap();
    assert!(sfdisk.status.success(), "{}", text(&sfdisk));
    let _ = Command::new("partx").args(["-a", &lp.dev]).status();
    let out = fsfit()
        .args([
            "format",
            &lp.dev,
            "--fs",
            "ext4",
            "--allow-fixed",
            "--yes-erase",
            &lp.dev,
        ])
        .output()
        .unwrap();
    let part = format!("{}p1", lp.dev);
    let offset = blkid(&part, "PART_ENTRY_OFFSET");
    forget_partitions(&lp.dev);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(offset, "8192");
}

#[test]
fn the_json_has_every_field_design_md_names() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/DESIGN.md");
    let doc = std::fs::read_to_string(&shared)
        .or_else(|_| std::fs::read_to_string(root.join("docs/contracts/DESIGN.md")))
        .unwrap();
    let section = doc.split("### `fsfit format`").nth(1).unwrap();
    let section = section.split("\n### ").next().unwrap();
    let json_part = section.split("(`fsfit.format/1`)").nth(1).unwrap();
    let names: Vec<&str> = json_part
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    assert!(names.len() >= 11, "{names:?}");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("f.json");
    let out = fsfit()
        .args([
            "format",
            dir.path().join("x.img").to_str().unwrap(),
            "--size",
            "1G",
        ])
        .args([
            "--fs",
            "exfat",
            "--dry-run",
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["schema"], "fsfit.format/1");
    for n in names {
        assert!(v.get(n).is_some(), "the JSON lacks {n}: {v}");
    }
    for k in ["info", "checker", "blkid"] {
        assert!(v["verified"][k].is_boolean(), "verified.{k}: {v}");
    }
}

/// One `fsfit format` the lab mounts with the kernel driver this host lacks:
/// (image name, format arguments, filesystem, kernel type).
type LabCase = (
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
);

const LAB_CASES: &[LabCase] = &[
    (
        "fat32",
        &["--size", "600M", "--fs", "fat32"],
        "fat32",
        "vfat",
    ),
    ("fat16sd", &["--size", "256M", "--sd"], "fat16", "vfat"),
    ("fat12sd", &["--size", "48M", "--sd"], "fat12", "vfat"),
    ("udf", &["--size", "600M", "--fs", "udf"], "udf", "udf"),
    (
        "udfmbr",
        &["--size", "600M", "--fs", "udf", "--table", "mbr"],
        "udf",
        "udf",
    ),
    ("f2fs", &["--size", "600M", "--fs", "f2fs"], "f2fs", "f2fs"),
    (
        "f2fsgpt",
        &[
            "--size", "600M", "--fs", "f2fs", "--table", "gpt", "--align", "1M",
        ],
        "f2fs",
        "f2fs",
    ),
];

/// Where F2FS's main area (its data) starts on the device: the partition
/// start plus main_blkaddr (superblock at 1 KiB, field at byte 92) blocks.
fn f2fs_main_offset(image: &Path, start: u64) -> u64 {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(image).unwrap();
    let mut sb = [0u8; 96];
    f.seek(SeekFrom::Start(start + 1024)).unwrap();
    f.read_exact(&mut sb).unwrap();
    let le = |o: usize| u32::from_le_bytes(sb[o..o + 4].try_into().unwrap()) as u64;
    assert_eq!(le(0), 0xF2F5_2010, "F2FS magic at {start}+1024");
    start + (le(92) << le(16))
}

/// The guest's script: for each image, attach it with partition scanning,
/// mount the volume with the kernel driver, copy `src` onto it, unmount,
/// mount it again read-only and compare, unmount and detach.
fn lab_script(dir: &Path, src: &Path, images: &[(String, u64, &str, bool)]) -> String {
    let mut s = format!(
        "set -eu\nmnt={m}\nmkdir -p \"$mnt\"\n\
         check() {{ # IMAGE SIZE TYPE PARTITIONED\n\
           dev=$(losetup -f --show -P --sizelimit \"$2\" \"$1\")\n\
           vol=$dev; [ \"$4\" = 1 ] && vol=${{dev}}p1\n\
           i=0; while [ ! -b \"$vol\" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\n\
           mount -t \"$3\" \"$vol\" \"$mnt\"\n\
           grep -q \" $mnt $3 \" /proc/mounts\n\
           cp {src} \"$mnt/LAB.BIN\"; umount \"$mnt\"\n\
           mount -t \"$3\" -o ro \"$vol\" \"$mnt\"\n\
           cmp {src} \"$mnt/LAB.BIN\"; umount \"$mnt\"\n\
           losetup -d \"$dev\"\n\
           echo \"mounted $1 $3 $vol\"\n\
         }}\n",
        m = dir.join("mnt").display(),
        src = src.display(),
    );
    for (img, size, ty, part) in images {
        s += &format!("check {img} {size} {ty} {}\n", u8::from(*part));
    }
    s += "echo loops-left: $(losetup -a | wc -l)\n";
    s
}

/// Formats one lab case and checks it on the host as every format is
/// checked; returns (image, volume size, kernel type, partitioned).
fn lab_format(dir: &Path, case: LabCase) -> (String, u64, &'static str, bool) {
    let (name, args, fs, ty) = case;
    let img = dir.join(format!("{name}.img"));
    let args: Vec<&str> = args.iter().copied().chain(["--label", "LAB"]).collect();
    let (out, v) = format(&img, &args);
    assert!(out.status.success(), "format {name}: {}", text(&out));
    check_volume(&img, &v, fs, Some("LAB"));
    let start = v["partition_start_bytes"].as_u64().unwrap();
    let align = v["alignment_bytes"].as_u64().unwrap();
    let data = match fs {
        "f2fs" => Some(f2fs_main_offset(&img, start)),
        "udf" => None,
        _ => v["data_offset_bytes"].as_u64(),
    };
    if let Some(d) = data {
        assert_eq!(d % align, 0, "{name}: data area at {d}, alignment {align}");
    }
    // UDF with --table mbr: mkudffs's MBR holds one partition over the
    // whole device; the guest mounts that partition, as a system reading
    // the table would.
    let part = v["table"] != "none";
    let size = v["capacity_bytes"].as_u64().unwrap();
    (img.to_str().unwrap().to_string(), size, ty, part)
}

/// The acceptance's "the volume mounts" for the filesystems this host has
/// no kernel driver for: `fsfit format` makes FAT32, FAT16 and FAT12 (the
/// SD layouts), UDF (whole device, and with mkudffs's MBR) and F2FS (MBR,
/// GPT) with a table and the data area aligned; user-mode Linux mounts each
/// with its kernel driver (vfat, udf, f2fs), writes a file and reads it back
/// after a remount; on the host the checker is clean afterwards and mtools
/// reads the kernel's file from the FAT volumes.
#[test]
fn formatted_volumes_mount_with_the_lab_kernel_drivers() {
    let need = ["mkfs.fat", "mkudffs", "mkfs.f2fs", "fsck.f2fs", "mcopy"];
    if !(tools() && common::have(&need) && common::lab::uml_ready()) {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("fsfit-format-lab-")
        .tempdir()
        .unwrap();
    let src = dir.path().join("src.bin");
    let data = common::contents(19, 300_000);
    std::fs::write(&src, &data).unwrap();
    let images: Vec<_> = LAB_CASES
        .iter()
        .map(|c| lab_format(dir.path(), *c))
        .collect();
    let script = lab_script(dir.path(), &src, &images);
    let run = common::lab::uml(&["fat32", "udf", "f2fs"], &["sh", "-c", &script], 900);
    let out = format!("{}{}", run.stdout, run.stderr);
    eprintln!("{out}");
    assert_eq!(run.status, 0, "{out}");
    assert!(out.contains("loops-left: 0"), "{out}");
    for ((img, _, ty, part), (name, _, fs, _)) in images.iter().zip(LAB_CASES) {
        assert!(
            out.contains(&format!("mounted {img} {ty} ")),
            "{name}: {out}"
        );
        let a = Attached::new(Path::new(img));
        let vol = a.volume(*part);
        checker(fs, &vol);
        if ty == &"vfat" {
            let start = blkid(&vol, "PART_ENTRY_OFFSET").parse::<u64>().unwrap() * 512;
            let back = dir.path().join(format!("{name}.back"));
            let at = format!("{img}@@{start}");
            common::run("mcopy", &["-i", &at, "::/LAB.BIN", back.to_str().unwrap()]);
            assert_eq!(
                std::fs::read(&back).unwrap(),
                data,
                "{name}: mtools reads the kernel's file"
            );
        }
    }
}

/// The image's last 4 KiB: fsfit's marker, as text.
fn marker_of(image: &Path) -> String {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(image).unwrap();
    let len = f.metadata().unwrap().len();
    let mut buf = vec![0u8; MARKER as usize];
    f.read_exact_at(&mut buf, len - MARKER).unwrap();
    String::from_utf8_lossy(&buf).into_owned()
}

#[test]
fn gpt_keeps_its_own_sectors_and_the_volume_is_the_size_asked() {
    if !(tools() && common::have(&["mkfs.exfat", "fsck.exfat"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The SD layout's start (one BU, before sfdisk's 1 MiB default), a BU
    // (16K at 40 MiB) smaller than GPT's own table, a size that is no
    // multiple of the BU, and GPT without --sd.
    for (size, sd) in [
        (GIB, true),
        (40 * MIB, true),
        (999_999_488, true),
        (999_999_488, false),
    ] {
        let img = dir.path().join("gpt.img");
        let n = size.to_string();
        let mut args = vec!["--size", &n, "--fs", "exfat", "--table", "gpt"];
        if sd {
            args.push("--sd");
        }
        let (out, v) = format(&img, &args);
        let what = format!("{size} sd={sd}");
        assert!(out.status.success(), "{what}: {}", text(&out));
        // The volume is the card asked for, the marker after it.
        assert_eq!(
            std::fs::metadata(&img).unwrap().len(),
            size + MARKER,
            "{what}"
        );
        let m = marker_of(&img);
        assert!(m.starts_with("fsfit image marker"), "{what}: {m}");
        assert!(m.contains("made by fsfit format:"), "{what}: {m}");
        check_volume(&img, &v, "exfat", None);
        // The table as sfdisk reads it: the partition inside the first and
        // last sectors GPT leaves usable.
        let a = Attached::new(&img);
        let ok = Command::new("sfdisk")
            .arg("--verify")
            .arg(&a.dev)
            .output()
            .unwrap();
        assert!(ok.status.success(), "{what}: {}", text(&ok));
        drop(a);
        std::fs::remove_file(&img).unwrap();
    }
}

#[test]
fn a_failed_step_removes_the_image_it_made() {
    if !(tools() && common::have(&["mkfs.exfat"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // An mkfs that fails, first on PATH: the table is written, the
    // filesystem never made.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("mkfs.exfat");
    std::fs::write(&fake, "#!/bin/sh\necho 'no space left' >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let img = dir.path().join("new.img");
    let out = fsfit()
        .args([
            "format",
            img.to_str().unwrap(),
            "--size",
            "64M",
            "--fs",
            "exfat",
        ])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("made by this run and is removed"), "{err}");
    assert!(!img.exists(), "{err}");
    // An image that was there before is kept: it is the user's to retry.
    let (out, _) = format(&img, &["--size", "64M", "--fs", "fat32"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = fsfit()
        .args(["format", img.to_str().unwrap(), "--fs", "exfat"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(img.exists());
    assert!(
        text(&out).contains("run the same command again"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_plan_the_table_cannot_hold_is_refused_before_anything_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("small.img");
    for (size, table) in [("1M", "gpt"), ("1M", "mbr"), ("2K", "mbr")] {
        let out = fsfit()
            .args(["format", img.to_str().unwrap(), "--size", size])
            .args(["--fs", "exfat", "--sd", "--table", table])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{size} {table}: {}", text(&out));
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!img.exists(), "{size} {table}: {err}");
    }
}
