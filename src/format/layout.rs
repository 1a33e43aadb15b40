//! The one plan of a prepared drive: the partition table and why, the
//! partition's start, type and alignment, whether it is the SD
//! specification's layout, the filesystem, cluster, label and where the
//! data area lands, made by [`decide`] from the choice, the drive's size and
//! what it is for. `fsfit advise` shows it for every candidate, `fsfit
//! format` runs it (format/plan.rs adds the devices and the steps), and
//! every printer renders [`DrivePlan`]. It builds on every system; only
//! running it is Linux-only.

use super::{paste, sd, Table};
use crate::fs::{self, Filesystem, FormatParams, PartType};
use crate::units::{iec, short};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

const MIB: u64 = 1 << 20;
pub const SECTOR: u64 = 512;
/// GPT's backup header and table at the end of the disk (sectors).
const GPT_TAIL: u64 = 33;
/// The protective MBR, GPT's header and its table at the start (sectors):
/// the first sector a GPT partition may use.
const GPT_HEAD: u64 = 34;
/// The most an MBR table addresses: 2^32 sectors of 512 bytes.
pub const MBR_MAX: u64 = (1 << 32) * SECTOR;

/// What the plan is asked for.
pub struct Want<'a> {
    /// The drive's size in bytes.
    pub capacity: u64,
    /// The filesystem and, if named, the cluster (None: the SD table's).
    pub fs: Option<(&'static dyn Filesystem, Option<u64>)>,
    /// Checked against the filesystem's rule already.
    pub label: Option<String>,
    /// `--table` (None: decided here).
    pub table: Option<Table>,
    /// The alignment in bytes (None: the SD boundary unit with `sd`, else
    /// 4 MiB).
    pub align: Option<u64>,
    /// Lay the drive out as the SD specification does for its capacity.
    pub sd: bool,
    /// The named systems that read only MBR tables; None: no use is known
    /// (`fsfit format`), so MBR up to 2 TiB as format always did.
    pub mbr_for: Option<&'a [&'a str]>,
    /// The target is a partition starting this far into its disk.
    pub partition_offset: Option<u64>,
    /// Named in messages.
    pub dev: &'a str,
    /// The user the new volume's root folder belongs to.
    pub owner: (u32, u32),
}

/// The decisions, before any device is named.
#[derive(Clone)]
pub struct Layout {
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
    /// The partition would be this long; shorter when the filesystem
    /// cannot address all of it at this cluster.
    pub full_size: u64,
    /// "0x0c", a GPT type GUID, or None without a table.
    pub part_type: Option<String>,
    pub align: u64,
    /// Laid out (and aligned) as the SD specification does for the capacity.
    pub sd: bool,
    /// ... with the specification's filesystem and cluster as well.
    pub sd_layout: bool,
    /// Where the data area starts from the device's start, when known.
    pub data_offset: Option<u64>,
    /// The mkfs command, program first, without the device.
    pub mkfs: Vec<String>,
    /// Why this table, in words.
    pub table_why: String,
    pub notes: Vec<String>,
}

/// The plan as every view shows it (advise's `plan`, format's `plan`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrivePlan {
    pub table: String,
    pub partition_start_bytes: u64,
    /// The partition's length (the volume's, without a table).
    #[serde(default)]
    pub partition_size_bytes: u64,
    /// What the plan leaves unpartitioned at the drive's end, beyond what
    /// the table or the filesystem addresses (0: nothing).
    #[serde(default)]
    pub unused_bytes: u64,
    pub partition_type: Option<String>,
    pub alignment_bytes: u64,
    pub sd_layout: bool,
    pub fs: String,
    pub cluster_bytes: u64,
    pub label: Option<String>,
    pub data_offset_bytes: Option<u64>,
    pub commands: PlanCommands,
    /// Why the table, the layout, and what else was decided.
    pub why: Vec<String>,
}

/// The printed lines that carry the plan out on each system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanCommands {
    /// Every step, each line safe to paste.
    pub linux: Vec<String>,
    pub windows: String,
    pub macos: String,
    /// `sudo fsfit format ...` in one line.
    pub fsfit: String,
}

