//! Compatibility findings: what in the tree a filesystem cannot store as it
//! is. Facts about each entry are worked out once per directory, then judged
//! against each filesystem's [`Limits`].

use crate::fs::Limits;
use crate::scan::{Dir, Entry, Kind};
use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry as Entry_;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Example paths kept per finding.
pub const EXAMPLES: usize = 10;

/// What a filesystem cannot store as it is: the keys of the JSON `problems`
/// object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    TooLarge,
    BadName,
    CaseCollision,
    NameTooLong,
    PathTooLong,
    UnsupportedType,
    /// Only for filesystems with DOS timestamps.
    Before1980,
    /// Only for FAT12/16/32.
    OddMtime,
    /// Only for filesystems with DOS timestamps (years up to 2107).
    After2107,
}

impl Problem {
    /// In the order the contract lists them, then the added ones.
    pub const ALL: [Problem; 9] = [
        Problem::TooLarge,
        Problem::BadName,
        Problem::CaseCollision,
        Problem::NameTooLong,
        Problem::PathTooLong,
        Problem::UnsupportedType,
        Problem::Before1980,
        Problem::OddMtime,
        Problem::After2107,
    ];

    /// The JSON key (and CSV column).
    pub fn key(self) -> &'static str {
        match self {
            Problem::TooLarge => "too_large",
            Problem::BadName => "bad_name",
            Problem::CaseCollision => "case_collision",
            Problem::NameTooLong => "name_too_long",
            Problem::PathTooLong => "path_too_long",
            Problem::UnsupportedType => "unsupported_type",
            Problem::Before1980 => "before_1980",
            Problem::OddMtime => "odd_mtime",
            Problem::After2107 => "after_2107",
        }
    }

    pub fn from_key(key: &str) -> Option<Problem> {
        Problem::ALL.into_iter().find(|p| p.key() == key)
    }

    /// What it means, for the human output.
    pub fn describe(self) -> &'static str {
        match self {
            Problem::TooLarge => "files over the filesystem's size limit",
            Problem::BadName => {
                "names Windows forbids (\" * : < > ? \\ |, control characters, trailing dot or space, CON/NUL/..., not UTF-8)"
            }
            Problem::CaseCollision => {
                "names that differ only in case from another in the same folder"
            }
            Problem::NameTooLong => "names over 255 characters",
            Problem::PathTooLong => "paths over Windows' 260-character limit",
            Problem::UnsupportedType => "symlinks, FIFOs, sockets or devices it cannot store",
            Problem::Before1980 => "modification times before 1980, which FAT/exFAT cannot hold",
            Problem::OddMtime => {
                "odd-second modification times FAT rounds to 2 s (use rsync --modify-window=1)"
            }
            Problem::After2107 => "modification times after 2107, which FAT/exFAT cannot hold",
        }
    }

    /// What it means on one filesystem: a name's limit is its own (UDF:
    /// 254 bytes; NTFS, exFAT, FAT: 255 UTF-16 units; ext4: 255 bytes).
    pub fn describe_on(self, fs: &str) -> String {
        let limits = crate::fs::by_name(fs).map(|f| f.info().limits);
        match (self, limits) {
            (Problem::NameTooLong, Some(l)) => match (l.name_max_utf16, l.name_max_bytes) {
                (Some(n), _) => format!("names over {n} characters (UTF-16 units)"),
                (None, Some(n)) => format!("names over {n} bytes"),
                _ => self.describe().to_string(),
            },
            _ => self.describe().to_string(),
        }
    }

    /// It stops a plain copy (the timestamp findings are only notes).
    pub fn blocking(self) -> bool {
        !matches!(
            self,
            Problem::Before1980 | Problem::OddMtime | Problem::After2107
        )
    }
}

/// What a finding named by its JSON key means ("" for a key this fsfit does
/// not know, from a file of another version).
pub fn describe(key: &str) -> &'static str {
    Problem::from_key(key).map_or("", Problem::describe)
}

