//! `fsfit probe`: what the flash inside a stick or card looks like, found
//! by reading only, so it is safe on a drive that holds data.
//!
//! The timing test is the one of flashbench `-a` (Arnd Bergmann's
//! flashbench, README "Guess erase block and page sizes"), done here with
//! the device opened O_RDONLY|O_DIRECT (flashbench opens it read-write,
//! even for `-a`): for each power-of-two boundary `align`, time small reads
//! just before it (`pre`), across it (`on`) and just after it (`post`), at
//! several places `maxalign` apart, keeping each place's fastest of a few
//! tries. A read across a flash page costs a second page read; a read
//! across an allocation unit (AU) costs a second mapping lookup. So
//! `diff = on - (pre + post) / 2` is near zero below the page size, jumps
//! at the page size and jumps again at the AU size, staying up for every
//! larger boundary. A plain disk, an image file or a loop device shows no
//! such steps: then the probe says so (confidence none) and invents nothing.

use crate::{Error, Result};
use serde::Serialize;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

mod analyse;
mod sysfs;

pub use analyse::{analyse, Estimate};

/// Places per boundary, as flashbench (`count = 7`).
const PLACES: u64 = 7;

/// One boundary's timings, in microseconds (the mean over the places of
/// each place's fastest read).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub align_bytes: u64,
    pub pre_us: f64,
    pub on_us: f64,
    pub post_us: f64,
    pub diff_us: f64,
}

/// What `fsfit probe` prints (`fsfit.probe/1`, see DESIGN.md). A size not
/// found is 0 and `closest_profile` is "" when confidence is none.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema: &'static str,
    pub device: String,
    pub size_bytes: u64,
    pub au_bytes: u64,
    pub page_bytes: u64,
    pub confidence: &'static str,
    pub sysfs: serde_json::Map<String, serde_json::Value>,
    pub closest_profile: String,
    /// The boundary timings the estimate comes from.
    pub evidence: Vec<Row>,
    /// Bytes each timed read reads.
    pub read_bytes: u64,
    /// Why the estimate is what it is, in words.
    pub reasons: Vec<String>,
}

/// How to probe: the read size (default: twice the logical block, at least
/// 1 KiB, as flashbench's example) and the tries per place.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub read_bytes: Option<u64>,
    pub tries: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            read_bytes: None,
            tries: 8,
        }
    }
}

