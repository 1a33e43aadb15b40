//! One view of the host: sysfs, the mount table, the swap list and the
//! holders of block devices, all read below [`Host::root`] (the real "/", or
//! a fake host in tests/fixtures/guard/). The only place fsfit parses
//! /proc/mounts, /proc/self/mountinfo and /proc/swaps.

use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Where to read the host's state: the real "/" in production, a fixture
/// directory in tests (sys/..., proc/mounts, proc/swaps, proc/self/mountinfo,
/// dev/ symlinks). Absolute symlinks inside it are taken relative to `root`.
pub struct Host {
    pub root: PathBuf,
}

/// One line of the mount table, its octal escapes undone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MountLine {
    pub source: String,
    pub point: String,
    pub fstype: String,
    /// MAJ:MIN of the mounted device (mountinfo only).
    pub devno: Option<String>,
}

impl Host {
    pub fn real() -> Host {
        Host {
            root: PathBuf::from("/"),
        }
    }

    #[cfg_attr(not(test), allow(dead_code))]
    pub fn at(root: impl Into<PathBuf>) -> Host {
        Host { root: root.into() }
    }

    pub fn is_real(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The file on this machine for an absolute path on the host.
    pub fn on_disk(&self, virt: &Path) -> PathBuf {
        match virt.strip_prefix("/") {
            Ok(rel) => self.root.join(rel),
            Err(_) => self.root.join(virt),
        }
    }

    pub fn read(&self, virt: &Path) -> Option<String> {
        let s = fs::read_to_string(self.on_disk(virt)).ok()?;
        Some(s.trim().to_string())
    }

    pub fn exists(&self, virt: &Path) -> bool {
        self.on_disk(virt).exists()
    }

    /// Names in a directory (holders/, slaves/), sorted; empty if it is missing.
    pub fn list(&self, virt: &Path) -> Vec<String> {
        let mut v: Vec<String> = match fs::read_dir(self.on_disk(virt)) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }

    /// `realpath -m` inside the host: every symlink followed, absolute ones
    /// from `root`; components that do not exist are kept as written.
    pub fn resolve(&self, virt: &Path) -> Option<PathBuf> {
        fn push_rev(todo: &mut Vec<OsString>, p: &Path) {
            let mut parts: Vec<OsString> = Vec::new();
            for c in p.components() {
                match c {
                    Component::Normal(s) => parts.push(s.to_os_string()),
                    Component::ParentDir => parts.push("..".into()),
                    _ => {}
                }
            }
            todo.extend(parts.into_iter().rev());
        }
        let mut out = PathBuf::from("/");
        let mut todo = Vec::new();
        push_rev(&mut todo, virt);
        let mut links = 0;
        while let Some(c) = todo.pop() {
            if c == ".." {
                out.pop();
                continue;
            }
            let next = out.join(&c);
            let disk = self.on_disk(&next);
            match fs::symlink_metadata(&disk) {
                Ok(m) if m.file_type().is_symlink() => {
                    links += 1;
                    if links > 40 {
                        return None;
                    }
                    let target = fs::read_link(&disk).ok()?;
                    if target.is_absolute() {
                        out = PathBuf::from("/");
                    }
                    push_rev(&mut todo, &target);
                }
                _ => out = next,
            }
        }
        Some(out)
    }

    /// The resolved sysfs directory of a block device, by kernel name.
    pub fn block_dir(&self, name: &str) -> Option<PathBuf> {
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return None;
        }
        let dir = self.resolve(&Path::new("/sys/class/block").join(name))?;
        self.exists(&dir.join("dev")).then_some(dir)
    }

    /// The kernel name of the block device MAJ:MIN.
    pub fn name_of_devno(&self, devno: &str) -> Option<String> {
        if devno.is_empty() || devno.contains('/') || devno.starts_with("0:") {
            return None;
        }
        let dir = self.resolve(&Path::new("/sys/dev/block").join(devno))?;
        if !self.exists(&dir.join("dev")) {
            return None;
        }
        Some(dir.file_name()?.to_string_lossy().into_owned())
    }
}

