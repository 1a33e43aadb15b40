//! `fsfit bench`: format, mount and measure every config.

use crate::bench::{self, workloads::Workload};
use crate::cli::BenchArgs;
#[cfg(target_os = "linux")]
use crate::device::target::TargetSpec;
use crate::{report, Error, Result};
use std::path::PathBuf;

pub struct Options {
    pub bench: bench::Options,
    /// Print the workloads and stop.
    pub list: bool,
    /// Print the flash profiles and stop.
    pub list_profiles: bool,
    /// `--list-profiles --sources`: each parameter with where it comes from.
    pub sources: bool,
    pub json: Option<PathBuf>,
    pub report: Option<PathBuf>,
}

impl Options {
    pub fn new(a: &BenchArgs, quiet: bool) -> Result<Options> {
        let scale = if a.quick { bench::QUICK_SCALE } else { a.scale };
        if !(scale > 0.0 && scale <= 100.0) {
            return Err(Error::input(format!(
                "--scale {scale}: choose a number above 0 and at most 100"
            )));
        }
        #[cfg(target_os = "linux")]
        needs_root(a)?;
        // Where the results go must exist before hours are spent measuring.
        super::output_folders_exist([&a.json, &a.report])?;
        if let Some(b) = &a.baseline {
            if let Some((_, c)) = b.split_once(':') {
                crate::units::parse_size(c)
                    .map_err(|e| Error::input(format!("--baseline {b}: {e}")))?;
            }
        }
        let runner = bench_options(a, quiet, scale)?;
        // An image --size cannot hold the workloads: refused before any
        // file or folder is made.
        #[cfg(target_os = "linux")]
        if !a.list && !a.list_profiles {
            bench::check_given_size(&runner)?;
        }
        Ok(Options {
            bench: runner,
            list_profiles: a.list_profiles,
            sources: a.sources,
            list: a.list,
            json: a.json.clone(),
            report: a.report.clone(),
        })
    }
}

/// Formatting and mounting need root; `--dir` and the listings do not.
#[cfg(target_os = "linux")]
fn needs_root(a: &BenchArgs) -> Result<()> {
    if !a.list && !a.list_profiles && a.dir.is_none() && !crate::device::is_root() {
        return Err(Error::input(
            "fsfit bench formats and mounts volumes: run it as root (sudo), or use --dir on a mounted directory",
        ));
    }
    Ok(())
}

/// The runner's options: any target on Linux.
#[cfg(target_os = "linux")]
fn bench_options(a: &BenchArgs, quiet: bool, scale: f64) -> Result<bench::Options> {
    Ok(bench::Options {
        target: target(a),
        specs: a.fs.clone(),
        driver: a.driver,
        workloads: workloads(&a.workloads)?,
        scale,
        min_seconds: min_seconds(a),
        repeat: a.repeat,
        settle: settle(a),
        quiet,
        baseline: a.baseline.clone(),
        command: std::env::args().collect(),
        flash: flash(a)?,
        mount_policy: a.mount_policy,
    })
}

/// On Windows: a mounted drive's folder (`--dir E:\`), measured as it is;
/// formatting runs and the block trace `--flash` replays are Linux's.
#[cfg(windows)]
fn bench_options(a: &BenchArgs, quiet: bool, scale: f64) -> Result<bench::Options> {
    let linux_only = |what: &str| {
        Error::input(format!(
            "{what} runs on Linux only: on Windows fsfit bench measures a mounted drive \
             without formatting it (--dir E:\\)"
        ))
    };
    if !a.flash.is_empty() {
        return Err(linux_only(
            "--flash (a block trace of the drive fsfit formats)",
        ));
    }
    if let Some(b) = &a.baseline {
        return Err(Error::input(format!(
            "--baseline {b}: --dir runs one config, there is nothing to compare"
        )));
    }
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None if a.list || a.list_profiles => PathBuf::new(),
        None => return Err(linux_only("formatting an image or a device")),
    };
    Ok(bench::Options {
        dir,
        workloads: workloads(&a.workloads)?,
        scale,
        min_seconds: min_seconds(a),
        repeat: a.repeat,
        settle: settle(a),
        quiet,
        command: std::env::args().collect(),
    })
}

/// Whether `--quick` times this run by the host's clock (sizing by time,
/// more runs while the spread settles). Not with --flash, whose figures
/// are simulated (their spread is the model's, not the machine's, and
/// they last seconds on a stick at --quick's scale already), nor in a lab
/// VM, whose figures are correctness checks, never speeds: there the
/// growth and the repeats would only cost time (minutes of emulated CPU).
fn quick_by_time(a: &BenchArgs) -> bool {
    a.quick && a.flash.is_empty() && bench::measure::lab().is_none()
}

/// More runs while a figure's spread has not settled (`--quick`).
fn settle(a: &BenchArgs) -> Option<bench::settle::Settle> {
    quick_by_time(a).then_some(bench::settle::QUICK)
}

/// `--min-time`, or what `--quick` implies.
fn min_seconds(a: &BenchArgs) -> f64 {
    a.min_time.unwrap_or(if quick_by_time(a) {
        bench::QUICK_MIN_SECONDS
    } else {
        0.0
    })
}

