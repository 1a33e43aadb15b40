//! What `fsfit format` will do, worked out and printed before anything is
//! written: the table, the partition, the filesystem and the exact argv of
//! every command.

use super::target::Target;
use super::{quote, sd, Align, Request, Table};
use crate::fs::{self, Filesystem, FormatParams, PartType};
use crate::units::{iec, short};
use crate::{Error, Result};

const MIB: u64 = 1 << 20;
const SECTOR: u64 = 512;
/// GPT's backup header and table at the end of the disk (sectors).
const GPT_TAIL: u64 = 33;

/// One command, with what it is for and what it reads on stdin.
#[derive(Clone, Debug)]
pub struct Step {
    pub what: String,
    pub argv: Vec<String>,
    pub stdin: Option<String>,
}

pub struct Plan {
    pub fs: &'static dyn Filesystem,
    pub cluster: u64,
    /// The label as the filesystem stores it.
    pub label: Option<String>,
    /// The partition table fsfit writes (none when mkfs writes one itself).
    pub table: Table,
    /// mkfs writes its own MBR over the whole device (UDF with --table mbr).
    pub mbr_boot_area: bool,
    pub start: u64,
    pub size: u64,
    /// "0x0c", a GPT type GUID, or None without a table.
    pub part_type: Option<String>,
    pub align: u64,
    /// The device the filesystem goes on (the partition, or the device).
    pub volume_dev: String,
    /// Where the data area starts from the device's start, when known.
    pub data_offset: Option<u64>,
    pub steps: Vec<Step>,
    pub notes: Vec<String>,
}

/// The filesystem and cluster: named, or the SD table's for the capacity.
fn choose_fs(
    r: &Request,
    capacity: u64,
    notes: &mut Vec<String>,
) -> Result<(&'static dyn Filesystem, Option<u64>)> {
    let spec = if r.sd { Some(sd::row(capacity)?) } else { None };
    match (&r.fs, spec) {
        (Some((f, c)), Some(row)) if f.name() != row.fs => {
            notes.push(format!(
                "the SD specification uses {} with {} clusters for {}; formatting {} because --fs names it",
                row.fs,
                short(row.cluster),
                iec(capacity),
                f.name()
            ));
            Ok((*f, *c))
        }
        (Some((f, c)), Some(row)) => Ok((*f, c.or(Some(row.cluster)))),
        (Some((f, c)), None) => Ok((*f, *c)),
        (None, Some(row)) => {
            let f = fs::by_name(row.fs)
                .ok_or_else(|| Error::work("the SD table names an unknown filesystem"))?;
            notes.push(format!(
                "SD layout for {}: {} with {} clusters, boundary unit {} ({})",
                iec(capacity),
                f.info().title,
                short(row.cluster),
                short(row.bu),
                sd::SOURCE
            ));
            Ok((f, Some(row.cluster)))
        }
        (None, None) => Err(Error::work("name a filesystem with --fs (or use --sd)")),
    }
}

/// The alignment: named, the SD boundary unit, or 4 MiB. `auto` takes the
/// allocation unit `fsfit probe` finds with high confidence (reading only),
/// else the SD boundary unit for the capacity.
fn alignment(r: &Request, dev: &str, capacity: u64, notes: &mut Vec<String>) -> Result<u64> {
    let bu = || -> Result<u64> { Ok(sd::row(capacity)?.bu) };
    match r.align {
        Align::Bytes(a) => Ok(a),
        Align::Auto => match probed_au(dev) {
            Some(au) => {
                notes.push(format!(
                    "--align auto: fsfit probe found a {} allocation unit",
                    short(au)
                ));
                Ok(au)
            }
            None => {
                let b = bu()?;
                notes.push(format!(
                    "--align auto: fsfit probe found no allocation unit; the SD boundary unit for {} is {}",
                    iec(capacity),
                    short(b)
                ));
                Ok(b)
            }
        },
        Align::Default if r.sd => bu(),
        Align::Default => Ok(4 * MIB),
    }
}

