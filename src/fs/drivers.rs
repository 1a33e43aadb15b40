//! Which driver mounts each filesystem on this host: the kernel's when
//! /proc/filesystems lists it or modprobe loads it, else a FUSE driver.

use crate::device::driver::Driver;
use crate::device::have_program;
use crate::fs::Filesystem;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Choice {
    Kernel,
    Fuse,
    Auto,
}

/// The filesystem types a /proc/filesystems text lists (its last column;
/// "nodev" marks those without a device).
fn filesystems_listed(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| l.split_whitespace().last())
}

/// Read afresh each time: a modprobe between two looks adds to it.
fn listed(fstype: &str) -> bool {
    std::fs::read_to_string("/proc/filesystems")
        .is_ok_and(|t| filesystems_listed(&t).any(|f| f == fstype))
}

/// Does the running kernel mount `fstype`, loading `modules` (the
/// registry's [`crate::fs::Drivers::kernel_modules`]) if it is not there yet?
pub fn kernel_has(fstype: &str, modules: &[&str]) -> bool {
    if listed(fstype) {
        return true;
    }
    for m in modules {
        let _ = std::process::Command::new("modprobe")
            .args(["-q", m])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    listed(fstype)
}

/// Could the running kernel mount `fstype` without loading anything new
/// being tried: listed in /proc/filesystems, or one of its `modules` in
/// this kernel's modules.dep. (`fsfit usage` asks; it loads no module.)
pub fn kernel_available(fstype: &str, modules: &[&str]) -> bool {
    let known = known_to_kernel();
    known.filesystems.iter().any(|f| f == fstype)
        || modules.iter().any(|m| known.modules.contains(*m))
}

/// What the running kernel mounts now and which filesystem modules it has,
/// read once: usage asks for each of its planned configs (about 60), and a
/// distribution's modules.dep runs to a megabyte. Nothing usage does loads
/// a module, so one look serves the whole run.
struct KnownToKernel {
    filesystems: Vec<String>,
    modules: std::collections::HashSet<String>,
}

fn known_to_kernel() -> &'static KnownToKernel {
    static KNOWN: std::sync::OnceLock<KnownToKernel> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let filesystems = std::fs::read_to_string("/proc/filesystems")
            .map(|t| filesystems_listed(&t).map(str::to_string).collect())
            .unwrap_or_default();
        let dep = format!("/lib/modules/{}/modules.dep", kernel_release());
        let modules = std::fs::read_to_string(dep)
            .map(|t| t.lines().filter_map(module_name).collect())
            .unwrap_or_default();
        KnownToKernel {
            filesystems,
            modules,
        }
    })
}

/// `kernel/fs/exfat/exfat.ko.xz: …` → `exfat`.
fn module_name(dep_line: &str) -> Option<String> {
    let path = dep_line.split(':').next()?;
    let file = path.rsplit('/').next()?;
    file.contains(".ko")
        .then(|| file.split('.').next().unwrap_or("").to_string())
}

pub fn fuse_has(program: &str) -> bool {
    std::path::Path::new("/dev/fuse").exists() && have_program(program)
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// A version-looking word (`1.3.0+git20220115`, `v6.2` → `6.2`) in a line
/// that speaks of a version or names the tool, not in usage text.
pub fn version_in(text: &str, program: &str) -> Option<String> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let short = name
        .trim_start_matches("mount.")
        .trim_start_matches("mkfs.");
    // "exfat" for mount.exfat-fuse, whose -V says "FUSE exfat 1.3.0".
    let stem = short.split(['-', '.']).next().unwrap_or(short);
    text.lines()
        .filter(|l| {
            let low = l.to_ascii_lowercase();
            !low.contains("usage")
                && (low.contains("version")
                    || l.contains(name)
                    || l.contains(short)
                    || l.contains(stem))
        })
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')'))
        .map(|w| w.strip_prefix('v').unwrap_or(w))
        .find(|w| w.len() > 1 && w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_string)
}

/// The version a program reports for -V / --version, else the Debian
/// package's version (`dpkg -S`), else "unknown".
pub fn tool_version(program: &str) -> String {
    for flag in ["-V", "--version"] {
        let Ok(out) = std::process::Command::new(program)
            .arg(flag)
            .stdin(std::process::Stdio::null())
            .output()
        else {
            continue;
        };
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(v) = version_in(&text, program) {
            return v;
        }
    }
    package_version(program).unwrap_or_else(|| "unknown".to_string())
}

