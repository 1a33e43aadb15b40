//! The walk's directory reader where there is no `readdir`/`fstatat` to
//! call directly (Windows, macOS): `std::fs::read_dir` and each entry's
//! metadata, symlinks not followed; the same [`DirStream`] shape as
//! dirstream.rs, so walk.rs reads one way.

use super::{Entry, Kind};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// A command-line path's entry, from its metadata.
pub fn entry_of(name: OsString, md: &std::fs::Metadata) -> Entry {
    let st = stat_of(md);
    Entry::new(name, st.kind(), st.size, st.mtime).with_allocated(st.allocated)
}

/// No device numbers here: every path counts as one filesystem.
pub fn dev_of(_md: &std::fs::Metadata) -> u64 {
    0
}

pub struct DirStream {
    rd: std::fs::ReadDir,
}

/// What the metadata says about one entry, in the walk's terms.
pub struct Stat {
    kind: Kind,
    pub size: u64,
    pub mtime: i64,
    pub dev: u64,
    /// Allocated bytes: not known here, so the size.
    pub allocated: u64,
}

impl Stat {
    pub fn kind(&self) -> Kind {
        self.kind
    }
}

fn stat_of(md: &std::fs::Metadata) -> Stat {
    let t = md.file_type();
    let kind = if t.is_symlink() {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    let mtime = md
        .modified()
        .ok()
        .map_or(0, |m| match m.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_secs() as i64,
            Err(e) => -(e.duration().as_secs() as i64),
        });
    Stat {
        kind,
        size: md.len(),
        mtime,
        dev: 0,
        allocated: md.len(),
    }
}

/// One name read from the stream.
pub struct Item<'a> {
    name: OsString,
    entry: std::fs::DirEntry,
    _stream: std::marker::PhantomData<&'a mut DirStream>,
}

impl Item<'_> {
    pub fn os_name(&self) -> &OsStr {
        &self.name
    }

    /// The entry's metadata, symlinks not followed.
    pub fn lstat(&self) -> io::Result<Stat> {
        self.entry.metadata().map(|md| stat_of(&md))
    }
}

impl DirStream {
    pub fn open(path: &Path) -> io::Result<DirStream> {
        std::fs::read_dir(path).map(|rd| DirStream { rd })
    }

    /// The next entry (read_dir never yields `.` and `..`); None at the end.
    pub fn next_item(&mut self) -> Option<io::Result<Item<'_>>> {
        self.rd.next().map(|r| {
            r.map(|entry| Item {
                name: entry.file_name(),
                entry,
                _stream: std::marker::PhantomData,
            })
        })
    }
}