/// The table `fsfit format` writes when none is named, and why: none for a
/// filesystem that goes on the whole device, GPT over 2 TiB (an MBR cannot
/// address it), else MBR where a named system needs it, GPT where systems
/// are named and none needs it, and MBR when no use is known.
pub fn default_table(capacity: u64, pt: PartType, mbr_for: Option<&[&str]>) -> (Table, String) {
    if pt.whole_device {
        return (
            Table::None,
            "no table: this filesystem goes on the whole device, as the systems that read it expect".into(),
        );
    }
    let who = mbr_for.filter(|m| !m.is_empty()).map(|m| m.join(", "));
    if capacity > MBR_MAX {
        // A system that reads only MBR reads nothing on a GPT drive: the
        // partition stops at MBR's reach instead (decide says what is left).
        return match who {
            Some(w) => (
                Table::Mbr,
                format!(
                    "MBR: {w} {} only MBR (DOS) partition tables, which address the first 2 TiB \
of this {} drive (--table gpt would use all of it, unread by {w})",
                    reads(mbr_for),
                    iec(capacity)
                ),
            ),
            None => (
                Table::Gpt,
                format!(
                    "GPT: an MBR table addresses at most 2 TiB and this drive is {}",
                    iec(capacity)
                ),
            ),
        };
    }
    match (mbr_for, who) {
        (_, Some(w)) => (
            Table::Mbr,
            format!(
                "MBR: {w} {} only MBR (DOS) partition tables; the drive is within MBR's 2 TiB",
                reads(mbr_for)
            ),
        ),
        (Some(_), None) => (
            Table::Gpt,
            "GPT: no system named needs MBR, and GPT keeps a backup of its table at the drive's end"
                .into(),
        ),
        (None, None) => (
            Table::Mbr,
            "MBR: fsfit format's default for drives up to 2 TiB (every system reads it)".into(),
        ),
    }
}

/// "reads" for one system, "read" for more.
fn reads(systems: Option<&[&str]>) -> &'static str {
    if systems.is_some_and(|s| s.len() > 1) {
        "read"
    } else {
        "reads"
    }
}

/// The filesystem and cluster: named, or the SD table's for the capacity.
fn choose_fs(w: &Want, notes: &mut Vec<String>) -> Result<(&'static dyn Filesystem, Option<u64>)> {
    let spec = if w.sd {
        Some(sd::row(w.capacity)?)
    } else {
        None
    };
    match (&w.fs, spec) {
        (Some((f, c)), Some(row)) if f.name() != row.fs => {
            notes.push(format!(
                "the SD specification uses {} with {} clusters for {}; formatting {} because --fs names it",
                row.fs,
                short(row.cluster),
                iec(w.capacity),
                f.name()
            ));
            Ok((*f, *c))
        }
        (Some((f, c)), Some(row)) => Ok((*f, c.or(Some(row.cluster)))),
        (Some((f, c)), None) => Ok((*f, *c)),
        (None, Some(row)) => {
            let f = fs::by_name(row.fs)
                .ok_or_else(|| Error::work("the SD table names an unknown filesystem"))?;
            Ok((f, Some(row.cluster)))
        }
        (None, None) => Err(Error::work("name a filesystem with --fs (or use --sd)")),
    }
}

/// Where the partition starts and how long it is (bytes), or the whole device.
fn partition(table: Table, capacity: u64, align: u64, sd: bool) -> Result<(u64, u64)> {
    if table == Table::None {
        return Ok((0, capacity));
    }
    // The SD layout starts at one BU; otherwise at least 1 MiB in, as
    // partitioning tools do, on the alignment. GPT's own table comes first:
    // a BU smaller than it (8 and 16 KiB on cards up to 64 MiB) starts the
    // partition on the next BU after it.
    let (head, tail) = match table {
        Table::Gpt => (GPT_HEAD * SECTOR, GPT_TAIL * SECTOR),
        _ => (SECTOR, 0),
    };
    let start = fs::round_up(if sd { head } else { MIB }, align);
    let end = (capacity.saturating_sub(tail)) / SECTOR * SECTOR;
    if end <= start + MIB {
        return Err(Error::work(format!(
            "{} is too small for a partition starting at {}",
            iec(capacity),
            short(start)
        )));
    }
    Ok((start, end - start))
}

/// sfdisk's header line that lets a GPT partition start before 1 MiB:
/// sfdisk otherwise makes 2048 (its 1 MiB grain) the table's first usable
/// sector and refuses the SD layout's start at one boundary unit.
pub fn gpt_first_lba(table: Table, start: u64) -> Option<String> {
    (table == Table::Gpt && start < MIB).then(|| format!("first-lba: {GPT_HEAD}"))
}

