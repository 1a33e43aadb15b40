//! fsfit: parse the command line, dispatch, map errors to exit codes.

use fsfit::{advise, bench, cli, device, info, report, units, usage};

use clap::Parser;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Why fsfit stopped: bad input (exit 2) or a failure while working (exit 1).
enum Failure {
    Input(String),
    Work(String),
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.cmd {
        cli::Command::Usage(ref a) => run_usage(a, cli.quiet),
        cli::Command::Bench(ref a) => run_bench(a, cli.quiet),
        cli::Command::Cleanup => run_cleanup(),
        cli::Command::Advise(ref a) => run_advise(a, cli.quiet),
        cli::Command::Info(ref a) => run_info(a),
        cli::Command::Report(ref a) => run_report(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Work(m)) if m == "interrupted" => {
            eprintln!("fsfit: interrupted; everything fsfit mounted and attached was released");
            ExitCode::from(130)
        }
        Err(Failure::Input(m)) => {
            eprintln!("fsfit: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Work(m)) => {
            eprintln!("fsfit: {m}");
            ExitCode::from(1)
        }
    }
}

/// A spinner on stderr counting files, shown only on a terminal.
fn spinner(
    quiet: bool,
    counter: Arc<AtomicU64>,
) -> (Arc<AtomicBool>, Option<std::thread::JoinHandle<()>>) {
    let done = Arc::new(AtomicBool::new(false));
    if quiet {
        return (done, None);
    }
    let d = done.clone();
    let h = std::thread::spawn(move || {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(
            indicatif::ProgressStyle::with_template("{spinner} scanning: {msg} files ({elapsed})")
                .unwrap(),
        );
        while !d.load(Ordering::Relaxed) {
            pb.set_message(counter.load(Ordering::Relaxed).to_string());
            pb.tick();
            std::thread::sleep(Duration::from_millis(100));
        }
        pb.finish_and_clear();
    });
    (done, Some(h))
}

fn run_usage(a: &cli::UsageArgs, quiet: bool) -> Result<(), Failure> {
    let volume =
        units::parse_size(&a.volume).map_err(|e| Failure::Input(format!("--volume: {e}")))?;
    let r = usage_report(a, volume, quiet)?;
    if let Some(path) = &a.report {
        // Read back through the JSON contract, as `fsfit report` would.
        let input =
            report::html::parse(report::json::usage(&r).as_bytes()).map_err(Failure::Work)?;
        let mut inputs = report::html::Inputs::default();
        inputs.add("this run", "fsfit usage (this run)", input);
        write_report(&inputs, path, None)?;
    }
    let out = if a.json {
        report::json::usage(&r)
    } else if a.csv {
        report::csv::usage(&r)
    } else {
        report::table::usage(&r)
    };
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Work(format!("cannot write the output: {e}"))),
    }
}

/// Walk the tree once for every planned config; warnings go to stderr.
fn usage_report(
    a: &cli::UsageArgs,
    volume: u64,
    quiet: bool,
) -> Result<usage::UsageReport, Failure> {
    if volume < 1 << 20 {
        return Err(Failure::Input(format!(
            "--volume {}: too small to plan (at least 1M)",
            a.volume
        )));
    }
    let specs =
        a.fs.iter()
            .map(|s| usage::parse_fs_spec(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Input)?;
    let (configs, refused) = usage::plan(&specs, volume).map_err(Failure::Input)?;
    let paths = if a.paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        a.paths.clone()
    };
    for p in &paths {
        if let Err(e) = std::fs::metadata(p) {
            return Err(Failure::Input(format!("{}: {e}", p.display())));
        }
    }
    let threads = a
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

    let counter = Arc::new(AtomicU64::new(0));
    let (done, handle) = spinner(quiet, counter.clone());
    let result = usage::run(
        &paths,
        configs,
        refused,
        volume,
        &usage::UsageOptions {
            threads,
            cross_mounts: a.cross_mounts,
        },
        &counter,
    );
    done.store(true, Ordering::Relaxed);
    if let Some(h) = handle {
        let _ = h.join();
    }
    let r = result.map_err(Failure::Input)?;

    for e in &r.errors {
        eprintln!("fsfit: warning: {}: {}", e.path.display(), e.message);
    }
    if r.tree.errors > r.errors.len() as u64 {
        eprintln!(
            "fsfit: warning: {} more entries could not be read",
            r.tree.errors - r.errors.len() as u64
        );
    }
    if r.tree.non_utf8_names > 0 {
        eprintln!("fsfit: warning: {} names are not valid UTF-8 (FAT, exFAT, NTFS and UDF cannot store them as they are)", r.tree.non_utf8_names);
    }
    if r.tree.control_char_names > 0 {
        eprintln!(
            "fsfit: warning: {} names hold a newline or another control character",
            r.tree.control_char_names
        );
    }

    Ok(r)
}

