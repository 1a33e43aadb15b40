//! `fsfit info`: what is on a drive now. Identifies the filesystem at the
//! start of a volume by its signatures and reads its geometry (cluster size,
//! volume size, label, serial, free space where the filesystem keeps a count)
//! straight from the on-disk structures; lists MBR/GPT partitions with their
//! alignment; and measures file fragmentation on a mounted path (FIEMAP).
//!
//! Everything read from the device is untrusted: a truncated or corrupt
//! structure is an `Err` naming the field, never a panic; every size read
//! from disk is checked before it drives an allocation or a loop.

pub mod describe;
pub mod drive;
pub mod foreign;
#[cfg(target_os = "linux")]
pub mod frag;
pub mod fragreport;
pub mod inspect;
pub mod part;

#[cfg(target_os = "linux")]
pub use frag::fragmentation;
pub use fragreport::FragReport;
pub use part::partitions;
// The probe kit moved to fs/probe/; these keep the old paths working.
pub use crate::fs::probe::{bytes, codepage, ProbeError, ProbeOptions, VolumeInfo};

use crate::fs::probe::signature::{self, Strength};
use bytes::Dev;
use serde::Serialize;
use std::path::Path;

/// One partition of an MBR or GPT partition table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Partition {
    /// 1..4 for MBR primaries, 5.. for logicals, the entry number for GPT.
    pub index: u32,
    pub start_bytes: u64,
    pub size_bytes: u64,
    /// "mbr:0x83 Linux", "gpt:Microsoft basic data \"name\"", or the raw type.
    pub kind: String,
    /// Start aligned to 1 MiB / 4 MiB (flash erase blocks).
    pub aligned_1m: bool,
    pub aligned_4m: bool,
}

/// A reader: `read_at(offset, len)` returns up to `len` bytes at `offset`
/// (fewer at the end of the device, none past it).
pub type ReadAt<'a> = &'a mut dyn FnMut(u64, usize) -> std::io::Result<Vec<u8>>;

/// Identify and parse a filesystem from the start of a volume.
pub fn probe(read_at: ReadAt) -> Result<VolumeInfo, ProbeError> {
    probe_with(read_at, &ProbeOptions::default())
}

/// `probe`, with options (the FAT label code page).
pub fn probe_with(read_at: ReadAt, opts: &ProbeOptions) -> Result<VolumeInfo, ProbeError> {
    let mut dev = Dev::new(read_at);
    let mut v = identify(&mut dev, opts)?;
    // A volume that claims more than the file or device holds: an image
    // cut short (a partial download or copy), or a partition table that
    // gives the partition less than its filesystem spans.
    let have = dev.size();
    let claims = v.device_bytes.unwrap_or(v.volume_bytes);
    if have < claims {
        v.warnings.push(format!(
            "truncated: the volume claims {claims} bytes but only {have} are readable here \
             ({} missing); what lies past the end (files, free space counts) cannot be read",
            claims - have
        ));
    }
    Ok(v)
}

fn identify(dev: &mut Dev, opts: &ProbeOptions) -> Result<VolumeInfo, ProbeError> {
    let head = dev.read(0, 4096)?;
    if head.is_empty() {
        return Err(ProbeError::NotFound(
            "nothing to read: the volume is empty".into(),
        ));
    }
    // Strong signatures first; FAT (only 0x55AA and a sane BPB) last.
    if let Some(found) = signature::identify(dev, &head, opts, Strength::Strong) {
        return found;
    }
    // Volumes fsfit does not read, several of which carry a FAT-like boot
    // sector: name them rather than report a bogus BPB field.
    let foreign = |what: String| {
        ProbeError::NotFound(format!(
            "no filesystem fsfit knows: this is {what}, which fsfit does not read"
        ))
    };
    if let Some(what) = foreign::boot_sector(&head) {
        return Err(foreign(what));
    }
    match signature::identify(dev, &head, opts, Strength::Weak) {
        None => {}
        Some(Ok(v)) => return Ok(v),
        Some(Err(e)) => {
            return match foreign::deeper(dev, &head)? {
                Some(what) => Err(foreign(what)),
                None if signature::looks_damaged(&head) => Err(explain_table(dev, e)),
                None => Err(explain_table(
                    dev,
                    ProbeError::NotFound(format!(
                        "no filesystem fsfit knows: the first sector ends in 0x55AA, but \
                         it is not a FAT boot sector ({e}) and no other known signature \
                         is present"
                    )),
                )),
            }
        }
    }
    if let Some(what) = foreign::deeper(dev, &head)? {
        return Err(foreign(what));
    }
    if head.len() < 512 {
        return Err(ProbeError::NotFound(format!(
            "volume too short: only {} bytes readable, and no filesystem signature in them",
            head.len()
        )));
    }
    Err(explain_table(
        dev,
        // Short enough that `fsfit: PATH: ` before it stays within 100
        // columns: it is the whole refusal of `fsfit info` on a blank image.
        ProbeError::NotFound(
            "no filesystem fsfit knows (FAT, exFAT, NTFS, ext2-4, XFS, btrfs, F2FS, UDF)".into(),
        ),
    ))
}

