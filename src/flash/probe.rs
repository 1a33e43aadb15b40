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
mod open;
mod sysfs;

pub use analyse::{analyse, Estimate};
pub use open::{open_readonly, Access};

/// Places per boundary, as flashbench (`count = 7`).
const PLACES: u64 = 7;

/// One boundary's timings, in microseconds (the median over the places of
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
/// 1 KiB, as flashbench's example), the tries per place, and whether to
/// show a progress bar on stderr.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub read_bytes: Option<u64>,
    pub tries: u32,
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            read_bytes: None,
            tries: 8,
            progress: false,
        }
    }
}

/// One step a boundary, on stderr (hidden when not wanted or not a terminal).
fn progress_bar(show: bool, boundaries: u64) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(boundaries);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "reading boundaries {bar:30} {pos}/{len} ({elapsed})",
    ) {
        pb.set_style(style);
    }
    pb
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

/// Where place `i` of boundary `align` is on the device being read: a
/// multiple of `align` on the whole disk (`base`: where the device, a
/// partition, starts on it), with room for a read on both sides.
fn place(i: u64, max: u64, align: u64, base: u64, read: u64, size: u64) -> Option<u64> {
    (i * max + align)
        .checked_sub(base % max)
        .filter(|&a| a >= read && a + read <= size)
}

/// Time the reads around every power-of-two boundary from `max` down to
/// twice the read size. `base`: where the device starts on its disk (a
/// partition's offset), so that boundaries are the disk's.
fn measure(
    f: &File,
    path: &Path,
    size: u64,
    read: u64,
    base: u64,
    opts: Options,
) -> Result<Vec<Row>> {
    let max = max_align(size, read);
    let tries = opts.tries.max(1);
    let pb = progress_bar(opts.progress, (max / read).ilog2() as u64);
    let mut buf = Aligned::new(read as usize);
    let mut rows = Vec::new();
    let mut align = max;
    while align >= read * 2 {
        // The fastest of the tries at each place, for pre, on and post.
        let mut best = vec![[f64::INFINITY; 3]; PLACES as usize];
        for _ in 0..tries {
            for (i, b) in best.iter_mut().enumerate() {
                let Some(at) = place(i as u64, max, align, base, read, size) else {
                    continue;
                };
                let starts = [at - read, at - read / 2, at];
                for (k, s) in starts.iter().enumerate() {
                    b[k] = b[k].min(time_read(f, &mut buf, *s, path)?);
                }
            }
        }
        rows.push(row(align, &best));
        pb.inc(1);
        align /= 2;
    }
    pb.finish_and_clear();
    rows.reverse();
    Ok(rows)
}

/// Whether any read took a time the report can show (whole µs): reads
/// served from memory all take less, and a table of them is all zeros.
pub fn measurable(rows: &[Row]) -> bool {
    rows.iter()
        .any(|r| [r.pre_us, r.on_us, r.post_us].iter().any(|&t| t >= 0.5))
}

/// The typical time of a read beside a boundary (µs).
fn median_read_us(rows: &[Row]) -> f64 {
    let mut v: Vec<f64> = rows.iter().map(|r| r.pre_us).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn row(align: u64, best: &[[f64; 3]]) -> Row {
    let seen: Vec<&[f64; 3]> = best.iter().filter(|b| b[0].is_finite()).collect();
    // The median over the places, not flashbench's mean: on a busy host
    // one place whose every try was delayed lifted a whole row by 560 µs
    // and made a 2 MiB "AU" of a 4 MiB one (local CI run, load 10).
    let median = |k: usize| analyse::median(&seen.iter().map(|b| b[k]).collect::<Vec<_>>()) * 1e6;
    let (pre, on, post) = (median(0), median(1), median(2));
    Row {
        align_bytes: align,
        pre_us: pre,
        on_us: on,
        post_us: post,
        diff_us: on - (pre + post) / 2.0,
    }
}

/// What the probe found, to match against the profiles: sizes (0: not
/// found) and the time of one small read (µs) with its size.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub au: u64,
    pub page: u64,
    pub read_us: f64,
    pub read_bytes: u64,
}

