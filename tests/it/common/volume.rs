//! The real-volume harness every mounted filesystem's test uses: a sparse
//! image formatted by the filesystem's own mkfs, attached to a loop device,
//! mounted with its real driver (kernel or FUSE), a tree copied on with
//! `cp -r`, statvfs before and after, and `fsfit usage --json` for the same
//! volume size and cluster beside it. Each filesystem's test is then a table
//! of cases plus its own trees and whatever extra it checks.

use super::{copy_tree, free_bytes, run, usage_json, Image, Loop, Mount};
use std::path::Path;
use std::process::Command;

/// Who mounts the volume.
pub enum Driver {
    /// `mount -t NAME DEV DIR`.
    Kernel,
    /// `PROGRAM DEV DIR` (mount.exfat-fuse, ntfs-3g).
    Fuse(&'static str),
}

/// How to make and mount one filesystem.
pub struct Fs {
    /// fsfit's name (`--fs NAME:CLUSTER`), also the kernel's fstype.
    pub name: &'static str,
    pub mkfs: &'static str,
    /// mkfs's arguments before the device, for a cluster size (None: the
    /// mkfs default).
    pub args: fn(Option<u64>) -> Vec<String>,
    /// mkfs formats the loop device (true) or the image file (false).
    pub on_loop: bool,
    pub driver: Driver,
}

fn flag(name: &str, value: Option<u64>) -> Vec<String> {
    value.map_or(vec![], |v| vec![name.to_string(), v.to_string()])
}

/// `mkfs.exfat [-c CLUSTER] LOOP`, mounted by exfat-fuse.
pub const EXFAT: Fs = Fs {
    name: "exfat",
    mkfs: "mkfs.exfat",
    args: |c| flag("-c", c),
    on_loop: true,
    driver: Driver::Fuse("mount.exfat-fuse"),
};

/// `mkntfs -F -Q -q [-c CLUSTER] IMAGE`, mounted by ntfs-3g.
pub const NTFS: Fs = Fs {
    name: "ntfs",
    mkfs: "mkntfs",
    args: |c| [vec!["-F".into(), "-Q".into(), "-q".into()], flag("-c", c)].concat(),
    on_loop: false,
    driver: Driver::Fuse("ntfs-3g"),
};

/// `mkfs.ext4 -F -q [-b BLOCK] IMAGE`, mounted by the kernel.
pub const EXT4: Fs = Fs {
    name: "ext4",
    mkfs: "mkfs.ext4",
    args: |c| [vec!["-F".into(), "-q".into()], flag("-b", c)].concat(),
    on_loop: false,
    driver: Driver::Kernel,
};

/// `mkfs.btrfs -f -q IMAGE` (4 KiB sectors only), mounted by the kernel.
pub const BTRFS: Fs = Fs {
    name: "btrfs",
    mkfs: "mkfs.btrfs",
    args: |_| vec!["-f".into(), "-q".into()],
    on_loop: false,
    driver: Driver::Kernel,
};

/// `mkfs.xfs -f -q [-b size=BLOCK] IMAGE`, mounted by the kernel.
pub const XFS: Fs = Fs {
    name: "xfs",
    mkfs: "mkfs.xfs",
    args: |c| {
        let size = c.map(|c| vec!["-b".to_string(), format!("size={c}")]);
        [vec!["-f".into(), "-q".into()], size.unwrap_or_default()].concat()
    },
    on_loop: false,
    driver: Driver::Kernel,
};

/// A formatted volume on a loop device, not mounted yet (to read what mkfs
/// wrote first). Fields drop in order: detach, delete the image.
pub struct Formatted {
    pub lo: Loop,
    pub img: Image,
    pub fs: &'static Fs,
    pub size: u64,
    pub cluster: Option<u64>,
}

/// A mounted volume. Fields drop in order: unmount, detach, delete.
pub struct Volume {
    pub mount: Mount,
    pub lo: Loop,
    pub img: Image,
    pub fs: &'static Fs,
    pub size: u64,
    pub cluster: Option<u64>,
}

/// What fsfit predicts for one config.
pub struct Predicted {
    pub cluster: u64,
    pub free: u64,
    pub tree: u64,
    pub exact: bool,
}

impl Fs {
    /// `--fs` for one config: `NAME:CLUSTER` or `NAME:default`.
    pub fn spec(&self, cluster: Option<u64>) -> String {
        match cluster {
            Some(c) => format!("{}:{c}", self.name),
            None => format!("{}:default", self.name),
        }
    }

