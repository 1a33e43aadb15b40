//! The write recorder: fsfit's own FUSE filesystem holding one file, `image`,
//! served from memory. A loop device goes on top of that file and the
//! filesystem under test on the loop device; every write and every flush the
//! loop device passes down is appended to the log before it is answered.
//!
//! Ordering: the file is opened FOPEN_DIRECT_IO, so every write reaches us
//! as it is issued, never parked in a page cache, whether the loop device
//! runs with direct I/O or falls back to buffered I/O. A write is logged
//! before we reply, and the block layer completes a write only after our
//! reply; a filesystem issues its flush only after the writes it orders
//! have completed. So at a flush record, everything the filesystem wrote
//! before it is already in the log. (FUA writes: the loop device declares
//! no FUA, so the block layer turns them into write + flush.)

use super::log::{Kind, Record, Writer};
use fuser::{
    FileAttr, FileType, MountOption, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyWrite, Request,
};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

const ROOT: u64 = 1;
const IMAGE: u64 = 2;
const TTL: Duration = Duration::from_secs(3600);

pub struct Shared {
    pub image: Vec<u8>,
    pub log: Option<Writer>,
    pub writes: u64,
    pub flushes: u64,
    /// The first error writing the log: the run is worthless after it.
    pub error: Option<String>,
}

impl Shared {
    fn record(&mut self, r: Record) {
        if let Some(w) = self.log.as_mut() {
            if let Err(e) = w.append(&r) {
                self.error.get_or_insert(e);
            }
        }
    }
}

struct Fs {
    s: Arc<Mutex<Shared>>,
}

