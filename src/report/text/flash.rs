//! `fsfit bench --list-profiles`: the flash profiles, their parameters and
//! where each comes from.

use crate::flash::Profile;
use crate::units::iec;
use std::fmt::Write;

/// What the columns of the profiles table mean.
const LEGEND: &str = "
FAMILY     au: a few allocation units open at a time (sticks, older cards);
           paged: page-mapped with a fast write cache (SSDs, A1/A2 cards)
AU, PAGE   allocation unit (erase block) and write page: a smaller write costs a whole page
OPEN       AUs open at once for linear / for out-of-order writes
Pw MB/s    write speed into an open AU (paged: into the cache)
Pm MB/s    speed of moving data when an AU is closed (paged: writing once the cache is full)
READ       read speed, MB/s; TRANSPORT: how the host talks to it
A profile is a class of device, not your stick.
";

pub fn profiles(all: &[Profile], sources: bool) -> String {
    let mut rows = vec![[
        "PROFILE",
        "FAMILY",
        "AU",
        "PAGE",
        "OPEN",
        "Pw MB/s",
        "Pm MB/s",
        "READ",
        "TRANSPORT",
    ]
    .map(String::from)
    .to_vec()];
    for p in all {
        let q = &p.params;
        rows.push(vec![
            p.name.clone(),
            format!("{:?}", p.family).to_lowercase(),
            iec(q.au_bytes),
            iec(q.page_bytes),
            format!("{}/{}", q.open_aus_linear, q.open_aus_random),
            format!("{}", q.write_mb_s),
            format!("{}", q.move_mb_s),
            format!("{}", q.read_mb_s),
            q.transport.clone(),
        ]);
    }
    let mut o = crate::report::columns(&rows, |i| i < 2 || i == 8);
    o += LEGEND;
    let ports = crate::flash::profile::ports();
    for q in &ports {
        let p = &q.params;
        let _ = writeln!(
            o,
            "PROFILE@{}: the profile {}; the host reads at most {} MB/s through it, writes {} MB/s",
            q.name, q.summary, p.bus_read_mb_s, p.bus_write_mb_s
        );
    }
    let states = crate::flash::profile::states();
    for s in &states {
        let _ = writeln!(o, "PROFILE+{}: an AU profile {}", s.name, s.summary);
    }
    if !sources {
        o.push('\n');
        for p in all {
            let _ = writeln!(o, "{}: {}", p.name, p.summary);
        }
        o += "\nWhere each figure comes from: fsfit bench --list-profiles --sources\n";
        return o;
    }
    for p in all {
        let _ = writeln!(o, "\n{}: {}", p.name, p.summary);
        for (k, v) in &p.sources {
            let _ = writeln!(o, "  {k}: {v}");
        }
    }
    for q in &ports {
        let _ = writeln!(o, "\nPROFILE@{}: the profile {}", q.name, q.summary);
        for (k, v) in &q.sources {
            let _ = writeln!(o, "  {k}: {v}");
        }
    }
    for s in &states {
        let _ = writeln!(o, "\nPROFILE+{}: an AU profile {}", s.name, s.summary);
        for (k, v) in &s.sources {
            let _ = writeln!(o, "  {k}: {v}");
        }
    }
    o
}
