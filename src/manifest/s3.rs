//! S3 Inventory CSV: every field quoted, no header; the columns are
//! Bucket, Key, then either Size, LastModifiedDate, ... or, for a versioned
//! inventory, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ...
//! Keys are URL-encoded. Only the latest, not deleted version of each key is
//! what a copy would write; a key ending in `/` is a folder marker.

use super::{csv, parse_time, Bad, Emit, Record};
use crate::scan::Kind;
use std::io::BufRead;

/// Where Size and LastModifiedDate are, and whether the version columns are.
#[derive(Clone, Copy)]
struct Layout {
    versioned: bool,
}

fn layout(f: &[String]) -> Option<Layout> {
    let num = |i: usize| f.get(i).is_some_and(|s| s.parse::<u64>().is_ok());
    let date = |i: usize| f.get(i).is_some_and(|s| parse_time(s).is_some());
    let flag = |i: usize| f.get(i).is_some_and(|s| s == "true" || s == "false");
    if num(2) && date(3) {
        Some(Layout { versioned: false })
    } else if flag(3) && flag(4) && (num(5) || f.get(5).is_some_and(|s| s.is_empty())) {
        Some(Layout { versioned: true })
    } else {
        None
    }
}

pub fn looks_like(f: &[String]) -> bool {
    layout(f).is_some()
}

/// Undo the URL encoding of keys (`%2F`, and `+` for a space).
fn url_decode(s: &str) -> Result<Vec<u8>, Bad> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s
                    .get(i + 1..i + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| Bad::new(format!("bad URL encoding in key {s:?}")))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

pub fn read(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    let mut lay: Option<Layout> = None;
    let (mut old_versions, mut deleted) = (0u64, 0u64);
    csv::for_each_line(input, |text, line| {
        if text.is_empty() {
            return Ok(());
        }
        let bad = |message: String| Bad { line, message };
        let f = csv::fields(text).map_err(|b| b.at(line))?;
        let l = match lay {
            Some(l) => l,
            None => *lay.insert(layout(&f).ok_or_else(|| {
                bad(format!(
                    "not an S3 Inventory CSV row (Bucket, Key, Size, LastModifiedDate, ...): {text:?}"
                ))
            })?),
        };
        let (size_at, date_at) = if l.versioned { (5, 6) } else { (2, 3) };
        if f.len() <= date_at {
            return Err(bad(format!(
                "expected at least {} columns, found {}",
                date_at + 1,
                f.len()
            )));
        }
        if l.versioned {
            if f[4] == "true" {
                deleted += 1;
                return Ok(());
            }
            if f[3] == "false" {
                old_versions += 1;
                return Ok(());
            }
        }
        let key = url_decode(&f[1]).map_err(|b| b.at(line))?;
        let size = f[size_at]
            .parse::<u64>()
            .map_err(|_| bad(format!("size {:?} is not a number of bytes", f[size_at])))?;
        let mtime = parse_time(&f[date_at])
            .ok_or_else(|| bad(format!("LastModifiedDate {:?} is not a date", f[date_at])))?;
        let (path, kind) = match key.strip_suffix(b"/") {
            Some(p) => (p.to_vec(), Kind::Dir),
            None => (key, Kind::File),
        };
        emit(
            Record {
                path,
                kind,
                size,
                mtime: Some(mtime),
            },
            line,
        )
    })?;
    let mut skipped = Vec::new();
    if old_versions > 0 {
        skipped.push(format!(
            "{old_versions} noncurrent object versions left out (a copy writes the latest only)"
        ));
    }
    if deleted > 0 {
        skipped.push(format!("{deleted} delete markers left out"));
    }
    Ok(skipped)
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_decode() {
        assert_eq!(super::url_decode("a%2Fb+c%25").unwrap(), b"a/b c%");
        assert!(super::url_decode("a%2").is_err());
    }
}