/// The AU `fsfit probe` finds with high confidence, if it is a plausible one.
fn probed_au(dev: &str) -> Option<u64> {
    let rep = crate::flash::probe::probe(std::path::Path::new(dev), Default::default()).ok()?;
    let au = rep.au_bytes;
    (rep.confidence == "high" && au.is_power_of_two() && (MIB..=64 * MIB).contains(&au))
        .then_some(au)
}

/// Where the partition starts and how long it is (bytes), or the whole device.
fn partition(table: Table, capacity: u64, align: u64, sd: bool) -> Result<(u64, u64)> {
    if table == Table::None {
        return Ok((0, capacity));
    }
    // The SD layout starts at one BU; otherwise at least 1 MiB in, as
    // partitioning tools do, on the alignment.
    let start = if sd { align } else { fs::round_up(MIB, align) };
    let tail = if table == Table::Gpt {
        GPT_TAIL * SECTOR
    } else {
        0
    };
    let end = (capacity - tail) / SECTOR * SECTOR;
    if end <= start + MIB {
        return Err(Error::work(format!(
            "{} is too small for a partition starting at {}",
            iec(capacity),
            short(start)
        )));
    }
    Ok((start, end - start))
}

/// Where the volume goes: the table, whether mkfs writes its own MBR, the
/// volume's start (on the disk) and size.
struct Layout {
    table: Table,
    mbr_boot_area: bool,
    start: u64,
    size: u64,
}

fn layout(
    r: &Request,
    t: &Target,
    fs: &dyn Filesystem,
    align: u64,
    notes: &mut Vec<String>,
) -> Result<Layout> {
    let (dev, capacity) = (t.dev.as_str(), t.capacity);
    let pt = fs.partition_type();
    let table = r
        .table
        .unwrap_or(if pt.whole_device || t.partition_offset.is_some() {
            Table::None
        } else {
            Table::Mbr
        });
    let mbr_boot_area = pt.whole_device && table == Table::Mbr;
    let table = if mbr_boot_area { Table::None } else { table };
    let (mut start, size) = partition(table, capacity, align, r.sd)?;
    if let Some(off) = t.partition_offset {
        // A partition named as the target: its filesystem, no table inside.
        if table != Table::None && !mbr_boot_area {
            return Err(Error::work(format!(
                "{dev} is a partition: fsfit makes its filesystem without a table inside \
                 (--table none), or name the whole disk to partition it"
            )));
        }
        start = off;
        notes.push(format!(
            "{dev} keeps the type its disk's table gives it; {} expects MBR type 0x{:02x} (GPT: {})",
            fs.info().title,
            pt.mbr,
            pt.gpt
        ));
    }
    if mbr_boot_area {
        notes.push(format!(
            "{} writes the MBR itself: one partition over the whole device, the volume from its first sector",
            fs.info().title
        ));
    }
    Ok(Layout {
        table,
        mbr_boot_area,
        start,
        size,
    })
}

/// The plan for `t`; `owner` gets the new volume's root folder.
pub fn make(r: &Request, t: &Target, owner: (u32, u32)) -> Result<Plan> {
    let (dev, capacity) = (t.dev.as_str(), t.capacity);
    let mut notes = Vec::new();
    let (fs, cluster) = choose_fs(r, capacity, &mut notes)?;
    let align = alignment(r, dev, capacity, &mut notes)?;
    let Layout {
        table,
        mbr_boot_area,
        start,
        size,
    } = layout(r, t, fs, align, &mut notes)?;
    let pt = fs.partition_type();
    let cluster = cluster.unwrap_or_else(|| fs.default_cluster(size));
    let label = match &r.label {
        Some(l) => Some(super::label::check(fs, l)?),
        None => None,
    };
    let volume_dev = match table {
        Table::None => dev.to_string(),
        _ => super::target::partition_path(dev, 1),
    };
    let mut params = FormatParams {
        cluster,
        label: label.as_deref(),
        start_bytes: start,
        volume_bytes: size,
        align_bytes: align,
        owner,
        mbr_boot_area,
    };
    let cmd = fitting(fs, &mut params, &mut notes)?;
    let size = params.volume_bytes;
    // mkudffs --bootarea=mbr writes its own MBR entry, of type 0x07 (what
    // Windows expects): the JSON names it although fsfit writes no table.
    let part_type = part_type_text(if mbr_boot_area { Table::Mbr } else { table }, pt);
    let mut steps = wipe_steps(dev);
    if table != Table::None {
        steps.push(super::table::sfdisk(dev, table, start, size, &pt));
        steps.push(Step {
            what: "wipe stale signatures in the new partition".into(),
            argv: fs::argv(&["wipefs", "-a", &volume_dev]),
            stdin: None,
        });
    }
    let mut argv = cmd.argv;
    argv.push(volume_dev.clone());
    steps.push(Step {
        what: format!("make {}", fs.info().title),
        argv,
        stdin: None,
    });
    Ok(Plan {
        fs,
        cluster,
        label,
        table,
        mbr_boot_area,
        start,
        size,
        part_type,
        align,
        volume_dev,
        data_offset: cmd.data_offset.map(|d| d + start),
        steps,
        notes,
    })
}

