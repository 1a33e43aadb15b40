//! `fsfit report --png DIR`: every chart as an SVG file and a PNG rasterised
//! by resvg (pure Rust: usvg parses, tiny-skia paints, text is shaped with
//! the system's fonts found by fontdb; no C libraries).

use super::charts::Chart;
use crate::{Error, Result};
use resvg::{tiny_skia, usvg};
use std::path::{Path, PathBuf};

/// Pixels per SVG unit: PNGs at twice the size read well on screens and in
/// documents.
const SCALE: f32 = 2.0;

/// Where a font comes from, in the words of the system the user is on.
const FONT_HINT: &str = if cfg!(windows) {
    "install a TrueType font such as DejaVu Sans: open the .ttf file and click Install"
} else if cfg!(target_os = "macos") {
    "open a .ttf font such as DejaVu Sans in Font Book"
} else {
    "install fonts-dejavu-core"
};

/// The system's fonts, with the generic `sans-serif` (what the charts ask
/// for) bound to a family that is really there.
fn options() -> (usvg::Options<'static>, Option<String>) {
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let has = |db: &resvg::usvg::fontdb::Database, name: &str| {
        db.faces()
            .any(|f| f.families.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)))
    };
    let mut warning = None;
    if db.is_empty() {
        warning = Some(format!(
            "no fonts found on this system: the PNG charts have no text ({FONT_HINT})"
        ));
    } else {
        let sans = db.family_name(&usvg::fontdb::Family::SansSerif).to_string();
        if !has(db, &sans) {
            let pick = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "FreeSans"]
                .into_iter()
                .find(|n| has(db, n))
                .map(str::to_string)
                .or_else(|| {
                    db.faces()
                        .next()
                        .and_then(|f| f.families.first())
                        .map(|(n, _)| n.clone())
                });
            if let Some(p) = pick {
                db.set_sans_serif_family(p);
            }
        }
    }
    (opt, warning)
}

/// Rasterise one SVG document to PNG bytes.
pub fn rasterise(svg: &str, opt: &usvg::Options) -> Result<Vec<u8>> {
    let tree = usvg::Tree::from_str(svg, opt)
        .map_err(|e| Error::work(format!("SVG does not parse: {e}")))?;
    let size = tree.size().to_int_size();
    let (w, h) = (
        (size.width() as f32 * SCALE).ceil() as u32,
        (size.height() as f32 * SCALE).ceil() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| Error::work(format!("cannot make a {w}×{h} image")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| Error::work(format!("PNG encoding: {e}")))
}

/// Write `NN-id.svg` and `NN-id.png` for every chart into `dir` (made if
/// missing). Returns the files written and a warning, if any.
pub fn write(dir: &Path, charts: &[Chart]) -> Result<(Vec<PathBuf>, Option<String>)> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let (opt, warning) = options();
    let mut written = Vec::new();
    for (i, c) in charts.iter().enumerate() {
        let stem = format!("{:02}-{}", i + 1, c.id);
        let svg_path = dir.join(format!("{stem}.svg"));
        let doc = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
            c.svg.trim()
        );
        super::write_atomic(&svg_path, doc.as_bytes())?;
        written.push(svg_path);
        let png =
            rasterise(&c.svg, &opt).map_err(|e| Error::work(format!("chart {}: {e}", c.id)))?;
        let png_path = dir.join(format!("{stem}.png"));
        super::write_atomic(&png_path, &png)?;
        written.push(png_path);
    }
    Ok((written, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_rasterises_at_twice_its_size() {
        let svg = "<svg width=\"40\" height=\"20\" viewBox=\"0 0 40 20\" xmlns=\"http://www.w3.org/2000/svg\"><rect x=\"0\" y=\"0\" width=\"20\" height=\"20\" fill=\"#0072B2\"/></svg>";
        let png = rasterise(svg, &usvg::Options::default()).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // IHDR width and height, big-endian, at bytes 16..24.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 80);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 40);
    }
}
