//! The tree walk: one pass over the user's data, handing each directory with
//! its children to a visitor. Nothing per file is kept after its directory has
//! been visited, so memory grows with the directories waiting to be read, not
//! with files.

#[cfg(target_os = "linux")]
mod dirstream;
// Built by Linux's tests too: they check it reads what dirstream.rs reads.
#[cfg(any(not(target_os = "linux"), test))]
mod readdir;
mod walk;

pub use walk::{walk, WalkOptions, WalkSummary};

use std::path::PathBuf;

/// What an entry is, as `lstat` says (symlinks are never followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// FIFOs, sockets, block and character devices.
    Other,
}

/// The mtime of an entry whose listing gives none (a manifest's folder known
/// only from its paths, a CSV): far in the future and even, so neither the
/// before-1980 nor the odd-second finding counts it.
pub const MTIME_UNKNOWN: i64 = i64::MAX - 1;

/// An entry's name: its bytes as the platform encodes them
/// (`OsStr::as_encoded_bytes`), up to 32 of them without an allocation.
/// The walk makes one entry per file of the tree and drops it when the
/// folder has been visited; as an `OsString` each took a malloc and a free.
#[derive(Clone)]
struct Name(smallvec::SmallVec<[u8; 32]>);

impl Name {
    fn os_str(&self) -> &std::ffi::OsStr {
        // SAFETY: the bytes were copied from an `OsStr`'s encoded bytes in
        // `Entry::new` and are never changed afterwards.
        unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(&self.0) }
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.os_str().fmt(f)
    }
}

/// One child of a directory, as seen by one `lstat`.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Private with `utf8`: [`Entry::name_str`] relies on the flag saying the
    /// truth about these bytes.
    name: Name,
    pub kind: Kind,
    /// `st_size`: file length; for a symlink the length of its target.
    pub size: u64,
    /// Modification time, seconds since the Unix epoch.
    pub mtime: i64,
    /// The bytes `cp --sparse=auto` writes as data where the destination
    /// keeps holes: what the source has allocated (`st_blocks`), at most
    /// `size`; `size` when the file is not sparse or nobody said.
    pub stored: u64,
    /// The name's length in UTF-16 code units (what FAT, exFAT and NTFS store);
    /// for a non-UTF-8 name, its byte length.
    pub utf16_len: u32,
    utf8: bool,
    /// What [`NAME_CLASS`] says of the name's bytes, OR-ed together.
    class: u8,
}

/// A byte outside ASCII.
const NON_ASCII: u8 = 1;
/// A control character (below 0x20, or DEL).
const CONTROL: u8 = 2;
/// A byte Windows-family filesystems refuse in a name: control characters
/// below 0x20 and `" * / : < > ? \ |` (exFAT spec 7.7.3, namei_vfat.c
/// vfat_bad_char, Windows' naming rules: the same set). Every one is ASCII
/// and no byte of a multi-byte UTF-8 character is, so bytes tell exactly.
const WINDOWS_FORBIDDEN: u8 = 4;

/// Each byte's classes, so that one pass over a name answers every question
/// the models and findings ask of its bytes (they each scanned it before).
static NAME_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let mut c = 0;
        if b >= 0x80 {
            c |= NON_ASCII;
        }
        if b < 0x20 || b == 0x7f {
            c |= CONTROL;
        }
        let forbidden = matches!(
            b as u8,
            b'"' | b'*' | b'/' | b':' | b'<' | b'>' | b'?' | b'\\' | b'|'
        );
        if b < 0x20 || forbidden {
            c |= WINDOWS_FORBIDDEN;
        }
        t[b] = c;
        b += 1;
    }
    t
};

impl Entry {
    pub fn new(name: std::ffi::OsString, kind: Kind, size: u64, mtime: i64) -> Entry {
        Entry::named(&name, kind, size, mtime)
    }

    /// [`Entry::new`] from a borrowed name (the walk's, read into a reused
    /// buffer): the name is copied, inline when short.
    pub fn named(name: &std::ffi::OsStr, kind: Kind, size: u64, mtime: i64) -> Entry {
        let b = name.as_encoded_bytes();
        // Most names are ASCII: one byte, one UTF-16 unit, no decoding.
        let class = b.iter().fold(0, |c, &x| c | NAME_CLASS[x as usize]);
        let (utf16_len, utf8) = if class & NON_ASCII == 0 {
            (b.len() as u32, true)
        } else {
            match name.to_str() {
                Some(s) => (s.encode_utf16().count() as u32, true),
                None => (b.len() as u32, false),
            }
        };
        Entry {
            name: Name(smallvec::SmallVec::from_slice(b)),
            kind,
            size,
            mtime,
            stored: size,
            utf16_len,
            utf8,
            class,
        }
    }

