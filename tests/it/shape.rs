//! The code's shape: no function over 80 lines, the on-disk parsers of
//! `fsfit info` (src/fs/*/probe.rs, src/info/) included: they split into
//! validate / geometry / label / free-space steps. Functions longer today
//! are listed, to be split in their own area's time (then taken off the
//! list); no new one may join them.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 80;

/// (file, function) over the limit today.
const KNOWN: &[(&str, &str)] = &[];

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
        for (name, n) in functions(&std::fs::read_to_string(f).unwrap()) {
            if n <= MAX_LINES {
                continue;
            }
            match KNOWN.iter().find(|k| k.0 == rel && k.1 == name) {
                Some(k) => seen.push(*k),
                None => bad.push(format!("{rel}: {name} is {n} lines (at most {MAX_LINES})")),
            }
        }
    }
    for k in KNOWN {
        if !seen.contains(k) {
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
