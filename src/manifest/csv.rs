//! Plain `path,size` CSV (RFC 4180 quoting; an optional header line; extra
//! columns ignored). A path ending in `/` is a folder.

use super::{for_each_record, Bad, Emit, Record};
use crate::scan::Kind;
use std::io::BufRead;

/// Split one CSV line into fields, undoing RFC 4180 quoting.
pub fn fields(line: &str) -> Result<Vec<String>, Bad> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cur.push(c),
            (false, '"') if cur.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            (false, ',') => {
                out.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            (false, '"') => return Err(Bad::new("a quote inside an unquoted field")),
            (false, c) if was_quoted => {
                return Err(Bad::new(format!("'{c}' after a closing quote")));
            }
            (false, c) => cur.push(c),
        }
    }
    if quoted {
        return Err(Bad::new("a quoted field does not end on its line"));
    }
    out.push(cur);
    Ok(out)
}

/// Each line of `input` as UTF-8 text without its line end.
pub fn for_each_line(
    input: &mut dyn BufRead,
    mut each: impl FnMut(&str, u64) -> Result<(), Bad>,
) -> Result<(), Bad> {
    for_each_record(input, b'\n', |rec, line| {
        let text = std::str::from_utf8(rec).map_err(|_| Bad {
            line,
            message: "not UTF-8 text".into(),
        })?;
        each(text.strip_suffix('\r').unwrap_or(text), line)
    })
}

pub fn read(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    for_each_line(input, |text, line| {
        if text.is_empty() {
            return Ok(());
        }
        let bad = |message: String| Bad { line, message };
        let f = fields(text).map_err(|b| b.at(line))?;
        if f.len() < 2 {
            return Err(bad(format!("expected path,size: {text:?}")));
        }
        let size = match f[1].trim().parse::<u64>() {
            Ok(s) => s,
            // A header line names its columns.
            Err(_) if line == 1 => return Ok(()),
            Err(_) => return Err(bad(format!("size {:?} is not a number of bytes", f[1]))),
        };
        let (path, kind) = match f[0].strip_suffix('/') {
            Some(p) => (p, Kind::Dir),
            None => (f[0].as_str(), Kind::File),
        };
        let r = Record {
            path: path.as_bytes().to_vec(),
            kind,
            size,
            mtime: None,
        };
        emit(r, line)
    })?;
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::fields("a,1").unwrap(), ["a", "1"]);
        assert_eq!(super::fields("\"a,\"\"b\",2").unwrap(), ["a,\"b", "2"]);
        assert_eq!(super::fields("a,,").unwrap(), ["a", "", ""]);
        assert!(super::fields("\"a,1").is_err());
        assert!(super::fields("a\"b,1").is_err());
    }
}