/// The table (and whether mkfs writes its own MBR), with why.
fn table(w: &Want, pt: PartType, notes: &mut Vec<String>) -> Result<(Table, bool, String)> {
    let (table, why) = match w.table {
        Some(t) => (t, format!("{}: --table names it", t.name().to_uppercase())),
        None if w.partition_offset.is_some() => (
            Table::None,
            "no table: the target is a partition of a disk that has one".into(),
        ),
        None => default_table(w.capacity, pt, w.mbr_for),
    };
    let mbr_boot_area = pt.whole_device && table == Table::Mbr;
    if w.partition_offset.is_some() && table != Table::None && !mbr_boot_area {
        return Err(Error::work(format!(
            "{} is a partition: fsfit makes its filesystem without a table inside \
             (--table none), or name the whole disk to partition it",
            w.dev
        )));
    }
    if mbr_boot_area {
        notes.push(format!(
            "{} writes the MBR itself: one partition over the whole device, the volume from its first sector",
            w.fs.map_or("mkfs", |(f, _)| f.info().title)
        ));
    }
    let table = if mbr_boot_area { Table::None } else { table };
    Ok((table, mbr_boot_area, why))
}

/// The plan for `w`: one function decides for advise and format alike.
pub fn decide(w: &Want) -> Result<Layout> {
    let mut notes = Vec::new();
    let (fs, cluster) = choose_fs(w, &mut notes)?;
    let row = if w.sd {
        Some(sd::row(w.capacity)?)
    } else {
        None
    };
    let align = match (w.align, row) {
        (Some(a), _) => a,
        (None, Some(r)) => r.bu,
        (None, None) => 4 * MIB,
    };
    let pt = fs.partition_type();
    let (table, mbr_boot_area, table_why) = table(w, pt, &mut notes)?;
    let (mut start, size) = partition(table, w.capacity, align, w.sd)?;
    if let Some(off) = w.partition_offset {
        start = off;
        notes.push(format!(
            "{} keeps the type its disk's table gives it; {} expects MBR type 0x{:02x} (GPT: {})",
            w.dev,
            fs.info().title,
            pt.mbr,
            pt.gpt
        ));
    }
    let cluster = cluster.unwrap_or_else(|| fs.default_cluster(size));
    let reach = within_reach(table, start, size, fs, cluster, &mut notes);
    let mut params = FormatParams {
        cluster,
        label: w.label.as_deref(),
        start_bytes: start,
        volume_bytes: reach,
        align_bytes: align,
        owner: w.owner,
        mbr_boot_area,
    };
    let cmd = fitting(fs, &mut params, &mut notes)?;
    let sd_layout = row.is_some_and(|r| r.fs == fs.name() && r.cluster == cluster);
    if let (Some(r), true) = (row, sd_layout) {
        notes.insert(
            0,
            format!(
                "SD layout for {}: {} with {} clusters, boundary unit {} ({})",
                iec(w.capacity),
                fs.info().title,
                short(r.cluster),
                short(r.bu),
                sd::SOURCE
            ),
        );
    }
    Ok(Layout {
        fs,
        cluster,
        label: w.label.clone(),
        table,
        mbr_boot_area,
        start,
        size: params.volume_bytes,
        full_size: size,
        // mkudffs --bootarea=mbr writes its own MBR entry, of type 0x07
        // (what Windows expects): the plan names it although fsfit writes
        // no table.
        part_type: part_type_text(if mbr_boot_area { Table::Mbr } else { table }, pt),
        align,
        sd: w.sd,
        sd_layout,
        data_offset: cmd.data_offset.map(|d| d + start),
        mkfs: cmd.argv,
        table_why,
        notes,
    })
}

