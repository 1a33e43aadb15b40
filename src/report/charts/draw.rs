//! The two chart kinds the report needs, drawn with plotters into SVG:
//! horizontal (grouped) bars with min–max whiskers, and lines over a log2
//! cluster-size axis. Every bar carries its figure as text and, in grouped
//! charts, its series name, so no reading depends on colour alone.

use super::{cluster_label, color, log2, log2_ticks, marker, Marker};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// plotters writes `font-size` as size / 1.24 in SVG: these give 12 and 16 px.
pub(super) const TEXT: f64 = 15.0;
const CAPTION: f64 = 20.0;
/// Rough width of a character of 12 px sans-serif text, for layout only.
const CHAR_PX: f64 = 6.8;
pub(super) const FONT: &str = "sans-serif";

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A linear f64 axis with ticks exactly at `keys` (category centres, powers
/// of two). plotters' own `with_key_points` drops the f64 label formatter.
/// With `log`, positions are logarithmic (lo, hi and keys above zero).
#[derive(Clone)]
pub(super) struct Keyed {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) keys: Vec<f64>,
    pub(super) log: bool,
}

impl Ranged for Keyed {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = if self.log {
            (v.max(self.lo).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.keys.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

#[derive(Clone, Debug)]
pub struct Bar {
    pub value: f64,
    /// Min and max of the repeats, drawn as a whisker.
    pub whisker: Option<(f64, f64)>,
}

#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    /// Palette index.
    pub color: usize,
    /// One per group (None: no figure for that group).
    pub bars: Vec<Option<Bar>>,
}

/// Horizontal bars: `groups` top to bottom, one bar per series in each.
#[derive(Clone, Debug)]
pub struct Bars {
    pub title: String,
    pub groups: Vec<String>,
    pub series: Vec<BarSeries>,
    /// The value axis' label, with its unit.
    pub x_desc: String,
    /// Appended to each bar's figure: " MB/s", " %", "×".
    pub unit: String,
    /// Write a plus sign on positive figures (differences).
    pub signed: bool,
    /// A vertical reference line (the baseline's 100 %, 1× amplification, ...).
    pub reference: Option<(f64, String)>,
    pub width: u32,
}

#[derive(Clone, Debug)]
pub struct Point {
    /// Cluster size in bytes (drawn on a log2 axis).
    pub x: u64,
    pub y: f64,
    pub whisker: Option<(f64, f64)>,
}

#[derive(Clone, Debug)]
pub struct Curve {
    pub name: String,
    /// Palette and marker index.
    pub style: usize,
    pub points: Vec<Point>,
}

/// Lines over cluster size (log2 axis).
#[derive(Clone, Debug)]
pub struct Lines {
    pub title: String,
    pub series: Vec<Curve>,
    pub y_desc: String,
    /// Start the value axis at zero (else fit it to the data: "zoomed").
    pub y_from_zero: bool,
    /// A horizontal reference line, e.g. the apparent size of the files.
    pub reference: Option<(f64, String)>,
    pub width: u32,
    pub height: u32,
}

pub(super) fn text_px(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_PX
}

pub(super) fn font<'a>() -> TextStyle<'a> {
    (FONT, TEXT).into_font().color(&BLACK)
}

/// Run `$body` with `$shape` bound to a function from a position to the
/// marker element drawn there (each shape is its own element type, and
/// plotters' boxed elements cannot borrow the SVG string).
macro_rules! with_marker {
    ($m:expr, $c:expr, |$shape:ident| $body:expr) => {{
        let (c, r): (RGBColor, i32) = ($c, 4);
        match $m {
            Marker::Circle => {
                let $shape = |at| EmptyElement::at(at) + Circle::new((0, 0), r, c.filled());
                $body
            }
            Marker::Square => {
                let $shape =
                    |at| EmptyElement::at(at) + Rectangle::new([(-r, -r), (r, r)], c.filled());
                $body
            }
            Marker::Triangle => {
                let $shape =
                    |at| EmptyElement::at(at) + TriangleMarker::new((0, 0), r + 1, c.filled());
                $body
            }
            Marker::Diamond => {
                let $shape = |at| {
                    EmptyElement::at(at)
                        + Polygon::new(
                            vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
                            c.filled(),
                        )
                };
                $body
            }
            Marker::Cross => {
                let $shape = |at| EmptyElement::at(at) + Cross::new((0, 0), r, c.stroke_width(2));
                $body
            }
        }
    }};
}

/// What a legend entry shows before its name.
#[derive(Clone, Copy)]
pub(super) enum Key {
    Swatch(RGBColor),
    Line(RGBColor, Marker),
    Dashed,
}

/// Legend entries laid out left to right, wrapping: (x, y) of each.
pub(super) fn legend_layout(names: &[String], width: u32) -> (Vec<(i32, i32)>, u32) {
    let (mut x, mut y) = (10i32, 12i32);
    let mut at = Vec::new();
    for n in names {
        let w = 30 + text_px(n) as i32 + 18;
        if x + w > width as i32 - 10 && x > 10 {
            x = 10;
            y += 20;
        }
        at.push((x, y));
        x += w;
    }
    let h = if names.is_empty() { 0 } else { y as u32 + 16 };
    (at, h)
}

pub(super) fn legend(area: &Area, items: &[(String, Key)], width: u32) {
    let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
    let (at, _) = legend_layout(&names, width);
    for ((name, key), &(x, y)) in items.iter().zip(&at) {
        match *key {
            Key::Swatch(c) => {
                let _ = area.draw(&Rectangle::new(
                    [(x + 2, y - 6), (x + 22, y + 6)],
                    c.filled(),
                ));
            }
            Key::Line(c, m) => {
                let _ = area.draw(&PathElement::new(
                    vec![(x, y), (x + 24, y)],
                    c.stroke_width(2),
                ));
                with_marker!(m, c, |shape| {
                    let _ = area.draw(&shape((x + 12, y)));
                });
            }
            Key::Dashed => {
                let _ = area.draw(&DashedPathElement::new(
                    vec![(x, y), (x + 24, y)],
                    5,
                    4,
                    BLACK.stroke_width(1),
                ));
            }
        }
        let _ = area.draw(&Text::new(
            name.clone(),
            (x + 30, y),
            font().pos(Pos::new(HPos::Left, VPos::Center)),
        ));
    }
}

/// An SVG chart of `width` × `height`: the title in the top `caption_h`
/// pixels, the legend of `items` in the next `legend_h`, and the plot area
/// below, which `draw` fills (false when it cannot: then no chart at all).
pub(super) fn framed(
    (width, height): (u32, u32),
    (caption_h, legend_h): (u32, u32),
    title: &str,
    items: &[(String, Key)],
    draw: impl FnOnce(&Area) -> bool,
) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let (top, rest) = root.split_vertically(caption_h);
        caption(&top, title);
        let (leg, plot) = rest.split_vertically(legend_h);
        legend(&leg, items, width);
        if !draw(&plot) {
            return String::new();
        }
        let _ = root.present();
    }
    out
}

