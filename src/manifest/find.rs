//! `find DIR -printf '%y %s %T@ %P\0'`: type letter, size, mtime with
//! fraction, path relative to DIR. NUL-separated, so any name survives;
//! newline-separated output is read too when the listing holds no NUL.

use super::{for_each_record, Bad, Emit, Record};
use crate::scan::Kind;
use std::io::BufRead;

/// Does this first record look like find's `%y %s %T@ %P`?
pub fn looks_like(first: &str) -> bool {
    let mut f = first.splitn(4, ' ');
    let (Some(y), Some(s), Some(t)) = (f.next(), f.next(), f.next()) else {
        return false;
    };
    y.len() == 1 && "fdlpscbD".contains(y) && s.parse::<u64>().is_ok() && t.parse::<f64>().is_ok()
}

pub fn read(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    // NUL-separated unless the first block shows only newlines.
    let head = input.fill_buf().map_err(|e| Bad {
        line: 1,
        message: format!("cannot read: {e}"),
    })?;
    let sep = if head.contains(&0) || !head.contains(&b'\n') {
        0
    } else {
        b'\n'
    };
    for_each_record(input, sep, |rec, line| {
        if rec.is_empty() {
            return Ok(());
        }
        let r = parse(rec).map_err(|b| b.at(line))?;
        emit(r, line)
    })?;
    Ok(Vec::new())
}

fn parse(rec: &[u8]) -> Result<Record, Bad> {
    let bad = || {
        Bad::new(format!(
            "not find's '%y %s %T@ %P' form: {:?}",
            String::from_utf8_lossy(&rec[..rec.len().min(80)])
        ))
    };
    let mut f = rec.splitn(4, |&c| c == b' ');
    let (Some(y), Some(s), Some(t), Some(path)) = (f.next(), f.next(), f.next(), f.next()) else {
        return Err(bad());
    };
    let kind = match y {
        b"f" => Kind::File,
        b"d" => Kind::Dir,
        b"l" => Kind::Symlink,
        b"p" | b"s" | b"c" | b"b" | b"D" => Kind::Other,
        _ => return Err(bad()),
    };
    let size = std::str::from_utf8(s)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(bad)?;
    let mtime = std::str::from_utf8(t)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| t.is_finite())
        .ok_or_else(bad)?;
    Ok(Record {
        path: path.to_vec(),
        kind,
        size,
        // st_mtime: the whole seconds, rounded down as the kernel keeps them.
        mtime: Some(mtime.floor() as i64),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_parse() {
        let r = super::parse(b"f 12 1700000001.9 a b/c d").unwrap();
        assert_eq!(r.path, b"a b/c d");
        assert_eq!((r.size, r.mtime), (12, Some(1_700_000_001)));
        assert_eq!(super::parse(b"d 4096 -1.5 x").unwrap().mtime, Some(-2));
        assert!(super::parse(b"f 12 1700000001.9").is_err());
        assert!(super::parse(b"q 12 1 x").is_err());
        assert!(super::parse(b"f twelve 1 x").is_err());
    }
}
