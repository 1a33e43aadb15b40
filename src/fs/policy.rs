//! Mount policies (`--mount-policy`): the options a volume is mounted with
//! where people actually use it. `server` is fsfit's own default (no extra
//! options); `desktop` is what a Linux desktop's automounter, udisks2, adds;
//! `windows-write-through` approximates Windows' "quick removal" policy for
//! removable drives (every write request goes through to the device, with
//! the metadata it changed, before the call returns). Linux has no mount
//! option that does that per request: `-o sync` also makes drivers write
//! their metadata synchronously inside a request (vfat both FATs for every
//! cluster it allocates, where Windows' fastfat writes them once a
//! request), so the policy mounts `dirsync` (folder changes go through as
//! they happen) and fsfit opens the files it writes `O_SYNC` ([`writing`]):
//! each write call returns once its data and metadata are on the device.
//! Each filesystem's own options live in its registry entry
//! ([`super::DesktopOptions`], [`super::FuseDriver::sync_ignored`]); this
//! file only combines them.

use super::Filesystem;
use crate::device::driver::Driver;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MountPolicy {
    /// No extra options: the kernel's defaults, as a server mounts.
    #[default]
    Server,
    /// udisks2's options for the filesystem, as a Linux desktop mounts a stick.
    Desktop,
    /// Every write request synchronous, approximating Windows' quick-removal
    /// policy.
    WindowsWriteThrough,
}

/// udisks2 (src/udiskslinuxmountoptions.c, `calculate_mount_options`)
/// starts every mount's options with these; `uhelper=udisks2` is left out
/// only for erofs and zonefs, which fsfit does not make.
const UDISKS_COMMON: &[&str] = &["nodev", "nosuid", "uhelper=udisks2"];
/// What of them a FUSE driver takes: `uhelper=` is for mount(8)'s own
/// bookkeeping, which a FUSE program run directly does not do.
const UDISKS_COMMON_FUSE: &[&str] = &["nodev", "nosuid"];

impl MountPolicy {
    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            MountPolicy::Server => "server",
            MountPolicy::Desktop => "desktop",
            MountPolicy::WindowsWriteThrough => "windows-write-through",
        }
    }

    /// One line for people: what the policy is, and that the Windows one
    /// is only an approximation.
    pub fn describe(self) -> &'static str {
        match self {
            MountPolicy::Server => "server: the kernel's default mount options",
            MountPolicy::Desktop => {
                "desktop: the options udisks2, a Linux desktop's automounter, uses"
            }
            MountPolicy::WindowsWriteThrough => {
                "windows-write-through: each write request synchronous, approximating \
                 Windows' quick removal"
            }
        }
    }

    /// Whether the files written under this policy are opened to write
    /// through ([`writing`]).
    pub fn writes_through(self) -> bool {
        self == MountPolicy::WindowsWriteThrough
    }

    /// The policy `advise --for` implies: drives used only with Windows
    /// are written through; a Linux desktop automounts; anything else
    /// (no systems named, or several kinds) keeps the server default.
    pub fn implied_by(systems: &[&str]) -> (MountPolicy, String) {
        let only = |name: &str| !systems.is_empty() && systems.iter().all(|s| *s == name);
        if only("windows") {
            (
                MountPolicy::WindowsWriteThrough,
                "--for names only Windows, whose default for removable drives is quick \
                 removal (write-through)"
                    .to_string(),
            )
        } else if only("linux") {
            (
                MountPolicy::Desktop,
                "--for names only Linux, where a desktop automounts the drive (udisks2)"
                    .to_string(),
            )
        } else {
            (
                MountPolicy::Server,
                "the default: only --for windows or only --for linux implies another".to_string(),
            )
        }
    }
}

/// The driver with the policy's options added, and what the results record.
#[derive(Clone, Debug)]
pub struct Applied {
    pub driver: Driver,
    /// The options the policy added, comma-separated ("" for server).
    pub options: String,
    /// Where the driver does not do what the policy asks (a FUSE driver
    /// that ignores `sync`), and for the Windows policy, that it is an
    /// approximation.
    pub note: Option<String>,
}

/// `$UID`/`$GID` as udisks2 fills them: the user who asked for the mount
/// (the one behind sudo, else this process's).
fn ids() -> (String, String) {
    let env = |k: &str| std::env::var(k).ok().filter(|v| v.parse::<u32>().is_ok());
    // SAFETY: getuid/getgid cannot fail and touch no memory.
    #[cfg(unix)]
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // Policies are applied by Linux mounts only; elsewhere nothing reads these.
    #[cfg(not(unix))]
    let (uid, gid) = (0u32, 0u32);
    (
        env("SUDO_UID").unwrap_or_else(|| uid.to_string()),
        env("SUDO_GID").unwrap_or_else(|| gid.to_string()),
    )
}

