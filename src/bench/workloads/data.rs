//! File contents: incompressible, never all zeros, different in every 4 KiB
//! page, and reproducible from (content id, offset) so reads can be checked
//! without storing anything.

const BASE: usize = 1 << 20;
const PAGE: u64 = 4096;
/// Pages repeat their random body every CYCLE pages (1 MiB, the block size
/// workloads write in), so a writer can reuse its buffer and only rewrite
/// the 8-byte stamps; the stamps keep every page of every file distinct.
const CYCLE: u64 = 256;

pub struct Data {
    base: Vec<u8>,
}

impl Data {
    pub fn new(seed: u64) -> Data {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut base = vec![0u8; BASE + PAGE as usize];
        for chunk in base.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        Data { base }
    }

    /// Fill `buf` with the bytes of content `id` at `offset`.
    pub fn fill(&self, id: u64, offset: u64, buf: &mut [u8]) {
        let mut pos = 0usize;
        let mut off = offset;
        while pos < buf.len() {
            let page = off / PAGE;
            let in_page = (off % PAGE) as usize;
            let n = (PAGE as usize - in_page).min(buf.len() - pos);
            // Each page starts at a different place in the random base...
            let start = (((page % CYCLE).wrapping_mul(4099) ^ id.wrapping_mul(0x2545_F491))
                % (BASE as u64)) as usize;
            buf[pos..pos + n].copy_from_slice(&self.base[start + in_page..start + in_page + n]);
            // ...and carries its content id and page number, so no two pages match.
            let stamp = stamp(id, page);
            for (i, b) in stamp.iter().enumerate() {
                if i >= in_page && i - in_page < n {
                    buf[pos + i - in_page] = *b;
                }
            }
            pos += n;
            off += n as u64;
        }
    }
}

impl Data {
    /// Turn `buf`, holding content `id` at `from`, into content `id` at
    /// `to`: only the page stamps change when both are whole blocks of
    /// CYCLE pages at CYCLE-aligned offsets. Falls back to `fill` otherwise.
    pub fn advance(&self, id: u64, from: u64, to: u64, buf: &mut [u8]) {
        let cycle = CYCLE * PAGE;
        let aligned = from % cycle == 0 && to % cycle == 0 && buf.len() as u64 == cycle;
        if !aligned {
            self.fill(id, to, buf);
            return;
        }
        for (i, page) in buf.chunks_mut(PAGE as usize).enumerate() {
            page[..8].copy_from_slice(&stamp(id, to / PAGE + i as u64));
        }
    }
}

/// The first 8 bytes of each page: its content id and page number.
fn stamp(id: u64, page: u64) -> [u8; 8] {
    ((id << 32 ^ page) ^ 0x5a5a_5a5a_5a5a_5a5a).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_differ_and_offsets_agree() {
        let d = Data::new(7);
        let mut a = vec![0u8; 3 * 4096];
        d.fill(1, 0, &mut a);
        assert_ne!(a[..4096], a[4096..8192]);
        assert!(a.iter().any(|&b| b != 0));
        // Any split of the same range gives the same bytes.
        let mut b = vec![0u8; 3 * 4096];
        d.fill(1, 0, &mut b[..1000]);
        d.fill(1, 1000, &mut b[1000..5000]);
        d.fill(1, 5000, &mut b[5000..]);
        assert_eq!(a, b);
        // Advancing a whole block by stamps equals filling it afresh.
        let mut blk = vec![0u8; 1 << 20];
        d.fill(9, 0, &mut blk);
        d.advance(9, 0, 1 << 20, &mut blk);
        let mut fresh = vec![0u8; 1 << 20];
        d.fill(9, 1 << 20, &mut fresh);
        assert_eq!(blk, fresh);
        let mut c = vec![0u8; 4096];
        d.fill(2, 0, &mut c);
        assert_ne!(a[..4096], c[..]);
    }
}
