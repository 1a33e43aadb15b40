//! One directory read with `getdents64` and each entry stat'ed by the
//! directory's descriptor (`fstatat(dirfd, name)`), as direct system calls
//! (rustix). Against libc's opendir/readdir with the same fstatat: no
//! `fstat` and no 32 KiB malloc per directory (opendir does both), and a
//! subdirectory is opened with `openat(dirfd, name)` while its parent is
//! read, so its own task does not look up every component of its path
//! again. Against `std::fs::read_dir`: no `CString`, `Arc` and path copy per
//! entry; the walk does this for every entry of the tree, and malloc/free
//! were ~10 % of its user CPU.

use super::{Entry, Kind};
use rustix::fs::{AtFlags, Mode, OFlags, RawDir};
use smallvec::SmallVec;
use std::ffi::{CStr, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Subdirectories opened ahead by their parent and waiting for their task
/// hold a descriptor each: past this many, the rest are opened by path when
/// their turn comes (a folder of 10,000 folders would otherwise hold 10,000
/// descriptors at once, and the usual soft limit is 1,024).
const HELD_MAX: usize = 256;
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Grow this process's descriptor table, once, to what the walk will hold
/// (its held subdirectories, one folder per thread, and some to spare),
/// before the walker threads exist. The kernel grows the table by doubling
/// when a descriptor past its end is opened, and in a process of several
/// threads each growth waits for an RCU grace period (`expand_files`,
/// `synchronize_rcu`) with every other opener blocked behind it: on
/// /usr, two or three growths in the walk's first 30 ms, 4-8 ms each,
/// left a core idle (a sched_switch trace showed the threads in D state
/// in `expand_files`). Grown while one thread runs, it waits for nothing.
/// The table never shrinks, so this is done once.
pub fn reserve_descriptors(threads: usize) {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        let want = (HELD_MAX + threads + 64) as libc::c_int;
        for std_fd in 0..3 {
            // SAFETY: F_DUPFD on a standard descriptor gives a new one at or
            // above `want`, or fails (that one closed, or the limit lower):
            // nothing else is touched, and the new one is closed at once.
            let fd = unsafe { libc::fcntl(std_fd, libc::F_DUPFD_CLOEXEC, want) };
            if fd >= 0 {
                unsafe { libc::close(fd) };
                return;
            }
        }
    });
}

/// An open directory.
pub struct DirStream {
    fd: OwnedFd,
    /// Opened ahead by its parent: counted in [`HELD`].
    held: bool,
}

/// One name read from a directory (never `.` or `..`), with its
/// terminating NUL: up to 35 bytes kept without an allocation (a `CString`
/// per entry was a malloc and a free for every file of the tree).
pub struct Listed {
    name: SmallVec<[u8; 36]>,
}

impl Listed {
    pub fn os_name(&self) -> &OsStr {
        OsStr::from_bytes(&self.name[..self.name.len() - 1])
    }

    fn c_name(&self) -> &CStr {
        // SAFETY: copied from a `CStr`'s bytes with its NUL in `list`: one
        // NUL, at the end.
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.name[..]) }
    }
}

/// What `lstat` says about one entry, in the walk's terms.
pub struct Stat {
    pub mode: u32,
    pub size: u64,
    pub mtime: i64,
    pub dev: u64,
    /// Allocated bytes (`st_blocks * 512`).
    pub allocated: u64,
}