pub(super) fn caption(area: &Area, title: &str) {
    let _ = area.draw(&Text::new(
        title.to_string(),
        (10, 8),
        (FONT, CAPTION).into_font().style(FontStyle::Bold),
    ));
}

/// The layout of grouped bars on the y axis, in slots of one bar each.
struct Slots {
    pad: f64,
    per_group: f64,
    total: f64,
}

impl Slots {
    fn new(groups: usize, series: usize) -> Slots {
        // Single bars sit closer together than groups of bars.
        let pad = if series > 1 { 1.0 } else { 0.5 };
        let per_group = series as f64 + pad;
        Slots {
            pad,
            per_group,
            total: groups as f64 * per_group,
        }
    }
    /// Centre of bar `s` of group `g`, as a y coordinate (0 at the bottom).
    fn bar(&self, g: usize, s: usize) -> f64 {
        self.total - (g as f64 * self.per_group + self.pad / 2.0 + s as f64 + 0.5)
    }
    fn group_centre(&self, g: usize) -> f64 {
        self.total - (g as f64 * self.per_group + self.per_group / 2.0)
    }
    fn group_at(&self, y: f64) -> usize {
        ((self.total - y) / self.per_group).floor().max(0.0) as usize
    }
}

fn bar_label(b: &Bars, s: &BarSeries, v: f64) -> String {
    let sign = if b.signed && v > 0.0 { "+" } else { "" };
    let fig = format!("{sign}{}{}", super::num(v), b.unit);
    if b.series.len() > 1 {
        format!("{} {fig}", s.name)
    } else {
        fig
    }
}

