//! `fsfit advise`: walk the tree, measure the candidates on the target when
//! there is one (inside the budget), rank, print the choice.

use super::usage::Walk;
#[cfg(target_os = "linux")]
use crate::advise::measure::Measure;
use crate::advise::{self, systems::System};
use crate::bench::results::{BenchReport, SCHEMA as BENCH_SCHEMA};
use crate::cli::AdviseArgs;
#[cfg(target_os = "linux")]
use crate::device::target::TargetSpec;
use crate::{report, Error, Result};
use std::path::PathBuf;

/// Time for measuring when --budget is not given.
const DEFAULT_BUDGET: std::time::Duration = std::time::Duration::from_secs(600);

/// Where the candidates are measured.
pub enum Target {
    Device {
        dev: String,
        yes_erase: Option<String>,
        allow_fixed: bool,
    },
    Image {
        path: PathBuf,
        /// `--overwrite-image`: format a file fsfit did not make.
        overwrite: bool,
    },
}

pub struct Options {
    pub walk: Walk,
    pub volume: u64,
    /// No --volume, --device or --image: the volume is assumed.
    pub volume_assumed: bool,
    pub systems: Vec<&'static System>,
    pub max_overhead: f64,
    pub fill: Option<u64>,
    pub bench: Option<BenchReport>,
    /// What `--crash` results say, per filesystem and cluster.
    pub crash: Vec<advise::Robustness>,
    pub target: Option<Target>,
    pub budget: std::time::Duration,
    pub label: String,
    /// `-`: print the JSON instead of the text.
    pub json: Option<PathBuf>,
    /// Where measured figures come from, for the reasons.
    pub measured_on: String,
    /// `--flash PROFILE`: simulate speeds on it when nothing is measured.
    pub drive: Option<String>,
    /// `--format DEV`: format the choice on it (with --yes-erase).
    pub format: Option<(PathBuf, Option<String>, bool)>,
    /// `--mount-policy`, else the one `--for` implies.
    pub mount_policy: advise::Policy,
    /// `--synthetic`: no traced copy of a sample, even where one could run.
    pub synthetic: bool,
    /// `--verbose`: the text explains the ranking too.
    pub verbose: bool,
}

/// The `--for` systems, each known by name.
fn systems(a: &AdviseArgs) -> Result<Vec<&'static System>> {
    a.systems
        .iter()
        .map(|s| {
            advise::systems::by_name(s.trim()).ok_or_else(|| {
                Error::input(format!(
                    "unknown system '{s}' for --for (choose from {})",
                    advise::systems::names().join(", ")
                ))
            })
        })
        .collect()
}

impl Options {
    pub fn new(a: &AdviseArgs) -> Result<Options> {
        let systems = systems(a)?;
        check(a)?;
        let bench = a.bench.as_deref().map(read_bench).transpose()?;
        let mut reports = Vec::new();
        for p in &a.crash {
            reports.push(read_crash(p)?);
        }
        let crash = robustness(&reports);
        let mut walk = Walk::new(&a.tree, false)?;
        walk.appledouble = a.appledouble;
        // The volume is the target's size.
        let (target, volume, measured_on) = target_of(a)?;
        if let Some(fill) = a.fill.filter(|&f| f > volume) {
            return Err(Error::input(format!(
                "--fill {}: more than the {} volume holds",
                crate::units::iec(fill),
                crate::units::iec(volume)
            )));
        }
        label_fits_some(&systems, volume, &a.label)?;
        let format = format_target(a)?;
        #[cfg(target_os = "linux")]
        if (target.is_some() || format.is_some()) && !crate::device::is_root() {
            return Err(Error::input(
                "fsfit advise --device/--image formats and mounts volumes: run it as root (sudo)",
            ));
        }
        let mount_policy = match a.mount_policy {
            Some(p) => advise::Policy::new(p, "--mount-policy".to_string()),
            None => {
                let names: Vec<&str> = systems.iter().map(|s| s.name).collect();
                let (p, why) = crate::fs::policy::MountPolicy::implied_by(&names);
                advise::Policy::new(p, why)
            }
        };
        Ok(Options {
            mount_policy,
            walk,
            volume,
            volume_assumed: target.is_none() && a.volume.volume.is_none(),
            systems,
            max_overhead: a.max_overhead,
            fill: a.fill,
            bench,
            crash,
            target,
            budget: a.budget.unwrap_or(DEFAULT_BUDGET),
            label: a.label.clone(),
            json: a.json.clone(),
            verbose: a.verbose,
            measured_on,
            drive: a.drive.clone(),
            synthetic: a.synthetic,
            format,
        })
    }

