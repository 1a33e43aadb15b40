//! UDF: Volume Recognition Sequence, Anchor Volume Descriptor Pointer,
//! the Volume Descriptor Sequence (PVD, LVD, PD) and the Logical Volume
//! Integrity Descriptor (free space table).
//!
//! Sources: ECMA-167 3rd ed. 2/9.1 (VRS at byte 32768, descriptors of
//! max(2048, block) bytes), 3/7.2 (descriptor tag), 3/10.1 (PVD), 3/10.5
//! (PD), 3/10.6 (LVD), 3/10.10 (LVID); OSTA UDF 2.01 2.1.1/2.1.2 (CS0
//! dstrings), 2.2.3 (AVDP at 256, N-256 and N-1); util-linux
//! libblkid/src/superblocks/udf.c (label from the LVD, UUID from the
//! volume set identifier).

use crate::fs::probe::bytes::{self, kv, Dev, Fields};
use crate::fs::probe::{corrupt, ProbeError};
use crate::fs::probe::{Magic, Signature, VolumeInfo};

const FS: &str = "udf";
const VRS_START: u64 = 32768;
const TAG_PVD: u16 = 1;

/// The first Volume Structure Descriptor's identifier (2/9.1), as
/// libblkid's udf.c looks for it; `recognize` then walks the sequence to
/// its NSR descriptor (an ISO 9660 volume has none).
pub const SIGNATURE: Signature = Signature {
    order: 70,
    weak: false,
    magics: &[
        Magic::at(VRS_START + 1, b"BEA01"),
        Magic::at(VRS_START + 1, b"BOOT2"),
        Magic::at(VRS_START + 1, b"CD001"),
        Magic::at(VRS_START + 1, b"CDW02"),
        Magic::at(VRS_START + 1, b"NSR02"),
        Magic::at(VRS_START + 1, b"NSR03"),
        Magic::at(VRS_START + 1, b"TEA01"),
    ],
    parse: |dev, _head, _opts| match recognize(dev) {
        Ok(Some(vsd_len)) => Some(parse(dev, vsd_len)),
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    },
    boot_sector: None,
    damaged: None,
};
const TAG_AVDP: u16 = 2;
const TAG_PD: u16 = 5;
const TAG_LVD: u16 = 6;
const TAG_TD: u16 = 8;
const TAG_LVID: u16 = 9;

/// The VRS descriptor length (2048, or the block size when larger) at
/// which an NSR02/NSR03 descriptor was found, if any.
pub fn recognize(dev: &mut Dev) -> Result<Option<u64>, ProbeError> {
    for vsd_len in [2048u64, 4096] {
        for i in 0..64u64 {
            let d = dev.read(VRS_START + i * vsd_len, 7)?;
            let id = d.get(1..6).unwrap_or(&[]);
            if id == b"NSR02" || id == b"NSR03" {
                return Ok(Some(vsd_len));
            }
            let known: [&[u8]; 5] = [b"BEA01", b"BOOT2", b"CD001", b"CDW02", b"TEA01"];
            if !known.contains(&id) {
                break;
            }
        }
    }
    Ok(None)
}

/// A descriptor tag (3/7.2) is valid when its checksum (sum of bytes 0..16
/// except byte 4) matches and it records its own location.
fn tag_ok(b: &[u8], location: u64) -> Option<u16> {
    let t = b.get(..16)?;
    let sum = t
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 4)
        .fold(0u8, |a, (_, &x)| a.wrapping_add(x));
    if sum != t[4] || u64::from(bytes::le32(t, 12)?) != location {
        return None;
    }
    bytes::le16(t, 0)
}

