//! The human table: the tree, then every config sorted by size on disk, then
//! the compatibility findings.

use crate::units::{iec, short};
use crate::usage::{problems, UsageReport};
use std::fmt::Write;

pub(crate) use crate::units::thousands;

pub fn usage(r: &UsageReport) -> String {
    let mut o = header(r);
    configs(&mut o, r);
    refused(&mut o, r);
    top(&mut o, r);
    findings(&mut o, r);
    o
}

/// `--matrix`: overhead in a row per filesystem and a column per cluster
/// size ("-": not planned or not possible), then what the table would add.
pub fn matrix(r: &UsageReport) -> String {
    let mut o = header(r);
    let mut fss: Vec<&str> = Vec::new();
    let mut clusters: Vec<u64> = Vec::new();
    for c in &r.configs {
        if !fss.contains(&c.fs.as_str()) {
            fss.push(&c.fs);
        }
        if !clusters.contains(&c.cluster_bytes) {
            clusters.push(c.cluster_bytes);
        }
    }
    clusters.sort_unstable();
    let mut cells = vec![std::iter::once("OVERHEAD".to_string())
        .chain(clusters.iter().map(|&c| short(c)))
        .collect::<Vec<_>>()];
    for f in fss {
        let mut row = vec![f.to_string()];
        for &cl in &clusters {
            row.push(
                match r
                    .configs
                    .iter()
                    .find(|c| c.fs == f && c.cluster_bytes == cl)
                {
                    Some(c) => match overhead_cell(&r.tree, c, 1) {
                        Ok(p) if c.fits => p,
                        Ok(p) => format!("{p}!"),
                        Err(_) => "—".to_string(),
                    },
                    None => "-".to_string(),
                },
            );
        }
        cells.push(row);
    }
    o.push_str(&crate::report::column_pages(
        &cells,
        |i| i == 0,
        super::WIDTH,
    ));
    let _ = writeln!(
        o,
        "\n! does not fit (or cannot be mounted)   - not planned or not possible at this size\n\
         — no percentage: under 64 KiB to store, or less on disk than the data (sparse files)"
    );
    refused(&mut o, r);
    top(&mut o, r);
    findings(&mut o, r);
    o
}

/// `--top N`: the folders that waste the most, whole paths cut to fit.
fn top(o: &mut String, r: &UsageReport) {
    let Some(c) = r.configs.first().filter(|_| !r.top.is_empty()) else {
        return;
    };
    let _ = writeln!(
        o,
        "\nFolders that waste the most at {}:{} (slack and metadata, with everything below them):",
        c.fs,
        short(c.cluster_bytes)
    );
    for t in &r.top {
        let name = if t.path.is_empty() {
            "(the root)"
        } else {
            t.path.as_str()
        };
        let line = format!(
            "  {:>10} wasted of {:>10} in {:>7}  ",
            iec(t.wasted_bytes),
            iec(t.apparent_bytes),
            super::count(t.files, "file"),
        );
        let room = super::WIDTH.saturating_sub(line.chars().count());
        let _ = writeln!(o, "{line}{}", shorten(&shown_name(name), room));
    }
}

/// That part of the tree could not be read, and where the warnings went:
/// stderr, which with stdout redirected is not "above", so it is said.
pub fn unread(t: &crate::scan::TreeCounts) -> Option<String> {
    (t.errors > 0).then(|| {
        format!(
            "{} could not be read: the warnings are on stderr, one line each",
            super::count_as(t.errors, "entry", "entries")
        )
    })
}

/// The tree and the volume.
fn header(r: &UsageReport) -> String {
    let mut o = String::new();
    let t = &r.tree;
    let _ = writeln!(
        o,
        "Tree: {} — {}, {}, {}, {} other; {} apparent",
        r.paths.join(", "),
        super::count(t.files, "file"),
        super::count(t.dirs, "folder"),
        super::count(t.symlinks, "symlink"),
        thousands(t.other),
        crate::units::iec_exact(t.apparent_bytes)
    );
    if let Some(note) = crate::usage::sparse_note(t) {
        let _ = writeln!(o, "      {note}");
    }
    if let Some(unread) = unread(t) {
        let _ = writeln!(o, "      {unread}");
    }
    if r.skipped_mounts > 0 {
        let _ = writeln!(
            o,
            "      {} not entered (--cross-mounts enters them)",
            super::count_as(r.skipped_mounts, "mount point", "mount points")
        );
    }
    if t.files == 0 && t.dirs == 0 && t.symlinks == 0 && t.other == 0 {
        let _ = writeln!(
            o,
            "      the tree is empty: nothing to store, every figure is 0"
        );
    }
    let _ = writeln!(
        o,
        "Volume: {}, freshly made by the Linux mkfs tool{}\n",
        crate::units::iec_exact(r.volume_bytes),
        if r.volume_assumed {
            format!(
                "\n      {}",
                crate::usage::assumed_volume_note(r.volume_bytes)
            )
        } else {
            String::new()
        }
    );

    o
}