/// A whole disk probed as if it were a volume: say so, instead of a
/// puzzling BPB error about the MBR's boot code.
fn explain_table(dev: &mut Dev, err: ProbeError) -> ProbeError {
    match part::partitions_dev(dev) {
        Ok(p) if !p.is_empty() => {
            let starts: Vec<String> = p.iter().map(|p| p.start_bytes.to_string()).collect();
            ProbeError::NotFound(format!(
                "no filesystem at this offset: it holds a partition table with {} \
                 (probe at a partition's start offset: {})",
                crate::units::count(p.len() as u64, "partition"),
                starts.join(", ")
            ))
        }
        _ => err,
    }
}

/// Open a block device or image file read-only and probe it, `offset` bytes
/// in (a partition inside a whole-disk image).
pub fn probe_path(path: &Path, offset: u64) -> Result<VolumeInfo, ProbeError> {
    probe_path_with(path, offset, &ProbeOptions::default())
}

/// `probe_path`, with options.
pub fn probe_path_with(
    path: &Path,
    offset: u64,
    opts: &ProbeOptions,
) -> Result<VolumeInfo, ProbeError> {
    let f = std::fs::File::open(path)
        .map_err(|e| ProbeError::Read(format!("{}: {e}", path.display())))?;
    let mut read = file_reader(&f, offset);
    probe_with(&mut read, opts).map_err(|e| e.within(path.display()))
}

/// pread(2), or its Windows twin (which moves the file's cursor: the
/// readers here only ever read at explicit offsets).
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    use std::os::unix::fs::FileExt;
    #[cfg(unix)]
    return f.read_at(buf, pos);
    #[cfg(windows)]
    use std::os::windows::fs::FileExt;
    #[cfg(windows)]
    return f.seek_read(buf, pos);
}

/// `read_at` over a file or block device, `base` bytes in.
pub fn file_reader(
    f: &std::fs::File,
    base: u64,
) -> impl FnMut(u64, usize) -> std::io::Result<Vec<u8>> + '_ {
    move |off: u64, len: usize| {
        let start = base.checked_add(off).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "offset overflows")
        })?;
        let mut buf = vec![0u8; len];
        let mut got = 0;
        while got < len {
            let pos = start.checked_add(got as u64).ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "offset overflows")
            })?;
            match read_at(f, &mut buf[got..], pos) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        buf.truncate(got);
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe_bytes(img: &[u8]) -> Result<VolumeInfo, ProbeError> {
        let mut r = bytes::slice_reader(img);
        probe(&mut r)
    }

    #[test]
    fn empty_and_tiny_inputs_are_errors() {
        assert!(probe_bytes(&[]).unwrap_err().to_string().contains("empty"));
        assert!(probe_bytes(&[0u8; 100])
            .unwrap_err()
            .to_string()
            .contains("too short"));
        let e = probe_bytes(&vec![0u8; 1 << 20]).unwrap_err().to_string();
        assert!(e.contains("no filesystem fsfit knows"), "{e}");
    }

    #[test]
    fn truncated_signatures_are_named_errors() {
        let mut b = vec![0u8; 100];
        b[3..11].copy_from_slice(b"EXFAT   ");
        assert!(probe_bytes(&b)
            .unwrap_err()
            .to_string()
            .starts_with("exfat:"));
        b[3..11].copy_from_slice(b"NTFS    ");
        assert!(probe_bytes(&b)
            .unwrap_err()
            .to_string()
            .starts_with("ntfs:"));
        let mut x = vec![0u8; 50];
        x[0..4].copy_from_slice(b"XFSB");
        assert!(probe_bytes(&x).unwrap_err().to_string().starts_with("xfs:"));
    }

    #[test]
    fn reader_errors_are_reported() {
        let mut r =
            |_o: u64, _l: usize| -> std::io::Result<Vec<u8>> { Err(std::io::Error::other("boom")) };
        let e = probe(&mut r).unwrap_err().to_string();
        assert!(e.contains("boom"), "{e}");
    }

    #[test]
    fn errors_carry_their_kind() {
        assert!(matches!(probe_bytes(&[]), Err(ProbeError::NotFound(_))));
        let e = probe_bytes(&vec![0u8; 1 << 20]).unwrap_err();
        assert!(matches!(e, ProbeError::NotFound(_)), "{e:?}");
        let mut b = vec![0u8; 100];
        b[3..11].copy_from_slice(b"NTFS    ");
        assert!(matches!(probe_bytes(&b), Err(ProbeError::Corrupt(_))));
        let mut r =
            |_o: u64, _l: usize| -> std::io::Result<Vec<u8>> { Err(std::io::Error::other("boom")) };
        assert!(matches!(probe(&mut r), Err(ProbeError::Read(_))));
        let e = probe_path(Path::new("/nonexistent/fsfit-info"), 0).unwrap_err();
        assert!(matches!(e, ProbeError::Read(_)), "{e:?}");
        // The kind decides nothing about the text.
        assert_eq!(e.to_string(), e.message());
        assert!(
            e.to_string().starts_with("/nonexistent/fsfit-info: "),
            "{e}"
        );
    }

    #[test]
    fn probe_path_reports_missing_file() {
        let e = probe_path(Path::new("/nonexistent/fsfit-info"), 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/fsfit-info"), "{e}");
    }
}