/// Where to cut the value axis so one huge bar does not flatten the rest:
/// when the largest value is over 10 times the next, cut just past the
/// others (their whiskers and the reference included).
pub fn axis_cut(values: &[(f64, f64)], reference: Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().map(|p| p.0).filter(|v| *v > 0.0).collect();
    v.sort_by(|a, b| b.total_cmp(a));
    if v.len() < 3 || v[0] <= 10.0 * v[1] {
        return None;
    }
    let rest = values
        .iter()
        .filter(|p| p.0 <= v[1])
        .map(|p| p.1.max(p.0))
        .fold(reference.unwrap_or(0.0), f64::max);
    let cut = rest * 1.15;
    (cut < v[0]).then_some(cut)
}

/// Where everything of a bar chart goes: the layout, computed before any
/// painting.
struct BarLayout {
    slots: Slots,
    items: Vec<(String, Key)>,
    caption_h: u32,
    legend_h: u32,
    x_area: u32,
    y_area: u32,
    height: u32,
    /// Where the value axis is cut (see [`axis_cut`]).
    cut: Option<f64>,
    /// The value axis' range, with room for the figures.
    x: (f64, f64),
}

impl BarLayout {
    fn new(b: &Bars) -> BarLayout {
        let ns = b.series.len().max(1);
        let slots = Slots::new(b.groups.len().max(1), ns);
        let bar_px = if ns > 1 { 17.0 } else { 22.0 };
        let plot_h = (slots.total * bar_px).ceil() as u32;
        let items = bar_legend(b);
        let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
        let (_, legend_h) = legend_layout(&names, b.width);
        let caption_h = 34;
        let x_area = 44;
        let height = caption_h + legend_h + plot_h + x_area + 16;
        let y_area = b
            .groups
            .iter()
            .map(|g| text_px(g))
            .fold(40.0, f64::max)
            .min(b.width as f64 * 0.35) as u32
            + 14;
        let all: Vec<(f64, f64)> = b
            .series
            .iter()
            .flat_map(|s| s.bars.iter().flatten())
            .map(|bar| (bar.value, bar.whisker.map_or(bar.value, |w| w.1)))
            .collect();
        let cut = axis_cut(&all, b.reference.as_ref().map(|r| r.0));
        let x = bar_range(b, cut, y_area);
        BarLayout {
            slots,
            items,
            caption_h,
            legend_h,
            x_area,
            y_area,
            height,
            cut,
            x,
        }
    }

    fn clip(&self, v: f64) -> f64 {
        self.cut.map_or(v, |c| v.min(c))
    }

    fn cut_here(&self, v: f64) -> bool {
        self.cut.is_some_and(|c| v > c)
    }
}

/// The legend: the series (when more than one) and the reference line.
fn bar_legend(b: &Bars) -> Vec<(String, Key)> {
    let mut items: Vec<(String, Key)> = Vec::new();
    if b.series.len() > 1 {
        items.extend(
            b.series
                .iter()
                .map(|s| (s.name.clone(), Key::Swatch(color(s.color)))),
        );
    }
    if let Some((_, label)) = &b.reference {
        items.push((label.clone(), Key::Dashed));
    }
    items
}

/// The value range: zero, every bar and whisker, the reference, and room
/// for the figures written beside the bars.
fn bar_range(b: &Bars, cut: Option<f64>, y_area: u32) -> (f64, f64) {
    let clip = |v: f64| cut.map_or(v, |c| v.min(c));
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    let mut longest = 0.0f64;
    for s in &b.series {
        for bar in s.bars.iter().flatten() {
            let (a, z) = bar.whisker.unwrap_or((bar.value, bar.value));
            lo = lo.min(bar.value).min(a);
            hi = hi.max(clip(bar.value)).max(clip(z));
            let extra = if cut.is_some_and(|c| bar.value > c) {
                " (axis cut)"
            } else {
                ""
            };
            longest = longest.max(text_px(&bar_label(b, s, bar.value)) + text_px(extra));
        }
    }
    if let Some((r, _)) = b.reference {
        lo = lo.min(r);
        hi = hi.max(r);
    }
    if hi - lo <= 0.0 {
        hi = lo + 1.0;
    }
    let plot_w = (b.width - y_area - 20) as f64;
    let frac = ((longest + 12.0) / plot_w).min(0.45);
    let span = hi - lo;
    let room = span * frac / (1.0 - frac);
    let x_lo = if lo < 0.0 { lo - room } else { 0.0 };
    let x_hi = if hi > 0.0 { hi + room } else { 0.0 };
    (x_lo, x_hi)
}

type BarChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Keyed>>;

