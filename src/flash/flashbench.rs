//! flashbench's `--open-au` access pattern (Arnd Bergmann's flashbench,
//! flashbench.c try_open_au and vm.c), rebuilt here so a test can replay it
//! against a model or an emulated device: the flashbench binary opens its
//! device read-write and fails on loop devices here.
//!
//! For each chunk size from the erase size down to the block size, halving:
//! write `count` AUs, 12 erase sizes apart from 16 MiB on (rounded up to an
//! erase size), chunk by chunk: chunk 0 of every AU (the AUs in an LFSR
//! order), then chunk 1 of every AU, and so on. With `count` no more than
//! the device's open AUs every AU is written linearly at full speed; with
//! one more, every chunk lands on an AU that was just closed.

use super::{Op, Request};

/// One line of flashbench's output: the chunk size and its writes.
#[derive(Clone, Debug)]
pub struct Line {
    pub chunk: u64,
    pub writes: Vec<Request>,
}

/// flashbench's linear feedback shift register over `bits` bits (vm.c):
/// within 2^bits steps it visits every value once; 0 is special-cased.
fn lfsr(v: u32, bits: u32) -> u32 {
    let seed = ((1u32 << bits) - 1) & 0xace1;
    if v == seed {
        return 0;
    }
    let v = if v == 0 { seed } else { v };
    let taps: &[u32] = match bits {
        8 => &[0, 2, 3, 4],
        9 => &[0, 4],
        10 => &[0, 3],
        11 => &[0, 2],
        12 => &[0, 1, 2, 8],
        13 => &[0, 1, 2, 5],
        14 => &[0, 1, 2, 12],
        15 => &[0, 1],
        _ => &[0, 2, 3, 5],
    };
    let bit = taps.iter().fold(0, |b, t| b ^ (v >> t)) & 1;
    (v >> 1) | (bit << (bits - 1))
}

/// The order flashbench's O_OFF_RAND visits `num` places in.
pub fn random_order(num: u32) -> Vec<u32> {
    let mut bits = 0;
    let mut i = num;
    while i > 0 {
        bits += 1;
        i /= 2;
    }
    let bits = bits.max(8);
    let mut pos = 0;
    (0..num)
        .map(|_| {
            loop {
                pos = lfsr(pos, bits);
                if pos < num {
                    break;
                }
            }
            pos
        })
        .collect()
}

/// The writes of `flashbench --open-au --open-au-nr=COUNT
/// --erasesize=ERASE --blocksize=BLOCK` (no --random, no --offset).
pub fn open_au(erase: u64, block: u64, count: u32) -> Vec<Line> {
    let offset = (16u64 << 20).div_ceil(erase) * erase;
    let mut lines = Vec::new();
    let mut chunk = erase;
    while chunk >= block {
        let mut writes = Vec::new();
        for i in 0..erase / chunk {
            for pos in random_order(count) {
                writes.push(Request {
                    op: Op::Write,
                    offset: offset + pos as u64 * 12 * erase + i * chunk,
                    len: chunk,
                    t_ns: 0,
                });
            }
        }
        lines.push(Line { chunk, writes });
        chunk /= 2;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_order_visits_every_place_once() {
        for n in [1, 2, 3, 5, 300] {
            let mut o = random_order(n);
            o.sort();
            assert_eq!(o, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn every_au_is_written_whole_at_every_chunk_size() {
        let lines = open_au(4 << 20, 256 << 10, 3);
        let chunks: Vec<u64> = lines.iter().map(|l| l.chunk).collect();
        assert_eq!(chunks, [4 << 20, 2 << 20, 1 << 20, 512 << 10, 256 << 10]);
        for l in &lines {
            let total: u64 = l.writes.iter().map(|w| w.len).sum();
            assert_eq!(total, 3 * (4 << 20));
            // AUs 12 erase sizes apart from 16 MiB.
            for w in &l.writes {
                let rel = w.offset - (16 << 20);
                assert!(rel / (48 << 20) < 3 && rel % (48 << 20) < 4 << 20, "{w:?}");
            }
        }
        // Interleaved: consecutive writes of the 256 KiB line change AU.
        let w = &lines[4].writes;
        assert_ne!(w[0].offset / (4 << 20), w[1].offset / (4 << 20));
    }
}