/// The named workloads (all when none is named), in the canonical order so
/// reads follow their writes.
fn workloads(names: &[String]) -> Result<Vec<&'static dyn Workload>> {
    let all = bench::workloads::all();
    if names.is_empty() {
        return Ok(all);
    }
    let mut v = Vec::new();
    for n in names {
        let w = bench::workloads::by_name(n.trim()).ok_or_else(|| {
            Error::input(format!(
                "unknown workload '{n}' (choose from {})",
                all.iter().map(|w| w.name()).collect::<Vec<_>>().join(", ")
            ))
        })?;
        v.push(w);
    }
    Ok(all
        .iter()
        .copied()
        .filter(|w| v.iter().any(|x| x.name() == w.name()))
        .collect())
}

#[cfg(target_os = "linux")]
fn target(a: &BenchArgs) -> TargetSpec {
    if let Some(d) = &a.dir {
        TargetSpec::Dir(d.clone())
    } else if let Some(dev) = &a.device {
        TargetSpec::Device {
            dev: dev.clone(),
            yes_erase: a.yes_erase.clone(),
            allow_fixed: a.allow_fixed,
        }
    } else if let Some(p) = &a.image {
        TargetSpec::Image {
            path: p.clone(),
            size: a.size,
            overwrite: a.overwrite_image,
        }
    } else {
        TargetSpec::TempImage { size: a.size }
    }
}

/// `--flash a,b` and `--partition-offset`.
#[cfg(target_os = "linux")]
fn flash(a: &BenchArgs) -> Result<Option<bench::flash::FlashOptions>> {
    if a.flash.is_empty() {
        return Ok(None);
    }
    let mut partition_offsets = a.partition_offset.clone();
    if partition_offsets.is_empty() {
        partition_offsets.push(bench::flash::DEFAULT_PARTITION_OFFSET);
    }
    for (i, &o) in partition_offsets.iter().enumerate() {
        if o % 512 != 0 {
            return Err(Error::input(format!(
                "--partition-offset {o}: give a multiple of 512 bytes"
            )));
        }
        if partition_offsets[..i].contains(&o) {
            return Err(Error::input(format!("--partition-offset {o}: given twice")));
        }
    }
    Ok(Some(bench::flash::FlashOptions {
        profiles: crate::flash::profile::parse_list(&a.flash.join(","))?,
        partition_offsets,
    }))
}

/// `--list-profiles [--json]`: the JSON holds every name `--flash` takes
/// (each profile behind each port too, with the figures it would run at);
/// the table, the profiles and a line on the ports.
fn list_profiles(json: Option<&std::path::Path>, sources: bool) -> Result<()> {
    let all = crate::flash::profiles();
    if let Some(path) = json {
        let every = crate::flash::profile::every();
        let v: Vec<serde_json::Value> = every.iter().map(|p| p.listing()).collect();
        let mut text = serde_json::to_string_pretty(&v).expect("profiles serialize");
        text.push('\n');
        return super::emit(path, &text);
    }
    super::print_text(&report::text::flash::profiles(&all, sources))
}

pub fn run(o: &Options) -> Result<()> {
    if o.list_profiles {
        return list_profiles(o.json.as_deref(), o.sources);
    }
    if o.list {
        // Every workload, not only the selected ones.
        // Each with the unit its figure is in; print() survives `| head`.
        let all = bench::workloads::all();
        if let Some(path) = o.json.as_deref() {
            let v: Vec<serde_json::Value> = all
                .iter()
                .map(|w| {
                    serde_json::json!({
                        "name": w.name(),
                        "unit": w.unit().label(),
                        "scale": o.bench.scale,
                        "describe": w.describe(o.bench.scale),
                    })
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&v).expect("workloads serialize");
            text.push('\n');
            return super::emit(path, &text);
        }
        let mut out = String::new();
        for w in all {
            let unit = w.unit().label();
            out += &format!("{:<17} {unit:<8} {}\n", w.name(), w.describe(o.bench.scale));
        }
        return super::print_text(&out);
    }
    super::cancel_on_ctrl_c(|| {});
    let results = bench::run(&o.bench)?;
    // Written also when the run stopped after measuring: what was measured,
    // and why it stopped.
    if let Some(path) = &o.json {
        super::emit(path, &report::json::bench(&results))?;
    }
    let table = report::text::bench::bench(&results);
    match o.json.as_deref() {
        Some(p) if super::is_stdout(p) => super::print_to_stderr(&table)?,
        _ => super::print_text(&table)?,
    }
    let configs = results.results.len();
    let ran = results.results.iter().filter(|r| r.error.is_none()).count();
    // Ctrl-C is known by the flag the handler set, not by the error's text.
    match results.error.as_deref() {
        Some(_) if crate::cancel::requested() => return Err(Error::Interrupted),
        Some(e) => return Err(Error::work(e)),
        None => {}
    }
    if let Some(path) = &o.report {
        let mut inputs = report::inputs::Inputs::default();
        let source = match o.json.as_deref().filter(|j| !super::is_stdout(j)) {
            Some(j) => format!("{} (this run)", j.display()),
            None => "fsfit bench (this run)".to_string(),
        };
        inputs.add(
            "this run",
            &source,
            report::inputs::Input::Bench(Box::new(results)),
        );
        super::report::write(&inputs, path, None)?;
    }
    super::some_config_ran(ran, configs)
}