pub fn bars(b: &Bars) -> String {
    let lay = BarLayout::new(b);
    framed(
        (b.width, lay.height),
        (lay.caption_h, lay.legend_h),
        &b.title,
        &lay.items,
        |plot| paint_bars(plot, b, &lay),
    )
}

/// Paint the axes, the reference line and every bar into the plot area.
fn paint_bars(plot: &Area, b: &Bars, lay: &BarLayout) -> bool {
    let slots = &lay.slots;
    let groups = b.groups.clone();
    let centres: Vec<f64> = (0..groups.len()).map(|g| slots.group_centre(g)).collect();
    let Ok(mut chart) = ChartBuilder::on(plot)
        .margin_right(20)
        .margin_bottom(10)
        .x_label_area_size(lay.x_area)
        .y_label_area_size(lay.y_area)
        .build_cartesian_2d(
            lay.x.0..lay.x.1,
            Keyed {
                lo: 0.0,
                hi: slots.total,
                keys: centres,
                log: false,
            },
        )
    else {
        return false;
    };
    let fmt_y = |y: &f64| groups.get(slots.group_at(*y)).cloned().unwrap_or_default();
    let fmt_x = |x: &f64| {
        if lay.cut_here(*x) {
            String::new()
        } else {
            super::tick(*x)
        }
    };
    let _ = chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(b.x_desc.clone())
        .x_labels(8)
        .x_max_light_lines(1)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .label_style(font())
        .axis_desc_style(font())
        .light_line_style(RGBColor(240, 240, 240))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw();
    if let Some((r, _)) = &b.reference {
        let _ = chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(*r, 0.0), (*r, slots.total)],
            5,
            4,
            BLACK.stroke_width(1),
        )));
    }
    for (si, s) in b.series.iter().enumerate() {
        for (g, bar) in s.bars.iter().enumerate() {
            if let Some(bar) = bar {
                paint_bar(&mut chart, b, s, bar, lay.slots.bar(g, si), lay);
            }
        }
    }
    true
}

/// One bar at height `y`: the bar, its whisker (or the break of a cut
/// axis), and its figure.
fn paint_bar(chart: &mut BarChart, b: &Bars, s: &BarSeries, bar: &Bar, y: f64, lay: &BarLayout) {
    let c = color(s.color);
    let cut_here = lay.cut_here(bar.value);
    let v = lay.clip(bar.value);
    let _ = chart.draw_series(std::iter::once(Rectangle::new(
        [(0.0, y + 0.38), (v, y - 0.38)],
        c.filled(),
    )));
    let mut end = v;
    if cut_here {
        // A white break across the bar near its cut end.
        let st = WHITE.stroke_width(3);
        let _ = chart.draw_series([
            EmptyElement::at((v, y)) + PathElement::new(vec![(-14, 9), (-8, -9)], st),
            EmptyElement::at((v, y)) + PathElement::new(vec![(-8, 9), (-2, -9)], st),
        ]);
    } else if let Some((a, z)) = bar.whisker {
        let st = BLACK.stroke_width(1);
        let _ = chart.draw_series([
            PathElement::new(vec![(a, y), (z, y)], st),
            PathElement::new(vec![(a, y - 0.22), (a, y + 0.22)], st),
            PathElement::new(vec![(z, y - 0.22), (z, y + 0.22)], st),
        ]);
        end = if bar.value < 0.0 {
            a.min(end)
        } else {
            z.max(end)
        };
    }
    let mut label = bar_label(b, s, bar.value);
    if cut_here {
        label.push_str(" (axis cut)");
    }
    paint_figure(chart, label, bar.value < 0.0, (end, y));
}

/// A bar's figure beside its end, on a white ground, readable across grid
/// and reference lines.
fn paint_figure(chart: &mut BarChart, label: String, negative: bool, at: (f64, f64)) {
    let w = text_px(&label) as i32;
    let (x0, h) = if negative {
        (-5, HPos::Right)
    } else {
        (5, HPos::Left)
    };
    let (bx0, bx1) = if negative {
        (x0 - w - 2, x0 + 2)
    } else {
        (x0 - 2, x0 + w + 2)
    };
    let _ = chart.draw_series(std::iter::once(
        EmptyElement::at(at)
            + Rectangle::new([(bx0, -7), (bx1, 7)], WHITE.mix(0.85).filled())
            + Text::new(label, (x0, 0), font().pos(Pos::new(h, VPos::Center))),
    ));
}

