//! Charts as standalone SVG strings, drawn by plotters' SVG backend.
//!
//! plotters is built without its `ttf` feature (which needs font-kit and
//! fontconfig): text width is then estimated from the string length, which is
//! only used for the legend box; SVG text is placed by anchors and laid out by
//! whatever renders the page, so labels stay where they belong.

mod draw;
pub mod figures;
mod stacked;
pub mod survival;

pub use draw::{bars, lines, Bar, BarSeries, Bars, Curve, Lines, Point};
pub use stacked::{pct, stacked, Segment, Stack, Stacks};

/// One chart: what the HTML page shows and `--png` writes.
#[derive(Clone, Debug)]
pub struct Chart {
    /// Unique in the page: the element ids and the file names derive from it.
    pub id: String,
    pub title: String,
    /// The text alternative: what the chart shows, in words and figures.
    pub desc: String,
    /// A complete `<svg>` document with `<title>` and `<desc>`.
    pub svg: String,
}

impl Chart {
    /// The drawing's width in pixels (the `width` of its `<svg>`).
    pub fn width(&self) -> Option<u32> {
        let start = self.svg.find("<svg")?;
        let open = &self.svg[start..start + self.svg[start..].find('>')?];
        let i = open.find(" width=\"")? + 8;
        open[i..].split('"').next()?.parse().ok()
    }
}

/// The Okabe–Ito palette, told apart by people with the common colour-vision
/// deficiencies; yellow and black come last (yellow is faint on white).
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0x00, 0x72, 0xB2), // blue
    (0xE6, 0x9F, 0x00), // orange
    (0x00, 0x9E, 0x73), // bluish green
    (0xD5, 0x5E, 0x00), // vermillion
    (0xCC, 0x79, 0xA7), // reddish purple
    (0x56, 0xB4, 0xE9), // sky blue
    (0xF0, 0xE4, 0x42), // yellow
    (0x00, 0x00, 0x00), // black
];

pub fn color(i: usize) -> plotters::style::RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    plotters::style::RGBColor(r, g, b)
}

/// Marker shapes, so series differ by more than colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

pub fn marker(i: usize) -> Marker {
    [
        Marker::Circle,
        Marker::Square,
        Marker::Triangle,
        Marker::Diamond,
        Marker::Cross,
    ][i % 5]
}

/// Tick exponents for a log2 axis from 2^lo to 2^hi: every power of two when
/// they fit in `max` ticks, else every 2nd, 3rd, ... power, always from `lo`.
pub fn log2_ticks(lo: i32, hi: i32, max: usize) -> Vec<i32> {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let n = (hi - lo + 1) as usize;
    let step = n.div_ceil(max.max(1)).max(1);
    (lo..=hi).step_by(step).collect()
}

/// Ticks at 1, 2 and 5 times a power of ten spaced to give about `n`
/// ticks between `lo` and `hi`.
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater)
        || !lo.is_finite()
        || !hi.is_finite()
    {
        return vec![lo];
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Ticks for a log axis: 1, 2, 5 × 10^k inside [lo, hi], or only the powers
/// of ten when that would be more than 8.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let (a, z) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let all: Vec<f64> = (a..=z)
        .flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k)))
        .filter(within)
        .collect();
    if all.len() <= 8 {
        return all;
    }
    (a..=z).map(|k| 10f64.powi(k)).filter(within).collect()
}

/// A log value axis suits figures that are all above zero and span more
/// than 30 times (a 32 MiB cluster's size on disk beside a 4 KiB one's).
pub fn wants_log(values: &[f64]) -> bool {
    let pos: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    if pos.len() < 2 || values.iter().any(|v| *v < 0.0) {
        return false;
    }
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(0.0, f64::max);
    hi / lo > 30.0
}

/// log2 of a power of two (rounded for anything else).
pub fn log2(n: u64) -> i32 {
    (n.max(1) as f64).log2().round() as i32
}

/// A cluster size as an axis label: `512 B`, `4 KiB`, `32 MiB`.
pub fn cluster_label(n: u64) -> String {
    for (shift, u) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {u}", n >> shift);
        }
    }
    format!("{n} B")
}

/// The IEC unit that shows `max` bytes with a short number: (divisor, name).
pub fn byte_unit(max: f64) -> (f64, &'static str) {
    let mut d = 1.0;
    for u in ["B", "KiB", "MiB", "GiB", "TiB"] {
        if max < d * 1024.0 * 10.0 || u == "TiB" {
            return (d, u);
        }
        d *= 1024.0;
    }
    unreachable!()
}

