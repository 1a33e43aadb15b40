//! The backends a served device can have: where its bytes live and how
//! fast it answers.

use super::Backend;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes in memory: for small test devices.
pub struct Memory(pub Vec<u8>);

impl Backend for Memory {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let o = offset as usize;
        buf.copy_from_slice(&self.0[o..o + buf.len()]);
        Ok(())
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let o = offset as usize;
        self.0[o..o + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An image file, sparse where never written.
pub struct SparseImage {
    file: File,
    size: u64,
}

impl SparseImage {
    /// Open `path`, creating it (sparse) when missing. `size`: the device's
    /// size; None keeps an existing file's size. A file shorter than `size`
    /// grows (sparsely); a longer one is served only up to `size`.
    pub fn open(path: &Path, size: Option<u64>) -> crate::Result<SparseImage> {
        let io_err = |e| crate::Error::io(path, e);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(size.is_some())
            .truncate(false)
            .open(path)
            .map_err(io_err)?;
        let now = file.metadata().map_err(io_err)?.len();
        let size = size.unwrap_or(now);
        if now < size {
            file.set_len(size).map_err(io_err)?;
        }
        Ok(SparseImage { file, size })
    }
}

impl Backend for SparseImage {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.file.write_all_at(data, offset)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// A fake-capacity device (the counterfeit sticks f3 and `fsfit format
/// --check-capacity` look for): it claims `size` bytes, but holds only
/// `inner`'s; every read and write past that wraps to the start, so writing
/// beyond the real capacity overwrites what sits at the beginning.
pub struct Wrap {
    inner: Box<dyn Backend>,
    size: u64,
}

impl Wrap {
    /// `inner` holds the real bytes; the device claims `size` bytes.
    pub fn new(inner: Box<dyn Backend>, size: u64) -> Wrap {
        Wrap { inner, size }
    }

    /// A device claiming `size` bytes that holds `real` bytes in memory.
    pub fn in_memory(real: u64, size: u64) -> Wrap {
        Wrap::new(Box::new(Memory(vec![0; real as usize])), size)
    }

    /// Call `f(real offset, range of the buffer)` for each piece of
    /// `[offset, offset + len)` as it lands on the real bytes.
    fn pieces(
        &mut self,
        offset: u64,
        len: usize,
        mut f: impl FnMut(&mut dyn Backend, u64, std::ops::Range<usize>) -> io::Result<()>,
    ) -> io::Result<()> {
        let real = self.inner.size();
        let mut done = 0usize;
        while done < len {
            let at = (offset + done as u64) % real;
            let n = ((real - at) as usize).min(len - done);
            f(self.inner.as_mut(), at, done..done + n)?;
            done += n;
        }
        Ok(())
    }
}

impl Backend for Wrap {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.pieces(offset, buf.len(), |b, at, r| b.read_at(at, &mut buf[r]))
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.pieces(offset, data.len(), |b, at, r| b.write_at(at, &data[r]))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// What a [`Short`] device does with the bytes past what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beyond {
    /// Writes are dropped; reads give zeros.
    Vanish,
    /// Writes are dropped; reads give the same old bytes every time.
    Stale,
    /// Writes are dropped; every read gives new bytes.
    Random,
    /// Reads and writes fail with EIO.
    Fail,
    /// Byte `p` is byte `at + (p - real) % (real - at)` of the held ones:
    /// a wrap onto `at` rather than onto the start.
    WrapOnto { at: u64 },
    /// Byte `p` is byte `at + p % len` of the held ones: the whole tail
    /// folded onto one small region of real data.
    Alias { at: u64, len: u64 },
    /// Byte `p` is byte `p % len` of a separate buffer: the tail folded
    /// onto itself, no real data touched.
    Hidden { len: u64 },
}

/// A fake-capacity device that keeps the first `real` bytes in memory and
/// past them behaves as `beyond` says (the counterfeits f3 calls "limbo"
/// and "chain", and the ones that fold their tail onto a small region).
pub struct Short {
    held: Memory,
    size: u64,
    beyond: Beyond,
    noise: u64,
    hidden: Vec<u8>,
}

impl Short {
    pub fn new(real: u64, size: u64, beyond: Beyond) -> Short {
        let hidden = match beyond {
            Beyond::Hidden { len } => vec![0; len as usize],
            _ => Vec::new(),
        };
        Short {
            held: Memory(vec![0; real as usize]),
            size,
            beyond,
            noise: 0x9E37_79B9_7F4A_7C15,
            hidden,
        }
    }

    /// Where byte `p` (past the held ones) lives: in the held bytes, in the
    /// hidden buffer, nowhere, or failing, and how many bytes from `p` on
    /// go on from there (up to the next sector, as fakes map whole
    /// sectors).
    fn place(&self, p: u64) -> (Place, u64) {
        let real = self.held.size();
        let run = 512 - p % 512;
        match self.beyond {
            Beyond::Fail => (Place::Fail, run),
            Beyond::WrapOnto { at } => {
                let m = at + (p - real) % (real - at);
                (Place::Held(m), run.min(real - m))
            }
            Beyond::Alias { at, len } => {
                let m = at + p % len;
                (Place::Held(m), run.min(at + len - m))
            }
            Beyond::Hidden { len } => (Place::Hidden(p % len), run.min(len - p % len)),
            _ => (Place::Nowhere, run),
        }
    }

    /// `len` bytes from `offset` cut where they live: (start in the
    /// caller's buffer, length, place), the held bytes first.
    fn pieces(&self, offset: u64, len: usize) -> Vec<(usize, usize, Place)> {
        let real = self.held.size();
        let mut v = Vec::new();
        let mut done = 0usize;
        while done < len {
            let p = offset + done as u64;
            let (place, run) = if p < real {
                (Place::Held(p), real - p)
            } else {
                self.place(p)
            };
            let n = (run as usize).min(len - done);
            v.push((done, n, place));
            done += n;
        }
        v
    }
}

#[derive(Clone, Copy)]
enum Place {
    Held(u64),
    Hidden(u64),
    Nowhere,
    /// Reads and writes fail here (EIO), after the pieces before it.
    Fail,
}

impl Backend for Short {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        for (at, n, place) in self.pieces(offset, buf.len()) {
            let out = &mut buf[at..at + n];
            match place {
                Place::Held(m) => self.held.read_at(m, out)?,
                Place::Hidden(m) => out.copy_from_slice(&self.hidden[m as usize..m as usize + n]),
                Place::Fail => return Err(io::Error::from_raw_os_error(libc::EIO)),
                Place::Nowhere => {
                    let p = offset + at as u64;
                    for (i, b) in out.iter_mut().enumerate() {
                        *b = match self.beyond {
                            // Old contents that depend on where they are, never zero.
                            Beyond::Stale => ((p + i as u64) / 512 % 251) as u8 | 1,
                            Beyond::Random => {
                                self.noise ^= self.noise << 13;
                                self.noise ^= self.noise >> 7;
                                self.noise ^= self.noise << 17;
                                self.noise as u8
                            }
                            _ => 0,
                        };
                    }
                }
            }
        }
        Ok(())
    }
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        for (at, n, place) in self.pieces(offset, data.len()) {
            let src = &data[at..at + n];
            match place {
                Place::Held(m) => self.held.write_at(m, src)?,
                Place::Hidden(m) => self.hidden[m as usize..m as usize + n].copy_from_slice(src),
                Place::Nowhere => {}
                Place::Fail => return Err(io::Error::from_raw_os_error(libc::EIO)),
            }
        }
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
