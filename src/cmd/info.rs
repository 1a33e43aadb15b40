//! `fsfit info`: what is on a drive, an image or a mounted directory now.

use crate::cli::InfoArgs;
use crate::{info, report, Error, Result};
use std::path::PathBuf;

pub struct Options {
    /// Exists (a device, an image file or a directory).
    pub target: PathBuf,
    /// `--json [FILE]`: `-` prints it instead of the text.
    pub json: Option<PathBuf>,
    pub max_files: usize,
    /// How to read the volume (the FAT label code page).
    pub probe: info::ProbeOptions,
}

impl Options {
    pub fn new(a: &InfoArgs) -> Result<Options> {
        let mut json = a.json.clone();
        let target = super::target_or_old_spelling(&a.target, &mut json, "TARGET")?;
        super::output_folders_exist([&json])?;
        let drive = crate::info::drive::device_of(&target).is_some();
        if !drive && std::fs::symlink_metadata(&target).is_err() {
            return Err(Error::input(format!(
                "{}: no such file, device or directory",
                target.display()
            )));
        }
        folder_is_not_a_volume(&target)?;
        let codepage = info::codepage::by_name(&a.codepage)?;
        Ok(Options {
            target,
            json,
            max_files: a.max_files,
            probe: info::ProbeOptions { codepage },
        })
    }
}

/// A folder that is not a mount point holds files, not a volume: say what
/// to run instead (rather than trying to read the disk under it).
#[cfg(target_os = "linux")]
fn folder_is_not_a_volume(target: &std::path::Path) -> Result<()> {
    if !target.is_dir() {
        return Ok(());
    }
    let canon = target
        .canonicalize()
        .unwrap_or_else(|_| target.to_path_buf());
    match crate::device::mount_of(target) {
        Some((_, source, mp)) if std::path::Path::new(&mp) != canon => {
            Err(Error::input(format!(
                "{}: this is a folder: use fsfit usage on it (its drive: fsfit info {})",
                target.display(),
                // A command to paste: the device quoted as a shell would need.
                crate::quote::quote(&source)
            )))
        }
        _ => Ok(()),
    }
}

/// No mount table to read here: info::inspect says a folder is Linux's.
#[cfg(not(target_os = "linux"))]
fn folder_is_not_a_volume(_target: &std::path::Path) -> Result<()> {
    Ok(())
}

pub fn run(o: &Options) -> Result<()> {
    let r = info::inspect::inspect_with(&o.target, o.max_files, &o.probe)?;
    let failed = r.volume.is_none() && r.partitions.is_empty() && r.mounted.is_none();
    if let Some(dest) = &o.json {
        super::emit(dest, &report::json::info(&r))?;
    }
    if !failed && !o.json.as_deref().is_some_and(super::is_stdout) {
        super::print_text(&report::text::info::text(&r))?;
    }
    // Nothing found: said once, on stderr (the text would only repeat it).
    if failed {
        return Err(Error::work(format!(
            "{}: {}",
            o.target.display(),
            r.volume_error
                .as_deref()
                .unwrap_or("no filesystem recognised")
        )));
    }
    Ok(())
}