fn package_version(program: &str) -> Option<String> {
    let path = std::env::split_paths(&std::env::var_os("PATH")?)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join(program))
        .find(|p| p.is_file())?;
    // On a merged-/usr system dpkg knows /sbin/fsck.fat, not the
    // /usr/sbin/fsck.fat that PATH finds first: ask for both.
    let bare = path
        .strip_prefix("/usr")
        .ok()
        .map(|p| std::path::Path::new("/").join(p));
    let out = std::iter::once(path.clone())
        .chain(bare)
        .filter_map(|p| {
            let out = std::process::Command::new("dpkg")
                .arg("-S")
                .arg(&p)
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            out.status.success().then_some(out)
        })
        .next()?;
    let pkg = String::from_utf8_lossy(&out.stdout)
        .split(':')
        .next()?
        .trim()
        .to_string();
    let out = std::process::Command::new("dpkg-query")
        .args(["-W", "-f", "${Version}", &pkg])
        .output()
        .ok()?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !v.is_empty()).then(|| format!("{v} (package {pkg})"))
}

/// A mountable driver for `fs` as chosen, with the label the results record.
pub fn choose(fs: &dyn Filesystem, choice: Choice) -> crate::Result<(Driver, String)> {
    let modules = fs.info().drivers.kernel_modules;
    let kernel = fs.info().drivers.kernel.filter(|t| kernel_has(t, modules));
    let fuse_driver = fs.info().drivers.fuse.map(|f| (f.program, f.args));
    let fuse = fuse_driver.filter(|(p, _)| fuse_has(p));
    let use_kernel = match choice {
        Choice::Kernel => true,
        Choice::Fuse => false,
        Choice::Auto => kernel.is_some(),
    };
    if use_kernel {
        let Some(t) = kernel else {
            return Err(crate::Error::work(format!(
                "this kernel has no {} driver (not in /proc/filesystems, modprobe {} failed)",
                fs.name(),
                if modules.is_empty() {
                    "-".to_string()
                } else {
                    modules.join(" ")
                }
            )));
        };
        let label = format!("kernel:{t} {}", kernel_release());
        return Ok((
            Driver::Kernel {
                fstype: t.to_string(),
                opts: String::new(),
            },
            label,
        ));
    }
    match fuse {
        Some((p, args)) => {
            let name = p.trim_start_matches("mount.");
            let label = format!("fuse:{name} {}", tool_version(p));
            Ok((
                Driver::Fuse {
                    program: p.to_string(),
                    args: args.iter().map(|s| s.to_string()).collect(),
                },
                label,
            ))
        }
        None => Err(crate::Error::work(match fuse_driver {
            Some((p, _)) => format!(
                "no FUSE driver for {}: install {p} (and /dev/fuse must exist)",
                fs.name()
            ),
            None => format!(
                "{} has no FUSE driver and this kernel has no driver for it",
                fs.name()
            ),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::{filesystems_listed, module_name, version_in};

    #[test]
    fn module_names_from_modules_dep_lines() {
        let line = "kernel/fs/exfat/exfat.ko.xz: kernel/fs/nls/nls_base.ko.xz";
        assert_eq!(module_name(line).as_deref(), Some("exfat"));
        assert_eq!(
            module_name("kernel/fs/ntfs3/ntfs3.ko:").as_deref(),
            Some("ntfs3")
        );
        assert_eq!(module_name("modules.builtin"), None);
    }

    #[test]
    fn filesystem_types_from_a_proc_filesystems_text() {
        let text = "nodev\tsysfs\nnodev\tfuse\n\text4\n\tvfat\n";
        let listed: Vec<&str> = filesystems_listed(text).collect();
        assert_eq!(listed, ["sysfs", "fuse", "ext4", "vfat"]);
    }

    #[test]
    fn versions_from_real_tool_output() {
        assert_eq!(
            version_in("FUSE exfat 1.3.0+git20220115", "mount.exfat-fuse").as_deref(),
            Some("1.3.0+git20220115")
        );
        assert_eq!(
            version_in("ntfs-3g 2022.10.3 integrated FUSE 28", "ntfs-3g").as_deref(),
            Some("2022.10.3")
        );
        assert_eq!(
            version_in("exfatprogs version : 1.2.0", "mkfs.exfat").as_deref(),
            Some("1.2.0")
        );
        assert_eq!(
            version_in(
                "mke2fs 1.47.0 (5-Feb-2023)\n\tUsing EXT2FS Library version 1.47.0",
                "mkfs.ext4"
            )
            .as_deref(),
            Some("1.47.0")
        );
        assert_eq!(
            version_in("mkfs.btrfs, part of btrfs-progs v6.2", "mkfs.btrfs").as_deref(),
            Some("6.2")
        );
        // fusefat prints only its usage: no version there.
        assert_eq!(
            version_in(
                "Usage: fusefat imagefile mountpoint [options]\n  -o rw+ 2.4",
                "fusefat"
            ),
            None
        );
    }

    /// fsck.fat has no version flag (-V means verify): its version comes
    /// from dpkg, which on merged /usr knows /sbin/fsck.fat only.
    #[test]
    fn version_of_fsck_fat_from_its_package() {
        let dpkg_knows = std::process::Command::new("dpkg")
            .args(["-S", "/sbin/fsck.fat"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !dpkg_knows {
            return; // not a Debian host with dosfstools
        }
        let v = super::tool_version("fsck.fat");
        assert!(v.contains("(package dosfstools)"), "{v}");
    }
}
