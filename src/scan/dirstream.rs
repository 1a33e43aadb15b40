//! One directory read with `readdir` and `fstatat(dirfd, name)`, without
//! the allocations of `std::fs::read_dir` (a `CString` per entry, an `Arc`
//! and a copy of the path per directory): the walk does this for every
//! entry of the tree, and malloc/free were ~10 % of its user CPU.

use super::{Entry, Kind};
use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::ptr::NonNull;

/// A command-line path's entry, from its `stat`.
pub fn entry_of(name: OsString, md: &std::fs::Metadata) -> Entry {
    Entry::new(name, kind_of_mode(md.mode()), md.len(), md.mtime())
        .with_allocated(md.blocks().saturating_mul(512))
}

/// The device a path's `stat` names (a different one is another mount).
pub fn dev_of(md: &std::fs::Metadata) -> u64 {
    md.dev()
}

fn kind_of_mode(mode: u32) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Symlink,
        // FIFOs, sockets, block and character devices.
        _ => Kind::Other,
    }
}

pub struct DirStream {
    dir: NonNull<libc::DIR>,
}

// The stream is used by one thread at a time (it moves with its task).
unsafe impl Send for DirStream {}

/// What `lstat` says about one entry, in the walk's terms.
pub struct Stat {
    pub mode: u32,
    pub size: u64,
    pub mtime: i64,
    pub dev: u64,
    /// Allocated bytes (`st_blocks * 512`).
    pub allocated: u64,
}

/// One name read from the stream, valid until the next read.
pub struct Item<'a> {
    pub name: &'a CStr,
    fd: libc::c_int,
}

impl Stat {
    pub fn kind(&self) -> Kind {
        kind_of_mode(self.mode)
    }
}

impl Item<'_> {
    pub fn os_name(&self) -> &OsStr {
        OsStr::from_bytes(self.name.to_bytes())
    }

    /// `fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW)`: symlinks are not followed.
    pub fn lstat(&self) -> io::Result<Stat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid directory fd, a NUL-terminated name and room for the result.
        let r = unsafe {
            libc::fstatat(
                self.fd,
                self.name.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fstatat succeeded, so it filled the struct.
        let st = unsafe { st.assume_init() };
        Ok(Stat {
            mode: st.st_mode,
            size: st.st_size as u64,
            mtime: st.st_mtime,
            dev: st.st_dev,
            allocated: (st.st_blocks as u64).saturating_mul(512),
        })
    }
}

impl DirStream {
    /// `opendir(path)`: like `std::fs::read_dir`, a symlink at `path` is followed.
    pub fn open(path: &Path) -> io::Result<DirStream> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))?;
        // SAFETY: a NUL-terminated path; the result is checked for NULL.
        let dir = unsafe { libc::opendir(c.as_ptr()) };
        NonNull::new(dir)
            .map(|dir| DirStream { dir })
            .ok_or_else(io::Error::last_os_error)
    }

    /// The next entry other than `.` and `..`; None at the end.
    pub fn next_item(&mut self) -> Option<io::Result<Item<'_>>> {
        loop {
            // readdir returns NULL both at the end and on error; only errno
            // tells them apart.
            // SAFETY: errno is this thread's; the stream is open.
            unsafe { *libc::__errno_location() = 0 };
            let ent = unsafe { libc::readdir64(self.dir.as_ptr()) };
            if ent.is_null() {
                let err = io::Error::last_os_error();
                return match err.raw_os_error() {
                    Some(0) | None => None,
                    Some(_) => Some(Err(err)),
                };
            }
            // SAFETY: readdir's entry stays valid until the next call on this
            // stream, which needs `&mut self` and so ends the borrow first.
            let name = unsafe { CStr::from_ptr((*ent).d_name.as_ptr()) };
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            // SAFETY: the stream is open.
            let fd = unsafe { libc::dirfd(self.dir.as_ptr()) };
            return Some(Ok(Item { name, fd }));
        }
    }
}

impl Drop for DirStream {
    fn drop(&mut self) {
        // SAFETY: opened by `open`, closed once.
        unsafe { libc::closedir(self.dir.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_name_once_and_stats_without_following() {
        let d = std::env::temp_dir().join(format!("fsfit-dirstream-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("file"), b"12345").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::os::unix::fs::symlink("file-that-is-not-there", d.join("link")).unwrap();
        let mut s = DirStream::open(&d).unwrap();
        let mut seen = Vec::new();
        while let Some(item) = s.next_item() {
            let item = item.unwrap();
            let st = item.lstat().unwrap();
            seen.push((
                item.name.to_bytes().to_vec(),
                st.mode & libc::S_IFMT,
                st.size,
            ));
        }
        seen.sort();
        assert_eq!(
            seen,
            vec![
                (b"file".to_vec(), libc::S_IFREG, 5),
                (b"link".to_vec(), libc::S_IFLNK, 22),
                (b"sub".to_vec(), libc::S_IFDIR, seen[2].2),
            ]
        );
        let missing = DirStream::open(&d.join("nope")).err().unwrap();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