/// Where everything of a lines chart goes, computed before any painting.
struct LineLayout {
    items: Vec<(String, Key)>,
    caption_h: u32,
    legend_h: u32,
    height: u32,
    /// The cluster axis, in log2 of bytes, and its ticks.
    x: (i32, i32),
    ticks: Vec<i32>,
    y: YAxis,
}

/// The value axis: its range, ticks and scale.
struct YAxis {
    lo: f64,
    hi: f64,
    keys: Vec<f64>,
    log: bool,
}

impl LineLayout {
    fn new(l: &Lines) -> LineLayout {
        let mut items: Vec<(String, Key)> = l
            .series
            .iter()
            .map(|s| (s.name.clone(), Key::Line(color(s.style), marker(s.style))))
            .collect();
        if let Some((_, label)) = &l.reference {
            items.push((label.clone(), Key::Dashed));
        }
        let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
        let (_, legend_h) = legend_layout(&names, l.width);
        let xs: Vec<i32> = l
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| log2(p.x)))
            .collect();
        let (xlo, xhi) = (
            xs.iter().copied().min().unwrap_or(12),
            xs.iter().copied().max().unwrap_or(12),
        );
        LineLayout {
            items,
            caption_h: 34,
            legend_h,
            height: l.height + legend_h,
            x: (xlo, xhi),
            ticks: log2_ticks(xlo, xhi, ((l.width - 100) / 64) as usize),
            y: y_axis(l),
        }
    }

    /// The cluster axis' ends, a little beyond the outermost points.
    fn x_ends(&self) -> (f64, f64) {
        (self.x.0 as f64 - 0.4, self.x.1 as f64 + 0.4)
    }
}

/// The value axis: logarithmic when the values span decades, else linear
/// with a margin (from zero when the chart asks).
fn y_axis(l: &Lines) -> YAxis {
    let mut ys: Vec<f64> = Vec::new();
    for p in l.series.iter().flat_map(|s| &s.points) {
        let (a, z) = p.whisker.unwrap_or((p.y, p.y));
        ys.extend([p.y, a, z]);
    }
    if let Some((r, _)) = l.reference {
        ys.push(r);
    }
    if super::wants_log(&ys) {
        let lo = ys
            .iter()
            .copied()
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(0.0, f64::max);
        let (lo, hi) = (lo / 1.4, hi * 1.4);
        return YAxis {
            lo,
            hi,
            keys: super::log_ticks(lo, hi),
            log: true,
        };
    }
    let mut lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if l.y_from_zero {
        lo = lo.min(0.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.08
    } else {
        hi.abs().max(1.0) * 0.1
    };
    let lo = if l.y_from_zero && lo >= 0.0 {
        0.0
    } else {
        lo - pad
    };
    let hi = hi + pad;
    YAxis {
        lo,
        hi,
        keys: super::nice_ticks(lo, hi, 6),
        log: false,
    }
}

type LineChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Keyed, Keyed>>;

pub fn lines(l: &Lines) -> String {
    let lay = LineLayout::new(l);
    framed(
        (l.width, lay.height),
        (lay.caption_h, lay.legend_h),
        &l.title,
        &lay.items,
        |plot| paint_lines(plot, l, &lay),
    )
}

/// Paint the axes, the reference line and every curve into the plot area.
fn paint_lines(plot: &Area, l: &Lines, lay: &LineLayout) -> bool {
    let keys: Vec<f64> = lay.ticks.iter().map(|&t| t as f64).collect();
    let (x_lo, x_hi) = lay.x_ends();
    let y = &lay.y;
    let Ok(mut chart) = ChartBuilder::on(plot)
        .margin_right(24)
        .margin_bottom(8)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            Keyed {
                lo: x_lo,
                hi: x_hi,
                keys,
                log: false,
            },
            Keyed {
                lo: y.lo,
                hi: y.hi,
                keys: y.keys.clone(),
                log: y.log,
            },
        )
    else {
        return false;
    };
    let fmt_x = |x: &f64| cluster_label(1u64 << (x.round().clamp(0.0, 62.0) as u32));
    let fmt_y = |y: &f64| super::tick(*y);
    let y_desc = if y.log {
        format!("{} (log scale)", l.y_desc)
    } else {
        l.y_desc.clone()
    };
    let _ = chart
        .configure_mesh()
        .x_desc("Cluster size (log2 scale)")
        .y_desc(y_desc)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .label_style(font())
        .axis_desc_style(font())
        .bold_line_style(RGBColor(225, 225, 225))
        .draw();
    if let Some((r, _)) = &l.reference {
        let _ = chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(x_lo, *r), (x_hi, *r)],
            5,
            4,
            BLACK.stroke_width(1),
        )));
    }
    for s in &l.series {
        paint_curve(&mut chart, s, y.log);
    }
    true
}