    #[cfg(target_os = "linux")]
    /// A fresh target for one measured config: the runner sets it up (the
    /// device guard, re-checked each time) and releases it.
    fn target_spec(&self) -> Option<TargetSpec> {
        Some(match self.target.as_ref()? {
            Target::Device {
                dev,
                yes_erase,
                allow_fixed,
            } => TargetSpec::Device {
                dev: dev.clone(),
                yes_erase: yes_erase.clone(),
                allow_fixed: *allow_fixed,
            },
            Target::Image { path, overwrite } => TargetSpec::Image {
                path: path.clone(),
                // The volume measured; the marker goes after it.
                size: Some(self.volume),
                overwrite: *overwrite,
            },
        })
    }
}

/// The target the candidates are measured on (`--device`, `--image`), the
/// volume (its size) and what the reasons call it.
#[cfg(target_os = "linux")]
fn target_of(a: &AdviseArgs) -> Result<(Option<Target>, u64, String)> {
    if let Some(dev) = &a.device {
        let info = crate::device::guard::inspect(&crate::device::host::Host::real(), dev)
            .map_err(|e| Error::input(e.to_string()))?;
        let t = Target::Device {
            dev: dev.clone(),
            yes_erase: a.yes_erase.clone(),
            allow_fixed: a.allow_fixed,
        };
        Ok((Some(t), info.size_bytes, dev.clone()))
    } else if let Some(img) = &a.image {
        use crate::device::image;
        // An image fsfit made records its volume before its marker; a file
        // it did not make is refused here, in the words bench uses, rather
        // than found to hold no candidate after the tree was walked.
        let existing = std::fs::File::open(img).ok().and_then(|f| {
            let len = f.metadata().ok()?.len();
            (len > 0).then(|| (len, image::read_marker(&f, len)))
        });
        if let (Some((len, None)), false) = (existing, a.overwrite_image) {
            return Err(image::not_ours(
                img,
                len,
                crate::info::describe::describe_file_briefly,
            ));
        }
        // --size is the volume measured (image::Sizing).
        let volume = match (a.size, existing) {
            (Some(s), _) => s,
            (None, Some((_, Some(v)))) => v,
            (None, Some((len, None))) => len,
            (None, None) => 4 << 30,
        };
        let fits =
            |f: &&dyn crate::fs::Filesystem| f.model(volume, f.default_cluster(volume)).is_ok();
        if !crate::fs::all().iter().any(fits) {
            return Err(Error::input(format!(
                "{}: a {} volume is too small for any filesystem: give --size 1G or more",
                img.display(),
                crate::units::iec(volume)
            )));
        }
        let on = format!("image {}", img.display());
        let t = Target::Image {
            path: img.clone(),
            overwrite: a.overwrite_image,
        };
        Ok((Some(t), volume, on))
    } else {
        Ok(no_target(a))
    }
}

/// Measuring and formatting run on Linux only.
#[cfg(not(target_os = "linux"))]
fn target_of(a: &AdviseArgs) -> Result<(Option<Target>, u64, String)> {
    if a.device.is_some() || a.image.is_some() || a.format.is_some() {
        return Err(Error::input(
            "--device, --image and --format run on Linux only: leave them out to advise from the tree",
        ));
    }
    Ok(no_target(a))
}

/// No target: the volume `--volume` names (or the default).
fn no_target(a: &AdviseArgs) -> (Option<Target>, u64, String) {
    let on = a
        .bench
        .as_ref()
        .map(|b| format!("the drive of {}", b.display()))
        .unwrap_or_default();
    (None, a.volume.bytes().0, on)
}

