//! Replay speed of the flash model (#18): trace records per second through
//! each profile's device. Run: `cargo run --release --example flash_replay`
//! (bench/flash-replay.sh; results in BENCHMARKS.md).
//!
//! The synthetic trace mixes what bench traces hold: sequential 120 KiB
//! writes, 4 KiB writes scattered over the volume (AU copies), FAT-area
//! updates, reads and flushes, 4 million records.

use fsfit::flash::{profiles, replay, Op, Request};
use std::time::Instant;

fn trace(n: usize) -> Vec<Request> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut seq = 64 << 20;
    (0..n)
        .map(|i| {
            // xorshift: cheap, repeatable.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (op, offset, len) = match x % 10 {
                0..=3 => {
                    seq += 122_880;
                    (Op::Write, seq % (8 << 30), 122_880)
                }
                4 | 5 => (Op::Write, (x >> 8) % (8 << 30) / 4096 * 4096, 4096),
                6 => (
                    Op::Write,
                    (1 << 20) + (x >> 8) % (2 << 20) / 512 * 512,
                    4096,
                ),
                7 | 8 => (Op::Read, (x >> 8) % (8 << 30) / 4096 * 4096, 131_072),
                _ => (Op::Flush, 0, 0),
            };
            Request {
                op,
                offset,
                len,
                t_ns: i as u64 * 20_000,
            }
        })
        .collect()
}

fn main() {
    let n = 4_000_000;
    let t = trace(n);
    println!(
        "{:<18} {:>12} {:>14} {:>10}",
        "profile", "records", "records/s", "AU copies"
    );
    for p in profiles() {
        let mut dev = p.device();
        let t0 = Instant::now();
        let r = replay(&mut *dev, &t);
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "{:<18} {:>12} {:>14.0} {:>10}",
            p.name,
            n,
            n as f64 / secs,
            r.au_copies
        );
    }
}
