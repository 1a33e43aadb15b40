//! Flash profiles: named classes of device (not a particular stick), read
//! from `profiles.json`, embedded in the binary. Every parameter carries
//! the public measurement it comes from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{au::AuDevice, paged::PagedDevice, Device};
use crate::error::{Error, Result};

const DATA: &str = include_str!("profiles.json");

/// The model family a profile runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Allocation units with a few open at a time (sticks, older cards):
    /// Bergmann's model and the SD specification's P(N_u).
    Au,
    /// Page-mapped with a fast write cache (SSDs, A1/A2 cards).
    Paged,
}

/// The named parameters of a profile. Sizes in bytes, speeds in decimal
/// MB/s, times in microseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Allocation unit (erase block group the card maps as one).
    pub au_bytes: u64,
    /// Effective write page: a smaller write costs a whole page.
    pub page_bytes: u64,
    /// AUs that can be open at once for linear (in-order) writes.
    pub open_aus_linear: u32,
    /// Of those, how many may take out-of-order writes.
    pub open_aus_random: u32,
    /// From the device's start: the FAT area where small random writes are cheap.
    pub fat_area_bytes: u64,
    /// Pw: write speed into an open AU / the cache.
    pub write_mb_s: f64,
    /// Pm: move (copy, garbage collection) speed; for the paged family the
    /// sustained write speed once the cache is full.
    pub move_mb_s: f64,
    /// Cost of a write going to a different open AU than the one before.
    pub au_switch_us: f64,
    pub read_mb_s: f64,
    /// Added to a read that does not continue the previous one.
    pub read_latency_us: f64,
    /// Added to a write that does not continue the previous one (paged family).
    pub write_latency_us: f64,
    /// Transport cost of every command (USB 2 bulk-only, UAS).
    pub command_overhead_us: f64,
    /// Largest transfer the host sends in one command (its max_sectors_kb).
    pub max_transfer_bytes: u64,
    /// Whether the host sends cache flushes to this class of device.
    pub host_flushes: bool,
    pub flush_us: f64,
    /// Fast write cache (SLC area) of the paged family.
    pub cache_bytes: u64,
    /// `usb2-bot`, `usb3-uas`, ...
    pub transport: String,
    /// The port's ceiling on what crosses it, when a port slower than the
    /// device is named (`PROFILE@PORT`): the device's own figures were
    /// measured through its own transport, so a profile has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_read_mb_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_write_mb_s: Option<f64>,
    /// No page holds data before the run (`PROFILE+new`): closing an AU
    /// copies only what the run itself wrote there. Unset, every AU holds
    /// old data, as on a device written over before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_device: bool,
}

/// One profile: name, family, parameters and their sources.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    pub family: Family,
    pub summary: String,
    /// An SD card (behind a reader or in a slot): a drive to lay out on
    /// its boundary unit, as the SD specification does.
    #[serde(default)]
    pub sd_card: bool,
    pub params: Params,
    /// Parameter name -> the public measurement it comes from.
    pub sources: BTreeMap<String, String>,
    /// The port this device is put behind (`NAME@PORT`); None in the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The state it starts in (`NAME+STATE`); None in the data: a device
    /// written over before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// What a port imposes on a device plugged into it: the transport's
/// ceilings, never its speed-ups (a USB 2 stick in a USB 3 port stays USB 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortParams {
    pub bus_read_mb_s: f64,
    pub bus_write_mb_s: f64,
    pub command_overhead_us: f64,
    pub max_transfer_bytes: u64,
    pub transport: String,
}

/// A port a device may sit behind (`--flash usb3-stick@usb2`): a USB 3
/// stick in a USB 2 port is what many people measure, and its speeds are
/// the port's, not the stick's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Port {
    pub name: String,
    pub summary: String,
    pub params: PortParams,
    pub sources: BTreeMap<String, String>,
}

