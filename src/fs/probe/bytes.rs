//! Shared helpers for the parsers: a bounded reader over `read_at`, checked
//! little/big-endian field access, CRCs, UUID and string decoding.

use super::error::{corrupt, ProbeError};
use std::io;

/// Largest single read any parser may ask for. Every length derived from
/// disk is checked against smaller, structure-specific limits first; this is
/// the last line of defence against an allocation sized by a corrupt field.
pub const MAX_READ: usize = 4 << 20;

/// The device being probed.
pub struct Dev<'a> {
    read_at: &'a mut dyn FnMut(u64, usize) -> io::Result<Vec<u8>>,
}

impl<'a> Dev<'a> {
    pub fn new(read_at: &'a mut dyn FnMut(u64, usize) -> io::Result<Vec<u8>>) -> Dev<'a> {
        Dev { read_at }
    }

    /// Up to `len` bytes at `off`: fewer at the end of the device.
    pub fn read(&mut self, off: u64, len: usize) -> Result<Vec<u8>, ProbeError> {
        if len > MAX_READ {
            return Err(corrupt!(
                "refusing to read {len} bytes at offset {off} (limit {MAX_READ})"
            ));
        }
        let mut v = (self.read_at)(off, len)
            .map_err(|e| ProbeError::Read(format!("read of {len} bytes at offset {off}: {e}")))?;
        v.truncate(len);
        Ok(v)
    }

    /// Exactly `len` bytes at `off`, or an error naming `what`.
    pub fn exact(&mut self, off: u64, len: usize, what: &str) -> Result<Vec<u8>, ProbeError> {
        let v = self.read(off, len)?;
        if v.len() < len {
            return Err(corrupt!(
                "{what} is truncated: {} of {len} bytes readable at offset {off}",
                v.len()
            ));
        }
        Ok(v)
    }

    /// The device's size in bytes, found by bisection with 1-byte reads
    /// (works for files, block devices and in-memory readers alike; a read
    /// error counts as "nothing there").
    pub fn size(&mut self) -> u64 {
        let mut has = |off: u64| self.read(off, 1).is_ok_and(|v| !v.is_empty());
        // Invariant: a byte exists at lo - 1 (or lo == 0), none at hi.
        let mut lo = 0u64;
        let mut hi = 1u64 << 62;
        if has(hi - 1) {
            return hi;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if has(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// True when `b` holds `sig` at `off`.
pub fn has(b: &[u8], off: usize, sig: &[u8]) -> bool {
    off.checked_add(sig.len())
        .and_then(|end| b.get(off..end))
        .is_some_and(|s| s == sig)
}

/// `N` bytes at `off`, if the buffer has them.
pub fn arr<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off.checked_add(N)?)?.try_into().ok()
}

pub fn le16(b: &[u8], off: usize) -> Option<u16> {
    arr(b, off).map(u16::from_le_bytes)
}
pub fn le32(b: &[u8], off: usize) -> Option<u32> {
    arr(b, off).map(u32::from_le_bytes)
}
pub fn le64(b: &[u8], off: usize) -> Option<u64> {
    arr(b, off).map(u64::from_le_bytes)
}
pub fn be16(b: &[u8], off: usize) -> Option<u16> {
    arr(b, off).map(u16::from_be_bytes)
}
pub fn be32(b: &[u8], off: usize) -> Option<u32> {
    arr(b, off).map(u32::from_be_bytes)
}
pub fn be64(b: &[u8], off: usize) -> Option<u64> {
    arr(b, off).map(u64::from_be_bytes)
}

/// Field access on a structure whose length was checked once up front: the
/// getters cannot fail for offsets inside that length, and report the field
/// by name if a programming error ever asks beyond it.
pub struct Fields<'a> {
    pub b: &'a [u8],
    pub fs: &'static str,
}

impl Fields<'_> {
    /// The structure must hold at least `len` bytes.
    pub fn need(b: &[u8], len: usize, fs: &'static str, what: &str) -> Result<(), ProbeError> {
        if b.len() < len {
            return Err(corrupt!(
                "{fs}: {what} is truncated: {} of {len} bytes",
                b.len()
            ));
        }
        Ok(())
    }
    fn miss(&self, off: usize, field: &str) -> ProbeError {
        corrupt!(
            "{}: {field} at offset {off} is beyond the structure",
            self.fs
        )
    }
    pub fn u8(&self, off: usize, field: &str) -> Result<u8, ProbeError> {
        self.b
            .get(off)
            .copied()
            .ok_or_else(|| self.miss(off, field))
    }
    pub fn le16(&self, off: usize, field: &str) -> Result<u16, ProbeError> {
        le16(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn le32(&self, off: usize, field: &str) -> Result<u32, ProbeError> {
        le32(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn le64(&self, off: usize, field: &str) -> Result<u64, ProbeError> {
        le64(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn be16(&self, off: usize, field: &str) -> Result<u16, ProbeError> {
        be16(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn be32(&self, off: usize, field: &str) -> Result<u32, ProbeError> {
        be32(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn be64(&self, off: usize, field: &str) -> Result<u64, ProbeError> {
        be64(self.b, off).ok_or_else(|| self.miss(off, field))
    }
    pub fn bytes(&self, off: usize, len: usize, field: &str) -> Result<&[u8], ProbeError> {
        off.checked_add(len)
            .and_then(|end| self.b.get(off..end))
            .ok_or_else(|| self.miss(off, field))
    }
}

/// `a * b`, or an error naming what overflowed.
pub fn mul(fs: &str, what: &str, a: u64, b: u64) -> Result<u64, ProbeError> {
    a.checked_mul(b)
        .ok_or_else(|| corrupt!("{fs}: {what} overflows ({a} × {b})"))
}

/// `a + b`, or an error naming what overflowed.
pub fn add(fs: &str, what: &str, a: u64, b: u64) -> Result<u64, ProbeError> {
    a.checked_add(b)
        .ok_or_else(|| corrupt!("{fs}: {what} overflows ({a} + {b})"))
}

/// A (key, value) detail line.
pub fn kv(k: &str, v: impl ToString) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// Standard 8-4-4-4-12 lowercase UUID text of 16 bytes in on-disk order.
pub fn uuid(b: &[u8; 16]) -> String {
    let h: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

/// A GUID as Microsoft writes it: first three fields little-endian, upper case.
pub fn guid(b: &[u8; 16]) -> String {
    format!(
        "{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{}",
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        u16::from_le_bytes([b[4], b[5]]),
        u16::from_le_bytes([b[6], b[7]]),
        b[8],
        b[9],
        b[10..16]
            .iter()
            .map(|x| format!("{x:02X}"))
            .collect::<String>()
    )
}

/// NUL-terminated (or NUL-padded) bytes as text, lossy UTF-8.
pub fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// UTF-16LE code units up to the first NUL, lossy.
pub fn utf16le(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

/// Text as a label: `None` when empty after trimming trailing blanks.
pub fn label(s: String) -> Option<String> {
    let t = s.trim_end_matches([' ', '\0']);
    if t.is_empty() {
        None
    } else {
        Some(t.to_string())
    }
}

/// Count of zero bits among the first `bits` bits of `b` (LSB first).
pub fn zero_bits(b: &[u8], bits: u64) -> u64 {
    let full = (bits / 8).min(b.len() as u64) as usize;
    let mut zeros: u64 = b[..full].iter().map(|x| u64::from(x.count_zeros())).sum();
    let rest = bits - (full as u64) * 8;
    if rest > 0 && rest < 8 {
        if let Some(&last) = b.get(full) {
            let mask = (1u8 << rest) - 1;
            zeros += u64::from((!last & mask).count_ones());
        }
    }
    zeros
}

/// CRC-32 (IEEE 802.3, reflected 0xEDB88320), as GPT uses it.
pub fn crc32(data: &[u8]) -> u32 {
    !crc32_raw(!0, data, 0xEDB8_8320)
}

/// CRC-32C (Castagnoli), as btrfs uses it.
pub fn crc32c(data: &[u8]) -> u32 {
    !crc32_raw(!0, data, 0x82F6_3B78)
}

/// The reflected CRC loop without the final inversion: F2FS seeds it with
/// its magic and stores it as is (f2fs_crc32 in fs/f2fs/f2fs.h).
pub fn crc32_raw(mut crc: u32, data: &[u8], poly: u32) -> u32 {
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// An in-memory `read_at` for tests and fuzzing.
#[cfg(test)]
pub fn slice_reader(img: &[u8]) -> impl FnMut(u64, usize) -> io::Result<Vec<u8>> + '_ {
    move |off: u64, len: usize| {
        let Ok(start) = usize::try_from(off) else {
            return Ok(Vec::new());
        };
        if start >= img.len() {
            return Ok(Vec::new());
        }
        let end = start.saturating_add(len).min(img.len());
        Ok(img[start..end].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crcs_match_known_vectors() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn uuid_and_guid_formats() {
        let b: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(uuid(&b), "00010203-0405-0607-0809-0a0b0c0d0e0f");
        assert_eq!(guid(&b), "03020100-0504-0706-0809-0A0B0C0D0E0F");
    }

    #[test]
    fn zero_bits_counts_partial_bytes() {
        assert_eq!(zero_bits(&[0xFF, 0x00], 16), 8);
        assert_eq!(zero_bits(&[0xFF, 0x01], 12), 3);
        assert_eq!(zero_bits(&[0x00], 100), 8);
    }

    #[test]
    fn size_bisects() {
        let img = vec![1u8; 12345];
        let mut r = slice_reader(&img);
        assert_eq!(Dev::new(&mut r).size(), 12345);
        let empty: Vec<u8> = vec![];
        let mut r = slice_reader(&empty);
        assert_eq!(Dev::new(&mut r).size(), 0);
    }

    #[test]
    fn strings() {
        assert_eq!(cstr(b"abc\0def"), "abc");
        assert_eq!(utf16le(&[b'h', 0, b'i', 0, 0, 0, b'x', 0]), "hi");
        assert_eq!(label("NO  \0\0".into()).as_deref(), Some("NO"));
        assert_eq!(label("   ".into()), None);
    }
}