    /// mkfs on an image file, no loop device (needs no root).
    pub fn mkfs_image(&self, img: &Image, cluster: Option<u64>) {
        assert!(!self.on_loop, "{} is formatted on a loop device", self.name);
        let mut args = (self.args)(cluster);
        args.push(img.path_str().to_string());
        run_mkfs(self.mkfs, &args);
    }

    /// Image of `size` bytes, loop device, mkfs.
    pub fn format(&'static self, size: u64, cluster: Option<u64>) -> Formatted {
        let img = Image::new(size);
        let lo = if self.on_loop {
            let lo = Loop::attach(&img.path);
            let mut args = (self.args)(cluster);
            args.push(lo.dev.clone());
            run_mkfs(self.mkfs, &args);
            lo
        } else {
            self.mkfs_image(&img, cluster);
            Loop::attach(&img.path)
        };
        Formatted {
            lo,
            img,
            fs: self,
            size,
            cluster,
        }
    }

    /// Format and mount with the filesystem's driver.
    pub fn volume(&'static self, size: u64, cluster: Option<u64>) -> Volume {
        self.format(size, cluster).mount()
    }

    /// `fsfit usage --json --volume SIZE --fs SPEC TREE`: its one config.
    pub fn predict(&self, size: u64, cluster: Option<u64>, tree: &Path) -> Predicted {
        // The model of the driver that mounts it here (NTFS: ntfs-3g, even
        // on a host whose kernel has ntfs3).
        let driver = match self.driver {
            Driver::Kernel => "kernel",
            Driver::Fuse(_) => "fuse",
        };
        let v = usage_json(&[
            "--driver",
            driver,
            "--volume",
            &size.to_string(),
            "--fs",
            &self.spec(cluster),
            tree.to_str().unwrap(),
        ]);
        let c = &v["configs"][0];
        assert_eq!(c["fs"], self.name, "the config asked for: {v}");
        Predicted {
            cluster: c["cluster_bytes"].as_u64().unwrap(),
            free: c["free_bytes"].as_u64().unwrap(),
            tree: c["tree_bytes"].as_u64().unwrap(),
            exact: c["exact"] == true,
        }
    }

