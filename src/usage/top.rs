//! `fsfit usage --top N`: the folders that waste the most at one config
//! (slack and metadata, each folder with everything below it), as ncdu and
//! dust show the largest ones.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One folder and what it wastes at the config, its subfolders included.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopFolder {
    /// Relative to the volume's root ("" is the root).
    pub path: String,
    pub wasted_bytes: u64,
    pub apparent_bytes: u64,
    pub files: u64,
}

/// What one folder itself (not its subfolders) holds and wastes.
#[derive(Clone, Debug, Default)]
pub struct Own {
    pub wasted: u64,
    pub apparent: u64,
    pub files: u64,
}

/// Sum each folder's own figures into it and every folder above it, then
/// keep the `n` that waste the most. Folders that are the only child of
/// their parent and waste as much are left out for their parent (the same
/// bytes twice say nothing).
pub fn top(own: Vec<(PathBuf, Own)>, n: usize) -> Vec<TopFolder> {
    let mut total: HashMap<PathBuf, Own> = HashMap::with_capacity(own.len());
    for (path, o) in own {
        let mut p: Option<&Path> = Some(&path);
        while let Some(dir) = p {
            let t = total.entry(dir.to_path_buf()).or_default();
            t.wasted += o.wasted;
            t.apparent += o.apparent;
            t.files += o.files;
            p = dir.parent();
        }
    }
    let mut rows: Vec<TopFolder> = total
        .into_iter()
        .map(|(p, o)| TopFolder {
            path: p.to_string_lossy().into_owned(),
            wasted_bytes: o.wasted,
            apparent_bytes: o.apparent,
            files: o.files,
        })
        .collect();
    // Most waste first; a parent before a child that wastes as much.
    rows.sort_by(|a, b| {
        b.wasted_bytes
            .cmp(&a.wasted_bytes)
            .then(a.path.len().cmp(&b.path.len()))
            .then(a.path.cmp(&b.path))
    });
    let mut kept: Vec<TopFolder> = Vec::new();
    for r in rows {
        let same_as_parent = kept.iter().any(|k| {
            k.wasted_bytes == r.wasted_bytes
                && Path::new(&r.path).parent() == Some(Path::new(&k.path))
        });
        if !same_as_parent {
            kept.push(r);
        }
        if kept.len() == n {
            break;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(p: &str, wasted: u64) -> (PathBuf, Own) {
        (
            PathBuf::from(p),
            Own {
                wasted,
                apparent: 10,
                files: 1,
            },
        )
    }

    #[test]
    fn folders_add_up_to_their_parents() {
        let t = top(
            vec![own("", 1), own("a", 10), own("a/b", 100), own("c", 50)],
            3,
        );
        let got: Vec<(&str, u64)> = t
            .iter()
            .map(|r| (r.path.as_str(), r.wasted_bytes))
            .collect();
        assert_eq!(got, [("", 161), ("a", 110), ("a/b", 100)]);
        assert_eq!(t[0].files, 4);
    }
}
