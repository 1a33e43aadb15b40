//! The recorder's log: every write (offset, bytes) and every flush the
//! filesystem under test sent to its device, in the order the device saw
//! them. Each record carries an xxh3 checksum over its header and data, so
//! a log damaged on disk is refused instead of replayed into wrong states.

use crate::{Error, Result};
use std::io::{Read, Write};
use std::path::Path;

const FILE_MAGIC: &[u8; 8] = b"FSFITLG1";
const REC_MAGIC: u32 = 0x4352_4543; // "CERC"
/// magic u32, kind u8, 3 pad, seq u64, offset u64, len u32, 4 pad, sum u64
const HEADER: usize = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Write,
    /// The device was asked to make everything before durable (fsync of the
    /// backing file: a REQ_OP_FLUSH, or a FUA write split by the block layer).
    Flush,
    /// fsfit's own marker: the workload starts here (old files are durable).
    Mark,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Write => 1,
            Kind::Flush => 2,
            Kind::Mark => 3,
        }
    }
    fn from_code(c: u8) -> Option<Kind> {
        Some(match c {
            1 => Kind::Write,
            2 => Kind::Flush,
            3 => Kind::Mark,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    pub offset: u64,
    pub data: Vec<u8>,
}

fn sum(head: &[u8], data: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(head);
    h.update(data);
    h.digest()
}

fn encode(seq: u64, r: &Record) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER + r.data.len());
    b.extend_from_slice(&REC_MAGIC.to_le_bytes());
    b.extend_from_slice(&[r.kind.code(), 0, 0, 0]);
    b.extend_from_slice(&seq.to_le_bytes());
    b.extend_from_slice(&r.offset.to_le_bytes());
    b.extend_from_slice(&(r.data.len() as u32).to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    let s = sum(&b, &r.data);
    b.extend_from_slice(&s.to_le_bytes());
    b.extend_from_slice(&r.data);
    b
}

/// Appends records to a log file.
pub struct Writer {
    out: std::io::BufWriter<std::fs::File>,
    seq: u64,
    pub bytes: u64,
}

impl Writer {
    pub fn create(path: &Path, image_size: u64) -> Result<Writer> {
        let f = std::fs::File::create(path)
            .map_err(|e| Error::work(format!("cannot create {}: {e}", path.display())))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
        let mut head = FILE_MAGIC.to_vec();
        head.extend_from_slice(&image_size.to_le_bytes());
        out.write_all(&head)
            .map_err(|e| Error::work(e.to_string()))?;
        Ok(Writer {
            out,
            seq: 0,
            bytes: head.len() as u64,
        })
    }

    pub fn append(&mut self, r: &Record) -> Result<()> {
        let b = encode(self.seq, r);
        self.out
            .write_all(&b)
            .map_err(|e| Error::work(format!("cannot write the recorder log: {e}")))?;
        self.seq += 1;
        self.bytes += b.len() as u64;
        Ok(())
    }

    /// Records appended so far: the log position.
    pub fn len(&self) -> u64 {
        self.seq
    }

    pub fn is_empty(&self) -> bool {
        self.seq == 0
    }

    pub fn finish(mut self) -> Result<()> {
        self.out
            .flush()
            .map_err(|e| Error::work(format!("cannot write the recorder log: {e}")))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| Error::work(e.to_string()))
    }
}

/// A whole log: the image size it was recorded against and its records.
pub struct Log {
    pub image_size: u64,
    pub records: Vec<Record>,
}

/// Read and verify a log; any damage is an error naming the record.
pub fn read(path: &Path) -> Result<Log> {
    let mut raw = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut raw))
        .map_err(|e| Error::work(format!("cannot read {}: {e}", path.display())))?;
    parse(&raw).map_err(|e| Error::work(format!("{}: {e}", path.display())))
}

pub fn parse(raw: &[u8]) -> Result<Log> {
    if raw.len() < 16 || &raw[..8] != FILE_MAGIC {
        return Err(Error::work("not an fsfit recorder log"));
    }
    let image_size = u64::from_le_bytes(raw[8..16].try_into().unwrap());
    let mut at = 16;
    let mut records = Vec::new();
    while at < raw.len() {
        let n = records.len();
        let corrupt =
            |why: &str| Error::work(format!("log is corrupt at record {n} (byte {at}): {why}"));
        if raw.len() - at < HEADER {
            return Err(corrupt("truncated header"));
        }
        let h = &raw[at..at + HEADER];
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap());
        if u32_at(0) != REC_MAGIC {
            return Err(corrupt("bad record magic"));
        }
        let len = u32_at(24) as usize;
        if raw.len() - at - HEADER < len {
            return Err(corrupt("truncated data"));
        }
        let data = &raw[at + HEADER..at + HEADER + len];
        if sum(&h[..32], data) != u64_at(32) {
            return Err(corrupt("checksum mismatch"));
        }
        if u64_at(8) != n as u64 {
            return Err(corrupt("records out of sequence"));
        }
        let kind = Kind::from_code(h[4]).ok_or_else(|| corrupt("unknown record kind"))?;
        records.push(Record {
            kind,
            offset: u64_at(16),
            data: data.to_vec(),
        });
        at += HEADER + len;
    }
    Ok(Log {
        image_size,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        let mut w = Writer::create(&p, 1 << 20).unwrap();
        w.append(&Record {
            kind: Kind::Write,
            offset: 4096,
            data: vec![7; 4096],
        })
        .unwrap();
        w.append(&Record {
            kind: Kind::Flush,
            offset: 0,
            data: vec![],
        })
        .unwrap();
        w.finish().unwrap();
        std::fs::read(&p).unwrap()
    }

    #[test]
    fn round_trip() {
        let log = parse(&sample()).unwrap();
        assert_eq!(log.image_size, 1 << 20);
        assert_eq!(log.records.len(), 2);
        assert_eq!(log.records[0].offset, 4096);
        assert_eq!(log.records[1].kind, Kind::Flush);
    }

    #[test]
    fn every_flipped_byte_is_caught() {
        let raw = sample();
        for i in 16..raw.len() {
            let mut bad = raw.clone();
            bad[i] ^= 0x20;
            assert!(parse(&bad).is_err(), "flip at byte {i} not detected");
        }
    }
}
