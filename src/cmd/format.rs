//! `fsfit format`: check the arguments, run the format, write the JSON,
//! exit non-zero when a verification disagrees.

use crate::cli::{FormatArgs, FormatTable};
use crate::format::{self, Align, Request, Table};
use crate::{Error, Result};

/// `exfat`, `fat32:32K`, `ext4:default`.
pub fn fs_arg(s: &str) -> Result<(&'static dyn crate::fs::Filesystem, Option<u64>)> {
    let (name, cluster) = match s.split_once(':') {
        Some((n, c)) => (n, Some(c)),
        None => (s, None),
    };
    let f = crate::fs::spec::named(name).map_err(|e| Error::input(format!("--fs {s}: {e}")))?;
    let cluster = match cluster {
        None | Some("default") => None,
        Some(c) => {
            let n =
                crate::units::parse_size(c).map_err(|e| Error::input(format!("--fs {s}: {e}")))?;
            // The one rule every command states the same way.
            crate::fs::spec::check_cluster(f, n)
                .map_err(|e| Error::input(format!("--fs {s}: {e}")))?;
            Some(n)
        }
    };
    Ok((f, cluster))
}

fn align_arg(s: Option<&str>) -> Result<Align> {
    match s {
        None => Ok(Align::Default),
        Some("auto") => Ok(Align::Auto),
        Some(v) => {
            let n = crate::units::parse_size(v)
                .map_err(|e| Error::input(format!("--align {v}: {e}")))?;
            if !n.is_power_of_two() || !(4096..=1 << 30).contains(&n) {
                return Err(Error::input(format!(
                    "--align {v}: give a power of two from 4K to 1G, or auto"
                )));
            }
            Ok(Align::Bytes(n))
        }
    }
}

pub fn request(a: &FormatArgs, quiet: bool) -> Result<Request> {
    if a.fs.is_none() && !a.sd {
        return Err(Error::input("name a filesystem with --fs (or use --sd)"));
    }
    super::output_folders_exist([&a.json])?;
    if !a.dry_run && !crate::device::is_root() {
        return Err(Error::input(
            "fsfit format writes partition tables and filesystems: run it as root (sudo), or add --dry-run",
        ));
    }
    Ok(Request {
        target: a.target.clone(),
        fs: a.fs.as_deref().map(fs_arg).transpose()?,
        label: a.label.clone(),
        table: a.table.map(|t| match t {
            FormatTable::Mbr => Table::Mbr,
            FormatTable::Gpt => Table::Gpt,
            FormatTable::None => Table::None,
        }),
        align: align_arg(a.align.as_deref())?,
        sd: a.sd,
        check_capacity: a.check_capacity,
        yes_erase: a.yes_erase.clone(),
        allow_fixed: a.allow_fixed,
        size: a.size,
        dry_run: a.dry_run,
        json: a.json.clone(),
        quiet,
    })
}

pub fn run(r: &Request) -> Result<()> {
    super::cancel_on_ctrl_c(|| {});
    // `--json -`: stdout holds the JSON alone, the plan and steps go to stderr.
    let say = match r.json.as_deref() {
        Some(p) if super::is_stdout(p) => super::print_to_stderr,
        _ => super::print_text,
    };
    let rep = format::run(r, say, super::print_to_stderr)?;
    if let Some(p) = &r.json {
        let mut s = serde_json::to_string_pretty(&rep).expect("the report serializes");
        s.push('\n');
        super::emit(p, &s)?;
    }
    let v = &rep.verified;
    if !(r.dry_run || v.info && v.checker && v.blkid) {
        return Err(Error::work(
            "the new volume does not match the plan (see Verification above)",
        ));
    }
    Ok(())
}
