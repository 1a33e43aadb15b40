//! The targets fsfit writes to, and provisioning an image file as one: bench
//! (`--image`, a temporary image), advise's measuring rounds and `format`
//! attach images here; block devices go through confirm.rs.

use super::identity::Identity;
use super::image::{self, Describe};
use super::loopdev::LoopDev;
use crate::Result;
use std::path::{Path, PathBuf};

/// Where bench (and advise's measuring) runs.
pub enum TargetSpec {
    /// A sparse image under $TMPDIR, removed afterwards.
    TempImage {
        size: Option<u64>,
    },
    Image {
        path: PathBuf,
        size: Option<u64>,
        /// `--overwrite-image`: format a file fsfit did not make.
        overwrite: bool,
    },
    Device {
        dev: String,
        yes_erase: Option<String>,
        allow_fixed: bool,
    },
    Dir(PathBuf),
}

pub use image::Sizing;

/// An image checked, marked and attached.
pub struct AttachedImage {
    pub volume: u64,
    /// This run made the file.
    pub created: bool,
    /// Detaches when dropped.
    pub loop_dev: LoopDev,
    /// Checked again before every write.
    pub identity: Identity,
}

/// Check and mark `path` (image.rs's rules; `need` refuses a volume too
/// small, `describe` words a refused file), then attach it to a loop device
/// (with partition scanning when the caller writes a partition table).
pub fn attach_image(
    path: &Path,
    sizing: Sizing<'_>,
    need: impl Fn(u64) -> Result<()>,
    describe: Describe,
    partscan: bool,
) -> Result<AttachedImage> {
    let img = image::prepare(path, &sizing, need, describe)?;
    let attached = if partscan {
        LoopDev::attach_partscan(path, img.volume)
    } else {
        LoopDev::attach_limited(path, img.volume)
    }
    .and_then(|l| Identity::of(&l.dev).map(|id| (l, id)));
    let (loop_dev, identity) = attached.inspect_err(|_| {
        // A file made for this run and never used is not left behind.
        if img.created {
            let _ = std::fs::remove_file(path);
        }
    })?;
    Ok(AttachedImage {
        volume: img.volume,
        created: img.created,
        loop_dev,
        identity,
    })
}