/// Counts per finding; the JSON `problems` object (a kind an older file
/// lacks reads as 0, or as absent for the optional ones).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Counts {
    pub too_large: u64,
    pub bad_name: u64,
    pub case_collision: u64,
    pub name_too_long: u64,
    pub path_too_long: u64,
    pub unsupported_type: u64,
    /// Only for filesystems with DOS timestamps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_1980: Option<u64>,
    /// Only for FAT12/16/32.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odd_mtime: Option<u64>,
    /// Only for filesystems with DOS timestamps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_2107: Option<u64>,
}

impl Counts {
    fn slot(&mut self, p: Problem) -> &mut u64 {
        match p {
            Problem::TooLarge => &mut self.too_large,
            Problem::BadName => &mut self.bad_name,
            Problem::CaseCollision => &mut self.case_collision,
            Problem::NameTooLong => &mut self.name_too_long,
            Problem::PathTooLong => &mut self.path_too_long,
            Problem::UnsupportedType => &mut self.unsupported_type,
            Problem::Before1980 => self.before_1980.get_or_insert(0),
            Problem::OddMtime => self.odd_mtime.get_or_insert(0),
            Problem::After2107 => self.after_2107.get_or_insert(0),
        }
    }

    pub fn get(&self, p: Problem) -> u64 {
        match p {
            Problem::TooLarge => self.too_large,
            Problem::BadName => self.bad_name,
            Problem::CaseCollision => self.case_collision,
            Problem::NameTooLong => self.name_too_long,
            Problem::PathTooLong => self.path_too_long,
            Problem::UnsupportedType => self.unsupported_type,
            Problem::Before1980 => self.before_1980.unwrap_or(0),
            Problem::OddMtime => self.odd_mtime.unwrap_or(0),
            Problem::After2107 => self.after_2107.unwrap_or(0),
        }
    }

    /// The kinds this config reports, in [`Problem::ALL`] order: the six of
    /// the contract, then the timestamp notes where the filesystem has them.
    pub fn kinds(&self) -> Vec<Problem> {
        Problem::ALL
            .into_iter()
            .filter(|p| match p {
                Problem::Before1980 => self.before_1980.is_some(),
                Problem::OddMtime => self.odd_mtime.is_some(),
                Problem::After2107 => self.after_2107.is_some(),
                _ => true,
            })
            .collect()
    }

    /// Findings that stop a plain copy (not the timestamp notes).
    pub fn blocking(&self) -> u64 {
        Problem::ALL
            .into_iter()
            .filter(|p| p.blocking())
            .map(|p| self.get(p))
            .sum()
    }
}

/// The findings for one filesystem: counts and example paths.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub counts: Counts,
    pub examples: BTreeMap<&'static str, Vec<String>>,
}

impl Findings {
    pub fn new(limits: &Limits) -> Findings {
        let mut f = Findings::default();
        if limits.from_1980 {
            f.counts.before_1980 = Some(0);
            f.counts.after_2107 = Some(0);
        }
        if limits.mtime_2s {
            f.counts.odd_mtime = Some(0);
        }
        f
    }

    /// Count a finding and keep its path if it is among the first
    /// [`EXAMPLES`] in sorted order: which examples are kept must not depend
    /// on the order walker threads meet the entries (issue #8 item 10).
    /// `rel_str` is `rel.to_str()`, worked out once per directory
    /// ([`Dir::rel_str`]; it was a UTF-8 check of the whole path per hit).
    fn hit(&mut self, kind: Problem, rel: &Path, rel_str: Option<&str>, e: &Entry) {
        *self.counts.slot(kind) += 1;
        let ex = self.examples.entry(kind.key()).or_default();
        if ex.len() >= EXAMPLES && !sorts_before(rel, rel_str, e, ex.last().unwrap()) {
            return;
        }
        keep_first(ex, show(rel, e));
    }

    /// Count a finding between two entries of one folder, naming both.
    fn hit_pair(&mut self, kind: Problem, rel: &Path, e: &Entry, partner: &Entry) {
        *self.counts.slot(kind) += 1;
        let ex = self.examples.entry(kind.key()).or_default();
        let shown = format!("{} (clashes with {})", show(rel, e), show(rel, partner));
        if ex.len() < EXAMPLES || shown.as_str() < ex.last().unwrap().as_str() {
            keep_first(ex, shown);
        }
    }