impl Host {
    /// proc/self/mountinfo: MAJ:MIN finds a root mounted from /dev/root.
    pub fn mountinfo(&self) -> Vec<MountLine> {
        self.read(Path::new("/proc/self/mountinfo"))
            .map(|t| parse_mountinfo(&t))
            .unwrap_or_default()
    }

    /// proc/mounts (what older hosts have; the fstab(5) format).
    pub fn mounts(&self) -> Vec<MountLine> {
        self.read(Path::new("/proc/mounts"))
            .map(|t| parse_mounts(&t))
            .unwrap_or_default()
    }

    /// Active swap areas, as /proc/swaps lists them.
    pub fn swaps(&self) -> Vec<String> {
        let Some(text) = self.read(Path::new("/proc/swaps")) else {
            return Vec::new();
        };
        text.lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .map(unescape)
            .collect()
    }

    /// The devices built directly on block device `dir` (dm, md), sorted.
    pub fn holders(&self, dir: &Path) -> Vec<String> {
        self.list(&dir.join("holders"))
    }

    /// The devices block device `dir` is built on (dm, md), sorted.
    pub fn slaves(&self, dir: &Path) -> Vec<String> {
        self.list(&dir.join("slaves"))
    }
}

/// `id parent MAJ:MIN root point options [optional...] - fstype source super`
fn parse_mountinfo(text: &str) -> Vec<MountLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let Some(sep) = f.iter().skip(6).position(|x| *x == "-").map(|p| p + 6) else {
            continue;
        };
        if f.len() < sep + 3 {
            continue;
        }
        out.push(MountLine {
            source: unescape(f[sep + 2]),
            point: unescape(f[4]),
            fstype: unescape(f[sep + 1]),
            devno: Some(f[2].to_string()),
        });
    }
    out
}

/// `source point fstype options dump pass`
fn parse_mounts(text: &str) -> Vec<MountLine> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            (f.len() >= 2).then(|| MountLine {
                source: unescape(f[0]),
                point: unescape(f[1]),
                fstype: f.get(2).map(|t| unescape(t)).unwrap_or_default(),
                devno: None,
            })
        })
        .collect()
}

/// Undoes the octal escapes (\040 for a space) of /proc/mounts and friends.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the mount table says is mounted at (or above) `dir`: the longest
/// mount point that holds it.
pub fn mount_of(dir: &Path) -> Option<MountLine> {
    let canon = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut best: Option<MountLine> = None;
    for m in Host::real().mounts() {
        let longer = best.as_ref().is_none_or(|b| m.point.len() > b.point.len());
        if canon.starts_with(&m.point) && longer {
            best = Some(m);
        }
    }
    best
}

/// Is something mounted exactly at `dir`?
pub fn is_mounted(dir: &Path) -> bool {
    Host::real()
        .mounts()
        .iter()
        .any(|m| Path::new(&m.point) == dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_parse_with_their_escapes() {
        let info = "36 35 98:0 /mnt1 /mnt/a\\040b rw,noatime master:1 - ext4 /dev/sdb1 rw\n\
                    37 35 259:2 / / rw - ext4 /dev/root rw\nbroken line\n";
        let m = parse_mountinfo(info);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (
                m[0].point.as_str(),
                m[0].source.as_str(),
                m[0].fstype.as_str()
            ),
            ("/mnt/a b", "/dev/sdb1", "ext4")
        );
        assert_eq!(m[1].devno.as_deref(), Some("259:2"));
        let m = parse_mounts("/dev/sdb1 /media/x\\011y vfat rw 0 0\nshort\n");
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].point.as_str(), m[0].fstype.as_str()),
            ("/media/x\ty", "vfat")
        );
        assert_eq!(m[0].devno, None);
    }

    #[test]
    fn octal_escapes() {
        assert_eq!(unescape(r"/media/a\040b\134c\011"), "/media/a b\\c\t");
        assert_eq!(unescape(r"tail\04"), r"tail\04");
    }

    #[test]
    fn the_root_is_mounted_here() {
        let m = mount_of(Path::new("/")).expect("/ is in the mount table");
        assert_eq!(m.point, "/");
        assert!(!is_mounted(Path::new("/no/such/mount/point")));
    }
}
