//! `fsfit format`: prepare a drive as the advice says, the one plan
//! layout.rs decides for advise too. One partition (MBR by default up to
//! 2 TiB, GPT above or on request, none for UDF) starting on the alignment
//! (4 MiB, or the SD boundary unit), the data area aligned too, the partition type
//! each system expects, a checked label, mkfs through the filesystem
//! registry (this module never spells a filesystem's name), then a
//! verification with fsfit info, the checker and blkid.
//!
//! Order of writes: old signatures wiped, the partition table, the
//! filesystem last; Ctrl-C is honoured between steps, so a device is left
//! untouched, wiped, or with a complete table, and the message says which.

#[cfg(target_os = "linux")]
use crate::{Error, Result};
#[cfg(target_os = "linux")]
pub mod capacity;
pub mod label;
pub mod layout;
pub mod paste;
#[cfg(target_os = "linux")]
pub mod plan;
pub use crate::fs::sd;
#[cfg(target_os = "linux")]
pub mod table;
#[cfg(target_os = "linux")]
pub mod target;
#[cfg(target_os = "linux")]
pub mod verify;

use crate::fs::Filesystem;
#[cfg(target_os = "linux")]
use serde::Serialize;
use std::path::PathBuf;

pub const SCHEMA: &str = "fsfit.format/1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Mbr,
    Gpt,
    None,
}

