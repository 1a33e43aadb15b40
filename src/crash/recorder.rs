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
//!
//! The same server serves crash states ([`Recorder::serve`]): nothing is
//! logged, the image is a shared base with the state's blocks over it, and
//! what the mount, checker or repair write goes to a scratch layer that is
//! dropped when the next state is loaded. The watchdog and guard
//! (device/watchdog.rs) watch it as they watch the recorder.

use super::log::{Kind, Record, Writer};
use crate::device::watchdog::{connection_of, Watchdog};
use fuser::{
    FileAttr, FileType, MountOption, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyWrite, Request,
};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

const ROOT: u64 = 1;
const IMAGE: u64 = 2;
const TTL: Duration = Duration::from_secs(3600);

pub struct Shared {
    pub image: Vec<u8>,
    pub log: Option<Writer>,
    pub writes: u64,
    pub flushes: u64,
    /// The first error writing the log: the run is worthless after it.
    pub error: Option<crate::Error>,
    /// Serving crash states (see [`Recorder::serve`]) instead of `image`.
    pub layers: Option<Layers>,
}

/// A crash state served from memory, copy-on-write, by 4 KiB block: the
/// base image (shared, never written), the state's own blocks over it, and
/// over those what was written while it was served (a journal replay, a
/// repair), dropped with the state.
pub struct Layers {
    pub base: Arc<Vec<u8>>,
    pub state: HashMap<u64, Vec<u8>>,
    pub scratch: HashMap<u64, Vec<u8>>,
}

impl Layers {
    fn block(&self, b: u64) -> &[u8] {
        if let Some(x) = self.scratch.get(&b).or_else(|| self.state.get(&b)) {
            return x;
        }
        let r = (b as usize * OVER).min(self.base.len())
            ..((b as usize + 1) * OVER).min(self.base.len());
        &self.base[r]
    }

    /// Bytes `[start, end)` as served.
    fn read(&self, start: usize, end: usize) -> Vec<u8> {
        let mut out = self.base[start..end].to_vec();
        if self.state.is_empty() && self.scratch.is_empty() {
            return out;
        }
        for b in start / OVER..end.div_ceil(OVER) {
            let (bs, be) = ((b * OVER).max(start), ((b + 1) * OVER).min(end));
            let blk = self.block(b as u64);
            out[bs - start..be - start].copy_from_slice(&blk[bs - b * OVER..be - b * OVER]);
        }
        out
    }

    /// `data` written at `start`, into the scratch layer.
    fn write(&mut self, start: usize, data: &[u8]) {
        let end = start + data.len();
        for b in start / OVER..end.div_ceil(OVER) {
            if !self.scratch.contains_key(&(b as u64)) {
                let copy = self.block(b as u64).to_vec();
                self.scratch.insert(b as u64, copy);
            }
            let blk = self.scratch.get_mut(&(b as u64)).expect("inserted above");
            let (bs, be) = ((b * OVER).max(start), ((b + 1) * OVER).min(end));
            blk[bs - b * OVER..be - b * OVER].copy_from_slice(&data[bs - start..be - start]);
        }
    }
}

