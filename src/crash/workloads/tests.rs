//! Each workload run in a plain folder: its oracle must agree with the files
//! it left, and its steps must keep the promise it declares.

use super::*;
use std::cell::Cell;

/// Run `w` (prepare, then run) at quick scale in a new folder; the oracle,
/// with every step a position of its own.
fn run(w: &dyn Workload) -> (tempfile::TempDir, Oracle, u64) {
    let dir = tempfile::tempdir().unwrap();
    let n = Cell::new(0u64);
    let pos = || {
        n.set(n.get() + 1);
        n.get()
    };
    let mut oracle = Oracle::default();
    let mut rng = Rng::new(7);
    let mut c = Ctx {
        root: dir.path(),
        oracle: &mut oracle,
        rng: &mut rng,
        scale: Scale::new(true),
        pos: &pos,
        through: false,
    };
    prepare(w, &mut c).unwrap();
    w.run(&mut c).unwrap();
    (dir, oracle, n.get() + 1)
}

#[test]
fn the_registry_names_each_workload_once_in_order() {
    assert_eq!(names(), ["copy", "save", "append", "reorganize"]);
    for w in all() {
        assert_eq!(by_name(w.name()).unwrap().name(), w.name());
        assert!(!w.description().is_empty());
    }
    assert!(by_name("nope").is_none());
}

#[test]
fn every_oracle_matches_the_files_its_workload_left() {
    for w in all() {
        let (dir, oracle, end) = run(w);
        let f = oracle.judge(&oracle.observe(dir.path()), end);
        let lost = [
            &f.old_damaged,
            &f.durable_lost,
            &f.inflight_lost,
            &f.inflight_garbage,
        ];
        assert!(lost.iter().all(|l| l.is_empty()), "{}: {f:?}", w.name());
        assert!(
            oracle.files.iter().any(|f| !f.old),
            "{} wrote nothing",
            w.name()
        );
    }
}

/// Whether some version of the workload's files became durable only after
/// another version was written (a `sync` covering several writes).
fn batched(oracle: &Oracle) -> bool {
    let all: Vec<&super::super::oracle::Version> = oracle
        .files
        .iter()
        .filter(|f| !f.old)
        .flat_map(|f| &f.versions)
        .collect();
    all.iter().any(|v| {
        let d = v.durable.expect("every version ends durable");
        all.iter().any(|o| o.at > v.at && o.at < d)
    })
}

#[test]
fn every_workload_keeps_its_promise() {
    for w in all() {
        let (_dir, oracle, _) = run(w);
        assert_eq!(
            batched(&oracle),
            w.promise() == Promise::Sync,
            "{}: {:?}",
            w.name(),
            w.promise()
        );
    }
}
