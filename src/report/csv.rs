//! CSV: one row per config, a header first, RFC 4180 quoting.

use crate::usage::{problems::Problem, UsageReport};

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// How usage's CSV begins (also how an existing file is known as one).
pub const USAGE_HEADER: &str = "fs,cluster_bytes,default_cluster,volume_bytes,free_bytes,apparent_bytes,tree_bytes,data_bytes,slack_bytes,metadata_bytes,overhead_pct,fits,exact";

pub fn usage(r: &UsageReport) -> String {
    let mut out = String::from(USAGE_HEADER);
    for p in Problem::ALL {
        out.push(',');
        out.push_str(p.key());
    }
    out.push_str(",cannot_store_bytes,overhead_note\n");
    for c in &r.configs {
        let note = crate::usage::no_percentage(
            r.tree.apparent_bytes,
            c.cannot_store_bytes,
            c.overhead_pct,
        );
        let pct = note.is_none().then_some(c.overhead_pct);
        let row = [
            field(&c.fs),
            c.cluster_bytes.to_string(),
            c.default_cluster.to_string(),
            r.volume_bytes.to_string(),
            c.free_bytes.to_string(),
            r.tree.apparent_bytes.to_string(),
            c.tree_bytes.to_string(),
            c.data_bytes.to_string(),
            c.slack_bytes.to_string(),
            c.metadata_bytes.to_string(),
            // Empty where a percentage means nothing; overhead_note says why.
            pct.map(|p| format!("{p:.2}")).unwrap_or_default(),
            c.fits.to_string(),
            c.exact.to_string(),
        ];
        out.push_str(&row.join(","));
        for p in Problem::ALL {
            out.push(',');
            out.push_str(&c.problems.get(p).to_string());
        }
        out.push_str(&format!(
            ",{},{}\n",
            c.cannot_store_bytes,
            note.map(|n| n.key()).unwrap_or_default()
        ));
    }
    out
}