/// The options `policy` adds for `fs` under a kernel or FUSE driver.
pub fn options(fs: &dyn Filesystem, policy: MountPolicy, fuse: bool) -> Vec<String> {
    let (uid, gid) = ids();
    let fill = |o: &&str| o.replace("$UID", &uid).replace("$GID", &gid);
    let d = &fs.info().desktop_options;
    match (policy, fuse) {
        (MountPolicy::Server, _) => Vec::new(),
        (MountPolicy::Desktop, false) => UDISKS_COMMON.iter().chain(d.kernel).map(fill).collect(),
        (MountPolicy::Desktop, true) => UDISKS_COMMON_FUSE.iter().chain(d.fuse).map(fill).collect(),
        (MountPolicy::WindowsWriteThrough, _) => vec!["dirsync".to_string()],
    }
}

/// How a file to be written is opened: for writing, and where `through`
/// (the policy [`MountPolicy::writes_through`]) with `O_SYNC`, so that each
/// write call is a request the device has taken, with its metadata, before
/// it returns, as under Windows' quick removal.
pub fn writing(through: bool) -> std::fs::OpenOptions {
    let mut o = std::fs::OpenOptions::new();
    o.write(true);
    #[cfg(unix)]
    if through {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_SYNC);
    }
    // Policies are applied by Linux mounts only: on Windows a drive is
    // measured as Windows mounted it, under the removal policy its user chose.
    #[cfg(not(unix))]
    let _ = through;
    o
}

/// Create (or truncate) `path` to write it, opened as [`writing`] says.
pub fn create(path: &std::path::Path, through: bool) -> std::io::Result<std::fs::File> {
    writing(through).create(true).truncate(true).open(path)
}

/// `driver` (as [`super::drivers::choose`] picked it) mounted under `policy`.
pub fn apply(fs: &dyn Filesystem, policy: MountPolicy, driver: &Driver) -> Applied {
    let added = options(fs, policy, driver.is_fuse()).join(",");
    let drivers = &fs.info().drivers;
    let (ignored, differs) = match driver {
        Driver::Fuse { .. } => (drivers.fuse.and_then(|f| f.sync_ignored), None),
        Driver::Kernel { .. } => (None, drivers.kernel_sync),
    };
    let note = match (policy, ignored) {
        (MountPolicy::WindowsWriteThrough, Some(why)) => Some(format!(
            "approximates write-through, but this driver ignores synchronous writes: {why}"
        )),
        (MountPolicy::WindowsWriteThrough, None) => Some(
            std::iter::once(
                "approximates Windows' write-through: files opened O_SYNC, folders dirsync",
            )
            .chain(differs)
            .collect::<Vec<_>>()
            .join("\n"),
        ),
        _ => None,
    };
    Applied {
        driver: with_options(driver, &added),
        options: added,
        note,
    }
}

/// How every view names a result's policy: the policy, then the options
/// the mount used and what the policy only approximates, one item a line
/// (text indents them under the config; HTML joins them). A note's lines
/// are items of their own, so each fits a terminal's line.
pub fn shown(name: &str, options: &str, note: Option<&str>) -> Vec<String> {
    let mut v = vec![format!("mount policy {name}")];
    if !options.is_empty() {
        v.push(format!("-o {}", options.trim_start_matches("-o ")));
    }
    v.extend(note.into_iter().flat_map(str::lines).map(str::to_string));
    v
}