impl Port {
    /// `p` behind this port, named `p@port`: each transport figure the
    /// worse of the device's and the port's, the sources of the ones the
    /// port set replaced by the port's. The flash inside (pages, AUs,
    /// copies, merges) is the device's.
    pub fn apply(&self, p: &Profile) -> Profile {
        let (mut out, q) = (p.clone(), &self.params);
        let o = &mut out.params;
        let worse = |own: Option<f64>, port: f64| Some(own.map_or(port, |v| v.min(port)));
        o.bus_read_mb_s = worse(o.bus_read_mb_s, q.bus_read_mb_s);
        o.bus_write_mb_s = worse(o.bus_write_mb_s, q.bus_write_mb_s);
        o.command_overhead_us = o.command_overhead_us.max(q.command_overhead_us);
        o.max_transfer_bytes = o.max_transfer_bytes.min(q.max_transfer_bytes);
        o.transport = q.transport.clone();
        out.name = format!("{}@{}", p.name, self.name);
        out.port = Some(self.name.clone());
        out.summary = format!("{}, {}", p.summary, self.summary);
        credit(&mut out, &self.sources, &format!("{} port", self.name));
        out
    }
}

/// Give `out` the sources of the figures a port or a state set, each
/// under `who` ("usb2 port", "new state"), replacing the profile's own.
fn credit(out: &mut Profile, sources: &BTreeMap<String, String>, who: &str) {
    for (k, v) in sources {
        out.sources.insert(k.clone(), format!("{who}: {v}"));
    }
}

/// A state a device may start in (`--flash usb2-stick+new`): the profiles
/// describe a device written over before, where every AU it closes holds
/// old data to copy; a new one holds none.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub name: String,
    pub summary: String,
    pub sources: BTreeMap<String, String>,
}

impl State {
    /// `p` starting in this state, named `p+state`. Only the AU family
    /// copies what an AU held before; a page-mapped profile's figures would
    /// not change, so it is refused rather than named twice.
    pub fn apply(&self, p: &Profile) -> Result<Profile> {
        if p.family != Family::Au {
            return Err(Error::input(format!(
                "--flash {}+{}: a page-mapped profile copies no AUs, so its state changes nothing",
                p.name, self.name
            )));
        }
        let mut out = p.clone();
        out.params.new_device = true;
        out.name = format!("{}+{}", p.name, self.name);
        out.state = Some(self.name.clone());
        // What the state means is said beside each figure (`state_said`);
        // the summary only names it.
        out.summary = format!("{}, started {}", p.summary, self.name);
        credit(&mut out, &self.sources, &format!("{} state", self.name));
        Ok(out)
    }
}

#[derive(Deserialize)]
struct File {
    profiles: Vec<Profile>,
    ports: Vec<Port>,
    states: Vec<State>,
}

fn file() -> File {
    serde_json::from_str(DATA).expect("src/flash/profiles.json is checked by a test")
}

/// Every profile, in the data file's order.
pub fn profiles() -> Vec<Profile> {
    file().profiles
}

/// Every port a profile may be put behind (`PROFILE@PORT`).
pub fn ports() -> Vec<Port> {
    file().ports
}

/// Every state a profile of the AU family may start in (`PROFILE+STATE`).
pub fn states() -> Vec<State> {
    file().states
}

/// Every profile `--flash` takes: each profile, then each behind each
/// port, then each of those of the AU family in each state, as the
/// simulation would run it.
pub fn every() -> Vec<Profile> {
    let File {
        profiles,
        ports,
        states,
    } = file();
    let behind: Vec<Profile> = ports
        .iter()
        .flat_map(|q| profiles.iter().map(move |p| q.apply(p)))
        .collect();
    let placed: Vec<Profile> = profiles.into_iter().chain(behind).collect();
    let started: Vec<Profile> = states
        .iter()
        .flat_map(|s| placed.iter().filter_map(move |p| s.apply(p).ok()))
        .collect();
    placed.into_iter().chain(started).collect()
}

/// Every name `--flash` takes, in the order of [`every`].
pub fn names() -> Vec<String> {
    every().into_iter().map(|p| p.name).collect()
}

/// The one of `items` named `name`, or an input error saying what was
/// asked (`what`) and listing the names there are.
fn named<'a, T>(
    items: &'a [T],
    name: &str,
    of: impl Fn(&T) -> &str,
    what: String,
) -> Result<&'a T> {
    items.iter().find(|t| of(t) == name).ok_or_else(|| {
        let names: Vec<&str> = items.iter().map(&of).collect();
        Error::input(format!("{what} (known: {})", names.join(", ")))
    })
}

