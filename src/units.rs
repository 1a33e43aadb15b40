//! Sizes on the command line and in tables.

use crate::{Error, Result};

/// Parse a size as people type it: plain bytes, or a number with a unit,
/// in any case and with or without a space (`64g`, `64 GB`, `1.5T`).
/// `K M G T P` (with or without `i`/`iB`) are powers of 1024; `KB MB GB TB
/// PB` are powers of 1000, as drive makers count ("a 64GB stick").
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let hint = "try 4096, 32K, 64G or 64GB";
    if t.starts_with('-') {
        return Err(Error::input(format!("'{s}': a size must be positive")));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() {
        return Err(Error::input(format!("'{s}' is not a size ({hint})")));
    }
    let mult = unit(suffix.trim()).ok_or_else(|| {
        Error::input(format!(
            "'{s}': unknown unit '{}' (K, M, G, T: 1024s; KB, MB, GB, TB: 1000s)",
            suffix.trim()
        ))
    })?;
    let value = if num.contains('.') {
        let f: f64 = num
            .parse()
            .map_err(|_| Error::input(format!("'{s}' is not a size ({hint})")))?;
        let v = f * mult as f64;
        if !v.is_finite() || v >= u64::MAX as f64 {
            return Err(Error::input(format!("'{s}' is too large")));
        }
        v.round() as u64
    } else {
        let n: u64 = num
            .parse()
            .map_err(|_| Error::input(format!("'{s}' is not a size ({hint})")))?;
        n.checked_mul(mult)
            .ok_or_else(|| Error::input(format!("'{s}' is too large")))?
    };
    Ok(value)
}

/// The multiplier of a size unit, any case: `G`, `g`, `GiB` are 2^30,
/// `GB`, `gb` 10^9; `B` or nothing is 1.
fn unit(u: &str) -> Option<u64> {
    let l = u.to_ascii_lowercase();
    let (prefix, rest) = match l.char_indices().next() {
        None => return Some(1),
        Some((_, c)) => (c, &l[c.len_utf8()..]),
    };
    if l == "b" {
        return Some(1);
    }
    let power = "kmgtp".find(prefix)? as u32 + 1;
    match rest {
        "" | "i" | "ib" => Some(1u64 << (10 * power)),
        "b" => Some(1000u64.pow(power)),
        _ => None,
    }
}

/// Bytes a block device or an image file holds, read without writing:
/// what `--volume DEV|IMAGE` plans for.
pub fn capacity_of(path: &std::path::Path) -> Result<u64> {
    let f =
        std::fs::File::open(path).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    let meta = f
        .metadata()
        .map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    let bytes = if is_block_device(&meta) {
        block_device_bytes(&f).map_err(|e| Error::input(format!("{}: {e}", path.display())))?
    } else if meta.is_file() {
        meta.len()
    } else {
        return Err(Error::input(format!(
            "{}: not a size, a block device or an image file",
            path.display()
        )));
    };
    if bytes == 0 {
        return Err(Error::input(format!("{}: holds 0 bytes", path.display())));
    }
    Ok(bytes)
}

#[cfg(target_os = "linux")]
fn is_block_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_block_device()
}

/// Block devices are sized on Linux only; elsewhere a path is an image file.
#[cfg(not(target_os = "linux"))]
fn is_block_device(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(not(target_os = "linux"))]
fn block_device_bytes(_f: &std::fs::File) -> std::io::Result<u64> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// BLKGETSIZE64: the device's size in bytes.
#[cfg(target_os = "linux")]
fn block_device_bytes(f: &std::fs::File) -> std::io::Result<u64> {
    use std::os::fd::AsRawFd;
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &mut bytes as *mut u64) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(bytes)
}

/// Parse a duration: `90` or `90s` seconds, `10m` minutes, `1h` hours,
/// `1h30m` (the parts add up).
pub fn parse_duration(s: &str) -> Result<std::time::Duration> {
    let bad = || Error::input(format!("'{s}' is not a duration (try 90s, 10m or 1h30m)"));
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0f64;
    let mut num = String::new();
    for ch in t.chars() {
        if ch.is_ascii_digit() || ch == '.' {
            num.push(ch);
            continue;
        }
        let unit = match ch {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            _ => return Err(bad()),
        };
        total += num.parse::<f64>().map_err(|_| bad())? * unit;
        num.clear();
    }
    if !num.is_empty() {
        total += num.parse::<f64>().map_err(|_| bad())?;
    }
    if !total.is_finite() || total > 1e9 {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs_f64(total))
}

/// Bytes in IEC units with three significant figures: `1.50 GiB`, `512 B`.
pub fn iec(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if v >= 100.0 {
        format!("{v:.0} {}", UNITS[i])
    } else if v >= 10.0 {
        format!("{v:.1} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

/// "a", "a and b", "a, b and c".
pub fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", init.join(", "), last.as_ref())
        }
    }
}

/// A size in IEC units with its exact byte count beside it ("1.50 KiB
/// (1,536 bytes)"); below 1 KiB the units are already bytes ("1 B").
pub fn iec_exact(n: u64) -> String {
    if n < 1024 {
        iec(n)
    } else {
        format!("{} ({} bytes)", iec(n), thousands(n))
    }
}

