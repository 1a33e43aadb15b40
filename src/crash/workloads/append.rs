//! `append`: a log appended to, each line fsynced.

use super::{io, Ctx, Promise, Workload};
use crate::Result;
use std::io::Write;

pub struct Append;

const LOG: &str = "journal.log";

impl Workload for Append {
    fn name(&self) -> &'static str {
        "append"
    }

    fn description(&self) -> &'static str {
        "a journal appended to line by line, each line fsynced"
    }

    fn promise(&self) -> Promise {
        Promise::Fsync
    }

    fn prepare(&self, c: &mut Ctx) -> Result<()> {
        c.write_file(&c.path(LOG), b"", true)?;
        let at = c.at();
        c.oracle.appended(LOG, b"", at);
        Ok(())
    }

    fn run(&self, c: &mut Ctx) -> Result<()> {
        let p = c.path(LOG);
        let mut f = crate::fs::policy::writing(c.through)
            .append(true)
            .open(&p)
            .map_err(io("cannot open", &p))?;
        let mut all = Vec::new();
        for i in 0..c.scale.appends {
            let line = line(c, i);
            f.write_all(&line).map_err(io("cannot write", &p))?;
            all.extend_from_slice(&line);
            let at = c.at();
            c.oracle.appended(LOG, &all, at);
            f.sync_all().map_err(io("cannot fsync", &p))?;
            let at = c.at();
            c.oracle.durable(LOG, at);
        }
        Ok(())
    }
}

/// Line `i`: its number, then 200 to 6,199 random letters.
fn line(c: &mut Ctx, i: usize) -> Vec<u8> {
    let n = 200 + c.rng.below(6000) as usize;
    let mut line = format!("{i:06} ").into_bytes();
    line.extend((0..n).map(|_| b'a' + c.rng.below(26) as u8));
    line.push(b'\n');
    line
}
