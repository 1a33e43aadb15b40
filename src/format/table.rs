//! The partition table, written with sfdisk: one partition, its start and
//! size in sectors, its type. sfdisk also erases the old table's signatures.

use super::plan::Step;
use super::Table;
use crate::fs::PartType;

const SECTOR: u64 = 512;

/// sfdisk's one-line script for the partition.
pub fn script(table: Table, start: u64, size: u64, pt: &PartType) -> String {
    let ty = match table {
        Table::Gpt => pt.gpt.to_string(),
        _ => format!("{:x}", pt.mbr),
    };
    let head = super::layout::gpt_first_lba(table, start).map_or(String::new(), |h| h + "\n");
    format!(
        "{head}start={}, size={}, type={ty}\n",
        start / SECTOR,
        size / SECTOR
    )
}

pub fn sfdisk(dev: &str, table: Table, start: u64, size: u64, pt: &PartType) -> Step {
    let label = if table == Table::Gpt { "gpt" } else { "dos" };
    Step {
        what: format!("write the partition table ({})", table.name()),
        argv: crate::fs::argv(&[
            "sfdisk",
            "--quiet",
            "--wipe",
            "always",
            "--wipe-partitions",
            "always",
            "--label",
            label,
            dev,
        ]),
        stdin: Some(script(table, start, size, pt)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_name_sectors_and_type() {
        let s = script(Table::Mbr, 4 << 20, 1 << 30, &PartType::WINDOWS);
        assert_eq!(s, "start=8192, size=2097152, type=7\n");
        let g = script(Table::Gpt, 1 << 20, 1 << 20, &PartType::LINUX);
        assert!(
            g.ends_with("type=0FC63DAF-8483-4772-8E79-3D69D8477DE4\n"),
            "{g}"
        );
    }
}
