//! Reading the boundary timings: where `diff` steps up (the page size) and
//! steps up again (the AU size), and how sure that is.

use super::Row;

/// What the timings say. A size not found is 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub au: u64,
    pub page: u64,
    /// "high": two clear steps, each with more than one boundary on both
    /// sides; "low": one step, or a step seen at a single boundary;
    /// "none": no step at all.
    pub confidence: &'static str,
    pub reasons: Vec<String>,
}

/// Allocation units are 1 MiB or more (SD specification's AU table for
/// cards over 64 MB; sticks use 1-16 MiB); pages are 64 KiB or less. A
/// single step is called by this size.
const SMALLEST_AU: u64 = 1 << 20;

pub(super) fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The median absolute deviation: the spread of reads that should all
/// take the same time.
fn mad(v: &[f64]) -> f64 {
    let m = median(v);
    median(&v.iter().map(|x| (x - m).abs()).collect::<Vec<_>>())
}

/// The smallest step that counts, in µs: well above the spread of the
/// `pre` and `post` reads (each the same read at every boundary) and at
/// least 10 % of a read, so that a plain disk's jitter never passes for a
/// page.
fn threshold(rows: &[Row]) -> f64 {
    let pre: Vec<f64> = rows.iter().map(|r| r.pre_us).collect();
    let post: Vec<f64> = rows.iter().map(|r| r.post_us).collect();
    let spread = mad(&pre).max(mad(&post));
    (4.0 * spread).max(0.10 * median(&pre)).max(5.0)
}

/// The first boundary from which every larger one shows a step.
fn first_step(d: &[f64], thr: f64) -> Option<usize> {
    let k = d.iter().rposition(|&x| x <= thr).map_or(0, |i| i + 1);
    (k < d.len()).then_some(k)
}

/// A second level above the first, starting at index m > k: every diff
/// from m on above every diff in k..m, by a clear margin. The best m.
fn second_step(d: &[f64], k: usize, thr: f64) -> Option<usize> {
    let mut best: Option<(f64, usize)> = None;
    for m in k + 1..d.len() {
        let (lower, upper) = (&d[k..m], &d[m..]);
        let lo_max = lower.iter().cloned().fold(f64::MIN, f64::max);
        let up_min = upper.iter().cloned().fold(f64::MAX, f64::min);
        let rise = median(upper) - median(lower);
        let clear = up_min > lo_max && rise > thr.max(0.25 * median(lower));
        if clear && best.is_none_or(|(g, _)| up_min - lo_max > g) {
            best = Some((up_min - lo_max, m));
        }
    }
    best.map(|(_, m)| m)
}

fn size(b: u64) -> String {
    crate::units::iec(b)
}

/// How much slower the read across the boundary is than the slower of
/// the reads beside it. flashbench's `diff` compares it with their mean,
/// which a plain image fools: a hole before a boundary and data after it
/// (fast `pre`, slow `post`) give `on` half the difference for nothing.
///
/// A boundary whose neighbours differ by more than that (a hole before it
/// and data after it, or two extents of the file behind a loop device) is
/// where the backing storage changes, not a flash page or AU: a flash
/// chip reads the same on both sides. Such a crossing counts as no step
/// (a 13 µs "AU" on a sparse image, CI run of stop 17).
fn excess(r: &Row) -> f64 {
    let x = r.on_us - r.pre_us.max(r.post_us);
    if x > (r.pre_us - r.post_us).abs() {
        x
    } else {
        0.0
    }
}

/// A plain read beside the boundary: the slower of `pre` and `post`.
fn beside(r: &Row) -> f64 {
    r.pre_us.max(r.post_us)
}

/// Do the reads beside the boundaries from row `k` on take what they take
/// below it? A flash chip reads the same everywhere, so a step in `on`
/// comes with no step in `pre`/`post`. On a sparse image the boundaries
/// from 1 MiB on sat between a hole and data, whose reads cost 50-60 µs
/// where the holes below cost 3 (CI runs of stop 17 and 18: a 1 MiB and
/// a 16 MiB "AU" on a plain loop device).
fn same_reads(rows: &[Row], k: usize) -> bool {
    if k == 0 {
        return true;
    }
    let m = |r: &[Row]| median(&r.iter().map(beside).collect::<Vec<_>>());
    let (lo, hi) = (m(&rows[..k]), m(&rows[k..]));
    // Not `thr`: on such an image the spread of `pre` (holes and data)
    // makes the threshold as large as the difference itself.
    (hi - lo).abs() <= (0.25 * lo.min(hi)).max(5.0)
}

