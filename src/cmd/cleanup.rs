//! `fsfit cleanup`: release what a killed run left behind.

use crate::{device, Error, Result};

pub fn run() -> Result<()> {
    let mut said = device::cleanup::run();
    said.extend(crate::flash::trace::cleanup_instances());
    if said.is_empty() {
        super::print("nothing to clean up\n")?;
    }
    let lines: String = said.iter().map(|l| format!("{l}\n")).collect();
    super::print_text(&lines)?;
    if said.iter().any(|l| l.starts_with("could not")) {
        return Err(Error::work("some things could not be released (see above)"));
    }
    Ok(())
}
