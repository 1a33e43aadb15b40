//! `fsfit crash`: record, explore and judge crash states; or rebuild one.

use crate::cli::{CrashArgs, DeviceModel};
use crate::crash::faults::{self, Geometry, Model};
use crate::crash::workloads::{self, Workload};
use crate::{crash, report, units, Error, Result};
use std::path::PathBuf;

fn options(a: &CrashArgs, quiet: bool) -> Result<crash::Options> {
    let specs = if a.fs.is_empty() {
        // The filesystem advise ranks first (ext4).
        vec![crate::fs::spec::parse_fs_spec(
            crate::fs::preferred().name(),
        )?]
    } else {
        a.fs.clone()
    };
    let workloads = if a.workloads.is_empty() {
        workloads::all()
    } else {
        a.workloads
            .iter()
            .map(|w| workload(w.trim()))
            .collect::<Result<_>>()?
    };
    if !crate::device::is_root() {
        return Err(Error::input(
            "fsfit crash formats and mounts images and serves a FUSE recorder: run it as root (sudo)",
        ));
    }
    if let Some(d) = a.run_dir.as_ref().filter(|d| d.exists() && !d.is_dir()) {
        return Err(Error::input(format!(
            "--run-dir {}: a file, not a folder (a folder is made if missing)",
            d.display()
        )));
    }
    let run_dir = a.run_dir.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "/var/tmp/fsfit-crash-{}-{}",
            units::now_utc().replace(':', ""),
            std::process::id()
        ))
    });
    let (model, flash) = model(a)?;
    Ok(crash::Options {
        specs,
        driver: a.driver,
        mount_options: mount_options(&a.mount_options)?,
        mount_policy: a.mount_policy,
        workloads,
        states: a.states.unwrap_or(if a.quick { 2 } else { 4 }) as usize,
        min_states: a.min_states.unwrap_or(40) as usize,
        model,
        flash,
        seed: a.seed,
        jobs: a
            .jobs
            .map(|j| j as usize)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        quick: a.quick,
        run_dir,
        quiet,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    })
}

/// `--mount-options`: `name` or `name=value`, comma-separated. A FUSE
/// driver (exfat-fuse, ntfs-3g) mounts anyway with an option it does not
/// understand, so what cannot be an option at all (`ro;x`) would run the
/// whole test without it: it is refused before anything runs.
fn mount_options(s: &str) -> Result<String> {
    let name = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    let value = |c: char| name(c) || ":/+@%~".contains(c);
    let bad = s.split(',').find(|o| match o.split_once('=') {
        Some((n, v)) => n.is_empty() || !n.chars().all(name) || !v.chars().all(value),
        None => o.is_empty() || !o.chars().all(name),
    });
    match bad {
        Some(o) if !s.is_empty() => Err(Error::input(format!(
            "--mount-options {}: {} is not a mount option (name or name=value, comma-separated)",
            crate::quote::quote(s),
            crate::quote::quote(o)
        ))),
        _ => Ok(s.to_string()),
    }
}

/// The crash workload called `name`.
fn workload(name: &str) -> Result<&'static dyn Workload> {
    workloads::by_name(name).ok_or_else(|| {
        Error::input(format!(
            "unknown crash workload '{name}' (choose from {})",
            workloads::names().join(", ")
        ))
    })
}

/// The device model and the flash geometry it uses.
fn model(a: &CrashArgs) -> Result<(Model, Option<Geometry>)> {
    if a.cache.is_some() && a.device_model != DeviceModel::NoFlush {
        return Err(Error::input("--cache is for --device-model no-flush"));
    }
    let wants_flash = matches!(a.device_model, DeviceModel::FlashGc | DeviceModel::Torn);
    if a.flash.is_some() && !wants_flash {
        return Err(Error::input(
            "--flash is for --device-model flash-gc or torn",
        ));
    }
    let flash = match (&a.flash, a.device_model) {
        (None, DeviceModel::Torn) => None,
        (p, _) if wants_flash => Some(faults::geometry(p.as_deref())?),
        _ => None,
    };
    let model = match a.device_model {
        DeviceModel::Honest => Model::Honest,
        DeviceModel::Lying => Model::Lying,
        DeviceModel::Torn => Model::Torn {
            unit: flash.as_ref().map_or(faults::SECTOR, |g| g.page_bytes),
        },
        DeviceModel::NoFlush => Model::NoFlush {
            cache: a.cache.unwrap_or(faults::DEFAULT_CACHE),
        },
        DeviceModel::FlashGc => Model::FlashGc {
            geometry: flash.clone().expect("flash-gc has a geometry"),
        },
    };
    Ok((model, flash))
}

pub fn run(a: &CrashArgs, quiet: bool) -> Result<()> {
    if let Some(dir) = &a.replay {
        let (Some(id), Some(out)) = (&a.state, &a.output) else {
            return Err(Error::input("--replay needs --state ID and -o IMAGE"));
        };
        crash::replay(dir, id, out)?;
        if !quiet {
            crate::say!("wrote state {id} to {}", out.display());
        }
        return Ok(());
    }
    let o = options(a, quiet)?;
    // Where the results go must exist before the run spends its time.
    super::output_folders_exist([&a.json, &a.report, &a.output])?;
    super::cancel_on_ctrl_c(|| {});
    let rep = match crash::run(&o) {
        Ok(r) => r,
        // Whatever failed once the user asked to stop, the run was stopped.
        Err(_) if crate::cancel::requested() => return Err(Error::Interrupted),
        Err(e) => return Err(e),
    };
    // Only a config that ran has states to replay.
    let configs = rep.results.len();
    let ran = rep.results.iter().filter(|r| r.error.is_none()).count();
    let mut text = report::text::crash::render(&rep);
    if ran > 0 {
        text += &format!("Run kept in {} (for --replay).\n", o.run_dir.display());
    }
    match &a.json {
        Some(p) if super::is_stdout(p) => {
            let json = String::from_utf8_lossy(&report::crash::json(&rep)?).into_owned();
            super::print(&(json + "\n"))?;
            super::print_to_stderr(&text)?;
        }
        Some(p) => {
            report::write_atomic(p, &report::crash::json(&rep)?)?;
            super::print_text(&text)?;
        }
        None => super::print_text(&text)?,
    }
    if let Some(path) = &a.report {
        let inputs = report::crash::inputs(rep, a.json.as_deref().filter(|p| !super::is_stdout(p)));
        super::report::write(&inputs, path, None)?;
    }
    super::some_config_ran(ran, configs)
}
