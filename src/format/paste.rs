//! The Linux commands `fsfit advise` prints for people to paste: find the
//! drive, unmount it, wipe it, one partition, mkfs, the check; each
//! argument shell-quoted (a label is always one argument and runs
//! nothing), and `sudo fsfit format ...` as the one-line alternative.

use super::layout::{self, Layout, SECTOR};
use super::Table;
use crate::fs;
use crate::quote::{join, quote};
use crate::units::short;

/// The placeholder device people replace after `lsblk`.
pub const DEV: &str = "/dev/sdX";

/// `sudo ARGV`, quoted.
fn sudo(argv: &[String]) -> String {
    format!("sudo {}", join(argv))
}

/// The partition device people type: `/dev/sdX1`, or the drive itself
/// for a filesystem that goes on the whole device.
fn part_dev(l: &Layout) -> String {
    if l.table == Table::None && l.start == 0 {
        DEV.to_string()
    } else {
        format!("{DEV}1")
    }
}

/// The plan's mkfs line, `sudo` first, on the partition.
pub fn mkfs_line(l: &Layout) -> String {
    let mut argv = strip_forcing(&l.mkfs);
    argv.push(part_dev(l));
    sudo(&argv)
}

/// mkfs's argv without the options that silence its own "this holds a
/// filesystem" question and without -q, as in [`mkfs_argv`].
fn strip_forcing(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        let flag_alone = argv.get(i + 1).is_none_or(|n| n.starts_with('-'));
        if a == "-q" || ((a == "-F" || a == "-f") && flag_alone) {
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// sfdisk's line for the plan's one partition: its start and type, its
/// size only where the plan shortened it (else the rest of the drive).
fn table_line(l: &Layout) -> Option<String> {
    let (label, ty) = match (l.table, &l.part_type) {
        (Table::Mbr, Some(_)) => ("dos", format!("{:x}", l.fs.partition_type().mbr)),
        (Table::Gpt, Some(t)) => ("gpt", t.clone()),
        _ => return None,
    };
    let mut script = format!("start={}", l.start / SECTOR);
    if l.size < l.full_size {
        script += &format!(", size={}", l.size / SECTOR);
    }
    script += &format!(", type={ty}");
    let head =
        super::layout::gpt_first_lba(l.table, l.start).map_or(String::new(), |h| quote(&h) + " ");
    let ty = match l.table {
        Table::Mbr => format!(", type {}", l.part_type.as_deref().unwrap_or("")),
        _ => String::new(),
    };
    Some(format!(
        "printf '%s\\n' {head}{} | {}   # one {} partition from {}{ty}",
        quote(&script),
        sudo(&fs::argv(&["sfdisk", "--label", label, DEV])),
        l.table_name().to_uppercase(),
        short(l.start),
    ))
}

/// Every line, in order, with a `#` comment saying what it does.
pub fn linux_steps(l: &Layout) -> Vec<String> {
    let part = part_dev(l);
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
    v.extend(table_line(l));
    v.push(mkfs_line(l));
    if let Some(c) = l.fs.info().checker {
        let mut argv = fs::argv(&[c.program]);
        argv.extend(fs::argv(c.check_args));
        argv.push(part);
        v.push(format!("{}   # check it, read-only", sudo(&argv)));
    }
    v
}

/// The same in one line: `sudo fsfit format` plans, aligns and verifies.
/// It names what format would not decide alone: `--sd`, an alignment other
/// than its 4 MiB, a table other than its default for the size.
pub fn fsfit_line(l: &Layout) -> String {
    let mut argv = fs::argv(&["fsfit", "format", DEV, "--fs"]);
    argv.push(format!("{}:{}", l.fs.name(), l.cluster));
    if let Some(lb) = &l.label {
        argv.extend(["--label".to_string(), lb.clone()]);
    }
    if l.sd {
        argv.push("--sd".into());
    } else if l.align != 4 << 20 {
        argv.extend(["--align".to_string(), short(l.align)]);
    }
    let capacity = l.start + l.full_size;
    let (default, _) = layout::default_table(capacity, l.fs.partition_type(), None);
    if l.table_name() != default.name() {
        argv.extend(["--table".to_string(), l.table_name().to_string()]);
    }
    argv.extend(fs::argv(&["--yes-erase", DEV]));
    sudo(&argv)
}

/// Where Windows and macOS cannot lay a card out as the SD specification
/// does, the tool that can.
const SD_FORMATTER: &str =
    "the SD Association's SD Memory Card Formatter lays the card out as the SD specification does";

/// What a Windows line whose label only PowerShell's quotes keep whole
/// ends with: it says which shell the command is for, so a view that moves
/// a line's notes elsewhere keeps this one with the command.
pub const IN_POWERSHELL: &str = "(in PowerShell)";

/// Windows' `format` line. The label is quoted so that neither cmd.exe nor
/// PowerShell expands it; one only PowerShell's single quotes can protect
/// gets them, and the line says it is for PowerShell.
pub fn windows_line(l: &Layout) -> String {
    let info = l.fs.info();
    let Some(w) = info.formats.windows else {
        return format!("Windows cannot format {}", l.fs.name());
    };
    let note = info
        .formats
        .windows_note
        .filter(|n| l.full_size > n.over_bytes);
    // A command Windows' format refuses is not printed: it would only fail.
    if let Some(n) = note.filter(|n| n.refuses) {
        return n.text.to_string();
    }
    let label = l.label.as_deref().unwrap_or("");
    let (label, powershell_only) = match crate::quote::windows(label) {
        Some(q) => (q, false),
        None => (crate::quote::powershell(label), true),
    };
    let mut s = format!("format X: /FS:{w} /A:{} /Q /V:{label}", short(l.cluster));
    if powershell_only {
        s.push_str(&format!("   {IN_POWERSHELL}"));
    }
    // A caveat for volumes over a size only worries below it.
    let notes: Vec<&str> = note
        .map(|n| n.text)
        .into_iter()
        .chain(l.sd_layout.then_some(SD_FORMATTER))
        .collect();
    if !notes.is_empty() {
        s.push_str(&format!("   ({})", notes.join("; ")));
    }
    s
}

/// macOS's command, from the registry's template.
pub fn macos_line(l: &Layout) -> String {
    let Some(t) = l.fs.info().formats.macos else {
        return format!("macOS cannot format {}", l.fs.name());
    };
    let mut s = t
        .replace("{cluster}", &l.cluster.to_string())
        .replace("{sectors}", &(l.cluster / 512).max(1).to_string())
        .replace("{label}", &quote(l.label.as_deref().unwrap_or("")));
    if l.sd_layout {
        // One parenthesis of notes: the template may end in its own.
        match s.strip_suffix(')') {
            Some(t) => s = format!("{t}; {SD_FORMATTER})"),
            None => s.push_str(&format!("   ({SD_FORMATTER})")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forcing_flags_go_but_fat_types_stay() {
        let fat = fs::by_name("fat32").unwrap();
        let m = strip_forcing(&fat.mkfs(32768).unwrap());
        assert_eq!(join(&m), "mkfs.fat -F 32 -s 64");
        let e = fs::by_name("ext4").unwrap();
        assert_eq!(
            join(&strip_forcing(&e.mkfs(4096).unwrap())),
            "mkfs.ext4 -b 4096 -m 0"
        );
        let l = layout::decide(&layout::Want {
            capacity: 16 << 30,
            fs: Some((e, Some(4096))),
            label: Some("x; rm -rf ~".into()),
            table: None,
            align: None,
            sd: false,
            mbr_for: Some(&[]),
            partition_offset: None,
            dev: DEV,
            owner: (1000, 1000),
        })
        .unwrap();
        assert_eq!(
            mkfs_line(&l),
            "sudo mkfs.ext4 -b 4096 -m 0 -E root_owner=1000:1000 -L 'x; rm -rf ~' /dev/sdX1"
        );
        let steps = linux_steps(&l).join("\n");
        assert!(steps.contains("'start=8192, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4' | sudo sfdisk --label gpt /dev/sdX"), "{steps}");
        assert!(fsfit_line(&l).contains("--table gpt"), "{}", fsfit_line(&l));
    }
}
