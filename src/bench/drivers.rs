//! Which driver mounts each filesystem on this host: the kernel's when
//! /proc/filesystems lists it or modprobe loads it, else a FUSE driver.

use crate::fs::Filesystem;
use crate::target::have_program;
use crate::target::mount::Driver;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Choice {
    Kernel,
    Fuse,
    Auto,
}

fn listed(fstype: &str) -> bool {
    std::fs::read_to_string("/proc/filesystems")
        .map(|t| {
            t.lines()
                .any(|l| l.split_whitespace().last() == Some(fstype))
        })
        .unwrap_or(false)
}

/// Does the running kernel mount `fstype` (loading its module if needed)?
pub fn kernel_has(fstype: &str) -> bool {
    if listed(fstype) {
        return true;
    }
    let loaded = std::process::Command::new("modprobe")
        .args(["-q", fstype])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    loaded && listed(fstype)
}

pub fn fuse_has(program: &str) -> bool {
    std::path::Path::new("/dev/fuse").exists() && have_program(program)
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The first version-looking word a program prints for -V / --version.
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
        let v = text
            .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            .find(|w| {
                w.len() > 1 && w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.')
            });
        if let Some(v) = v {
            return v.to_string();
        }
    }
    "unknown".to_string()
}

/// A mountable driver for `fs` as chosen, with the label the results record.
pub fn choose(fs: &dyn Filesystem, choice: Choice) -> Result<(Driver, String), String> {
    let kernel = fs.kernel_driver().filter(|t| kernel_has(t));
    let fuse = fs.fuse_driver().filter(|(p, _)| fuse_has(p));
    let use_kernel = match choice {
        Choice::Kernel => true,
        Choice::Fuse => false,
        Choice::Auto => kernel.is_some(),
    };
    if use_kernel {
        let Some(t) = kernel else {
            return Err(format!(
                "this kernel has no {} driver (not in /proc/filesystems, modprobe {} failed)",
                fs.name(),
                fs.kernel_driver().unwrap_or("-")
            ));
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
        None => Err(match fs.fuse_driver() {
            Some((p, _)) => format!(
                "no FUSE driver for {}: install {p} (and /dev/fuse must exist)",
                fs.name()
            ),
            None => format!(
                "{} has no FUSE driver and this kernel has no driver for it",
                fs.name()
            ),
        }),
    }
}
