//! The kernel-driver lab (scripts/lab/): run a command inside user-mode
//! Linux (vfat, udf, f2fs) for drivers this host's kernel lacks. The guest's
//! root is the host's /, so paths, binaries and temp files are shared.

use super::skip;
use std::path::Path;
use std::process::Command;

/// What a command run in the lab printed and how it ended.
pub struct Run {
    /// The command's exit status; 124 when the lab's timeout killed it,
    /// 125 when the lab itself failed.
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Panics with everything the guest printed unless the command succeeded.
    pub fn ok(self) -> Run {
        assert_eq!(
            self.status, 0,
            "lab command failed ({}):\n{}\n{}",
            self.status, self.stdout, self.stderr
        );
        self
    }
}

fn script(name: &str) -> String {
    format!("{}/scripts/lab/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// True when a user-mode Linux that boots here and its modules are there
/// (scripts/lab/fetch-uml links it into the lab cache: the installed
/// `user-mode-linux`, or a newer suite's where the installed one cannot run
/// on this host's kernel) and we are root (the guest formats and mounts).
pub fn uml_ready() -> bool {
    if !super::can_mount() {
        return false;
    }
    let cache = std::env::var("FSFIT_LAB_CACHE").unwrap_or_else(|_| "/var/cache/fsfit-lab".into());
    let cached = std::path::Path::new(&cache).join("uml");
    let (have_uml, modules) = if cached.join("linux.uml").exists() {
        (true, cached.join("modules"))
    } else {
        (super::have(&["linux.uml"]), "/usr/lib/uml/modules".into())
    };
    if !have_uml {
        return false;
    }
    let has_modules = std::fs::read_dir(&modules)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if !has_modules {
        return skip(&format!(
            "user-mode Linux modules in {} (user-mode-linux, scripts/lab/fetch-uml)",
            modules.display()
        ));
    }
    true
}

/// The kernel modules of filesystems `fss`, from fsfit's registry, plus
/// loop (fsfit bench attaches its image to a loop device).
fn modules(fss: &[&str]) -> String {
    let mut m: Vec<&str> = fss
        .iter()
        .flat_map(|f| {
            fsfit::fs::by_name(f)
                .unwrap_or_else(|| panic!("no filesystem {f}"))
                .info()
                .drivers
                .kernel_modules
                .iter()
                .copied()
        })
        .collect();
    m.push("loop");
    m.join(",")
}

/// Boots user-mode Linux with the kernel drivers of filesystems `fss`, runs
/// `cmd` (program and arguments) in this directory with the caller's
/// FSFIT_* settings, and returns its output. `timeout` in seconds; the guest
/// is killed and cleaned up after it.
pub fn uml(fss: &[&str], cmd: &[&str], timeout: u32) -> Run {
    uml_with(fss, &[], cmd, timeout)
}

/// `uml` with `extra` kernel modules loaded too (`fuse`: fsfit crash serves
/// its write recorder through FUSE inside the guest).
pub fn uml_with(fss: &[&str], extra: &[&str], cmd: &[&str], timeout: u32) -> Run {
    let mut mods = modules(fss);
    for m in extra {
        mods.push(',');
        mods.push_str(m);
    }
    let out = Command::new(script("uml"))
        .args(["--timeout", &timeout.to_string()])
        .args(["--modules", &mods, "--"])
        .args(cmd)
        .output()
        .expect("run scripts/lab/uml");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One real-volume measurement line of scripts/lab/measure.
#[derive(Debug)]
pub struct Measured {
    pub fs: String,
    pub cluster: u64,
    pub options: String,
    pub free_before: u64,
    pub free_after: u64,
}

/// The shell command that measures `fs` at `cluster` on the image file
/// `image` with the kernel driver, mounted with `options` ("" for none).
pub fn measure_cmd(image: &Path, fs: &str, cluster: u64, tree: &Path, options: &str) -> String {
    format!(
        "{} {} {fs} {cluster} {} '{options}'",
        script("measure"),
        image.display(),
        tree.display()
    )
}

/// The measurement lines in a lab run's output.
pub fn measured(out: &str) -> Vec<Measured> {
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 5 {
                return None;
            }
            Some(Measured {
                fs: f[0].to_string(),
                cluster: f[1].parse().ok()?,
                options: if f[2] == "-" {
                    String::new()
                } else {
                    f[2].to_string()
                },
                free_before: f[3].parse().ok()?,
                free_after: f[4].parse().ok()?,
            })
        })
        .collect()
}

/// True when the QEMU lab can run: qemu-system-x86_64, busybox-static and
/// the kernel scripts/lab/fetch-kernel unpacks (scripts/install-deps runs it).
pub fn qemu_ready() -> bool {
    if !super::have(&["qemu-system-x86_64", "busybox", "modprobe"]) || !super::can_mount() {
        return false;
    }
    let cache = std::env::var("FSFIT_LAB_CACHE").unwrap_or("/var/cache/fsfit-lab".into());
    let has_kernel = std::fs::read_dir(Path::new(&cache).join("root/boot"))
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("vmlinuz-"))
        })
        .unwrap_or(false);
    if !has_kernel {
        return skip(&format!(
            "the QEMU lab's kernel in {cache} (run scripts/lab/fetch-kernel)"
        ));
    }
    true
}

/// Boots QEMU (TCG) with the backports kernel and the drivers of `fss`,
/// `image` as /dev/vda and `share` writable at its own path (the guest's /tmp
/// is a tmpfs, the rest of / read-only), runs `cmd` and returns its output.
pub fn qemu(fss: &[&str], share: &Path, image: &Path, cmd: &[&str], timeout: u32) -> Run {
    let out = Command::new(script("qemu"))
        .args(["--timeout", &timeout.to_string()])
        .args(["--modules", &modules(fss)])
        .arg("--share")
        .arg(share)
        .arg("--image")
        .arg(image)
        .arg("--")
        .args(cmd)
        .output()
        .expect("run scripts/lab/qemu");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