    /// Format, mount, copy `tree` (`copy`), measure, predict: one row.
    pub fn row(
        &'static self,
        size: u64,
        cluster: Option<u64>,
        tree: &Path,
        label: &str,
        copy: Cp,
    ) -> Row {
        self.volume(size, cluster).row(tree, label, copy)
    }
}

fn run_mkfs(mkfs: &str, args: &[String]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(mkfs, &args);
}

impl Formatted {
    /// Mount with the filesystem's driver.
    pub fn mount(self) -> Volume {
        let mount = match self.fs.driver {
            Driver::Kernel => Mount::kernel(&self.lo.dev, self.fs.name, None),
            Driver::Fuse(program) => Mount::fuse(program, &[], &self.lo.dev),
        };
        Volume {
            mount,
            lo: self.lo,
            img: self.img,
            fs: self.fs,
            size: self.size,
            cluster: self.cluster,
        }
    }
}

impl Volume {
    /// Copy `tree` on (`copy`), measure, unmount, predict: one row.
    pub fn row(self, tree: &Path, label: &str, copy: Cp) -> Row {
        let m = measure(&self.mount, tree, copy);
        let (fs, size, cluster) = (self.fs, self.size, self.cluster);
        drop(self);
        let p = fs.predict(size, cluster, tree);
        Row {
            fs: fs.name,
            label: label.to_string(),
            volume: size,
            cluster: p.cluster,
            exact: p.exact,
            free_real: m.free_before,
            free_pred: p.free,
            tree_real: m.tree_bytes(),
            tree_pred: p.tree,
        }
    }
}

/// How the tree goes onto the volume.
#[derive(Clone, Copy, PartialEq)]
pub enum Cp {
    /// `cp -r` must succeed for every entry.
    All,
    /// `cp -r` may fail for entries the filesystem refuses (names, types,
    /// long symlinks), as a user's copy does; the model expects that.
    Tolerant,
}

/// `cp -r SRC/. DST/` that may fail for some entries, then sync.
pub fn copy_tolerant(src: &Path, dst: &Path) {
    let from = format!("{}/.", src.display());
    let _ = Command::new("cp")
        .args(["-r", &from, dst.to_str().unwrap()])
        .output()
        .expect("run cp");
    run("sync", &[]);
}

/// Free space before and after copying a tree onto a mounted volume.
pub struct Measured {
    pub free_before: u64,
    pub free_after: u64,
}

impl Measured {
    pub fn tree_bytes(&self) -> u64 {
        self.free_before - self.free_after
    }
}

/// Free space before and after copying `tree` onto a mounted volume.
pub fn measure(mount: &Mount, tree: &Path, copy: Cp) -> Measured {
    let free_before = free_bytes(mount.path());
    match copy {
        Cp::All => copy_tree(tree, mount.path()),
        Cp::Tolerant => copy_tolerant(tree, mount.path()),
    }
    Measured {
        free_before,
        free_after: free_bytes(mount.path()),
    }
}

/// A real volume beside fsfit's prediction for it.
pub struct Row {
    pub fs: &'static str,
    pub label: String,
    pub volume: u64,
    pub cluster: u64,
    pub exact: bool,
    pub free_real: u64,
    pub free_pred: u64,
    pub tree_real: u64,
    pub tree_pred: u64,
}

impl Row {
    /// Relative error of tree_bytes (0 when both are 0, infinite when only
    /// the prediction is not).
    pub fn tree_err(&self) -> f64 {
        match (self.tree_real, self.tree_pred) {
            (0, 0) => 0.0,
            (0, _) => f64::INFINITY,
            (real, pred) => (pred as f64 - real as f64) / real as f64,
        }
    }

    /// free_bytes exact and tree_bytes within `tol` (relative).
    pub fn ok(&self, tol: f64) -> bool {
        self.free_pred == self.free_real && self.tree_err().abs() <= tol
    }

    /// One line for the test's output: real / predicted.
    pub fn line(&self) -> String {
        format!(
            "{:5} {:>12} {:>8} {:16} free {:>14} / {:>14} ({:+})  tree {:>11} / {:>11} ({:+.3} %)",
            self.fs,
            self.volume,
            self.cluster,
            self.label,
            self.free_real,
            self.free_pred,
            self.free_pred as i64 - self.free_real as i64,
            self.tree_real,
            self.tree_pred,
            self.tree_err() * 100.0
        )
    }

    /// Print the row, then assert free_bytes exact and tree_bytes within
    /// `tol` (relative).
    pub fn check(&self, tol: f64) -> &Row {
        eprintln!("{}", self.line());
        assert_eq!(
            self.free_pred, self.free_real,
            "{}: free_bytes at {} B, cluster {}",
            self.label, self.volume, self.cluster
        );
        assert!(
            self.tree_err().abs() <= tol,
            "{}: tree_bytes at {} B, cluster {}: predicted {} real {} ({:+.3} %)",
            self.label,
            self.volume,
            self.cluster,
            self.tree_pred,
            self.tree_real,
            self.tree_err() * 100.0
        );
        self
    }
}

/// Assert every row within `tol`, listing all that are not (a table of
/// cases reports every failure, not the first).
pub fn all_ok(rows: &[(Row, f64)]) {
    let bad: Vec<String> = rows
        .iter()
        .filter(|(r, tol)| !r.ok(*tol))
        .map(|(r, _)| r.line())
        .collect();
    assert!(
        bad.is_empty(),
        "real volume vs fsfit (real / predicted):\n{}",
        bad.join("\n")
    );
}
