use super::*;
use crate::crash::states::Builder;

fn w(off: u64, byte: u8, len: usize) -> Record {
    Record {
        kind: Kind::Write,
        offset: off,
        data: vec![byte; len],
    }
}
fn f() -> Record {
    Record {
        kind: Kind::Flush,
        offset: 0,
        data: vec![],
    }
}
fn mark() -> Record {
    Record {
        kind: Kind::Mark,
        offset: 0,
        data: vec![],
    }
}

/// 64 writes of 8 KiB over a 1 MiB image and a single flush: a driver
/// that flushes rarely.
fn rare_flusher() -> Vec<Record> {
    let mut v = vec![w(0, 9, 1 << 20), f(), mark()];
    for i in 0..64u64 {
        v.push(w((i % 100) * 8192 % (1 << 20), i as u8 + 1, 8192));
        if i == 40 {
            v.push(f());
        }
    }
    v
}

const IMG: usize = 1 << 20;

/// The image of `s` built from scratch, without the builder.
fn naive(recs: &[Record], s: &State) -> Vec<u8> {
    let mut img = vec![0u8; IMG];
    let put = |img: &mut Vec<u8>, r: &Record, n: usize| {
        let o = r.offset as usize;
        img[o..o + n].copy_from_slice(&r.data[..n]);
    };
    for r in recs[..s.prefix].iter().filter(|r| r.kind == Kind::Write) {
        put(&mut img, r, r.data.len());
    }
    for &i in &s.extra {
        put(&mut img, &recs[i as usize], recs[i as usize].data.len());
    }
    if let Some(t) = &s.tear {
        put(&mut img, &recs[t.record as usize], t.keep as usize);
    }
    if let Some(g) = &s.gc {
        let r = g.offset as usize..(g.offset + g.len) as usize;
        match g.scramble {
            Some(seed) => Rng::new(seed).fill(&mut img[r]),
            None => img[r].fill(0),
        }
    }
    img
}

fn check_images(recs: &[Record], all: &[State]) {
    let zero = vec![0u8; IMG];
    let mut b = Builder::new(&zero, recs);
    for s in all {
        b.build(s).unwrap();
        let want = naive(recs, s);
        assert!(b.image() == want, "state {}", s.id);
        for (k, blk) in want.chunks(4096).enumerate() {
            assert!(b.block(k as u64) == blk, "state {} block {k}", s.id);
        }
    }
}

#[test]
fn a_rare_flusher_still_gets_min_states_and_the_selection_says_how() {
    let recs = rare_flusher();
    for model in [
        Model::Honest,
        Model::Lying,
        Model::NoFlush { cache: 64 << 10 },
    ] {
        let all = generate(&recs, 3, 2, 40, &model, &mut Rng::new(3));
        assert!(all.len() >= 40, "{}: {} states", model.name(), all.len());
        let ids: std::collections::HashSet<_> = all.iter().map(|s| &s.id).collect();
        assert_eq!(ids.len(), all.len(), "ids are unique");
        check_images(&recs, &all);
        let sel = selection(&model, &all, 40, 2);
        assert_eq!(sel.counts.values().sum::<u64>(), all.len() as u64);
        if model == Model::Honest {
            assert!(sel.counts["write_prefix"] > 0 && sel.counts["bounded_subset"] > 0);
        }
    }
}

#[test]
fn no_flush_keeps_a_prefix_and_a_subset_of_the_cache_only() {
    let recs = rare_flusher();
    let cache = 32 << 10; // four 8 KiB writes
    let all = generate(&recs, 3, 3, 40, &Model::NoFlush { cache }, &mut Rng::new(5));
    let mut dropped_some = false;
    for s in &all {
        // Everything before the prefix persisted; the extras lie in the
        // last `cache` bytes of writes before the cut.
        let window: u64 = recs[s.prefix..s.cut]
            .iter()
            .filter(|r| r.kind == Kind::Write)
            .map(|r| r.data.len() as u64)
            .sum();
        assert!(window <= cache, "{}: window of {window} bytes", s.id);
        assert!(s
            .extra
            .iter()
            .all(|&i| (i as usize) >= s.prefix && (i as usize) < s.cut));
        let in_window = recs[s.prefix..s.cut]
            .iter()
            .filter(|r| r.kind == Kind::Write)
            .count();
        dropped_some |= s.extra.len() < in_window;
    }
    assert!(dropped_some, "no state lost a cached write");
}

#[test]
fn a_torn_write_persists_its_first_units_only() {
    let recs = rare_flusher();
    let all = generate(
        &recs,
        3,
        2,
        40,
        &Model::Torn { unit: SECTOR },
        &mut Rng::new(9),
    );
    let torn: Vec<&State> = all.iter().filter(|s| s.tear.is_some()).collect();
    assert!(!torn.is_empty());
    check_images(&recs, &all);
    for s in torn {
        let t = s.tear.as_ref().unwrap();
        let r = &recs[t.record as usize];
        assert!(t.keep > 0 && t.keep < r.data.len() as u64 && t.keep % SECTOR == 0);
        assert_eq!(
            t.record as usize,
            s.cut - 1,
            "{}: the write in flight",
            s.id
        );
        assert!(!s.extra.contains(&t.record));
        // Its image is neither the state without the write nor with all of it.
        let img = naive(&recs, s);
        let mut without = s.clone();
        without.tear = None;
        let mut whole = without.clone();
        whole.extra.push(t.record);
        assert_ne!(img, naive(&recs, &without), "{}", s.id);
        assert_ne!(img, naive(&recs, &whole), "{}", s.id);
    }
}

#[test]
fn flash_gc_damages_the_au_of_the_last_write_from_a_page_on() {
    let recs = rare_flusher();
    let g = Geometry {
        au_bytes: 256 << 10,
        page_bytes: 16 << 10,
        profile: "test".into(),
    };
    let all = generate(
        &recs,
        3,
        2,
        40,
        &Model::FlashGc {
            geometry: g.clone(),
        },
        &mut Rng::new(2),
    );
    check_images(&recs, &all);
    let gcs: Vec<&State> = all.iter().filter(|s| s.gc.is_some()).collect();
    assert!(
        gcs.len() * 2 >= all.len() - 1,
        "most states have a gc variant"
    );
    for s in gcs {
        let d = s.gc.as_ref().unwrap();
        assert_eq!(d.offset % g.page_bytes, 0);
        assert_eq!(
            (d.offset + d.len) % g.au_bytes,
            0,
            "{}: to the AU's end",
            s.id
        );
        // The state without the damage is there too, judged as honest.
        let parent = s.id.trim_end_matches("-g");
        assert!(all.iter().any(|p| p.id == parent && p.gc.is_none()));
        // The damage shows: the pages differ from the undamaged state's.
        let mut undamaged = (*s).clone();
        undamaged.gc = None;
        let r = d.offset as usize..(d.offset + d.len) as usize;
        assert_ne!(
            naive(&recs, s)[r.clone()],
            naive(&recs, &undamaged)[r],
            "{}",
            s.id
        );
    }
    assert!(geometry(Some("nonesuch")).is_err());
    let stick = geometry(None).unwrap();
    assert_eq!((stick.au_bytes, stick.page_bytes), (4 << 20, 16 << 10));
}