/// The arguments that make no sense alone, refused before any work.
fn check(a: &AdviseArgs) -> Result<()> {
    if a.max_overhead.is_nan() || a.max_overhead < 0.0 {
        return Err(Error::input("--max-overhead: give a percentage, 0 or more"));
    }
    if a.budget.is_some() && a.device.is_none() && a.image.is_none() && a.drive.is_none() {
        return Err(Error::input(
            "--budget is the time for measuring on --device or --image, or for tracing on --flash: give one of them, or leave --budget out",
        ));
    }
    if a.fill == Some(0) {
        return Err(Error::input(
            "--fill 0: give how much data like PATH the volume will hold (more than 0), or leave it out for a full volume",
        ));
    }
    // `--json -` prints; a file's folder must exist before the work.
    let json_file = a.json.clone().filter(|p| p.as_os_str() != "-");
    super::output_folders_exist([&json_file])
}

/// A --label that no filesystem the --for systems use can store is refused
/// before the walk and any measuring (it was once refused at the end, after
/// an --image had been made and measured for 18 s), with every such
/// filesystem's rule, since whichever is chosen cannot store it; one that
/// some can store is checked against the choice once it is known
/// ([`label_for_choice`]).
fn label_fits_some(systems: &[&System], volume: u64, label: &str) -> Result<()> {
    use crate::format::label;
    if label.is_empty() {
        // No filesystem's rule: the one refusal every filesystem gives.
        return crate::fs::all()
            .first()
            .map_or(Ok(()), |f| label::check(*f, label).map(|_| ()));
    }
    // The most robust first: the ranking's order, so the likely choice's
    // rule is read first.
    let mut usable: Vec<&dyn crate::fs::Filesystem> = crate::fs::all()
        .iter()
        .copied()
        .filter(|f| systems.iter().all(|s| s.uses(f.name(), volume)))
        .collect();
    usable.sort_by_key(|f| advise::systems::robustness_rank(f.name()));
    let mut broken: Vec<(&str, label::Broken)> = Vec::new();
    for f in usable {
        match label::broken(f, label) {
            Ok(_) => return Ok(()),
            Err(b) => broken.push((f.info().title, b)),
        }
    }
    if broken.is_empty() {
        return Ok(());
    }
    let full = said_rules(&broken, false).join(". ");
    let brief = said_rules(&broken, true);
    let briefly = brief.join("; ");
    let names: Vec<&str> = systems.iter().map(|s| s.name).collect();
    let who = match names.len() {
        0 => "fsfit makes".to_string(),
        1 => format!("{} uses", names[0]),
        _ => format!("{} all use", crate::units::and_list(&names)),
    };
    // Every filesystem's rule is always said (whichever is chosen cannot
    // store the label); to fit one line of 100 columns, in fewer words,
    // then without the sentence naming the systems, then with the label
    // cut in its middle, then without it.
    let shown = label::shown(label);
    let cut = crate::report::text::usage::shorten(&shown, 16);
    // Last, the first rules (the most robust filesystems') and how many
    // more: with many systems named, all of them may not fit.
    let fewer = (1..brief.len()).rev().map(|k| {
        let more = crate::units::count((brief.len() - k) as u64, "more rule");
        format!("--label {cut}: {}; … {more}", brief[..k].join("; "))
    });
    Err(Error::input(crate::units::first_fitting(
        [
            format!("--label {shown}: no filesystem {who} can store it. {full}."),
            format!("--label {shown}: no filesystem {who} can store it ({briefly})"),
            format!("--label {shown}: {briefly}"),
            format!("--label {cut}: {briefly}"),
            format!("--label: {briefly}"),
        ]
        .into_iter()
        .chain(fewer),
    )))
}

/// Each rule `broken` said once, with the filesystems that have it: in
/// full ("FAT32, FAT16 and FAT12 labels hold at most 11 bytes, not 36"), or
/// in a few words after the titles ("FAT32/FAT16/FAT12: at most 11 bytes").
fn said_rules(broken: &[(&str, crate::format::label::Broken)], brief: bool) -> Vec<String> {
    let mut said: Vec<(Vec<&str>, String)> = Vec::new();
    for (title, b) in broken {
        let rule = if brief { b.brief() } else { b.rule() };
        match said.iter_mut().find(|(_, r)| *r == rule) {
            Some((titles, _)) => titles.push(title),
            None => said.push((vec![title], rule)),
        }
    }
    said.iter()
        .map(|(titles, rule)| match brief {
            true => format!("{}: {rule}", titles.join("/")),
            false => format!("{} {rule}", crate::units::and_list(titles)),
        })
        .collect()
}