impl Stat {
    pub fn kind(&self) -> Kind {
        kind_of_mode(self.mode)
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

impl DirStream {
    /// `open(path, O_DIRECTORY)`: like `std::fs::read_dir`, a symlink at
    /// `path` is followed.
    pub fn open(path: &Path) -> io::Result<DirStream> {
        let fd = rustix::fs::open(path, DIR_FLAGS, Mode::empty())?;
        Ok(DirStream { fd, held: false })
    }

    /// Every name in the order `readdir` gives them, into `out`; when a read
    /// fails, the names read before it are there.
    pub fn list(&mut self, out: &mut Vec<Listed>) -> io::Result<()> {
        // Entries are at most ~280 bytes; 32 KiB is what glibc's readdir reads.
        let mut buf = [MaybeUninit::<u8>::uninit(); 32 << 10];
        let mut rd = RawDir::new(&self.fd, &mut buf);
        while let Some(item) = rd.next() {
            let item = item?;
            let name = item.file_name();
            if !matches!(name.to_bytes(), b"." | b"..") {
                out.push(Listed {
                    name: SmallVec::from_slice(name.to_bytes_with_nul()),
                });
            }
        }
        Ok(())
    }

    /// `fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW)`: symlinks are not followed.
    pub fn stat(&self, l: &Listed) -> io::Result<Stat> {
        let st = rustix::fs::statat(&self.fd, l.c_name(), AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(Stat {
            mode: st.st_mode,
            size: st.st_size as u64,
            mtime: st.st_mtime,
            dev: st.st_dev,
            allocated: (st.st_blocks as u64).saturating_mul(512),
        })
    }

    /// The subdirectory `l` (already stat'ed as one the walk enters), opened
    /// now by this directory's descriptor; None: its task opens it by path
    /// (too many held already, or it cannot be opened: its task then
    /// reports why, as for any folder).
    pub fn open_child(&self, l: &Listed) -> Option<DirStream> {
        if HELD.fetch_add(1, Ordering::Relaxed) >= HELD_MAX {
            HELD.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        // O_NOFOLLOW: a symlink put there since the stat is not entered.
        let flags = DIR_FLAGS | OFlags::NOFOLLOW;
        match rustix::fs::openat(&self.fd, l.c_name(), flags, Mode::empty()) {
            Ok(fd) => Some(DirStream { fd, held: true }),
            Err(_) => {
                HELD.fetch_sub(1, Ordering::Relaxed);
                None
            }
        }
    }
}

impl Drop for DirStream {
    fn drop(&mut self) {
        if self.held {
            HELD.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is grown ahead to what the walk may hold (the kernel
    /// reports its size as FDSize).
    #[test]
    fn the_descriptor_table_is_grown_before_the_walk() {
        reserve_descriptors(8);
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let size: usize = status
            .lines()
            .find_map(|l| l.strip_prefix("FDSize:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap();
        assert!(size >= HELD_MAX + 8 + 64, "FDSize {size}");
    }

    #[test]
    fn lists_every_name_once_and_stats_without_following() {
        let d = tempfile::tempdir().unwrap();
        let d = d.path();
        std::fs::write(d.join("file"), b"12345").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("sub").join("inner"), b"1").unwrap();
        std::os::unix::fs::symlink("file-that-is-not-there", d.join("link")).unwrap();
        let mut s = DirStream::open(d).unwrap();
        let mut listed = Vec::new();
        s.list(&mut listed).unwrap();
        let mut seen = Vec::new();
        for l in &listed {
            let st = s.stat(l).unwrap();
            seen.push((l.os_name().to_os_string(), st.kind(), st.size));
        }
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            vec![
                ("file".into(), Kind::File, 5),
                ("link".into(), Kind::Symlink, 22),
                ("sub".into(), Kind::Dir, seen[2].2),
            ]
        );
        // A subdirectory opened by its parent's descriptor reads as by path.
        let sub = listed.iter().find(|l| l.os_name() == "sub").unwrap();
        let mut child = s.open_child(sub).unwrap();
        let mut inner = Vec::new();
        child.list(&mut inner).unwrap();
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].os_name(), "inner");
        assert_eq!(child.stat(&inner[0]).unwrap().size, 1);
        // A symlink is never entered as a folder.
        let link = listed.iter().find(|l| l.os_name() == "link").unwrap();
        assert!(s.open_child(link).is_none());
        let missing = DirStream::open(&d.join("nope")).err().unwrap();
        // Names around the length kept without an allocation (35 bytes and
        // the NUL) are passed to the kernel whole.
        let long = tempfile::tempdir().unwrap();
        let mut want: Vec<(OsString, u64)> = [1, 34, 35, 36, 37, 200, 255]
            .iter()
            .map(|&n| (OsString::from("n".repeat(n)), n as u64))
            .collect();
        for (name, size) in &want {
            std::fs::write(long.path().join(name), vec![0u8; *size as usize]).unwrap();
        }
        let mut s = DirStream::open(long.path()).unwrap();
        let mut listed = Vec::new();
        s.list(&mut listed).unwrap();
        let mut got: Vec<(OsString, u64)> = listed
            .iter()
            .map(|l| (l.os_name().to_os_string(), s.stat(l).unwrap().size))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
