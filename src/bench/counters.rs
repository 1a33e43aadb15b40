//! What the system says happened, rather than what fsfit asked for: the block
//! device's own I/O counters, this process's CPU time and context switches,
//! the CPU time of a FUSE driver's daemon, and how long both waited for a
//! CPU that other programs held.

use std::path::{Path, PathBuf};

/// `/sys/block/<dev>/stat` (or `/sys/class/block/<part>/stat`): sectors are
/// always 512 bytes there, whatever the device's sector size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStat {
    pub read_bytes: u64,
    pub write_bytes: u64,
}

/// Where a block device's counters live: by name (`loop3`, `sdb1`).
pub fn stat_path(dev_name: &str) -> PathBuf {
    Path::new("/sys/class/block").join(dev_name).join("stat")
}

/// The counters file of the block device holding `major:minor`.
pub fn stat_path_of_devno(major: u32, minor: u32) -> PathBuf {
    PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"))
}

pub fn parse_stat(text: &str) -> Option<DiskStat> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // Documentation/block/stat.rst: field 3 sectors read, field 7 sectors written.
    if f.len() < 7 {
        return None;
    }
    Some(DiskStat {
        read_bytes: f[2] * 512,
        write_bytes: f[6] * 512,
    })
}

pub fn read_stat(path: &Path) -> Option<DiskStat> {
    parse_stat(&std::fs::read_to_string(path).ok()?)
}

/// getrusage(RUSAGE_SELF) fields the results keep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    pub user_s: f64,
    pub sys_s: f64,
    pub ctx_voluntary: u64,
    pub ctx_involuntary: u64,
}

#[cfg(unix)]
pub fn rusage() -> Usage {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Usage {
        user_s: tv(ru.ru_utime),
        sys_s: tv(ru.ru_stime),
        ctx_voluntary: ru.ru_nvcsw as u64,
        ctx_involuntary: ru.ru_nivcsw as u64,
    }
}

/// Windows: the process's user and kernel time (GetProcessTimes); it keeps
/// no count of context switches, which stay 0.
#[cfg(windows)]
pub fn rusage() -> Usage {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut c, mut x, mut k, mut u) = (zero, zero, zero, zero);
    let ok = unsafe { GetProcessTimes(GetCurrentProcess(), &mut c, &mut x, &mut k, &mut u) };
    // FILETIMEs count 100 ns.
    let s = |t: FILETIME| ((t.dwHighDateTime as u64) << 32 | t.dwLowDateTime as u64) as f64 / 1e7;
    if ok == 0 {
        return Usage::default();
    }
    Usage {
        user_s: s(u),
        sys_s: s(k),
        ctx_voluntary: 0,
        ctx_involuntary: 0,
    }
}

impl Usage {
    pub fn since(&self, before: &Usage) -> Usage {
        Usage {
            user_s: self.user_s - before.user_s,
            sys_s: self.sys_s - before.sys_s,
            ctx_voluntary: self.ctx_voluntary.saturating_sub(before.ctx_voluntary),
            ctx_involuntary: self.ctx_involuntary.saturating_sub(before.ctx_involuntary),
        }
    }
}

/// Read and write system calls the kernel has counted for this process
/// (`syscr`, `syscw` of /proc/self/io, summed over its threads).
pub fn syscalls() -> Option<(u64, u64)> {
    parse_proc_io(&std::fs::read_to_string("/proc/self/io").ok()?)
}

pub fn parse_proc_io(text: &str) -> Option<(u64, u64)> {
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k)?.trim().parse::<u64>().ok())
    };
    Some((field("syscr:")?, field("syscw:")?))
}

/// Nanoseconds each thread of a process has spent runnable but waiting for
/// a CPU, by thread id: the second field of /proc/PID/task/TID/schedstat
/// (kept by the scheduler whenever the kernel has schedstats; zero or
/// absent where it does not). On a busy machine this is the part of a
/// run's wall time that other programs took, not the filesystem.
pub fn runqueue_waits(pid: u32) -> Option<Vec<(u32, u64)>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut v = Vec::new();
    for e in dir.flatten() {
        let Some(tid) = e.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let text = std::fs::read_to_string(e.path().join("schedstat")).unwrap_or_default();
        if let Some(ns) = parse_schedstat(&text) {
            v.push((tid, ns));
        }
    }
    Some(v)
}

/// The runqueue wait (ns) of a schedstat line: "oncpu_ns wait_ns slices".
pub fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// Seconds of runqueue wait between two [`runqueue_waits`] of one process:
/// threads that started in between count from zero, ones that ended are
/// left out (their wait went with them).
pub fn waited_since(before: &[(u32, u64)], after: &[(u32, u64)]) -> f64 {
    let ns: u64 = after
        .iter()
        .map(|(tid, a)| {
            let b = before.iter().find(|(t, _)| t == tid).map_or(0, |x| x.1);
            a.saturating_sub(b)
        })
        .sum();
    ns as f64 / 1e9
}