/// The label is the choice's: a filesystem is chosen for the files and the
/// systems, and a label never changes which (it is a name; the choice is
/// how the drive works). A label the choice cannot store is refused with
/// its rule, naming the choice and the other candidates that can store it,
/// so the user can change the label, or format one of them with
/// `fsfit format --fs`.
fn label_for_choice(advice: &advise::Advice, label: &str) -> Result<()> {
    let (Some(rule), Some(choice)) = (
        advice
            .commands
            .as_ref()
            .and_then(|c| c.label_problem.clone()),
        advice.choice.as_ref(),
    ) else {
        return Ok(());
    };
    let mut can: Vec<&str> = Vec::new();
    for c in &advice.candidates {
        let fits = crate::fs::by_name(&c.fs)
            .is_some_and(|f| crate::format::label::check(f, label).is_ok());
        if fits && !can.contains(&c.fs.as_str()) {
            can.push(&c.fs);
        }
    }
    let title = crate::fs::by_name(&choice.fs).map_or(choice.fs.as_str(), |f| f.info().title);
    let (name, can) = (choice.name(), crate::units::and_list(&can));
    let (others, briefly) = match can.is_empty() {
        true => (String::new(), String::new()),
        false => (
            format!(" (of the other candidates, {can} can store it: fsfit format --fs makes one)"),
            format!(" ({can} can: fsfit format --fs)"),
        ),
    };
    // The rule always; then as much of the why and the way out as one line
    // of 100 columns holds.
    Err(Error::input(crate::units::first_fitting([
        format!("{rule}. {name} is the choice for these files and systems, and a label does not change it: give one {title} can store{others}."),
        format!("{rule}; {name} is the choice: give a label {title} can store{briefly}"),
        format!("{rule}; {name} is the choice: give a label {title} can store"),
        format!("{rule} ({name} is the choice)"),
        rule.clone(),
    ])))
}

/// A `fsfit bench --json` file, or why it is not one: read as `fsfit
/// report` reads its inputs (the schema decides), then the kind checked.
fn read_bench(p: &std::path::Path) -> Result<BenchReport> {
    match report::inputs::load(p)? {
        report::inputs::Input::Bench(r) => Ok(*r),
        _ => Err(not_kind(p, BENCH_SCHEMA)),
    }
}

/// A `fsfit crash --json` file, or why it is not one.
fn read_crash(p: &std::path::Path) -> Result<crate::crash::Report> {
    match report::inputs::load(p)? {
        report::inputs::Input::Crash(r) => Ok(*r),
        _ => Err(not_kind(p, crate::crash::SCHEMA)),
    }
}

fn not_kind(p: &std::path::Path, schema: &str) -> Error {
    Error::input(format!(
        "{}: fsfit results, but not {schema} ones",
        p.display()
    ))
}

/// Crash results summed per filesystem and cluster over workloads, drivers
/// and files. A state counts as damaging when it lost a durable file or
/// damaged an old one; the two counts may overlap and the JSON does not say
/// by how much, so the larger of the two per result is taken: a lower bound.
/// A lying device loses data whatever the filesystem does, so those runs
/// say nothing about the filesystem and are left out; failed configs too.
/// no-flush and flash-gc runs count: they are what removable flash does
/// (the reason line names the models the states come from).
fn robustness(reports: &[crate::crash::Report]) -> Vec<advise::Robustness> {
    let mut out: Vec<advise::Robustness> = Vec::new();
    for rep in reports.iter().filter(|r| r.device_model != "lying") {
        for r in rep
            .results
            .iter()
            .filter(|r| r.error.is_none() && r.states > 0)
        {
            let damaged = r.outcomes.durable_lost.max(r.outcomes.old_files_damaged);
            // Per cluster, and per filesystem for the clusters not tested:
            // robustness is mostly the filesystem's, so a crash run at the
            // default cluster speaks for its other clusters too.
            for cluster in [Some(r.cluster_bytes), None] {
                match out
                    .iter_mut()
                    .find(|x| x.fs == r.fs && x.cluster_bytes == cluster)
                {
                    Some(x) => {
                        x.states += r.states;
                        x.damaged += damaged;
                        if !x.models.contains(&rep.device_model) {
                            x.models.push(rep.device_model.clone());
                        }
                    }
                    None => out.push(advise::Robustness {
                        fs: r.fs.clone(),
                        cluster_bytes: cluster,
                        states: r.states,
                        damaged,
                        models: vec![rep.device_model.clone()],
                    }),
                }
            }
        }
    }
    out
}

