//! The last resort for fsfit's own FUSE servers (the crash recorder, a
//! served device): a watchdog that aborts the FUSE connection when the
//! cleanup of what sits on it is stuck, and a guard process that aborts it
//! if fsfit is killed. Moved from crash/recorder.rs so device/served.rs does
//! not import crash/; the messages still name the write recorder, as
//! they did for both.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The last resort against a cleanup stuck on the recorder: once armed, if
/// the recorder is still up after its limit (the recorder's `CLEANUP_LIMIT`), abort its FUSE
/// connection through fusectl, so every pending and later request fails
/// with an error instead of waiting. The unmount then finishes (with I/O
/// errors, on an image that is thrown away anyway) and nothing stays stuck.
pub struct Watchdog {
    armed: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    /// `mount`: the recorder's folder, which the guard checks is still
    /// connection `conn` before it aborts (connection numbers are reused).
    pub fn start(conn: Option<u32>, mount: PathBuf, limit: Duration) -> Watchdog {
        let armed: Arc<Mutex<Option<Instant>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (a, st) = (armed.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // Spawned from this thread: its parent-death signal follows
            // this thread, not the process (see `guard`).
            let mut child = conn.and_then(|c| guard(c, &mount));
            while !st.load(Ordering::SeqCst) {
                let since = *a.lock().unwrap();
                if since.is_some_and(|t| t.elapsed() >= limit) {
                    abort_connection(conn);
                    break;
                }
                // Parked: dropping the watchdog wakes it at once.
                std::thread::park_timeout(Duration::from_millis(100));
            }
            if let Some(c) = child.as_mut() {
                let _ = c.kill();
                let _ = c.wait();
            }
        });
        Watchdog {
            armed,
            stop,
            thread: Some(thread),
        }
    }
}

impl Watchdog {
    /// Start the clock: cleanup begins (the served device uses this too).
    pub fn arm(&self) {
        self.armed.lock().unwrap().get_or_insert_with(Instant::now);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// A tiny process that aborts the recorder's FUSE connection when the
/// thread that started it dies (PR_SET_PDEATHSIG), which for a sleeping
/// thread happens only when fsfit is killed. Without it, SIGKILL could
/// leave fsfit in D state for good (seen in CI: the kill ended the thread
/// serving the recorder while the workload's thread waited, uninterruptibly,
/// on a page write that only that thread could answer; the process never
/// exited, so its /dev/fuse never closed and fsfit cleanup could not help).
fn guard(conn: u32, mount: &Path) -> Option<std::process::Child> {
    use std::os::unix::process::CommandExt;
    let abort = ensure_fusectl(conn)?;
    let me = unsafe { libc::getpid() };
    // Abort only while that connection is still this recorder's mount (its
    // folder's name is unique to this process): a number freed by an
    // unmount is soon another recorder's. `wait` returns at once on the
    // signal, where a bare `sleep` would delay the trap by up to a second.
    let script = r#"
        trap 'awk -v d="0:$1" -v m="/$2" '"'"'$3 == d && substr($5, length($5) - length(m) + 1) == m { f = 1 } END { exit !f }'"'"' /proc/self/mountinfo && echo 1 > "$3"; exit 0' TERM
        while :; do sleep 1 & wait $!; done"#;
    let name = mount.file_name()?.to_str()?.to_string();
    let mut cmd = std::process::Command::new("sh");
    cmd.args([
        "-c",
        script,
        "fsfit-recorder-guard",
        &conn.to_string(),
        &name,
    ])
    .arg(&abort)
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    // Not in the terminal's process group: Ctrl-C is fsfit's to handle.
    .process_group(0);
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            // The thread may have died between fork and prctl.
            if libc::getppid() != me {
                libc::raise(libc::SIGTERM);
            }
            Ok(())
        });
    }
    cmd.spawn().ok()
}

/// The abort file of FUSE connection `conn`, mounting fusectl if needed.
/// fusectl is not mounted on every host (it is not here); it is harmless to
/// leave mounted, as systemd does. mount(2) itself: the mount tool stats
/// mount points, and a stuck recorder's is one of them, so the tool hung
/// too (measured).
fn ensure_fusectl(conn: u32) -> Option<PathBuf> {
    let root = Path::new("/sys/fs/fuse/connections");
    let abort = root.join(conn.to_string()).join("abort");
    if !abort.exists() {
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
    abort.exists().then_some(abort)
}

/// The FUSE connection number of the mount at `dir`: the minor of its
/// st_dev, the name of its folder under /sys/fs/fuse/connections.
pub fn connection_of(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    Some(libc::minor(dev))
}

pub fn abort_connection(conn: Option<u32>) {
    let Some(c) = conn else {
        crate::say!("the write recorder's cleanup is stuck and its FUSE connection is unknown");
        return;
    };
    let ok = ensure_fusectl(c).is_some_and(|abort| std::fs::write(abort, "1").is_ok());
    crate::say!(
        "cleanup was stuck on the write recorder; {} its FUSE connection {c} so nothing stays stuck",
        if ok { "aborted" } else { "could not abort" }
    );
}
