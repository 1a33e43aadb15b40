//! What `fsfit format` will do, worked out and printed before anything is
//! written: the table, the partition, the filesystem and the exact argv of
//! every command.

use super::layout::{self, Layout, Want};
use super::target::Target;
use super::{sd, Align, Request, Table};
use crate::fs;
use crate::quote;
use crate::units::{iec, short};
use crate::Result;

const MIB: u64 = 1 << 20;

/// One command, with what it is for and what it reads on stdin.
#[derive(Clone, Debug)]
pub struct Step {
    pub what: String,
    pub argv: Vec<String>,
    pub stdin: Option<String>,
}

/// The one plan ([`Layout`]) on a named device, with the steps that run it.
pub struct Plan {
    pub layout: Layout,
    /// The device the filesystem goes on (the partition, or the device).
    pub volume_dev: String,
    pub steps: Vec<Step>,
}

/// The alignment named, or `auto`: the allocation unit `fsfit probe` finds
/// with high confidence (reading only), else the SD boundary unit for the
/// capacity. None: the plan's default.
fn alignment(
    r: &Request,
    dev: &str,
    capacity: u64,
    notes: &mut Vec<String>,
) -> Result<Option<u64>> {
    match r.align {
        Align::Bytes(a) => Ok(Some(a)),
        Align::Default => Ok(None),
        Align::Auto => match probed_au(dev) {
            Some(au) => {
                notes.push(format!(
                    "--align auto: fsfit probe found a {} allocation unit",
                    short(au)
                ));
                Ok(Some(au))
            }
            None => {
                let b = sd::row(capacity)?.bu;
                notes.push(format!(
                    "--align auto: fsfit probe found no allocation unit; the SD boundary unit for {} is {}",
                    iec(capacity),
                    short(b)
                ));
                Ok(Some(b))
            }
        },
    }
}

/// The AU `fsfit probe` finds with high confidence, if it is a plausible one.
fn probed_au(dev: &str) -> Option<u64> {
    let rep = crate::flash::probe::probe(std::path::Path::new(dev), Default::default()).ok()?;
    let au = rep.au_bytes;
    (rep.confidence == "high" && au.is_power_of_two() && (MIB..=64 * MIB).contains(&au))
        .then_some(au)
}

/// The plan for `t`; `owner` gets the new volume's root folder.
pub fn make(r: &Request, t: &Target, owner: (u32, u32)) -> Result<Plan> {
    let dev = t.dev.as_str();
    let mut notes = Vec::new();
    let align = alignment(r, dev, t.capacity, &mut notes)?;
    let label = match (&r.label, &r.fs) {
        (Some(l), Some((f, _))) => Some(super::label::check(*f, l)?),
        // --sd without --fs: checked once the SD table named the filesystem.
        (Some(l), None) => Some(l.clone()),
        (None, _) => None,
    };
    let want = |label: Option<String>| Want {
        capacity: t.capacity,
        fs: r.fs,
        label,
        table: r.table,
        align,
        sd: r.sd,
        mbr_for: None,
        partition_offset: t.partition_offset,
        dev,
        owner,
    };
    let mut layout = layout::decide(&want(label.clone()))?;
    if let (Some(l), None) = (&r.label, &r.fs) {
        let checked = super::label::check(layout.fs, l)?;
        if Some(&checked) != label.as_ref() {
            layout = layout::decide(&want(Some(checked)))?;
        }
    }
    notes.append(&mut layout.notes);
    layout.notes = notes;
    let volume_dev = match layout.table {
        Table::None => dev.to_string(),
        _ => super::target::partition_path(dev, 1),
    };
    let pt = layout.fs.partition_type();
    let mut steps = wipe_steps(dev);
    if layout.table != Table::None {
        steps.push(super::table::sfdisk(
            dev,
            layout.table,
            layout.start,
            layout.size,
            &pt,
        ));
        steps.push(Step {
            what: "wipe stale signatures in the new partition".into(),
            argv: fs::argv(&["wipefs", "-a", &volume_dev]),
            stdin: None,
        });
    }
    let mut argv = layout.mkfs.clone();
    argv.push(volume_dev.clone());
    steps.push(Step {
        what: format!("make {}", layout.fs.info().title),
        argv,
        stdin: None,
    });
    Ok(Plan {
        layout,
        volume_dev,
        steps,
    })
}

/// Old signatures go first: every filesystem and table signature on the
/// device, so nothing stale is detected later.
fn wipe_steps(dev: &str) -> Vec<Step> {
    vec![Step {
        what: "wipe old signatures (filesystems, partition tables)".into(),
        argv: fs::argv(&["wipefs", "-a", dev]),
        stdin: None,
    }]
}

impl Plan {
    /// The plan as printed before anything is done.
    pub fn text(&self, target: &super::target::Target) -> String {
        let l = &self.layout;
        let mut o = format!(
            "Target: {} ({}, {}, {} bytes)\n",
            target.shown,
            if target.kind == "image" {
                format!("image on {}", target.dev)
            } else {
                "block device".to_string()
            },
            iec(target.capacity),
            target.capacity
        );
        o += "Now on it:\n";
        for line in &target.now {
            o += &format!("  {line}\n");
        }
        o += &format!("Table: {}\n", l.table_why);
        if let Some(t) = &l.part_type {
            o += &format!(
                "Partition: {} from {} ({} bytes), {} ({} bytes), type {t}\n",
                self.volume_dev,
                short(l.start),
                l.start,
                iec(l.size),
                l.size
            );
        }
        o += &format!(
            "Filesystem: {}, {} clusters, label {}\n",
            l.fs.info().title,
            short(l.cluster),
            l.label
                .as_deref()
                .map_or("(none)".to_string(), quote::quote)
        );
        o += &format!("Alignment: {}", short(l.align));
        if let Some(d) = l.data_offset {
            o += &format!(
                ", data area at {} from the device's start",
                short_or_bytes(d)
            );
        }
        o += "\n";
        for n in &l.notes {
            o += &format!("Note: {n}\n");
        }
        o += "Commands:\n";
        for (i, s) in self.steps.iter().enumerate() {
            o += &format!("  {}. {}\n     {}\n", i + 1, s.what, s.shell());
        }
        o
    }
}

fn short_or_bytes(n: u64) -> String {
    if n % 1024 == 0 {
        short(n)
    } else {
        format!("{n} bytes")
    }
}

impl Step {
    /// The command as a POSIX shell line (its stdin piped in, a line per
    /// argument of printf).
    pub fn shell(&self) -> String {
        let cmd = quote::join(&self.argv);
        match &self.stdin {
            Some(i) => {
                let lines: Vec<String> = i.lines().map(quote::quote).collect();
                format!("printf '%s\\n' {} | {cmd}", lines.join(" "))
            }
            None => cmd,
        }
    }
}