    /// The source's allocated bytes (`st_blocks * 512`): a regular file
    /// with fewer allocated bytes than its length is sparse.
    pub fn with_allocated(mut self, bytes: u64) -> Entry {
        if self.kind == Kind::File {
            self.stored = bytes.min(self.size);
        }
        self
    }

    /// A sparse file: holes `cp` keeps where the destination can.
    pub fn is_sparse(&self) -> bool {
        self.stored < self.size
    }

    pub fn name(&self) -> &std::ffi::OsStr {
        self.name.os_str()
    }

    pub fn name_bytes(&self) -> &[u8] {
        &self.name.0
    }

    /// The name as UTF-8, checked once when the entry was made (every model
    /// and finding asks for it; validating it each time cost ~2 % of a walk).
    pub fn name_str(&self) -> Option<&str> {
        if self.utf8 {
            // SAFETY: `utf8` is set by `new` only after `to_str` (or the
            // ASCII check) accepted these exact bytes, and neither field
            // can change afterwards (both are private, no `&mut` access).
            Some(unsafe { std::str::from_utf8_unchecked(&self.name.0) })
        } else {
            None
        }
    }

    /// False when the name is not valid UTF-8 (Windows-family filesystems
    /// cannot store it as it is).
    pub fn is_utf8(&self) -> bool {
        self.utf8
    }

    /// The name is all ASCII (so one byte is one character and one UTF-16 unit).
    pub fn is_ascii(&self) -> bool {
        self.class & NON_ASCII == 0
    }

    /// The name holds a newline or another control character.
    pub fn has_control_char(&self) -> bool {
        self.class & CONTROL != 0
    }

    /// The name holds a character Windows-family filesystems refuse (see
    /// [`WINDOWS_FORBIDDEN`]).
    pub fn has_windows_forbidden(&self) -> bool {
        self.class & WINDOWS_FORBIDDEN != 0
    }

    /// The name's length in bytes as Linux stores it.
    pub fn byte_len(&self) -> usize {
        self.name.0.len()
    }
}

/// Does the name hold a byte Windows-family filesystems refuse? (For names
/// that are not an [`Entry`]'s, such as a directory's path components.)
pub fn windows_forbidden(name: &[u8]) -> bool {
    name.iter()
        .any(|&b| NAME_CLASS[b as usize] & WINDOWS_FORBIDDEN != 0)
}

/// A directory and its children, handed to the visitor once.
pub struct Dir<'a> {
    /// Unique for each visit (never 0), so models may share work between the
    /// configs of one filesystem for the same directory.
    pub id: u64,
    /// Path of this directory relative to the volume root ("" for the root).
    pub rel: &'a std::path::Path,
    /// True for the volume's root directory (which mkfs already created).
    pub is_root: bool,
    pub entries: &'a [Entry],
    /// `rel` as UTF-8 (None when it is not): checked once per directory
    /// here rather than by every config that needs it.
    pub rel_str: Option<&'a str>,
    /// The directory's own name (the last part of `rel`) in UTF-16 units,
    /// its byte length when it is not UTF-8; 0 for the root. Worked out
    /// once here: NTFS's eight configs each asked for it.
    pub name_utf16: u32,
    /// [`Dir::may_collide`], worked out on first use.
    may_collide: std::sync::OnceLock<bool>,
}