impl Shared {
    fn len(&self) -> usize {
        self.layers
            .as_ref()
            .map_or(self.image.len(), |l| l.base.len())
    }
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

/// The shared state, even if a thread panicked holding it: the server must
/// go on answering, or whatever sits on the recorder waits for good.
fn lock(s: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    s.lock().unwrap_or_else(|e| e.into_inner())
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
        lock(&self.s).len() as u64
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
        let s = lock(&self.s);
        let start = (offset.max(0) as usize).min(s.len());
        let end = (start + size as usize).min(s.len());
        match &s.layers {
            Some(l) => reply.data(&l.read(start, end)),
            None => reply.data(&s.image[start..end]),
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
        let mut s = lock(&self.s);
        let start = offset.max(0) as usize;
        if start + data.len() > s.len() {
            // The image never grows: a device has a fixed size.
            reply.error(libc::ENOSPC);
            return;
        }
        if let Some(l) = s.layers.as_mut() {
            l.write(start, data);
            reply.written(data.len() as u32);
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
        let mut s = lock(&self.s);
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

/// The overlay's block size.
const OVER: usize = 4096;

/// How long the cleanup of what sits on the recorder (the filesystem under
/// test, its loop device) may take before the recorder's FUSE connection is
/// aborted. An unmount that waits on a write only this process can answer
/// would otherwise leave fsfit in D state for good (seen once under load
/// after Ctrl-C; fsfit cleanup could not help, the process never exited).
const CLEANUP_LIMIT: Duration = Duration::from_secs(60);

/// Arms the recorder's watchdog when dropped: declare it after the mount and
/// the loop device that sit on the recorder, so it is dropped before them
/// and the watchdog watches their cleanup, on success, error or Ctrl-C.
pub struct ArmOnDrop<'a>(&'a Recorder);

impl Drop for ArmOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(w) = &self.0.watchdog {
            w.arm();
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
    pub fn start(image: Vec<u8>, log: &Path) -> crate::Result<Recorder> {
        Recorder::start_with(image, log, CLEANUP_LIMIT)
    }

    /// `start` with the watchdog's limit given (tests use a short one).
    pub fn start_with(image: Vec<u8>, log: &Path, limit: Duration) -> crate::Result<Recorder> {
        let writer = Writer::create(log, image.len() as u64)?;
        Recorder::mount(image, Some(writer), None, limit)
    }

    /// Serve crash states instead of recording: `base` at first, then
    /// each state [`Recorder::load`] sets. What the filesystem, its checker
    /// or its repair write lands in a scratch layer dropped with the state:
    /// a journal replay's writes are never copied back.
    pub fn serve(base: Arc<Vec<u8>>) -> crate::Result<Recorder> {
        let layers = Layers {
            base,
            state: HashMap::new(),
            scratch: HashMap::new(),
        };
        Recorder::mount(Vec::new(), None, Some(layers), CLEANUP_LIMIT)
    }

    /// Serve the next state: each of `blocks` (4 KiB) set to what `block`
    /// gives for it (the blocks that differ from the state before), the
    /// scratch layer dropped.
    pub fn load<'b>(&self, blocks: &[u64], block: impl Fn(u64) -> &'b [u8]) {
        let mut s = lock(&self.shared);
        if let Some(l) = s.layers.as_mut() {
            for &b in blocks {
                l.state.insert(b, block(b).to_vec());
            }
            l.scratch.clear();
        }
    }

    /// Serve `base` (a new workload's base image; same size), no state.
    pub fn load_base(&self, base: Arc<Vec<u8>>) {
        let mut s = lock(&self.shared);
        if let Some(l) = s.layers.as_mut() {
            if l.base.len() == base.len() {
                l.base = base;
            }
            l.state.clear();
            l.scratch.clear();
        }
    }

    fn mount(
        image: Vec<u8>,
        writer: Option<Writer>,
        layers: Option<Layers>,
        limit: Duration,
    ) -> crate::Result<Recorder> {
        let dir = crate::device::state::dir().join(format!(
            "rec-{}-{}",
            std::process::id(),
            super::unique()
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| crate::Error::work(format!("cannot create {}: {e}", dir.display())))?;
        let shared = Arc::new(Mutex::new(Shared {
            image,
            log: writer,
            writes: 0,
            flushes: 0,
            error: None,
            layers,
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
            crate::Error::work(format!("cannot mount the write recorder (FUSE): {e}"))
        })?;
        let watchdog = Some(Watchdog::start(connection_of(&dir), dir.clone(), limit));
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
        let mut s = lock(&self.shared);
        let at = s.log.as_ref().map_or(0, |w| w.len());
        s.record(Record {
            kind: Kind::Mark,
            offset: 0,
            data: Vec::new(),
        });
        at
    }

    /// Stop logging, unmount, and return (writes, flushes, log bytes).
    pub fn finish(mut self) -> crate::Result<(u64, u64, u64)> {
        let (w, f, bytes, writer, err) = {
            let mut s = lock(&self.shared);
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
        // The session's own unmount fails while the loop device on the
        // image is still letting go of it (a detach finishes when its last
        // user closes it): the mount would stay, dead, after fsfit exits
        // (seen once in the crash tests). Retry it; if even that fails,
        // it stays in the state file for `fsfit cleanup`.
        let gone = crate::device::mount::unmount_path(&self.dir).is_ok();
        drop(self.watchdog.take());
        if gone {
            crate::device::state::remove_fuse_mount(&self.dir);
            let _ = std::fs::remove_dir(&self.dir);
        }
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
    use std::time::Instant;

    /// The child of `sigkill_cannot_leave_fsfit_stuck`: ext4 on a loop
    /// device on a recorder, then a write and fsync while this thread holds
    /// the recorder's lock, so the server cannot answer and this thread
    /// waits uninterruptibly on its own recorder: the state SIGKILL met in
    /// CI. Prints the loop device, the mount folder and the recorder's.
    #[test]
    #[ignore = "run by sigkill_cannot_leave_fsfit_stuck in a child process"]
    fn stuck_child() {
        let Some(dir) = std::env::var_os("FSFIT_STUCK_CHILD") else {
            return;
        };
        let dir = PathBuf::from(dir);
        std::env::set_var("FSFIT_STATE_DIR", dir.join("state"));
        let base = dir.join("base.img");
        std::fs::File::create(&base)
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
        let ok = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
            .arg(&base)
            .status()
            .unwrap();
        assert!(ok.success());
        // FSFIT_STUCK_ARM: the watchdog is armed (1 s) before the stall.
        let arm = std::env::var_os("FSFIT_STUCK_ARM").is_some();
        let image = std::fs::read(&base).unwrap();
        let rec = Recorder::start_with(image, &dir.join("log"), Duration::from_secs(1)).unwrap();
        let lo = crate::device::loopdev::LoopDev::attach(&rec.image_path()).unwrap();
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let ok = std::process::Command::new("mount")
            .arg(&lo.dev)
            .arg(&mnt)
            .status()
            .unwrap();
        assert!(ok.success());
        println!("STUCK {} {} {}", lo.dev, mnt.display(), rec.dir.display());
        use std::io::Write;
        std::io::stdout().flush().unwrap();
        let _held = rec.shared.lock().unwrap();
        if arm {
            drop(rec.arm_on_drop());
        }
        if let Ok(mut f) = std::fs::File::create(mnt.join("x")) {
            let _ = f.write_all(&[1u8; 1 << 20]);
            let _ = f.sync_all();
        }
        // Only reached once the kernel failed the I/O (the connection was
        // aborted): the parent judges by whether and how this ends.
        if arm {
            std::process::exit(0);
        }
        std::thread::sleep(Duration::from_secs(3600));
    }

    /// A state served copy-on-write: reads see base < state < scratch,
    /// unaligned writes land in the scratch layer only, and dropping it
    /// gives the state back.
    #[test]
    fn layers_serve_a_state_and_drop_what_was_written() {
        let base: Vec<u8> = (0..4 * OVER).map(|i| (i % 251) as u8).collect();
        let mut l = Layers {
            base: Arc::new(base.clone()),
            state: HashMap::new(),
            scratch: HashMap::new(),
        };
        l.state.insert(1, vec![7; OVER]);
        let mut want = base.clone();
        want[OVER..2 * OVER].fill(7);
        assert_eq!(l.read(0, 4 * OVER), want);
        // Across the state's block and a base block, unaligned.
        l.write(OVER + 100, &[9; OVER + 50]);
        want[OVER + 100..2 * OVER + 150].fill(9);
        assert_eq!(l.read(0, 4 * OVER), want);
        assert_eq!(l.read(OVER + 90, OVER + 120), want[OVER + 90..OVER + 120]);
        assert_eq!(l.base[..], base[..], "the base is never written");
        l.scratch.clear();
        want[..].copy_from_slice(&base);
        want[OVER..2 * OVER].fill(7);
        assert_eq!(l.read(0, 4 * OVER), want);
    }

    /// True when some thread of `pid` is in uninterruptible sleep.
    fn in_d_state(pid: u32) -> bool {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return false;
        };
        tasks.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("stat"))
                .ok()
                .and_then(|s| s.rsplit(')').next()?.trim().chars().next())
                == Some('D')
        })
    }

    fn ready() -> bool {
        let need = ["mkfs.ext4", "losetup", "mount"];
        let ready = crate::device::is_root()
            && Path::new("/dev/fuse").exists()
            && need.iter().all(|t| crate::device::have_program(t));
        if !ready {
            assert!(
                std::env::var_os("FSFIT_REQUIRE_ALL").is_none(),
                "needs root, /dev/fuse, mkfs.ext4, losetup, mount"
            );
            eprintln!("SKIP: needs root, /dev/fuse, mkfs.ext4, losetup, mount");
        }
        ready
    }

    /// A stuck child (see `stuck_child`) run from this test binary, in its
    /// own process so that a failure cannot hang the test run; `wait`
    /// gives it `limit` to end, then kills it. Fails unless it was seen in
    /// D state (else the test proves nothing); returns whether it ended
    /// within the limit, and its exit status.
    fn stuck(arm: bool, kill: bool) -> (bool, Option<i32>) {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "crash::recorder::tests::stuck_child"])
            .args(["--ignored", "--nocapture", "-q"])
            .env("FSFIT_STUCK_CHILD", dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        if arm {
            cmd.env("FSFIT_STUCK_ARM", "1");
        }
        let mut child = cmd.spawn().unwrap();
        let pid = child.id();
        // libtest prints its own lines first; the reader stays open to the
        // end (a closed pipe made the child's println panic: a flaky test).
        use std::io::BufRead;
        let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut out = String::new();
        while !out.starts_with("STUCK ") {
            out.clear();
            if reader.read_line(&mut out).unwrap() == 0 {
                break;
            }
        }
        let lines: Vec<&str> = out.split_whitespace().skip(1).collect();
        assert_eq!(lines.len(), 3, "the child did not set up: {out}");
        let t0 = Instant::now();
        let mut was_stuck = false;
        while t0.elapsed() < Duration::from_secs(20) && !was_stuck {
            was_stuck = in_d_state(pid);
            if !was_stuck && child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if kill {
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        let t0 = Instant::now();
        let mut status = None;
        while t0.elapsed() < Duration::from_secs(30) {
            if let Some(s) = child.try_wait().unwrap() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if status.is_none() {
            // Release it by hand so the test run itself goes on.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            if let Some(c) = connection_of(Path::new(lines[2])) {
                crate::device::watchdog::abort_connection(Some(c));
            }
        }
        let _ = child.wait();
        // The child's mount and loop device, released with fsfit's own
        // helpers (the ext4 gives up its loop device a moment after a lazy
        // unmount, so the detach is retried). Not LoopDev's drop, which does
        // the same but records it in this process's state file under
        // /run/fsfit, which a test must not touch.
        let _ = crate::device::mount::unmount_path(Path::new(lines[1]));
        for i in 0..20 {
            let _ = crate::device::loopdev::detach(lines[0]);
            if crate::device::loopdev::backing(lines[0]).is_none() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50 * (i + 1)));
        }
        let _ = crate::device::mount::unmount_path(Path::new(lines[2]));
        drop(reader);
        assert!(
            was_stuck,
            "the child never waited in D state: the test proves nothing"
        );
        (status.is_some(), status.and_then(|s| s.code()))
    }

    /// SIGKILL must end fsfit even while it waits, in D state, on a write
    /// only its own (now killed) recorder thread could answer: the guard
    /// process aborts the FUSE connection when the watchdog thread dies.
    #[test]
    fn sigkill_cannot_leave_fsfit_stuck() {
        if !ready() {
            return;
        }
        let (ended, _) = stuck(false, true);
        assert!(ended, "SIGKILL left the process stuck on its own recorder");
    }

    /// Once armed, the watchdog aborts the connection of a recorder that
    /// stopped answering, and the process stuck on it goes on by itself.
    #[test]
    fn watchdog_unsticks_a_recorder_that_stopped_answering() {
        if !ready() {
            return;
        }
        let (ended, code) = stuck(true, false);
        assert!(ended, "the armed watchdog did not unstick the child");
        assert_eq!(
            code,
            Some(0),
            "the child went on after the abort and exited"
        );
    }
}