/// Estimate the page and AU sizes from the rows (ascending boundaries).
pub fn analyse(rows: &[Row]) -> Estimate {
    let d: Vec<f64> = rows.iter().map(excess).collect();
    let thr = threshold(rows);
    let none = |why: String| Estimate {
        au: 0,
        page: 0,
        confidence: "none",
        reasons: vec![why],
    };
    let Some(k) = first_step(&d, thr) else {
        return none(format!(
            "no boundary reads slower than the reads beside it (threshold {thr:.0} µs): \
             no flash page or AU shows through (a plain disk, image or loop device)"
        ));
    };
    if d.len() - k < 2 {
        return none(format!(
            "only the largest boundary ({}) reads slower: a step seen once cannot be told \
             from a delay (a flash AU shows at every larger boundary too)",
            size(rows[k].align_bytes)
        ));
    }
    if !same_reads(rows, k) {
        return none(format!(
            "the reads beside the boundaries cost {:.0} µs below {} and {:.0} µs from it on: \
             what the device holds changes there (an image with holes reads them faster than \
             data), not a flash page or AU",
            median(&rows[..k].iter().map(beside).collect::<Vec<_>>()),
            size(rows[k].align_bytes),
            median(&rows[k..].iter().map(beside).collect::<Vec<_>>()),
        ));
    }
    let at = |i: usize| rows[i].align_bytes;
    let Some(m) = second_step(&d, k, thr).filter(|&m| same_reads(&rows[k..], m - k)) else {
        return one_step(rows, k, thr);
    };
    let mut reasons = vec![
        format!(
            "reads across a {} boundary cost {:.0} µs more (the page)",
            size(at(k)),
            median(&d[k..m])
        ),
        format!(
            "reads across a {} boundary cost {:.0} µs more (the allocation unit)",
            size(at(m)),
            median(&d[m..])
        ),
    ];
    let solid = m - k >= 2 && d.len() - m >= 2 && k >= 1;
    if !solid {
        reasons.push("a step rests on a single boundary: low confidence".into());
    }
    Estimate {
        au: at(m),
        page: at(k),
        confidence: if solid { "high" } else { "low" },
        reasons,
    }
}