/// Open `path` for reading only, with O_DIRECT when the file allows it (a
/// block device does; an image on tmpfs does not, and is then read through
/// the page cache: its timings mean nothing anyway). Never writable.
pub fn open_readonly(path: &Path) -> Result<(File, bool)> {
    use std::os::unix::fs::OpenOptionsExt;
    let open = |flags| {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags | libc::O_NOATIME)
            .open(path)
            .or_else(|_| {
                // O_NOATIME: only for the file's owner; fine to do without.
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(flags)
                    .open(path)
            })
    };
    match open(libc::O_DIRECT) {
        Ok(f) => Ok((f, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            open(0).map(|f| (f, false)).map_err(|e| Error::io(path, e))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::input(format!(
            "{}: no such device or file",
            path.display()
        ))),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// The size of an open device or file (a block device's st_size is 0).
fn size_of(f: &File, path: &Path) -> Result<u64> {
    use std::io::Seek;
    let mut r = f;
    r.seek(std::io::SeekFrom::End(0))
        .map_err(|e| Error::io(path, e))
}

/// A buffer of `len` bytes aligned for O_DIRECT (4 KiB).
struct Aligned {
    v: Vec<u8>,
    skip: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let v = vec![0u8; len + 4096];
        let skip = v.as_ptr().align_offset(4096);
        Aligned { v, skip, len }
    }
    fn buf(&mut self) -> &mut [u8] {
        &mut self.v[self.skip..self.skip + self.len]
    }
}

/// Seconds one read of `buf.len()` bytes at `at` took.
fn time_read(f: &File, buf: &mut Aligned, at: u64, path: &Path) -> Result<f64> {
    let t = Instant::now();
    f.read_exact_at(buf.buf(), at)
        .map_err(|e| Error::io(path, e))?;
    Ok(t.elapsed().as_secs_f64())
}

/// The largest power-of-two spacing that fits [`PLACES`] places.
fn max_align(size: u64, read: u64) -> u64 {
    let mut m = read * 2;
    while (m * 2) * PLACES + read <= size {
        m *= 2;
    }
    m
}

/// Time the reads around every power-of-two boundary from `max` down to
/// twice the read size. `base`: where the device starts on its disk (a
/// partition's offset), so that boundaries are the disk's.
fn measure(f: &File, path: &Path, size: u64, read: u64, base: u64, tries: u32) -> Result<Vec<Row>> {
    let max = max_align(size, read);
    let mut buf = Aligned::new(read as usize);
    let mut rows = Vec::new();
    let mut align = max;
    while align >= read * 2 {
        // The fastest of the tries at each place, for pre, on and post.
        let mut best = vec![[f64::INFINITY; 3]; PLACES as usize];
        for _ in 0..tries {
            for (i, b) in best.iter_mut().enumerate() {
                let at = (i as u64 * max + align).checked_sub(base % max);
                let Some(at) = at.filter(|&a| a >= read && a + read <= size) else {
                    continue;
                };
                let starts = [at - read, at - read / 2, at];
                for (k, s) in starts.iter().enumerate() {
                    b[k] = b[k].min(time_read(f, &mut buf, *s, path)?);
                }
            }
        }
        rows.push(row(align, &best));
        align /= 2;
    }
    rows.reverse();
    Ok(rows)
}

fn row(align: u64, best: &[[f64; 3]]) -> Row {
    let seen: Vec<&[f64; 3]> = best.iter().filter(|b| b[0].is_finite()).collect();
    let mean = |k: usize| seen.iter().map(|b| b[k]).sum::<f64>() / seen.len().max(1) as f64 * 1e6;
    let (pre, on, post) = (mean(0), mean(1), mean(2));
    Row {
        align_bytes: align,
        pre_us: pre,
        on_us: on,
        post_us: post,
        diff_us: on - (pre + post) / 2.0,
    }
}

/// The profile whose AU and page sizes are nearest (in powers of two) to
/// what was found; "" when nothing was found.
pub fn closest_profile(au: u64, page: u64) -> String {
    let log = |a: u64, b: u64| ((a as f64).log2() - (b as f64).log2()).abs();
    let mut best: Option<(f64, String)> = None;
    if au == 0 && page == 0 {
        return String::new();
    }
    for (name, p_au, p_page) in known_profiles() {
        let mut d = 0.0;
        if au > 0 {
            d += log(au, p_au);
        }
        if page > 0 {
            d += log(page, p_page);
        }
        if best.as_ref().is_none_or(|(b, _)| d < *b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, n)| n).unwrap_or_default()
}

/// (name, AU bytes, page bytes) of every flash profile.
fn known_profiles() -> Vec<(String, u64, u64)> {
    super::profiles()
        .into_iter()
        .map(|p| (p.name.clone(), p.au_bytes(), p.page_bytes()))
        .collect()
}

/// Probe `path` (a block device or an image file), reading only.
pub fn probe(path: &Path, opts: Options) -> Result<Report> {
    let (f, direct) = open_readonly(path)?;
    let size = size_of(&f, path)?;
    let sys = sysfs::read(path);
    let lbs = sys.logical_block.unwrap_or(512).max(512);
    let read = opts.read_bytes.unwrap_or((2 * lbs).max(1024));
    if !read.is_power_of_two() || read % lbs != 0 || read < 2 * lbs.min(read) {
        return Err(Error::input(format!(
            "the read size must be a power of two and a multiple of the logical block ({lbs} B)"
        )));
    }
    if size < 4 * read * PLACES {
        return Err(Error::input(format!(
            "{} is too small to probe ({size} bytes)",
            path.display()
        )));
    }
    let rows = measure(&f, path, size, read, sys.start, opts.tries.max(1))?;
    let mut est = analyse(&rows);
    if !direct {
        est.reasons
            .push("the file does not take O_DIRECT: it was read through the page cache".into());
    }
    sysfs::weigh(&sys, &mut est);
    Ok(Report {
        schema: "fsfit.probe/1",
        device: path.display().to_string(),
        size_bytes: size,
        au_bytes: est.au,
        page_bytes: est.page,
        confidence: est.confidence,
        closest_profile: closest_profile(est.au, est.page),
        sysfs: sys.values,
        evidence: rows,
        read_bytes: read,
        reasons: est.reasons,
    })
}