/// A figure with about three significant digits, no exponent.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// An axis tick: whole numbers without a decimal point.
pub fn tick(v: f64) -> String {
    if v == v.round() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Escape text for HTML and SVG (element content and quoted attributes).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

/// Give plotters' SVG its text alternative: `role="img"`, `aria-labelledby`
/// and `<title>`/`<desc>` as the first children (what screen readers and
/// browsers' tooltips use).
pub fn accessible(svg: &str, id: &str, title: &str, desc: &str) -> String {
    let Some(start) = svg.find("<svg") else {
        return svg.to_string();
    };
    let Some(end) = svg[start..].find('>').map(|e| start + e) else {
        return svg.to_string();
    };
    let open = svg[start..end].trim_end_matches('/');
    format!(
        "{}{open} role=\"img\" aria-labelledby=\"{id}-title {id}-desc\">\n<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>{}",
        &svg[..start],
        esc(title),
        esc(desc),
        &svg[end + 1..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_ticks_thin_out_long_sweeps() {
        // 4 KiB .. 32 KiB: every power fits.
        assert_eq!(log2_ticks(12, 15, 9), vec![12, 13, 14, 15]);
        // 512 B .. 32 MiB is 17 powers: every 2nd one, from 512 B to 32 MiB.
        assert_eq!(
            log2_ticks(9, 25, 9),
            vec![9, 11, 13, 15, 17, 19, 21, 23, 25]
        );
        // 18 powers in at most 6 ticks: every 3rd.
        assert_eq!(log2_ticks(9, 26, 6), vec![9, 12, 15, 18, 21, 24]);
        assert_eq!(log2_ticks(12, 12, 9), vec![12]);
        assert_eq!(log2_ticks(15, 12, 9), vec![12, 13, 14, 15]);
        assert_eq!(log2(4096), 12);
        assert_eq!(log2(32 << 20), 25);
    }

    #[test]
    fn value_ticks() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(
            nice_ticks(0.0, 430.0, 6),
            vec![0.0, 100.0, 200.0, 300.0, 400.0]
        );
        assert_eq!(log_ticks(3.0, 60.0), vec![5.0, 10.0, 20.0, 50.0]);
        assert_eq!(
            log_ticks(3.0, 12_000.0),
            vec![10.0, 100.0, 1000.0, 10_000.0]
        );
        assert!(wants_log(&[4.5, 5.1, 9632.0]));
        assert!(!wants_log(&[46.0, 204.0, 100.0]));
        assert!(!wants_log(&[-1.0, 1.0, 1000.0]));
        // zeros are left out, not a reason against
        assert!(wants_log(&[0.0, 1.0, 1000.0]));
    }

    #[test]
    fn labels_and_units() {
        assert_eq!(cluster_label(512), "512 B");
        assert_eq!(cluster_label(4096), "4 KiB");
        assert_eq!(cluster_label(32 << 20), "32 MiB");
        assert_eq!(byte_unit(5000.0), (1.0, "B"));
        assert_eq!(byte_unit(4.0 * 1048576.0), (1024.0, "KiB"));
        assert_eq!(byte_unit(12e6), (1048576.0, "MiB"));
        assert_eq!(num(123.456), "123");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(-1.234), "-1.23");
        assert_eq!(num(0.01234), "0.012");
        assert_eq!(tick(0.2), "0.2");
        assert_eq!(tick(1.25), "1.25");
        assert_eq!(tick(400.0), "400");
    }

    #[test]
    fn accessible_svg_has_title_and_desc_first() {
        let svg = "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">\n<rect/></svg>";
        let a = accessible(svg, "c1", "Speed <MB/s>", "a & b");
        assert!(a.starts_with("<svg width=\"10\""));
        assert!(a.contains("role=\"img\" aria-labelledby=\"c1-title c1-desc\">"));
        assert!(a.contains("<title id=\"c1-title\">Speed &lt;MB/s&gt;</title>"));
        assert!(a.contains("<desc id=\"c1-desc\">a &amp; b</desc>\n<rect/></svg>"));
        assert!(a.find("<title").unwrap() < a.find("<rect").unwrap());
        let c = Chart {
            id: "c1".into(),
            title: String::new(),
            desc: String::new(),
            svg: a,
        };
        assert_eq!(c.width(), Some(10));
    }
}