/// The profile called `name` (`PROFILE`, `PROFILE@PORT`, either with
/// `+STATE`), or an input error listing the names.
pub fn profile(name: &str) -> Result<Profile> {
    let (placed, state) = match name.split_once('+') {
        Some((p, s)) => (p, Some(s)),
        None => (name, None),
    };
    let (base, port) = match placed.split_once('@') {
        Some((b, q)) => (b, Some(q)),
        None => (placed, None),
    };
    let File {
        profiles,
        ports,
        states,
    } = file();
    let what = format!("unknown flash profile '{base}'");
    let mut found = named(&profiles, base, |p| p.name.as_str(), what)?.clone();
    if let Some(port) = port {
        let what = format!("unknown port '{port}' in --flash {name}");
        found = named(&ports, port, |q| q.name.as_str(), what)?.apply(&found);
    }
    let Some(state) = state else {
        return Ok(found);
    };
    let what = format!("unknown state '{state}' in --flash {name}");
    named(&states, state, |s| s.name.as_str(), what)?.apply(&found)
}

/// Parse `--flash a,b,c` into profiles (each must exist; no duplicates).
pub fn parse_list(list: &str) -> Result<Vec<Profile>> {
    let mut out: Vec<Profile> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if out.iter().any(|p| p.name == name) {
            return Err(Error::input(format!("--flash names '{name}' twice")));
        }
        out.push(profile(name)?);
    }
    if out.is_empty() {
        return Err(Error::input("--flash needs at least one profile name"));
    }
    Ok(out)
}

/// Where a volume `offset` bytes into the flash falls against a profile's
/// pages and AUs: how far into a page and into an AU it starts (0: on the
/// boundary). A page-mapped profile has no AUs to straddle. Every view of a
/// simulated figure says this beside the offset, since it is what the
/// offset costs: on a card with 4 MiB AUs a partition at 1 MiB is itself a
/// quarter of an AU off, so "aligned" depends on the profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alignment {
    pub profile: String,
    pub partition_offset_bytes: u64,
    pub page_bytes: u64,
    /// Bytes from the start of the page the volume starts in.
    pub into_page_bytes: u64,
    /// The AU family's allocation unit; absent for a page-mapped profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub au_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into_au_bytes: Option<u64>,
}

impl Alignment {
    pub fn of(p: &Profile, offset: u64) -> Alignment {
        let page = p.params.page_bytes;
        let au = (p.family == Family::Au).then_some(p.params.au_bytes);
        Alignment {
            profile: p.name.clone(),
            partition_offset_bytes: offset,
            page_bytes: page,
            into_page_bytes: offset % page,
            au_bytes: au,
            into_au_bytes: au.map(|a| offset % a),
        }
    }

    /// For people: "on its 16.0 KiB page boundaries, 1.00 MiB into its
    /// 4.00 MiB AUs".
    pub fn said(&self) -> String {
        use crate::units::iec;
        let page = iec(self.page_bytes);
        let into =
            |n: u64, unit: &str, size: u64| format!("{} into its {} {unit}", iec(n), iec(size));
        match (self.into_page_bytes, self.au_bytes, self.into_au_bytes) {
            (0, Some(au), Some(0)) => format!("on its {page} page and {} AU boundaries", iec(au)),
            (0, Some(au), Some(a)) => {
                format!("on its {page} page boundaries, {}", into(a, "AUs", au))
            }
            (p, Some(au), Some(a)) => format!(
                "{}, {}",
                into(p, "pages", self.page_bytes),
                into(a, "AUs", au)
            ),
            (0, _, _) => format!("on its {page} page boundaries"),
            (p, _, _) => into(p, "pages", self.page_bytes),
        }
    }
}

impl Profile {
    /// A fresh simulated device of this profile (empty state).
    pub fn device(&self) -> Box<dyn Device> {
        match self.family {
            Family::Au => Box::new(AuDevice::new(&self.params)),
            Family::Paged => Box::new(PagedDevice::new(&self.params)),
        }
    }