fn attr(ino: u64, size: u64) -> FileAttr {
    let t = SystemTime::UNIX_EPOCH;
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: t,
        mtime: t,
        ctime: t,
        crtime: t,
        kind: if ino == ROOT {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if ino == ROOT { 0o755 } else { 0o600 },
        nlink: if ino == ROOT { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

impl Fs {
    fn size(&self) -> u64 {
        self.s.lock().unwrap().image.len() as u64
    }
}

impl fuser::Filesystem for Fs {
    fn lookup(&mut self, _r: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        if parent == ROOT && name == "image" {
            reply.entry(&TTL, &attr(IMAGE, self.size()), 0);
        } else {
            reply.error(libc::ENOENT);
        }
    }

    fn getattr(&mut self, _r: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match ino {
            ROOT | IMAGE => reply.attr(&TTL, &attr(ino, self.size())),
            _ => reply.error(libc::ENOENT),
        }
    }

    fn open(&mut self, _r: &Request<'_>, ino: u64, _flags: i32, reply: ReplyOpen) {
        if ino == IMAGE {
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
        let s = self.s.lock().unwrap();
        let start = (offset.max(0) as usize).min(s.image.len());
        let end = (start + size as usize).min(s.image.len());
        reply.data(&s.image[start..end]);
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
        let mut s = self.s.lock().unwrap();
        let start = offset.max(0) as usize;
        if start + data.len() > s.image.len() {
            // The image never grows: a device has a fixed size.
            reply.error(libc::ENOSPC);
            return;
        }
        s.image[start..start + data.len()].copy_from_slice(data);
        s.writes += 1;
        s.record(Record {
            kind: Kind::Write,
            offset: start as u64,
            data: data.to_vec(),
        });
        reply.written(data.len() as u32);
    }

    fn fsync(&mut self, _r: &Request<'_>, _ino: u64, _fh: u64, _ds: bool, reply: ReplyEmpty) {
        let mut s = self.s.lock().unwrap();
        s.flushes += 1;
        s.record(Record {
            kind: Kind::Flush,
            offset: 0,
            data: Vec::new(),
        });
        reply.ok();
    }

    // close(2) of the backing file: not a device flush.
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
            (IMAGE, FileType::RegularFile, "image"),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as i64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// How long the cleanup of what sits on the recorder (the filesystem under
/// test, its loop device) may take before the recorder's FUSE connection is
/// aborted. An unmount that waits on a write only this process can answer
/// would otherwise leave fsfit in D state for good (seen once under load
/// after Ctrl-C; fsfit cleanup could not help, the process never exited).
const CLEANUP_LIMIT: Duration = Duration::from_secs(60);

/// The last resort against a cleanup stuck on the recorder: once armed, if
/// the recorder is still up after [`CLEANUP_LIMIT`], abort its FUSE
/// connection through fusectl, so every pending and later request fails
/// with an error instead of waiting. The unmount then finishes (with I/O
/// errors, on an image that is thrown away anyway) and nothing stays stuck.
struct Watchdog {
    armed: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn start(conn: Option<u32>, limit: Duration) -> Watchdog {
        let armed: Arc<Mutex<Option<Instant>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (a, st) = (armed.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                let since = *a.lock().unwrap();
                if since.is_some_and(|t| t.elapsed() >= limit) {
                    abort_connection(conn);
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Watchdog {
            armed,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The FUSE connection number of the mount at `dir`: the minor of its
/// st_dev, the name of its folder under /sys/fs/fuse/connections.
fn connection_of(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    Some(libc::minor(dev))
}

fn abort_connection(conn: Option<u32>) {
    let Some(c) = conn else {
        eprintln!(
            "fsfit: the write recorder's cleanup is stuck and its FUSE connection is unknown"
        );
        return;
    };
    let root = Path::new("/sys/fs/fuse/connections");
    if !root.join(c.to_string()).exists() {
        // fusectl is not mounted on every host (it is not here); it is
        // harmless to leave mounted, as systemd does. mount(2) itself: the
        // mount tool stats mount points, and the stuck recorder's is one of
        // them, so the tool hung too (measured).
        let c = |s: &str| std::ffi::CString::new(s).unwrap();
        let (name, target) = (c("fusectl"), c("/sys/fs/fuse/connections"));
        unsafe {
            libc::mount(
                name.as_ptr(),
                target.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
            )
        };
    }
    let ok = std::fs::write(root.join(c.to_string()).join("abort"), "1").is_ok();
    eprintln!(
        "fsfit: cleanup was stuck on the write recorder; {} its FUSE connection {c} so nothing stays stuck",
        if ok { "aborted" } else { "could not abort" }
    );
}

/// Arms the recorder's watchdog when dropped: declare it after the mount and
/// the loop device that sit on the recorder, so it is dropped before them
/// and the watchdog watches their cleanup, on success, error or Ctrl-C.
pub struct ArmOnDrop<'a>(&'a Recorder);

impl Drop for ArmOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(w) = &self.0.watchdog {
            w.armed.lock().unwrap().get_or_insert_with(Instant::now);
        }
    }
}

/// A mounted recorder. Dropping it unmounts the FUSE filesystem.
pub struct Recorder {
    pub shared: Arc<Mutex<Shared>>,
    pub dir: PathBuf,
    session: Option<fuser::BackgroundSession>,
    watchdog: Option<Watchdog>,
}

impl Recorder {
    /// Serve `image` (its bytes become the recorder's memory) at a new
    /// directory under the state dir, logging to `log`.
    pub fn start(image: Vec<u8>, log: &Path) -> Result<Recorder, String> {
        Recorder::start_with(image, log, CLEANUP_LIMIT)
    }

    /// `start` with the watchdog's limit given (tests use a short one).
    pub fn start_with(image: Vec<u8>, log: &Path, limit: Duration) -> Result<Recorder, String> {
        let writer = Writer::create(log, image.len() as u64)?;
        let dir = crate::device::state::dir().join(format!(
            "rec-{}-{}",
            std::process::id(),
            super::unique()
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let shared = Arc::new(Mutex::new(Shared {
            image,
            log: Some(writer),
            writes: 0,
            flushes: 0,
            error: None,
        }));
        let fs = Fs { s: shared.clone() };
        let opts = [
            MountOption::FSName("fsfit-recorder".into()),
            MountOption::RW,
            MountOption::DefaultPermissions,
        ];
        crate::device::state::add_fuse_mount(&dir);
        let session = fuser::spawn_mount2(fs, &dir, &opts).map_err(|e| {
            crate::device::state::remove_fuse_mount(&dir);
            let _ = std::fs::remove_dir(&dir);
            format!("cannot mount the write recorder (FUSE): {e}")
        })?;
        let watchdog = Some(Watchdog::start(connection_of(&dir), limit));
        Ok(Recorder {
            shared,
            dir,
            session: Some(session),
            watchdog,
        })
    }

    /// A guard that arms the cleanup watchdog when it is dropped.
    pub fn arm_on_drop(&self) -> ArmOnDrop<'_> {
        ArmOnDrop(self)
    }

    /// The file to put the loop device on.
    pub fn image_path(&self) -> PathBuf {
        self.dir.join("image")
    }

    /// The log position: records so far.
    pub fn position(&self) -> u64 {
        self.shared
            .lock()
            .unwrap()
            .log
            .as_ref()
            .map_or(0, |w| w.len())
    }

    /// Append fsfit's own marker (the workload starts) and return its position.
    pub fn mark(&self) -> u64 {
        let mut s = self.shared.lock().unwrap();
        let at = s.log.as_ref().map_or(0, |w| w.len());
        s.record(Record {
            kind: Kind::Mark,
            offset: 0,
            data: Vec::new(),
        });
        at
    }

    /// Stop logging, unmount, and return (writes, flushes, log bytes).
    pub fn finish(mut self) -> Result<(u64, u64, u64), String> {
        let (w, f, bytes, writer, err) = {
            let mut s = self.shared.lock().unwrap();
            let writer = s.log.take();
            (
                s.writes,
                s.flushes,
                writer.as_ref().map_or(0, |w| w.bytes),
                writer,
                s.error.take(),
            )
        };
        self.stop();
        if let Some(e) = err {
            return Err(e);
        }
        if let Some(wr) = writer {
            wr.finish()?;
        }
        Ok((w, f, bytes))
    }

    fn stop(&mut self) {
        // Dropping the session unmounts; its thread then ends on its own.
        // The watchdog stays up until then: the unmount may wait too.
        drop(self.session.take());
        drop(self.watchdog.take());
        crate::device::state::remove_fuse_mount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A recorder that stops answering (its lock held, as a deadlock would)
    /// leaves a reader of its image stuck; once armed, the watchdog aborts
    /// the connection and the reader gets an error instead of waiting for
    /// good.
    #[test]
    fn watchdog_unsticks_a_recorder_that_stopped_answering() {
        if unsafe { libc::geteuid() } != 0 || !Path::new("/dev/fuse").exists() {
            assert!(
                std::env::var_os("FSFIT_REQUIRE_ALL").is_none(),
                "needs root and /dev/fuse"
            );
            eprintln!("SKIP: needs root and /dev/fuse");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("FSFIT_STATE_DIR", dir.path().join("state"));
        let rec = Recorder::start_with(
            vec![7u8; 1 << 20],
            &dir.path().join("log"),
            Duration::from_secs(1),
        )
        .unwrap();
        let path = rec.image_path();
        let mut f = std::fs::File::open(&path).unwrap();
        let mut buf = vec![0u8; 4096];
        f.read_exact(&mut buf).unwrap();
        assert_eq!(buf[0], 7, "the recorder serves its image");
        let held = rec.shared.lock().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 4096];
            let t0 = Instant::now();
            let r = f.read(&mut buf);
            (r.is_err(), t0.elapsed())
        });
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            !reader.is_finished(),
            "the read should wait on the recorder"
        );
        drop(rec.arm_on_drop());
        let (failed, took) = reader.join().unwrap();
        drop(held);
        assert!(failed, "an aborted connection fails the read");
        assert!(took < Duration::from_secs(20), "took {took:?}");
        drop(rec);
    }
}
