//! Which charts a set of results makes, and the arithmetic behind them:
//! throughput and its spread, write amplification, fragmented against
//! contiguous, cluster-size sweeps, and the difference between two runs.

use super::{accessible, bars, byte_unit, cluster_label, lines, num, Bar, BarSeries, Bars, Chart};
use super::{Curve, Lines, Point};
use crate::bench::kinds::{self, unit_of};
use crate::bench::relative::Source;
use crate::bench::results::{BenchReport, ConfigResult, WorkloadResult};
use crate::report::inputs::Named;
use crate::usage::{ConfigReport, UsageReport};

/// Width of the charts that sit beside a table, and of the sweep panels.
const BAR_WIDTH: u32 = 560;
/// Grouped bars (several configs per workload).
const WIDE_WIDTH: u32 = 680;
const PANEL_WIDTH: u32 = 580;
const PANEL_HEIGHT: u32 = 360;

/// `MB/s` or `files/s`: each workload says which its figure is.
pub fn unit(name: &str) -> &'static str {
    unit_of(name).label()
}

/// Is this a write workload (its device writes measure amplification)?
/// A name this fsfit does not know is not one.
pub fn is_write(name: &str) -> bool {
    use crate::bench::kinds::{phase_of, Phase};
    phase_of(name) == Some(Phase::Write)
}

/// `exfat:32K`, as the bench table names configs.
pub fn config_name(c: &ConfigResult) -> String {
    c.label()
}

/// A workload result with figures to show.
pub fn ok(w: &WorkloadResult) -> bool {
    w.error.is_none() && w.median_seconds > 0.0 && !w.runs.is_empty()
}

/// The host's median figure: MB/s or files/s.
pub fn throughput(w: &WorkloadResult) -> f64 {
    Source::Host.figure(w).unwrap_or(0.0)
}

/// Slowest and fastest repeat on the host, as rates.
pub fn spread(w: &WorkloadResult) -> Option<(f64, f64)> {
    Source::Host.spread(w)
}

/// How a chart of `src`'s figures begins its title: simulated ones say so.
pub fn source_title(src: &Source) -> String {
    match src {
        Source::Host => String::new(),
        Source::Sim(k) => format!("Simulated on {}: ", k.label()),
    }
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Device write amplification: bytes the block device wrote over the bytes
/// the workload asked to write, the median over the repeats. None without
/// device counters or bytes.
pub fn amplification(w: &WorkloadResult) -> Option<f64> {
    if w.bytes == 0
        || w.flags
            .iter()
            .any(|f| f == crate::bench::flags::NO_DEVICE_COUNTERS)
    {
        return None;
    }
    let mut v: Vec<f64> = w
        .runs
        .iter()
        .map(|r| r.device_write_bytes as f64 / w.bytes as f64)
        .collect();
    median(&mut v)
}

/// The median device bytes written per run.
pub fn device_written(w: &WorkloadResult) -> Option<f64> {
    let mut v: Vec<f64> = w.runs.iter().map(|r| r.device_write_bytes as f64).collect();
    median(&mut v)
}

/// How much `b` differs from `a`, in % of `a`.
pub fn diff_pct(a: f64, b: f64) -> Option<f64> {
    (a > 0.0 && b.is_finite()).then(|| (b - a) / a * 100.0)
}

/// Workload names in the order the run met them.
pub fn workload_names(r: &BenchReport) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in &r.results {
        for w in &c.workloads {
            if !names.contains(&w.name) {
                names.push(w.name.clone());
            }
        }
    }
    names
}

pub fn find<'a>(c: &'a ConfigResult, name: &str) -> Option<&'a WorkloadResult> {
    c.workloads.iter().find(|w| w.name == name && ok(w))
}

/// One cluster-size sweep panel: a line chart at panel size, finished.
fn panel(
    id: String,
    title: String,
    desc: String,
    series: Vec<Curve>,
    y_desc: String,
    y_from_zero: bool,
    reference: Option<(f64, String)>,
) -> Chart {
    let svg = lines(&Lines {
        title: title.clone(),
        series,
        y_desc,
        y_from_zero,
        reference,
        width: PANEL_WIDTH,
        height: PANEL_HEIGHT,
    });
    finish(id, title, desc, svg)
}