    /// For people, beside every simulated figure: what the device held
    /// before the run, which decides what closing an AU copies. None for a
    /// page-mapped profile, which copies no AUs.
    pub fn state_said(&self) -> Option<String> {
        if self.family != Family::Au {
            return None;
        }
        Some(if self.params.new_device {
            "started new: an AU it closes copies only what the run wrote there".to_string()
        } else {
            format!(
                "written over before: each AU it closes holds old data to copy (a new one: {}+new)",
                self.name
            )
        })
    }

    pub fn au_bytes(&self) -> u64 {
        self.params.au_bytes
    }

    pub fn page_bytes(&self) -> u64 {
        self.params.page_bytes
    }

    pub fn max_transfer_bytes(&self) -> u64 {
        self.params.max_transfer_bytes
    }

    /// `--list-profiles --json`: `{"name","family","params","sources":[..]}`,
    /// each source as "param: where it comes from".
    pub fn listing(&self) -> serde_json::Value {
        let sources: Vec<String> = self
            .sources
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        serde_json::json!({
            "name": self.name,
            "family": self.family,
            "summary": self.summary,
            "sd_card": self.sd_card,
            "params": self.params,
            "sources": sources,
            "port": self.port,
            "state": self.state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a profile is an SD card is said once, in the data, and
    /// agrees with its summary.
    #[test]
    fn sd_cards_are_marked() {
        for p in profiles() {
            assert_eq!(p.sd_card, p.summary.contains("SD card"), "{}", p.name);
        }
    }

    #[test]
    fn every_parameter_has_a_source_and_sane_values() {
        let all = profiles();
        assert!(all.len() >= 6);
        for p in &all {
            let params = serde_json::to_value(&p.params).unwrap();
            for key in params.as_object().unwrap().keys() {
                let src = p.sources.get(key).map(String::as_str).unwrap_or("");
                assert!(!src.trim().is_empty(), "{}: no source for {key}", p.name);
            }
            for key in p.sources.keys() {
                assert!(
                    params.get(key).is_some(),
                    "{}: source for unknown {key}",
                    p.name
                );
            }
            let q = &p.params;
            assert!(
                q.au_bytes.is_power_of_two() && q.page_bytes.is_power_of_two(),
                "{}",
                p.name
            );
            assert!(
                q.page_bytes <= q.au_bytes && q.open_aus_linear >= 1,
                "{}",
                p.name
            );
            assert!(q.open_aus_random <= q.open_aus_linear, "{}", p.name);
            assert!(
                q.write_mb_s > 0.0 && q.move_mb_s > 0.0 && q.read_mb_s > 0.0,
                "{}",
                p.name
            );
            assert!(q.max_transfer_bytes >= 4096, "{}", p.name);
        }
    }

    /// Sector 63 is inside a page and an AU on every AU profile; 1 MiB is
    /// on the pages everywhere but inside the AUs of 4 MiB and larger, and
    /// a page-mapped profile names no AUs.
    #[test]
    fn alignment_says_where_an_offset_falls() {
        let stick = profile("usb2-stick").unwrap();
        let a = Alignment::of(&stick, 32256);
        assert_eq!(
            (a.into_page_bytes, a.into_au_bytes),
            (32256 % 16384, Some(32256))
        );
        assert_eq!(
            a.said(),
            "15.5 KiB into its 16.0 KiB pages, 31.5 KiB into its 4.00 MiB AUs"
        );
        let m = Alignment::of(&stick, 1 << 20);
        assert_eq!(
            m.said(),
            "on its 16.0 KiB page boundaries, 1.00 MiB into its 4.00 MiB AUs"
        );
        assert_eq!(
            Alignment::of(&stick, 4 << 20).said(),
            "on its 16.0 KiB page and 4.00 MiB AU boundaries"
        );
        let a1 = Alignment::of(&profile("microsd-a1").unwrap(), 1 << 20);
        assert_eq!(a1.au_bytes, None);
        assert_eq!(a1.said(), "on its 16.0 KiB page boundaries");
    }

    /// A port caps the transport and leaves the flash: a USB 3 stick in a
    /// USB 2 port takes USB 2's commands and ceilings and keeps its AUs; a
    /// USB 2 stick there is the stick it was, but for its name.
    #[test]
    fn a_port_caps_the_transport_and_keeps_the_flash() {
        let fast = profile("usb3-stick").unwrap();
        let slow = profile("usb3-stick@usb2").unwrap();
        assert_eq!(slow.name, "usb3-stick@usb2");
        let (f, s) = (&fast.params, &slow.params);
        assert_eq!(
            (s.bus_read_mb_s, s.bus_write_mb_s),
            (Some(40.96), Some(32.77))
        );
        assert_eq!(
            (s.command_overhead_us, s.max_transfer_bytes),
            (250.0, 122880)
        );
        assert_eq!(s.transport, "usb2-bot");
        assert_eq!((f.bus_read_mb_s, f.bus_write_mb_s), (None, None));
        let flash = |q: &Params| (q.au_bytes, q.page_bytes, q.open_aus_linear, q.write_mb_s);
        assert_eq!(flash(f), flash(s));
        assert!(slow.sources["bus_read_mb_s"].starts_with("usb2 port: USB 2.0 spec"));
        let usb2 = profile("usb2-stick").unwrap();
        let behind = profile("usb2-stick@usb2").unwrap();
        let transport = |q: &Params| (q.command_overhead_us, q.max_transfer_bytes);
        assert_eq!(transport(&usb2.params), transport(&behind.params));
        for port in ports() {
            let keys = serde_json::to_value(&port.params).unwrap();
            let keys: Vec<&String> = keys.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                port.sources.keys().collect::<Vec<_>>(),
                "{}",
                port.name
            );
        }
        let e = profile("usb3-stick@usb4").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("known: usb2"), "{e}");
        assert!(names().contains(&"microsd-a1@usb2".to_string()));
    }

    #[test]
    fn names_resolve_and_unknown_names_are_input_errors() {
        for p in profiles() {
            assert_eq!(profile(&p.name).unwrap().name, p.name);
        }
        let e = profile("no-such-card").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("usb2-stick"), "{e}");
        assert_eq!(parse_list("usb2-stick,sd-2011-1au").unwrap().len(), 2);
        assert!(parse_list("usb2-stick,usb2-stick").is_err());
        assert!(parse_list(",").is_err());
    }

