//! `fsfit emulate PROFILE IMAGE`: a simulated stick under a loop device,
//! served until Ctrl-C.

use crate::cli::EmulateArgs;
use crate::{Error, Result};

/// Check the arguments before anything is set up.
fn check(a: &EmulateArgs) -> Result<crate::flash::Profile> {
    let profile = crate::flash::profile(&a.profile)?;
    match std::fs::metadata(&a.image) {
        Ok(m) if !m.is_file() => {
            return Err(Error::input(format!(
                "{}: not an image file (emulate serves an image file, never a device)",
                a.image.display()
            )))
        }
        Ok(_) => {
            let held = crate::flash::emulate::loops_serving(&a.image);
            if !held.is_empty() {
                return Err(Error::input(format!(
                    "{} is in use by {}: serving it twice would mix two devices' writes",
                    a.image.display(),
                    held.join(", ")
                )));
            }
        }
        Err(_) if a.size.is_none() => {
            return Err(Error::input(format!(
                "{} does not exist: give --size to make it",
                a.image.display()
            )))
        }
        Err(_) => super::output_folders_exist([&Some(a.image.clone())])?,
    }
    if let Some(s) = a.size {
        if s == 0 || s % 512 != 0 {
            return Err(Error::input(format!(
                "--size must be a non-zero multiple of 512 bytes, not {s}"
            )));
        }
    }
    // The model maps the device in AUs: a device smaller than one has no
    // whole AU to write into, and nothing it serves would be a stick's
    // timing. An existing image keeps its size without --size.
    let size = a
        .size
        .or_else(|| std::fs::metadata(&a.image).ok().map(|m| m.len()));
    let au = profile.au_bytes();
    if let Some(s) = size.filter(|&s| s < au) {
        return Err(Error::input(format!(
            "{}: {} is under {}'s {} allocation unit: give --size {} or more",
            a.image.display(),
            crate::units::iec(s),
            profile.name,
            crate::units::short(au),
            crate::units::short(au)
        )));
    }
    Ok(profile)
}

pub fn run(a: &EmulateArgs) -> Result<()> {
    let profile = check(a)?;
    super::cancel_on_ctrl_c(|| {});
    let dev = crate::flash::emulate::start(&profile, &a.image, a.size)?;
    super::print_to_stderr(&format!(
        "{}serving {} as a simulated {} ({}) until Ctrl-C; its timings are the profile's, not a real device's\n",
        crate::PREFIX,
        a.image.display(),
        profile.name,
        profile.summary
    ))?;
    let q = std::path::Path::new("/sys/block")
        .join(dev.loop_dev().trim_start_matches("/dev/"))
        .join("queue/max_sectors_kb");
    if let Ok(kb) = std::fs::read_to_string(q) {
        crate::say!(
            "largest request {} KiB (the profile's largest transfer)",
            kb.trim()
        );
    }
    super::print(&format!("{}\n", dev.loop_dev()))?;
    // The log is for tests; here it is only counted, so it never grows.
    let mut served = 0;
    while !crate::cancel::requested() {
        std::thread::sleep(std::time::Duration::from_millis(100));
        served += dev.log().len();
        dev.clear_log();
    }
    dev.stop();
    crate::say!("stopped after {served} requests; the loop device is detached");
    Ok(())
}
