//! The walk's directory reader on systems other than Linux (macOS,
//! Windows): `std::fs::read_dir` and each entry's metadata, symlinks not
//! followed; the same [`DirStream`] shape as dirstream.rs, so walk.rs reads
//! one way. Unix metadata gives the same device, mtime and allocated bytes
//! as Linux's `fstatat`; elsewhere every path is one filesystem and nothing
//! is sparse.

use super::{Entry, Kind};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;

/// A command-line path's entry, from its metadata.
pub fn entry_of(name: OsString, md: &std::fs::Metadata) -> Entry {
    let st = stat_of(md);
    Entry::new(name, st.kind(), st.size, st.mtime).with_allocated(st.allocated)
}

/// Linux grows its descriptor table ahead of the walk (dirstream.rs);
/// nothing to do here.
#[cfg(not(target_os = "linux"))]
pub fn reserve_descriptors(_threads: usize) {}

/// The device a path's metadata names (a different one is another mount).
pub fn dev_of(md: &std::fs::Metadata) -> u64 {
    stat_of(md).dev
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
    /// Allocated bytes (`st_blocks * 512` on Unix, else the size).
    pub allocated: u64,
}

impl Stat {
    pub fn kind(&self) -> Kind {
        self.kind
    }
}

fn stat_of(md: &std::fs::Metadata) -> Stat {
    let t = md.file_type();
    let kind = if t.is_symlink() || other_reparse_point(md) {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    let (mtime, dev, allocated) = times_and_place(md);
    Stat {
        kind,
        size: md.len(),
        mtime,
        dev,
        allocated,
    }
}

/// A Windows reparse point std does not call a symlink: std's `is_symlink`
/// covers symlinks and junctions (name surrogates), but a volume mounted in
/// a folder, a cloud placeholder or what wine shows for a Unix symlink is
/// another reparse point. Copying one is not copying what lies behind it, so
/// the walk reports it as a link and never enters it, as on Linux.
/// Hidden and system files need nothing here: Explorer's copy and its
/// "Size on disk" include them, so they are counted like any file.
#[cfg(windows)]
fn other_reparse_point(md: &std::fs::Metadata) -> bool {
    use std::os::windows::fs::MetadataExt;
    const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x400;
    md.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

#[cfg(not(windows))]
fn other_reparse_point(_: &std::fs::Metadata) -> bool {
    false
}

/// (mtime in seconds, device, allocated bytes).
#[cfg(unix)]
fn times_and_place(md: &std::fs::Metadata) -> (i64, u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (md.mtime(), md.dev(), md.blocks().saturating_mul(512))
}

#[cfg(not(unix))]
fn times_and_place(md: &std::fs::Metadata) -> (i64, u64, u64) {
    let mtime = md
        .modified()
        .ok()
        .map_or(0, |m| match m.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_secs() as i64,
            Err(e) => -(e.duration().as_secs() as i64),
        });
    (mtime, 0, md.len())
}

/// One name read from a directory, with what read_dir gave for it.
pub struct Listed {
    name: OsString,
    entry: std::fs::DirEntry,
}

impl Listed {
    pub fn os_name(&self) -> &OsStr {
        &self.name
    }
}

impl DirStream {
    pub fn open(path: &Path) -> io::Result<DirStream> {
        std::fs::read_dir(path).map(|rd| DirStream { rd })
    }

    /// Every name (read_dir never yields `.` and `..`) into `out`; when a
    /// read fails, the names read before it are there.
    pub fn list(&mut self, out: &mut Vec<Listed>) -> io::Result<()> {
        for entry in self.rd.by_ref() {
            let entry = entry?;
            out.push(Listed {
                name: entry.file_name(),
                entry,
            });
        }
        Ok(())
    }

    /// The entry's metadata, symlinks not followed.
    pub fn stat(&self, l: &Listed) -> io::Result<Stat> {
        l.entry.metadata().map(|md| stat_of(&md))
    }

    /// Subdirectories are opened by path when their turn comes.
    pub fn open_child(&self, _: &Listed) -> Option<DirStream> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::dirstream;
    use super::*;

    type Seen = (OsString, Kind, u64, i64, u64, u64);

    /// Every entry of `d` as one reader type sees it, sorted by name: the
    /// two readers share their method names but no trait.
    macro_rules! seen {
        ($reader:ty, $d:expr) => {{
            let mut s = <$reader>::open($d).unwrap();
            let mut listed = Vec::new();
            s.list(&mut listed).unwrap();
            let mut v: Vec<Seen> = Vec::new();
            for l in listed {
                let st = s.stat(&l).unwrap();
                v.push((
                    l.os_name().to_os_string(),
                    st.kind(),
                    st.size,
                    st.mtime,
                    st.dev,
                    st.allocated,
                ));
            }
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        }};
    }

    fn ours(d: &Path) -> Vec<Seen> {
        seen!(DirStream, d)
    }

    fn linux(d: &Path) -> Vec<Seen> {
        seen!(dirstream::DirStream, d)
    }

    #[test]
    fn reads_what_the_linux_reader_reads() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("file"), b"12345").unwrap();
        let sparse = std::fs::File::create(d.path().join("sparse")).unwrap();
        sparse.set_len(1 << 20).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("file-that-is-not-there", d.path().join("link")).unwrap();
        let seen = ours(d.path());
        assert_eq!(seen.len(), 4);
        // Its subfolders are opened by path, when their turn comes.
        let mut s = DirStream::open(d.path()).unwrap();
        let mut listed = Vec::new();
        s.list(&mut listed).unwrap();
        assert!(listed.iter().all(|l| s.open_child(l).is_none()));
        assert!(listed.iter().any(|l| l.os_name() == "sub"));
        assert_eq!(seen, linux(d.path()));
        let md = std::fs::metadata(d.path()).unwrap();
        assert_eq!(dev_of(&md), dirstream::dev_of(&md));
        let (a, b) = (
            entry_of("x".into(), &md),
            dirstream::entry_of("x".into(), &md),
        );
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
}
