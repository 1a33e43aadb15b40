//! How `fsfit info` recognises a filesystem on disk, as data (libblkid's
//! `idmag` tables in `superblocks/*.c`): each filesystem's `probe.rs`
//! declares its magic bytes at offsets from the volume's start in a
//! [`Signature`], and the one matcher here checks them and calls the
//! filesystem's parser only on a match.

use super::{Dev, ProbeError, ProbeOptions, VolumeInfo};
use crate::fs::{all, Filesystem};

/// Magic bytes at a fixed offset from the volume's start.
#[derive(Clone, Copy, Debug)]
pub struct Magic {
    pub offset: u64,
    pub bytes: &'static [u8],
}

impl Magic {
    pub const fn at(offset: u64, bytes: &'static [u8]) -> Magic {
        Magic { offset, bytes }
    }

    /// The magic is in `b`, the volume's first bytes.
    pub fn in_head(&self, b: &[u8]) -> bool {
        usize::try_from(self.offset).is_ok_and(|o| super::bytes::has(b, o, self.bytes))
    }
}

/// True when any of `magics` is in `b`, the volume's first bytes.
pub fn any_in(magics: &[Magic], b: &[u8]) -> bool {
    magics.iter().any(|m| m.in_head(b))
}

/// A filesystem's parser, called once one of its magics matched (`head`
/// holds the first 4 KiB, or fewer on a short device): the parsed volume,
/// the error naming what is corrupt, or None when a deeper check finds it
/// is not this filesystem after all (UDF: an ISO 9660 without NSR).
pub type Parser = fn(&mut Dev, &[u8], &ProbeOptions) -> Option<Result<VolumeInfo, ProbeError>>;

/// How `fsfit info` recognises a filesystem on disk.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// Probes run by ascending `order`: strong signatures first, so a weak
    /// one (FAT's bare 0x55AA) cannot claim another filesystem's volume.
    pub order: u8,
    /// A weak signature: when its parse fails, the bytes may be a partition
    /// table instead, and info says so.
    pub weak: bool,
    /// Any one of these matching calls `parse`.
    pub magics: &'static [Magic],
    pub parse: Parser,
    /// The volume's first sector is this filesystem's boot sector, not a
    /// partition table's MBR (which ends in 0x55AA too). None: it keeps no
    /// boot sector there.
    pub boot_sector: Option<fn(&[u8]) -> bool>,
    /// A first sector that failed `parse` still looks like this filesystem
    /// (a damaged volume, not another kind): its error is worth showing.
    pub damaged: Option<fn(&[u8]) -> bool>,
}

/// Strong or weak signatures (see [`Signature::weak`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    Strong,
    Weak,
}

/// The registered filesystems of one strength, by ascending `order`.
fn by_order(strength: Strength) -> Vec<&'static dyn Filesystem> {
    let mut order: Vec<&dyn Filesystem> = all()
        .iter()
        .copied()
        .filter(|f| f.info().signature.weak == (strength == Strength::Weak))
        .collect();
    order.sort_by_key(|f| f.info().signature.order);
    order
}

/// Does one of `sig`'s magics sit on the volume? Read from `head` where it
/// holds them, from the device further in.
fn matches(sig: &Signature, dev: &mut Dev, head: &[u8]) -> Result<bool, ProbeError> {
    for m in sig.magics {
        let found = match usize::try_from(m.offset) {
            Ok(o) if o + m.bytes.len() <= head.len() => m.in_head(head),
            _ => dev.read(m.offset, m.bytes.len())? == m.bytes,
        };
        if found {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The first filesystem of `strength` whose magic matches and whose parser
/// claims the volume: the parse (or the error naming the corrupt field, or
/// the read that failed). None: none of them is there.
pub fn identify(
    dev: &mut Dev,
    head: &[u8],
    opts: &ProbeOptions,
    strength: Strength,
) -> Option<Result<VolumeInfo, ProbeError>> {
    for f in by_order(strength) {
        let sig = &f.info().signature;
        match matches(sig, dev, head) {
            Err(e) => return Some(Err(e)),
            Ok(false) => {}
            Ok(true) => {
                if let Some(found) = (sig.parse)(dev, head, opts) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// The first sector `b` is a filesystem's boot sector, not an MBR.
pub fn is_boot_sector(b: &[u8]) -> bool {
    all()
        .iter()
        .any(|f| f.info().signature.boot_sector.is_some_and(|is| is(b)))
}

/// A first sector that failed the weak signatures' parse still looks like
/// one of their filesystems (a damaged volume).
pub fn looks_damaged(head: &[u8]) -> bool {
    by_order(Strength::Weak)
        .iter()
        .any(|f| f.info().signature.damaged.is_some_and(|d| d(head)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_sectors_are_told_from_an_mbr_by_the_registry() {
        let mut mbr = vec![0u8; 512];
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        assert!(!is_boot_sector(&mbr));
        for f in all() {
            let sig = f.info().signature;
            let (Some(is), Some(m)) = (sig.boot_sector, sig.magics.first()) else {
                continue;
            };
            if sig.weak {
                continue; // FAT's 0x55AA alone is an MBR's too
            }
            let mut b = mbr.clone();
            let o = m.offset as usize;
            b[o..o + m.bytes.len()].copy_from_slice(m.bytes);
            assert!(is(&b) && is_boot_sector(&b), "{}", f.name());
        }
    }

    #[test]
    fn a_magic_past_the_head_is_read_from_the_device() {
        // Only the magic: the matcher finds it 64 KiB in, the parse then
        // names what is missing.
        let mut img = vec![0u8; 1 << 17];
        let (name, m) = all()
            .iter()
            .flat_map(|f| f.info().signature.magics.iter().map(move |m| (f.name(), m)))
            .max_by_key(|(_, m)| m.offset)
            .unwrap();
        let o = m.offset as usize;
        img[o..o + m.bytes.len()].copy_from_slice(m.bytes);
        let mut read = super::super::bytes::slice_reader(&img);
        let mut dev = Dev::new(&mut read);
        let head = img[..4096].to_vec();
        let found = identify(&mut dev, &head, &ProbeOptions::default(), Strength::Strong);
        let e = found.expect("the magic matched").unwrap_err().to_string();
        assert!(e.starts_with(name), "{name}: {e}");
        assert!(identify(
            &mut dev,
            &[0u8; 4096],
            &ProbeOptions::default(),
            Strength::Weak
        )
        .is_none());
    }
}