/// A simulated write rate for people: MB/s (decimal), or B/s where a tree
/// of a few bytes would show as 0.00 MB/s.
pub fn rate(mb_per_s: f64) -> String {
    if mb_per_s >= 0.01 {
        format!("{mb_per_s:.2} MB/s")
    } else {
        format!("{:.0} B/s", mb_per_s * 1e6)
    }
}

/// Bytes as drive makers count them: `60 GB`, `1.5 TB`, `512 MB`.
pub fn decimal(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1000.0 && i < UNITS.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {}", UNITS[i])
}

/// A cluster size the short way: `512`, `4K`, `32M`.
pub fn short(n: u64) -> String {
    for (shift, s) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{}{s}", n >> shift);
        }
    }
    n.to_string()
}

/// Now, UTC, ISO 8601 (`2026-11-22T10:22:28Z`), for results and reports.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    utc(secs)
}

/// Seconds since the epoch as ISO 8601 UTC (Howard Hinnant's civil-from-days).
pub fn utc(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A number with thousands separators: 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count with its noun: "1 file", "1,234 files", "1 symlink".
pub fn count(n: u64, one: &str) -> String {
    count_as(n, one, &format!("{one}s"))
}

/// [`count`] for a word whose plural is not `+s` (`entry`, `entries`).
pub fn count_as(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n))
    }
}

/// The widest a line of text output may be when stdout is not a terminal,
/// and the width tables, shortened paths and refusals are laid out for.
pub const WIDTH: usize = 100;

/// The first of `lines` (the same refusal, most said first) that fits one
/// line as main prints it ([`crate::PREFIX`] before it, [`WIDTH`] columns), else the
/// last: what a refusal drops to fit is its description, never the path it
/// names or what to do instead.
pub fn first_fitting(lines: impl IntoIterator<Item = String>) -> String {
    let fits = |l: &str| unicode_width::UnicodeWidthStr::width(l) + crate::PREFIX.len() <= WIDTH;
    let mut last = String::new();
    for l in lines {
        if fits(&l) {
            return l;
        }
        last = l;
    }
    last
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_join_with_and() {
        assert_eq!(super::and_list::<&str>(&[]), "");
        assert_eq!(super::and_list(&["a"]), "a");
        assert_eq!(super::and_list(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn rates_of_a_few_bytes_are_not_zero() {
        assert_eq!(super::rate(9.2), "9.20 MB/s");
        assert_eq!(super::rate(0.000_003), "3 B/s");
    }

    #[test]
    fn counts_take_their_plural() {
        assert_eq!(super::count(1, "file"), "1 file");
        assert_eq!(super::count(2, "file"), "2 files");
        assert_eq!(super::count_as(1, "entry", "entries"), "1 entry");
        assert_eq!(super::count_as(1200, "entry", "entries"), "1,200 entries");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::utc(1_795_343_548), "2026-11-22T10:32:28Z");
        assert_eq!(super::now_utc().len(), 20);
    }

    use super::*;

    #[test]
    fn sizes_parse_with_iec_and_decimal_suffixes() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("32KiB").unwrap(), 32768);
        assert_eq!(parse_size("64G").unwrap(), 68_719_476_736);
        assert_eq!(parse_size("64GB").unwrap(), 64_000_000_000);
        assert_eq!(parse_size("1.5M").unwrap(), 1_572_864);
        assert!(parse_size("").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("K").is_err());
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn sizes_as_people_type_them() {
        assert_eq!(parse_size("64g").unwrap(), 64 << 30);
        assert_eq!(parse_size("64 GB").unwrap(), 64_000_000_000);
        assert_eq!(parse_size("64gb").unwrap(), 64_000_000_000);
        assert_eq!(parse_size("1.5T").unwrap(), 3 << 39);
        assert_eq!(parse_size("1.5 tib").unwrap(), 3 << 39);
        assert_eq!(parse_size("2 MiB").unwrap(), 2 << 20);
        assert_eq!(parse_size("10b").unwrap(), 10);
        let e = parse_size("-1").unwrap_err();
        assert!(e.to_string().contains("a size must be positive"), "{e}");
        assert!(parse_size("64gx").is_err());
        assert!(parse_size("1.2.3G").is_err());
        assert!(parse_size("gb").is_err());
    }

    #[test]
    fn capacity_of_an_image_and_of_nonsense() {
        let t = tempfile::tempdir().unwrap();
        let img = t.path().join("x.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(5 << 20)
            .unwrap();
        assert_eq!(capacity_of(&img).unwrap(), 5 << 20);
        assert!(capacity_of(t.path()).is_err());
        assert!(capacity_of(&t.path().join("none")).is_err());
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("90").unwrap().as_secs(), 90);
        assert_eq!(parse_duration("10m").unwrap().as_secs(), 600);
        assert_eq!(parse_duration("1h30m").unwrap().as_secs(), 5400);
        assert_eq!(parse_duration("45s").unwrap().as_secs(), 45);
        assert!(parse_duration("").is_err());
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("m").is_err());
    }

    #[test]
    fn iec_and_short_render() {
        assert_eq!(iec(0), "0 B");
        assert_eq!(iec(1023), "1023 B");
        assert_eq!(iec(1536), "1.50 KiB");
        assert_eq!(iec(68_719_476_736), "64.0 GiB");
        assert_eq!(short(32768), "32K");
        assert_eq!(short(32 << 20), "32M");
        assert_eq!(short(512), "512");
        assert_eq!(short(1536), "1536");
    }
}