/// One row per config, smallest size on disk first.
fn configs(o: &mut String, r: &UsageReport) {
    let t = &r.tree;
    let mut rows: Vec<_> = r.configs.iter().collect();
    rows.sort_by_key(|c| (c.tree_bytes, c.fs.clone(), c.cluster_bytes));
    let header = [
        "FILESYSTEM",
        "CLUSTER",
        "APPARENT",
        "ON DISK",
        "SLACK",
        "METADATA",
        "OVERHEAD",
        "FREE",
        "FITS",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    let mut dashes: Vec<&str> = Vec::new();
    for c in &rows {
        let mark = match (c.default_cluster, c.exact) {
            (true, true) => "*",
            (true, false) => "*~",
            (false, true) => "",
            (false, false) => "~",
        };
        let fits = if c.fits {
            "yes".to_string()
        } else if c.unmountable.is_some() {
            "no: cannot be mounted on x86".to_string()
        } else if c.problems.too_large > 0 {
            "no: file too large".to_string()
        } else {
            "no".to_string()
        };
        cells.push(vec![
            c.fs.clone(),
            format!("{}{mark}", short(c.cluster_bytes)),
            iec(t.apparent_bytes - c.cannot_store_bytes.min(t.apparent_bytes)),
            iec(c.tree_bytes),
            iec(c.slack_bytes),
            iec(c.metadata_bytes),
            overhead_cell(t, c, 2).unwrap_or_else(|why| {
                if !dashes.contains(&why) {
                    dashes.push(why);
                }
                "—".to_string()
            }),
            iec(c.free_bytes),
            fits,
        ]);
    }
    let last = header.len() - 1;
    o.push_str(&crate::report::columns(&cells, |i| i < 2 || i == last));
    for why in dashes {
        let _ = writeln!(o, "— {why}");
    }
    let _ = writeln!(
        o,
        "\n* the cluster mkfs picks by default   ~ modelled, not checked against real volumes"
    );
    // Which driver the figures are for (the JSON's `driver` per config):
    // one line, each filesystem once, in the table's order.
    let mut drivers: Vec<String> = Vec::new();
    for c in &rows {
        let d = format!("{} {}", c.fs, c.driver);
        if !c.driver.is_empty() && !drivers.contains(&d) {
            drivers.push(d);
        }
    }
    if !drivers.is_empty() {
        let _ = writeln!(o, "Drivers modelled: {}", drivers.join(", "));
    }
    notes_under_the_table(o, &rows);
    free_space_note(o, &rows);
}

/// What the table's FITS and APPARENT columns stand for, config by config:
/// blocks x86 cannot mount, files a filesystem cannot store.
fn notes_under_the_table(o: &mut String, rows: &[&crate::usage::ConfigReport]) {
    for c in rows.iter().filter(|c| c.unmountable.is_some()) {
        let why = c.unmountable.as_deref().unwrap_or_default();
        let _ = writeln!(o, "{}:{}: {why}", c.fs, short(c.cluster_bytes));
    }
    // Files over a filesystem's size limit: left out of its figures.
    let mut apart: Vec<(String, u64, u64)> = Vec::new();
    for c in rows {
        if c.cannot_store_bytes > 0 && !apart.iter().any(|(f, _, _)| *f == c.fs) {
            apart.push((c.fs.clone(), c.problems.too_large, c.cannot_store_bytes));
        }
    }
    for (fs, n, bytes) in apart {
        let _ = writeln!(
            o,
            "{fs}: {} ({}) over its size limit cannot be stored: left out of its figures",
            super::count(n, "file"),
            iec(bytes)
        );
    }
}

/// Which free space `free` and `fits` count; the part on blocks kept back
/// for root only where a filesystem shown has them (its mkfs takes `-m`).
fn free_space_note(o: &mut String, rows: &[&crate::usage::ConfigReport]) {
    let _ = write!(
        o,
        "Free space: statvfs f_bfree, every free block of the fresh volume"
    );
    let mut kept_none: Vec<String> = Vec::new();
    for c in rows {
        let argv = crate::fs::by_name(&c.fs).and_then(|f| f.mkfs(c.cluster_bytes));
        let Some(argv) = argv.filter(|a| a.windows(2).any(|w| w[0] == "-m" && w[1] == "0")) else {
            continue;
        };
        let what = format!("{} ({} -m 0: nothing kept back for root)", c.fs, argv[0]);
        if !kept_none.contains(&what) {
            kept_none.push(what);
        }
    }
    if !kept_none.is_empty() {
        let _ = write!(
            o,
            "; a user's copy can fill all of it as fsfit formats {}",
            kept_none.join(", ")
        );
    }
    o.push('\n');
}

/// Refused configs, one line per filesystem when none of its sizes works.
fn refused(o: &mut String, r: &UsageReport) {
    let mut fss: Vec<&str> = r.refused.iter().map(|rf| rf.fs.as_str()).collect();
    fss.dedup();
    for f in fss {
        let mine: Vec<_> = r.refused.iter().filter(|rf| rf.fs == f).collect();
        if !r.configs.iter().any(|c| c.fs == f) && mine.len() > 1 {
            let last = mine.last().unwrap();
            let _ = writeln!(
                o,
                "not possible: {f} at any cluster from {} to {}: {}",
                short(mine[0].cluster_bytes),
                short(last.cluster_bytes),
                last.reason
            );
        } else {
            for rf in mine {
                let _ = writeln!(
                    o,
                    "not possible: {}:{}: {}",
                    rf.fs,
                    short(rf.cluster_bytes),
                    rf.reason
                );
            }
        }
    }
}

/// Findings: one line per kind and count, naming every filesystem it
/// applies to (the examples are the same paths for each).
fn findings(o: &mut String, r: &UsageReport) {
    let mut firsts: Vec<&crate::usage::ConfigReport> = Vec::new();
    for c in &r.configs {
        if !firsts.iter().any(|f| f.fs == c.fs) {
            firsts.push(c);
        }
    }
    let mut any = false;
    for k in problems::Problem::ALL {
        type Group<'a> = (u64, String, Vec<&'a str>, &'a crate::usage::ConfigReport);
        let mut counts: Vec<Group> = Vec::new();
        for c in &firsts {
            let n = c.problems.get(k);
            if n == 0 {
                continue;
            }
            let what = k.describe_on(&c.fs);
            match counts.iter_mut().find(|(m, w, _, _)| *m == n && *w == what) {
                Some(g) => g.2.push(&c.fs),
                None => counts.push((n, what, vec![&c.fs], c)),
            }
        }
        for (n, what, names, c) in counts {
            if !any {
                let _ = writeln!(o, "\nCompatibility:");
                any = true;
            }
            let _ = writeln!(o, "  {}: {what}: {}", names.join(", "), thousands(n));
            let examples = c.problem_examples.get(k.key());
            for p in examples.into_iter().flatten() {
                let room = super::WIDTH - 6;
                let _ = writeln!(o, "      {}", shorten(&shown_name(p), room));
            }
            let shown = examples.map_or(0, |e| e.len() as u64);
            if shown > 0 && n > shown {
                let _ = writeln!(o, "      … {} more", thousands(n - shown));
            }
        }
    }
    if !any {
        let _ = writeln!(
            o,
            "\nCompatibility: no problems found for these filesystems."
        );
    }
}

/// The overhead as the text prints it, or why a percentage would mean
/// nothing there (decided by usage::overhead_shown).
fn overhead_cell(
    t: &crate::scan::TreeCounts,
    c: &crate::usage::ConfigReport,
    digits: usize,
) -> Result<String, &'static str> {
    crate::usage::overhead_shown(t, c).map(|p| format!("{p:+.digits$} %"))
}

