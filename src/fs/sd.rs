//! The SD Association's layout by card capacity: filesystem, cluster size
//! and boundary unit (BU), to which the partition start and the data area
//! are aligned. `fsfit format --sd` reads it; it lives beside the registry
//! because it names filesystems.
//!
//! Source: SD Specifications Part 2, File System Specification (SD
//! Association), as tabulated in exfatprogs' mkfs.exfat(8) man page
//! ("boundary unit sizes recommended by the SD Card Association"), with the
//! filesystem each capacity class uses: FAT12 up to 64 MiB, FAT16 up to
//! 2 GiB (SDSC), FAT32 up to 32 GiB (SDHC), exFAT up to 2 TiB (SDXC).

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;

/// One row of the table: cards of at most `up_to` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdRow {
    pub up_to: u64,
    pub fs: &'static str,
    pub cluster: u64,
    pub bu: u64,
}

pub const SOURCE: &str = "SD Specifications Part 2: File System Specification (SD Association), \
as tabulated in mkfs.exfat(8) (exfatprogs)";

#[rustfmt::skip]
pub const TABLE: &[SdRow] = &[
    SdRow { up_to: 8 * MIB, fs: "fat12", cluster: 8 * KIB, bu: 8 * KIB },
    SdRow { up_to: 64 * MIB, fs: "fat12", cluster: 16 * KIB, bu: 16 * KIB },
    SdRow { up_to: 256 * MIB, fs: "fat16", cluster: 16 * KIB, bu: 32 * KIB },
    SdRow { up_to: GIB, fs: "fat16", cluster: 16 * KIB, bu: 64 * KIB },
    SdRow { up_to: 2 * GIB, fs: "fat16", cluster: 32 * KIB, bu: 64 * KIB },
    SdRow { up_to: 32 * GIB, fs: "fat32", cluster: 32 * KIB, bu: 4 * MIB },
    SdRow { up_to: 128 * GIB, fs: "exfat", cluster: 128 * KIB, bu: 16 * MIB },
    SdRow { up_to: 512 * GIB, fs: "exfat", cluster: 256 * KIB, bu: 32 * MIB },
    SdRow { up_to: 2 * TIB, fs: "exfat", cluster: 512 * KIB, bu: 64 * MIB },
];

/// The row for a card of `capacity` bytes, or why the table has none.
pub fn row(capacity: u64) -> crate::Result<SdRow> {
    TABLE
        .iter()
        .copied()
        .find(|r| capacity <= r.up_to)
        .ok_or_else(|| {
            crate::Error::work(format!(
                "the SD File System Specification covers cards up to 2 TiB; this one is {}",
                crate::units::iec(capacity)
            ))
        })
}

/// The table as text, for --help and the README.
pub fn table_text() -> String {
    let mut o = String::from("capacity      fs     cluster  BU\n");
    let mut lo = 0;
    for r in TABLE {
        let range = format!(
            "{}-{}",
            crate::units::short(lo),
            crate::units::short(r.up_to)
        );
        o += &format!(
            "{range:<13} {:<6} {:<8} {}\n",
            r.fs,
            crate::units::short(r.cluster),
            crate::units::short(r.bu)
        );
        lo = r.up_to;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_map_to_the_spec_rows() {
        assert_eq!(row(GIB).unwrap().fs, "fat16");
        assert_eq!(row(16 * GIB).unwrap().bu, 4 * MIB);
        assert_eq!(row(64 * GIB).unwrap().cluster, 128 * KIB);
        assert_eq!(row(256 * GIB).unwrap().bu, 32 * MIB);
        assert!(row(3 * TIB).is_err());
    }
}
