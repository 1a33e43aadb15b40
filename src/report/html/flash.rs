//! `bench --flash` in the HTML report: what each flash profile's panels
//! are, and the model's own counts (device time, write amplification, AU
//! copies); the simulated figures are charted as the host's (bench.rs).

use super::Out;
use crate::bench::kinds::{unit_of, Unit};
use crate::bench::relative::{SimKey, Source};
use crate::bench::results::BenchReport;
use crate::report::charts::figures::find;
use crate::report::charts::{esc, num};
use std::fmt::Write;

fn panel(r: &BenchReport, key: &SimKey) -> String {
    let src = Source::Sim(key.clone());
    super::bench::workload_grid(r, |c, n| {
        let Some(x) = find(c, n).and_then(|w| src.sim(w)) else {
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

/// What a profile's panels are: simulated, not measured, and how.
pub(super) fn intro(o: &mut Out, r: &BenchReport, key: &SimKey) {
    let _ = writeln!(
        o.html,
        "<h3>Simulated on {}</h3>\n<p class=\"note\">Simulated, not measured: each run's block trace ({}) replayed through flash profile {} (a class of device, not your stick; each parameter's public source: <code>fsfit bench --list-profiles</code>), volume at {} bytes into the flash{}{}. The host's own figures on this machine follow the simulated ones.</p>",
        esc(&key.label()),
        esc(r.sim.trace.as_deref().unwrap_or("")),
        esc(&key.profile),
        key.offset_in(r).unwrap_or(0),
        key.alignment(r)
            .map_or(String::new(), |a| format!(": {}", esc(&a.said()))),
        key.state_said()
            .map_or(String::new(), |s| format!("; {}", esc(&s)))
    );
}

/// The model's own counts on a profile: device time, write amplification
/// and AU copies per config and workload.
pub(super) fn device_panel(o: &mut Out, r: &BenchReport, key: &SimKey) {
    let _ = writeln!(
        o.html,
        "<h3>Simulated on {}: device time, write amplification, AU copies</h3>\n<p class=\"note\">WA: bytes the flash wrote over bytes the host wrote.</p>",
        esc(&key.label())
    );
    o.push(&panel(r, key));
}
