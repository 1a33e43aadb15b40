//! The check after formatting: fsfit's own reading of the new volume, the
//! filesystem's checker read-only, and blkid's probe must all agree with
//! the plan.

use super::plan::Plan;
use super::Table;
use crate::fs::Verdict;
use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Verified {
    pub info: bool,
    pub checker: bool,
    pub blkid: bool,
}

/// What each check found, and the data area's offset as read.
pub struct Findings {
    pub verified: Verified,
    /// One line per check, for the summary.
    pub lines: Vec<String>,
    pub data_offset: Option<u64>,
}

pub fn run(plan: &Plan, dev: &str) -> Findings {
    let mut lines = Vec::new();
    let (info, data_offset) = match info(plan, dev) {
        Ok((line, d)) => {
            lines.push(format!("info: ok ({line})"));
            (true, d)
        }
        Err(e) => {
            lines.push(format!("info: DISAGREES: {e}"));
            (false, None)
        }
    };
    let mut check = |name: &str, r: Result<String>| match r {
        Ok(s) => {
            lines.push(format!("{name}: ok ({s})"));
            true
        }
        Err(e) => {
            lines.push(format!("{name}: DISAGREES: {e}"));
            false
        }
    };
    let checker = check("checker", checker(plan));
    let blkid = check("blkid", blkid(plan));
    Findings {
        verified: Verified {
            info,
            checker,
            blkid,
        },
        lines,
        data_offset,
    }
}

fn info(plan: &Plan, dev: &str) -> Result<(String, Option<u64>)> {
    let opts = crate::info::ProbeOptions {
        codepage: crate::info::codepage::by_name("850")?,
    };
    let v = crate::info::probe_path_with(Path::new(&plan.volume_dev), 0, &opts)?;
    let mut bad = Vec::new();
    if v.fs != plan.layout.fs.name() {
        bad.push(format!(
            "filesystem {} (planned {})",
            v.fs,
            plan.layout.fs.name()
        ));
    }
    if v.cluster_bytes != plan.layout.cluster {
        bad.push(format!(
            "cluster {} (planned {})",
            v.cluster_bytes, plan.layout.cluster
        ));
    }
    if v.label.as_deref().map(str::trim_end) != plan.layout.label.as_deref() {
        bad.push(format!(
            "label {:?} (planned {:?})",
            v.label, plan.layout.label
        ));
    }
    let data = v.data_offset_bytes.map(|d| d + plan.layout.start);
    if let (Some(want), Some(got)) = (plan.layout.data_offset, data) {
        if want != got || got % plan.layout.align != 0 {
            bad.push(format!(
                "data area at {got} (planned {want}, aligned to {})",
                plan.layout.align
            ));
        }
    }
    if plan.layout.table != Table::None {
        let f = std::fs::File::open(dev).map_err(|e| Error::work(format!("{dev}: {e}")))?;
        let parts = crate::info::partitions(&mut crate::info::file_reader(&f, 0))?;
        match parts.first() {
            Some(p) if p.start_bytes == plan.layout.start && p.size_bytes == plan.layout.size => {}
            Some(p) => bad.push(format!(
                "partition at {} of {} bytes (planned {} of {})",
                p.start_bytes, p.size_bytes, plan.layout.start, plan.layout.size
            )),
            None => bad.push("no partition table".into()),
        }
    }
    if bad.is_empty() {
        let d = data.map_or(String::new(), |d| format!(", data area at {d}"));
        Ok((format!("{} {} clusters{d}", v.fs, v.cluster_bytes), data))
    } else {
        Err(Error::work(bad.join("; ")))
    }
}

fn checker(plan: &Plan) -> Result<String> {
    let Some(c) = plan.layout.fs.info().checker else {
        return Ok(format!(
            "{} has no checker on Linux",
            plan.layout.fs.info().title
        ));
    };
    let out = std::process::Command::new(c.program)
        .args(c.check_args)
        .arg(&plan.volume_dev)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::work(format!("cannot run {}: {e}", c.program)))?;
    let code = out.status.code().unwrap_or(-1);
    let cmd = format!("{} {}", c.program, c.check_args.join(" "));
    match c.verdict(code) {
        Verdict::Clean => Ok(format!("{cmd}: clean")),
        v => {
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
            Err(Error::work(format!(
                "{cmd} exited {code} ({v:?}): {}",
                last.trim()
            )))
        }
    }
}

/// `blkid -p -o export`: KEY=value lines.
fn blkid_probe(dev: &str) -> Result<BTreeMap<String, String>> {
    let out = crate::device::run_tool("blkid", &["-p", "-o", "export", dev])?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}

fn blkid(plan: &Plan) -> Result<String> {
    let b = blkid_probe(&plan.volume_dev)?;
    let get = |k: &str| b.get(k).map(String::as_str).unwrap_or("");
    let mut bad = Vec::new();
    if get("TYPE") != plan.layout.fs.blkid_type() {
        bad.push(format!(
            "TYPE {:?} (planned {})",
            get("TYPE"),
            plan.layout.fs.blkid_type()
        ));
    }
    // The label raw (-o value), not shell-escaped as -o export gives it.
    let out = crate::device::run_tool(
        "blkid",
        &["-p", "-s", "LABEL", "-o", "value", &plan.volume_dev],
    )?;
    let raw = String::from_utf8_lossy(&out.stdout);
    let label = raw.strip_suffix('\n').unwrap_or(&raw).to_string();
    if plan.layout.label.as_deref().unwrap_or("") != label {
        bad.push(format!("LABEL {label:?} (planned {:?})", plan.layout.label));
    }
    if plan.layout.table != Table::None {
        let off: u64 = get("PART_ENTRY_OFFSET").parse().unwrap_or(0);
        if off * 512 != plan.layout.start {
            bad.push(format!(
                "partition offset {off} sectors (planned {})",
                plan.layout.start / 512
            ));
        }
        let want = plan.layout.part_type.clone().unwrap_or_default();
        let got = get("PART_ENTRY_TYPE");
        if !same_type(&want, got) {
            bad.push(format!("partition type {got} (planned {want})"));
        }
    }
    if bad.is_empty() {
        Ok(format!("TYPE={} LABEL={label:?}", get("TYPE")))
    } else {
        Err(Error::work(bad.join("; ")))
    }
}

/// `0x0c` and blkid's `0xc`; GPT GUIDs in either case.
fn same_type(want: &str, got: &str) -> bool {
    let hex = |s: &str| u8::from_str_radix(s.trim_start_matches("0x"), 16).ok();
    match (hex(want), hex(got)) {
        (Some(a), Some(b)) => a == b,
        _ => want.eq_ignore_ascii_case(got),
    }
}