    pub fn merge(&mut self, o: &Findings) {
        for p in Problem::ALL {
            let n = o.counts.get(p);
            if n > 0 {
                *self.counts.slot(p) += n;
            }
        }
        for (k, v) in &o.examples {
            let ex = self.examples.entry(k).or_default();
            for p in v {
                if ex.len() >= EXAMPLES && p >= ex.last().unwrap() {
                    break;
                }
                keep_first(ex, p.clone());
            }
        }
    }
}

/// Insert `p` into the sorted list `ex`, keeping only the first [`EXAMPLES`].
fn keep_first(ex: &mut Vec<String>, p: String) {
    if let Err(at) = ex.binary_search(&p) {
        ex.insert(at, p);
        ex.truncate(EXAMPLES);
    }
}

/// Would `show(rel, e)` sort before `last`? Answered without building the
/// path when both parts are UTF-8 (the common case: most hits do not make it
/// into a full list, and odd_mtime hits about half of all files).
fn sorts_before(rel: &Path, rel_str: Option<&str>, e: &Entry, last: &str) -> bool {
    let (Some(r), Some(n)) = (rel_str, e.name_str()) else {
        return show(rel, e).as_str() < last;
    };
    // The separator `show` joins with (`Path::join`: `\` on Windows).
    let sep = if r.is_empty() {
        ""
    } else {
        std::path::MAIN_SEPARATOR_STR
    };
    let sep = sep.as_bytes();
    let joined = r.as_bytes().iter().chain(sep).chain(n.as_bytes());
    joined.cmp(last.as_bytes().iter()) == std::cmp::Ordering::Less
}

/// 1980-01-01 00:00:00 UTC: the DOS epoch.
const DOS_EPOCH: i64 = 315_532_800;
/// 2107-12-31 23:59:59 UTC: the last second a DOS date (FAT, exFAT: a
/// 7-bit year from 1980) holds.
const DOS_END: i64 = 4_354_819_199;

/// Windows' reserved device names, with or without an extension.
/// Compared in place, without an upper-cased copy: this runs for every entry.
fn reserved_name(name: &str) -> bool {
    // Every reserved stem starts with one of these; most names are out here.
    let start = name.as_bytes().get(..3).unwrap_or(b"");
    if ![b"CON", b"PRN", b"AUX", b"NUL", b"COM", b"LPT"]
        .iter()
        .any(|r| start.eq_ignore_ascii_case(*r))
    {
        return false;
    }
    let stem = name.split('.').next().unwrap_or("").trim_end().as_bytes();
    match stem.len() {
        3 => ["CON", "PRN", "AUX", "NUL"]
            .iter()
            .any(|r| stem.eq_ignore_ascii_case(r.as_bytes())),
        4 => {
            (stem[..3].eq_ignore_ascii_case(b"COM") || stem[..3].eq_ignore_ascii_case(b"LPT"))
                && stem[3].is_ascii_digit()
                && stem[3] != b'0'
        }
        _ => false,
    }
}

/// Does Windows refuse this name?
pub fn windows_bad_name(e: &Entry) -> bool {
    let Some(name) = e.name_str() else {
        return true;
    };
    // Control characters and `" * / : < > ? \ |`, found when the entry was made.
    e.has_windows_forbidden()
        || name.ends_with('.') && name != "." && name != ".."
        || name.ends_with(' ')
        || reserved_name(name)
}

/// Facts about one directory's entries, shared by every filesystem's judgement.
pub struct DirFacts {
    /// Indexes of entries whose name collides case-insensitively with an earlier one.
    collisions: Vec<(usize, usize)>,
    bad_name: Vec<bool>,
    /// Length of the directory's own path in UTF-16 units (without the drive).
    rel_len: usize,
    /// The most any entry asks of each limit, so that a filesystem none of
    /// whose rules can fire in this folder skips its entries: most folders,
    /// for most filesystems.
    most: Most,
}