impl Table {
    pub fn name(&self) -> &'static str {
        match self {
            Table::Mbr => "mbr",
            Table::Gpt => "gpt",
            Table::None => "none",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// 4 MiB, or the SD boundary unit with --sd.
    Default,
    /// The SD boundary unit for the capacity.
    Auto,
    Bytes(u64),
}

pub struct Request {
    pub target: PathBuf,
    /// The filesystem and, if named, the cluster.
    pub fs: Option<(&'static dyn Filesystem, Option<u64>)>,
    pub label: Option<String>,
    pub table: Option<Table>,
    pub align: Align,
    pub sd: bool,
    pub check_capacity: bool,
    pub yes_erase: Option<String>,
    pub allow_fixed: bool,
    /// Size of a new image file.
    pub size: Option<u64>,
    /// Print the plan and stop.
    pub dry_run: bool,
    /// No step-by-step progress on stderr.
    pub quiet: bool,
    pub json: Option<PathBuf>,
}

/// The `fsfit.format/1` JSON.
#[cfg(target_os = "linux")]
#[derive(Debug, Serialize)]
pub struct Report {
    pub schema: &'static str,
    pub target: String,
    pub kind: String,
    pub device: String,
    pub capacity_bytes: u64,
    pub table: String,
    pub partition_start_bytes: u64,
    pub partition_size_bytes: u64,
    pub partition_type: Option<String>,
    pub fs: String,
    pub cluster_bytes: u64,
    pub label: Option<String>,
    pub data_offset_bytes: Option<u64>,
    pub alignment_bytes: u64,
    /// The SD specification's layout for the capacity (filesystem, cluster
    /// and boundary unit).
    pub sd_layout: bool,
    pub commands: Vec<Vec<String>>,
    /// What sfdisk read on its stdin.
    pub sfdisk_script: Option<String>,
    pub verified: verify::Verified,
    pub dry_run: bool,
    pub notes: Vec<String>,
    /// The plan as `fsfit advise` shows it (its commands for any drive).
    pub plan: layout::DrivePlan,
}

pub use layout::owner;

/// Work out the plan, print it, do it, verify it. The report comes back
/// also when a check disagrees (the caller exits non-zero then). `say`
/// prints the plan and the verification (cmd's stdout writer: format sits
/// below cmd and never prints by itself), `progress` each step as it runs
/// (cmd's stderr writer, wrapped to the terminal's width).
#[cfg(target_os = "linux")]
pub fn run(
    r: &Request,
    say: fn(&str) -> crate::Result<()>,
    progress: fn(&str) -> crate::Result<()>,
) -> crate::Result<Report> {
    let args = |dry_run| target::TargetArgs {
        path: &r.target,
        yes_erase: r.yes_erase.as_deref(),
        allow_fixed: r.allow_fixed,
        size: r.size,
        dry_run,
    };
    if !is_block_device(&r.target) {
        yes_erase_names_the_image(r)?;
    }
    if !r.dry_run && !is_block_device(&r.target) {
        // Opening an image creates, marks and attaches it: the plan is first
        // made against the image as a dry run sees it, so that a refused
        // label, cluster or size leaves no file and no loop device behind.
        let dry = target::open(&args(true)).map_err(as_input)?;
        plan::make(r, &dry, owner()).map_err(as_input)?;
    }
    let t = target::open(&args(r.dry_run)).map_err(as_input)?;
    let plan = plan::make(r, &t, owner()).map_err(as_input)?;
    say(&plan.text(&t))?;
    let mut report = report(r, &t, &plan);
    if r.dry_run {
        if r.check_capacity {
            say(&format!(
                "Before step 1, --check-capacity (not run in a dry run) {}.\n",
                capacity::what_it_writes(t.capacity)
            ))?;
        }
        return Ok(report);
    }
    let id = t
        .identity
        .as_ref()
        .expect("a target to write has an identity");
    let made = t.created.clone();
    let done = if r.check_capacity {
        capacity::check(&t.dev, t.capacity, id)
    } else {
        Ok(())
    }
    .and_then(|_| execute(&plan, &t.dev, id, made.as_deref(), r.quiet, progress));
    if let Err(e) = done {
        if let Some(p) = &made {
            // An image this run made holds no filesystem yet: it goes, its
            // loop device first, rather than be left for the user to find.
            drop(t);
            let _ = std::fs::remove_file(p);
        }
        return Err(e);
    }
    let found = verify::run(&plan, &t.dev);
    let mut summary = String::from("Verification:\n");
    for l in &found.lines {
        summary += &format!("  {l}\n");
    }
    say(&summary)?;
    report.verified = found.verified;
    report.data_offset_bytes = found.data_offset.or(plan.layout.data_offset);
    Ok(report)
}

/// An image needs no --yes-erase; one that names something else is a
/// mistake about what is being formatted (a device name typed for an image
/// path), refused before anything is made.
#[cfg(target_os = "linux")]
fn yes_erase_names_the_image(r: &Request) -> crate::Result<()> {
    let Some(y) = &r.yes_erase else {
        return Ok(());
    };
    let same = |p: &std::path::Path| std::path::absolute(p).ok();
    if std::path::Path::new(y) == r.target || same(y.as_ref()) == same(&r.target) {
        return Ok(());
    }
    Err(Error::input(format!(
        "--yes-erase {} does not name the target {}: an image needs no --yes-erase",
        crate::quote::quote(y),
        crate::quote::quote(&r.target.to_string_lossy())
    )))
}

#[cfg(target_os = "linux")]
fn is_block_device(p: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
}

/// The target and the plan are checked before anything is written: every
/// error there, whatever step found it, is bad input (exit 2).
#[cfg(target_os = "linux")]
fn as_input(e: Error) -> Error {
    match e {
        Error::Interrupted | Error::Input(_) => e,
        e => Error::Input(e.to_string()),
    }
}

#[cfg(target_os = "linux")]
fn report(r: &Request, t: &target::Target, plan: &plan::Plan) -> Report {
    let l = &plan.layout;
    Report {
        schema: SCHEMA,
        target: r.target.to_string_lossy().into_owned(),
        kind: t.kind.to_string(),
        device: t.dev.clone(),
        capacity_bytes: t.capacity,
        table: l.table_name().to_string(),
        partition_start_bytes: l.start,
        partition_size_bytes: l.size,
        partition_type: l.part_type.clone(),
        fs: l.fs.name().to_string(),
        cluster_bytes: l.cluster,
        label: l.label.clone(),
        data_offset_bytes: l.data_offset,
        alignment_bytes: l.align,
        sd_layout: l.sd_layout,
        commands: plan.steps.iter().map(|s| s.argv.clone()).collect(),
        sfdisk_script: plan.steps.iter().find_map(|s| s.stdin.clone()),
        verified: verify::Verified::default(),
        dry_run: r.dry_run,
        notes: l.notes.clone(),
        plan: l.doc(),
    }
}

/// Run the steps in order, stopping between two on Ctrl-C with what was
/// done and what the device holds now.
#[cfg(target_os = "linux")]
fn execute(
    plan: &plan::Plan,
    dev: &str,
    id: &crate::device::identity::Identity,
    made: Option<&std::path::Path>,
    quiet: bool,
    progress: fn(&str) -> crate::Result<()>,
) -> crate::Result<()> {
    let n = plan.steps.len();
    for (i, s) in plan.steps.iter().enumerate() {
        if crate::cancel::requested() {
            crate::say!(
                "interrupted before step {} ({}): {}",
                i + 1,
                s.what,
                left_as(plan, i, made)
            );
            return Err(crate::Error::Interrupted);
        }
        // Still the device confirmed, and nothing else holds it (an
        // exclusive open), right before each write.
        id.confirm().map_err(|e| {
            crate::Error::work(format!(
                "before step {} ({}): {e}; {}",
                i + 1,
                s.what,
                left_as(plan, i, made)
            ))
        })?;
        if !quiet {
            // "what: command", so the terminal's width puts a long command
            // on its own lines, continued as the shell reads it.
            progress(&format!("[{}/{n}] {}: {}\n", i + 1, s.what, s.shell()))?;
        }
        run_step(s).map_err(|e| {
            crate::Error::work(format!(
                "step {} ({}) failed: {e}; {}",
                i + 1,
                s.what,
                left_as(plan, i, made)
            ))
        })?;
        if s.stdin.is_some() {
            target::wait_partition(dev, &plan.volume_dev, plan.layout.start)?;
        }
    }
    Ok(())
}

/// What the device holds once `done` steps have run (`made`: an image this
/// run made, which run() removes when a step fails).
#[cfg(target_os = "linux")]
fn left_as(plan: &plan::Plan, done: usize, made: Option<&std::path::Path>) -> String {
    if let Some(p) = made {
        return format!(
            "{} was made by this run and is removed again",
            crate::quote::quote(&p.to_string_lossy())
        );
    }
    let table_at = plan.steps.iter().position(|s| s.stdin.is_some());
    match (done, table_at) {
        (0, _) => "nothing was written".into(),
        (d, Some(t)) if d > t => "the device has its new, complete partition table but no new \
            filesystem; run the same command again"
            .into(),
        _ => "old signatures were wiped; no new table or filesystem was written; run the same command again"
            .into(),
    }
}

#[cfg(target_os = "linux")]
fn run_step(s: &plan::Step) -> Result<()> {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(&s.argv[0])
        .args(&s.argv[1..])
        .process_group(0)
        .stdin(if s.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::work(format!("cannot run {}: {e}", s.argv[0])))?;
    if let (Some(text), Some(mut i)) = (&s.stdin, child.stdin.take()) {
        i.write_all(text.as_bytes())
            .map_err(|e| Error::work(format!("{}: {e}", s.argv[0])))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::work(format!("{}: {e}", s.argv[0])))?;
    if out.status.success() {
        return Ok(());
    }
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let last = err
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    Err(Error::work(format!(
        "{} exited with {}: {last}",
        s.argv[0], out.status
    )))
}
