//! ncdu's `-o` JSON export: `[1, minor, {metadata}, DIR]` where DIR is
//! `[{dir info}, item, item, ...]`, an item is a file's object or a nested
//! DIR. Read as a stream of bytes with a small scanner (the export is often
//! one line of any length): arrays open and close folders, each flat object
//! is parsed on its own.

use super::{Bad, Emit, Record};
use crate::scan::Kind;
use serde::Deserialize;
use std::io::BufRead;

#[derive(Deserialize)]
struct Item {
    name: String,
    #[serde(default)]
    asize: u64,
    mtime: Option<i64>,
    #[serde(default)]
    notreg: bool,
    excluded: Option<String>,
}

/// Bytes of `input` one at a time, counting lines.
struct Bytes<'a> {
    input: &'a mut dyn BufRead,
    line: u64,
}

impl Bytes<'_> {
    fn next(&mut self) -> Result<Option<u8>, Bad> {
        let buf = self.input.fill_buf().map_err(|e| Bad {
            line: self.line,
            message: format!("cannot read: {e}"),
        })?;
        let Some(&b) = buf.first() else {
            return Ok(None);
        };
        self.input.consume(1);
        if b == b'\n' {
            self.line += 1;
        }
        Ok(Some(b))
    }

    /// The rest of an object whose `{` was just read, up to its `}`.
    fn object(&mut self) -> Result<Vec<u8>, Bad> {
        let mut obj = vec![b'{'];
        let (mut in_str, mut esc, mut depth) = (false, false, 1);
        loop {
            let b = self
                .next()?
                .ok_or_else(|| self.bad("the listing ends inside an object"))?;
            obj.push(b);
            if in_str {
                match (esc, b) {
                    (true, _) => esc = false,
                    (false, b'\\') => esc = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(obj);
                    }
                }
                _ => {}
            }
        }
    }

    fn bad(&self, message: &str) -> Bad {
        Bad {
            line: self.line,
            message: message.to_string(),
        }
    }
}

pub fn read(input: &mut dyn BufRead, emit: &mut Emit) -> Result<Vec<String>, Bad> {
    let mut s = Bytes { input, line: 1 };
    let mut t = Tree::default();
    while let Some(b) = s.next()? {
        match b {
            b'[' => t.open(&s)?,
            b']' => t.close(&s)?,
            b'{' => {
                let line = s.line;
                let obj = s.object()?;
                if t.depth < 2 {
                    continue; // the metadata object
                }
                let it: Item = serde_json::from_slice(&obj).map_err(|e| Bad {
                    line,
                    message: format!("not an ncdu item ({e})"),
                })?;
                t.item(it, line, emit)?;
            }
            b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
            _ if t.depth == 1 => {} // the version numbers
            _ => return Err(s.bad(&format!("unexpected '{}' in an ncdu export", b as char))),
        }
    }
    if t.depth != 0 {
        return Err(s.bad("the export ends before its arrays close"));
    }
    if !t.seen_root {
        return Err(s.bad("no root folder in the export"));
    }
    let mut notes = Vec::new();
    if t.excluded > 0 {
        notes.push(format!(
            "{} ncdu did not read (excluded or on another filesystem) {} left out",
            crate::units::count_as(t.excluded, "entry", "entries"),
            if t.excluded == 1 { "is" } else { "are" }
        ));
    }
    Ok(notes)
}

/// Where the scanner is in the export's nested arrays.
#[derive(Default)]
struct Tree {
    /// Folder names from the root down; None: the root, named by its absolute path.
    path: Vec<Option<String>>,
    /// Array nesting: 1 = the outer array, 2 = the root folder.
    depth: usize,
    /// The next object is the info of a folder just opened.
    want_info: bool,
    excluded: u64,
    seen_root: bool,
}

impl Tree {
    fn open(&mut self, s: &Bytes) -> Result<(), Bad> {
        self.depth += 1;
        if self.depth >= 2 {
            if self.depth == 2 && self.seen_root {
                return Err(s.bad("a second root folder in the export"));
            }
            self.want_info = true;
        }
        Ok(())
    }

    fn close(&mut self, s: &Bytes) -> Result<(), Bad> {
        if self.depth == 0 {
            return Err(s.bad("']' without its '['"));
        }
        if self.depth >= 2 {
            self.path.pop();
        }
        self.depth -= 1;
        Ok(())
    }

    fn join(&self, name: &str) -> Vec<u8> {
        let mut p = Vec::new();
        for n in self.path.iter().flatten() {
            p.extend_from_slice(n.as_bytes());
            p.push(b'/');
        }
        p.extend_from_slice(name.as_bytes());
        p
    }

    /// A folder's info (just after its `[`) or a file's object.
    fn item(&mut self, it: Item, line: u64, emit: &mut Emit) -> Result<(), Bad> {
        if self.want_info {
            self.want_info = false;
            if self.depth == 2 {
                self.seen_root = true;
                self.path.push(None);
                return Ok(());
            }
            let p = self.join(&it.name);
            self.path.push(Some(it.name));
            if it.excluded.is_some() {
                self.excluded += 1;
            }
            let dir = Record {
                path: p,
                kind: Kind::Dir,
                size: 0,
                mtime: it.mtime,
            };
            return emit(dir, line);
        }
        if it.excluded.is_some() {
            // Not read by ncdu (--exclude, another filesystem): its
            // size is unknown, so it is left out and said so.
            self.excluded += 1;
            return Ok(());
        }
        let kind = if it.notreg { Kind::Other } else { Kind::File };
        let file = Record {
            path: self.join(&it.name),
            kind,
            size: it.asize,
            mtime: it.mtime,
        };
        emit(file, line)
    }
}
