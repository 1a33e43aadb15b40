//! `fsfit report`: one HTML page (and optionally PNG charts) from results files.

use crate::cli::ReportArgs;
use crate::report::{self, html, inputs};
use crate::Result;
use std::path::{Path, PathBuf};

/// The results files, read and checked, and where to write.
pub struct Options {
    pub inputs: inputs::Inputs,
    pub output: PathBuf,
    pub png: Option<PathBuf>,
}

impl Options {
    pub fn new(a: &ReportArgs) -> Result<Options> {
        super::output_folders_exist([&Some(a.output.clone())])?;
        let mut inputs = inputs::Inputs::default();
        for f in &a.files {
            let input = inputs::load(f)?;
            let label = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| f.display().to_string());
            inputs.add(&label, &f.display().to_string(), input);
        }
        Ok(Options {
            inputs,
            output: a.output.clone(),
            png: a.png.clone(),
        })
    }
}

pub fn run(o: &Options) -> Result<()> {
    write(&o.inputs, &o.output, o.png.as_deref())
}

/// The HTML page (atomically), and with `png` every chart as SVG and PNG.
pub fn write(inputs: &inputs::Inputs, path: &Path, png: Option<&Path>) -> Result<()> {
    let command: Vec<String> = std::env::args().collect();
    let page = html::render(inputs, &command);
    report::write_atomic(path, page.html.as_bytes())?;
    if let Some(dir) = png {
        let (_, warning) = report::png::write(dir, &page.charts)?;
        if let Some(w) = warning {
            crate::say!("warning: {w}");
        }
    }
    Ok(())
}
