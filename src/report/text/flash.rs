//! `fsfit bench --list-profiles`: the flash profiles, their parameters and
//! where each comes from.

use crate::flash::Profile;
use crate::units::iec;
use std::fmt::Write;

pub fn profiles(all: &[Profile]) -> String {
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
    let _ = writeln!(o, "\nOPEN: AUs open for linear/random writes. A profile is a class of device, not your stick.");
    for p in all {
        let _ = writeln!(o, "\n{}: {}", p.name, p.summary);
        for (k, v) in &p.sources {
            let _ = writeln!(o, "  {k}: {v}");
        }
    }
    o
}
