//! Block traces of a bench run from the kernel's block tracepoints, read
//! through tracefs (`blktrace` is refused on some hosts: its relay files
//! under debugfs give EPERM, while the tracepoints work).
//!
//! Each tracer has its own ftrace instance,
//! `/sys/kernel/tracing/instances/fsfit-<pid>-<n>`, so parallel users do
//! not collide; only `block_rq_issue` is enabled, filtered in the kernel
//! to one device's dev_t; a thread drains `trace_pipe` while the run goes
//! so the ring buffer never overflows. The instance is removed when the
//! tracer stops or is dropped.

use std::fs::{self, File};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::{Op, Request};
use crate::error::{Error, Result};

const TRACEFS: &str = "/sys/kernel/tracing";
static NEXT: AtomicU32 = AtomicU32::new(0);

/// Mount tracefs at /sys/kernel/tracing if it is not there yet.
pub fn ensure_tracefs() -> Result<()> {
    if Path::new(TRACEFS).join("events/block").is_dir() {
        return Ok(());
    }
    let out = crate::device::run_tool("mount", &["-t", "tracefs", "nodev", TRACEFS]);
    if Path::new(TRACEFS).join("events/block").is_dir() {
        return Ok(());
    }
    Err(Error::work(format!(
        "no kernel block tracepoints under {TRACEFS} (mount -t tracefs: {})",
        out.err()
            .map_or_else(|| "mounted, but no events/block".into(), |e| e.to_string())
    )))
}

/// The kernel's internal dev_t (major << 20 | minor) of a block device,
/// as the tracepoints' `dev` field holds it.
pub fn kernel_dev(dev: &Path) -> Result<u64> {
    let meta = fs::metadata(dev).map_err(|e| Error::io(dev, e))?;
    let rdev = meta.rdev();
    Ok((libc::major(rdev) as u64) << 20 | libc::minor(rdev) as u64)
}

/// The thread draining trace_pipe: the text, and its own CPU seconds.
type Reader = JoinHandle<std::io::Result<(Vec<u8>, f64)>>;

/// A running trace of one block device.
pub struct Tracer {
    dir: PathBuf,
    stop: Arc<AtomicBool>,
    reader: Option<Reader>,
}

fn write(path: &Path, value: &str) -> Result<()> {
    fs::write(path, value).map_err(|e| Error::io(path, e))
}

