//! `fsfit usage --manifest FILE`: the same report from a listing of data
//! that is not mounted here (find, rclone lsjson, ncdu export, S3 Inventory
//! CSV, plain `path,size` CSV), fed to the same models through the same
//! [`Dir`] visits as the tree walk.
//!
//! Streaming, in tree order: a directory is handed to the models as soon as
//! the listing leaves its subtree, so memory holds only the directories on
//! the current path (their entries), never the whole listing. That needs
//! every directory's subtree to be contiguous in the listing, which holds for
//! `find` (depth-first), ncdu (nested), S3 Inventory and any listing sorted
//! by path (`LC_ALL=C sort -z -t' ' -k4` for find,
//! `LC_ALL=C sort` for CSV and rclone lines). A listing that comes back to a
//! directory it has already left is refused with the line where it does, and
//! how to sort it; nothing is guessed.

mod csv;
mod find;
mod ncdu;
mod rclone;
mod s3;

use crate::scan::{Dir, Entry, Kind, TreeCounts, MTIME_UNKNOWN};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The listing formats `--format` names.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `find DIR -printf '%y %s %T@ %P\0'` (NUL- or newline-separated).
    Find,
    /// `rclone lsjson -R REMOTE:PATH`.
    RcloneLsjson,
    /// `ncdu -o FILE` (add -e for modification times).
    Ncdu,
    /// S3 Inventory CSV (Bucket, Key[, VersionId, IsLatest, IsDeleteMarker], Size, LastModifiedDate, ...).
    S3Inventory,
    /// `path,size` per line, optional header; a path ending in `/` is a folder.
    Csv,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Find => "find",
            Format::RcloneLsjson => "rclone-lsjson",
            Format::Ncdu => "ncdu",
            Format::S3Inventory => "s3-inventory",
            Format::Csv => "csv",
        }
    }

    /// What a listing of this format cannot say, reported with every result.
    fn lacks(self) -> &'static [&'static str] {
        match self {
            Format::Find => &[],
            Format::RcloneLsjson => &[
                "rclone lists no symlinks, FIFOs, sockets or devices: any there are missing, not counted",
                "modification times are as coarse as the remote keeps them (often 1 s, some 2 s or worse)",
            ],
            Format::Ncdu => &[
                "ncdu marks symlinks, FIFOs, sockets and devices alike as not regular: all are counted as other",
            ],
            Format::S3Inventory => &[
                "S3 has no symlinks, FIFOs, sockets or devices, and folders only as key prefixes or marker objects",
                "modification times are upload times, not the files' own",
            ],
            Format::Csv => &[
                "a path,size listing has no symlinks, FIFOs, sockets or devices, and folders only as path prefixes",
            ],
        }
    }
}

/// One entry of a listing: a '/'-separated path relative to the listing's
/// root (no leading or trailing '/').
pub struct Record {
    pub path: Vec<u8>,
    pub kind: Kind,
    pub size: u64,
    /// Seconds since the epoch, when the listing has it.
    pub mtime: Option<i64>,
}

/// A malformed or out-of-order listing: where and why.
#[derive(Debug)]
pub struct Bad {
    pub line: u64,
    pub message: String,
}

impl Bad {
    /// A problem in a record whose line the caller fills in with [`Bad::at`].
    pub fn new(message: impl Into<String>) -> Bad {
        Bad {
            line: 0,
            message: message.into(),
        }
    }

    pub fn at(self, line: u64) -> Bad {
        Bad { line, ..self }
    }
}

/// What reading a listing found besides what the models saw.
pub struct ManifestSummary {
    pub counts: TreeCounts,
    pub format: Format,
    /// What the listing cannot say, plus what this one left out.
    pub lacks: Vec<String>,
}

/// A reader hands records to `emit` in listing order; `line` is the line
/// (for find's NUL form, the record) the record came from.
type Emit<'a> = dyn FnMut(Record, u64) -> Result<(), Bad> + 'a;

