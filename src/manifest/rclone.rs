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
        emit(
            Record {
                path: it.path.into_bytes(),
                kind: if it.is_dir { Kind::Dir } else { Kind::File },
                size: it.size.max(0) as u64,
                mtime,
            },
            line,
        )
    })?;
    Ok(Vec::new())
}
