//! `fsfit info`: what is on a drive, an image or a mounted directory now.

use crate::cli::InfoArgs;
use crate::{info, report, Error, Result};
use std::path::PathBuf;

pub struct Options {
    /// Exists (a device, an image file or a directory).
    pub target: PathBuf,
    pub json: bool,
    pub max_files: usize,
    /// How to read the volume (the FAT label code page).
    pub probe: info::ProbeOptions,
}

impl Options {
    pub fn new(a: &InfoArgs) -> Result<Options> {
        if std::fs::symlink_metadata(&a.target).is_err() {
            return Err(Error::input(format!(
                "{}: no such file, device or directory",
                a.target.display()
            )));
        }
        let codepage = info::codepage::by_name(&a.codepage).map_err(Error::Input)?;
        Ok(Options {
            target: a.target.clone(),
            json: a.json,
            max_files: a.max_files,
            probe: info::ProbeOptions { codepage },
        })
    }
}

pub fn run(o: &Options) -> Result<()> {
    let r = info::inspect::inspect_with(&o.target, o.max_files, &o.probe).map_err(Error::Work)?;
    if o.json {
        let mut s = serde_json::to_string_pretty(&r).expect("info serializes");
        s.push('\n');
        super::print(&s)?;
    } else {
        super::print(&report::text::info::text(&r))?;
    }
    if r.volume.is_none() && r.partitions.is_empty() && r.mounted.is_none() {
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
