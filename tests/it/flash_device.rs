//! The emulated flash device (`fsfit emulate`) and the read-only probe
//! (`fsfit probe`): the probe finds the AU and page
//! size of the profile it probes through the emulated device, finds nothing
//! on a plain loop device or image, never opens for writing; flashbench's
//! --open-au pattern on the emulated 2-open-AU stick gives the figures of
//! flashbench's README.

use crate::common::{can_fuse, can_mount, fsfit, have, run};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn ready() -> bool {
    can_mount() && can_fuse() && have(&["losetup"])
}

/// `fsfit emulate PROFILE IMAGE --size SIZE` running in a child process
/// with its own state folder; stopped with SIGINT (Ctrl-C) when dropped.
struct Emulator {
    child: Child,
    dev: String,
    dir: tempfile::TempDir,
}

impl Emulator {
    fn start(profile: &str, size: &str) -> Emulator {
        let dir = tempfile::Builder::new()
            .prefix("fsfit-emu-")
            .tempdir()
            .unwrap();
        let mut child = fsfit()
            .args(["emulate", profile])
            .arg(dir.path().join("stick.img"))
            .args(["--size", size])
            .env("FSFIT_STATE_DIR", dir.path().join("state"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut line).unwrap();
        let dev = line.trim().to_string();
        if !dev.starts_with("/dev/loop") {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "fsfit emulate printed no loop device: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Emulator { child, dev, dir }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// Ctrl-C, then wait (60 s) for it to clean up: its exit status.
    fn stop(&mut self) -> Option<std::process::ExitStatus> {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60) {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fsfit()
            .arg("cleanup")
            .env("FSFIT_STATE_DIR", self.state())
            .status();
        None
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
    }
}

fn probe_json(dev: &str) -> Value {
    let out = fsfit().args(["probe", dev, "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "fsfit probe {dev}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The AU and page size of a profile.
fn geometry(name: &str) -> (u64, u64) {
    let p = fsfit::flash::profile(name).unwrap();
    (p.au_bytes(), p.page_bytes())
}

/// Nothing the emulator set up is left: its loop device no longer serves
/// its file and its FUSE mount is gone.
fn assert_released(e: &Emulator) {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let state = e.state();
    assert!(
        !mounts.contains(state.to_str().unwrap()),
        "the served FUSE mount is left behind"
    );
    let loops = run("losetup", &["-a"]);
    assert!(
        !loops.contains(state.to_str().unwrap()),
        "the loop device still serves the emulated file: {loops}"
    );
}

#[test]
fn probe_finds_the_au_and_page_of_the_emulated_profile() {
    if !ready() {
        return;
    }
    for name in [
        "usb2-stick",
        "sd-2006-small-eb",
        "sd-2011-1au",
        "microsd-a1",
    ] {
        let mut e = Emulator::start(name, "256M");
        let j = probe_json(&e.dev);
        let (au, page) = geometry(name);
        assert_eq!(j["schema"], "fsfit.probe/1");
        assert_eq!(j["size_bytes"], 256u64 << 20);
        assert_eq!(j["au_bytes"], au, "{name}: {j:#}");
        assert_eq!(j["page_bytes"], page, "{name}: {j:#}");
        assert_eq!(j["confidence"], "high", "{name}: {j:#}");
        // usb2-stick and microsd-a1 share their geometry: the read time
        // tells them apart, which a busy host can blur in one probe (seen
        // once in CI): two of three probes must name the profile.
        if j["closest_profile"] != name {
            let again: Vec<Value> = (0..2)
                .map(|_| probe_json(&e.dev)["closest_profile"].clone())
                .collect();
            assert!(
                again.iter().all(|c| c == name),
                "{name}: probes named {} then {again:?}: {j:#}",
                j["closest_profile"]
            );
        }
        assert!(j["evidence"].as_array().unwrap().len() >= 10);
        let status = e.stop().expect("fsfit emulate ended on Ctrl-C");
        assert!(status.success(), "{name}: emulate exited {status}");
        assert_released(&e);
    }
}

/// A plain loop device attached read-only: the probe works (so it never
/// asked for write access: opening a read-only block device for writing
/// fails with EROFS) and finds nothing, inventing no AU.
#[test]
fn probe_on_a_read_only_plain_loop_device_finds_nothing() {
    if !ready() {
        return;
    }
    let img = crate::common::Image::new(128 << 20);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    for i in 0..128u64 {
        f.write_all_at(&[(i % 251) as u8; 4096], i << 20).unwrap();
    }
    drop(f);
    let dev = run(
        "losetup",
        &[
            "-f",
            "--show",
            "--read-only",
            "--direct-io=on",
            img.path_str(),
        ],
    )
    .trim()
    .to_string();
    let _guard = crate::common::Loop { dev: dev.clone() };
    let j = probe_json(&dev);
    assert_eq!(j["confidence"], "none", "{j:#}");
    assert_eq!(j["au_bytes"], 0);
    assert_eq!(j["page_bytes"], 0);
    assert_eq!(j["closest_profile"], "");
    assert_eq!(j["sysfs"]["logical_block_size"], 512);
}

/// The probe's file descriptor is read-only (its access mode in
/// /proc/self/fdinfo, and a write on it fails with EBADF), and probing an
/// image leaves its content and times as they were.
#[test]
fn probe_opens_read_only_and_changes_nothing() {
    let img = crate::common::Image::new(16 << 20);
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i * 7 % 253) as u8).collect();
    std::fs::write(&img.path, &data).unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let f = std::fs::File::options()
        .write(true)
        .open(&img.path)
        .unwrap();
    f.set_times(
        std::fs::FileTimes::new()
            .set_modified(old)
            .set_accessed(old),
    )
    .unwrap();
    drop(f);

    let (f, _direct) = fsfit::flash::probe::open_readonly(&img.path).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap();
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .map(|v| i32::from_str_radix(v.trim(), 8).unwrap())
        .unwrap();
    assert_eq!(flags & libc::O_ACCMODE, libc::O_RDONLY, "{info}");
    let err = f.write_at(b"x", 0).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBADF));
    drop(f);

    let before = std::fs::metadata(&img.path).unwrap();
    let j = probe_json(img.path_str());
    assert_eq!(j["size_bytes"], 16u64 << 20);
    assert_eq!(j["confidence"], "none", "an image file is not flash: {j:#}");
    let after = std::fs::metadata(&img.path).unwrap();
    assert_eq!(after.mtime(), before.mtime());
    assert_eq!(after.ctime(), before.ctime());
    assert_eq!(std::fs::read(&img.path).unwrap(), data, "the image changed");
}

/// An image file is read O_DIRECT when its filesystem takes it (checked
/// here on our own: a 1 KiB O_DIRECT read at 1536, the probe's smallest
/// read across a boundary), and the page cache is named only when not.
#[test]
fn probe_reads_an_image_o_direct_where_its_filesystem_allows() {
    let img = crate::common::Image::new(64 << 20);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    for i in 0..64u64 {
        f.write_all_at(&[(i % 251) as u8 | 1; 4096], i << 20)
            .unwrap();
    }
    drop(f);
    let takes_direct = {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&img.path);
        let mut v = vec![0u8; 8192];
        let skip = v.as_ptr().align_offset(4096);
        f.is_ok_and(|f| f.read_at(&mut v[skip..skip + 1024], 1536).is_ok())
    };
    let (f, access) = fsfit::flash::probe::open_readonly(&img.path).unwrap();
    assert_eq!(access.direct, takes_direct, "{access:?}");
    let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap();
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .map(|v| i32::from_str_radix(v.trim(), 8).unwrap())
        .unwrap();
    assert_eq!(flags & libc::O_DIRECT != 0, takes_direct, "{info}");
    drop(f);
    let j = probe_json(img.path_str());
    let says_cache = j["reasons"].to_string().contains("page cache");
    assert_eq!(says_cache, !takes_direct, "{j:#}");
    assert_eq!(j["confidence"], "none", "{j:#}");
}

#[test]
fn probe_refuses_what_it_cannot_probe() {
    let out = fsfit()
        .args(["probe", "/nonexistent/stick"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    let img = crate::common::Image::new(4096);
    let out = fsfit().args(["probe", img.path_str()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "too small");
    let out = fsfit().args(["probe", "/tmp"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a directory");
}

#[test]
fn emulate_refuses_bad_arguments_before_setting_anything_up() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("new.img");
    let cases: [(&[&str], &str); 3] = [
        (&["no-such-profile"], "invalid <PROFILE> 'no-such-profile'"),
        (&["usb2-stick"], "--size"),
        (&["usb2-stick", "--size", "1000"], "multiple of 512"),
    ];
    for (args, says) in cases {
        let out = fsfit()
            .arg("emulate")
            .arg(args[0])
            .arg(&img)
            .args(&args[1..])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!img.exists(), "{args:?} made the image");
    }
    let out = fsfit()
        .args(["emulate", "usb2-stick", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a device is not an image");
    if !can_mount() {
        return;
    }
    // An image a loop device already serves is not served a second time.
    let img = crate::common::Image::new(8 << 20);
    let lo = crate::common::Loop::attach(&img.path);
    let out = fsfit()
        .args(["emulate", "usb2-stick", img.path_str()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&lo.dev), "{err}");
}

/// flashbench's README, `--open-au --erasesize=4M --blocksize=256K` on a
/// card with 2 open AUs: MB/s by chunk size, for 2 and 3 AUs.
const README: [(u32, u64, f64); 4] = [
    (2, 4 << 20, 8.79),
    (2, 256 << 10, 6.27),
    (3, 4 << 20, 7.75),
    (3, 256 << 10, 0.912),
];

/// Write one line of the pattern through `f` (O_DIRECT): MB/s.
fn write_line(f: &std::fs::File, line: &fsfit::flash::flashbench::Line) -> f64 {
    let buf = vec![0x5au8; line.chunk as usize + 4096];
    let skip = buf.as_ptr().align_offset(4096);
    let data = &buf[skip..skip + line.chunk as usize];
    let t0 = Instant::now();
    for w in &line.writes {
        f.write_all_at(data, w.offset).unwrap();
    }
    let bytes: u64 = line.writes.iter().map(|w| w.len).sum();
    bytes as f64 / t0.elapsed().as_secs_f64() / 1e6
}

/// MB/s of each line of `--open-au-nr=COUNT` on the model alone.
fn model_line_speeds(profile: &str, count: u32) -> Vec<(u64, f64)> {
    let p = fsfit::flash::profile(profile).unwrap();
    let mut dev = p.device();
    fsfit::flash::flashbench::open_au(4 << 20, 256 << 10, count)
        .iter()
        .map(|l| {
            let r = fsfit::flash::replay(dev.as_mut(), &l.writes);
            let bytes: u64 = l.writes.iter().map(|w| w.len).sum();
            (l.chunk, bytes as f64 / r.device_seconds / 1e6)
        })
        .collect()
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want
}

/// Validation (c): the pattern, written through the emulated 2-open-AU
/// stick (usb2-stick), gives flashbench README's figures within 25 %, as
/// does the model alone; the emulated run is at most 15 % slower than the
/// model on every line, and never faster.
#[test]
fn flashbench_open_au_on_the_emulated_two_open_au_stick() {
    if !ready() {
        return;
    }
    // Host scheduling only ever adds time, and on a busy machine (CI runs
    // tests side by side on 2 cores) one line can lose a slice of it: a
    // pass that misses is run again on a fresh device, up to three times.
    // A wrong model or delays not applied fail every pass.
    let mut tries = Vec::new();
    for _ in 0..3 {
        let (bad, report) = open_au_pass("usb2-stick");
        eprintln!("{report}");
        if bad.is_empty() {
            return;
        }
        tries.push(format!("{bad:#?}\n{report}"));
    }
    panic!("every pass missed:\n{}", tries.join("\n"));
}

/// One run of flashbench's --open-au lines on a fresh emulated `profile`:
/// the misses and the report.
fn open_au_pass(profile: &str) -> (Vec<String>, String) {
    let e = Emulator::start(profile, "256M");
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_SYNC)
        .open(&e.dev)
        .unwrap();
    let mut report = String::new();
    let mut bad = Vec::new();
    for count in [2u32, 3] {
        let model = model_line_speeds(profile, count);
        for (line, (chunk, sim)) in fsfit::flash::flashbench::open_au(4 << 20, 256 << 10, count)
            .iter()
            .zip(model)
        {
            let got = write_line(&f, line);
            report += &format!("{count} AUs {chunk:>8}: emulated {got:.2} MB/s, model {sim:.2}\n");
            // The host only adds time (faster than the model would mean
            // the delays were not applied), and little of it.
            if got > sim * 1.05 || got < sim * 0.85 {
                bad.push(format!(
                    "{count} AUs {chunk}: emulated {got:.2} vs the model's {sim:.2}"
                ));
            }
            for (c, ch, want) in README {
                if c == count
                    && ch == chunk
                    && !(within(got, want, 0.25) && within(sim, want, 0.25))
                {
                    bad.push(format!(
                        "{count} AUs {chunk}: README {want}, emulated {got:.2}, model {sim:.2}"
                    ));
                }
            }
        }
    }
    (bad, report)
}

/// CPU seconds this thread has used (user + system).
fn thread_cpu_seconds() -> f64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// The workload: files of 1 MiB and of 8 KiB into `dir`, then syncfs, as
/// a copy to a stick ends. Returns (wall seconds, host CPU seconds).
fn copy_and_sync(dir: &std::path::Path) -> (f64, f64) {
    let (t0, cpu0) = (Instant::now(), thread_cpu_seconds());
    let big = vec![0xa5u8; 1 << 20];
    for i in 0..6 {
        std::fs::write(dir.join(format!("big{i}")), &big).unwrap();
    }
    for i in 0..60 {
        std::fs::write(dir.join(format!("small{i}")), &big[..8192]).unwrap();
    }
    let f = std::fs::File::open(dir).unwrap();
    assert_eq!(
        unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&f)) },
        0
    );
    (t0.elapsed().as_secs_f64(), thread_cpu_seconds() - cpu0)
}

/// The replay check: a workload's simulated time, from its
/// block trace (tracefs, as `bench --flash` takes it) replayed through the
/// profile's model, agrees with the time it took on the emulated device
/// within 15 %. The model replays the trace of mkfs and mount first, so
/// that its open AUs are those the emulated device had. The device runs in
/// this process (the library's entry point), so the test also checks that
/// the trace holds exactly the requests the device served.
/// The comparisons are tried up to three times, each on a fresh device:
/// host scheduling on a busy machine only adds measured time, and a trace
/// may lose events under load; a model that disagrees with the device, or
/// a trace that misses requests, misses every time.
#[test]
fn a_replayed_trace_agrees_with_the_time_on_the_emulated_device() {
    if !ready() || !have(&["mkfs.ext4", "mount", "umount"]) {
        return;
    }
    if fsfit::flash::trace::ensure_tracefs().is_err() {
        crate::common::skip("tracefs with block tracepoints");
        return;
    }
    let mut misses = Vec::new();
    for _ in 0..3 {
        match replay_pass() {
            Ok(()) => return,
            Err(said) => misses.push(said),
        }
    }
    panic!("simulated and measured differ by more than 15 % in every pass: {misses:#?}");
}

/// One traced copy on a fresh emulated stick, replayed through the model:
/// Err when the trace is not what the device served, or the simulated time
/// misses the measured one by more than 15 %.
fn replay_pass() -> Result<(), String> {
    use fsfit::flash::emulate::{BoundaryReads, ReadGeometry};
    use fsfit::flash::trace::{limit_requests, Tracer};
    let p = fsfit::flash::profile("usb2-stick").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let em =
        fsfit::flash::emulate::start(&p, &tmp.path().join("stick.img"), Some(256 << 20)).unwrap();
    let dev = std::path::Path::new(em.loop_dev());
    limit_requests(dev, p.max_transfer_bytes()).unwrap();
    let warm = Tracer::start(dev).unwrap();
    let opts = "lazy_itable_init=1,lazy_journal_init=1,nodiscard";
    run("mkfs.ext4", &["-q", "-F", "-E", opts, em.loop_dev()]);
    let m = crate::common::Mount::kernel(em.loop_dev(), "ext4", Some("noinit_itable"));
    let warm = warm.stop().unwrap();
    let t = Tracer::start(dev).unwrap();
    let before = em.log().len();
    let (wall, cpu) = copy_and_sync(m.path());
    let trace = t.stop().unwrap();
    let served: Vec<_> = em.log()[before..].iter().map(|(r, _)| *r).collect();
    drop(m);
    em.stop();

    let key = |v: &[fsfit::flash::Request]| {
        let mut k: Vec<_> = v.iter().map(|r| (r.offset, r.len, r.op as u8)).collect();
        k.sort();
        k
    };
    let (kt, ks) = (key(&trace), key(&served));
    let only_t: Vec<_> = kt.iter().filter(|x| !ks.contains(x)).collect();
    let only_s: Vec<_> = ks.iter().filter(|x| !kt.contains(x)).collect();
    if !(only_t.is_empty() && only_s.is_empty()) {
        // Once, in the whole suite on a fresh machine, three 1 KiB reads the
        // device served were missing from the trace (not explained; tracefs
        // drops events when its buffer fills): tried again like a time that
        // missed.
        return Err(format!(
            "the trace is not what the device served: only traced {only_t:?}, only served {only_s:?}"
        ));
    }
    let mut model = BoundaryReads::new(p.device(), ReadGeometry::of(&p));
    fsfit::flash::replay(&mut model, &warm);
    let r = fsfit::flash::replay(&mut model, &trace);
    // A copy ends in a sync: host time and device time add up.
    let overlap = fsfit::flash::Overlap::Wait;
    let sim = fsfit::flash::simulated_seconds(r.device_seconds, cpu, overlap);
    let said = format!(
        "measured {wall:.3} s on the emulated {}, simulated {sim:.3} s \
         (device {:.3} s + host CPU {cpu:.3} s, {} requests, {} AU copies)",
        p.name, r.device_seconds, r.requests, r.au_copies
    );
    eprintln!("{said}");
    assert!(
        r.host_write_bytes >= 6 << 20,
        "the trace misses writes: {said}"
    );
    if (sim - wall).abs() > 0.15 * wall {
        return Err(said);
    }
    Ok(())
}

/// The `diff` column of `flashbench -a` output, by boundary.
fn flashbench_diffs(out: &str) -> Vec<(u64, f64)> {
    let us = |s: &str| {
        let n = |suffix: &str| s.strip_suffix(suffix).and_then(|v| v.parse::<f64>().ok());
        n("ns")
            .map(|v| v / 1e3)
            .or_else(|| n("µs"))
            .or_else(|| n("ms").map(|v| v * 1e3))
            .or_else(|| n("s").map(|v| v * 1e6))
    };
    out.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let align = w.get(1)?.parse().ok()?;
            let d = w.iter().position(|x| *x == "diff")?;
            Some((align, us(w.get(d + 1)?)?))
        })
        .collect()
}