    /// A state changes what the device held before and nothing else; it
    /// goes with a port (`PROFILE@PORT+STATE`), is listed for every AU
    /// profile, and is refused where it would change nothing.
    #[test]
    fn a_state_starts_an_au_profile_new() {
        let used = profile("usb3-stick@usb2").unwrap();
        let new = profile("usb3-stick@usb2+new").unwrap();
        assert_eq!(
            (new.name.as_str(), new.state.as_deref(), new.port.as_deref()),
            ("usb3-stick@usb2+new", Some("new"), Some("usb2"))
        );
        let mut q = new.params.clone();
        assert!(q.new_device && !used.params.new_device);
        q.new_device = false;
        assert_eq!(q, used.params, "only the state differs");
        assert!(new.sources["new_device"].starts_with("new state: SD Physical Layer spec"));
        // Every view says which, from one place; a page-mapped profile has no state.
        let said = |p: &Profile| p.state_said().unwrap_or_default();
        assert!(said(&used).ends_with("(a new one: usb3-stick@usb2+new)"));
        assert!(said(&new).starts_with("started new"));
        assert_eq!(profile("microsd-a1").unwrap().state_said(), None);
        let e = profile("microsd-a1+new").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("page-mapped"), "{e}");
        let e = profile("usb2-stick+old").unwrap_err();
        assert!(e.to_string().contains("unknown state 'old'") && e.to_string().contains("new"));
        let aus = profiles().iter().filter(|p| p.family == Family::Au).count();
        let started = every().iter().filter(|p| p.state.is_some()).count();
        assert_eq!(started, aus * (1 + ports().len()));
        for p in every() {
            assert_eq!(profile(&p.name).unwrap().params, p.params, "{}", p.name);
        }
    }
}
