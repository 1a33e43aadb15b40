//! Provisioning a block device to erase, for `bench --device` and
//! `format` alike: inspect it, show it, get the user's confirmation (the
//! `--yes-erase` argument, else typed on the terminal), refuse it for any of
//! the guard's reasons, hold it exclusively once, and keep its identity so
//! every later write can check it is still the device confirmed.

use super::guard::{self, DeviceInfo};
use super::host::Host;
use super::identity::Identity;
use crate::{Error, Result};

/// Where the confirmation comes from.
pub enum Answer<'a> {
    /// `--yes-erase DEV` as given.
    Given(&'a str),
    /// Nothing given: ask on the terminal (refused when there is none).
    Ask,
    /// A dry run writes nothing: the device inspected counts as confirmed
    /// (every other refusal still applies).
    DryRun,
}

/// A device the guard let through.
pub struct Confirmed {
    pub info: DeviceInfo,
    pub identity: Identity,
}

/// Inspect `dev`, print what it is (then `show` prints or gathers what is
/// on it), confirm, check, and hold it exclusively once.
pub fn erase(
    dev: &str,
    answer: Answer,
    allow_fixed: bool,
    show: &mut dyn FnMut(&DeviceInfo),
) -> Result<Confirmed> {
    let host = Host::real();
    let info = guard::inspect(&host, dev)?;
    eprintln!("{}", guard::describe(&info));
    show(&info);
    let confirmed = match answer {
        Answer::Given(y) => Some(y.to_string()),
        Answer::DryRun => Some(info.path.clone()),
        Answer::Ask => ask(&info.path)?,
    };
    guard::check(&info, &host, confirmed.as_deref(), allow_fixed)?;
    // Nothing else may hold it open, and it must still be the device
    // inspected; what is confirmed now is checked again before every write.
    let held = guard::open_exclusive(&info.path)?;
    guard::same_device(&held, &info)?;
    drop(held);
    let identity = Identity::confirmed(&info);
    Ok(Confirmed { info, identity })
}

/// The device name typed on the terminal; refused without one.
pub fn ask(dev: &str) -> Result<Option<String>> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Err(Error::input(format!(
            "refusing to erase {dev} without confirmation: pass --yes-erase {dev}"
        )));
    }
    eprint!("Everything on {dev} will be erased. Type the device name ({dev}) to go on: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::work(e.to_string()))?;
    Ok(Some(line.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_terminal_the_answer_is_a_refusal() {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() {
            println!("SKIP: stdin is a terminal here");
            return;
        }
        let e = ask("/dev/sdz").unwrap_err();
        assert!(matches!(e, Error::Input(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "refusing to erase /dev/sdz without confirmation: pass --yes-erase /dev/sdz"
        );
    }

    #[test]
    fn a_file_is_not_a_device_to_erase() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let path = f.path().to_str().unwrap();
        let mut shown = false;
        let e = erase(path, Answer::Given(path), true, &mut |_| shown = true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("is not a block device"), "{e}");
        assert!(!shown, "nothing is described before the device is known");
    }
}