/// The profile nearest to what was found: AU and page size first (their
/// distance in powers of two), the time of a small read (as the profile's
/// model would take it) to tell apart profiles of the same geometry, at a
/// quarter of the weight. "" when no size was found.
pub fn closest_profile(f: Found) -> String {
    let log = |a: f64, b: f64| (a.log2() - b.log2()).abs();
    if f.au == 0 && f.page == 0 {
        return String::new();
    }
    let mut best: Option<(f64, String)> = None;
    for p in super::profiles() {
        let mut d = 0.0;
        if f.au > 0 {
            d += log(f.au as f64, p.au_bytes() as f64);
        }
        if f.page > 0 {
            d += log(f.page as f64, p.page_bytes() as f64);
        }
        if f.read_us > 0.0 {
            d += 0.25 * log(f.read_us, expected_read_us(&p, f.read_bytes));
        }
        if best.as_ref().is_none_or(|(b, _)| d < *b) {
            best = Some((d, p.name.clone()));
        }
    }
    best.map(|(_, n)| n).unwrap_or_default()
}

/// A random small read on the profile's model, in µs (the AU model's: one
/// command, the read latency, the bytes at the read speed).
fn expected_read_us(p: &super::Profile, bytes: u64) -> f64 {
    let q = &p.params;
    q.command_overhead_us + q.read_latency_us + bytes as f64 / q.read_mb_s
}

/// Probe `path` (a block device or an image file), reading only.
pub fn probe(path: &Path, opts: Options) -> Result<Report> {
    let (f, access) = open_readonly(path)?;
    let size = size_of(&f, path)?;
    let sys = sysfs::read(path);
    // An image file read O_DIRECT: its filesystem's alignment is the block.
    let lbs = sys.logical_block.or(access.align).unwrap_or(512).max(512);
    let read = opts.read_bytes.unwrap_or((2 * lbs).max(1024));
    // The read across a boundary starts half a read before it: that too
    // must sit on a logical block.
    if !read.is_power_of_two() || read < 2 * lbs {
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
    let rows = measure(&f, path, size, read, sys.start, opts)?;
    let mut est = analyse(&rows);
    if let Some(why) = &access.why_buffered {
        est.reasons.push(format!(
            "read through the page cache, not timed on the storage: {why}"
        ));
    }
    sysfs::weigh(&sys, &mut est);
    Ok(Report {
        schema: "fsfit.probe/1",
        device: path.display().to_string(),
        size_bytes: size,
        au_bytes: est.au,
        page_bytes: est.page,
        confidence: est.confidence,
        closest_profile: closest_profile(Found {
            au: est.au,
            page: est.page,
            read_us: median_read_us(&rows),
            read_bytes: read,
        }),
        sysfs: sys.values,
        evidence: rows,
        read_bytes: read,
        reasons: est.reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_sit_on_the_whole_disks_boundaries() {
        let (size, read) = (256u64 << 20, 1024);
        let max = max_align(size, read);
        assert_eq!(max, 32 << 20, "seven places fit");
        // A partition 1 MiB into its disk, as fdisk makes it.
        let base = 1 << 20;
        for align in [2048u64, 16 << 10, 4 << 20, 32 << 20] {
            let places: Vec<u64> = (0..PLACES)
                .filter_map(|i| place(i, max, align, base, read, size - base))
                .collect();
            assert!(places.len() >= 6, "{align}: {places:?}");
            for p in places {
                assert_eq!((p + base) % align, 0, "{align}: {p}");
            }
        }
        // A whole disk: the boundaries themselves.
        assert_eq!(
            place(1, max, 4 << 20, 0, read, size),
            Some((32 << 20) + (4 << 20))
        );
        assert_eq!(place(0, max, 2048, 0, read, size), Some(2048));
    }
}
