//! Stacked horizontal bars on a 0–100 % axis: each row is one whole cut
//! into parts (or a single share), grouped rows set apart by a gap. Every
//! part carries its figure, inside it when it fits, else in the text after
//! the bar, so no reading depends on colour alone.

use super::color;
use super::draw::{font, framed, legend_layout, text_px, Area, Key, Keyed, FONT, TEXT};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A kind of part: its legend name and palette index.
#[derive(Clone, Debug)]
pub struct Segment {
    pub name: String,
    /// Its name after a bar, where its part was too narrow for its figure.
    pub short: String,
    pub color: usize,
}

/// One bar: (segment index, percent) left to right.
#[derive(Clone, Debug)]
pub struct Stack {
    pub label: String,
    pub parts: Vec<(usize, f64)>,
    /// Written after the bar (the number of states, a single share).
    pub note: String,
    /// Leave a gap above this row: a new group begins.
    pub group_start: bool,
}

#[derive(Clone, Debug)]
pub struct Stacks {
    pub title: String,
    pub segments: Vec<Segment>,
    pub rows: Vec<Stack>,
    pub x_desc: String,
    pub width: u32,
}

const ROW_PX: f64 = 24.0;
const GAP: f64 = 0.7;

/// Dark colours (blue, vermillion, black) carry white text.
fn ink(c: usize) -> RGBColor {
    if [0, 3, 7].contains(&(c % 8)) {
        WHITE
    } else {
        BLACK
    }
}

/// A share: whole percent, one decimal under 1 % (never a bare 0 % for
/// a share that is there).
pub fn pct(v: f64) -> String {
    if v > 0.0 && v < 1.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.0} %")
    }
}

/// Can the figure of a part `v` % wide sit inside it?
fn fits(v: f64, plot_px: f64) -> bool {
    v > 0.0 && v / 100.0 * plot_px >= text_px(&pct(v)) + 8.0
}

/// The text after a bar: its note, then the figures that did not fit inside.
fn after(s: &Stacks, r: &Stack, plot_px: f64) -> String {
    let mut t = r.note.clone();
    if r.parts.len() > 1 {
        for &(seg, v) in &r.parts {
            if v > 0.0 && !fits(v, plot_px) {
                t.push_str(&format!(", {} {}", s.segments[seg].short, pct(v)));
            }
        }
    }
    t
}

/// Row centres, top to bottom, as y coordinates (0 at the bottom), and
/// the total height in slots.
fn layout(rows: &[Stack]) -> (Vec<f64>, f64) {
    let mut y = 0.25;
    let mut at = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if r.group_start && i > 0 {
            y += GAP;
        }
        at.push(y + 0.5);
        y += 1.0;
    }
    let total = y + 0.25;
    (at.iter().map(|c| total - c).collect(), total)
}

pub fn stacked(s: &Stacks) -> String {
    let (centres, total) = layout(&s.rows);
    // The legend in the order the parts first appear.
    let mut used: Vec<usize> = Vec::new();
    for &(seg, _) in s.rows.iter().flat_map(|r| &r.parts) {
        if !used.contains(&seg) {
            used.push(seg);
        }
    }
    let items: Vec<(String, Key)> = used
        .iter()
        .map(|&i| {
            let g = &s.segments[i];
            (g.name.clone(), Key::Swatch(color(g.color)))
        })
        .collect();
    let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
    let (_, legend_h) = legend_layout(&names, s.width);
    let (caption_h, x_area) = (34, 44);
    let plot_h = (total * ROW_PX).ceil() as u32;
    let height = caption_h + legend_h + plot_h + x_area + 16;
    let y_area = s
        .rows
        .iter()
        .map(|r| text_px(&r.label))
        .fold(40.0, f64::max)
        .min(s.width as f64 * 0.4) as u32
        + 14;
    // The 0–100 % span takes what the longest text after a bar leaves.
    let plot_w = (s.width - y_area - 20) as f64;
    let guess = plot_w * 0.6;
    let longest = s
        .rows
        .iter()
        .map(|r| text_px(&after(s, r, guess)))
        .fold(0.0, f64::max);
    let frac = ((longest + 14.0) / plot_w).min(0.5);
    let x_hi = 100.0 / (1.0 - frac);
    let bar_px = plot_w * (1.0 - frac);

    framed(
        (s.width, height),
        (caption_h, legend_h),
        &s.title,
        &items,
        |plot| {
            plot_rows(plot, s, (&centres, total), (x_area, y_area), (x_hi, bar_px));
            true
        },
    )
}

