//! `bench --flash` in the HTML report: one panel per flash profile with the
//! simulated figures of every config and workload, labelled simulated.

use super::Out;
use crate::bench::kinds::{unit_of, Unit};
use crate::bench::results::BenchReport;
use crate::report::charts::figures::find;
use crate::report::charts::{esc, num};
use std::fmt::Write;

fn panel(r: &BenchReport, profile: &str) -> String {
    super::bench::workload_grid(r, |c, n| {
        let sim = find(c, n).and_then(|w| w.simulated.iter().find(|x| x.profile == profile));
        let Some(x) = sim else {
            return "–".to_string();
        };
        let v = match unit_of(n) {
            Unit::MbPerS => format!("{} MB/s", num(x.mb_per_s)),
            Unit::FilesPerS => format!("{} f/s", num(x.files_per_s)),
        };
        let wa = if x.flash_write_amplification > 0.0 {
            format!(", WA {}×", num(x.flash_write_amplification))
        } else {
            String::new()
        };
        format!(
            "{v}<br><small>device {} s{wa}, {} AU copies</small>",
            num(x.device_seconds),
            x.au_copies
        )
    })
}

/// A panel per profile, when the run had `--flash`.
pub(super) fn flash_panels(o: &mut Out, r: &BenchReport) {
    let Some(f) = &r.sim.flash else {
        return;
    };
    for p in &f.profiles {
        let _ = writeln!(
            o.html,
            "<h3>Simulated on {}</h3>\n<p class=\"note\">Simulated, not measured: each run's block trace ({}) replayed through flash profile {} (a class of device, not your stick; each parameter's public source: <code>fsfit bench --list-profiles</code>), volume at {} bytes into the flash. WA: bytes the flash wrote over bytes the host wrote.</p>",
            esc(p),
            esc(r.sim.trace.as_deref().unwrap_or("")),
            esc(p),
            r.sim.partition_offset_bytes.unwrap_or(0)
        );
        o.push(&panel(r, p));
    }
}
