//! Which top-level module (`src/<module>/` or `src/<module>.rs`) may use
//! which: the modules stand in layers, lowest first, and code
//! may only use modules in lower layers. So no two modules import each
//! other, directly or around a loop, and a change low down never needs one
//! high up. Each layer says why it sits where it does; a new module must be
//! placed here before its first `use`.
//!
//! What counts as a use: `crate::<module>` anywhere in a file's code (a
//! `use`, a path in an expression, a group `crate::{a, b::c}`), outside
//! comments and outside test code (`tests.rs` files and what follows a
//! `#[cfg(test)] mod`): a test may build a volume with a higher layer's
//! helpers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. A module may use the modules above it in this list.
const LAYERS: &[(&str, &str)] = &[
    ("error", "the one error type: everything returns it"),
    ("cancel", "the Ctrl-C flag every long loop checks"),
    ("units", "sizes, their parsing and printing"),
    ("atomic", "writing a result file whole or not at all"),
    (
        "quote",
        "input echoed back and commands printed, quoted for the shell they are pasted into",
    ),
    (
        "device",
        "targets and the host: images, loop devices, mounts, the guard, served FUSE files; \
         knows no filesystem (callers pass mkfs, mount and describe steps)",
    ),
    ("scan", "the tree walk: what the user's data is"),
    (
        "manifest",
        "listings read instead of a walk; they yield scan's entries",
    ),
    (
        "fs",
        "the filesystem registry: models, probes, mkfs and mount recipes, drivers",
    ),
    (
        "info",
        "what is on a disk: partitions and volumes, through fs's probes",
    ),
    (
        "flash",
        "the managed-flash model and the tools that drive it (trace, probe, emulate)",
    ),
    ("usage", "size on disk of the tree for every filesystem"),
    (
        "bench",
        "the workloads on real drivers, on targets from device",
    ),
    (
        "crash",
        "crash states of the recorded workloads, on device's targets",
    ),
    ("format", "preparing a drive, behind device's guard"),
    ("advise", "choosing from usage, bench and flash figures"),
    (
        "report",
        "every document's exporters: text, JSON, CSV, HTML",
    ),
    ("cli", "the flags"),
    ("cmd", "the subcommands: parse, call, print"),
];

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

/// The module a file belongs to: `src/fs/ext4/mod.rs` → `fs`.
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .nth(1)
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The file's code without comments and without its test module.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod "))
        {
            break;
        }
        let l = l.split("//").next().unwrap_or("");
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Every module named after `crate::`, single or in a `{...}` group.
fn uses(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if !rest.starts_with('{') {
            out.insert(ident(rest));
            continue;
        }
        // The group's first-level names: after `{` and after each `,` at
        // depth 1.
        let mut depth = 0;
        let mut start = true;
        for (j, c) in rest.char_indices() {
            match c {
                '{' => {
                    depth += 1;
                    start = depth == 1;
                    continue;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => {
                    start = true;
                    continue;
                }
                c if c.is_whitespace() => continue,
                _ if start => {
                    out.insert(ident(&rest[j..]));
                }
                _ => {}
            }
            start = false;
        }
    }
    out
}

/// module → (used module → files that use it).
fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut g: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_path_buf();
        let from = module_of(&rel);
        if from == "lib" || from == "main" || rel.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for to in uses(&code(&text)) {
            if to != from && !to.is_empty() && to != "Error" && to != "Result" {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    g
}

#[test]
fn the_parser_sees_single_and_grouped_uses() {
    let c = code(
        "use crate::fs::{self, FsInfo};\n\
         use crate::{units, device::{guard, mount}, Error};\n\
         // crate::advise in a comment\n\
         fn f() { crate::report::text::count(1, \"x\"); }\n\
         #[cfg(test)]\nmod tests { use crate::cmd; }\n",
    );
    let got: Vec<String> = uses(&c).into_iter().collect();
    assert_eq!(got, ["Error", "device", "fs", "report", "units"]);
}

#[test]
fn every_module_uses_only_lower_layers() {
    let rank = |m: &str| LAYERS.iter().position(|l| l.0 == m);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bad = Vec::new();
    for e in std::fs::read_dir(root.join("src")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let m = name.trim_end_matches(".rs");
        if m != "lib" && m != "main" && rank(m).is_none() {
            bad.push(format!(
                "src/{name}: not placed in LAYERS (tests/it/layers.rs)"
            ));
        }
    }
    for (from, to) in graph() {
        for (used, files) in to {
            let (Some(a), Some(b)) = (rank(&from), rank(&used)) else {
                continue;
            };
            if b >= a {
                let files: Vec<&str> = files.iter().map(|s| s.as_str()).collect();
                bad.push(format!(
                    "{from} uses {used}, a higher layer (in {})",
                    files.join(", ")
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
