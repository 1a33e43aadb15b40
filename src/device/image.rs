//! Image files fsfit formats, and the rule that keeps a user's file safe:
//! an existing file is formatted only if it is empty or fsfit made it.
//!
//! fsfit's marker is the image file's last 4 KiB, just after the volume's
//! last byte: `--size` is the volume, as mkfs and the card it stands for
//! see it, and the file is 4 KiB longer (to put a format image onto a card
//! of that size, copy the volume alone: `head -c SIZE`). The loop device is
//! attached with `--sizelimit` = the volume, so mkfs, the partition table
//! (GPT's backup included) and the discard most mkfs tools send first
//! (mke2fs, mkfs.xfs, mkfs.btrfs discard the whole device, which punches
//! holes in the file) never reach it, whatever the filesystem. An xattr
//! would survive too, but not on the exFAT or FAT stick people keep images
//! on; a sidecar file gets lost or left behind when the image is moved:
//! `format`, bench and advise could no longer tell an image of fsfit's from
//! a user's file.

use crate::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Bytes of the marker record after the volume.
pub const MARKER_BYTES: u64 = 4096;
const MAGIC: &[u8] = b"fsfit image marker 1\n";

/// The record: the volume's size, and which fsfit command made the image
/// (for whoever finds the record with a hex editor).
fn marker(volume: u64, made_by: &str) -> Vec<u8> {
    let mut m = MAGIC.to_vec();
    m.extend_from_slice(
        format!("volume_bytes={volume}\nmade by fsfit {made_by}: the volume before this record may be reformatted by fsfit at any time\n")
            .as_bytes(),
    );
    m.resize(MARKER_BYTES as usize, 0);
    m
}

/// The fsfit command a command line (argv) runs: `bench`, `advise`, ...
/// (the only global option, `-q`, takes no value).
pub fn command_name(argv: &[String]) -> &str {
    argv.iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or("", |a| a.as_str())
}

/// The volume size fsfit's marker records, if the file ends with one.
pub fn read_marker(f: &File, len: u64) -> Option<u64> {
    if len < MARKER_BYTES {
        return None;
    }
    let mut buf = vec![0u8; MARKER_BYTES as usize];
    f.read_exact_at(&mut buf, len - MARKER_BYTES).ok()?;
    let rest = buf.strip_prefix(MAGIC)?;
    let line = rest.split(|&b| b == b'\n').next()?;
    let v: u64 = std::str::from_utf8(line)
        .ok()?
        .strip_prefix("volume_bytes=")?
        .parse()
        .ok()?;
    (v + MARKER_BYTES == len).then_some(v)
}

/// How big an image's volume is made: `size` (`--size`), else an image of
/// fsfit's keeps its size and a new or empty file gets `default`;
/// `overwrite` takes a file fsfit did not make (`--overwrite-image`);
/// `made_by` is the command the marker names.
///
/// `--size` is the volume's, as mkfs sees it, on every command; the marker
/// follows it. An image 4 KiB short of `--size` would not be the card it
/// stands for: mkfs's defaults change at sizes such as 512 MiB (ext4 takes
/// 1K blocks below it), and format's plan for the image would differ from
/// advise's for a card of that size.
pub struct Sizing<'a> {
    pub size: Option<u64>,
    pub default: u64,
    pub overwrite: bool,
    pub made_by: &'a str,
}

/// An image ready to attach: its file is sized `volume + MARKER_BYTES` and
/// marked.
pub struct Image {
    pub volume: u64,
    /// This run made the file (it did not exist before).
    pub created: bool,
}

/// What an existing file of `len` bytes holds, in words, most said first,
/// for a refusal that keeps what fits (the caller knows how to look:
/// info::describe::describe_file_briefly).
pub type Describe = fn(&Path, u64) -> Vec<String>;

