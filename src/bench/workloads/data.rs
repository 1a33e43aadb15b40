//! File contents: incompressible, never all zeros, different in every 4 KiB
//! page, and reproducible from (content id, offset) so reads can be checked
//! without storing anything.

const BASE: usize = 1 << 20;
const PAGE: u64 = 4096;

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
            let start =
                ((page.wrapping_mul(4099) ^ id.wrapping_mul(0x2545_F491)) % (BASE as u64)) as usize;
            buf[pos..pos + n].copy_from_slice(&self.base[start + in_page..start + in_page + n]);
            // ...and carries its content id and page number, so no two pages match.
            let stamp = (id << 32 ^ page).to_le_bytes();
            for (i, b) in stamp.iter().enumerate() {
                if i >= in_page && i - in_page < n {
                    buf[pos + i - in_page] = *b ^ 0x5a;
                }
            }
            pos += n;
            off += n as u64;
        }
    }
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
        let mut c = vec![0u8; 4096];
        d.fill(2, 0, &mut c);
        assert_ne!(a[..4096], c[..]);
    }
}
