//! A block device fsfit serves itself: one file, `disk`, in fsfit's own FUSE
//! filesystem, under a loop device. What the file holds and how fast it
//! answers is up to a [`Backend`]: a sparse image file, a fake-capacity
//! device that wraps around ([`Wrap`]), or a flash model that makes every
//! request take its simulated service time (`Delayed`, in flash/delayed.rs).
//!
//! Like the crash recorder (src/crash/recorder.rs; both use the cleanup
//! watchdog of device/watchdog.rs) the file is opened FOPEN_DIRECT_IO, so
//! every request the loop device sends reaches the backend as it is issued,
//! never answered by a page cache. Start one with [`start`];
//! [`Served::stop`] (or dropping it) detaches the loop device and unmounts
//! the FUSE filesystem, and both are recorded in the state file until then,
//! for `fsfit cleanup`.
//!
//! A fake 1 GiB stick that holds 64 MiB, for a test of
//! `fsfit format --check-capacity` (needs root and /dev/fuse):
//!
//! ```no_run
//! use fsfit::device::served::{self, Wrap};
//! let fake = served::start(Box::new(Wrap::in_memory(64 << 20, 1 << 30)))?;
//! println!("{}", fake.loop_dev()); // /dev/loopN, 1 GiB, wraps every 64 MiB
//! fake.stop();
//! # Ok::<(), fsfit::Error>(())
//! ```

use super::watchdog::{connection_of, Watchdog};
use crate::device::{loopdev::LoopDev, state};
use crate::{Error, Result};
use fuser::{
    FileAttr, FileType, MountOption, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyWrite, Request,
};
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

mod backends;
pub use backends::{Beyond, Memory, Short, SparseImage, Wrap};

/// What holds the served file's bytes. Requests come one at a time.
pub trait Backend: Send {
    /// The device's size in bytes (what the loop device shows).
    fn size(&self) -> u64;
    /// Fill `buf` from `offset` (the caller keeps within `size`).
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Store `data` at `offset` (the caller keeps within `size`).
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    /// A cache flush from the host (fsync of the served file).
    fn flush(&mut self) -> io::Result<()>;
}

const ROOT: u64 = 1;
const DISK: u64 = 2;
const TTL: Duration = Duration::from_secs(3600);

/// How long detaching the loop device and unmounting may take before the
/// FUSE connection is aborted (see the recorder's watchdog).
const CLEANUP_LIMIT: Duration = Duration::from_secs(60);

type Shared = Arc<Mutex<Box<dyn Backend>>>;

/// The backend even if a thread panicked holding it: the server must go on
/// answering, or whatever sits on the loop device waits for good.
fn lock(s: &Shared) -> MutexGuard<'_, Box<dyn Backend>> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

struct Fs {
    backend: Shared,
}

