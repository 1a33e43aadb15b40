//! The registry keeps its promise: every registered filesystem fills every
//! part, and no code outside `src/fs/` (and the CLI's value list) spells a
//! filesystem's name, so adding one never means editing advise, info, bench
//! or report.

use super::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const GIB: u64 = 1 << 30;

#[test]
fn names_and_ranks_are_unique() {
    let mut names = HashSet::new();
    let mut ranks = HashSet::new();
    for f in all() {
        let i = f.info();
        let n = i.name;
        assert!(names.insert(n), "{n} registered twice");
        assert!(by_name(n).is_some_and(|g| g.name() == n), "{n}: by_name");
        assert!(ranks.insert(i.preference), "{n}: preference not unique");
    }
}

crate::fstest!(every_filesystem_fills_every_part, |f| { check_parts(f) });

#[test]
fn every_reports_each_failing_filesystem() {
    let err = std::panic::catch_unwind(|| {
        every::run("t", all(), |f| assert!(f.info().exact, "inexact"));
    })
    .unwrap_err();
    let said = err.downcast_ref::<String>().unwrap();
    let inexact: Vec<_> = all().iter().filter(|f| !f.info().exact).collect();
    assert!(!inexact.is_empty());
    for f in inexact {
        assert!(said.contains(&format!("{}: inexact", f.name())), "{said}");
    }
    every::run("t", all(), |f| assert!(!f.name().is_empty()));
}

/// The template passes the same checks, so copying it starts from green.
#[test]
fn the_skeleton_fills_every_part() {
    check_parts(&skeleton::Skeleton);
}

fn check_parts(f: &dyn Filesystem) {
    let i = f.info();
    let n = i.name;
    assert!(!n.is_empty() && n == n.to_ascii_lowercase(), "name {n:?}");
    assert_eq!(f.name(), n);
    assert!(!i.title.is_empty(), "{n}: title");
    assert!(!i.robustness.is_empty(), "{n}: robustness note");
    assert!(i.label_flag.starts_with('-'), "{n}: label flag");
    assert!(i.preference > 0, "{n}: preference");
    assert!(i.signature.order > 0, "{n}: signature order");

    // Drivers: at least one, and the kernel one names its modules.
    let d = i.drivers;
    assert!(d.kernel.is_some() || d.fuse.is_some(), "{n}: no driver");
    assert_eq!(
        d.kernel.is_some(),
        !d.kernel_modules.is_empty(),
        "{n}: modules"
    );
    assert!(d.kernel.is_none_or(|k| !k.is_empty()), "{n}: kernel type");
    assert!(d.fuse.is_none_or(|u| !u.program.is_empty()), "{n}: FUSE");
    assert!(i.mount_options.contains(&"sync"), "{n}: mount options");
    assert!(i
        .mount_options
        .iter()
        .all(|o| !o.is_empty() && !o.contains(',')));

    // Checker: a program and a read-only check (None: Linux has none).
    if let Some(c) = i.checker {
        assert!(
            !c.program.is_empty() && !c.check_args.is_empty(),
            "{n}: checker"
        );
        assert_ne!(c.check_args, c.repair_args, "{n}: repair = check");
    }

    // Format commands: Linux always; Windows and macOS where they exist.
    let fm = i.formats;
    assert!(fm.windows.is_none_or(|w| !w.is_empty()), "{n}: Windows");
    assert!(
        fm.windows_note.is_none() || fm.windows.is_some(),
        "{n}: note"
    );
    assert!(fm.macos.is_none_or(|m| m.contains("{label}")), "{n}: macOS");

    // Behaviour: clusters and models, at the largest of a few volume
    // sizes the filesystem makes (FAT12 stops at 256 MiB).
    let (lo, hi) = f.cluster_range();
    assert!(lo > 0 && lo <= hi, "{n}: cluster range");
    let vol = [64 * GIB, 4 * GIB, GIB / 4, GIB / 32]
        .into_iter()
        .find(|&v| f.model(v, f.default_cluster(v)).is_ok());
    let Some(vol) = vol else {
        panic!("{n}: no model at its default cluster for any volume size")
    };
    let def = f.default_cluster(vol);
    assert!((lo..=hi).contains(&def), "{n}: default {def} outside range");
    assert!(f.sweep(vol).contains(&def), "{n}: sweep lacks the default");
    for c in f.sweep(vol).into_iter().chain(f.bench_sweep(vol)) {
        assert!((lo..=hi).contains(&c), "{n}: sweep cluster {c}");
    }
    for c in [def].into_iter().chain(f.bench_sweep(vol)) {
        assert!(f.model(vol, c).is_ok(), "{n}: no model at {c}");
        let argv = f.mkfs(c).unwrap_or_default();
        assert!(!argv.is_empty() && !argv[0].is_empty(), "{n}: mkfs");
    }

    // Probe: a zeroed volume is nobody's.
    let zeros = vec![0u8; 1 << 20];
    assert!(
        !crate::fs::probe::signature::any_in(f.info().signature.magics, &zeros),
        "{n}: claims zeros"
    );
}

#[test]
fn label_args_take_both_forms() {
    let mut i = *all()[0].info();
    i.label_flag = "-L";
    assert_eq!(label_args(&i, "DATA"), ["-L", "DATA"]);
    i.label_flag = "--label=";
    assert_eq!(label_args(&i, "DATA"), ["--label=DATA"]);
}