/// Decide whether `path` may be formatted, then size and mark it as
/// `sizing` says. `need` checks the volume.
/// Nothing is written before every check has passed.
pub fn prepare(
    path: &Path,
    sizing: &Sizing<'_>,
    need: impl Fn(u64) -> Result<()>,
    describe: Describe,
) -> Result<Image> {
    let &Sizing {
        size,
        default,
        overwrite,
        made_by,
    } = sizing;
    let shown = path.display();
    let existing = match std::fs::symlink_metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(Error::work(format!("{shown}: {e}"))),
    };
    let created = existing.is_none();
    let (volume, file) = match existing {
        None => {
            let volume = size.unwrap_or(default);
            need(volume)?;
            (volume, create(path)?)
        }
        Some(m) => {
            let (f, len) = open_existing(path, &m)?;
            let volume = if len == 0 {
                size.unwrap_or(default)
            } else if let Some(v) = read_marker(&f, len) {
                size.unwrap_or(v)
            } else if overwrite {
                size.unwrap_or(len)
            } else {
                return Err(not_ours(path, len, describe));
            };
            need(volume)?;
            (volume, f)
        }
    };
    mark(&file, volume, path, made_by)?;
    Ok(Image { volume, created })
}

/// The refusal of a file of `len` bytes that fsfit did not make, without
/// `--overwrite-image` (bench, advise).
pub fn not_ours(path: &Path, len: u64, describe: Describe) -> Error {
    not_made_here(
        path,
        len,
        describe,
        "overwrite",
        "--overwrite-image erases it",
    )
}

/// Refusing to `verb` a file fsfit did not make, and what to do `instead`:
/// both and the path kept whole, what the file holds (`describe`) said as
/// fully as one line of 100 columns allows (bench's and advise's refusal,
/// and format's).
pub fn not_made_here(
    path: &Path,
    len: u64,
    describe: Describe,
    verb: &str,
    instead: &str,
) -> Error {
    let p = path.display();
    let said = describe(path, len)
        .into_iter()
        .map(|d| format!("refusing to {verb} {p} ({d}): not made by fsfit; {instead}"));
    let bare = format!("refusing to {verb} {p}: not made by fsfit; {instead}");
    Error::input(crate::units::first_fitting(said.chain([bare])))
}

/// A new image file, only this process's (never through a symlink).
fn create(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| Error::work(format!("{}: cannot create the image: {e}", path.display())))
}

/// An existing regular file (not a symlink, device or folder), opened, and
/// still the file `m` describes; with its length.
fn open_existing(path: &Path, m: &std::fs::Metadata) -> Result<(File, u64)> {
    let shown = path.display();
    let ft = m.file_type();
    if ft.is_symlink() {
        return Err(Error::input(format!(
            "refusing to use {shown}: it is a symbolic link, and fsfit formats only the file it is given; pass the file it points to"
        )));
    }
    if !ft.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let hint = if ft.is_block_device() {
            " (to benchmark a drive, use --device)"
        } else {
            ""
        };
        return Err(Error::input(format!(
            "refusing to use {shown}: it is not a regular file{hint}"
        )));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| Error::work(format!("{shown}: {e}")))?;
    let fm = f
        .metadata()
        .map_err(|e| Error::work(format!("{shown}: {e}")))?;
    if (fm.dev(), fm.ino()) != (m.dev(), m.ino()) {
        return Err(Error::work(format!(
            "{shown} changed while fsfit looked at it; try again"
        )));
    }
    Ok((f, fm.len()))
}

/// Size the file to the volume plus the marker, and write the marker.
fn mark(file: &File, volume: u64, path: &Path, made_by: &str) -> Result<()> {
    let shown = path.display();
    file.set_len(volume + MARKER_BYTES)
        .map_err(|e| Error::work(format!("{shown}: cannot size the image: {e}")))?;
    file.write_all_at(&marker(volume, made_by), volume)
        .and_then(|_| file.sync_all())
        .map_err(|e| Error::work(format!("{shown}: cannot write fsfit's marker: {e}")))
}

/// A private folder for a temporary image (mkdtemp: a fresh name, mode 0700,
/// made with O_EXCL semantics), recorded for `fsfit cleanup`, removed with
/// everything in it when dropped.
pub struct TempDir {
    dir: Option<tempfile::TempDir>,
}

