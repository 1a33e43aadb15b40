//! `fsfit probe DEV|IMAGE`: the flash geometry found by reading only.

use crate::cli::ProbeArgs;
use crate::flash::probe::{self, Options, Report};
use crate::units::iec;
use crate::Result;

pub fn run(a: &ProbeArgs, quiet: bool) -> Result<()> {
    let opts = Options {
        read_bytes: a.read_size,
        tries: a.tries.max(1),
        progress: !quiet,
    };
    let mut json = a.json.clone();
    let target = super::target_or_old_spelling(&a.target, &mut json, "DEV or IMAGE")?;
    super::output_folders_exist([&json])?;
    let r = probe::probe(&target, opts)?;
    if let Some(dest) = &json {
        let text = serde_json::to_string_pretty(&r)
            .map_err(|e| crate::Error::work(format!("cannot write JSON: {e}")))?;
        super::emit(dest, &(text + "\n"))?;
        if super::is_stdout(dest) {
            return Ok(());
        }
    }
    super::print_text(&text(&r))
}

fn found(n: u64) -> String {
    if n == 0 {
        "not found".into()
    } else {
        iec(n)
    }
}

/// The report as a person reads it: the estimate first, then the timings.
pub fn text(r: &Report) -> String {
    let mut out = format!(
        "{} ({}), read only, {} B reads\n\
         allocation unit: {}   page: {}   confidence: {}\n",
        r.device,
        iec(r.size_bytes),
        r.read_bytes,
        found(r.au_bytes),
        found(r.page_bytes),
        r.confidence
    );
    if !r.closest_profile.is_empty() {
        out += &format!(
            "closest flash profile: {} (a class of device, not your stick)\n",
            r.closest_profile
        );
    }
    for why in &r.reasons {
        out += &format!("  - {why}\n");
    }
    if !r.sysfs.is_empty() {
        let kv: Vec<String> = r.sysfs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        out += &format!("sysfs: {}\n", kv.join(" "));
    }
    if !probe::measurable(&r.evidence) {
        out += "\nevery read took under 0.5 µs (served from memory): no timings to show\n";
        return out;
    }
    // Whole µs; + 0.0 turns a rounded -0 into 0.
    let us = |x: f64| x.round() + 0.0;
    if r.evidence.iter().all(|row| us(row.diff_us) == 0.0) {
        let most = r.evidence.iter().map(|row| row.on_us).fold(0.0, f64::max);
        out += &format!(
            "\nevery read took at most {} µs, none slower across a boundary: no timings to \
             show (the JSON has them)\n",
            us(most).max(1.0)
        );
        return out;
    }
    out += &format!(
        "\n{:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "boundary", "before µs", "across µs", "after µs", "diff µs"
    );
    for row in r.evidence.iter().rev() {
        out += &format!(
            "{:>10} {:>10} {:>10} {:>10} {:>10}\n",
            crate::units::short(row.align_bytes),
            us(row.pre_us),
            us(row.on_us),
            us(row.post_us),
            us(row.diff_us)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::probe::Row;

    fn report(us: f64) -> Report {
        let row = |a| Row {
            align_bytes: a,
            pre_us: us,
            on_us: us,
            post_us: us,
            diff_us: 0.0,
        };
        Report {
            schema: "fsfit.probe/1",
            device: "card.img".into(),
            size_bytes: 256 << 20,
            au_bytes: 0,
            page_bytes: 0,
            confidence: "none",
            sysfs: Default::default(),
            closest_profile: String::new(),
            evidence: (11..26).map(|k| row(1u64 << k)).collect(),
            read_bytes: 1024,
            reasons: vec![],
        }
    }

    #[test]
    fn reads_too_fast_to_time_give_one_line_not_rows_of_zeros() {
        let t = text(&report(0.2));
        assert!(t.contains("under 0.5 µs"), "{t}");
        assert!(!t.contains("boundary"), "{t}");
        assert_eq!(t.lines().filter(|l| l.ends_with(" 0")).count(), 0, "{t}");
        // Timed, but no boundary slower than its neighbours: one line too.
        let t = text(&report(3.0));
        assert!(!t.contains("under 0.5 µs"), "{t}");
        assert!(t.contains("at most 3 µs, none slower"), "{t}");
        assert!(!t.contains("boundary "), "{t}");
        // One boundary slower: the rows show where.
        let mut r = report(3.0);
        r.evidence[5].on_us = 40.0;
        r.evidence[5].diff_us = 37.0;
        let t = text(&r);
        assert!(t.contains("boundary"), "{t}");
        assert_eq!(t.lines().filter(|l| l.ends_with(" 0")).count(), 14, "{t}");
    }
}