/// The words only `src/fs/` may spell as a whole string literal: names,
/// kernel types and FUSE programs. (Titles are prose: info's table of MBR
/// partition types rightly says "FAT32".)
fn registry_words() -> HashSet<&'static str> {
    let mut w = HashSet::new();
    for f in all() {
        let i = f.info();
        w.insert(i.name);
        w.extend(i.drivers.kernel);
        w.extend(i.drivers.fuse.map(|u| u.program));
    }
    w
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of Rust source up to its `#[cfg(test)]` module
/// (tests may name filesystems in fixtures), comments skipped.
fn literals(src: &str) -> Vec<String> {
    let src = src.split("\n#[cfg(test)]").next().unwrap_or(src);
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |k: usize| k > 0 && (c[k - 1].is_alphanumeric() || c[k - 1] == '_');
    while i < c.len() {
        let rest = |k: usize| c.get(i + k).copied();
        if c[i] == '/' && rest(1) == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && rest(1) == Some('*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r' && !ident(i) && matches!(rest(1), Some('"' | '#')) {
            // Raw string r"..." or r#"..."#.
            let mut j = i + 1;
            while j < c.len() && c[j] == '#' {
                j += 1;
            }
            let hashes = j - i - 1;
            if c.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            let start = j + 1;
            let mut k = start;
            while k < c.len() && !(c[k] == '"' && c[k + 1..].iter().take(hashes).all(|&h| h == '#'))
            {
                k += 1;
            }
            out.push(c[start..k.min(c.len())].iter().collect());
            i = k + 1 + hashes;
        } else if c[i] == '"' {
            let mut k = i + 1;
            let mut s = String::new();
            while k < c.len() && c[k] != '"' {
                if c[k] == '\\' {
                    k += 1;
                }
                if let Some(&ch) = c.get(k) {
                    s.push(ch);
                }
                k += 1;
            }
            out.push(s);
            i = k + 1;
        } else if c[i] == '\'' {
            // A char literal ('"', '\'', 'x') is skipped; a lifetime is not one.
            i += match (rest(1), rest(2), rest(3)) {
                (Some('\\'), _, _) => c[i + 2..]
                    .iter()
                    .position(|&x| x == '\'')
                    .map_or(1, |p| p + 3),
                (Some(_), Some('\''), _) => 3,
                _ => 1,
            };
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn the_scanner_sees_literals_not_comments() {
    let src = "// \"ext4\"\nlet a = \"exfat\"; let q = '\"'; fn f<'a>() {}\n\
               let r = r#\"ntfs\"#; /* \"udf\" */ let e = \"a\\\"b\";\n\
               #[cfg(test)]\nmod tests { \"xfs\" }";
    assert_eq!(literals(src), ["exfat", "ntfs", "a\"b"]);
}

#[test]
fn filesystem_names_live_only_in_src_fs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let words = registry_words();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for p in files {
        let rel = p.strip_prefix(&root).unwrap();
        // The CLI's value list may name them (clap help and possible values).
        if rel.starts_with("fs") || rel.starts_with("cli") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for lit in literals(&text) {
            if words.contains(lit.as_str()) {
                found.push(format!("{}: {lit:?}", rel.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "filesystem names outside src/fs (ask the registry instead): {found:?}"
    );
}

/// What crash took from hard-coded names before the registry held it.
#[test]
fn crash_sizes_copies_and_default_come_from_the_registry() {
    let img = |n: &str| crate::crash::image_bytes(by_name(n).unwrap()) >> 20;
    assert_eq!(
        (img("xfs"), img("btrfs"), img("ext4"), img("f2fs")),
        (320, 128, 64, 64)
    );
    assert_eq!(by_name("xfs").unwrap().info().copies_mount, Some("nouuid"));
    assert_eq!(by_name("btrfs").unwrap().info().copies_mount, None);
    assert_eq!(preferred().name(), "ext4");
}

crate::fstest!(crash_images_are_at_least_64_mib, |f| {
    assert!(crate::crash::image_bytes(f) >= 64 << 20);
});

crate::fstest!(
    /// Every filesystem answers (a model or a reason) for every cluster size on
    /// volumes from 1 MiB to 16 TiB, never panicking or recursing without end:
    /// FAT16's refusal on 64–128 MiB once asked the other end of the cluster
    /// range for a hint, which asked back until the stack overflowed.
    every_model_answers_for_every_size,
    |f| { answers_for_every_size(f) }
);

fn answers_for_every_size(f: &dyn Filesystem) {
    let mut volumes = Vec::new();
    for shift in 20..=44u32 {
        for quarter in 4..8u64 {
            volumes.push((1u64 << shift) / 4 * quarter);
        }
    }
    volumes.extend([
        1_000_000,
        7_999_999_999,
        64_000_000_000,
        100 << 20,
        127 << 20,
    ]);
    let (lo, hi) = f.cluster_range();
    for &v in &volumes {
        let mut clusters = crate::fs::powers_of_two(lo, hi);
        clusters.push(f.default_cluster(v));
        clusters.extend(f.sweep(v));
        for c in clusters {
            if let Err(why) = f.model(v, c).map_err(|e| e.to_string()) {
                assert!(
                    !why.is_empty() && !why.contains('\n'),
                    "{} {v} B, cluster {c}: a refusal is one non-empty line: {why:?}",
                    f.name()
                );
            }
        }
    }
}

/// `fsfit usage --help` lists the filesystems in a doc comment, which clap
/// cannot fill from the registry: keep it the registry's list, in order.
#[test]
fn the_usage_help_lists_every_filesystem() {
    let cli = include_str!("../cli/usage.rs");
    let start = cli.find("Filesystems: ").expect("the --fs help lists them") + 13;
    let listed: Vec<&str> = cli[start..]
        .split('.')
        .next()
        .unwrap()
        .split_whitespace()
        .filter(|w| *w != "///")
        .collect();
    assert_eq!(listed, names(), "src/cli/usage.rs: the --fs help of usage");
}
