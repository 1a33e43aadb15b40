//! Opening what `fsfit probe` reads, read only, with O_DIRECT wherever the
//! kernel allows it, so every timed read reaches the storage: always on a
//! block device, and on an image file whose filesystem takes direct I/O
//! (ext4, XFS, btrfs do; tmpfs does not). statx's STATX_DIOALIGN says which
//! and at what alignment; where the kernel does not say, a first aligned
//! read tells.

use crate::{Error, Result};
use std::fs::File;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// How the file is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// O_DIRECT: the page cache is bypassed.
    pub direct: bool,
    /// The offset alignment O_DIRECT needs (bytes), when known.
    pub align: Option<u64>,
    /// Why the page cache is used, in words (None when direct).
    pub why_buffered: Option<String>,
}

/// Open `path` for reading only. Never writable.
pub fn open_readonly(path: &Path) -> Result<(File, Access)> {
    let md = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            Error::input(format!("{}: no such device or file", path.display()))
        }
        _ => Error::io(path, e),
    })?;
    if md.file_type().is_block_device() {
        let f = open(path, libc::O_DIRECT).map_err(|e| Error::io(path, e))?;
        let access = Access {
            direct: true,
            align: None,
            why_buffered: None,
        };
        return Ok((f, access));
    }
    if !md.is_file() {
        return Err(Error::input(format!(
            "{}: not a block device or an image file",
            path.display()
        )));
    }
    let why = match dio_align(path) {
        Some(0) => "its filesystem takes no O_DIRECT (statx gives no direct-I/O alignment)".into(),
        known => match open(path, libc::O_DIRECT) {
            Err(e) => format!("opening it O_DIRECT failed: {e}"),
            Ok(f) => match first_read(&f, known, md.len()) {
                Ok(align) => {
                    let access = Access {
                        direct: true,
                        align: Some(align),
                        why_buffered: None,
                    };
                    return Ok((f, access));
                }
                Err(e) => format!("an aligned O_DIRECT read of it failed: {e}"),
            },
        },
    };
    let f = open(path, 0).map_err(|e| Error::io(path, e))?;
    Ok((
        f,
        Access {
            direct: false,
            align: None,
            why_buffered: Some(why),
        },
    ))
}

/// Read only; O_NOATIME when allowed (only for the file's owner).
fn open(path: &Path, flags: i32) -> std::io::Result<File> {
    let with = |extra| {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags | extra)
            .open(path)
    };
    with(libc::O_NOATIME).or_else(|_| with(0))
}

/// The file offset alignment statx gives for O_DIRECT (0: no direct I/O),
/// None when the kernel or the filesystem does not say.
fn dio_align(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_DIOALIGN, &mut st) };
    (rc == 0 && st.stx_mask & libc::STATX_DIOALIGN != 0)
        .then_some(u64::from(st.stx_dio_offset_align))
}

/// The alignment one O_DIRECT read takes: `known` (from statx) or the first
/// of 512 and 4096 that works, read one alignment into the file.
fn first_read(f: &File, known: Option<u64>, len: u64) -> std::io::Result<u64> {
    let tries: Vec<u64> = known.map_or(vec![512, 4096], |a| vec![a]);
    let mut last = std::io::Error::from_raw_os_error(libc::EINVAL);
    for a in tries {
        let mut v = vec![0u8; 2 * a.max(4096) as usize];
        let skip = v.as_ptr().align_offset(a.max(4096) as usize);
        let buf = &mut v[skip..skip + a as usize];
        let at = if len >= 2 * a { a } else { 0 };
        match f.read_at(buf, at) {
            Ok(_) => return Ok(a),
            Err(e) => last = e,
        }
    }
    Err(last)
}