/// A name or path as the terminal shows it: control characters escaped,
/// and in double quotes when it starts or ends with a space (`"sp "`),
/// which would otherwise not show.
fn shown_name(p: &str) -> String {
    let e = p.escape_debug().to_string();
    if e.starts_with(char::is_whitespace) || e.ends_with(char::is_whitespace) {
        format!("\"{e}\"")
    } else {
        e
    }
}

/// A path cut in the middle to at most `max` terminal columns
/// (`a/b/…/y/z.txt`; a CJK character takes two); the JSON keeps it whole.
pub fn shorten(p: &str, max: usize) -> String {
    shorten_with_head(p, max, 2)
}

/// [`shorten`] with at most a `1/head_of` share of the columns before the
/// cut and the rest after it (3: the end of a path, the file's name, kept
/// whole where it fits).
pub fn shorten_with_head(p: &str, max: usize, head_of: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let w = |c: char| c.width().unwrap_or(0);
    if unicode_width::UnicodeWidthStr::width(p) <= max {
        return p.to_string();
    }
    let keep = max.saturating_sub(1);
    let (mut head, mut used) = (String::new(), 0);
    for c in p.chars() {
        if used + w(c) > keep / head_of {
            break;
        }
        used += w(c);
        head.push(c);
    }
    let mut tail: Vec<char> = Vec::new();
    for c in p.chars().rev() {
        if used + w(c) > keep {
            break;
        }
        used += w(c);
        tail.push(c);
    }
    format!("{head}…{}", tail.iter().rev().collect::<String>())
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_paths_are_cut_in_the_middle() {
        let p = format!("top/{}/end.txt", "x".repeat(4000));
        let s = super::shorten(&p, 100);
        assert_eq!(s.chars().count(), 100);
        assert!(s.starts_with("top/") && s.ends_with("/end.txt") && s.contains('…'));
        assert_eq!(super::shorten("a/b", 100), "a/b");
        // Columns, not characters: each CJK character takes two.
        let cjk = format!("photos/{}/日本語.jpg", "日本".repeat(60));
        let s = super::shorten(&cjk, 94);
        assert!(
            unicode_width::UnicodeWidthStr::width(s.as_str()) <= 94,
            "{s}"
        );
        assert!(s.ends_with("日本語.jpg"), "{s}");
        assert_eq!(super::shown_name("sp "), "\"sp \"");
        assert_eq!(super::shown_name("a\nb"), "a\\nb");
    }
}