/// One curve: its line, whiskers and markers.
fn paint_curve(chart: &mut LineChart, s: &Curve, y_log: bool) {
    let c = color(s.style);
    let mut pts: Vec<(f64, f64)> = s
        .points
        .iter()
        .filter(|p| !y_log || p.y > 0.0)
        .map(|p| (log2(p.x) as f64, p.y))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let _ = chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)));
    for p in &s.points {
        let x = log2(p.x) as f64;
        if let Some((a, z)) = p.whisker {
            let st = c.stroke_width(1);
            let _ = chart.draw_series([
                PathElement::new(vec![(x, a), (x, z)], st),
                PathElement::new(vec![(x - 0.06, a), (x + 0.06, a)], st),
                PathElement::new(vec![(x - 0.06, z), (x + 0.06, z)], st),
            ]);
        }
    }
    with_marker!(marker(s.style), c, |shape| {
        let _ = chart.draw_series(pts.iter().map(|&p| shape(p)));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_put_groups_top_down() {
        let s = Slots::new(3, 2);
        assert_eq!(s.total, 9.0);
        assert_eq!(Slots::new(4, 1).total, 6.0);
        // group 0's first bar is at the top
        assert!(s.bar(0, 0) > s.bar(0, 1));
        assert!(s.bar(0, 1) > s.bar(1, 0));
        for g in 0..3 {
            assert_eq!(s.group_at(s.group_centre(g)), g);
            assert_eq!(s.group_at(s.bar(g, 1)), g);
        }
    }

    #[test]
    fn one_huge_bar_cuts_the_axis() {
        let v = |x: f64| (x, x);
        assert_eq!(
            axis_cut(&[v(5.0), v(5.1), v(9632.0)], None),
            Some(5.1 * 1.15)
        );
        // A whisker or the reference beyond the others moves the cut out.
        assert_eq!(
            axis_cut(&[v(5.0), (5.1, 8.0), v(9632.0)], Some(4.0)),
            Some(8.0 * 1.15)
        );
        assert_eq!(axis_cut(&[v(100.0), v(439.0), v(216.0)], None), None);
        assert_eq!(axis_cut(&[v(248.0), v(57.5), v(35.5)], None), None);
        assert_eq!(axis_cut(&[v(1.0), v(100.0)], None), None);
    }

    #[test]
    fn bars_and_lines_make_svg_with_their_text() {
        let b = Bars {
            title: "single-write".into(),
            groups: vec!["ext4:4K".into(), "exfat:32K".into()],
            series: vec![BarSeries {
                name: "MB/s".into(),
                color: 0,
                bars: vec![
                    Some(Bar {
                        value: 120.0,
                        whisker: Some((100.0, 130.0)),
                    }),
                    Some(Bar {
                        value: 80.5,
                        whisker: None,
                    }),
                ],
            }],
            x_desc: "Throughput (MB/s)".into(),
            unit: " MB/s".into(),
            signed: false,
            reference: None,
            width: 600,
        };
        let svg = bars(&b);
        assert!(svg.starts_with("<svg"), "{svg}");
        for t in [
            "single-write",
            "ext4:4K",
            "exfat:32K",
            "120 MB/s",
            "80.5 MB/s",
        ] {
            assert!(svg.contains(t), "{t} missing");
        }
        let l = Lines {
            title: "Write speed".into(),
            series: vec![Curve {
                name: "run 1".into(),
                style: 0,
                points: vec![
                    Point {
                        x: 4096,
                        y: 10.0,
                        whisker: Some((9.0, 11.0)),
                    },
                    Point {
                        x: 32768,
                        y: 20.0,
                        whisker: None,
                    },
                ],
            }],
            y_desc: "MB/s".into(),
            y_from_zero: true,
            reference: Some((5.0, "apparent size".into())),
            width: 560,
            height: 360,
        };
        let svg = lines(&l);
        for t in [
            "Write speed",
            "4 KiB",
            "32 KiB",
            "16 KiB",
            "apparent size",
            "run 1",
        ] {
            assert!(svg.contains(t), "{t} missing");
        }
    }
}