/// One step only: a page or an AU, told apart by its size.
fn one_step(rows: &[Row], k: usize, thr: f64) -> Estimate {
    let at = rows[k].align_bytes;
    let rise = median(&rows[k..].iter().map(excess).collect::<Vec<_>>());
    let what = if at >= SMALLEST_AU {
        "allocation unit"
    } else {
        "page"
    };
    let mut e = Estimate {
        au: 0,
        page: 0,
        confidence: "low",
        reasons: vec![format!(
            "one step only: reads across a {} boundary cost {rise:.0} µs more \
             (threshold {thr:.0} µs), taken as the {what} by its size",
            size(at)
        )],
    };
    if at >= SMALLEST_AU {
        e.au = at;
    } else {
        e.page = at;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of a device whose reads take `base` µs, `page` µs more across
    /// a page boundary and `au` µs more across an AU boundary.
    fn rows(page_at: u64, au_at: u64, base: f64, page: f64, au: f64) -> Vec<Row> {
        (11..=25)
            .map(|s| {
                let a = 1u64 << s;
                let mut on = base;
                if a >= page_at {
                    on += page;
                }
                if a >= au_at {
                    on += au;
                }
                Row {
                    align_bytes: a,
                    pre_us: base,
                    on_us: on,
                    post_us: base + 3.0,
                    diff_us: on - base - 1.5,
                }
            })
            .collect()
    }

    #[test]
    fn two_steps_give_the_page_and_the_au() {
        let e = analyse(&rows(16 << 10, 4 << 20, 800.0, 500.0, 600.0));
        assert_eq!((e.page, e.au, e.confidence), (16 << 10, 4 << 20, "high"));
    }

    #[test]
    fn the_flashbench_readme_example_reads_as_4m_au() {
        // flashbench README, `-a` on /dev/mmcblk0 with 1 KiB reads: pages
        // show at 8-16 KiB (53 and 148 µs: "8 KB pages, but can use
        // multi-plane accesses to read two 8 KB pages simultaneously"),
        // the AU at 4 MiB (~300 µs). The 53 µs at 8 KiB is under 10 % of a
        // read, so the probe calls the page 16 KiB.
        let diffs = [
            (11, 4.65),
            (12, 5.85),
            (13, 53.3),
            (14, 148.0),
            (15, 157.0),
            (16, 159.0),
            (17, 165.0),
            (18, 171.0),
            (19, 165.0),
            (20, 169.0),
            (21, 171.0),
            (22, 317.0),
            (23, 299.0),
            (24, 302.0),
            (25, 294.0),
        ];
        let rows: Vec<Row> = diffs
            .iter()
            .map(|&(s, d)| Row {
                align_bytes: 1 << s,
                pre_us: 740.0,
                on_us: 740.0 + d + 20.0,
                post_us: 780.0,
                diff_us: d,
            })
            .collect();
        let e = analyse(&rows);
        assert_eq!(e.au, 4 << 20, "{e:?}");
        assert_eq!(e.page, 16 << 10, "{e:?}");
        assert_eq!(e.confidence, "high");
    }

    #[test]
    fn a_flat_device_gives_nothing() {
        let e = analyse(&rows(u64::MAX, u64::MAX, 40.0, 0.0, 0.0));
        assert_eq!((e.page, e.au, e.confidence), (0, 0, "none"));
        // An image with a hole before every 1 MiB and data after it: `on`
        // is as slow as `post`, the boundary itself costs nothing.
        let mut r = rows(u64::MAX, u64::MAX, 70.0, 0.0, 0.0);
        for x in r.iter_mut().filter(|x| x.align_bytes >= 1 << 20) {
            x.pre_us = 5.0;
            x.diff_us = x.on_us - (x.pre_us + x.post_us) / 2.0;
        }
        assert_eq!(analyse(&r).confidence, "none");
        // The same image on a faster host (the CI run of stop 17): the
        // crossing reads two extents and costs 13 µs more than the data
        // read, but its neighbours differ by 50 µs: the file's layout.
        let mut r = rows(u64::MAX, u64::MAX, 3.0, 0.0, 0.0);
        for x in r.iter_mut().filter(|x| x.align_bytes >= 1 << 20) {
            (x.pre_us, x.post_us, x.on_us) = (5.0, 55.0, 68.0);
            x.diff_us = x.on_us - (x.pre_us + x.post_us) / 2.0;
        }
        assert_eq!(analyse(&r).confidence, "none", "{:?}", analyse(&r));
        // The CI run of stop 18 on that image (pre, on, post in µs per
        // boundary from 2 KiB to 16 MiB): holes read in 3 µs below 1 MiB,
        // data beside every larger boundary in 50-60, and the 16 MiB row,
        // measured first, 284 µs across.
        let ci: [(f64, f64, f64); 15] = [
            (59.7, 59.4, 59.2),
            (56.7, 58.2, 5.3),
            (3.0, 3.0, 3.0),
            (3.0, 3.0, 3.0),
            (3.0, 3.0, 3.0),
            (3.1, 3.0, 3.0),
            (3.0, 3.0, 3.0),
            (3.1, 3.0, 3.0),
            (3.1, 3.2, 3.2),
            (52.5, 83.9, 59.4),
            (53.5, 85.1, 58.4),
            (47.9, 85.2, 59.2),
            (54.0, 86.4, 60.5),
            (40.6, 284.1, 72.1),
            (40.6, 284.1, 72.1),
        ];
        let r: Vec<Row> = ci
            .iter()
            .enumerate()
            .map(|(i, &(pre, on, post))| Row {
                align_bytes: 2048 << i,
                pre_us: pre,
                on_us: on,
                post_us: post,
                diff_us: on - (pre + post) / 2.0,
            })
            .collect();
        assert_eq!(analyse(&r).confidence, "none", "{:?}", analyse(&r));
        // The same figures up to 16 MiB only: a step at the largest
        // boundary alone is no step.
        assert_eq!(
            analyse(&r[..14]).confidence,
            "none",
            "{:?}",
            analyse(&r[..14])
        );
        // Jitter of a few µs on 40 µs reads is not a page.
        let mut r = rows(u64::MAX, u64::MAX, 40.0, 0.0, 0.0);
        for (i, x) in r.iter_mut().enumerate() {
            x.on_us += if i % 3 == 0 { 3.0 } else { -2.0 };
        }
        assert_eq!(analyse(&r).confidence, "none");
    }

    #[test]
    fn one_step_is_a_page_or_an_au_by_its_size() {
        let e = analyse(&rows(32 << 10, u64::MAX, 800.0, 500.0, 0.0));
        assert_eq!((e.page, e.au, e.confidence), (32 << 10, 0, "low"));
        let e = analyse(&rows(4 << 20, u64::MAX, 800.0, 500.0, 0.0));
        assert_eq!((e.page, e.au, e.confidence), (0, 4 << 20, "low"));
    }
}
