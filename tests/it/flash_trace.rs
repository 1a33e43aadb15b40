//! Block traces through tracefs: the requests a real loop device
//! received, with their offsets, lengths and kinds; the tracer's own
//! ftrace instance is gone afterwards.

use crate::common::{can_mount, run, Image, Loop};
use fsfit::flash::trace::{limit_requests, Tracer};
use fsfit::flash::Op;
use std::path::Path;

fn tracefs_ok() -> bool {
    if fsfit::flash::trace::ensure_tracefs().is_err() {
        return crate::common::skip(
            "tracefs with block tracepoints (mount -t tracefs nodev /sys/kernel/tracing)",
        );
    }
    true
}

#[test]
fn a_trace_holds_every_direct_write_and_read_of_the_loop_device() {
    if !can_mount() || !tracefs_ok() {
        return;
    }
    let image = Image::new(64 << 20);
    let lo = Loop::attach(&image.path);
    let dev = Path::new(&lo.dev);
    let used = limit_requests(dev, 122_880).expect("the loop device's queue limits");
    assert_eq!(
        used, 120,
        "max_sectors_kb follows the profile's largest transfer"
    );
    let t = Tracer::start(dev).unwrap();
    let instance = t.instance().to_path_buf();
    assert!(instance.starts_with("/sys/kernel/tracing/instances") && instance.is_dir());
    // 8 writes of 4 KiB at 1 MiB steps, then one 1 MiB read (split at 120 KiB).
    for i in 0..8 {
        let seek = format!("seek={}", i * 256);
        run(
            "dd",
            &[
                "if=/dev/zero",
                &format!("of={}", lo.dev),
                "bs=4096",
                "count=1",
                &seek,
                "oflag=direct",
                "status=none",
            ],
        );
    }
    run(
        "dd",
        &[
            &format!("if={}", lo.dev),
            "of=/dev/null",
            "bs=1M",
            "count=1",
            "skip=16",
            "iflag=direct",
            "status=none",
        ],
    );
    let trace = t.stop().unwrap();
    let writes: Vec<_> = trace.iter().filter(|r| r.op == Op::Write).collect();
    assert_eq!(writes.len(), 8, "{trace:?}");
    for (i, w) in writes.iter().enumerate() {
        assert_eq!((w.offset, w.len), (i as u64 * (1 << 20), 4096));
    }
    let reads: Vec<_> = trace
        .iter()
        .filter(|r| r.op == Op::Read && r.offset >= 16 << 20)
        .collect();
    assert_eq!(reads.iter().map(|r| r.len).sum::<u64>(), 1 << 20);
    assert!(
        reads.iter().all(|r| r.len <= 120 * 1024),
        "requests over max_sectors_kb: {reads:?}"
    );
    assert!(trace.windows(2).all(|p| p[0].t_ns <= p[1].t_ns));
    assert!(
        !instance.exists(),
        "the ftrace instance is removed after stop"
    );
}

#[test]
fn cleanup_removes_the_trace_instance_a_killed_run_left() {
    if !can_mount() || !tracefs_ok() {
        return;
    }
    // A pid above pid_max can belong to no process.
    let max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let dead = Path::new("/sys/kernel/tracing/instances").join(format!("fsfit-{}-0", max + 1));
    std::fs::create_dir(&dead).unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = crate::common::fsfit()
        .env("FSFIT_STATE_DIR", state.path())
        .arg("cleanup")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let left = dead.exists();
    if left {
        let _ = std::fs::remove_dir(&dead);
    }
    assert!(!left && text.contains("block trace instance"), "{text}");
}
