//! `save`: an editor's save, again and again: write a temp file, fsync it,
//! rename it over the document, fsync the folder.

use super::{fsync_dir, io, Ctx, Promise, Workload};
use crate::Result;

pub struct Save;

const DOC: &str = "report.doc";

impl Workload for Save {
    fn name(&self) -> &'static str {
        "save"
    }

    fn description(&self) -> &'static str {
        "a document saved as editors do: temp file, fsync, rename over it, fsync the folder"
    }

    fn promise(&self) -> Promise {
        Promise::Fsync
    }

    fn prepare(&self, c: &mut Ctx) -> Result<()> {
        let b = c.bytes(24 << 10);
        c.write_file(&c.path(DOC), &b, true)?;
        let at = c.at();
        c.oracle.set(DOC, Some(&b), at);
        Ok(())
    }

    fn run(&self, c: &mut Ctx) -> Result<()> {
        for _ in 0..c.scale.saves {
            let n = (16 << 10) + c.rng.below(48 << 10) as usize;
            let b = c.bytes(n);
            let tmp = c.path(".report.doc.tmp");
            c.write_file(&tmp, &b, true)?;
            std::fs::rename(&tmp, c.path(DOC)).map_err(io("cannot rename", &tmp))?;
            let at = c.at();
            c.oracle.set(DOC, Some(&b), at);
            fsync_dir(c.root)?;
            let at = c.at();
            c.oracle.durable(DOC, at);
        }
        Ok(())
    }
}