thread_local! {
    static KEYS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// See [`Dir::may_collide`]: a hash (xxh3) of each name, ASCII upper-cased
/// and without trailing dots; equal hashes (a real collision or not) say yes.
fn ascii_keys_collide(entries: &[Entry]) -> bool {
    if entries.len() < 2 {
        return false;
    }
    if entries.iter().any(|e| !e.is_ascii()) {
        return true;
    }
    KEYS.with(|k| {
        let mut keys = k.borrow_mut();
        keys.clear();
        // Upper-cased into one buffer and hashed with xxh3, which takes
        // 8 to 16 bytes a step: fewer instructions than a byte-at-a-time
        // hash of the name in place (callgrind, /usr/share).
        let mut buf = Vec::new();
        keys.extend(entries.iter().map(|e| {
            let b = e.name_bytes();
            let n = b.len() - b.iter().rev().take_while(|&&c| c == b'.').count();
            buf.clear();
            buf.extend_from_slice(&b[..n]);
            buf.make_ascii_uppercase();
            xxhash_rust::xxh3::xxh3_64(&buf)
        }));
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    })
}

static NEXT_DIR: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl<'a> Dir<'a> {
    pub fn new(rel: &'a std::path::Path, is_root: bool, entries: &'a [Entry]) -> Dir<'a> {
        let rel_str = rel.to_str();
        // The last component as the platform splits paths: Windows joins
        // the walk's paths with `\`, where splitting at '/' alone took the
        // whole relative path for the name (NTFS index records sized from it
        // came out 12-37 KiB too large on /usr/share/doc).
        let name_utf16 = match rel.file_name() {
            Some(n) => match n.to_str() {
                Some(s) if s.is_ascii() => s.len() as u32,
                Some(s) => s.encode_utf16().count() as u32,
                None => n.len() as u32,
            },
            None => 0,
        };
        Dir {
            id: NEXT_DIR.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            rel,
            is_root,
            entries,
            rel_str,
            name_utf16,
            may_collide: std::sync::OnceLock::new(),
        }
    }

    /// Could two entries' names be the same name to a case-insensitive
    /// filesystem? False only when no two names are equal even ignoring
    /// ASCII case and trailing dots, which every rule fsfit models is finer
    /// than (exFAT's up-case table, vfat's fold and dot stripping, Windows'
    /// upper-casing agree with it on ASCII names); a directory with a
    /// non-ASCII name may always collide. Each of those rules then skips its
    /// own search: worked out once per directory for all filesystems.
    pub fn may_collide(&self) -> bool {
        *self
            .may_collide
            .get_or_init(|| ascii_keys_collide(self.entries))
    }
}

/// Counts of what the walk met, as the JSON's `tree` object (fields an
/// older file lacks read as 0).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct TreeCounts {
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub other: u64,
    pub apparent_bytes: u64,
    pub errors: u64,
    /// Names that are not valid UTF-8 (Windows-family filesystems refuse them).
    pub non_utf8_names: u64,
    /// Names holding a newline or another control character.
    pub control_char_names: u64,
    /// Regular files by size: under 64 KiB, under 16 MiB, 16 MiB and more
    /// (what `fsfit advise` weighs the bench workloads by).
    pub by_size: [SizeClass; 3],
    /// Sparse files (fewer bytes allocated than their length): how many,
    /// their apparent size, and the bytes of data they hold (what a copy
    /// that keeps holes writes). Absent from the JSON when there are none.
    #[serde(skip_serializing_if = "is_zero")]
    pub sparse_files: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub sparse_apparent_bytes: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub sparse_data_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct SizeClass {
    pub files: u64,
    pub bytes: u64,
}

/// Upper bounds of the size classes (the last is open).
pub const SIZE_CLASS_LIMITS: [u64; 2] = [64 << 10, 16 << 20];

pub fn size_class(size: u64) -> usize {
    SIZE_CLASS_LIMITS
        .iter()
        .position(|&l| size < l)
        .unwrap_or(2)
}

impl TreeCounts {
    pub fn add(&mut self, o: &TreeCounts) {
        self.files += o.files;
        self.dirs += o.dirs;
        self.symlinks += o.symlinks;
        self.other += o.other;
        self.apparent_bytes += o.apparent_bytes;
        self.errors += o.errors;
        self.non_utf8_names += o.non_utf8_names;
        self.control_char_names += o.control_char_names;
        self.sparse_files += o.sparse_files;
        self.sparse_apparent_bytes += o.sparse_apparent_bytes;
        self.sparse_data_bytes += o.sparse_data_bytes;
        for (a, b) in self.by_size.iter_mut().zip(o.by_size.iter()) {
            a.files += b.files;
            a.bytes += b.bytes;
        }
    }

    pub fn count(&mut self, e: &Entry) {
        if !e.is_utf8() {
            self.non_utf8_names += 1;
        }
        if e.has_control_char() {
            self.control_char_names += 1;
        }
        match e.kind {
            Kind::File => {
                self.files += 1;
                self.apparent_bytes += e.size;
                let c = &mut self.by_size[size_class(e.size)];
                c.files += 1;
                c.bytes += e.size;
                if e.is_sparse() {
                    self.sparse_files += 1;
                    self.sparse_apparent_bytes += e.size;
                    self.sparse_data_bytes += e.stored;
                }
            }
            Kind::Dir => self.dirs += 1,
            Kind::Symlink => self.symlinks += 1,
            Kind::Other => self.other += 1,
        }
    }
}