impl TempDir {
    pub fn new() -> Result<TempDir> {
        let base = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix(&format!("fsfit-bench-{}-", std::process::id()))
            .tempdir_in(&base)
            .map_err(|e| {
                Error::work(format!(
                    "cannot make a temporary folder in {}: {e}",
                    base.display()
                ))
            })?;
        super::state::add_dir(dir.path());
        Ok(TempDir { dir: Some(dir) })
    }

    pub fn path(&self) -> &Path {
        self.dir.as_ref().expect("present until dropped").path()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(d) = self.dir.take() {
            let p = d.path().to_path_buf();
            if d.close().is_ok() {
                super::state::remove_dir(&p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_words(_: &Path, len: u64) -> Vec<String> {
        vec![crate::units::iec(len)]
    }

    #[test]
    fn marker_round_trip_and_only_at_the_end() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.img");
        let sizing = |size, made_by| Sizing {
            size,
            default: 4 << 30,
            overwrite: false,
            made_by,
        };
        let img = prepare(&p, &sizing(Some(1 << 20), "format"), |_| Ok(()), no_words).unwrap();
        assert!(img.created);
        // The volume is the size asked for, the marker the file's last
        // 4 KiB after it.
        assert_eq!(img.volume, 1 << 20);
        let f = File::open(&p).unwrap();
        let len = f.metadata().unwrap().len();
        assert_eq!(len, (1 << 20) + MARKER_BYTES);
        assert_eq!(read_marker(&f, len), Some(1 << 20));
        let tail = std::fs::read(&p).unwrap()[img.volume as usize..].to_vec();
        let text = String::from_utf8_lossy(&tail);
        assert!(text.contains("made by fsfit format:"), "{text}");
        // Used again: keeps its size without --size, and was not made now.
        let again = sizing(None, "bench");
        let img = prepare(&p, &again, |_| Ok(()), no_words).unwrap();
        assert_eq!(img.volume, 1 << 20);
        assert!(!img.created);
        assert_eq!(
            std::fs::metadata(&p).unwrap().len(),
            (1 << 20) + MARKER_BYTES
        );
        // A file of someone else's is refused, and left as it was.
        let q = d.path().join("video.mp4");
        std::fs::write(&q, vec![7u8; 100_000]).unwrap();
        let e = prepare(&q, &again, |_| Ok(()), no_words).err().unwrap();
        assert!(matches!(e, Error::Input(_)), "{e:?}");
        let e = e.to_string();
        assert!(e.starts_with("refusing to overwrite"), "{e}");
        assert!(
            e.contains("video.mp4") && e.contains("not made by fsfit"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        assert_eq!(std::fs::read(&q).unwrap(), vec![7u8; 100_000]);
        // A marker whose size does not match the file is not fsfit's.
        let mut m = marker(10, "bench");
        m.truncate(200);
        std::fs::write(&q, &m).unwrap();
        let f = File::open(&q).unwrap();
        assert_eq!(read_marker(&f, 200), None);
    }

    #[test]
    fn the_marker_names_the_command_that_made_the_image() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_name(&argv(&["fsfit", "-q", "advise", "t"])),
            "advise"
        );
        assert_eq!(
            command_name(&argv(&["/usr/bin/fsfit", "bench", "--quick"])),
            "bench"
        );
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.img");
        let sizing = Sizing {
            size: Some(64 << 10),
            default: 4 << 30,
            overwrite: false,
            made_by: "crash",
        };
        prepare(&p, &sizing, |_| Ok(()), no_words).unwrap();
        // The volume is the size asked for; the marker comes after it.
        assert_eq!(
            std::fs::metadata(&p).unwrap().len(),
            (64 << 10) + MARKER_BYTES
        );
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        assert!(text.contains("made by fsfit crash:"), "{text}");
        assert!(!text.contains("fsfit bench"), "{text}");
    }

    #[test]
    fn a_failed_size_check_touches_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("new.img");
        let sizing = Sizing {
            size: Some(1 << 20),
            default: 4 << 30,
            overwrite: false,
            made_by: "format",
        };
        let e = prepare(&p, &sizing, |_| Err(Error::work("too small")), no_words)
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "too small");
        assert!(!p.exists());
    }
}
