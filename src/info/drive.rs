//! Windows' drives as `fsfit info` targets: `E:` (or `E:\`), `\\.\E:` and
//! `\\.\PhysicalDriveN`. Opened read-only (GENERIC_READ, sharing read and
//! write with whoever has the drive open: fsfit never writes to it) and read
//! in whole sectors, because Windows refuses a raw volume or disk read that
//! does not start and end on a sector boundary.
//!
//! Naming a drive is plain string work and builds everywhere (its tests run
//! on Linux too); opening one is Windows only.

use std::path::Path;

/// The raw device a target names on Windows: `E:` and `E:\` are the volume
/// `\\.\E:`; `\\.\E:` and `\\.\PhysicalDrive2` (either slash, any case) are
/// themselves. Anything else (an image file, a folder) is `None`.
pub fn device_name(target: &str) -> Option<String> {
    let letter = |s: &str| {
        let b = s.as_bytes();
        (b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
            .then(|| format!(r"\\.\{}:", b[0].to_ascii_uppercase() as char))
    };
    let bare = target.strip_suffix(['\\', '/']).unwrap_or(target);
    if let Some(d) = letter(bare) {
        return Some(d);
    }
    let rest = [r"\\.\", "//./"]
        .iter()
        .find_map(|p| target.strip_prefix(p))?;
    if let Some(d) = letter(rest) {
        return Some(d);
    }
    let n = rest
        .get(..13)
        .filter(|p| p.eq_ignore_ascii_case("PhysicalDrive"))
        .map(|_| &rest[13..])?;
    (!n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        .then(|| format!(r"\\.\PhysicalDrive{n}"))
}

/// `device_name`, where drives are Windows': on other systems a target is
/// never a drive letter (`E:` is a file name like any other).
pub fn device_of(target: &Path) -> Option<String> {
    if cfg!(windows) {
        device_name(&target.to_string_lossy())
    } else {
        None
    }
}

/// A reader of whole `sector`s of a device `size` bytes long, `base` bytes
/// in: each request is widened to the sectors that hold it, read into a
/// sector-aligned buffer, and cut back to what was asked (fewer bytes at the
/// end of the device, none past it), as `file_reader` answers.
pub fn sector_reader(
    f: &std::fs::File,
    size: u64,
    sector: u64,
    base: u64,
) -> impl FnMut(u64, usize) -> std::io::Result<Vec<u8>> + '_ {
    let sector = sector.max(1);
    move |off: u64, len: usize| {
        let overflow = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "offset overflows");
        let start = base.checked_add(off).ok_or_else(overflow)?;
        if start >= size || len == 0 {
            return Ok(Vec::new());
        }
        let end = start
            .checked_add(len as u64)
            .ok_or_else(overflow)?
            .min(size);
        let first = start / sector * sector;
        let last = end.div_ceil(sector) * sector;
        let want = (last - first) as usize;
        let mut raw = vec![0u8; want + sector as usize];
        let skew = raw
            .as_ptr()
            .align_offset(sector as usize)
            .min(sector as usize);
        let buf = &mut raw[skew..skew + want];
        let mut got = 0;
        while got < want {
            match super::read_at(f, &mut buf[got..], first + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let lo = ((start - first) as usize).min(got);
        let hi = ((end - first) as usize).min(got);
        Ok(buf[lo..hi].to_vec())
    }
}

/// An open drive: its handle, length, sector size and, for a volume on a
/// partitioned disk, where the partition starts.
#[cfg(windows)]
pub struct Drive {
    pub file: std::fs::File,
    pub size: u64,
    pub sector: u64,
    pub start: Option<u64>,
}

/// Open `dev` (a `device_name`) read-only, sharing it with its other users.
#[cfg(windows)]
pub fn open(dev: &str) -> crate::Result<Drive> {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Foundation::ERROR_ACCESS_DENIED;
    use windows_sys::Win32::Storage::FileSystem::{FILE_SHARE_READ, FILE_SHARE_WRITE};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .open(dev)
        .map_err(|e| {
            if e.raw_os_error() == Some(ERROR_ACCESS_DENIED as i32) {
                crate::Error::input(format!(
                    "access denied to {dev}: reading a drive directly needs administrator \
                     rights (run fsfit from a terminal opened as administrator)"
                ))
            } else if e.kind() == std::io::ErrorKind::NotFound {
                crate::Error::input(format!("no such drive: {dev}"))
            } else {
                crate::Error::io(dev, e)
            }
        })?;
    use windows_sys::Win32::System::Ioctl as io;
    let size = ioctl::<io::GET_LENGTH_INFORMATION>(&file, io::IOCTL_DISK_GET_LENGTH_INFO)
        .map(|l| l.Length as u64)
        .or_else(|| {
            use std::io::{Seek, SeekFrom};
            (&file).seek(SeekFrom::End(0)).ok()
        })
        .ok_or_else(|| {
            crate::Error::work(format!(
                "cannot read the length of {dev}: not a disk or volume that can be read directly"
            ))
        })?;
    let sector = ioctl::<io::DISK_GEOMETRY>(&file, io::IOCTL_DISK_GET_DRIVE_GEOMETRY)
        .map(|g| g.BytesPerSector as u64)
        .filter(|s| s.is_power_of_two() && *s >= 512)
        .unwrap_or(512);
    // A volume's own partition (a whole disk answers with offset 0).
    let start = ioctl::<io::PARTITION_INFORMATION_EX>(&file, io::IOCTL_DISK_GET_PARTITION_INFO_EX)
        .map(|p| p.StartingOffset as u64)
        .filter(|s| *s > 0);
    Ok(Drive {
        file,
        size,
        sector,
        start,
    })
}

/// A DeviceIoControl that takes nothing and fills one `T`; `None` when the
/// device does not answer it.
#[cfg(windows)]
fn ioctl<T: Default>(f: &std::fs::File, code: u32) -> Option<T> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::System::IO::DeviceIoControl;
    let mut out = T::default();
    let mut got = 0u32;
    let ok = unsafe {
        DeviceIoControl(
            f.as_raw_handle() as _,
            code,
            std::ptr::null(),
            0,
            (&mut out as *mut T).cast(),
            std::mem::size_of::<T>() as u32,
            &mut got,
            std::ptr::null_mut(),
        )
    };
    (ok != 0 && got as usize >= std::mem::size_of::<T>().min(8)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn drive_letters_and_raw_paths_name_devices() {
        for (t, want) in [
            ("e:", r"\\.\E:"),
            (r"E:\", r"\\.\E:"),
            ("E:/", r"\\.\E:"),
            (r"\\.\f:", r"\\.\F:"),
            ("//./G:", r"\\.\G:"),
            (r"\\.\PhysicalDrive2", r"\\.\PhysicalDrive2"),
            (r"\\.\physicaldrive10", r"\\.\PhysicalDrive10"),
        ] {
            assert_eq!(device_name(t).as_deref(), Some(want), "{t}");
        }
        for t in [
            "E",
            "EE:",
            r"E:\stick.img",
            "stick.img",
            r"\\.\PhysicalDrive",
            r"\\.\PhysicalDriveX",
            r"\\server\share",
            "1:",
        ] {
            assert_eq!(device_name(t), None, "{t}");
        }
    }

    #[test]
    fn sector_reads_answer_like_byte_reads() {
        let mut f = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        f.write_all(&data).unwrap();
        let size = data.len() as u64;
        let mut bytes = crate::info::file_reader(&f, 3);
        let mut sectors = sector_reader(&f, size, 512, 3);
        for (off, len) in [
            (0, 1),
            (509, 4),
            (511, 600),
            (4990, 100),
            (4997, 3),
            (6000, 9),
        ] {
            assert_eq!(
                sectors(off, len).unwrap(),
                bytes(off, len).unwrap(),
                "{off}+{len}"
            );
        }
    }
}