/// A name's full path on a Windows drive, in UTF-16 units as MAX_PATH
/// counts them: "D:\" + the folder's path + a separator + the name + NUL.
fn windows_path_len(rel_len: usize, name_utf16: u32) -> usize {
    3 + rel_len + usize::from(rel_len > 0) + name_utf16 as usize + 1
}

/// Per folder: the extremes [`judge`]'s rules compare with limits.
#[derive(Default)]
struct Most {
    file_bytes: u64,
    utf16_len: u32,
    byte_len: usize,
    bad_name: bool,
    symlink: bool,
    other: bool,
    /// Least and most mtime of files and folders.
    mtime: Option<(i64, i64)>,
    odd_mtime_file: bool,
}

impl Most {
    fn of(entries: &[Entry], bad_name: &[bool]) -> Most {
        let mut m = Most {
            bad_name: bad_name.iter().any(|&b| b),
            ..Most::default()
        };
        for e in entries {
            m.utf16_len = m.utf16_len.max(e.utf16_len);
            m.byte_len = m.byte_len.max(e.byte_len());
            match e.kind {
                Kind::Symlink => m.symlink = true,
                Kind::Other => m.other = true,
                Kind::File | Kind::Dir => {
                    let (lo, hi) = m.mtime.unwrap_or((e.mtime, e.mtime));
                    m.mtime = Some((lo.min(e.mtime), hi.max(e.mtime)));
                    if e.kind == Kind::File {
                        m.file_bytes = m.file_bytes.max(e.size);
                        m.odd_mtime_file |= e.mtime.rem_euclid(2) == 1;
                    }
                }
            }
        }
        m
    }

    /// Can any of `limits`' per-entry rules fire in this folder?
    fn may_hit(&self, limits: &Limits, rel_len: usize) -> bool {
        let dates = self
            .mtime
            .is_some_and(|(lo, hi)| lo < DOS_EPOCH || hi > DOS_END);
        self.file_bytes > limits.max_file_bytes
            || (limits.windows_names && self.bad_name)
            || limits.name_max_utf16.is_some_and(|m| self.utf16_len > m)
            || limits
                .name_max_bytes
                .is_some_and(|m| self.byte_len > m as usize)
            || limits
                .path_max
                .is_some_and(|max| windows_path_len(rel_len, self.utf16_len) > max as usize)
            || (self.symlink && !limits.symlinks)
            || (self.other && !limits.special_files)
            || (limits.from_1980 && dates)
            || (limits.mtime_2s && self.odd_mtime_file)
    }
}

impl DirFacts {
    pub fn new(dir: &Dir, want_windows: bool) -> DirFacts {
        let mut collisions = Vec::new();
        let mut bad_name = Vec::new();
        if want_windows {
            if dir.may_collide() {
                collisions = case_collisions(dir);
            }
            bad_name.extend(dir.entries.iter().map(windows_bad_name));
        }
        let rel_len = match dir.rel_str {
            Some(r) => r.encode_utf16().count(),
            None => dir.rel.to_string_lossy().encode_utf16().count(),
        };
        let most = Most::of(dir.entries, &bad_name);
        DirFacts {
            collisions,
            bad_name,
            rel_len,
            most,
        }
    }
}

/// Indexes of the entries whose name collides case-insensitively with
/// another's. Of names that fold together, the smallest is kept and the
/// others collide, whatever order the listing gave them in. Keyed by a hash
/// of the folded name (no string per entry); a hash match is confirmed on
/// the names themselves.
fn case_collisions(dir: &Dir) -> Vec<(usize, usize)> {
    let mut collisions = Vec::new();
    let mut seen: HashMap<u64, usize, KeyIsHash> =
        HashMap::with_capacity_and_hasher(dir.entries.len(), KeyIsHash::default());
    let mut buf = Vec::new();
    for (i, e) in dir.entries.iter().enumerate() {
        match seen.entry(fold_hash(e, &mut buf)) {
            Entry_::Vacant(v) => {
                v.insert(i);
            }
            Entry_::Occupied(mut o) => {
                let kept = *o.get();
                if !same_folded(e.name(), dir.entries[kept].name()) {
                    // Different names with the same 64-bit hash: not
                    // worth a second table; neither is a collision.
                } else if e.name() < dir.entries[kept].name() {
                    o.insert(i);
                    collisions.push((kept, i));
                } else {
                    collisions.push((i, kept));
                }
            }
        }
    }
    collisions
}

