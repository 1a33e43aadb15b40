//! The human table: the tree, then every config sorted by size on disk, then
//! the compatibility findings.

use crate::units::{iec, short};
use crate::usage::{problems, UsageReport};
use std::fmt::Write;

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn usage(r: &UsageReport) -> String {
    let mut o = header(r);
    configs(&mut o, r);
    refused(&mut o, r);
    findings(&mut o, r);
    o
}

/// The tree and the volume.
fn header(r: &UsageReport) -> String {
    let mut o = String::new();
    let t = &r.tree;
    let _ = writeln!(
        o,
        "Tree: {} — {} files, {} folders, {} symlinks, {} other; {} apparent ({} bytes)",
        r.paths.join(", "),
        thousands(t.files),
        thousands(t.dirs),
        thousands(t.symlinks),
        thousands(t.other),
        iec(t.apparent_bytes),
        thousands(t.apparent_bytes)
    );
    if t.errors > 0 {
        let _ = writeln!(
            o,
            "      {} entries could not be read (see the warnings above)",
            t.errors
        );
    }
    if r.skipped_mounts > 0 {
        let _ = writeln!(
            o,
            "      {} mount points not entered (--cross-mounts enters them)",
            r.skipped_mounts
        );
    }
    let _ = writeln!(
        o,
        "Volume: {} ({} bytes), freshly made by the Linux mkfs tool\n",
        iec(r.volume_bytes),
        thousands(r.volume_bytes)
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
    for c in &rows {
        let mark = match (c.default_cluster, c.exact) {
            (true, true) => "*",
            (true, false) => "*~",
            (false, true) => "",
            (false, false) => "~",
        };
        let fits = if c.fits {
            "yes".to_string()
        } else if c.problems.too_large > 0 {
            "no: file too large".to_string()
        } else {
            "no".to_string()
        };
        cells.push(vec![
            c.fs.clone(),
            format!("{}{mark}", short(c.cluster_bytes)),
            iec(t.apparent_bytes),
            iec(c.tree_bytes),
            iec(c.slack_bytes),
            iec(c.metadata_bytes),
            format!("{:+.2} %", c.overhead_pct),
            iec(c.free_bytes),
            fits,
        ]);
    }
    let last = header.len() - 1;
    o.push_str(&crate::report::columns(&cells, |i| i < 2 || i == last));
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
    free_space_note(o);
}

/// Which free space `free` and `fits` count.
fn free_space_note(o: &mut String) {
    let _ = writeln!(
        o,
        "Free space: statvfs f_bfree, every free block of the fresh volume; a user's copy \
         can fill all of it as fsfit formats ext4 (mkfs.ext4 -m 0: nothing kept back for root)"
    );
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
        let mut counts: Vec<(u64, Vec<&str>, &crate::usage::ConfigReport)> = Vec::new();
        for c in &firsts {
            let n = c.problems.get(k);
            if n == 0 {
                continue;
            }
            match counts.iter_mut().find(|(m, _, _)| *m == n) {
                Some(g) => g.1.push(&c.fs),
                None => counts.push((n, vec![&c.fs], c)),
            }
        }
        for (n, names, c) in counts {
            if !any {
                let _ = writeln!(o, "\nCompatibility:");
                any = true;
            }
            let _ = writeln!(
                o,
                "  {}: {} {}",
                names.join(", "),
                thousands(n),
                k.describe()
            );
            for p in c.problem_examples.get(k.key()).into_iter().flatten() {
                let _ = writeln!(o, "      {}", p.escape_debug());
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
