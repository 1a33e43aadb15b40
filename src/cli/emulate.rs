//! `fsfit emulate`: the profile and image to serve as a slow flash device.

use super::{flash_profiles, size};
use clap::Args;
use std::path::PathBuf;

/// `fsfit emulate --help`'s text above the options.
pub const LONG_ABOUT: &str =
    "Serves IMAGE through fsfit's own FUSE filesystem under a loop device, every \
request delayed by the service time the flash PROFILE's model gives it (open AUs, AU copies, \
page rounding, read latency, and reads across page and AU boundaries), so that fsfit bench \
--device, fsfit probe, fio or dd run against a simulated stick. Prints the loop device and \
serves until Ctrl-C (or SIGTERM), then detaches and unmounts everything it set up. IMAGE is \
created sparse with --size if it does not exist. Timings measured on it are simulated (the \
profile's), not any real device's.\n\n\
  sudo fsfit emulate usb2-stick /tmp/stick.img --size 1G\n\
  # in another terminal, DEV set to the /dev/loopN that fsfit emulate printed:\n\
  sudo dd if=/dev/zero of=\"$DEV\" bs=4M count=8 oflag=direct\n\
  sudo fsfit probe \"$DEV\"\n\n\
Profiles: fsfit bench --list-profiles. Exit status: 0 stopped, 1 failed, 2 bad arguments.";

#[derive(Args, Debug)]
pub struct EmulateArgs {
    /// The flash profile to behave like (fsfit bench --list-profiles).
    #[arg(value_parser = flash_profiles())]
    pub profile: String,

    /// The image file that holds the device's bytes (made sparse if new).
    pub image: PathBuf,

    /// The device's size (needed for a new IMAGE; a larger one grows it).
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub size: Option<u64>,
}