fn attr(ino: u64, size: u64) -> FileAttr {
    let t = SystemTime::UNIX_EPOCH;
    let dir = ino == ROOT;
    FileAttr {
        ino,
        size: if dir { 0 } else { size },
        blocks: if dir { 0 } else { size.div_ceil(512) },
        atime: t,
        mtime: t,
        ctime: t,
        crtime: t,
        kind: if dir {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if dir { 0o755 } else { 0o600 },
        nlink: if dir { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

/// `len` bytes from `offset` clipped to a device of `size` bytes.
fn clip(offset: i64, len: usize, size: u64) -> (u64, usize) {
    let start = (offset.max(0) as u64).min(size);
    (start, (len as u64).min(size - start) as usize)
}

fn errno(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

impl fuser::Filesystem for Fs {
    /// On the thread that serves every request: real-time priority when
    /// allowed (root), as flashbench gives itself, so that a loaded host
    /// does not add its scheduling delays to the served device's timing.
    /// The thread sleeps between requests and spins at most 200 µs each.
    fn init(&mut self, _r: &Request<'_>, _c: &mut fuser::KernelConfig) -> Result<(), libc::c_int> {
        // Zeroed, then the priority: musl's sched_param has more fields.
        // The system call itself, as glibc's wrapper makes it: musl's
        // wrapper always fails (ENOSYS), and the static release is musl.
        let mut p: libc::sched_param = unsafe { std::mem::zeroed() };
        p.sched_priority = 10;
        unsafe { libc::syscall(libc::SYS_sched_setscheduler, 0, libc::SCHED_FIFO, &p) };
        Ok(())
    }

    fn lookup(&mut self, _r: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        if parent == ROOT && name == "disk" {
            reply.entry(&TTL, &attr(DISK, lock(&self.backend).size()), 0);
        } else {
            reply.error(libc::ENOENT);
        }
    }

    fn getattr(&mut self, _r: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match ino {
            ROOT | DISK => reply.attr(&TTL, &attr(ino, lock(&self.backend).size())),
            _ => reply.error(libc::ENOENT),
        }
    }

    fn open(&mut self, _r: &Request<'_>, ino: u64, _flags: i32, reply: ReplyOpen) {
        if ino == DISK {
            reply.opened(0, fuser::consts::FOPEN_DIRECT_IO);
        } else {
            reply.error(libc::EISDIR);
        }
    }

    fn read(
        &mut self,
        _r: &Request<'_>,
        _ino: u64,
        _fh: u64,
        offset: i64,
        size: u32,
        _flags: i32,
        _lock: Option<u64>,
        reply: ReplyData,
    ) {
        let mut b = lock(&self.backend);
        let (start, len) = clip(offset, size as usize, b.size());
        let mut buf = vec![0u8; len];
        match b.read_at(start, &mut buf) {
            Ok(()) => reply.data(&buf),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn write(
        &mut self,
        _r: &Request<'_>,
        _ino: u64,
        _fh: u64,
        offset: i64,
        data: &[u8],
        _wflags: u32,
        _flags: i32,
        _lock: Option<u64>,
        reply: ReplyWrite,
    ) {
        let mut b = lock(&self.backend);
        let (start, len) = clip(offset, data.len(), b.size());
        if len < data.len() {
            // A device has a fixed size: the file never grows.
            reply.error(libc::ENOSPC);
            return;
        }
        match b.write_at(start, data) {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn fsync(&mut self, _r: &Request<'_>, _ino: u64, _fh: u64, _ds: bool, reply: ReplyEmpty) {
        match lock(&self.backend).flush() {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    // close(2) of the file: not a device flush.
    fn flush(&mut self, _r: &Request<'_>, _i: u64, _fh: u64, _lo: u64, reply: ReplyEmpty) {
        reply.ok();
    }

    fn readdir(
        &mut self,
        _r: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        mut reply: ReplyDirectory,
    ) {
        if ino != ROOT {
            reply.error(libc::ENOTDIR);
            return;
        }
        let entries = [
            (ROOT, FileType::Directory, "."),
            (ROOT, FileType::Directory, ".."),
            (DISK, FileType::RegularFile, "disk"),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as i64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// A served device: the FUSE filesystem and the loop device on its file.
pub struct Served {
    backend: Shared,
    dir: PathBuf,
    loop_dev: Option<LoopDev>,
    /// What the loop device holds: our file, until it has let go of it.
    backing: Option<crate::device::state::Backing>,
    session: Option<fuser::BackgroundSession>,
    watchdog: Option<Watchdog>,
}

/// A folder name no other served device of this process has.
fn unique_dir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    state::dir().join(format!("served-{}-{n}", std::process::id()))
}

/// Serve `backend` through FUSE and put a loop device on it.
pub fn start(backend: Box<dyn Backend>) -> Result<Served> {
    start_with(backend, CLEANUP_LIMIT)
}

/// [`start`] with the cleanup watchdog's limit given.
pub fn start_with(backend: Box<dyn Backend>, limit: Duration) -> Result<Served> {
    if backend.size() == 0 || backend.size() % 512 != 0 {
        return Err(Error::input(format!(
            "a served device must be a non-zero multiple of 512 bytes, not {}",
            backend.size()
        )));
    }
    let dir = unique_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let backend: Shared = Arc::new(Mutex::new(backend));
    let fs = Fs {
        backend: backend.clone(),
    };
    let opts = [
        MountOption::FSName("fsfit-served".into()),
        MountOption::RW,
        MountOption::DefaultPermissions,
    ];
    state::add_fuse_mount(&dir);
    let session = fuser::spawn_mount2(fs, &dir, &opts).map_err(|e| {
        state::remove_fuse_mount(&dir);
        let _ = std::fs::remove_dir(&dir);
        Error::work(format!("cannot serve a device through FUSE: {e}"))
    })?;
    let watchdog = Some(Watchdog::start(connection_of(&dir), dir.clone(), limit));
    let mut served = Served {
        backend,
        dir,
        loop_dev: None,
        backing: None,
        session: Some(session),
        watchdog,
    };
    let lo = LoopDev::attach(&served.file())?;
    served.backing = crate::device::loopdev::backing(&lo.dev);
    served.loop_dev = Some(lo);
    Ok(served)
}

impl Served {
    /// The loop device on the served file: `/dev/loopN`.
    pub fn loop_dev(&self) -> &str {
        self.loop_dev.as_ref().map_or("", |l| l.dev.as_str())
    }

    /// The served file itself (under the FUSE mount).
    pub fn file(&self) -> PathBuf {
        self.dir.join("disk")
    }

    /// Run `f` on the backend while nothing else uses it (e.g. to read a
    /// Delayed backend's log).
    pub fn with_backend<T>(&self, f: impl FnOnce(&mut dyn Backend) -> T) -> T {
        f(lock(&self.backend).as_mut())
    }

    /// Detach the loop device and unmount the FUSE filesystem.
    pub fn stop(mut self) {
        self.release();
    }

    fn release(&mut self) {
        if let Some(w) = &self.watchdog {
            w.arm();
        }
        if let Some(lo) = self.loop_dev.take() {
            let dev = lo.dev.clone();
            drop(lo);
            self.wait_released(&dev);
        }
        // Dropping the session unmounts; the watchdog stays up until then.
        drop(self.session.take());
        drop(self.watchdog.take());
        state::remove_fuse_mount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl Served {
    /// `losetup -d` only marks a loop device that someone still has open
    /// (udev's blkid, a tool) to let go when they close it; until then it
    /// holds our file and the FUSE unmount would fail with EBUSY. Wait for
    /// it (10 s), then detach the mount lazily as the last resort.
    fn wait_released(&self, dev: &str) {
        let ours = |b: &Option<crate::device::state::Backing>| b.is_some() && *b == self.backing;
        for _ in 0..200 {
            if !ours(&crate::device::loopdev::backing(dev)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        crate::say!("{dev} still holds the served file; detaching its FUSE mount lazily");
        if let Ok(c) = std::ffi::CString::new(self.dir.as_os_str().as_encoded_bytes()) {
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.release();
    }
}

/// Is this machine able to serve a device (root, /dev/fuse, losetup)?
/// `Err` names what is missing.
pub fn available() -> Result<()> {
    if !super::is_root() {
        return Err(Error::work("needs root (loop devices)"));
    }
    if !Path::new("/dev/fuse").exists() {
        return Err(Error::work("needs /dev/fuse"));
    }
    if !crate::device::have_program("losetup") {
        return Err(Error::work("needs losetup (util-linux)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    fn ready() -> bool {
        match available() {
            Ok(()) => true,
            Err(e) => {
                assert!(std::env::var_os("FSFIT_REQUIRE_ALL").is_none(), "{e}");
                eprintln!("SKIP: {e}");
                false
            }
        }
    }

    /// The device as any program sees it: the loop device, opened O_DIRECT
    /// so that nothing is answered from the page cache.
    fn open_direct(dev: &str) -> std::fs::File {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(dev)
            .unwrap()
    }

    /// A page-aligned buffer for O_DIRECT.
    fn aligned(len: usize, byte: u8) -> (Vec<u8>, usize) {
        let v = vec![byte; len + 4096];
        let skip = v.as_ptr().align_offset(4096);
        (v, skip)
    }

    fn write_direct(f: &std::fs::File, at: u64, len: usize, byte: u8) {
        let (v, s) = aligned(len, byte);
        f.write_all_at(&v[s..s + len], at).unwrap();
    }

    fn read_direct(f: &std::fs::File, at: u64, len: usize) -> Vec<u8> {
        let (mut v, s) = aligned(len, 0);
        f.read_exact_at(&mut v[s..s + len], at).unwrap();
        v[s..s + len].to_vec()
    }

    #[test]
    fn a_wrapping_device_overwrites_its_start_past_the_real_capacity() {
        if !ready() {
            return;
        }
        let s = start(Box::new(Wrap::in_memory(1 << 20, 4 << 20))).unwrap();
        let dev = s.loop_dev().to_string();
        let f = open_direct(&dev);
        let size = {
            use std::io::Seek;
            (&f).seek(std::io::SeekFrom::End(0)).unwrap()
        };
        assert_eq!(size, 4 << 20, "the loop device claims the fake size");
        write_direct(&f, 0, 4096, 0xaa);
        assert_eq!(read_direct(&f, 0, 4096), vec![0xaa; 4096]);
        // 2 MiB + 8 KiB is 8 KiB on the real megabyte.
        write_direct(&f, (2 << 20) + 8192, 4096, 0x55);
        assert_eq!(read_direct(&f, 8192, 4096), vec![0x55; 4096]);
        assert_eq!(read_direct(&f, (1 << 20) + 8192, 4096), vec![0x55; 4096]);
        assert_eq!(read_direct(&f, 0, 4096), vec![0xaa; 4096], "untouched");
        drop(f);
        let ours = s.backing.clone();
        assert!(ours.is_some());
        s.stop();
        assert_ne!(crate::device::loopdev::backing(&dev), ours);
    }

    #[test]
    fn a_sparse_image_keeps_what_was_written_through_the_loop_device() {
        if !ready() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let img = tmp.path().join("stick.img");
        let s = start(Box::new(SparseImage::open(&img, Some(8 << 20)).unwrap())).unwrap();
        let dir = s.dir.clone();
        let f = open_direct(s.loop_dev());
        write_direct(&f, 3 << 20, 8192, 0x5a);
        drop(f);
        s.stop();
        let mounted = std::fs::read_to_string("/proc/self/mounts").unwrap();
        assert!(!mounted.contains(dir.to_str().unwrap()), "still mounted");
        let got = std::fs::read(&img).unwrap();
        assert_eq!(got.len(), 8 << 20);
        assert_eq!(&got[3 << 20..(3 << 20) + 8192], &[0x5a; 8192][..]);
        assert!(got[..3 << 20].iter().all(|&b| b == 0));
    }
}
