//! `copy`: a folder of photos copied, then `sync`.

use super::{Ctx, Promise, Workload};
use crate::Result;

pub struct CopyFolder;

impl Workload for CopyFolder {
    fn name(&self) -> &'static str {
        "copy"
    }

    fn description(&self) -> &'static str {
        "a folder of photos copied to the stick, then `sync`"
    }

    fn promise(&self) -> Promise {
        Promise::Sync
    }

    fn run(&self, c: &mut Ctx) -> Result<()> {
        super::mkdir(&c.path("DCIM"))?;
        let sc = c.scale;
        for i in 0..sc.photos {
            let rel = format!("DCIM/IMG_{i:04}.JPG");
            let n = sc.photo_bytes / 2 + c.rng.below(sc.photo_bytes as u64) as usize;
            let b = c.bytes(n);
            c.write_file(&c.path(&rel), &b, false)?;
            let at = c.at();
            c.oracle.set(&rel, Some(&b), at);
        }
        c.sync()
    }
}