/// A hash of the name as Windows compares names (upper-cased); `buf` is
/// scratch space reused between calls. ASCII names are upper-cased as bytes
/// in place (pushing them as chars into a String cost more than the hash).
fn fold_hash(e: &Entry, buf: &mut Vec<u8>) -> u64 {
    buf.clear();
    if e.is_ascii() {
        buf.extend_from_slice(e.name_bytes());
        buf.make_ascii_uppercase();
    } else {
        buf.extend_from_slice(e.name().to_string_lossy().to_uppercase().as_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(buf)
}

/// Hasher for maps keyed by a hash already: the key is used as it is
/// (SipHash over it again was a visible share of the per-entry cost).
type KeyIsHash = std::hash::BuildHasherDefault<Unhashed>;

#[derive(Default)]
struct Unhashed(u64);

impl std::hash::Hasher for Unhashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are used; this keeps any other key correct.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn same_folded(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    a.to_string_lossy().to_uppercase() == b.to_string_lossy().to_uppercase()
}

fn show(rel: &Path, e: &Entry) -> String {
    rel.join(e.name()).to_string_lossy().into_owned()
}

/// Judge one directory's entries against one filesystem's limits.
pub fn judge(dir: &Dir, facts: &DirFacts, limits: &Limits, out: &mut Findings) {
    if facts.most.may_hit(limits, facts.rel_len) {
        judge_entries(dir, facts, limits, out);
    }
    if limits.case_insensitive {
        for &(i, partner) in &facts.collisions {
            let (e, p) = (&dir.entries[i], &dir.entries[partner]);
            out.hit_pair(Problem::CaseCollision, dir.rel, e, p);
        }
    }
}

/// [`judge`]'s rules on each entry of the folder.
fn judge_entries(dir: &Dir, facts: &DirFacts, limits: &Limits, out: &mut Findings) {
    let rel_str = dir.rel_str;
    for (i, e) in dir.entries.iter().enumerate() {
        if e.kind == Kind::File && e.size > limits.max_file_bytes {
            out.hit(Problem::TooLarge, dir.rel, rel_str, e);
        }
        if limits.windows_names && facts.bad_name[i] {
            out.hit(Problem::BadName, dir.rel, rel_str, e);
        }
        let too_long = limits.name_max_utf16.is_some_and(|m| e.utf16_len > m)
            || limits
                .name_max_bytes
                .is_some_and(|m| e.byte_len() > m as usize);
        if too_long {
            out.hit(Problem::NameTooLong, dir.rel, rel_str, e);
        }
        if let Some(max) = limits.path_max {
            if windows_path_len(facts.rel_len, e.utf16_len) > max as usize {
                out.hit(Problem::PathTooLong, dir.rel, rel_str, e);
            }
        }
        let unsupported = match e.kind {
            Kind::Symlink => !limits.symlinks,
            Kind::Other => !limits.special_files,
            _ => false,
        };
        if unsupported {
            out.hit(Problem::UnsupportedType, dir.rel, rel_str, e);
        }
        if matches!(e.kind, Kind::File | Kind::Dir) {
            if limits.from_1980 && e.mtime < DOS_EPOCH {
                out.hit(Problem::Before1980, dir.rel, rel_str, e);
            }
            if limits.from_1980 && e.mtime > DOS_END {
                out.hit(Problem::After2107, dir.rel, rel_str, e);
            }
            if limits.mtime_2s && e.kind == Kind::File && e.mtime.rem_euclid(2) == 1 {
                out.hit(Problem::OddMtime, dir.rel, rel_str, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn file(name: &str) -> Entry {
        Entry::new(OsString::from(name), Kind::File, 1, 1_700_000_000)
    }

    #[test]
    fn windows_names() {
        for bad in [
            "a:b",
            "what?",
            "x*",
            "trail.",
            "trail ",
            "CON",
            "nul.txt",
            "com1",
            "tab\there",
        ] {
            assert!(windows_bad_name(&file(bad)), "{bad} should be refused");
        }
        for good in ["a.b", "résumé.txt", "COM0", "console", "..x", "日本語"] {
            assert!(!windows_bad_name(&file(good)), "{good} should be fine");
        }
        // Only Unix names hold bytes that are not UTF-8.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let e = Entry::new(OsString::from_vec(vec![0xff, b'a']), Kind::File, 1, 0);
            assert!(windows_bad_name(&e));
        }
    }

    /// The folder's summary lets a filesystem skip its entries only when
    /// none of its rules fires: every filesystem's limits, on folders each
    /// holding one entry that breaks one rule, find what the rules find
    /// entry by entry.
    #[test]
    fn a_folder_s_summary_never_hides_a_finding() {
        let long = "n".repeat(300);
        let deep = "d".repeat(250);
        let at =
            |name: &str, kind, size, mtime| Entry::new(OsString::from(name), kind, size, mtime);
        let cases: Vec<(&str, Vec<Entry>)> = vec![
            (
                "d",
                vec![file("ok"), at("big", Kind::File, 5 << 30, 1_700_000_000)],
            ),
            ("d", vec![file("ok"), file("a:b")]),
            ("d", vec![file("ok"), file(&long)]),
            (&deep, vec![file("ok"), file("abcdefghijklmnop")]),
            (
                "d",
                vec![file("ok"), at("l", Kind::Symlink, 3, 1_700_000_000)],
            ),
            (
                "d",
                vec![file("ok"), at("fifo", Kind::Other, 0, 1_700_000_000)],
            ),
            ("d", vec![file("ok"), at("old", Kind::Dir, 0, 100)]),
            (
                "d",
                vec![file("ok"), at("far", Kind::File, 1, 5_000_000_000)],
            ),
            (
                "d",
                vec![file("ok"), at("odd", Kind::File, 1, 1_700_000_001)],
            ),
            ("d", vec![file("ok"), file("fine.txt")]),
        ];
        for fs in crate::fs::all() {
            let limits = fs.info().limits;
            for (rel, entries) in &cases {
                let dir = Dir::new(Path::new(rel), false, entries);
                let facts = DirFacts::new(&dir, true);
                let (mut quick, mut each) = (Findings::new(&limits), Findings::new(&limits));
                judge(&dir, &facts, &limits, &mut quick);
                judge_entries(&dir, &facts, &limits, &mut each);
                assert_eq!(
                    quick.counts,
                    each.counts,
                    "{} on {rel}: {entries:?}",
                    fs.name()
                );
            }
        }
    }

    #[test]
    fn collisions_and_limits() {
        let entries = vec![
            file("Readme"),
            file("README"),
            file("readme"),
            file("other"),
            Entry::new(OsString::from("l"), Kind::Symlink, 3, 1_700_000_000),
            Entry::new(OsString::from("big"), Kind::File, 5 << 30, 1_700_000_001),
            Entry::new(OsString::from("old"), Kind::File, 1, 100),
        ];
        let dir = Dir::new(Path::new("d"), false, &entries);
        let facts = DirFacts::new(&dir, true);
        let limits = Limits {
            max_file_bytes: (4 << 30) - 1,
            case_insensitive: true,
            windows_names: true,
            name_max_utf16: Some(255),
            name_max_bytes: None,
            path_max: Some(260),
            symlinks: false,
            special_files: false,
            from_1980: true,
            mtime_2s: true,
        };
        let mut f = Findings::new(&limits);
        judge(&dir, &facts, &limits, &mut f);
        assert_eq!(f.counts.case_collision, 2);
        assert_eq!(f.counts.too_large, 1);
        assert_eq!(f.counts.unsupported_type, 1);
        assert_eq!(f.counts.before_1980, Some(1));
        assert_eq!(f.counts.odd_mtime, Some(1));
        // Paths are shown joined as the system joins them (`\` on Windows).
        let d = |s: &str| format!("d{}{s}", std::path::MAIN_SEPARATOR);
        assert_eq!(f.examples["too_large"], vec![d("big")]);
        // Each collision names its partner: the name kept (the smallest).
        assert_eq!(
            f.examples["case_collision"],
            [
                format!("{} (clashes with {})", d("Readme"), d("README")),
                format!("{} (clashes with {})", d("readme"), d("README")),
            ]
        );
        let mut posix = Findings::new(&crate::fs::POSIX_LIMITS);
        judge(&dir, &facts, &crate::fs::POSIX_LIMITS, &mut posix);
        assert_eq!(posix.counts.blocking(), 0);
        assert_eq!(posix.counts.before_1980, None);
    }

    #[test]
    fn long_paths() {
        let long = "x".repeat(200);
        let entries = vec![file(&"y".repeat(60)), file("short")];
        let dir = Dir::new(Path::new(&long), false, &entries);
        let facts = DirFacts::new(&dir, true);
        let mut limits = crate::fs::POSIX_LIMITS;
        limits.path_max = Some(260);
        let mut f = Findings::new(&limits);
        judge(&dir, &facts, &limits, &mut f);
        // 3 + 200 + 1 + 60 + 1 = 265 > 260; 3 + 200 + 1 + 5 + 1 = 210.
        assert_eq!(f.counts.path_too_long, 1);
    }

    #[test]
    fn examples_do_not_depend_on_order() {
        // 30 odd-second files met in two orders, split between two "threads".
        let names: Vec<String> = (0..30).map(|i| format!("f{:02}", (i * 7) % 30)).collect();
        let entries: Vec<Entry> = names
            .iter()
            .map(|n| Entry::new(OsString::from(n), Kind::File, 1, 1_700_000_001))
            .collect();
        let mut limits = crate::fs::POSIX_LIMITS;
        limits.mtime_2s = true;
        let run = |parts: &[&[Entry]]| {
            let mut total = Findings::new(&limits);
            for p in parts {
                let dir = Dir::new(Path::new("d"), false, p);
                let facts = DirFacts::new(&dir, false);
                let mut f = Findings::new(&limits);
                judge(&dir, &facts, &limits, &mut f);
                total.merge(&f);
            }
            total
        };
        let mut rev = entries.clone();
        rev.reverse();
        let a = run(&[&entries[..13], &entries[13..]]);
        let b = run(&[&rev[..5], &rev[5..]]);
        let want: Vec<String> = (0..EXAMPLES)
            .map(|i| format!("d{}f{i:02}", std::path::MAIN_SEPARATOR))
            .collect();
        assert_eq!(a.examples["odd_mtime"], want);
        assert_eq!(b.examples["odd_mtime"], want);
        assert_eq!(a.counts.odd_mtime, Some(30));
        // The larger of two names that fold together is the one that collides.
        for order in [["Readme", "README"], ["README", "Readme"]] {
            let es: Vec<Entry> = order.iter().map(|n| file(n)).collect();
            let dir = Dir::new(Path::new(""), true, &es);
            let facts = DirFacts::new(&dir, true);
            let mut f = Findings::new(&limits_ci());
            judge(&dir, &facts, &limits_ci(), &mut f);
            assert_eq!(
                f.examples["case_collision"],
                vec!["Readme (clashes with README)".to_string()]
            );
        }
    }

    #[test]
    fn every_problem_is_a_json_key_of_counts() {
        let mut c = Counts::default();
        for (i, p) in Problem::ALL.into_iter().enumerate() {
            *c.slot(p) = i as u64 + 1;
            assert_eq!(Problem::from_key(p.key()), Some(p));
            assert!(!p.describe().is_empty());
        }
        let v = serde_json::to_value(&c).unwrap();
        let obj = v.as_object().unwrap();
        assert_eq!(obj.len(), Problem::ALL.len());
        for p in Problem::ALL {
            assert_eq!(obj[p.key()].as_u64(), Some(c.get(p)), "{}", p.key());
        }
        assert_eq!(c.blocking(), 1 + 2 + 3 + 4 + 5 + 6);
        assert_eq!(describe("no_such_kind"), "");
    }

    fn limits_ci() -> Limits {
        let mut l = crate::fs::POSIX_LIMITS;
        l.case_insensitive = true;
        l
    }
}