/// Read `file` (gzip or not, `-` for stdin) as `format` (sniffed when None)
/// and visit every directory it describes. Errors are one line naming the
/// file and, for a bad listing, the line number.
pub fn read(
    file: &Path,
    format: Option<Format>,
    progress: &AtomicU64,
    visit: &(dyn Fn(&Dir) + Sync),
) -> crate::Result<ManifestSummary> {
    let name = file.display();
    let raw: Box<dyn Read> = if file == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(file).map_err(|e| crate::Error::input(format!("{name}: {e}")))?,
        )
    };
    let mut input = BufReader::with_capacity(1 << 16, raw);
    let head = input
        .fill_buf()
        .map_err(|e| crate::Error::input(format!("{name}: {e}")))?;
    let mut input: Box<dyn BufRead> = if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(input),
        ))
    } else {
        Box::new(input)
    };
    let format = match format {
        Some(f) => f,
        None => {
            let head = input
                .fill_buf()
                .map_err(|e| crate::Error::input(format!("{name}: {e}")))?;
            sniff(head).ok_or_else(|| {
                crate::Error::input(format!(
                    "{name}: cannot tell the listing's format; name it with --format"
                ))
            })?
        }
    };

    let mut tree = Builder::new(visit, progress);
    let mut emit = |r: Record, line: u64| tree.add(r).map_err(|b| b.at(line));
    let res = match format {
        Format::Find => find::read(&mut input, &mut emit),
        Format::RcloneLsjson => rclone::read(&mut input, &mut emit),
        Format::Ncdu => ncdu::read(&mut input, &mut emit),
        Format::S3Inventory => s3::read(&mut input, &mut emit),
        Format::Csv => csv::read(&mut input, &mut emit),
    };
    let skipped =
        res.map_err(|b| crate::Error::input(format!("{name}:{}: {}", b.line, b.message)))?;
    let (counts, no_mtime) = tree.finish();

    let mut lacks: Vec<String> = format.lacks().iter().map(|s| s.to_string()).collect();
    if no_mtime > 0 {
        lacks.push(format!(
            "{} {} no modification time: before_1980 and odd_mtime are not judged for {}",
            crate::units::count_as(no_mtime, "entry", "entries"),
            if no_mtime == 1 { "has" } else { "have" },
            if no_mtime == 1 { "it" } else { "them" }
        ));
    }
    lacks.extend(skipped);
    Ok(ManifestSummary {
        counts,
        format,
        lacks,
    })
}

/// Guess the format from the first bytes of the (decompressed) listing.
pub fn sniff(head: &[u8]) -> Option<Format> {
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        let rest = rest.trim_start();
        if rest.starts_with('{') || rest.starts_with(']') {
            return Some(Format::RcloneLsjson);
        }
        if rest.starts_with('1') {
            return Some(Format::Ncdu);
        }
        return None;
    }
    if t.starts_with('{') {
        return Some(Format::RcloneLsjson);
    }
    let first = t.split(['\0', '\n']).next().unwrap_or("");
    if find::looks_like(first) {
        return Some(Format::Find);
    }
    let fields = csv::fields(first.trim_end_matches('\r')).ok()?;
    if fields.len() >= 4 && first.starts_with('"') && s3::looks_like(&fields) {
        return Some(Format::S3Inventory);
    }
    if fields.len() >= 2 {
        return Some(Format::Csv);
    }
    None
}

/// Seconds since the epoch of an RFC 3339 / ISO 8601 time
/// (`2024-05-01T12:34:56.789+02:00`, `...Z`), rounded down to the second.
pub fn parse_time(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
    }
    let offset = match &s[i..] {
        "" | "Z" | "z" => 0,
        o if o.len() == 6 && (o.starts_with('+') || o.starts_with('-')) && &o[3..4] == ":" => {
            let v = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
            if o.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return None,
    };
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss - offset)
}

/// Split `path` (already relative) into its non-empty components.
fn components(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|&c| c == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
}

/// A directory whose entries are being collected.
struct OpenDir {
    path: Vec<u8>,
    entries: Vec<Entry>,
}

