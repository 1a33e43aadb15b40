//! advise's candidates as plans of a prepared drive (format/layout.rs
//! decides; this says what the named systems ask of it): MBR where a
//! system reads nothing else, the SD specification's layout where a system
//! formats cards by it (cameras) or the drive is an SD card, and the
//! specification's cluster first for a camera's card, saying what the
//! user's own figures would have chosen.

use super::{compare, systems, Advice, Candidate, Commands};
use crate::format::layout::{self, Layout, Want};
use crate::format::{label, paste, sd};
use crate::fs;
use crate::units::{iec, short};

/// What the named systems ask of the layout.
pub struct Use {
    /// Systems that read only MBR tables.
    pub mbr_for: Vec<&'static str>,
    /// Systems that expect the SD specification's layout (cameras).
    pub sd_for: Vec<&'static str>,
    /// Systems that make the drive an SD card.
    pub cards: Vec<&'static str>,
    /// The flash profile speeds are simulated on is an SD card.
    pub sd_drive: bool,
}

impl Use {
    pub fn of(systems: &[&systems::System], drive: Option<&crate::flash::Profile>) -> Use {
        Use {
            mbr_for: systems::mbr_users(systems),
            sd_for: systems::sd_layout_users(systems),
            cards: systems::card_users(systems),
            sd_drive: drive.is_some_and(|p| p.sd_card),
        }
    }
}

/// The plan of `fs` at `cluster` on a drive of `volume` bytes for this
/// use, with the label as the filesystem stores it (or why it cannot).
pub fn layout_of(
    fs_name: &str,
    cluster: u64,
    volume: u64,
    u: &Use,
    label: &str,
) -> crate::Result<(Layout, Option<String>)> {
    let f = fs::by_name(fs_name)
        .ok_or_else(|| crate::Error::work(format!("fsfit does not know how to make {fs_name}")))?;
    let (label, problem) = match label::check(f, label) {
        Ok(l) => (Some(l), None),
        Err(_) if label.is_empty() => (None, None),
        Err(e) => (None, Some(e.to_string())),
    };
    let card = !u.sd_for.is_empty() || !u.cards.is_empty() || u.sd_drive;
    let l = layout::decide(&Want {
        capacity: volume,
        fs: Some((f, Some(cluster))),
        label,
        table: None,
        align: None,
        sd: card && sd::row(volume).is_ok(),
        mbr_for: Some(&u.mbr_for),
        partition_offset: None,
        dev: paste::DEV,
        owner: layout::owner(),
    })?;
    Ok((l, problem))
}

/// Where the plan of `fs` at `cluster` puts the volume on a drive of
/// `volume` bytes for this use (the partition's start; 0 where the
/// filesystem takes the whole device): the offset every simulated figure
/// of that candidate assumes, so the figure and the plan printed beside it
/// are one drive. A candidate fsfit cannot lay out is simulated where
/// fdisk puts a partition.
pub fn volume_start(fs_name: &str, cluster: u64, volume: u64, opts: &super::Options) -> u64 {
    let u = Use::of(&opts.systems, opts.drive.as_ref().map(|d| &d.0));
    layout_of(fs_name, cluster, volume, &u, "")
        .map_or(crate::bench::results::DEFAULT_PARTITION_OFFSET, |(l, _)| {
            l.start
        })
}

/// Every candidate's plan, the choice's and runner-up's with them, and
/// the commands of the choice; a candidate fsfit cannot lay out says why.
pub fn attach(a: &mut Advice, opts: &super::Options) {
    let (systems, label) = (&opts.systems, opts.label.as_str());
    let u = Use::of(systems, opts.drive.as_ref().map(|d| &d.0));
    let volume = a.volume_bytes;
    let mut commands = None;
    for (i, c) in a.candidates.iter_mut().enumerate() {
        match layout_of(&c.fs, c.cluster_bytes, volume, &u, label) {
            Ok((l, problem)) => {
                let plan = l.doc();
                if i == 0 {
                    commands = Some(Commands {
                        linux: paste::mkfs_line(&l),
                        linux_steps: plan.commands.linux.clone(),
                        fsfit: plan.commands.fsfit.clone(),
                        label_problem: problem,
                        windows: plan.commands.windows.clone(),
                        macos: plan.commands.macos.clone(),
                    });
                }
                c.plan = Some(plan);
            }
            Err(e) => c.reasons.push(format!("fsfit cannot lay this out: {e}")),
        }
    }
    a.choice = a.candidates.first().cloned();
    a.runner_up = a.candidates.get(1).cloned();
    a.commands = commands;
}

/// The SD specification's filesystem and cluster for a card of `volume`
/// bytes, where a named system expects that layout.
fn spec(systems: &[&systems::System], volume: u64) -> Option<sd::SdRow> {
    if systems::sd_layout_users(systems).is_empty() {
        return None;
    }
    sd::row(volume).ok()
}

/// The ranking's last rule, where a named system expects the SD layout.
pub fn spec_rule(systems: &[&systems::System], volume: u64) -> Option<String> {
    let row = spec(systems, volume)?;
    Some(format!(
        "finally, for {}: the SD specification's {} {} goes first, whatever the figures say",
        systems::sd_layout_users(systems).join(", "),
        row.fs,
        short(row.cluster)
    ))
}

/// A camera's card gets the specification's cluster: that candidate goes
/// first, and the ranking's own pick second. Returns whether it moved.
pub fn spec_first(good: &mut Vec<Candidate>, systems: &[&systems::System], volume: u64) -> bool {
    let Some(row) = spec(systems, volume) else {
        return false;
    };
    match good
        .iter()
        .position(|c| c.fs == row.fs && c.cluster_bytes == row.cluster)
    {
        Some(i) if i > 0 => {
            let c = good.remove(i);
            good.insert(0, c);
            true
        }
        _ => false,
    }
}

/// Why the card gets the specification's layout, and, where the user's
/// figures ranked another cluster first (`displaced`: now second), both
/// and why, from the candidates as the trade-offs weigh them (at the fill).
pub fn spec_why(
    good: &[Candidate],
    displaced: bool,
    systems: &[&systems::System],
    volume: u64,
    fill: u64,
) -> Option<String> {
    let row = spec(systems, volume)?;
    let users = systems::sd_layout_users(systems);
    let title = fs::by_name(row.fs).map_or(row.fs, |f| f.info().title);
    let mut s = format!(
        "{}: the SD specification lays a {} card out as {title} with {} clusters, the partition and the data area on its {} boundary unit, the layout {} cards with and {} on a card",
        users.join(", "),
        iec(volume),
        short(row.cluster),
        short(row.bu),
        if users.len() == 1 { "it formats" } else { "they format" },
        if users.len() == 1 { "expects" } else { "expect" },
    );
    let choice = good.first()?;
    if choice.fs != row.fs || choice.cluster_bytes != row.cluster {
        s += &format!(
            "; no candidate of {title} {} stores your files, so this is not that layout",
            short(row.cluster)
        );
    } else if let Some(d) = good.get(1).filter(|_| displaced) {
        s += &format!(
            "; your files alone would rank {} first ({}), but the card gets the specification's layout",
            d.name(),
            compare(choice, d, fill)
        );
    }
    Some(s)
}