/// The flash profile speeds are simulated on when nothing is measured:
/// `--flash`, else a default from the volume size and `--for`.
fn drive(o: &Options) -> Result<Option<(crate::flash::Profile, String)>> {
    if o.bench.is_some() || o.target.is_some() {
        return Ok(None);
    }
    if let Some(name) = &o.drive {
        let p = crate::flash::profile(name)?;
        let how = format!("{name} (--flash)");
        return Ok(Some((p, how)));
    }
    let cards = advise::systems::card_users(&o.systems);
    let (name, how) = crate::flash::synth::default_drive(o.volume, &cards);
    Ok(Some((crate::flash::profile(name)?, how)))
}

pub fn run(o: &Options, quiet: bool) -> Result<()> {
    let mut r = super::usage::walk(&o.walk, &[], o.volume, None, quiet)?;
    r.volume_assumed = o.volume_assumed;
    if r.tree.files == 0 {
        return Err(Error::input(format!(
            "{}: no files to advise on (an empty folder fits any filesystem)",
            r.paths.join(", ")
        )));
    }
    let measured: Vec<BenchReport> = o.bench.iter().cloned().collect();
    let opts = advise::Options {
        systems: o.systems.clone(),
        max_overhead: o.max_overhead,
        fill: o.fill,
        measured: &measured,
        measured_on: o.measured_on.clone(),
        crash: &o.crash,
        drive: drive(o)?,
        mount_policy: o.mount_policy.clone(),
        simulation: None,
        label: o.label.clone(),
        unmeasured: Vec::new(),
    };
    let advice = recommend(o, &r, opts, quiet)?;
    // A label the choice cannot store is bad input, refused with its rule,
    // not dropped from the commands while the run says "done".
    label_for_choice(&advice, &o.label)?;
    let json = report::json::advise(&advice);
    match o.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => super::print(&json)?,
        Some(p) => {
            report::write_atomic(p, json.as_bytes())?;
            super::print_text(&report::text::advise::text(&advice, o.verbose))?;
        }
        None => super::print_text(&report::text::advise::text(&advice, o.verbose))?,
    }
    let Some(choice) = &advice.choice else {
        return Err(Error::work(
            "no filesystem fits these constraints (see the rejected list)",
        ));
    };
    match &o.format {
        Some(f) => format_choice(f, o, choice),
        None => Ok(()),
    }
}

/// Rank, measuring on the target first when there is one.
#[cfg(target_os = "linux")]
fn recommend(
    o: &Options,
    r: &crate::usage::UsageReport,
    opts: advise::Options,
    quiet: bool,
) -> Result<advise::Advice> {
    let make = || o.target_spec().expect("a target");
    let measure = o.target.as_ref().map(|_| Measure {
        target: &make,
        target_bytes: o.volume,
        budget: o.budget,
        quiet,
        command: std::env::args().collect(),
        mount_policy: o.mount_policy.policy,
    });
    if measure.is_some() {
        super::cancel_on_ctrl_c(advise::measure::stop_by_user);
    }
    let opts = advise::Options {
        simulation: simulate(o, r, &opts, quiet)?,
        ..opts
    };
    advise::recommend(r, opts, measure.as_ref())
}