/// The partition's length within what addresses it: an MBR table reaches
/// the first 2 TiB of a drive, and a filesystem may address less than the
/// partition (FAT: 2 TiB, where mkfs.fat would leave the rest unused without
/// saying so in the plan). The rest of the drive stays unpartitioned, said.
fn within_reach(
    table: Table,
    start: u64,
    size: u64,
    fs: &dyn Filesystem,
    cluster: u64,
    notes: &mut Vec<String>,
) -> u64 {
    if table == Table::None {
        return size;
    }
    let mbr = (table == Table::Mbr).then(|| {
        (
            MBR_MAX.saturating_sub(start),
            "an MBR table addresses the first 2 TiB of a drive".to_string(),
        )
    });
    let own = fs
        .max_volume(cluster)
        .map(|(max, why)| (max, format!("{} addresses no more: {why}", fs.info().title)));
    let Some((max, why)) = [mbr, own]
        .into_iter()
        .flatten()
        .filter(|(max, _)| *max < size)
        .min_by_key(|(max, _)| *max)
    else {
        return size;
    };
    let max = max / SECTOR * SECTOR;
    notes.push(format!(
        "the partition is {}, not {}: {why}; the last {} of the drive stays unused",
        iec(max),
        iec(size),
        iec(size - max)
    ));
    max
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

/// The user the new volume belongs to: the one behind sudo, else the caller.
pub fn owner() -> (u32, u32) {
    #[cfg(target_os = "linux")]
    {
        let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u32>().ok());
        match (env("SUDO_UID"), env("SUDO_GID")) {
            (Some(u), Some(g)) => (u, g),
            _ => unsafe { (libc::getuid(), libc::getgid()) },
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        (0, 0)
    }
}

impl Layout {
    /// The table the device ends up with, as the JSON names it.
    pub fn table_name(&self) -> &'static str {
        if self.mbr_boot_area {
            "mbr"
        } else {
            self.table.name()
        }
    }

    /// The plan as every view shows it, with the commands that carry it out.
    pub fn doc(&self) -> DrivePlan {
        let mut why = vec![self.table_why.clone()];
        why.extend(self.notes.iter().cloned());
        DrivePlan {
            table: self.table_name().to_string(),
            partition_start_bytes: self.start,
            partition_size_bytes: self.size,
            unused_bytes: self.full_size - self.size,
            partition_type: self.part_type.clone(),
            alignment_bytes: self.align,
            sd_layout: self.sd_layout,
            fs: self.fs.name().to_string(),
            cluster_bytes: self.cluster,
            label: self.label.clone(),
            data_offset_bytes: self.data_offset,
            commands: PlanCommands {
                linux: paste::linux_steps(self),
                windows: paste::windows_line(self),
                macos: paste::macos_line(self),
                fsfit: paste::fsfit_line(self),
            },
            why,
        }
    }
}

