//! `fsfit info TARGET`: a block device, an image file or a mounted path,
//! turned into one report (partitions, the filesystem on each, statvfs and
//! fragmentation for a mounted path).

use crate::info::{partitions, probe_with, FragReport, Partition, ProbeOptions, VolumeInfo};
use crate::units::{iec, short};
use crate::{Error, Result};
use serde::Serialize;
use std::path::Path;

pub const SCHEMA: &str = "fsfit.info/1";

#[derive(Debug, Clone, Serialize)]
pub struct PartitionInfo {
    #[serde(flatten)]
    pub partition: Partition,
    pub volume: Option<VolumeInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the filesystem's data area starts, from the disk's start, and
    /// the largest power of two (up to 64 MiB) it is aligned to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_offset_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_alignment_bytes: Option<u64>,
    /// The alignment its layout promises, and whether it keeps it.
    pub alignment_promise: Promise,
}

/// What a partition's start (and data area) is judged against: the SD
/// boundary unit where the volume is the SD specification's layout for
/// the disk's capacity (filesystem and cluster as its table has them),
/// else 1 MiB, as partitioning tools align (4 MiB suits more flash).
#[derive(Debug, Clone, Serialize)]
pub struct Promise {
    /// `sd-boundary-unit` or `1MiB`.
    pub kind: &'static str,
    pub alignment_bytes: u64,
    pub aligned: bool,
    pub meaning: String,
}

const MIB: u64 = 1 << 20;

/// The promise of a partition starting `start` bytes into a disk of
/// `disk` bytes, holding `v`, its data area at `data` from the disk's start.
pub fn promise(disk: u64, start: u64, v: Option<&VolumeInfo>, data: Option<u64>) -> Promise {
    let sd = crate::fs::sd::row(disk)
        .ok()
        .filter(|r| v.is_some_and(|v| v.fs == r.fs && v.cluster_bytes == r.cluster));
    match sd {
        Some(r) => Promise {
            kind: "sd-boundary-unit",
            alignment_bytes: r.bu,
            aligned: start % r.bu == 0 && data.is_none_or(|d| d % r.bu == 0),
            meaning: format!(
                "the SD specification's layout for a {} card: the partition and the data area on its {} boundary unit",
                iec(disk),
                short(r.bu)
            ),
        },
        None => Promise {
            kind: "1MiB",
            alignment_bytes: MIB,
            aligned: start % MIB == 0,
            meaning: "1 MiB, as partitioning tools align (4 MiB suits more flash erase blocks)".into(),
        },
    }
}

/// The largest power of two, up to 64 MiB (the largest SD boundary unit),
/// that divides `offset`.
pub fn alignment_of(offset: u64) -> u64 {
    const MAX: u64 = 64 << 20;
    if offset == 0 {
        MAX
    } else {
        (1u64 << offset.trailing_zeros()).min(MAX)
    }
}

/// (data offset, its alignment) of a volume starting `start` bytes in.
fn data_area(start: u64, v: Option<&VolumeInfo>) -> (Option<u64>, Option<u64>) {
    let off = v.and_then(|v| v.data_offset_bytes).map(|d| start + d);
    (off, off.map(alignment_of))
}

/// A report of `target` with what its start on the disk and its volume
/// give (alignment, data area), computed once; no partitions, mount or
/// fragmentation: the caller adds what it has.
fn report(
    target: String,
    kind: &str,
    size: u64,
    start: Option<u64>,
    volume: Option<VolumeInfo>,
    volume_error: Option<String>,
) -> InfoReport {
    let (data_offset_bytes, data_alignment_bytes) = data_area(start.unwrap_or(0), volume.as_ref());
    InfoReport {
        schema: SCHEMA,
        target,
        kind: kind.into(),
        size_bytes: size,
        start_bytes: start,
        aligned_1m: start.map(|s| s % (1 << 20) == 0),
        aligned_4m: start.map(|s| s % (4 << 20) == 0),
        data_offset_bytes,
        data_alignment_bytes,
        volume,
        volume_error,
        partitions: Vec::new(),
        mounted: None,
        fragmentation: None,
    }
}

