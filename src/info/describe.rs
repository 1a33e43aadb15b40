//! What a device or an image holds, in the words `fsfit info` uses: for the
//! listing before a format and for refusing a file fsfit did not make.

use std::path::Path;

/// What an existing file looks like, for a refusal: "a 300 MiB file holding
/// an ext4 filesystem labelled \"VIDEOS\"".
pub fn describe_file(path: &Path, len: u64) -> String {
    let found = super::inspect::inspect(path, 0).ok();
    file_in(found.as_ref(), len)
}

/// [`describe_file`] and shorter ways of saying it, most said first, for a
/// refusal that must fit one line whatever the path's length: the whole
/// description, its size and filesystem in a few words ("64.0 MiB, ext4
/// \"VIDEOS\""), its size alone. The file is inspected once for all three.
pub fn describe_file_briefly(path: &Path, len: u64) -> Vec<String> {
    let found = super::inspect::inspect(path, 0).ok();
    let size = crate::units::iec(len);
    let brief = match found.as_ref().map(|r| (&r.volume, r.partitions.len())) {
        Some((Some(v), _)) => match &v.label {
            Some(l) => format!("{size}, {} \"{l}\"", v.fs),
            None => format!("{size}, {}", v.fs),
        },
        Some((None, n)) if n > 0 => {
            format!("{size}, {}", crate::units::count(n as u64, "partition"))
        }
        _ => format!("{size}, no filesystem"),
    };
    vec![file_in(found.as_ref(), len), brief, size]
}

/// "holding an exfat filesystem labelled \"STICK\"", "holding a partition
/// table (1: ntfs \"DATA\")", "with no filesystem fsfit recognises".
pub fn describe_contents(path: &Path) -> String {
    contents_in(super::inspect::inspect(path, 0).ok().as_ref())
}

/// [`describe_file`]'s words for what an inspection found.
fn file_in(found: Option<&super::inspect::InfoReport>, len: u64) -> String {
    format!("a {} file {}", crate::units::iec(len), contents_in(found))
}

/// [`describe_contents`]'s words for what an inspection found (none: it
/// could not be read as any filesystem).
fn contents_in(found: Option<&super::inspect::InfoReport>) -> String {
    let labelled = |v: &super::VolumeInfo| match &v.label {
        Some(l) => format!("{} filesystem labelled \"{l}\"", v.fs),
        None => format!("{} filesystem with no label", v.fs),
    };
    let Some(r) = found else {
        return "with no filesystem fsfit recognises".to_string();
    };
    if let Some(v) = &r.volume {
        format!("holding an {}", labelled(v))
    } else if !r.partitions.is_empty() {
        let parts: Vec<String> = r
            .partitions
            .iter()
            .map(|p| match &p.volume {
                Some(v) => match &v.label {
                    Some(l) => format!("{}: {} \"{l}\"", p.partition.index, v.fs),
                    None => format!("{}: {}", p.partition.index, v.fs),
                },
                None => format!("{}: no filesystem recognised", p.partition.index),
            })
            .collect();
        format!("holding a partition table ({})", parts.join("; "))
    } else {
        "with no filesystem fsfit recognises".to_string()
    }
}