impl Tracer {
    /// Start tracing the requests issued to `dev` (e.g. /dev/loop3).
    pub fn start(dev: &Path) -> Result<Tracer> {
        ensure_tracefs()?;
        let devt = kernel_dev(dev)?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = Path::new(TRACEFS)
            .join("instances")
            .join(format!("fsfit-{}-{n}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut t = Tracer {
            dir,
            stop: Arc::new(AtomicBool::new(false)),
            reader: None,
        };
        t.configure(devt)?;
        t.reader = Some(t.spawn_reader()?);
        write(&t.dir.join("tracing_on"), "1")?;
        Ok(t)
    }

    fn configure(&self, devt: u64) -> Result<()> {
        write(&self.dir.join("tracing_on"), "0")?;
        write(&self.dir.join("buffer_size_kb"), "8192")?;
        // CLOCK_MONOTONIC, so that times compare with the host's.
        let _ = write(&self.dir.join("trace_clock"), "mono");
        let ev = self.dir.join("events/block/block_rq_issue");
        write(&ev.join("filter"), &format!("dev == {devt}"))?;
        write(&ev.join("enable"), "1")
    }

    fn spawn_reader(&self) -> Result<Reader> {
        let path = self.dir.join("trace_pipe");
        let mut f = File::options()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let stop = self.stop.clone();
        Ok(std::thread::spawn(move || drain(&mut f, &stop)))
    }

    /// Its ftrace instance directory.
    pub fn instance(&self) -> &Path {
        &self.dir
    }

    /// Stop, collect and parse the trace; the instance is removed.
    pub fn stop(self) -> Result<Vec<Request>> {
        self.stop_with_cost().map(|(t, _)| t)
    }

    /// As `stop`, with the CPU seconds the reader thread spent (counted in
    /// the process's rusage; a run's host time should not include them).
    pub fn stop_with_cost(mut self) -> Result<(Vec<Request>, f64)> {
        let _ = write(&self.dir.join("tracing_on"), "0");
        self.stop.store(true, Ordering::SeqCst);
        let (text, cpu_s) = match self.reader.take().map(|h| h.join()) {
            Some(Ok(Ok(got))) => got,
            Some(Ok(Err(e))) => return Err(Error::io(self.dir.join("trace_pipe"), e)),
            _ => return Err(Error::work("the trace reader thread failed")),
        };
        let lost = self.lost_events();
        self.remove();
        if lost > 0 {
            return Err(Error::work(format!("the block trace lost {lost} events")));
        }
        Ok((parse(&String::from_utf8_lossy(&text)), cpu_s))
    }

    /// Events the ring buffer overwrote before they were read.
    fn lost_events(&self) -> u64 {
        let Ok(cpus) = fs::read_dir(self.dir.join("per_cpu")) else {
            return 0;
        };
        let mut lost = 0;
        for cpu in cpus.flatten() {
            let stats = fs::read_to_string(cpu.path().join("stats")).unwrap_or_default();
            for line in stats.lines() {
                if let Some(v) = line.strip_prefix("overrun:") {
                    lost += v.trim().parse::<u64>().unwrap_or(0);
                }
            }
        }
        lost
    }

    fn remove(&mut self) {
        if !self.dir.exists() {
            return;
        }
        let ev = self.dir.join("events/block/block_rq_issue");
        let _ = fs::write(ev.join("enable"), "0");
        let _ = fs::write(ev.join("filter"), "0");
        let _ = fs::remove_dir(&self.dir);
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.reader.take() {
            let _ = h.join();
        }
        self.remove();
    }
}

/// This thread's CPU seconds.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Read the pipe until it is empty after `stop` was set; with the CPU
/// seconds this thread used. It drains every 100 ms (few wakeups: the
/// 8 MiB per-CPU buffer holds ~100,000 requests) and at once on stop.
fn drain(f: &mut File, stop: &AtomicBool) -> std::io::Result<(Vec<u8>, f64)> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        loop {
            match f.read(&mut buf) {
                Ok(n) if n > 0 => out.extend_from_slice(&buf[..n]),
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if stopping {
            return Ok((out, thread_cpu()));
        }
        for _ in 0..20 {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// Remove the ftrace instances of fsfit runs that are gone (a SIGKILLed
/// bench leaves its `fsfit-<pid>-<n>` instance); returns what was said.
pub fn cleanup_instances() -> Vec<String> {
    let dir = Path::new(TRACEFS).join("instances");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut said = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("fsfit-")
            .and_then(|r| r.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_err() || Path::new("/proc").join(pid).exists() {
            continue;
        }
        let _ = fs::write(e.path().join("events/block/block_rq_issue/enable"), "0");
        said.push(match fs::remove_dir(e.path()) {
            Ok(()) => format!("removed the block trace instance {}", e.path().display()),
            Err(err) => format!("could not remove {}: {err}", e.path().display()),
        });
    }
    said
}

/// Parse `block_rq_issue` lines:
/// `comm-pid [cpu] flags TS: block_rq_issue: 7,3 WS 4096 () 2048 + 8 none,0,0 [comm]`.
/// Offsets are the device's (sectors × 512); a preflush becomes a Flush
/// before the data, FUA a Flush after it; times from the first event.
pub fn parse(text: &str) -> Vec<Request> {
    let mut out = Vec::new();
    let mut t0: Option<u64> = None;
    for line in text.lines() {
        let Some((head, rest)) = line.split_once(": block_rq_issue: ") else {
            continue;
        };
        let Some(ts) = head.rsplit(' ').next().and_then(parse_ts) else {
            continue;
        };
        let t_ns = ts - *t0.get_or_insert(ts);
        parse_event(rest, t_ns, &mut out);
    }
    out
}

fn parse_ts(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.')?;
    let frac = format!("{frac:0<9}");
    Some(sec.parse::<u64>().ok()? * 1_000_000_000 + frac[..9].parse::<u64>().ok()?)
}

fn parse_event(rest: &str, t_ns: u64, out: &mut Vec<Request>) {
    let w: Vec<&str> = rest.split_whitespace().collect();
    // 7,3 RWBS BYTES (CMD) SECTOR + NR ...
    let Some(plus) = w.iter().position(|x| *x == "+") else {
        return;
    };
    let (Some(rwbs), Some(sector), Some(nr)) = (w.get(1), w.get(plus - 1), w.get(plus + 1)) else {
        return;
    };
    let (Ok(sector), Ok(nr)) = (sector.parse::<u64>(), nr.parse::<u64>()) else {
        return;
    };
    let push = |op, offset, len, out: &mut Vec<Request>| {
        out.push(Request {
            op,
            offset,
            len,
            t_ns,
        })
    };
    let preflush = rwbs.starts_with('F');
    let body = rwbs.trim_start_matches('F');
    let op = match body.chars().next() {
        Some('W') => Op::Write,
        Some('R') => Op::Read,
        Some('D') => Op::Discard,
        _ => Op::Flush,
    };
    if preflush || (op == Op::Flush && nr == 0) {
        push(Op::Flush, 0, 0, out);
    }
    if nr > 0 && op != Op::Flush {
        push(op, sector * 512, nr * 512, out);
        if op == Op::Write && body[1..].contains('F') {
            push(Op::Flush, 0, 0, out);
        }
    }
}

/// Shift device offsets by where the simulated volume starts on the
/// flash (`--partition-offset`: a loop device holds only the volume).
pub fn at_partition(trace: &mut [Request], offset: u64) {
    for r in trace {
        if r.len > 0 {
            r.offset += offset;
        }
    }
}

fn queue(dev: &Path) -> Option<PathBuf> {
    let name = dev.file_name()?.to_string_lossy().into_owned();
    Some(Path::new("/sys/block").join(name).join("queue"))
}

fn read_u64(p: &Path) -> Option<u64> {
    fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// The device's largest request now (its max_sectors_kb).
pub fn max_sectors_kb(dev: &Path) -> Option<u64> {
    read_u64(&queue(dev)?.join("max_sectors_kb"))
}

/// Set the loop (or any) device's largest request to `bytes`, as far as
/// its `max_hw_sectors_kb` allows; returns the max_sectors_kb in effect.
pub fn limit_requests(dev: &Path, bytes: u64) -> Option<u64> {
    let q = queue(dev)?;
    let hw = read_u64(&q.join("max_hw_sectors_kb"))?;
    let want = (bytes / 1024).clamp(4, hw);
    let _ = fs::write(q.join("max_sectors_kb"), want.to_string());
    max_sectors_kb(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_issue_lines_with_flush_and_fua() {
        let text = "\
 kworker/u8:1-123 [001] ..... 100.000001: block_rq_issue: 7,3 W 4096 () 2048 + 8 none,0,0 [kworker/u8:1]
 jbd2/loop3-8-99 [000] ..... 100.000501: block_rq_issue: 7,3 FWFS 4096 () 4096 + 8 none,0,0 [jbd2/loop3-8]
 sync-7 [000] ..... 100.001: block_rq_issue: 7,3 FN 0 () 0 + 0 none,0,0 [sync]
 cat-5 [001] ..... 100.002000: block_rq_issue: 7,3 RA 131072 () 0 + 256 none,0,0 [cat]
 rm-6 [001] ..... 100.003000: block_rq_issue: 7,3 DS 0 () 8192 + 16 none,0,0 [rm]
";
        let t = parse(text);
        let ops: Vec<Op> = t.iter().map(|r| r.op).collect();
        use Op::*;
        assert_eq!(ops, [Write, Flush, Write, Flush, Flush, Read, Discard]);
        assert_eq!((t[0].offset, t[0].len, t[0].t_ns), (2048 * 512, 4096, 0));
        assert_eq!(t[2].offset, 4096 * 512);
        assert_eq!(t[1].t_ns, 500_000);
        assert_eq!(t[5].len, 131072);
        let mut t2 = t.clone();
        at_partition(&mut t2, 1 << 20);
        assert_eq!(t2[0].offset, (1 << 20) + 2048 * 512);
        assert_eq!(t2[1].offset, 0);
    }
}