/// What statvfs and /proc/self/mounts say about a mounted path.
#[derive(Debug, Clone, Serialize)]
pub struct Mounted {
    pub mount_point: String,
    pub source: String,
    pub fstype: String,
    pub block_bytes: u64,
    pub size_bytes: u64,
    pub free_bytes: u64,
    pub available_bytes: u64,
    pub used_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct InfoReport {
    pub schema: &'static str,
    pub target: String,
    /// device, image or mounted
    pub kind: String,
    pub size_bytes: u64,
    /// For a partition device: where it starts on its disk, and alignment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aligned_1m: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aligned_4m: Option<bool>,
    /// Where the volume's data area starts, from the disk's start (a
    /// partition device's start included), and its alignment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_offset_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_alignment_bytes: Option<u64>,
    /// The filesystem at the start of the target (none when it holds a partition table).
    pub volume: Option<VolumeInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_error: Option<String>,
    pub partitions: Vec<PartitionInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mounted: Option<Mounted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragmentation: Option<FragReport>,
}

/// A partition device's start on its disk, from /sys/class/block/NAME/start.
fn partition_start(dev: &Path) -> Option<u64> {
    let name = dev.canonicalize().ok()?.file_name()?.to_str()?.to_string();
    let sectors: u64 = std::fs::read_to_string(format!("/sys/class/block/{name}/start"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    sectors.checked_mul(512)
}

/// What is at the start of a file or device: a filesystem (or why not), or partitions.
type Probed = (Option<VolumeInfo>, Option<String>, Vec<PartitionInfo>);

/// A reader of a file or device, `base` bytes in.
type Reader<'a> = Box<dyn FnMut(u64, usize) -> std::io::Result<Vec<u8>> + 'a>;

fn probe_file(path: &Path, size: u64, opts: &ProbeOptions) -> Result<Probed> {
    let disk = layout_size(path, size);
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    probe_reader(path, size, disk, opts, &|base| {
        Box::new(crate::info::file_reader(&f, base))
    })
}

/// What is at the start of what `open(base)` reads, and in its partitions;
/// `disk` is the size the drive was laid out for (what its alignment is
/// judged against).
fn probe_reader<'a>(
    path: &Path,
    size: u64,
    disk: u64,
    opts: &ProbeOptions,
    open: &dyn Fn(u64) -> Reader<'a>,
) -> Result<Probed> {
    let mut read = open(0);
    let parts = partitions(&mut read)
        .map_err(|e| e.within(format_args!("{}: partition table", path.display())))?;
    if parts.is_empty() {
        return match probe_with(&mut read, opts) {
            Ok(v) => Ok((Some(v), None, Vec::new())),
            Err(e) => Ok((None, Some(e.to_string()), Vec::new())),
        };
    }
    let mut out = Vec::new();
    for p in parts {
        let mut r = open(p.start_bytes);
        let (volume, error) = if p.start_bytes >= size && size > 0 {
            (
                None,
                Some("starts beyond the end of the device".to_string()),
            )
        } else {
            match probe_with(&mut r, opts) {
                Ok(mut v) => {
                    // The device may go on past the partition (into the
                    // next one): the partition's own size is the limit.
                    let claims = v.device_bytes.unwrap_or(v.volume_bytes);
                    if claims > p.size_bytes {
                        v.warnings.push(format!(
                            "the filesystem claims {claims} bytes but its partition holds only {}",
                            p.size_bytes
                        ));
                    }
                    v.warnings
                        .extend(hidden_sectors_mismatch(&v, p.start_bytes));
                    (Some(v), None)
                }
                Err(e) => (None, Some(e.to_string())),
            }
        };
        let (data_offset_bytes, data_alignment_bytes) = data_area(p.start_bytes, volume.as_ref());
        let alignment_promise = promise(disk, p.start_bytes, volume.as_ref(), data_offset_bytes);
        out.push(PartitionInfo {
            partition: p,
            volume,
            error,
            data_offset_bytes,
            data_alignment_bytes,
            alignment_promise,
        });
    }
    Ok((None, None, out))
}

/// The size the drive was laid out for: an image fsfit made records it
/// before the marker at its end (the file is that much longer).
fn layout_size(path: &Path, size: u64) -> u64 {
    #[cfg(target_os = "linux")]
    if let Ok(f) = std::fs::File::open(path) {
        if let Some(v) = crate::device::image::read_marker(&f, size) {
            return v;
        }
    }
    let _ = path;
    size
}

/// FAT's hidden sectors (BPB_HiddSec) must say where the partition starts:
/// cameras, car units and boot code find the volume by it, and Windows
/// checks it. 0 inside a partition at 2048 is a volume formatted as a
/// whole-disk image and then put into a partition.
fn hidden_sectors_mismatch(v: &VolumeInfo, start_bytes: u64) -> Option<String> {
    let hidden: u64 = v
        .details
        .iter()
        .find(|(k, _)| k == "hidden sectors")?
        .1
        .parse()
        .ok()?;
    let start = start_bytes / v.sector_bytes.max(1);
    (hidden != start).then(|| {
        format!(
            "hidden sectors is {hidden} but the partition starts at sector {start}: devices that find the volume by it (cameras, car units, boot code) may not read it; format the partition's device (mkfs.fat reads the start from it) or give mkfs.fat -h {start}"
        )
    })
}

pub fn inspect(target: &Path, max_files: usize) -> Result<InfoReport> {
    inspect_with(target, max_files, &ProbeOptions::default())
}

/// `inspect`, with probe options (the FAT label code page).
pub fn inspect_with(target: &Path, max_files: usize, opts: &ProbeOptions) -> Result<InfoReport> {
    let name = target.to_string_lossy().into_owned();
    #[cfg(windows)]
    if let Some(dev) = crate::info::drive::device_of(target) {
        return drive(&dev, name, opts);
    }
    let md = std::fs::metadata(target).map_err(|e| Error::io(target, e))?;
    if md.is_dir() {
        return mounted(target, name, max_files, opts);
    }
    let ft = md.file_type();
    let (kind, size) = if is_block_device(&ft) {
        let f = std::fs::File::open(target).map_err(|e| Error::io(target, e))?;
        use std::io::{Seek, SeekFrom};
        let size = (&f)
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::io(target, e))?;
        ("device", size)
    } else if ft.is_file() {
        ("image", md.len())
    } else {
        return Err(Error::input(format!(
            "{}: not a block device, an image file or a mounted directory",
            target.display()
        )));
    };
    let (mut volume, volume_error, parts) = probe_file(target, size, opts)?;
    let start = if kind == "device" {
        partition_start(target)
    } else {
        None
    };
    if let (Some(v), Some(st)) = (volume.as_mut(), start) {
        v.warnings.extend(hidden_sectors_mismatch(v, st));
    }
    Ok(InfoReport {
        partitions: parts,
        ..report(name, kind, size, start, volume, volume_error)
    })
}

/// A Windows drive (`E:`, `\\.\E:`, `\\.\PhysicalDrive1`), read in whole
/// sectors; a volume's partition start gives its alignment as on Linux.
#[cfg(windows)]
fn drive(dev: &str, name: String, opts: &ProbeOptions) -> Result<InfoReport> {
    let d = crate::info::drive::open(dev)?;
    let (mut volume, volume_error, parts) =
        probe_reader(Path::new(dev), d.size, d.size, opts, &|base| {
            Box::new(crate::info::drive::sector_reader(
                &d.file, d.size, d.sector, base,
            ))
        })?;
    if let (Some(v), Some(st)) = (volume.as_mut(), d.start) {
        v.warnings.extend(hidden_sectors_mismatch(v, st));
    }
    Ok(InfoReport {
        partitions: parts,
        ..report(name, "device", d.size, d.start, volume, volume_error)
    })
}

#[cfg(target_os = "linux")]
fn is_block_device(ft: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    ft.is_block_device()
}

/// Block devices and mounted directories are inspected on Linux only;
/// elsewhere a target is an image file.
#[cfg(not(target_os = "linux"))]
fn is_block_device(_ft: &std::fs::FileType) -> bool {
    false
}

#[cfg(not(target_os = "linux"))]
fn mounted(target: &Path, _: String, _: usize, _: &ProbeOptions) -> Result<InfoReport> {
    Err(Error::input(format!(
        "{}: a mounted directory is inspected on Linux only",
        target.display()
    )))
}

/// A mounted directory: statvfs, the mount's source device probed when it
/// can be read, and fragmentation.
#[cfg(target_os = "linux")]
fn mounted(
    target: &Path,
    name: String,
    max_files: usize,
    opts: &ProbeOptions,
) -> Result<InfoReport> {
    let s = crate::device::statvfs(target)?;
    let fr = s.f_frsize;
    let (fstype, source, mp) = crate::device::mount_of(target).unwrap_or_default();
    let mounted = Mounted {
        mount_point: mp,
        source: source.clone(),
        fstype,
        block_bytes: fr,
        size_bytes: s.f_blocks * fr,
        free_bytes: s.f_bfree * fr,
        available_bytes: s.f_bavail * fr,
        used_bytes: (s.f_blocks).saturating_sub(s.f_bfree) * fr,
    };
    // The on-disk details too, when the source is a block device we can read.
    let src = Path::new(&source);
    let is_block = std::fs::metadata(src)
        .map(|m| is_block_device(&m.file_type()))
        .unwrap_or(false);
    let (volume, volume_error) = if is_block {
        match crate::info::probe_path_with(src, 0, opts) {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e.to_string())),
        }
    } else {
        (None, None)
    };
    let frag = crate::info::fragmentation(target, max_files).ok();
    let start = if is_block { partition_start(src) } else { None };
    let size = mounted.size_bytes;
    Ok(InfoReport {
        mounted: Some(mounted),
        fragmentation: frag,
        ..report(name, "mounted", size, start, volume, volume_error)
    })
}
