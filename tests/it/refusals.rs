//! Every refusal happens before anything is created: each command run with
//! one bad argument in a fresh folder exits 2 with one line, and leaves
//! the folder as it was and no loop device on a file in it.

use crate::common::{self, fsfit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every path under `dir` with its size (folders as None).
fn listing(dir: &Path) -> BTreeMap<PathBuf, Option<u64>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let md = e.metadata().unwrap();
            if md.is_dir() {
                todo.push(e.path());
                out.insert(e.path(), None);
            } else {
                out.insert(e.path(), Some(md.len()));
            }
        }
    }
    out
}

/// Loop devices whose backing file is under `dir` (other engineers' and
/// other tests' loop devices are never looked at beyond their path).
fn loops_on(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else {
        return vec![];
    };
    rd.flatten()
        .filter_map(|e| {
            let f = e.path().join("loop/backing_file");
            let b = std::fs::read_to_string(f).ok()?;
            b.trim()
                .starts_with(&*dir.to_string_lossy())
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect()
}

/// (what, arguments, words the refusal must say); "IMG" is a file in the
/// fresh folder, "OLD" an existing 64 MiB file fsfit did not make.
const CASES: &[(&str, &[&str], &str)] = &[
    (
        "format: a label too long",
        &[
            "format",
            "IMG",
            "--size",
            "1G",
            "--fs",
            "exfat",
            "--label",
            "ABCDEFGHIJKLMNOP",
        ],
        "11 UTF-16 units",
    ),
    (
        "format: an impossible cluster",
        &["format", "IMG", "--size", "1G", "--fs", "exfat:3K"],
        "power of two from 512 to 32M, not 3072",
    ),
    (
        "format: a cluster too big for the volume",
        &["format", "IMG", "--size", "8G", "--fs", "fat16"],
        "over FAT16's 65524",
    ),
    (
        "format: a volume mkfs refuses",
        &["format", "IMG", "--size", "16M", "--fs", "btrfs"],
        "mkfs.btrfs refuses",
    ),
    (
        "format: a size too small",
        &["format", "IMG", "--size", "1000", "--fs", "exfat"],
        "too small",
    ),
    (
        "format: an unknown filesystem",
        &["format", "IMG", "--size", "1G", "--fs", "zfs"],
        "unknown filesystem",
    ),
    (
        "format: --yes-erase naming another target",
        &[
            "format",
            "IMG",
            "--size",
            "1G",
            "--fs",
            "exfat",
            "--yes-erase",
            "/dev/sdz",
        ],
        "does not name the target",
    ),
    (
        "format: a bad alignment",
        &[
            "format", "IMG", "--size", "1G", "--fs", "exfat", "--align", "3K",
        ],
        "power of two",
    ),
    (
        "format: a file fsfit did not make",
        &["format", "OLD", "--fs", "exfat"],
        "not made by fsfit",
    ),
    (
        "bench: an impossible cluster",
        &[
            "bench", "--image", "IMG", "--size", "1G", "--fs", "exfat:3K",
        ],
        "power of two from 512 to 32M, not 3072",
    ),
    (
        "bench: an image --size too small for the workloads",
        &["bench", "--image", "IMG", "--size", "1G", "--fs", "ext4"],
        "needs about",
    ),
    (
        "bench: a temporary image --size too small (in $TMPDIR, here the folder)",
        &["bench", "--size", "1G", "--fs", "ext4"],
        "needs about",
    ),
    (
        "bench: an image fsfit made, too small without --size",
        &["bench", "--image", "OURS", "--fs", "ext4"],
        "needs about",
    ),
    (
        "bench: --dir naming a file",
        &["bench", "--dir", "OLD", "--quick"],
        "not a directory",
    ),
    (
        "bench: --dir naming nothing",
        &["bench", "--dir", "IMG", "--quick"],
        "No such file",
    ),
    (
        "advise: a label no filesystem the systems use can store",
        &[
            "advise", ".", "--for", "camera", "--label", "ab/cd", "--image", "IMG", "--size", "1G",
        ],
        ": no '/'",
    ),
    (
        "bench: an empty device name",
        &["bench", "--device", "", "--yes-erase", "", "--quick"],
        "empty device name",
    ),
    (
        "crash: --replay of a folder that is not a crash run",
        &["crash", "--replay", "OLD", "--state", "p1", "-o", "IMG"],
        "not a crash run directory",
    ),
    (
        "info: a character device",
        &["info", "/dev/null"],
        "not a block device",
    ),
    (
        "crash: an unknown workload",
        &[
            "crash",
            "--run-dir",
            "IMG",
            "--fs",
            "ext4",
            "--workloads",
            "nosuch",
        ],
        "invalid --workloads 'nosuch'",
    ),
    (
        "emulate: an unknown profile",
        &["emulate", "nosuch", "IMG", "--size", "1G"],
        "invalid <PROFILE> 'nosuch'",
    ),
    (
        "emulate: a size not in sectors",
        &["emulate", "usb2-stick", "IMG", "--size", "1000"],
        "multiple of 512",
    ),
    (
        "emulate: a new image without --size",
        &["emulate", "usb2-stick", "IMG"],
        "give --size",
    ),
    (
        "emulate: a device smaller than one allocation unit",
        &["emulate", "usb2-stick", "IMG", "--size", "1K"],
        "under usb2-stick's 4M allocation unit",
    ),
    (
        "crash: --run-dir names a file",
        &["crash", "--run-dir", "OLD", "--fs", "exfat", "--quick"],
        "a file, not a folder",
    ),
    (
        "crash: mount options that are no options (a FUSE driver ignores them)",
        &[
            "crash",
            "--run-dir",
            "IMG",
            "--fs",
            "exfat",
            "--mount-options",
            "ro;x",
        ],
        "is not a mount option",
    ),
    (
        "advise: an image too small for any filesystem",
        &[
            "advise", ".", "--for", "windows", "--image", "IMG", "--size", "1K",
        ],
        "too small for any filesystem",
    ),
    (
        "advise: an image fsfit did not make",
        &["advise", ".", "--for", "windows", "--image", "OLD"],
        "not made by fsfit",
    ),
];

#[test]
fn every_refusal_leaves_the_folder_as_it_was() {
    // Root makes loop devices; as another user format refuses earlier, for
    // that reason instead, and the cases would not test what they say.
    if !common::can_mount() {
        return;
    }
    for (what, args, says) in CASES {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.img");
        std::fs::File::create(&old)
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
        let img = dir.path().join("new.img");
        let ours = dir.path().join("ours.img");
        // An image fsfit made (marked at its end), smaller than bench needs.
        let made = fsfit()
            .args(["-q", "format", ours.to_str().unwrap(), "--size", "64M"])
            .args(["--fs", "fat32"])
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
        let before = listing(dir.path());
        let argv: Vec<&str> = args
            .iter()
            .map(|a| match *a {
                "IMG" => img.to_str().unwrap(),
                "OLD" => old.to_str().unwrap(),
                "OURS" => ours.to_str().unwrap(),
                a => a,
            })
            .collect();
        let out = fsfit()
            .args(&argv)
            .env("TMPDIR", dir.path())
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        assert!(err.contains(says), "{what}: {err}");
        // Every line a person reads fits 100 columns. The test's temporary
        // folder stands for a short path: a refusal names the path it was
        // given whole.
        let shown = err.replace(&dir.path().display().to_string(), "/tmp/x");
        let cols = unicode_width::UnicodeWidthStr::width(shown.trim_end());
        assert!(cols <= 100, "{what}: {cols} columns: {err}");
        assert_eq!(listing(dir.path()), before, "{what}: the folder changed");
        assert_eq!(loops_on(dir.path()), Vec::<String>::new(), "{what}");
    }
}

/// A bad argument is one line that fits the 100 columns every other output
/// does: a list of choices too long for it keeps the first choices and says
/// how many more and where they all are; an echoed path is cut in the
/// middle; clap's longer words are said in fewer.
#[test]
fn a_bad_argument_is_one_line_within_100_columns() {
    let long = format!("/nonexistent/{}/{}", "a".repeat(110), "b".repeat(20));
    let cases: &[(&[&str], &str)] = &[
        (
            &["bench", "--workloads", "nosuch"],
            "more in fsfit bench --help)",
        ),
        (
            &["bench", "--flash", "nosuch"],
            "more in fsfit bench --help)",
        ),
        (
            &["advise", ".", "--for", "nosuch"],
            "more in fsfit advise --help)",
        ),
        (&["usage", ".", "--fs", "hfs+"], "(choose from fat12"),
        (
            &["usage", ".", "--fs", "exfat:3K"],
            "power of two from 512 to 32M, not 3072",
        ),
        (&["usage", ".", "--volume", "1XB"], "unknown unit 'XB'"),
        (
            &["bench", "--size", "bogus"],
            "invalid --size 'bogus': not a size",
        ),
        (&["advise", ".", "--budget", "5s"], "too short"),
        (
            &["crash", "--scenario", "x"],
            "unexpected argument '--scenario'",
        ),
        (&["report", "r.json"], "missing --output"),
        (&["man", "nosuch"], "(choose from usage, bench"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in cases {
        let out = fsfit()
            .args(*args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let what = args.join(" ");
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        let cols = unicode_width::UnicodeWidthStr::width(err.trim_end());
        assert!(cols <= 100, "{what}: {cols} columns: {err}");
        assert!(err.contains(says), "{what}: {err}");
    }
    assert!(listing(dir.path()).is_empty(), "the folder changed");
    // A command's own refusal names the path whole: it is one to open.
    for cmd in ["usage", "info"] {
        let out = fsfit().args([cmd, &long]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains(&long) && err.lines().count() == 1,
            "{cmd}: {err}"
        );
    }
}
