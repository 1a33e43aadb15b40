//! The Linux commands `fsfit advise` prints for people to paste: find the
//! drive, unmount it, wipe it, one partition, mkfs, the check; each
//! argument shell-quoted (a label is always one argument and runs
//! nothing), and `sudo fsfit format ...` as the one-line alternative.

use super::quote::{join, quote};
use crate::fs::{self, Filesystem};

/// The placeholder device people replace after `lsblk`.
pub const DEV: &str = "/dev/sdX";

/// The mkfs line without the options that silence the tool's own "this
/// holds a filesystem" question (`-F`/`-f` standing alone: not mkfs.fat's
/// `-F 32`) and without -q.
pub fn mkfs_argv(
    f: &dyn Filesystem,
    cluster: u64,
    label: Option<&str>,
    part: &str,
) -> Option<Vec<String>> {
    let argv = f.mkfs(cluster)?;
    let mut out: Vec<String> = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        let flag_alone = argv.get(i + 1).is_none_or(|n| n.starts_with('-'));
        if a == "-q" || ((a == "-F" || a == "-f") && flag_alone) {
            continue;
        }
        out.push(a.clone());
    }
    if let Some(l) = label {
        out.extend(fs::label_args(f.info(), l));
    }
    out.push(part.to_string());
    Some(out)
}

/// `sudo ARGV`, quoted.
fn sudo(argv: &[String]) -> String {
    format!("sudo {}", join(argv))
}

/// Every line, in order, with a `#` comment saying what it does.
pub fn linux_steps(f: &dyn Filesystem, cluster: u64, label: Option<&str>) -> Vec<String> {
    let pt = f.partition_type();
    let whole = pt.whole_device;
    let part = if whole {
        DEV.to_string()
    } else {
        format!("{DEV}1")
    };
    let mut v = vec![
        "lsblk -o NAME,SIZE,MODEL,TRAN   # find the drive; use its name for /dev/sdX below"
            .to_string(),
        format!(
            "sudo umount {DEV}?*   # unmount its partitions (an error if none is mounted is fine)"
        ),
        format!(
            "{}   # erase old signatures",
            sudo(&fs::argv(&["wipefs", "-a", DEV]))
        ),
    ];
    if !whole {
        let script = format!("start=8192, type={:x}", pt.mbr);
        v.push(format!(
            "printf '%s\\n' {} | {}   # one partition from 4 MiB, type 0x{:02x}",
            quote(&script),
            sudo(&fs::argv(&["sfdisk", "--label", "dos", DEV])),
            pt.mbr
        ));
    }
    if let Some(m) = mkfs_argv(f, cluster, label, &part) {
        v.push(sudo(&m));
    }
    if let Some(c) = f.info().checker {
        let mut argv = fs::argv(&[c.program]);
        argv.extend(fs::argv(c.check_args));
        argv.push(part);
        v.push(format!("{}   # check it, read-only", sudo(&argv)));
    }
    v
}

/// The same in one line: `sudo fsfit format` plans, aligns and verifies.
pub fn fsfit_line(f: &dyn Filesystem, cluster: u64, label: Option<&str>) -> String {
    let mut argv = fs::argv(&["fsfit", "format", DEV, "--fs"]);
    argv.push(format!("{}:{cluster}", f.name()));
    if let Some(l) = label {
        argv.extend(["--label".to_string(), l.to_string()]);
    }
    argv.extend(fs::argv(&["--yes-erase", DEV]));
    sudo(&argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forcing_flags_go_but_fat_types_stay() {
        let fat = fs::by_name("fat32").unwrap();
        let m = mkfs_argv(fat, 32768, Some("A B"), "/dev/sdX1").unwrap();
        assert_eq!(join(&m), "mkfs.fat -F 32 -s 64 -n 'A B' /dev/sdX1");
        let e = fs::by_name("ext4").unwrap();
        let m = mkfs_argv(e, 4096, Some("x; rm -rf ~"), "/dev/sdX1").unwrap();
        assert_eq!(
            join(&m),
            "mkfs.ext4 -b 4096 -m 0 -L 'x; rm -rf ~' /dev/sdX1"
        );
    }
}
