//! The code's shape: no function over 80 lines outside the on-disk parsers
//! of `fsfit info` (src/fs/*/probe.rs, src/info/), which read one structure
//! field by field. Functions longer today are listed with their length: they
//! may shrink (then take them off the list), not grow, and no new one may
//! join them.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 80;

/// (file, function, lines today): to be split, each in its own area's time.
const KNOWN: &[(&str, &str, usize)] = &[
    ("src/report/charts/draw.rs", "bars", 184),
    ("src/fs/ext4/mod.rs", "layout", 182),
    ("src/advise/mod.rs", "advise", 166),
    ("src/fs/ext4/mod.rs", "replay", 163),
    ("src/report/charts/draw.rs", "lines", 151),
    ("src/bench/runner.rs", "prepare_target", 138),
    ("src/device/guard.rs", "inspect", 132),
    ("src/usage/mod.rs", "run", 116),
    ("src/device/guard.rs", "real_loop_device", 112),
    ("src/bench/runner.rs", "run_configs", 100),
    ("src/crash/workload.rs", "run", 123),
    ("src/crash/mod.rs", "run", 102),
    ("src/crash/table.rs", "render", 103),
    ("src/device/guard.rs", "check", 98),
    ("src/report/html/bench.rs", "bench_section", 93),
    ("src/report/text/advise.rs", "text", 89),
    ("src/fs/fat/mod.rs", "layout_or_refusal", 86),
    ("src/fs/exfat/mod.rs", "new", 84),
    ("src/report/html/bench.rs", "bench_env", 81),
];

fn exempt(file: &str) -> bool {
    file.starts_with("src/info/") || (file.starts_with("src/fs/") && file.ends_with("/probe.rs"))
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

/// (function, lines) of every function with a body, in rustfmt's layout:
/// the body ends at the first `}` at the indentation of its `fn` line.
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let body = l.trim_start();
        let indent = &l[..l.len() - body.len()];
        let mut rest = body;
        for prefix in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "unsafe ",
            "async ",
        ] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(sig) = rest.strip_prefix("fn ") else {
            continue;
        };
        if l.trim_end().ends_with(';') || l.trim_end().ends_with('}') {
            continue; // a declaration, or a one-line function
        }
        let name: String = sig
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|x| *x == close) {
            out.push((name, end + 2));
        }
    }
    out
}

#[test]
fn no_function_over_80_lines_outside_the_info_parsers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut bad = Vec::new();
    let mut seen = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if exempt(&rel) {
            continue;
        }
        for (name, n) in functions(&std::fs::read_to_string(f).unwrap()) {
            if n <= MAX_LINES {
                continue;
            }
            match KNOWN.iter().find(|k| k.0 == rel && k.1 == name) {
                Some(k) if n <= k.2 => seen.push((k.0, k.1)),
                Some(k) => bad.push(format!("{rel}: {name} grew to {n} lines (was {})", k.2)),
                None => bad.push(format!("{rel}: {name} is {n} lines (at most {MAX_LINES})")),
            }
        }
    }
    for k in KNOWN {
        if !seen.contains(&(k.0, k.1)) {
            bad.push(format!(
                "{}: {} is gone or {MAX_LINES} lines or less: take it off KNOWN in tests/it/shape.rs",
                k.0, k.1
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_counter_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(90);
    let text = format!("fn short() {{}}\n\npub fn long() {{\n{body}}}\n\nimpl A {{\n    fn m(&self) {{\n        x();\n    }}\n}}\n");
    let f = functions(&text);
    assert_eq!(f, vec![("long".to_string(), 92), ("m".to_string(), 3)]);
}