impl OpenDir {
    /// Is this directory `p` or one of its ancestors?
    fn holds(&self, p: &[u8]) -> bool {
        self.path.is_empty()
            || p == self.path.as_slice()
            || (p.starts_with(&self.path) && p.get(self.path.len()) == Some(&b'/'))
    }
}

fn key(path: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path)
}

fn show(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}

/// Turns a stream of records into [`Dir`] visits. Two orders stream: tree
/// order (find, ncdu, S3, sorted listings: a folder's whole subtree is
/// contiguous) and grouped by folder (rclone: each folder's entries
/// together, folders in any order after their parent listed them). Open
/// folders are a stack of those holding the current record; a folder is
/// visited when the listing leaves it. Besides the open folders' entries,
/// one 8-byte hash per folder is kept, to tell a folder listed in its parent
/// from one met again after its entries ended (refused: it would be guessed),
/// and the paths of folders listed but not visited yet: those the listing
/// never enters are empty, and are visited at the end.
struct Builder<'v> {
    visit: &'v (dyn Fn(&Dir) + Sync),
    progress: &'v AtomicU64,
    stack: Vec<OpenDir>,
    /// Every folder with an entry in its parent: its path until it is
    /// visited, then None.
    dirs: HashMap<u64, Option<Box<[u8]>>>,
    counts: TreeCounts,
    no_mtime: u64,
}

impl<'v> Builder<'v> {
    fn new(visit: &'v (dyn Fn(&Dir) + Sync), progress: &'v AtomicU64) -> Builder<'v> {
        Builder {
            visit,
            progress,
            stack: vec![OpenDir {
                path: Vec::new(),
                entries: Vec::new(),
            }],
            dirs: HashMap::new(),
            counts: TreeCounts::default(),
            no_mtime: 0,
        }
    }

    fn add(&mut self, r: Record) -> Result<(), Bad> {
        let mut path = Vec::with_capacity(r.path.len());
        for c in components(&r.path) {
            if c == b".." {
                return Err(Bad::new(format!(
                    "'{}': a path with '..' is not a listing of one tree",
                    show(&r.path)
                )));
            }
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(c);
        }
        if path.is_empty() {
            // The listing's root itself (find's first line): nothing to store.
            return Ok(());
        }
        let cut = path.iter().rposition(|&c| c == b'/');
        let (parent, name) = match cut {
            Some(i) => (&path[..i], &path[i + 1..]),
            None => (&path[..0], &path[..]),
        };
        self.open(parent)?;
        let mtime = r.mtime.unwrap_or(MTIME_UNKNOWN);
        let top = self.stack.last_mut().unwrap();
        if r.kind == Kind::Dir {
            if self.dirs.contains_key(&key(&path)) {
                // Met before as the parent of something: now we know its mtime.
                if let Some(e) = top
                    .entries
                    .iter_mut()
                    .rev()
                    .find(|e| e.kind == Kind::Dir && e.name_bytes() == name)
                {
                    e.mtime = mtime;
                }
                return Ok(());
            }
            self.dirs.insert(key(&path), Some(path.clone().into()));
        }
        top.entries
            .push(Entry::new(os_str(name), r.kind, r.size, mtime));
        Ok(())
    }

    /// Make `dir` the top of the stack: visit the folders the listing has
    /// left, open the ones it enters (listing them in their parent when only
    /// their paths name them, if that parent is still open).
    fn open(&mut self, dir: &[u8]) -> Result<(), Bad> {
        while !self.stack.last().unwrap().holds(dir) {
            self.close();
        }
        let top = self.stack.last().unwrap();
        if top.path.as_slice() == dir {
            return Ok(());
        }
        // Walk down from the top's path to `dir`, one component at a time.
        let mut at = if top.path.is_empty() {
            0
        } else {
            top.path.len() + 1
        };
        let mut parent_open = true;
        loop {
            let end = dir[at..]
                .iter()
                .position(|&c| c == b'/')
                .map_or(dir.len(), |i| at + i);
            let q = &dir[..end];
            match self.dirs.get(&key(q)).map(|p| p.is_none()) {
                Some(true) if end == dir.len() => {
                    return Err(Bad::new(format!(
                        "'{}/' comes back after its entries ended: the listing is neither \
                         in tree order nor grouped by folder (sort it by path: \
                         `LC_ALL=C sort -z -t' ' -k4` for find's NUL form, \
                         `LC_ALL=C sort` for CSV or rclone lines)",
                        show(q)
                    )))
                }
                // Visited already: pass through to its subfolder.
                Some(true) => parent_open = false,
                Some(false) => {
                    self.push(q);
                    parent_open = true;
                }
                None if parent_open => {
                    // Known only as a prefix (S3 keys, CSV paths): a folder
                    // without a modification time.
                    let name = &q[at..];
                    self.stack.last_mut().unwrap().entries.push(Entry::new(
                        os_str(name),
                        Kind::Dir,
                        0,
                        MTIME_UNKNOWN,
                    ));
                    self.push(q);
                }
                None => {
                    return Err(Bad::new(format!(
                        "'{}/' is not among the entries of '{}/', which ended before it",
                        show(q),
                        show(&dir[..at.saturating_sub(1)])
                    )))
                }
            }
            if end == dir.len() {
                return Ok(());
            }
            at = end + 1;
        }
    }

    fn push(&mut self, path: &[u8]) {
        // Opened, so not among those visited empty at the end.
        self.dirs.insert(key(path), Some(Box::default()));
        self.stack.push(OpenDir {
            path: path.to_vec(),
            entries: Vec::new(),
        });
    }

    /// Hand the top directory to the models and forget its entries.
    fn close(&mut self) {
        let d = self.stack.pop().unwrap();
        let mut local = TreeCounts::default();
        for e in &d.entries {
            local.count(e);
            if e.mtime == MTIME_UNKNOWN {
                self.no_mtime += 1;
            }
        }
        self.progress.fetch_add(local.files, Ordering::Relaxed);
        self.counts.add(&local);
        let rel = PathBuf::from(os_str(&d.path));
        (self.visit)(&Dir::new(&rel, d.path.is_empty(), &d.entries));
        if !d.path.is_empty() {
            self.dirs.insert(key(&d.path), None);
        }
    }

    /// Close every directory still open (the root last).
    fn finish(mut self) -> (TreeCounts, u64) {
        while self.stack.len() > 1 {
            self.close();
        }
        // Folders listed and never entered: empty ones (sorted, so the
        // order of visits is the listing's, whatever the hash map does).
        let mut empty: Vec<Box<[u8]>> = self
            .dirs
            .values_mut()
            .filter_map(|p| p.take().filter(|p| !p.is_empty()))
            .collect();
        empty.sort_unstable();
        for path in empty {
            self.push(&path);
            self.close();
        }
        self.close();
        (self.counts, self.no_mtime)
    }
}

