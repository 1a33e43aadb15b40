//! What must survive: for every file the workload touched, each version it
//! wrote, the log position where that version was written, and where it
//! became durable (its fsync, its directory's fsync or a syncfs returned).
//! A crash state cut at log position C must show, for each file, its last
//! version durable by C or a later one; anything else is a loss.

use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Version {
    /// Log position when the write (or rename, or delete) returned.
    pub at: u64,
    /// Log position when it became durable.
    pub durable: Option<u64>,
    /// None: the file does not exist in this version.
    pub content: Option<(u64, u64)>, // (len, xxh3)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct File {
    pub path: String,
    /// In the "old files" set, written and synced before the workload.
    pub old: bool,
    /// An append-only log: its final bytes (any prefix at least as long as
    /// the durable length is a correct state).
    pub append: Option<Vec<u8>>,
    pub versions: Vec<Version>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Oracle {
    pub files: Vec<File>,
}

pub fn digest(b: &[u8]) -> (u64, u64) {
    (b.len() as u64, xxhash_rust::xxh3::xxh3_64(b))
}

impl Oracle {
    fn file(&mut self, path: &str) -> &mut File {
        if let Some(i) = self.files.iter().position(|f| f.path == path) {
            return &mut self.files[i];
        }
        self.files.push(File {
            path: path.to_string(),
            old: false,
            append: None,
            versions: Vec::new(),
        });
        self.files.last_mut().unwrap()
    }

    /// `path` now holds `bytes` (None: deleted), as of log position `at`.
    pub fn set(&mut self, path: &str, bytes: Option<&[u8]>, at: u64) {
        self.file(path).versions.push(Version {
            at,
            durable: None,
            content: bytes.map(digest),
        });
    }

    /// `path` was appended to; `all` is its whole content now.
    pub fn appended(&mut self, path: &str, all: &[u8], at: u64) {
        let f = self.file(path);
        f.append = Some(all.to_vec());
        f.versions.push(Version {
            at,
            durable: None,
            content: Some(digest(all)),
        });
    }

    /// `path`'s latest version is durable as of `at` (its fsync returned).
    pub fn durable(&mut self, path: &str, at: u64) {
        if let Some(v) = self.file(path).versions.last_mut() {
            v.durable.get_or_insert(at);
        }
    }

    /// Every file's latest version is durable (syncfs returned).
    pub fn all_durable(&mut self, at: u64) {
        for f in &mut self.files {
            if let Some(v) = f.versions.last_mut() {
                v.durable.get_or_insert(at);
            }
        }
    }

    pub fn mark_old(&mut self, path: &str) {
        self.file(path).old = true;
    }

    /// Read what a mounted state holds of every file the oracle knows.
    pub fn observe(&self, root: &Path) -> Observed {
        Observed(
            self.files
                .iter()
                .map(|f| match std::fs::read(root.join(&f.path)) {
                    Ok(b) => Found::Bytes {
                        digest: digest(&b),
                        // Logs are judged by prefix: keep their bytes.
                        bytes: f.append.is_some().then_some(b),
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Found::Absent,
                    Err(e) => Found::Unreadable(e.to_string()),
                })
                .collect(),
        )
    }

    /// Judge what a state holds against what must be there when the crash
    /// came at log position `cut`.
    pub fn judge(&self, seen: &Observed, cut: u64) -> Findings {
        let mut out = Findings::default();
        for (f, found) in self.files.iter().zip(&seen.0) {
            f.judge(found, cut, &mut out);
        }
        out
    }

    /// Compare a mounted crash state, cut at log position `cut`, with what
    /// must be there.
    pub fn check(&self, root: &Path, cut: u64) -> Findings {
        self.judge(&self.observe(root), cut)
    }

    /// What an unmountable volume holds: nothing readable.
    pub fn nothing(&self) -> Observed {
        Observed(
            self.files
                .iter()
                .map(|_| Found::Unreadable("volume does not mount".into()))
                .collect(),
        )
    }
}

/// What one mounted state held, file by file, in the oracle's order.
#[derive(Clone, Debug)]
pub struct Observed(Vec<Found>);

#[derive(Clone, Debug)]
enum Found {
    Absent,
    Bytes {
        digest: (u64, u64),
        bytes: Option<Vec<u8>>,
    },
    Unreadable(String),
}

impl File {
    fn judge(&self, found: &Found, cut: u64, out: &mut Findings) {
        let started: Vec<&Version> = self.versions.iter().filter(|v| v.at <= cut).collect();
        if started.is_empty() {
            return; // the workload had not reached this file yet
        }
        // The last version durable by the cut, and what may stand after it.
        let d = self
            .versions
            .iter()
            .rposition(|v| v.durable.is_some_and(|p| p <= cut));
        let from = d.unwrap_or(0);
        let ok = match (found, &self.append) {
            (Found::Bytes { bytes: Some(b), .. }, Some(all)) => {
                let need = d.map_or(0, |i| self.versions[i].content.map_or(0, |c| c.0)) as usize;
                b.len() >= need && all.starts_with(b)
            }
            (Found::Bytes { digest: h, .. }, _) => {
                self.versions[from..].iter().any(|v| v.content == Some(*h))
            }
            (Found::Absent, _) => self.versions[from..].iter().any(|v| v.content.is_none()),
            (Found::Unreadable(_), _) => false,
        };
        if ok {
            return;
        }
        let what = match found {
            Found::Absent => "missing".to_string(),
            Found::Bytes { digest, .. } => format!("{} bytes, not a version written", digest.0),
            Found::Unreadable(e) => format!("unreadable ({e})"),
        };
        let detail = format!("{}: {what}", self.path);
        if self.old {
            out.old_damaged.push(detail);
        } else if let Some(i) = d {
            // For a log, damage past the durable length is only in flight.
            let durable_part_ok = match (found, &self.append) {
                (Found::Bytes { bytes: Some(b), .. }, Some(all)) => {
                    let need = self.versions[i].content.map_or(0, |c| c.0) as usize;
                    b.len() >= need && b[..need] == all[..need]
                }
                _ => false,
            };
            if durable_part_ok {
                out.inflight_garbage.push(detail);
            } else {
                out.durable_lost.push(detail);
            }
        } else if matches!(found, Found::Absent) {
            out.inflight_lost.push(detail);
        } else {
            out.inflight_garbage.push(detail);
        }
    }
}

/// What one crash state lost, file by file.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub old_damaged: Vec<String>,
    pub durable_lost: Vec<String>,
    pub inflight_lost: Vec<String>,
    pub inflight_garbage: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle() -> Oracle {
        let mut o = Oracle::default();
        o.set("doc", Some(b"v1"), 10);
        o.durable("doc", 12);
        o.set("doc", Some(b"v2"), 20);
        o.durable("doc", 25);
        o
    }

    #[test]
    fn durable_version_or_later_is_fine() {
        let o = oracle();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("doc"), b"v1").unwrap();
        assert!(o.check(dir.path(), 22).durable_lost.is_empty());
        // After v2's fsync returned, v1 is a lost update.
        assert_eq!(o.check(dir.path(), 30).durable_lost.len(), 1);
        std::fs::write(dir.path().join("doc"), b"garbage").unwrap();
        assert_eq!(o.check(dir.path(), 22).durable_lost.len(), 1);
        std::fs::remove_file(dir.path().join("doc")).unwrap();
        assert_eq!(o.check(dir.path(), 22).durable_lost.len(), 1);
        // Before anything was durable, a missing file is only in flight.
        assert_eq!(o.check(dir.path(), 11).inflight_lost.len(), 1);
    }

    #[test]
    fn logs_may_lose_their_undurable_tail_only() {
        let mut o = Oracle::default();
        o.appended("log", b"aaaa", 5);
        o.durable("log", 6);
        o.appended("log", b"aaaabbbb", 7);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        std::fs::write(&p, b"aaaab").unwrap();
        let f = o.check(dir.path(), 8);
        assert!(f.durable_lost.is_empty() && f.inflight_garbage.is_empty());
        std::fs::write(&p, b"aaaa\0\0").unwrap();
        assert_eq!(o.check(dir.path(), 8).inflight_garbage.len(), 1);
        std::fs::write(&p, b"aa").unwrap();
        assert_eq!(o.check(dir.path(), 8).durable_lost.len(), 1);
    }
}