fn run_cleanup() -> Result<(), Failure> {
    let said = device::state::cleanup();
    if said.is_empty() {
        println!("nothing to clean up");
    }
    for l in &said {
        println!("{l}");
    }
    if said.iter().any(|l| l.starts_with("could not")) {
        return Err(Failure::Work(
            "some things could not be released (see above)".into(),
        ));
    }
    Ok(())
}

fn run_bench(a: &cli::BenchArgs, quiet: bool) -> Result<(), Failure> {
    let scale = if a.quick { bench::QUICK_SCALE } else { a.scale };
    if !(scale > 0.0 && scale <= 100.0) {
        return Err(Failure::Input(format!(
            "--scale {scale}: choose a number above 0 and at most 100"
        )));
    }
    let all = bench::workloads::all();
    let selected: Vec<&'static dyn bench::workloads::Workload> = if a.workloads.is_empty() {
        all.clone()
    } else {
        let mut v = Vec::new();
        for n in &a.workloads {
            let w = bench::workloads::by_name(n.trim()).ok_or_else(|| {
                Failure::Input(format!(
                    "unknown workload '{n}' (choose from {})",
                    all.iter().map(|w| w.name()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            v.push(w);
        }
        // Run them in the canonical order, so reads follow their writes.
        all.iter()
            .copied()
            .filter(|w| v.iter().any(|x| x.name() == w.name()))
            .collect()
    };
    if a.list {
        for w in &all {
            println!("{:<17} {}", w.name(), w.describe(scale));
        }
        return Ok(());
    }
    let specs =
        a.fs.iter()
            .map(|s| usage::parse_fs_spec(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Input)?;
    let size = a
        .size
        .as_deref()
        .map(units::parse_size)
        .transpose()
        .map_err(|e| Failure::Input(format!("--size: {e}")))?;
    let target = if let Some(d) = &a.dir {
        bench::TargetSpec::Dir(d.clone())
    } else if let Some(dev) = &a.device {
        bench::TargetSpec::Device {
            dev: dev.clone(),
            yes_erase: a.yes_erase.clone(),
            allow_fixed: a.allow_fixed,
        }
    } else if let Some(p) = &a.image {
        bench::TargetSpec::Image {
            path: p.clone(),
            size,
        }
    } else {
        bench::TargetSpec::TempImage { size }
    };
    if !matches!(target, bench::TargetSpec::Dir(_)) && unsafe { libc::geteuid() } != 0 {
        return Err(Failure::Input(
            "fsfit bench formats and mounts volumes: run it as root (sudo), or use --dir on a mounted directory".into(),
        ));
    }
    let _ = ctrlc::set_handler(|| {
        if bench::CANCEL.swap(true, Ordering::SeqCst) {
            eprintln!("\nfsfit: still cleaning up; run `fsfit cleanup` if it is killed");
        } else {
            eprintln!("\nfsfit: stopping after cleaning up...");
        }
    });
    let opts = bench::Options {
        target,
        specs,
        driver: a.driver,
        workloads: selected,
        scale,
        repeat: a.repeat,
        quiet,
        baseline: a.baseline.clone(),
        command: std::env::args().collect(),
    };
    let report = bench::run(&opts).map_err(Failure::Work)?;
    if let Some(path) = &a.json {
        report::write_atomic(path, report::json::bench(&report).as_bytes())
            .map_err(Failure::Work)?;
    }
    print!("{}", report::bench_table::bench(&report));
    if let Some(path) = &a.report {
        let mut inputs = report::html::Inputs::default();
        let source = match &a.json {
            Some(j) => format!("{} (this run)", j.display()),
            None => "fsfit bench (this run)".to_string(),
        };
        inputs.add(
            "this run",
            &source,
            report::html::Input::Bench(Box::new(report)),
        );
        write_report(&inputs, path, None)?;
    }
    Ok(())
}

fn run_report(a: &cli::ReportArgs) -> Result<(), Failure> {
    let mut inputs = report::html::Inputs::default();
    for f in &a.files {
        let input = report::html::load(f).map_err(Failure::Input)?;
        let label = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| f.display().to_string());
        inputs.add(&label, &f.display().to_string(), input);
    }
    write_report(&inputs, &a.output, a.png.as_deref())
}

/// The HTML page (atomically), and with `png` every chart as SVG and PNG.
fn write_report(
    inputs: &report::html::Inputs,
    path: &std::path::Path,
    png: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let command: Vec<String> = std::env::args().collect();
    let page = report::html::render(inputs, &command);
    report::write_atomic(path, page.html.as_bytes()).map_err(Failure::Work)?;
    if let Some(dir) = png {
        let (_, warning) = report::png::write(dir, &page.charts).map_err(Failure::Work)?;
        if let Some(w) = warning {
            eprintln!("fsfit: warning: {w}");
        }
    }
    Ok(())
}

fn run_advise(a: &cli::AdviseArgs, quiet: bool) -> Result<(), Failure> {
    let volume =
        units::parse_size(&a.volume).map_err(|e| Failure::Input(format!("--volume: {e}")))?;
    let mut systems = Vec::new();
    for s in &a.systems {
        systems.push(advise::systems::by_name(s.trim()).ok_or_else(|| {
            Failure::Input(format!(
                "unknown system '{s}' for --for (choose from {})",
                advise::systems::names().join(", ")
            ))
        })?);
    }
    if a.max_overhead.is_nan() || a.max_overhead < 0.0 {
        return Err(Failure::Input(
            "--max-overhead: give a percentage, 0 or more".into(),
        ));
    }
    let bench = match &a.bench {
        None => None,
        Some(p) => {
            let bytes =
                std::fs::read(p).map_err(|e| Failure::Input(format!("{}: {e}", p.display())))?;
            let r: bench::results::BenchReport = serde_json::from_slice(&bytes).map_err(|e| {
                Failure::Input(format!("{}: not fsfit bench results: {e}", p.display()))
            })?;
            if r.schema != bench::results::SCHEMA {
                return Err(Failure::Input(format!(
                    "{}: schema {} is not {}",
                    p.display(),
                    r.schema,
                    bench::results::SCHEMA
                )));
            }
            Some(r)
        }
    };
    let mut paths = if a.paths.is_empty() {
        vec![std::path::PathBuf::from(".")]
    } else {
        a.paths.clone()
    };
    paths.dedup();
    let usage_args = cli::UsageArgs {
        paths,
        fs: Vec::new(),
        volume: a.volume.clone(),
        json: false,
        csv: false,
        threads: a.threads,
        cross_mounts: false,
        report: None,
    };
    let r = usage_report(&usage_args, volume, quiet)?;
    let advice = advise::advise(&r, bench.as_ref(), &systems, a.max_overhead);
    let mut advice = advice;
    if let Some(c) = &advice.choice {
        advice.commands = Some(advise::commands(&c.fs, c.cluster_bytes, &a.label));
    }
    let out = if a.json {
        let mut s = serde_json::to_string_pretty(&advice).expect("advice serializes");
        s.push('\n');
        s
    } else {
        report::advice::text(&advice)
    };
    print!("{out}");
    if advice.choice.is_none() {
        return Err(Failure::Work(
            "no filesystem fits these constraints (see the rejected list)".into(),
        ));
    }
    Ok(())
}

fn run_info(a: &cli::InfoArgs) -> Result<(), Failure> {
    if std::fs::symlink_metadata(&a.target).is_err() {
        return Err(Failure::Input(format!(
            "{}: no such file, device or directory",
            a.target.display()
        )));
    }
    let r = info::inspect::inspect(&a.target, a.max_files).map_err(Failure::Work)?;
    if a.json {
        let mut s = serde_json::to_string_pretty(&r).expect("info serializes");
        s.push('\n');
        print!("{s}");
    } else {
        print!("{}", report::info::text(&r));
    }
    if r.volume.is_none() && r.partitions.is_empty() && r.mounted.is_none() {
        return Err(Failure::Work(format!(
            "{}: {}",
            a.target.display(),
            r.volume_error
                .as_deref()
                .unwrap_or("no filesystem recognised")
        )));
    }
    Ok(())
}