/// Read `input` as records separated by `sep`, calling `each` with the
/// record (without its separator) and its 1-based number.
fn for_each_record(
    input: &mut dyn BufRead,
    sep: u8,
    mut each: impl FnMut(&[u8], u64) -> Result<(), Bad>,
) -> Result<(), Bad> {
    let mut buf = Vec::with_capacity(256);
    let mut line = 0;
    loop {
        buf.clear();
        let n = input.read_until(sep, &mut buf).map_err(|e| Bad {
            line: line + 1,
            message: format!("cannot read: {e}"),
        })?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        if buf.last() == Some(&sep) {
            buf.pop();
        }
        each(&buf, line)?;
    }
}

/// A listed name's bytes as a name: as they are on Unix; elsewhere as
/// UTF-8 (a byte sequence that is none is replaced, as the listings of
/// other systems hold UTF-8).
#[cfg(unix)]
fn os_str(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

#[cfg(not(unix))]
fn os_str(b: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(b).into_owned().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Feed records and return the directories visited, in order, with their entry names.
    fn visits(recs: &[(&str, Kind)]) -> Result<Vec<(String, Vec<String>)>, Bad> {
        let seen = Mutex::new(Vec::new());
        let visit = |d: &Dir| {
            let names = d
                .entries
                .iter()
                .map(|e| e.name().to_string_lossy().into_owned())
                .collect();
            seen.lock()
                .unwrap()
                .push((d.rel.to_string_lossy().into_owned(), names));
        };
        let progress = AtomicU64::new(0);
        let mut b = Builder::new(&visit, &progress);
        for (p, k) in recs {
            b.add(Record {
                path: p.as_bytes().to_vec(),
                kind: *k,
                size: 1,
                mtime: Some(0),
            })?;
        }
        b.finish();
        Ok(seen.into_inner().unwrap())
    }

    #[test]
    fn depth_first_and_implicit_folders() {
        use Kind::*;
        let v = visits(&[
            ("a", Dir),
            ("a/x", File),
            ("a/b/y", File),
            ("a/z", File),
            ("c/d/e", File),
            ("f", File),
            ("g", Dir),
        ])
        .unwrap();
        let want = [
            ("a/b", vec!["y"]),
            ("a", vec!["x", "b", "z"]),
            ("c/d", vec!["e"]),
            ("c", vec!["d"]),
            ("g", vec![]),
            ("", vec!["a", "c", "f", "g"]),
        ];
        let want: Vec<(String, Vec<String>)> = want
            .iter()
            .map(|(p, n)| (p.to_string(), n.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(v, want);
    }

    #[test]
    fn grouped_by_folder_as_rclone_lists() {
        use Kind::*;
        let v = visits(&[
            ("a", Dir),
            ("b", Dir),
            ("f", File),
            ("a/x", File),
            ("a/c", Dir),
            ("b/y", File),
            ("a/c/z", File),
        ])
        .unwrap();
        let got: Vec<&str> = v.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(got, ["a", "b", "a/c", ""]);
        assert_eq!(v[3].1, ["a", "b", "f"]);
        assert_eq!(v[0].1, ["x", "c"]);
    }

    #[test]
    fn a_directory_listed_after_its_contents_is_one_entry() {
        use Kind::*;
        let v = visits(&[("a/x", File), ("a", Dir), ("b", File)]).unwrap();
        assert_eq!(v.last().unwrap().1, vec!["a", "b"]);
    }

    #[test]
    fn coming_back_to_a_folder_is_refused() {
        use Kind::*;
        let e = visits(&[("a/x", File), ("b/y", File), ("a/z", File)])
            .unwrap_err()
            .message;
        assert!(e.contains("'a/' comes back"), "{e}");
        // A folder not listed in its parent, met after the parent ended.
        let e = visits(&[("a/x", File), ("b/y", File), ("a/c/z", File)])
            .unwrap_err()
            .message;
        assert!(e.contains("'a/c/' is not among the entries of 'a/'"), "{e}");
        assert!(visits(&[("../x", File)]).is_err());
    }

    #[test]
    fn times_parse() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("2000-02-29T00:00:00Z"), Some(951_782_400));
        assert_eq!(
            parse_time("2026-11-22T12:32:28.123456789+02:00"),
            Some(1_795_343_548)
        );
        assert_eq!(parse_time("1969-12-31T23:59:59.5Z"), Some(-1));
        assert_eq!(parse_time("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_time("yesterday"), None);
    }

    #[test]
    fn formats_are_recognised() {
        assert_eq!(
            sniff(b"d 4096 1700000000.5 \0f 3 1.0 a\0"),
            Some(Format::Find)
        );
        assert_eq!(
            sniff(b"[\n{\"Path\":\"a\",\"Size\":1}\n]"),
            Some(Format::RcloneLsjson)
        );
        assert_eq!(
            sniff(b"[1,2,{\"progname\":\"ncdu\"},\n[{\"name\":\"/x\"}]]"),
            Some(Format::Ncdu)
        );
        assert_eq!(
            sniff(b"\"bkt\",\"a/b.txt\",\"12\",\"2024-01-01T00:00:00.000Z\"\n"),
            Some(Format::S3Inventory)
        );
        assert_eq!(sniff(b"path,size\na,1\n"), Some(Format::Csv));
        assert_eq!(sniff(b"hello"), None);
    }
}