/// Seconds in which at least one task on the machine waited for a CPU
/// since boot: the "some" total of /proc/pressure/cpu (pressure stall
/// information; absent on kernels without it).
pub fn cpu_pressure() -> Option<f64> {
    parse_pressure(&std::fs::read_to_string("/proc/pressure/cpu").ok()?)
}

/// Seconds in which at least one task on the machine stalled on memory
/// since boot (/proc/pressure/memory "some": reclaim, compaction, refaults).
pub fn memory_pressure() -> Option<f64> {
    parse_pressure(&std::fs::read_to_string("/proc/pressure/memory").ok()?)
}

/// The "some" line's `total=` (microseconds), in seconds.
pub fn parse_pressure(text: &str) -> Option<f64> {
    let some = text.lines().find(|l| l.starts_with("some "))?;
    let us: u64 = some
        .split_whitespace()
        .find_map(|f| f.strip_prefix("total="))?
        .parse()
        .ok()?;
    Some(us as f64 / 1e6)
}

/// User and system CPU seconds of a process, from `/proc/PID/stat`.
pub fn process_cpu(pid: u32) -> Option<(f64, f64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_proc_stat(&text)
}

pub fn parse_proc_stat(text: &str) -> Option<(f64, f64)> {
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // proc(5): utime is field 14, stime field 15; `rest` starts at field 3.
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    let hz = clock_ticks();
    Some((utime / hz, stime / hz))
}

/// The unit of /proc's CPU times.
#[cfg(unix)]
fn clock_ticks() -> f64 {
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

/// No /proc to read off Unix: what Linux's default would be, never used.
#[cfg(not(unix))]
fn clock_ticks() -> f64 {
    100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_stat_fields() {
        let s = "     120        0     9216      50      300        2    40960     900        0      500      950        0        0        0        0";
        let d = parse_stat(s).unwrap();
        assert_eq!(d.read_bytes, 9216 * 512);
        assert_eq!(d.write_bytes, 40960 * 512);
        assert!(parse_stat("1 2 3").is_none());
        assert!(parse_stat("a b c d e f g").is_none());
    }

    #[test]
    fn proc_io_fields() {
        let t = "rchar: 10\nwchar: 20\nsyscr: 3\nsyscw: 4\nread_bytes: 0\n";
        assert_eq!(parse_proc_io(t), Some((3, 4)));
        assert_eq!(parse_proc_io("rchar: 1\n"), None);
        // The kernel counts this process's own calls.
        let (r0, w0) = syscalls().unwrap();
        let f = std::fs::File::open("/proc/self/stat").unwrap();
        let mut buf = [0u8; 64];
        for _ in 0..5 {
            let _ = std::io::Read::read(&mut &f, &mut buf);
        }
        let (r1, w1) = syscalls().unwrap();
        assert!(r1 >= r0 + 5, "{r0} -> {r1}");
        assert!(w1 >= w0);
    }

    #[test]
    fn schedstat_and_pressure_fields() {
        assert_eq!(parse_schedstat("200071 121889 2\n"), Some(121_889));
        assert_eq!(parse_schedstat("200071"), None);
        let psi = "some avg10=7.38 avg60=2.52 avg300=7.16 total=6751675712\n\
full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(parse_pressure(psi), Some(6751.675712));
        assert_eq!(parse_pressure("full avg10=0.00 total=5\n"), None);
        // A thread that began in between counts from zero; one that ended
        // is left out; a counter never goes backwards into the sum.
        let before = [(1, 1_000_000_000), (2, 500), (3, 7)];
        let after = [(1, 1_250_000_000), (2, 400), (4, 50_000_000)];
        assert!((waited_since(&before, &after) - 0.3).abs() < 1e-12);
    }

    /// This thread's wait is read back, and only grows.
    #[cfg(target_os = "linux")]
    #[test]
    fn own_runqueue_wait_is_readable() {
        let me = std::process::id();
        let a = runqueue_waits(me).unwrap();
        assert!(!a.is_empty(), "no thread of this process has a schedstat");
        let b = runqueue_waits(me).unwrap();
        assert!(waited_since(&a, &b) >= 0.0);
    }

    // /proc and the clock tick are Linux's.
    #[cfg(target_os = "linux")]
    #[test]
    fn proc_stat_with_odd_command_names() {
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        let s = "1234 (exfat (fuse) d) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10";
        let (u, sy) = parse_proc_stat(s).unwrap();
        assert_eq!(u, 250.0 / hz);
        assert_eq!(sy, 50.0 / hz);
    }

    // process_cpu reads /proc/PID/stat: Linux only (Windows' --dir runs
    // take their CPU time from GetProcessTimes instead).
    #[cfg(target_os = "linux")]
    #[test]
    fn own_cpu_time_is_readable() {
        let me = std::process::id();
        assert!(process_cpu(me).is_some());
        let a = rusage();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let b = rusage().since(&a);
        assert!(b.user_s >= 0.0 && b.sys_s >= 0.0);
    }
}