/// OSTA CS0 dstring: compression id 8 (Latin-1) or 16 (UTF-16BE), length
/// in the field's last byte.
fn dstring(field: &[u8]) -> Option<String> {
    let (&len, body) = field.split_last()?;
    let len = usize::from(len);
    if len == 0 || len > body.len() {
        return None;
    }
    let (comp, chars) = (body[0], &body[1..len]);
    let s = match comp {
        8 | 254 => chars.iter().map(|&c| c as char).collect(),
        16 | 255 => {
            let units: Vec<u16> = chars
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        _ => return None,
    };
    bytes::label(s)
}

pub fn parse(dev: &mut Dev, vsd_len: u64) -> Result<VolumeInfo, ProbeError> {
    let (bs, avdp) = anchor(dev, vsd_len)?;
    let Vds { pvd, lvd, pd } = descriptors(dev, &avdp, bs)?;
    let l = Fields { b: &lvd, fs: FS };
    let lbs = u64::from(l.le32(212, "LogicalBlockSize")?);
    if !lbs.is_power_of_two() || !(512..=65536).contains(&lbs) {
        return Err(corrupt!(
            "{FS}: LogicalBlockSize {lbs} is not a power of two 512..64 KiB"
        ));
    }
    let mut d = vec![];
    let (label, uuid) = identifiers(&l, pvd.as_ref().map(|(_, p)| p.as_slice()), &mut d)?;
    let part_end = partition_end(pd.as_ref().map(|(_, p)| p.as_slice()), &mut d)?;
    d.push(kv("sector size (from the AVDP)", bs));
    let volume_bytes = volume_size(dev, bs, part_end, &mut d)?;
    let free = free_space(dev, &l, bs, &mut d)?;
    Ok(VolumeInfo {
        fs: FS.into(),
        cluster_bytes: lbs,
        sector_bytes: bs,
        volume_bytes,
        label,
        uuid,
        total_clusters: Some(volume_bytes / lbs),
        free_bytes: free.map(|(f, _)| f * lbs),
        used_bytes: free.map(|(f, s)| (s - f) * lbs),
        details: d,
        ..Default::default()
    })
}

/// 2.2.3: the AVDP at sector 256 tells the block size: (block size, AVDP).
fn anchor(dev: &mut Dev, vsd_len: u64) -> Result<(u64, Vec<u8>), ProbeError> {
    let sizes: &[u64] = if vsd_len > 2048 {
        &[4096]
    } else {
        &[512, 1024, 2048, 4096]
    };
    let mut found = None;
    for &bs in sizes {
        let b = dev.read(256 * bs, 512)?;
        if tag_ok(&b, 256) == Some(TAG_AVDP) {
            found = Some((bs, b));
            break;
        }
    }
    found.ok_or_else(|| {
        corrupt!(
            "{FS}: recognition sequence found, but no Anchor Volume Descriptor Pointer at \
             sector 256 for 512, 1024, 2048 or 4096-byte sectors"
        )
    })
}

/// The prevailing PVD, LVD and PD of the main Volume Descriptor Sequence
/// (sequence number, descriptor); the LVD must be there.
struct Vds {
    pvd: Option<(u32, Vec<u8>)>,
    lvd: Vec<u8>,
    pd: Option<(u32, Vec<u8>)>,
}

fn descriptors(dev: &mut Dev, avdp: &[u8], bs: u64) -> Result<Vds, ProbeError> {
    let a = Fields { b: avdp, fs: FS };
    let vds_len = u64::from(a.le32(16, "main VDS extent length")?);
    let vds_loc = u64::from(a.le32(20, "main VDS extent location")?);
    // 3/8.4.2: a sequence is at most a few dozen descriptors; 64 is plenty.
    let count = (vds_len / bs).min(64);
    if count == 0 {
        return Err(corrupt!(
            "{FS}: main Volume Descriptor Sequence extent is empty"
        ));
    }
    let mut pvd: Option<(u32, Vec<u8>)> = None;
    let mut lvd: Option<(u32, Vec<u8>)> = None;
    let mut pd: Option<(u32, Vec<u8>)> = None;
    for i in 0..count {
        let loc = vds_loc + i;
        let b = dev
            .exact(loc * bs, 512, "volume descriptor")
            .map_err(|e| e.within(FS))?;
        let Some(tag) = tag_ok(&b, loc) else { break };
        let seq = bytes::le32(&b, 16).unwrap_or(0);
        // The prevailing descriptor of each kind has the highest sequence number.
        let slot = match tag {
            TAG_PVD => &mut pvd,
            TAG_LVD => &mut lvd,
            TAG_PD => &mut pd,
            TAG_TD => break,
            _ => continue,
        };
        if slot.as_ref().is_none_or(|(s, _)| seq >= *s) {
            *slot = Some((seq, b));
        }
    }
    let (_, lvd) = lvd.ok_or(corrupt!(
        "{FS}: no Logical Volume Descriptor in the main VDS"
    ))?;
    Ok(Vds { pvd, lvd, pd })
}

/// The label (Logical Volume Identifier) and UUID (from the volume set
/// identifier), with the UDF revision and the PVD's identifiers in the
/// details.
fn identifiers(
    l: &Fields,
    pvd: Option<&[u8]>,
    d: &mut Vec<(String, String)>,
) -> Result<(Option<String>, Option<String>), ProbeError> {
    let domain = l.bytes(216 + 1, 23, "DomainIdentifier")?;
    if domain.starts_with(b"*OSTA UDF Compliant") {
        let rev = l.le16(216 + 24, "UDF revision")?;
        d.push(kv(
            "UDF revision",
            format!("{}.{:02x}", rev >> 8, rev & 0xFF),
        ));
    }
    // The label is the Logical Volume Identifier (what Windows, GRUB and
    // libblkid show); an empty one is no label, whatever the PVD's Volume
    // Identifier says (shown as a detail).
    let label = dstring(l.bytes(84, 128, "LogicalVolumeIdentifier")?);
    let mut uuid = None;
    if let Some(p) = pvd {
        let pv = Fields { b: p, fs: FS };
        let vid = dstring(pv.bytes(24, 32, "VolumeIdentifier")?);
        if vid != label {
            if let Some(v) = vid {
                d.push(kv("volume identifier", v));
            }
        }
        let set_field = pv.bytes(72, 128, "VolumeSetIdentifier")?;
        uuid = set_uuid(set_field);
        if let Some(set) = dstring(set_field) {
            d.push(kv("volume set identifier", set));
        }
    }
    Ok((label, uuid))
}

/// Where the partition ends, in blocks.
fn partition_end(
    pd: Option<&[u8]>,
    d: &mut Vec<(String, String)>,
) -> Result<Option<u64>, ProbeError> {
    let mut part_end = None;
    if let Some(p) = pd {
        let pf = Fields { b: p, fs: FS };
        let start = u64::from(pf.le32(188, "PartitionStartingLocation")?);
        let len = u64::from(pf.le32(192, "PartitionLength")?);
        d.push(kv("partition", format!("blocks {start} + {len}")));
        part_end = Some(start + len);
    }
    Ok(part_end)
}

/// Volume size: N blocks when an anchor sits at N-1 or N-257 (2.2.3).
fn volume_size(
    dev: &mut Dev,
    bs: u64,
    part_end: Option<u64>,
    d: &mut Vec<(String, String)>,
) -> Result<u64, ProbeError> {
    Ok(match end_anchor(dev, bs, part_end)? {
        Some(n) => n * bs,
        None => match part_end {
            Some(e) => {
                d.push(kv(
                    "volume size",
                    "no anchor found at the end: estimated from the partition end",
                ));
                e * bs
            }
            None => {
                return Err(corrupt!(
                    "{FS}: no Partition Descriptor and no anchor at the end: size unknown"
                ))
            }
        },
    })
}

/// LVID (3/10.10): (free, size) blocks from the free space table of the
/// first partition.
fn free_space(
    dev: &mut Dev,
    l: &Fields,
    bs: u64,
    d: &mut Vec<(String, String)>,
) -> Result<Option<(u64, u64)>, ProbeError> {
    let lvid_len = u64::from(l.le32(432, "IntegritySequenceExtent length")?);
    let lvid_loc = u64::from(l.le32(436, "IntegritySequenceExtent location")?);
    let mut free = None;
    if lvid_len >= 512 {
        match dev.exact(lvid_loc * bs, 512, "integrity descriptor") {
            Ok(b) if tag_ok(&b, lvid_loc) == Some(TAG_LVID) => {
                let parts = bytes::le32(&b, 72).unwrap_or(0);
                let closed = bytes::le32(&b, 28) == Some(1);
                d.push(kv(
                    "integrity",
                    if closed {
                        "closed"
                    } else {
                        "open (not cleanly closed)"
                    },
                ));
                if parts >= 1 {
                    let fr = bytes::le32(&b, 80).unwrap_or(u32::MAX);
                    let sz = bytes::le32(&b, 80 + 4 * parts.min(100) as usize).unwrap_or(u32::MAX);
                    if fr != u32::MAX && sz != u32::MAX && fr <= sz {
                        d.push(kv("partition blocks (LVID size table)", sz));
                        free = Some((u64::from(fr), u64::from(sz)));
                    }
                }
            }
            Ok(_) => d.push(kv("integrity", "no valid LVID at its extent")),
            Err(e) => d.push(kv("integrity", e)),
        }
    }
    Ok(free)
}

/// The volume's length in blocks from its closing anchors: the device end
/// when an AVDP sits at N-1 or N-257 (a whole device or image); otherwise
/// the first AVDP in the 1024 blocks after the partition (a UDF volume
/// inside a partition of a larger disk), N-257 when another follows 256
/// blocks later, N-1 when not.
fn end_anchor(dev: &mut Dev, bs: u64, part_end: Option<u64>) -> Result<Option<u64>, ProbeError> {
    let n = dev.size() / bs;
    for last in [n.checked_sub(1), n.checked_sub(257)].into_iter().flatten() {
        if last > 256 && tag_ok(&dev.read(last * bs, 512)?, last) == Some(TAG_AVDP) {
            return Ok(Some(n));
        }
    }
    let Some(start) = part_end.filter(|&e| e > 256) else {
        return Ok(None);
    };
    let window = dev.read(start * bs, (1024 * bs) as usize)?;
    for (i, b) in window.chunks(bs as usize).enumerate() {
        let at = start + i as u64;
        if tag_ok(b, at) == Some(TAG_AVDP) {
            let next = at + 256;
            let again = dev.read(next * bs, 512)?;
            let end = if tag_ok(&again, next) == Some(TAG_AVDP) {
                next + 1
            } else {
                at + 1
            };
            return Ok(Some(end));
        }
    }
    Ok(None)
}

/// libblkid's UUID from the volume set identifier (a dstring field),
/// util-linux libblkid/src/superblocks/udf.c gen_uuid_from_volset_id. The
/// identifier's characters up to the first NUL are encoded as UTF-8 into
/// at most 16 bytes (a character that does not fit ends it); under 8 bytes
/// there is no UUID. Then, by where the first non-hex-digit byte is:
/// - none in the 16: those 16 bytes, lowercased (mkudffs: 16 hex digits);
/// - in bytes 8..16: bytes 0..8 lowercased, then bytes 8..12 as hex
///   (udfclient, Windows: 8 hex digits of a time value, then text);
/// - in bytes 0..8: bytes 0..8 as hex (macOS, old mkudffs: plain text).
fn set_uuid(field: &[u8]) -> Option<String> {
    let (&clen, body) = field.split_last()?;
    let (&cid, chars) = body.split_first()?;
    let n = usize::from(clen).saturating_sub(1).min(chars.len());
    let chars = &chars[..n];
    let codes: Vec<u32> = match cid {
        8 => chars.iter().map(|&c| u32::from(c)).collect(),
        16 => utf16_codes(chars),
        _ => return None,
    };
    let mut buf: Vec<u8> = Vec::with_capacity(16);
    for c in codes {
        if c == 0 {
            break;
        }
        let enc = utf8_bytes(c);
        if buf.len() + enc.len() > 16 {
            break;
        }
        buf.extend_from_slice(&enc);
    }
    if buf.len() < 8 {
        return None;
    }
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let lower = |b: &[u8]| String::from_utf8_lossy(&b.to_ascii_lowercase()).into_owned();
    buf.resize(16, 0);
    let nonhex = buf
        .iter()
        .position(|c| !c.is_ascii_hexdigit())
        .unwrap_or(16);
    Some(if nonhex < 8 {
        hex(&buf[..8])
    } else if nonhex < 16 {
        format!("{}{}", lower(&buf[..8]), hex(&buf[8..12]))
    } else {
        lower(&buf)
    })
}

/// UTF-16BE code units as code points, surrogate pairs joined; a lone
/// surrogate is kept as its own value, as libblkid's encoder does.
fn utf16_codes(b: &[u8]) -> Vec<u32> {
    let units: Vec<u32> = b
        .chunks_exact(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .collect();
    let mut out = vec![];
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        match units.get(i + 1) {
            Some(&l) if (0xD800..0xDC00).contains(&u) && (0xDC00..0xE000).contains(&l) => {
                out.push(0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00));
                i += 2;
            }
            _ => {
                out.push(u);
                i += 1;
            }
        }
    }
    out
}