/// The real flashbench binary's `-a` on the emulated usb2-stick sees the
/// same steps as `fsfit probe`: diffs at the AU boundaries well above
/// those at page boundaries, which are well above those below a page.
/// flashbench (Debian 62-1) fails with a bare "Invalid argument" whenever
/// its standard input is read-only (`< /dev/null`, as under CI): strace
/// shows fcntl(0, F_GETFL) = O_RDONLY as its last call before the error.
/// It is not the loop device: with stdin open read-write it runs on one.
#[test]
fn flashbench_a_on_the_emulated_stick_sees_what_probe_sees() {
    if !ready() || !have(&["flashbench"]) {
        return;
    }
    let e = Emulator::start("usb2-stick", "256M");
    let stdin = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    let out = std::process::Command::new("flashbench")
        .args(["-a", &e.dev, "--blocksize=1024"])
        .stdin(stdin)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "flashbench: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = flashbench_diffs(&text);
    let (au, page) = geometry("usb2-stick");
    let level = |lo: u64, hi: u64| {
        let v: Vec<f64> = d
            .iter()
            .filter(|(a, _)| *a >= lo && *a < hi)
            .map(|x| x.1)
            .collect();
        assert!(!v.is_empty(), "{text}");
        (
            v.iter().cloned().fold(f64::MAX, f64::min),
            v.iter().cloned().fold(f64::MIN, f64::max),
        )
    };
    let below = level(0, page);
    let pages = level(page, au);
    let aus = level(au, u64::MAX);
    assert!(
        pages.0 > below.1 + 100.0 && aus.0 > pages.1 + 100.0,
        "{text}"
    );
    let j = probe_json(&e.dev);
    assert_eq!(
        (j["au_bytes"].as_u64(), j["page_bytes"].as_u64()),
        (Some(au), Some(page))
    );
}

/// `fsfit emulate` killed with SIGKILL cannot clean up: `fsfit cleanup`
/// then detaches its loop device and unmounts its FUSE filesystem, from
/// the state file the run kept.
#[test]
fn cleanup_releases_an_emulated_device_whose_run_was_killed() {
    if !ready() {
        return;
    }
    let mut e = Emulator::start("usb2-stick", "64M");
    let state = std::fs::read_to_string(
        std::fs::read_dir(e.state())
            .unwrap()
            .flatten()
            .find(|f| f.path().extension().is_some_and(|x| x == "json"))
            .expect("the run's state file")
            .path(),
    )
    .unwrap();
    assert!(
        state.contains(&e.dev) && state.contains("served-"),
        "{state}"
    );
    e.child.kill().unwrap();
    e.child.wait().unwrap();
    let out = fsfit()
        .arg("cleanup")
        .env("FSFIT_STATE_DIR", e.state())
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains(&format!("detached {}", e.dev)), "{said}");
    assert_released(&e);
}