/// `d` with `opts` (comma-separated) added to what it mounts with.
pub fn with_options(d: &Driver, opts: &str) -> Driver {
    if opts.is_empty() {
        return d.clone();
    }
    match d {
        Driver::Kernel { fstype, opts: old } => Driver::Kernel {
            fstype: fstype.clone(),
            opts: if old.is_empty() {
                opts.to_string()
            } else {
                format!("{old},{opts}")
            },
        },
        Driver::Fuse { program, args } => {
            let mut a = args.clone();
            a.extend(["-o".to_string(), opts.to_string()]);
            Driver::Fuse {
                program: program.clone(),
                args: a,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desktop_options_are_udisks2s_and_windows_is_sync() {
        let fat = crate::fs::by_name("fat32").unwrap();
        let k = options(fat, MountPolicy::Desktop, false).join(",");
        assert!(k.starts_with("nodev,nosuid,uhelper=udisks2,uid="), "{k}");
        assert!(k.ends_with("shortname=mixed,utf8=1,showexec,flush"), "{k}");
        assert!(!k.contains('$'), "{k}");
        let ext4 = crate::fs::by_name("ext4").unwrap();
        assert_eq!(
            options(ext4, MountPolicy::Desktop, false).join(","),
            "nodev,nosuid,uhelper=udisks2,errors=remount-ro"
        );
        assert!(options(ext4, MountPolicy::Server, false).is_empty());
        for f in crate::fs::all() {
            assert_eq!(
                options(*f, MountPolicy::WindowsWriteThrough, true),
                ["dirsync"]
            );
        }
    }

    #[test]
    fn applying_adds_to_the_driver_and_says_what_is_approximate() {
        let exfat = crate::fs::by_name("exfat").unwrap();
        let fuse = Driver::Fuse {
            program: "mount.exfat-fuse".into(),
            args: vec![],
        };
        let a = apply(exfat, MountPolicy::WindowsWriteThrough, &fuse);
        assert!(matches!(&a.driver, Driver::Fuse { args, .. } if args == &["-o", "dirsync"]));
        assert!(a.note.unwrap().contains("O_SYNC"));
        let fat = crate::fs::by_name("fat32").unwrap();
        let fusefat = Driver::Fuse {
            program: "fusefat".into(),
            args: vec![],
        };
        let a = apply(fat, MountPolicy::WindowsWriteThrough, &fusefat);
        assert!(a.note.unwrap().contains("ignores synchronous writes"));
        let kernel = Driver::Kernel {
            fstype: "exfat".into(),
            opts: String::new(),
        };
        let a = apply(exfat, MountPolicy::WindowsWriteThrough, &kernel);
        assert!(matches!(&a.driver, Driver::Kernel { opts, .. } if opts == "dirsync"));
        assert!(a.note.unwrap().contains("approximates"));
        let a = apply(exfat, MountPolicy::Server, &kernel);
        assert!(a.options.is_empty() && a.note.is_none());
    }

    #[test]
    fn kernel_vfat_says_where_its_approximation_is_not_windows_write_through() {
        let vfat = Driver::Kernel {
            fstype: "vfat".into(),
            opts: String::new(),
        };
        let fat = crate::fs::by_name("fat32").unwrap();
        let note = apply(fat, MountPolicy::WindowsWriteThrough, &vfat)
            .note
            .unwrap();
        let lines = shown("windows-write-through", "dirsync", Some(&note));
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[3].contains("allocates ahead"), "{lines:?}");
        // Indented by six under a config, each line fits 100 columns.
        assert!(lines.iter().all(|l| l.len() + 6 <= 100), "{lines:?}");
        assert!(apply(fat, MountPolicy::Server, &vfat).note.is_none());
        let ext4 = crate::fs::by_name("ext4").unwrap();
        let kernel = Driver::Kernel {
            fstype: "ext4".into(),
            opts: String::new(),
        };
        let note = apply(ext4, MountPolicy::WindowsWriteThrough, &kernel).note;
        assert_eq!(note.unwrap().lines().count(), 1);
        // Every registry's difference is one line that fits under a config.
        for f in crate::fs::all() {
            if let Some(d) = f.info().drivers.kernel_sync {
                assert!(!d.contains('\n') && d.len() + 6 <= 100, "{d}");
            }
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn write_through_opens_files_o_sync_and_nothing_else_does() {
        use std::os::fd::AsRawFd;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        for through in [false, true] {
            let f = create(&p, through).unwrap();
            // SAFETY: F_GETFL on a descriptor this test owns.
            let fl = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
            assert_eq!(fl & libc::O_SYNC == libc::O_SYNC, through, "{fl:#o}");
            assert_eq!(fl & libc::O_ACCMODE, libc::O_WRONLY);
        }
        for p in [
            MountPolicy::Server,
            MountPolicy::Desktop,
            MountPolicy::WindowsWriteThrough,
        ] {
            assert_eq!(p.writes_through(), p == MountPolicy::WindowsWriteThrough);
        }
    }

    #[test]
    fn for_implies_a_policy() {
        assert_eq!(
            MountPolicy::implied_by(&["windows"]).0,
            MountPolicy::WindowsWriteThrough
        );
        assert_eq!(MountPolicy::implied_by(&["linux"]).0, MountPolicy::Desktop);
        assert_eq!(
            MountPolicy::implied_by(&["windows", "macos"]).0,
            MountPolicy::Server
        );
        assert_eq!(MountPolicy::implied_by(&[]).0, MountPolicy::Server);
    }
}