/// With a profile and nothing measured: copy a sample of the tree onto the
/// candidates that can still win, traced, where this host can (root, a
/// block trace, files rather than a listing); else the synthetic copy, and
/// why.
#[cfg(target_os = "linux")]
fn simulate(
    o: &Options,
    r: &crate::usage::UsageReport,
    opts: &advise::Options,
    quiet: bool,
) -> Result<Option<advise::Simulation>> {
    let Some((profile, _)) = &opts.drive else {
        return Ok(None);
    };
    let why_not = if o.synthetic {
        Some("--synthetic asked for the quick estimate".to_string())
    } else {
        advise::traced::unavailable(o.walk.manifest.is_some())
    };
    if let Some(why) = why_not {
        return Ok(Some(advise::Simulation::synthetic(
            profile,
            &o.mount_policy,
            format!("synthetic copy (each file written whole, then one metadata block): the traced copy of your files was not possible, {why}"),
        )));
    }
    let ranked = advise::advise(r, opts).candidates;
    let configs = advise::traced::pick(&ranked, o.max_overhead);
    super::cancel_on_ctrl_c(advise::measure::stop_by_user);
    let volume_start =
        |fs: &str, cluster: u64| advise::plan::volume_start(fs, cluster, r.volume_bytes, opts);
    let t = advise::traced::Tracing {
        paths: &o.walk.paths,
        tree: &r.tree,
        profile,
        policy: o.mount_policy.policy,
        volume: o.volume,
        volume_start: &volume_start,
        budget: o.budget,
        quiet,
    };
    advise::traced::run(&t, &configs).map(Some)
}

/// Rank: nothing is measured here (no target off Linux).
#[cfg(not(target_os = "linux"))]
fn recommend(
    o: &Options,
    r: &crate::usage::UsageReport,
    opts: advise::Options,
    _quiet: bool,
) -> Result<advise::Advice> {
    let simulation = opts.drive.as_ref().map(|(p, _)| {
        advise::Simulation::synthetic(
            p,
            &o.mount_policy,
            "synthetic copy (each file written whole, then one metadata block): the traced copy of your files needs Linux".into(),
        )
    });
    let opts = advise::Options { simulation, ..opts };
    Ok(advise::advise(r, &opts))
}

/// `--format DEV` with its confirmation; --yes-erase alone names nothing.
fn format_target(a: &AdviseArgs) -> Result<Option<(PathBuf, Option<String>, bool)>> {
    if a.yes_erase.is_some() && a.device.is_none() && a.format.is_none() {
        return Err(Error::input(
            "--yes-erase confirms --device or --format: name the drive with one of them",
        ));
    }
    Ok(a.format
        .clone()
        .map(|d| (d, a.yes_erase.clone(), a.allow_fixed)))
}

/// `--format DEV`: refused before any work off Linux (target_of).
#[cfg(not(target_os = "linux"))]
fn format_choice(
    _: &(PathBuf, Option<String>, bool),
    _: &Options,
    _: &advise::Candidate,
) -> Result<()> {
    Err(Error::input("--format runs on Linux only"))
}

/// `--format DEV`: the choice's plan, run by `fsfit format`'s own code on
/// the drive: the plan's table, SD layout or alignment, filesystem,
/// cluster and label (one the filesystem cannot store is left off, as the
/// printed commands do).
#[cfg(target_os = "linux")]
fn format_choice(
    (dev, yes_erase, allow_fixed): &(PathBuf, Option<String>, bool),
    o: &Options,
    c: &advise::Candidate,
) -> Result<()> {
    use crate::format::{Align, Table};
    let drive = drive(o)?;
    let u = advise::plan::Use::of(&o.systems, drive.as_ref().map(|d| &d.0));
    let (l, _) = advise::plan::layout_of(&c.fs, c.cluster_bytes, o.volume, &u, &o.label)?;
    super::print(&format!(
        "\nFormatting {} with {} ({} clusters):\n",
        dev.display(),
        l.fs.info().title,
        l.cluster
    ))?;
    let table = if l.mbr_boot_area { Table::Mbr } else { l.table };
    super::format::run(&crate::format::Request {
        target: dev.clone(),
        fs: Some((l.fs, Some(l.cluster))),
        label: l.label.clone(),
        table: Some(table),
        align: if l.sd {
            Align::Default
        } else {
            Align::Bytes(l.align)
        },
        sd: l.sd,
        check_capacity: false,
        yes_erase: yes_erase.clone(),
        allow_fixed: *allow_fixed,
        size: None,
        dry_run: false,
        json: None,
        quiet: false,
    })
}
