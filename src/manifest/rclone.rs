//! `rclone lsjson -R`: a JSON array with one object per line
//! (`{"Path":"a/b","Name":"b","Size":12,"ModTime":"...","IsDir":false},`).
//! Read line by line, so a listing of any length streams; the `[` and `]`
//! lines and the commas between objects are what rclone writes around them.

use super::{csv::for_each_line, parse_time, Bad, Emit, Record};
use crate::scan::Kind;
use serde::Deserialize;
use std::io::BufRead;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Item {
    path: String,
    #[serde(default)]
    size: i64,
    mod_time: Option<String>,
    #[serde(default)]
    is_dir: bool,
}

pub fn read(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    // A JSON array in any layout (rclone's one object per line, or
    // compacted onto one line by `jq -c .`) streams element by element;
    // anything else is read as JSON lines.
    let first = loop {
        let buf = input.fill_buf().map_err(|e| Bad {
            line: 1,
            message: e.to_string(),
        })?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => break buf[i],
            None if buf.is_empty() => return Ok(Vec::new()),
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    if first == b'[' && !one_object_per_line(input) {
        return read_array(input, emit);
    }
    for_each_line(input, |text, line| {
        let t = text.trim();
        let t = t.strip_prefix('[').unwrap_or(t).trim_start();
        let t = t.strip_suffix(']').unwrap_or(t).trim_end();
        let t = t.strip_suffix(',').unwrap_or(t).trim_end();
        if t.is_empty() {
            return Ok(());
        }
        let bad = |message: String| Bad { line, message };
        let it: Item = serde_json::from_str(t).map_err(|e| {
            bad(format!(
                "not an rclone lsjson object on one line ({e}): {:?}",
                &t[..t.len().min(80)]
            ))
        })?;
        let mtime = match &it.mod_time {
            None => None,
            Some(s) => {
                Some(parse_time(s).ok_or_else(|| bad(format!("ModTime {s:?} is not a date")))?)
            }
        };
        if !it.is_dir && it.size < 0 {
            return Err(bad(format!("{:?}: size {} is not known", it.path, it.size)));
        }
        emit(record(it, mtime), line)
    })?;
    Ok(Vec::new())
}

/// rclone's own layout: `[` alone, then one whole object per line. Read
/// line by line (errors name the exact line); other layouts of the array
/// stream through serde.
fn one_object_per_line(input: &mut dyn BufRead) -> bool {
    let Ok(buf) = input.fill_buf() else {
        return false;
    };
    let text = String::from_utf8_lossy(&buf[..buf.len().min(65536)]);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    if lines.next() != Some("[") {
        return false;
    }
    match lines.next() {
        None | Some("]") => true,
        Some(l) => {
            let l = l.strip_suffix(',').unwrap_or(l);
            serde_json::from_str::<Item>(l).is_ok()
        }
    }
}

fn record(it: Item, mtime: Option<i64>) -> Record {
    Record {
        path: it.path.into_bytes(),
        kind: if it.is_dir { Kind::Dir } else { Kind::File },
        size: it.size.max(0) as u64,
        mtime,
    }
}

/// One element of the array, checked: the error names its line.
fn checked(it: Item, line: u64) -> Result<Record, Bad> {
    let bad = |message: String| Bad { line, message };
    let mtime = match &it.mod_time {
        None => None,
        Some(s) => Some(parse_time(s).ok_or_else(|| bad(format!("ModTime {s:?} is not a date")))?),
    };
    if !it.is_dir && it.size < 0 {
        return Err(bad(format!("{:?}: size {} is not known", it.path, it.size)));
    }
    Ok(record(it, mtime))
}

/// The whole input as one JSON array, each element emitted as it is read
/// (never the whole array in memory). Errors name the line where the
/// element ends (where serde found the fault, for broken JSON).
fn read_array(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    let mut failed = None;
    let lines = std::rc::Rc::new(std::cell::Cell::new(1u64));
    let counted = Lines {
        inner: input,
        lines: lines.clone(),
    };
    let mut de = serde_json::Deserializer::from_reader(counted);
    let v = Elements {
        emit,
        failed: &mut failed,
        lines,
    };
    let result = serde::Deserializer::deserialize_seq(&mut de, v).and_then(|_| de.end());
    if let Some(b) = failed {
        return Err(b);
    }
    result.map_err(|e| Bad {
        line: e.line() as u64,
        message: format!("not an rclone lsjson array ({e})"),
    })?;
    Ok(Vec::new())
}

/// Emits each element of the array as serde reads it.
struct Elements<'a, 'b> {
    emit: &'a mut Emit<'b>,
    /// Why emitting stopped (kept whole: serde's error is only a message).
    failed: &'a mut Option<Bad>,
    /// The line serde has read up to (where the element just read ends).
    lines: std::rc::Rc<std::cell::Cell<u64>>,
}

/// A reader that counts the newlines read through it.
struct Lines<'a> {
    inner: &'a mut dyn BufRead,
    lines: std::rc::Rc<std::cell::Cell<u64>>,
}

impl std::io::Read for Lines<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let newlines = buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        self.lines.set(self.lines.get() + newlines);
        Ok(n)
    }
}

impl<'de> serde::de::Visitor<'de> for Elements<'_, '_> {
    type Value = u64;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an rclone lsjson array")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut n = 0;
        while let Some(it) = seq.next_element::<Item>()? {
            n += 1;
            let line = self.lines.get();
            if let Err(b) = checked(it, line).and_then(|r| (self.emit)(r, line)) {
                let msg = b.message.clone();
                *self.failed = Some(b);
                return Err(serde::de::Error::custom(msg));
            }
        }
        Ok(n)
    }
}