/// UTF-8 bytes of a code point, surrogates included (as C encoders do).
fn utf8_bytes(c: u32) -> Vec<u8> {
    if c < 0x80 {
        vec![c as u8]
    } else if c < 0x800 {
        vec![0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]
    } else if c < 0x10000 {
        vec![
            0xE0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]
    } else {
        vec![
            0xF0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3F) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dstrings() {
        let mut f = [0u8; 32];
        f[0] = 8;
        f[1..6].copy_from_slice(b"HELLO");
        f[31] = 6;
        assert_eq!(dstring(&f).as_deref(), Some("HELLO"));
        let mut g = [0u8; 32];
        g[0] = 16;
        g[1..5].copy_from_slice(&[0, b'h', 0, b'i']);
        g[31] = 5;
        assert_eq!(dstring(&g).as_deref(), Some("hi"));
        g[31] = 200;
        assert_eq!(dstring(&g), None);
    }

    /// A 128-byte dstring field: compression id, characters, length byte.
    fn field(cid: u8, chars: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 128];
        f[0] = cid;
        f[1..1 + chars.len()].copy_from_slice(chars);
        f[127] = (chars.len() + 1) as u8;
        f
    }

    fn utf16be(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect()
    }

    #[test]
    fn uuid_from_volume_set_identifier_by_libblkids_three_rules() {
        // All 16 hex (mkudffs): lowercased.
        let f = field(8, b"5F3A9B2C0D1E2F30LinuxUDF");
        assert_eq!(set_uuid(&f).as_deref(), Some("5f3a9b2c0d1e2f30"));
        // 8 hex then text (udfclient, Windows 7): hex kept, 4 bytes as hex.
        let f = field(16, &utf16be("4C2B1A09 UDF Volume Set"));
        assert_eq!(set_uuid(&f).as_deref(), Some("4c2b1a0920554446"));
        // Text at once (macOS "Untitled"): the first 8 bytes as hex.
        let f = field(8, b"Untitled");
        assert_eq!(set_uuid(&f).as_deref(), Some("556e7469746c6564"));
        // Under 8 bytes: none; a NUL ends the identifier.
        assert_eq!(set_uuid(&field(8, b"short")), None);
        assert_eq!(set_uuid(&field(8, b"abc\0defghij")), None);
        // Non-ASCII counts in UTF-8 bytes: "é" is c3 a9.
        let f = field(16, &utf16be("éééééééé"));
        assert_eq!(set_uuid(&f).as_deref(), Some("c3a9c3a9c3a9c3a9"));
        // Unknown compression id, empty field.
        assert_eq!(set_uuid(&field(9, b"0123456789abcdef")), None);
        assert_eq!(set_uuid(&[0u8; 128]), None);
        assert_eq!(set_uuid(&[]), None);
    }

    #[test]
    fn tags() {
        let mut t = [0u8; 16];
        t[0] = 2;
        t[12..16].copy_from_slice(&256u32.to_le_bytes());
        t[4] = t
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 4)
            .fold(0u8, |a, (_, &x)| a.wrapping_add(x));
        assert_eq!(tag_ok(&t, 256), Some(2));
        assert_eq!(tag_ok(&t, 257), None);
    }
}