/// The mkfs command for `p`; when the filesystem cannot address the
/// whole partition at that cluster by a few clusters (FAT16 at 32 KiB on
/// exactly 2 GiB: 65,525 clusters, one over its limit), the partition is
/// shortened by as many clusters as it takes, at most 64.
fn fitting(
    fs: &dyn Filesystem,
    p: &mut FormatParams,
    notes: &mut Vec<String>,
) -> Result<fs::FormatCmd> {
    let try_size = |p: &FormatParams| -> Result<fs::FormatCmd> {
        fs.model(p.volume_bytes, p.cluster).map_err(|e| {
            Error::work(format!("{} at {}: {e}", fs.info().title, short(p.cluster)))
        })?;
        fs.format(p)
    };
    let first = match try_size(p) {
        Ok(c) => return Ok(c),
        Err(e) => e,
    };
    let full = p.volume_bytes;
    for k in 1..=64 {
        let q = FormatParams {
            volume_bytes: full.saturating_sub(k * p.cluster) / SECTOR * SECTOR,
            ..*p
        };
        if let Ok(c) = try_size(&q) {
            notes.push(format!(
                "the partition is {} shorter than the device allows: {} at {} clusters cannot address more",
                iec(full - q.volume_bytes),
                fs.info().title,
                short(p.cluster)
            ));
            *p = q;
            return Ok(c);
        }
    }
    Err(first)
}

fn part_type_text(table: Table, pt: PartType) -> Option<String> {
    match table {
        Table::Mbr => Some(format!("0x{:02x}", pt.mbr)),
        Table::Gpt => Some(pt.gpt.to_string()),
        Table::None => None,
    }
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
    /// The table the device ends up with, as the JSON names it.
    pub fn table_name(&self) -> &'static str {
        if self.mbr_boot_area {
            "mbr"
        } else {
            self.table.name()
        }
    }

    /// The plan as printed before anything is done.
    pub fn text(&self, target: &super::target::Target) -> String {
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
        for l in &target.now {
            o += &format!("  {l}\n");
        }
        o += &format!("Table: {}\n", self.table_name());
        if let Some(t) = &self.part_type {
            o += &format!(
                "Partition: {} from {} ({} bytes), {} ({} bytes), type {t}\n",
                self.volume_dev,
                short(self.start),
                self.start,
                iec(self.size),
                self.size
            );
        }
        o += &format!(
            "Filesystem: {}, {} clusters, label {}\n",
            self.fs.info().title,
            short(self.cluster),
            self.label
                .as_deref()
                .map_or("(none)".to_string(), quote::quote)
        );
        o += &format!("Alignment: {}", short(self.align));
        if let Some(d) = self.data_offset {
            o += &format!(
                ", data area at {} from the device's start",
                short_or_bytes(d)
            );
        }
        o += "\n";
        for n in &self.notes {
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
    /// The command as a POSIX shell line (its one-line stdin piped in).
    pub fn shell(&self) -> String {
        let cmd = quote::join(&self.argv);
        match &self.stdin {
            Some(i) => format!("printf '%s\\n' {} | {cmd}", quote::quote(i.trim_end())),
            None => cmd,
        }
    }
}