/// A problem met during the walk that did not stop it.
#[derive(Clone, Debug)]
pub struct WalkError {
    pub path: PathBuf,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn entry(name: &[u8]) -> Entry {
        Entry::new(os_name(name), Kind::File, 0, 0)
    }

    #[cfg(unix)]
    fn os_name(name: &[u8]) -> OsString {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(name.to_vec())
    }

    /// Windows names are UTF-16: bytes that are not UTF-8 become U+FFFD.
    #[cfg(not(unix))]
    fn os_name(name: &[u8]) -> OsString {
        String::from_utf8_lossy(name).into_owned().into()
    }

    // Byte by byte, names that are not UTF-8 included: only Unix names
    // hold any bytes (Windows' are UTF-16).
    #[cfg(unix)]
    #[test]
    fn one_pass_over_the_name_answers_every_question() {
        for b in 0u8..=255 {
            let e = entry(&[b'a', b, b'z']);
            let windows = b < 0x20 || br#""*/:<>?\|"#.contains(&b);
            assert_eq!(e.has_windows_forbidden(), windows, "byte {b:#x}");
            assert_eq!(e.has_control_char(), b < 0x20 || b == 0x7f, "byte {b:#x}");
            assert_eq!(e.is_ascii(), b < 0x80, "byte {b:#x}");
            assert_eq!(e.is_utf8(), b < 0x80, "byte {b:#x}");
        }
        let e = entry("café😀".as_bytes());
        assert!(e.is_utf8() && !e.is_ascii() && !e.has_windows_forbidden());
        assert_eq!((e.utf16_len, e.name_str()), (6, Some("café😀")));
        let bad = entry(b"x\xff");
        assert_eq!(
            (bad.is_utf8(), bad.name_str(), bad.utf16_len),
            (false, None, 2)
        );
        assert!(windows_forbidden(b"a|b") && !windows_forbidden("é".as_bytes()));
    }

    /// Names kept inline (up to 32 bytes) and on the heap read back the
    /// same, and so do their classes.
    #[test]
    fn names_read_back_whatever_their_length() {
        for len in [0, 1, 31, 32, 33, 64, 255] {
            let name = "é".repeat(len / 2) + &"x".repeat(len % 2);
            let e = entry(name.as_bytes());
            assert_eq!(e.name(), std::ffi::OsStr::new(&name), "{len} bytes");
            assert_eq!(e.name_str(), Some(name.as_str()));
            assert_eq!(e.byte_len(), name.len());
            assert_eq!(e.utf16_len as usize, name.chars().count());
            assert_eq!(format!("{:?}", e.clone().name), format!("{name:?}"));
        }
        #[cfg(unix)]
        for len in [2, 40] {
            let mut b = vec![b'a'; len];
            b[1] = 0xff;
            let e = entry(&b);
            assert_eq!((e.name_bytes(), e.name_str()), (&b[..], None));
        }
    }

    #[test]
    fn a_folders_name_is_its_last_component_with_either_separator() {
        // Joined as the walk joins them: with `\` on Windows.
        let rel = std::path::Path::new("usr").join("share").join("café");
        assert_eq!(Dir::new(&rel, false, &[]).name_utf16, 4);
        assert_eq!(
            Dir::new(std::path::Path::new("doc"), false, &[]).name_utf16,
            3
        );
        assert_eq!(Dir::new(std::path::Path::new(""), true, &[]).name_utf16, 0);
        #[cfg(windows)]
        assert_eq!(
            Dir::new(std::path::Path::new(r"a\bc"), false, &[]).name_utf16,
            2
        );
    }

    #[test]
    fn may_collide_is_coarser_than_every_case_rule() {
        let dir = |names: &[&str]| -> bool {
            let es: Vec<Entry> = names.iter().map(|n| entry(n.as_bytes())).collect();
            Dir::new(std::path::Path::new("d"), false, &es).may_collide()
        };
        assert!(!dir(&[]));
        assert!(!dir(&["readme"]));
        assert!(!dir(&["readme", "readme.txt", "read me", "readme "]));
        assert!(dir(&["README", "x", "readme"]));
        // vfat drops trailing dots: "a." is "A" there.
        assert!(dir(&["a.", "A"]));
        assert!(dir(&["a..", "a"]));
        // Non-ASCII names are left to each rule.
        assert!(dir(&["café", "x"]));
    }
}