fn finish(id: String, title: String, desc: String, svg: String) -> Chart {
    Chart {
        svg: accessible(&svg, &id, &title, &desc),
        id,
        title,
        desc,
    }
}

/// One workload: each config's median, whiskers from its slowest to its
/// fastest repeat.
pub fn workload_chart(id: &str, r: &BenchReport, name: &str, src: &Source) -> Option<Chart> {
    let u = unit(name);
    let mut groups = Vec::new();
    let mut bars_v = Vec::new();
    let mut said = Vec::new();
    for c in &r.results {
        let Some(w) = find(c, name) else { continue };
        let Some(v) = src.figure(w) else { continue };
        let runs = src.run_seconds(w).len();
        let sp = src.spread(w);
        groups.push(config_name(c));
        bars_v.push(Some(Bar {
            value: v,
            whisker: sp.filter(|_| runs > 1),
        }));
        said.push(match sp {
            Some((a, z)) if runs > 1 => format!(
                "{} {} {u} (slowest run {}, fastest {})",
                config_name(c),
                num(v),
                num(a),
                num(z)
            ),
            _ => format!("{} {} {u}", config_name(c), num(v)),
        });
    }
    if groups.is_empty() {
        return None;
    }
    let title = format!("{}{name}: {u} per config", source_title(src));
    let desc = format!(
        "{}Median {u} of {name} over {} per config; whiskers span the slowest to the fastest run. {}.",
        source_title(src),
        crate::units::count(u64::from(r.repeat), "run"),
        said.join("; ")
    );
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series: vec![BarSeries {
            name: u.to_string(),
            color: 0,
            bars: bars_v,
        }],
        x_desc: format!("{name}, median {u} (higher is faster)"),
        unit: format!(" {u}"),
        signed: false,
        reference: None,
        width: BAR_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// 001's normalised bars: each config's speed relative to the baseline's, per
/// workload (above 100 %: faster).
pub fn relative_chart(id: &str, r: &BenchReport, src: &Source) -> Option<Chart> {
    if r.results.len() < 2 {
        return None;
    }
    let names = workload_names(r);
    let mut groups = Vec::new();
    let mut series: Vec<BarSeries> = r
        .results
        .iter()
        .enumerate()
        .map(|(i, c)| BarSeries {
            name: config_name(c),
            color: i,
            bars: Vec::new(),
        })
        .collect();
    let mut said = Vec::new();
    for n in &names {
        let vals: Vec<Option<f64>> = r
            .results
            .iter()
            .map(|c| find(c, n).and_then(|w| src.relative_pct(w)))
            .collect();
        if vals.iter().flatten().count() < 2 {
            continue;
        }
        groups.push(n.clone());
        let mut parts = Vec::new();
        for (s, v) in series.iter_mut().zip(&vals) {
            s.bars.push(v.map(|value| Bar {
                value,
                whisker: None,
            }));
            if let Some(v) = v {
                parts.push(format!("{} {} %", s.name, num(*v)));
            }
        }
        said.push(format!("{n}: {}", parts.join(", ")));
    }
    if groups.is_empty() {
        return None;
    }
    let base = if r.baseline.is_empty() {
        config_name(&r.results[0])
    } else {
        r.baseline.clone()
    };
    let title = format!("{}Speed relative to {base}", source_title(src));
    let desc = format!(
        "{}Each config's median time on each workload against the baseline {base}'s, in % (above 100 %: faster than {base}). {}.",
        source_title(src),
        said.join("; ")
    );
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series,
        x_desc: format!("Speed relative to {base} (%; above 100: faster)"),
        unit: " %".into(),
        signed: false,
        reference: Some((100.0, format!("{base} = 100 %"))),
        width: WIDE_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// Device bytes written over bytes asked, per config and write workload.
pub fn amplification_chart(id: &str, r: &BenchReport) -> Option<Chart> {
    let names: Vec<String> = workload_names(r)
        .into_iter()
        .filter(|n| is_write(n))
        .collect();
    let mut groups = Vec::new();
    let mut series: Vec<BarSeries> = r
        .results
        .iter()
        .enumerate()
        .map(|(i, c)| BarSeries {
            name: config_name(c),
            color: i,
            bars: Vec::new(),
        })
        .collect();
    let mut said = Vec::new();
    for n in &names {
        let vals: Vec<Option<f64>> = r
            .results
            .iter()
            .map(|c| find(c, n).and_then(amplification))
            .collect();
        if vals.iter().flatten().count() == 0 {
            continue;
        }
        groups.push(n.clone());
        let mut parts = Vec::new();
        for (s, v) in series.iter_mut().zip(&vals) {
            s.bars.push(v.map(|value| Bar {
                value,
                whisker: None,
            }));
            if let Some(v) = v {
                parts.push(format!("{} {}×", s.name, num(*v)));
            }
        }
        said.push(format!("{n}: {}", parts.join(", ")));
    }
    if groups.is_empty() {
        return None;
    }
    let title = "Device write amplification".to_string();
    let desc = format!(
        "Bytes the block device wrote ({}) over the bytes each write workload asked for, median of the runs; 1× is exactly what was asked, more is metadata, journal and partial-cluster writes. {}.",
        if r.target.counters.is_empty() {
            "its own counters".to_string()
        } else {
            format!("counters of {}", r.target.counters)
        },
        said.join("; ")
    );
    let series = if series.len() == 1 {
        series
    } else {
        series
            .into_iter()
            .filter(|s| s.bars.iter().any(Option::is_some))
            .collect()
    };
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series,
        x_desc: "Device bytes written / bytes asked (×)".into(),
        unit: "×".into(),
        signed: false,
        reference: Some((1.0, "1× = as asked".into())),
        width: WIDE_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// The contiguous and fragmented workloads compared, in this order.
pub const FRAG: [&str; 4] = [
    kinds::SINGLE_WRITE.name,
    kinds::FRAGMENTED_WRITE.name,
    kinds::SINGLE_READ.name,
    kinds::FRAGMENTED_READ.name,
];

/// Fragmented against contiguous: per config, single-write/read against
/// fragmented-write/read.
pub fn fragmentation_chart(id: &str, r: &BenchReport) -> Option<Chart> {
    let mut groups = Vec::new();
    let mut series: Vec<BarSeries> = FRAG
        .iter()
        .enumerate()
        .map(|(i, n)| BarSeries {
            name: n.to_string(),
            color: [0, 3, 2, 4][i],
            bars: Vec::new(),
        })
        .collect();
    let mut said = Vec::new();
    for c in &r.results {
        let w: Vec<Option<&WorkloadResult>> = FRAG.iter().map(|n| find(c, n)).collect();
        let pair = |a: usize, b: usize| w[a].is_some() && w[b].is_some();
        if !(pair(0, 1) || pair(2, 3)) {
            continue;
        }
        groups.push(config_name(c));
        let mut parts = Vec::new();
        for (s, w) in series.iter_mut().zip(&w) {
            s.bars.push(w.map(|w| Bar {
                value: throughput(w),
                whisker: spread(w).filter(|_| w.runs.len() > 1),
            }));
            if let Some(w) = w {
                parts.push(format!("{} {} MB/s", s.name, num(throughput(w))));
            }
        }
        said.push(format!("{}: {}", config_name(c), parts.join(", ")));
    }
    if groups.is_empty() {
        return None;
    }
    let series: Vec<BarSeries> = series
        .into_iter()
        .filter(|s| s.bars.iter().any(Option::is_some))
        .collect();
    let title = "Fragmented against contiguous".to_string();
    let desc = format!(
        "Median MB/s writing and reading one file into a fragmented volume (fragmented-write, fragmented-read) against one file on an empty volume (single-write, single-read), per config; whiskers span the runs. {}.",
        said.join("; ")
    );
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series,
        x_desc: "Median MB/s (higher is faster)".into(),
        unit: " MB/s".into(),
        signed: false,
        reference: None,
        width: WIDE_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// Filesystems in the order the inputs name them.
fn filesystems(bench: &[Named<BenchReport>], usage: &[Named<UsageReport>]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let names = bench
        .iter()
        .flat_map(|b| b.doc.results.iter().map(|c| c.fs.clone()))
        .chain(
            usage
                .iter()
                .flat_map(|u| u.doc.configs.iter().map(|c| c.fs.clone())),
        );
    for n in names {
        if !v.contains(&n) {
            v.push(n);
        }
    }
    v
}

/// Points at distinct cluster sizes (the first per size), sorted.
fn distinct(mut pts: Vec<Point>) -> Vec<Point> {
    pts.sort_by_key(|p| p.x);
    pts.dedup_by_key(|p| p.x);
    pts
}

fn series_name(label: &str, what: &str, runs: usize) -> String {
    if runs > 1 {
        format!("{label}: {what}")
    } else {
        what.to_string()
    }
}

fn describe_curves(curves: &[Curve], fmt: &dyn Fn(f64) -> String) -> String {
    curves
        .iter()
        .map(|c| {
            format!(
                "{}: {}",
                c.name,
                c.points
                    .iter()
                    .map(|p| format!("{} {}", cluster_label(p.x), fmt(p.y)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One filesystem's cluster-size sweep: the panels of the exFAT article (000).
pub struct Sweep {
    pub fs: String,
    pub charts: Vec<Chart>,
}

/// For every filesystem measured at two or more cluster sizes in one input:
/// write speed and format time (bench), size on disk, wasted space and
/// overhead (usage), each against cluster size on a log2 axis.
pub fn sweeps(bench: &[Named<BenchReport>], usage: &[Named<UsageReport>]) -> Vec<Sweep> {
    let mut out = Vec::new();
    for fs in filesystems(bench, usage) {
        let slug = slug(&fs);
        let mut charts: Vec<Chart> = speed_panel(&fs, &slug, bench).into_iter().collect();
        charts.extend(usage_panels(&fs, &slug, usage));
        charts.extend(format_panel(&fs, &slug, bench));
        if !charts.is_empty() {
            out.push(Sweep { fs, charts });
        }
    }
    out
}

/// Change every point's y (into another unit).
fn scale_y(curves: &mut [Curve], f: impl Fn(f64) -> f64) {
    for c in curves.iter_mut() {
        for p in c.points.iter_mut() {
            p.y = f(p.y);
        }
    }
}

fn max_y(curves: &[Curve]) -> f64 {
    curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.y))
        .fold(0.0, f64::max)
}

/// Write speed: single-write (the article's one big file), large-write.
fn speed_panel(fs: &str, slug: &str, bench: &[Named<BenchReport>]) -> Option<Chart> {
    let mut speed: Vec<Curve> = Vec::new();
    for b in bench {
        for wl in ["single-write", "large-write"] {
            let pts = distinct(
                b.doc
                    .results
                    .iter()
                    .filter(|c| c.fs == fs)
                    .filter_map(|c| {
                        find(c, wl).map(|w| Point {
                            x: c.cluster_bytes,
                            y: throughput(w),
                            whisker: spread(w).filter(|_| w.runs.len() > 1),
                        })
                    })
                    .collect(),
            );
            if pts.len() >= 2 {
                speed.push(Curve {
                    name: series_name(&b.label, wl, bench.len()),
                    style: speed.len(),
                    points: pts,
                });
            }
        }
    }
    if speed.is_empty() {
        return None;
    }
    let title = format!("{fs}: write speed vs cluster size");
    let desc = format!(
        "Median MB/s writing one large file, per cluster size; whiskers span the runs. {}.",
        describe_curves(&speed, &|v| format!("{} MB/s", num(v)))
    );
    Some(panel(
        format!("sweep-{slug}-speed"),
        title,
        desc,
        speed,
        "Write speed (MB/s)".into(),
        true,
        None,
    ))
}

/// The usage inputs' curves for one filesystem, in bytes and percent.
#[derive(Default)]
struct UsageCurves {
    size: Vec<Curve>,
    wasted: Vec<Curve>,
    over: Vec<Curve>,
    /// Apparent size of each input's files.
    apparent: Vec<f64>,
    max_bytes: f64,
}

fn usage_curves(fs: &str, usage: &[Named<UsageReport>]) -> UsageCurves {
    let mut curves = UsageCurves::default();
    let n = usage.len();
    for u in usage {
        let cs: Vec<_> = u.doc.configs.iter().filter(|c| c.fs == fs).collect();
        let pts = |f: &dyn Fn(&ConfigReport) -> f64| {
            distinct(
                cs.iter()
                    .map(|c| Point {
                        x: c.cluster_bytes,
                        y: f(c),
                        whisker: None,
                    })
                    .collect(),
            )
        };
        let tree = pts(&|c| c.tree_bytes as f64);
        if tree.len() < 2 {
            continue;
        }
        let apparent = u.doc.tree.apparent_bytes as f64;
        curves.apparent.push(apparent);
        curves.max_bytes = tree
            .iter()
            .map(|p| p.y)
            .fold(curves.max_bytes, f64::max)
            .max(apparent);
        curves.size.push(Curve {
            name: series_name(&u.label, "size on disk", n),
            style: curves.size.len(),
            points: tree,
        });
        // Slack and metadata apart, and their sum; where a filesystem
        // keeps no metadata in the free space, slack is all of it.
        let meta = pts(&|c| c.metadata_bytes as f64);
        let parts: Vec<(&str, Vec<Point>)> = if meta.iter().all(|p| p.y == 0.0) {
            vec![("slack (metadata: none)", pts(&|c| c.slack_bytes as f64))]
        } else {
            vec![
                (
                    "slack + metadata",
                    pts(&|c| (c.slack_bytes + c.metadata_bytes) as f64),
                ),
                ("slack", pts(&|c| c.slack_bytes as f64)),
                ("metadata", meta),
            ]
        };
        for (what, points) in parts {
            curves.wasted.push(Curve {
                name: series_name(&u.label, what, n),
                style: curves.wasted.len(),
                points,
            });
        }
        let over = meaningful(pts(&|c| c.overhead_pct), &cs, u.doc.tree.apparent_bytes);
        if over.len() >= 2 {
            curves.over.push(Curve {
                name: series_name(&u.label, "overhead", n),
                style: curves.over.len(),
                points: over,
            });
        }
    }
    curves
}

/// The overhead points of the clusters where a percentage means
/// something (not for sparse files' unwritten holes, nor a few KiB of
/// data: usage::no_percentage decides).
fn meaningful(points: Vec<Point>, cs: &[&ConfigReport], apparent: u64) -> Vec<Point> {
    points
        .into_iter()
        .filter(|p| {
            cs.iter().any(|c| {
                c.cluster_bytes == p.x
                    && crate::usage::no_percentage(apparent, c.cannot_store_bytes, c.overhead_pct)
                        .is_none()
            })
        })
        .collect()
}

/// Size on disk, wasted space and overhead against cluster size.
fn usage_panels(fs: &str, slug: &str, usage: &[Named<UsageReport>]) -> Vec<Chart> {
    let UsageCurves {
        mut size,
        mut wasted,
        over,
        apparent,
        max_bytes,
    } = usage_curves(fs, usage);
    if size.is_empty() {
        return Vec::new();
    }
    let (div, un) = byte_unit(max_bytes);
    scale_y(&mut size, |y| y / div);
    let bytes_fmt = |v: f64| format!("{} {un}", num(v));
    let desc = format!(
        "Space a copy of the tree takes on a fresh {fs} volume, per cluster size. Apparent size of the files: {}. {}.",
        apparent
            .iter()
            .map(|a| bytes_fmt(a / div))
            .collect::<Vec<_>>()
            .join(", "),
        describe_curves(&size, &bytes_fmt)
    );
    let reference = (apparent.len() == 1)
        .then(|| (apparent[0] / div, "apparent size of the files".to_string()));
    let size_chart = panel(
        format!("sweep-{slug}-size"),
        format!("{fs}: size on disk vs cluster size"),
        desc,
        size,
        format!("Size on disk ({un})"),
        false,
        reference,
    );

    let (div, un) = byte_unit(max_y(&wasted));
    scale_y(&mut wasted, |y| y / div);
    let desc = format!(
        "Space beyond the files' own bytes: slack (unused tails of clusters) and metadata (directories, tables), per cluster size. {}.",
        describe_curves(&wasted, &|v| format!("{} {un}", num(v)))
    );
    let wasted_chart = panel(
        format!("sweep-{slug}-wasted"),
        format!("{fs}: wasted space vs cluster size"),
        desc,
        wasted,
        format!("Wasted space ({un})"),
        true,
        None,
    );

    if over.is_empty() {
        return vec![size_chart, wasted_chart];
    }
    let desc = format!(
        "Size on disk over the apparent size of the files, minus 100 % (the growth in size), per cluster size. {}.",
        describe_curves(&over, &|v| format!("{} %", num(v)))
    );
    let over_chart = panel(
        format!("sweep-{slug}-overhead"),
        format!("{fs}: overhead vs cluster size"),
        desc,
        over,
        "Overhead (% of apparent size)".into(),
        true,
        None,
    );
    vec![size_chart, wasted_chart, over_chart]
}

/// Time the mkfs tool took, against cluster size.
fn format_panel(fs: &str, slug: &str, bench: &[Named<BenchReport>]) -> Option<Chart> {
    let mut fmt: Vec<Curve> = Vec::new();
    for b in bench {
        let pts = distinct(
            b.doc
                .results
                .iter()
                .filter(|c| c.fs == fs && c.format_seconds > 0.0 && c.error.is_none())
                .map(|c| Point {
                    x: c.cluster_bytes,
                    y: c.format_seconds,
                    whisker: None,
                })
                .collect(),
        );
        if pts.len() >= 2 {
            fmt.push(Curve {
                name: series_name(&b.label, "mkfs", bench.len()),
                style: fmt.len(),
                points: pts,
            });
        }
    }
    if fmt.is_empty() {
        return None;
    }
    let (mul, un) = if max_y(&fmt) < 1.0 {
        (1000.0, "ms")
    } else {
        (1.0, "s")
    };
    scale_y(&mut fmt, |y| y * mul);
    let desc = format!(
        "Time the mkfs tool took to format the target, per cluster size. {}.",
        describe_curves(&fmt, &|v| format!("{} {un}", num(v)))
    );
    Some(panel(
        format!("sweep-{slug}-format"),
        format!("{fs}: format time vs cluster size"),
        desc,
        fmt,
        format!("Format time ({un})"),
        true,
        None,
    ))
}

/// One usage run: size on disk of the tree for every config.
pub fn usage_chart(id: &str, u: &UsageReport) -> Option<Chart> {
    if u.configs.is_empty() {
        return None;
    }
    let max = u
        .configs
        .iter()
        .map(|c| c.tree_bytes as f64)
        .fold(u.tree.apparent_bytes as f64, f64::max);
    let (div, un) = byte_unit(max);
    let groups: Vec<String> = u
        .configs
        .iter()
        .map(|c| format!("{}:{}", c.fs, crate::units::short(c.cluster_bytes)))
        .collect();
    let title = "Size on disk per config".to_string();
    let desc = format!(
        "Space a copy of the tree ({}, {} {un} apparent) takes on each filesystem and cluster size. {}.",
        crate::units::count(u.tree.files, "file"),
        num(u.tree.apparent_bytes as f64 / div),
        groups
            .iter()
            .zip(&u.configs)
            .map(|(g, c)| format!("{g} {} {un}", num(c.tree_bytes as f64 / div)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series: vec![BarSeries {
            name: "size on disk".into(),
            color: 2,
            bars: u
                .configs
                .iter()
                .map(|c| {
                    Some(Bar {
                        value: c.tree_bytes as f64 / div,
                        whisker: None,
                    })
                })
                .collect(),
        }],
        x_desc: format!("Size on disk ({un}; shorter is better)"),
        unit: format!(" {un}"),
        signed: false,
        reference: Some((
            u.tree.apparent_bytes as f64 / div,
            "apparent size".to_string(),
        )),
        width: WIDE_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// One row of a side-by-side comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    pub workload: String,
    pub config: String,
    pub a: f64,
    pub b: f64,
    pub pct: f64,
}

/// Median MB/s (or files/s) of the configs and workloads two runs share,
/// with how much the second differs from the first.
pub fn diff_rows(a: &BenchReport, b: &BenchReport) -> Vec<DiffRow> {
    let mut rows = Vec::new();
    for n in workload_names(a) {
        for ca in &a.results {
            let Some(cb) = b
                .results
                .iter()
                .find(|c| c.fs == ca.fs && c.cluster_bytes == ca.cluster_bytes)
            else {
                continue;
            };
            let (Some(wa), Some(wb)) = (find(ca, &n), find(cb, &n)) else {
                continue;
            };
            let (va, vb) = (throughput(wa), throughput(wb));
            if let Some(pct) = diff_pct(va, vb) {
                rows.push(DiffRow {
                    workload: n.clone(),
                    config: config_name(ca),
                    a: va,
                    b: vb,
                    pct,
                });
            }
        }
    }
    rows
}

pub fn diff_chart(id: &str, a: &Named<BenchReport>, b: &Named<BenchReport>) -> Option<Chart> {
    let rows = diff_rows(&a.doc, &b.doc);
    if rows.is_empty() {
        return None;
    }
    let mut groups: Vec<String> = Vec::new();
    let mut configs: Vec<String> = Vec::new();
    for r in &rows {
        if !groups.contains(&r.workload) {
            groups.push(r.workload.clone());
        }
        if !configs.contains(&r.config) {
            configs.push(r.config.clone());
        }
    }
    let series: Vec<BarSeries> = configs
        .iter()
        .enumerate()
        .map(|(i, c)| BarSeries {
            name: c.clone(),
            color: i,
            bars: groups
                .iter()
                .map(|g| {
                    rows.iter()
                        .find(|r| &r.workload == g && &r.config == c)
                        .map(|r| Bar {
                            value: r.pct,
                            whisker: None,
                        })
                })
                .collect(),
        })
        .collect();
    let title = format!("{} against {}: difference", b.label, a.label);
    let desc = format!(
        "Median MB/s or files/s of {} minus {}'s, in % of {}'s, per workload and config (positive: {} was faster). {}.",
        b.label,
        a.label,
        a.label,
        b.label,
        rows.iter()
            .map(|r| format!("{} {} {:+.1} %", r.workload, r.config, r.pct))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let svg = bars(&Bars {
        title: title.clone(),
        groups,
        series,
        x_desc: format!("Change from {} to {} (%)", a.label, b.label),
        unit: " %".into(),
        signed: true,
        reference: Some((0.0, "no change".into())),
        width: WIDE_WIDTH,
    });
    Some(finish(id.to_string(), title, desc, svg))
}

/// Lowercase letters, digits and dashes: for ids and file names.
pub fn slug(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            o.push(c.to_ascii_lowercase());
        } else if !o.ends_with('-') {
            o.push('-');
        }
    }
    o.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::results::Run;

    fn wl(name: &str, bytes: u64, files: u64, secs: &[f64], dev_w: &[u64]) -> WorkloadResult {
        let runs: Vec<Run> = secs
            .iter()
            .zip(dev_w)
            .map(|(&s, &d)| Run {
                seconds: s,
                device_write_bytes: d,
                ..Run::default()
            })
            .collect();
        let mut v = secs.to_vec();
        let med = median(&mut v).unwrap();
        WorkloadResult {
            name: name.into(),
            files,
            bytes,
            median_seconds: med,
            min_seconds: 0.0,
            max_seconds: 0.0,
            mb_per_s: bytes as f64 / 1e6 / med,
            files_per_s: files as f64 / med,
            cv_pct: 0.0,
            scale: None,
            rounds: None,
            flags: vec![],
            cpu_wait_pct: None,
            relative_pct: None,
            error: None,
            runs,
            simulated: vec![],
        }
    }

    #[test]
    fn throughput_spread_from_runs() {
        let w = wl("single-write", 10_000_000, 1, &[1.0, 2.0, 4.0], &[0, 0, 0]);
        assert_eq!(throughput(&w), 5.0);
        // slowest run 4 s = 2.5 MB/s, fastest 1 s = 10 MB/s
        assert_eq!(spread(&w), Some((2.5, 10.0)));
        let t = wl("tiny-write", 1000, 500, &[0.5, 1.0], &[0, 0]);
        assert_eq!(unit(&t.name), "files/s");
        assert_eq!(spread(&t), Some((500.0, 1000.0)));
    }

    #[test]
    fn amplification_is_median_device_over_asked() {
        let w = wl(
            "small-write",
            1_000_000,
            10,
            &[1.0, 1.0, 1.0],
            &[1_100_000, 1_300_000, 1_200_000],
        );
        assert!((amplification(&w).unwrap() - 1.2).abs() < 1e-12);
        assert_eq!(device_written(&w), Some(1_200_000.0));
        let mut n = w.clone();
        n.flags.push("no-device-counters".into());
        assert_eq!(amplification(&n), None);
        let z = wl("small-write", 0, 0, &[1.0], &[5]);
        assert_eq!(amplification(&z), None);
        assert!(is_write("fragmented-write") && is_write("tree-write"));
        assert!(!is_write("single-read") && !is_write("delete"));
    }

    #[test]
    fn side_by_side_difference() {
        assert_eq!(diff_pct(100.0, 110.0), Some(10.0));
        assert_eq!(diff_pct(200.0, 150.0), Some(-25.0));
        assert_eq!(diff_pct(0.0, 1.0), None);
        let cfg = |fs: &str, cl: u64, ws: Vec<WorkloadResult>| ConfigResult {
            fs: fs.into(),
            cluster_bytes: cl,
            driver: String::new(),
            format_seconds: 0.1,
            mount_policy: "server".into(),
            workloads: ws,
            ..Default::default()
        };
        let report = |results| BenchReport {
            schema: crate::bench::results::SCHEMA.into(),
            host: crate::bench::results::Host {
                kernel: String::new(),
                fsfit: String::new(),
                cpus: 1,
                lab: None,
            },
            target: crate::bench::results::TargetInfo {
                kind: "image".into(),
                path: String::new(),
                size_bytes: 0,
                model: None,
                bus: None,
                cold_cache: String::new(),
                counters: String::new(),
                loop_direct_io: None,
                backing_fs: None,
            },
            command: vec![],
            date: String::new(),
            scale: 1.0,
            repeat: 1,
            baseline: String::new(),
            results,
            skipped: vec![],
            error: None,
            priority: None,
            freed_memory: None,
            sim: Default::default(),
        };
        let a = report(vec![
            cfg(
                "ext4",
                4096,
                vec![wl("single-write", 100_000_000, 1, &[1.0], &[0])],
            ),
            cfg(
                "exfat",
                32768,
                vec![wl("single-write", 100_000_000, 1, &[2.0], &[0])],
            ),
        ]);
        let b = report(vec![
            cfg(
                "exfat",
                32768,
                vec![wl("single-write", 100_000_000, 1, &[1.0], &[0])],
            ),
            cfg(
                "ntfs",
                4096,
                vec![wl("single-write", 100_000_000, 1, &[1.0], &[0])],
            ),
        ]);
        // Only the shared config is compared: 50 MB/s -> 100 MB/s is +100 %.
        assert_eq!(
            diff_rows(&a, &b),
            vec![DiffRow {
                workload: "single-write".into(),
                config: "exfat:32K".into(),
                a: 50.0,
                b: 100.0,
                pct: 100.0
            }]
        );
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Run 1: b1.json"), "run-1-b1-json");
        assert_eq!(slug("exfat"), "exfat");
    }
}