impl DrivePlan {
    /// The plan in two lines (the table and partition, then the volume),
    /// as the text and the HTML print it.
    pub fn summary(&self) -> [String; 2] {
        let part = match &self.partition_type {
            Some(t) if self.table != "none" => format!(
                "{} table, one partition {}from {} (type {t})",
                self.table.to_uppercase(),
                match self.unused_bytes {
                    0 => String::new(),
                    _ => format!("of {} ", iec(self.partition_size_bytes)),
                },
                short(self.partition_start_bytes)
            ),
            _ => "no partition table: the volume from the drive's first sector".into(),
        };
        let title = fs::by_name(&self.fs).map_or(self.fs.as_str(), |f| f.info().title);
        let label = self.label.as_deref().map_or("no label".to_string(), |l| {
            format!("label {}", crate::quote::quote(l))
        });
        let data = self
            .data_offset_bytes
            .map_or(String::new(), |d| match d % 1024 {
                0 => format!(", data area at {}", short(d)),
                _ => format!(", data area at byte {d}"),
            });
        let sd = if self.sd_layout {
            "; the SD specification's layout"
        } else {
            ""
        };
        [
            format!("{part}, aligned to {}", short(self.alignment_bytes)),
            format!(
                "{title}, {} clusters, {label}{data}{sd}",
                short(self.cluster_bytes)
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(capacity: u64, fs: &str, mbr_for: Option<&'static [&'static str]>) -> Want<'static> {
        Want {
            capacity,
            fs: Some((fs::by_name(fs).unwrap(), None)),
            label: None,
            table: None,
            align: None,
            sd: false,
            mbr_for,
            partition_offset: None,
            dev: "/dev/sdX",
            owner: (0, 0),
        }
    }

    #[test]
    fn mbr_only_where_needed_and_within_2_tib() {
        let l = decide(&want(64_000_000_000, "exfat", Some(&["car"]))).unwrap();
        assert_eq!(
            (l.table, l.part_type.as_deref()),
            (Table::Mbr, Some("0x07"))
        );
        let l = decide(&want(64_000_000_000, "ext4", Some(&[]))).unwrap();
        assert_eq!(l.table, Table::Gpt);
        // No use known (fsfit format): MBR up to 2 TiB, GPT above.
        assert_eq!(
            decide(&want(1 << 41, "ntfs", None)).unwrap().table,
            Table::Mbr
        );
        assert_eq!(
            decide(&want(4_000_000_000_000, "ntfs", None))
                .unwrap()
                .table,
            Table::Gpt
        );
        assert_eq!(
            decide(&want(1 << 30, "udf", Some(&["windows"])))
                .unwrap()
                .table,
            Table::None
        );
    }

    #[test]
    fn over_2_tib_the_partition_ends_where_the_table_and_the_filesystem_reach() {
        // Over 2 TiB a system that reads only MBR still gets MBR, the
        // partition ending where MBR's reach does, and the plan says so.
        let l = decide(&want(4_000_000_000_000, "exfat", Some(&["car"]))).unwrap();
        assert_eq!(l.table, Table::Mbr);
        assert!(
            l.table_why.contains("2 TiB") && l.table_why.contains("unread by car"),
            "{}",
            l.table_why
        );
        assert_eq!(l.start + l.size, MBR_MAX);
        let d = l.doc();
        assert_eq!(d.unused_bytes, l.full_size - l.size);
        assert!(
            d.summary()[0].contains("one partition of 2.00 TiB from 4M"),
            "{:?}",
            d.summary()
        );
        assert!(
            d.why.iter().any(|n| n.contains("stays unused")),
            "{:?}",
            d.why
        );
        let sfdisk = d
            .commands
            .linux
            .iter()
            .find(|c| c.contains("sfdisk"))
            .unwrap();
        assert!(
            sfdisk.contains(&format!("size={}", l.size / SECTOR)),
            "{sfdisk}"
        );
        assert!(
            d.commands.fsfit.contains("--table mbr"),
            "{}",
            d.commands.fsfit
        );
        // --table mbr over 2 TiB: the partition within MBR's reach.
        let mut w = want(4_000_000_000_000, "ntfs", None);
        w.table = Some(Table::Mbr);
        let l = decide(&w).unwrap();
        assert_eq!((l.table, l.start + l.size), (Table::Mbr, MBR_MAX));
        // FAT32 addresses 2^32 - 1 sectors: on GPT the partition is no
        // longer, where mkfs.fat would leave the rest unused unsaid.
        let l = decide(&want(3_000_000_000_000, "fat32", Some(&[]))).unwrap();
        assert_eq!((l.table, l.size), (Table::Gpt, u32::MAX as u64 * SECTOR));
        assert!(
            l.notes
                .iter()
                .any(|n| n.contains("FAT32 addresses no more")),
            "{:?}",
            l.notes
        );
        // Within the reach, nothing is cut.
        let l = decide(&want(1 << 40, "fat32", None)).unwrap();
        assert_eq!(l.size, l.full_size);
        assert_eq!(l.doc().unused_bytes, 0);
    }

    #[test]
    fn gpt_partitions_keep_clear_of_both_copies_of_the_table() {
        let cases = [
            (1u64 << 30, 64u64 << 10),
            (40 << 20, 32 << 10),
            (4 << 20, 24 << 10),
            (999_999_488, 64 << 10),
        ];
        for (capacity, start) in cases {
            let mut w = want(capacity, "exfat", None);
            (w.sd, w.table) = (true, Some(Table::Gpt));
            let l = decide(&w).unwrap();
            assert_eq!(l.start, start, "{capacity}");
            assert!(l.start >= GPT_HEAD * SECTOR, "{capacity}");
            let last = capacity / SECTOR - GPT_TAIL;
            assert!((l.start + l.size) / SECTOR <= last, "{capacity}");
            // sfdisk is told GPT's first usable sector, or it refuses a
            // start before 1 MiB; the pasted line says it too.
            let head = gpt_first_lba(l.table, l.start).unwrap();
            assert!(
                l.doc().commands.linux.iter().any(|c| c.contains(&head)),
                "{capacity}"
            );
        }
        assert_eq!(gpt_first_lba(Table::Gpt, 1 << 20), None);
        assert_eq!(gpt_first_lba(Table::Mbr, 64 << 10), None);
    }

    #[test]
    fn the_sd_layout_by_capacity() {
        let mut w = want(64_000_000_000, "exfat", Some(&["camera"]));
        (w.fs, w.sd) = (None, true);
        let l = decide(&w).unwrap();
        assert!(l.sd_layout);
        assert_eq!(
            (l.cluster, l.start, l.align),
            (128 << 10, 16 << 20, 16 << 20)
        );
        assert_eq!(l.data_offset.unwrap() % (16 << 20), 0);
        let d = l.doc();
        assert!(d.commands.fsfit.contains(" --sd"), "{}", d.commands.fsfit);
        // Another cluster on the SD layout's alignment is not the layout.
        w.fs = Some((fs::by_name("exfat").unwrap(), Some(4096)));
        let l = decide(&w).unwrap();
        assert!(!l.sd_layout && l.sd && l.start == 16 << 20);
    }
}