/// The axes, the grid and every bar with its figures.
fn plot_rows(
    plot: &Area,
    s: &Stacks,
    (centres, total): (&[f64], f64),
    (x_area, y_area): (u32, u32),
    (x_hi, bar_px): (f64, f64),
) {
    let Ok(mut chart) = ChartBuilder::on(plot)
        .margin_right(20)
        .margin_bottom(10)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(
            Keyed {
                lo: 0.0,
                hi: x_hi,
                keys: (0..=5).map(|k| k as f64 * 20.0).collect(),
                log: false,
            },
            Keyed {
                lo: 0.0,
                hi: total,
                keys: centres.to_vec(),
                log: false,
            },
        )
    else {
        return;
    };
    let label_of = |y: &f64| {
        centres
            .iter()
            .position(|c| (c - y).abs() < 0.01)
            .map(|i| s.rows[i].label.clone())
            .unwrap_or_default()
    };
    let _ = chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(s.x_desc.clone())
        .x_label_formatter(&|x: &f64| super::tick(*x))
        .y_label_formatter(&label_of)
        .label_style(font())
        .axis_desc_style(font())
        .light_line_style(RGBColor(240, 240, 240))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw();
    for (r, &y) in s.rows.iter().zip(centres) {
        let mut x = 0.0;
        for &(seg, v) in &r.parts {
            let c = s.segments[seg].color;
            let _ = chart.draw_series(std::iter::once(Rectangle::new(
                [(x, y + 0.38), (x + v, y - 0.38)],
                color(c).filled(),
            )));
            if r.parts.len() > 1 && fits(v, bar_px) {
                let style = (FONT, TEXT)
                    .into_font()
                    .color(&ink(c))
                    .pos(Pos::new(HPos::Center, VPos::Center));
                let _ =
                    chart.draw_series(std::iter::once(Text::new(pct(v), (x + v / 2.0, y), style)));
            }
            x += v;
        }
        let _ = chart.draw_series(std::iter::once(
            EmptyElement::at((x, y))
                + Text::new(
                    after(s, r, bar_px),
                    (5, 0),
                    font().pos(Pos::new(HPos::Left, VPos::Center)),
                ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_too_narrow_for_their_figure_are_named_after_the_bar() {
        let s = Stacks {
            title: "t".into(),
            segments: vec![
                Segment {
                    name: "clean".into(),
                    short: "clean".into(),
                    color: 2,
                },
                Segment {
                    name: "unrepairable".into(),
                    short: "unrepairable".into(),
                    color: 3,
                },
            ],
            rows: vec![Stack {
                label: "save".into(),
                parts: vec![(0, 98.0), (1, 2.0)],
                note: "50 states".into(),
                group_start: true,
            }],
            x_desc: "share of crash states (%)".into(),
            width: 680,
        };
        assert_eq!(after(&s, &s.rows[0], 400.0), "50 states, unrepairable 2 %");
        let svg = stacked(&s);
        assert!(svg.contains("\n98 %\n"), "{svg}");
        assert!(svg.contains("unrepairable 2 %"));
        let (c, total) = layout(&[s.rows[0].clone(), s.rows[0].clone()]);
        assert!(c[0] > c[1] && c[0] < total && (c[0] - c[1] - 1.0 - GAP).abs() < 1e-9);
    }
}
