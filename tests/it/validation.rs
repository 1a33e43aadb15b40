//! The cheap rows of docs/VALIDATION.md rerun at small scale: real drivers
//! copy a kernel-source-like tree onto a loop device under a block trace,
//! and the trace is replayed through the profile nearest each publication's
//! device. Each row compares a published ratio (one filesystem's time over
//! another's, or a misaligned partition's over an aligned one's) with the
//! simulated one. A row the table calls a hit must stay within its bounds
//! (orderings right, ratio within 2x); the rows the table calls misses are
//! printed with their figures, so a model change that fixes one shows up.
//! Run with `-- --nocapture` to see the table's simulated column.

use crate::common::{can_fuse, can_mount, copy_tree, have, run, skip, write_file};
use crate::common::{Image, Loop, Mount};
use fsfit::flash::trace::{at_partition, limit_requests, Tracer};
use fsfit::flash::{profile, replay, replay_settled, Family, Op, Profile, Replay, Request};
use std::path::Path;

const MIB: u64 = 1 << 20;
/// Where an MBR partition table of 2010 put the first partition (sector 63).
const SECTOR_63: u64 = 63 * 512;
/// The volume the rows whose record names no device size are traced on.
const VOLUME: u64 = 1 << 30;
/// The [LP1]/[LP2] card's volume: a Class 10 card of 2010 was an SDHC card
/// of 4-32 GB. Its size matters: ntfs-3g places each new file's clusters
/// 16 MiB past its last allocation (libntfs-3g's lcnalloc.c,
/// NTFS_LCNALLOC_SKIP), wrapping only at the volume's end, so a small volume
/// packs its files into fewer AUs than the card had.
const CARD_2010: u64 = 8 << 30;

/// A kernel-source-like tree, scaled down: `files` files in nested
/// folders, sizes spread log-uniformly from 128 B to 128 KiB (the linux
/// 2.6.34 tree the record copied: ~31,000 files, mostly a few KiB).
fn kernel_like_tree(root: &Path, files: u64) {
    for i in 0..files {
        let exp = 7.0 + 10.0 * ((i * 7919) % 1000) as f64 / 1000.0;
        let size = 2f64.powf(exp) as u64;
        let path = root.join(format!("d{}/s{}/f{i}.c", i % 12, i % 5));
        write_file(&path, size);
    }
}

/// How a filesystem is made and mounted for a row.
struct Fs {
    label: &'static str,
    mkfs: &'static [&'static str],
    /// Kernel fstype, or the FUSE program (`ntfs-3g`).
    mount: Driver,
}

enum Driver {
    Kernel(&'static str),
    Fuse(&'static str),
}

const EXT4: Fs = Fs {
    label: "ext4",
    mkfs: &["mkfs.ext4", "-F", "-q"],
    mount: Driver::Kernel("ext4"),
};
const EXT3: Fs = Fs {
    label: "ext3",
    mkfs: &["mkfs.ext3", "-F", "-q"],
    mount: Driver::Kernel("ext3"),
};
const EXT2: Fs = Fs {
    label: "ext2",
    mkfs: &["mkfs.ext2", "-F", "-q"],
    mount: Driver::Kernel("ext2"),
};
const NTFS3G: Fs = Fs {
    label: "ntfs-3g",
    mkfs: &["mkntfs", "-F", "-f", "-q"],
    mount: Driver::Fuse("ntfs-3g"),
};
const XFS: Fs = Fs {
    label: "xfs",
    mkfs: &["mkfs.xfs", "-f", "-q"],
    mount: Driver::Kernel("xfs"),
};
const BTRFS: Fs = Fs {
    label: "btrfs",
    mkfs: &["mkfs.btrfs", "-f", "-q"],
    mount: Driver::Kernel("btrfs"),
};

/// The block traces of one filesystem: copying the tree (cp -r, sync) and
/// reading it back cold (remounted, every file read whole).
struct Traces {
    write: Vec<Request>,
    read: Vec<Request>,
}

fn traced(fs: &Fs, tree: &Path, volume: u64) -> Option<Traces> {
    let tools: Vec<&str> = match fs.mount {
        Driver::Kernel(_) => vec![fs.mkfs[0]],
        Driver::Fuse(p) => vec![fs.mkfs[0], p],
    };
    if !have(&tools) || (matches!(fs.mount, Driver::Fuse(_)) && !can_fuse()) {
        return None;
    }
    let image = Image::new(volume);
    let lo = Loop::attach(&image.path);
    let dev = Path::new(&lo.dev);
    // As bench --flash: requests no larger than a USB 2 command (120 KiB).
    limit_requests(dev, 122_880);
    let mut args: Vec<&str> = fs.mkfs[1..].to_vec();
    args.push(&lo.dev);
    run(fs.mkfs[0], &args);
    let mount = || match fs.mount {
        Driver::Kernel(t) => Mount::kernel(&lo.dev, t, None),
        Driver::Fuse(p) => Mount::fuse(p, &[], &lo.dev),
    };
    let m = mount();
    let t = Tracer::start(dev).expect("block trace");
    copy_tree(tree, m.path());
    let write = t.stop().expect("block trace");
    drop(m);
    run("blockdev", &["--flushbufs", &lo.dev]);
    let m = mount();
    let t = Tracer::start(dev).expect("block trace");
    let dir = m.path().to_str().unwrap().to_string();
    run(
        "sh",
        &[
            "-c",
            &format!("find '{dir}' -type f -exec cat {{}} + >/dev/null"),
        ],
    );
    let read = t.stop().expect("block trace");
    drop(m);
    Some(Traces { write, read })
}

/// Device seconds of `trace` on a fresh device of `name`, the volume
/// `offset` bytes into the flash.
fn seconds(name: &str, trace: &[Request], offset: u64) -> f64 {
    let p = profile(name).unwrap();
    let mut t = trace.to_vec();
    at_partition(&mut t, offset);
    replay(&mut *p.device(), &t).device_seconds
}

/// `trace` replayed on a fresh device of `name`, the volume `offset` bytes
/// into the flash, and the device settled: an offset moves copying between
/// an AU's opening and its close, so offsets compare on all of it.
fn settled(name: &str, trace: &[Request], offset: u64) -> Replay {
    let p = profile(name).unwrap();
    let mut t = trace.to_vec();
    at_partition(&mut t, offset);
    replay_settled(&mut *p.device(), &t)
}

/// How the writes of `trace`, the volume at `offset`, fall into AUs: for
/// each piece of a write inside one AU, the AU by the order it was first
/// written, and whether it is in the card's FAT area. Two offsets with the
/// same pattern differ only in the pages.
fn au_pattern(p: &Profile, trace: &[Request], offset: u64) -> Vec<(usize, bool)> {
    let (au, fat) = (p.params.au_bytes, p.params.fat_area_bytes);
    let mut seen: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    for r in trace.iter().filter(|r| r.op == Op::Write && r.len > 0) {
        let (mut at, end) = (r.offset + offset, r.offset + offset + r.len);
        while at < end {
            let index = at / au;
            let n = seen.iter().position(|&a| a == index).unwrap_or_else(|| {
                seen.push(index);
                seen.len() - 1
            });
            out.push((n, at < fat));
            at = end.min((index + 1) * au);
        }
    }
    out
}

fn ready() -> bool {
    if !can_mount() {
        return false;
    }
    if fsfit::flash::trace::ensure_tracefs().is_err() {
        return skip("tracefs with block tracepoints (mount -t tracefs nodev /sys/kernel/tracing)");
    }
    true
}

/// One row: published and simulated ratio, and whether it is a hit. Where
/// the record found a real difference (over 10 %), a hit has the same
/// ordering and is within 2x; where it found none (within 10 %: "the same
/// on every filesystem"), a hit is within 25 % of equal. For absolute rates
/// (both far above 1) only the 2x bound applies.
fn row(what: &str, published: f64, simulated: f64) -> bool {
    let err = (simulated / published).max(published / simulated);
    let alike = (published - 1.0).abs() <= 0.10;
    let hit = if alike {
        (simulated - 1.0).abs() <= 0.25
    } else {
        (published >= 1.0) == (simulated >= 1.0) && err <= 2.0
    };
    eprintln!(
        "VALIDATION {what}: published {published:.2}, simulated {simulated:.2}, \
error {err:.2}x, {}",
        if hit { "hit" } else { "MISS" }
    );
    hit
}

/// The linux 2.6.34 tree written to a Class 10 SD card (linuxplanet,
/// 'What's The Fastest Linux Filesystem On Cheap Flash Media?', 2010):
/// write seconds ext2 368, ext3 501, ext4 125, vfat 518, ntfs-3g 174 on an
/// MBR partition; read back 53, 60, 53, 98, 118. The host has no kernel
/// vfat: its row is the QEMU lab's (docs/VALIDATION.md).
#[test]
fn class10_kernel_tree_across_families() {
    if !ready() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    kernel_like_tree(src.path(), 1500);
    let Some(ext4) = traced(&EXT4, src.path(), CARD_2010) else {
        return;
    };
    // The card as the profile describes it (written over before: every AU
    // it closes holds old data) and as the record calls it, "newish":
    // nothing known of what it held, so both are printed.
    let (card, new) = ("sd-2013-class10", "sd-2013-class10+new");
    let at63 = |name: &str, t: &[Request]| seconds(name, t, SECTOR_63);
    let (w4, r4, n4) = (
        at63(card, &ext4.write),
        at63(card, &ext4.read),
        at63(new, &ext4.write),
    );
    // A new card copies only what was written: never dearer.
    assert!(
        n4 <= w4,
        "ext4: new {n4:.3} s, written over before {w4:.3} s"
    );
    // (filesystem, published write and read ratios to ext4, whether the
    // read ordering is asserted: ext2's and ext3's reads are ext4's within
    // the record's and the model's spread)
    let rows: [(&Fs, f64, f64, bool); 3] = [
        (&EXT2, 368.0 / 125.0, 53.0 / 53.0, false),
        (&EXT3, 501.0 / 125.0, 60.0 / 53.0, false),
        (&NTFS3G, 174.0 / 125.0, 118.0 / 53.0, true),
    ];
    for (fs, pub_w, pub_r, slower_read) in rows {
        let Some(t) = traced(fs, src.path(), CARD_2010) else {
            continue;
        };
        let (used, fresh) = (at63(card, &t.write), at63(new, &t.write));
        let (w, r) = (used / w4, at63(card, &t.read) / r4);
        row(
            &format!("{} / ext4 tree write on {card}", fs.label),
            pub_w,
            w,
        );
        row(
            &format!("{} / ext4 tree read on {card}", fs.label),
            pub_r,
            r,
        );
        row(
            &format!("{} / ext4 tree write on {new}", fs.label),
            pub_w,
            fresh / n4,
        );
        // The orderings the table finds right on every run: each of these
        // writes the tree slower than ext4 (writeback timing moves the
        // ratios by a third from run to run, not the order).
        assert!(w > 1.0, "{} writes faster than ext4: {w:.2}", fs.label);
        assert!(
            r > 1.0 || !slower_read,
            "{} reads faster than ext4: {r:.2}",
            fs.label
        );
        assert!(
            fresh <= used,
            "{}: new {fresh:.3} s, written over before {used:.3} s",
            fs.label
        );
    }
}

/// The same record's second article ('What's The Fastest Partition Scheme
/// On Cheap Flash Media?', 2010): the same card and test with the partition
/// at sector 63 (MBR) and aligned (GPT). Write seconds MBR / GPT: ext2
/// 368/346, ext3 501/433, ext4 125/113, ntfs-3g 174/123: +6 % to +41 %.
/// `trace` of `fs` settled on `p` at sector 63, 1 MiB and 4 MiB (printed
/// with sector 64 and the AU copies), and the orderings the pages decide
/// asserted: sector 63 dearer than sector 64, and than 1 MiB and 4 MiB
/// where they cut the writes into AUs as sector 63 does.
fn sector_63_on(p: &Profile, fs: &Fs, trace: &[Request], published: f64) -> [Replay; 3] {
    let at = |offset: u64| settled(&p.name, trace, offset);
    let (s63, s64, m1, m4) = (at(SECTOR_63), at(64 * 512), at(MIB), at(4 * MIB));
    // Always so on the page-mapped profiles, which have no AUs.
    let same = |offset: u64| {
        p.family == Family::Paged || au_pattern(p, trace, offset) == au_pattern(p, trace, SECTOR_63)
    };
    let (same1, same4) = (same(MIB), same(4 * MIB));
    let pct = |x: &Replay| (s63.device_seconds / x.device_seconds - 1.0) * 100.0;
    let yes = |b: bool| if b { "same" } else { "other" };
    eprintln!(
        "VALIDATION {} sector 63 on {}: {:+.1} % over sector 64, {:+.1} % over 1 MiB \
({} AUs; published {:+.1} %), {:+.1} % over 4 MiB ({} AUs); AU copies {} / {} / {} / {}",
        fs.label,
        p.name,
        pct(&s64),
        pct(&m1),
        yes(same1),
        (published - 1.0) * 100.0,
        pct(&m4),
        yes(same4),
        s63.au_copies,
        s64.au_copies,
        m1.au_copies,
        m4.au_copies
    );
    assert!(
        s63.device_seconds > s64.device_seconds,
        "{} on {}: straddled pages cost nothing",
        fs.label,
        p.name
    );
    for (what, same, aligned) in [("1 MiB", same1, &m1), ("4 MiB", same4, &m4)] {
        assert!(
            !same || s63.device_seconds > aligned.device_seconds,
            "{} on {}: sector 63 no dearer than {what}",
            fs.label,
            p.name
        );
    }
    [s63, m1, m4]
}

/// One block trace of each filesystem is replayed at every offset (the
/// filesystem's layout does not depend on where its volume starts: mkfs
/// sees only the volume), the device settled after it, so only the offset
/// differs, on every profile. Sector 63 against sector 64 isolates the
/// pages a 4 KiB block straddles (the AUs cut the volume at the same
/// places, within 512 bytes): dearer on every profile. Against 1 MiB and
/// 4 MiB, where the AU copies come out the same (always on the page-mapped
/// profiles, which have no AUs), the pages decide too. Otherwise the offset
/// has moved the AU boundaries through the filesystem's 2-4 MiB allocation
/// chunks, or its metadata out of the card's FAT area, and on the cards
/// with one or two open AUs each AU copy (a 4 MiB copy, 0.2 s) outweighs
/// the pages, either way: printed, with the copies, for the table.
#[test]
fn sector_63_costs_what_the_record_measured() {
    if !ready() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    kernel_like_tree(src.path(), 1500);
    // Device seconds of ext2/3/4 on the record's class of card: (sector 63,
    // 1 MiB, 4 MiB).
    let mut ext_family = [0.0; 3];
    for (fs, published) in [
        (&EXT4, 125.0 / 113.0),
        (&EXT2, 368.0 / 346.0),
        (&EXT3, 501.0 / 433.0),
        (&NTFS3G, 174.0 / 123.0),
    ] {
        let Some(t) = traced(fs, src.path(), CARD_2010) else {
            continue;
        };
        for p in fsfit::flash::profiles() {
            let [s63, m1, m4] = sector_63_on(&p, fs, &t.write, published);
            if p.name == "sd-2013-class10" {
                // The table's rows 10-13, judged by the same rule as the others.
                let vs_1m = s63.device_seconds / m1.device_seconds;
                row(
                    &format!("{} sector 63 / 1 MiB on {}", fs.label, p.name),
                    published,
                    vs_1m,
                );
                // The record's "newish" card, as a new one (printed).
                let new = format!("{}+new", p.name);
                row(
                    &format!("{} sector 63 / 1 MiB on {new}", fs.label),
                    published,
                    settled(&new, &t.write, SECTOR_63).device_seconds
                        / settled(&new, &t.write, MIB).device_seconds,
                );
                if fs.label != "ntfs-3g" {
                    for (sum, r) in ext_family.iter_mut().zip([&s63, &m1, &m4]) {
                        *sum += r.device_seconds;
                    }
                }
            }
        }
    }
    // On the record's class of card (4 KiB pages, a floor under a lone
    // write) the read-modify-writes outweigh the AU phase: the record's
    // direction, asserted over the ext family's copies together (one
    // filesystem's figure moves with its run's writeback by more than its
    // margin). ntfs-3g's writes are long runs there, few of them start
    // inside a page: printed only.
    let [at63, at1m, at4m] = ext_family;
    assert!(
        at1m == 0.0 || (at63 > at1m && at63 > at4m),
        "ext family on sd-2013-class10: sector 63 {at63:.2} s, 1 MiB {at1m:.2} s, 4 MiB {at4m:.2} s"
    );
}

/// Phoronix, 'Testing Out Linux File-Systems On A USB Flash Drive' (2009,
/// Corsair Flash Voyager GT 32 GB, USB 2): IOzone 2 GB write ext4 19.93
/// MB/s, XFS 18.47, Btrfs 17.32 (all within 15 %, Btrfs slowest); reads
/// 28-29 MB/s on all. Here one 96 MiB file written and fsynced.
#[test]
fn usb2_stick_large_file_is_the_same_on_every_family() {
    if !ready() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    write_file(&src.path().join("big.bin"), 96 * MIB);
    let Some(ext4) = traced(&EXT4, src.path(), VOLUME) else {
        return;
    };
    let stick = "usb2-stick";
    let w4 = seconds(stick, &ext4.write, MIB);
    let r4 = seconds(stick, &ext4.read, MIB);
    // A SanDisk Cruzer Blade (USB 2) on a Raspberry Pi, ext4, 1 GiB by dd
    // with fdatasync, then read back after dropping the caches (pjsdev,
    // 'RaspberryPi - A little USB device speed test', 2014): 4.6 and 19.9
    // MB/s. Absolute rates of the class the profile describes.
    let mb = (96 * MIB) as f64 / 1e6;
    for (what, published, secs) in [("write", 4.6, w4), ("cold read", 19.9, r4)] {
        let got = mb / secs;
        assert!(
            row(
                &format!("ext4 large {what} MB/s on {stick}"),
                published,
                got
            ),
            "ext4 large {what} on {stick}: {got:.2} MB/s against the published {published}"
        );
    }
    for (fs, pub_w) in [(&XFS, 19.93 / 18.47), (&BTRFS, 19.93 / 17.32)] {
        let Some(t) = traced(fs, src.path(), VOLUME) else {
            continue;
        };
        let w = seconds(stick, &t.write, MIB) / w4;
        let r = seconds(stick, &t.read, MIB) / r4;
        assert!(
            row(
                &format!("{} / ext4 large write on {stick}", fs.label),
                pub_w,
                w
            ),
            "{}: large write {w:.2}x ext4's time",
            fs.label
        );
        assert!(
            row(
                &format!("{} / ext4 large read on {stick}", fs.label),
                1.0,
                r
            ),
            "{}: large read {r:.2}x ext4's time",
            fs.label
        );
    }
    // The same review's ext3 wrote at 7 MB/s, 2.85x ext4's time: the ext3
    // of 2009 (its own driver, data=ordered with barriers) is gone; today's
    // kernels mount ext3 with the ext4 driver. Printed for the table.
    if let Some(t) = traced(&EXT3, src.path(), VOLUME) {
        let w = seconds(stick, &t.write, MIB) / w4;
        row(
            &format!("ext3 / ext4 large write on {stick}"),
            19.93 / 7.0,
            w,
        );
    }
}

/// A SanDisk Extreme USB 3.0 stick on a Raspberry Pi's USB 2 port, ext4,
/// Roy Longbottom's DriveSpeed on 16 MB files, Linux 3.12 (Raspberry Pi
/// forums, 'F2fs, Ext4, FAT USB Benchmark', 2014): write 30.31-30.44 MB/s,
/// read 38.94. The USB 3 stick class behind the USB 2 port's ceilings
/// (`usb3-stick@usb2`), against the stick in its own port, which the
/// record's rates are far from.
#[test]
fn a_usb3_stick_in_a_usb2_port_runs_at_the_record_s_rates() {
    if !ready() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    for i in 0..6 {
        write_file(&src.path().join(format!("f{i}.bin")), 16 * MIB);
    }
    let Some(ext4) = traced(&EXT4, src.path(), VOLUME) else {
        return;
    };
    let mb = (96 * MIB) as f64 / 1e6;
    for (what, published, trace) in [("write", 30.4, &ext4.write), ("read", 38.94, &ext4.read)] {
        let own = mb / seconds("usb3-stick", trace, MIB);
        eprintln!(
            "VALIDATION ext4 16 MB files {what} MB/s on usb3-stick in its own port: {own:.1}"
        );
        let got = mb / seconds("usb3-stick@usb2", trace, MIB);
        assert!(
            row(
                &format!("ext4 16 MB files {what} MB/s on usb3-stick@usb2"),
                published,
                got
            ),
            "ext4 {what} on a USB 3 stick in a USB 2 port: {got:.2} MB/s, published {published}"
        );
        assert!(
            own > 2.0 * published,
            "{what}: {own:.1} MB/s in the stick's own port"
        );
    }
}

/// Device seconds (the least of two runs) per filesystem and workload of a
/// host `fsfit bench --flash PROFILE` run at `scale`, as the record had the card: the volume at sector
/// 63 (its MBR) and mounted as the desktop mounted a card.
fn bench_device_seconds(
    fss: &[&str],
    workloads: &str,
    profile: &str,
    scale: &str,
) -> Vec<(String, String, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let mut cmd = crate::common::fsfit();
    cmd.env("FSFIT_STATE_DIR", dir.path())
        .args(["bench", "-q", "--size", "1G", "--repeat", "2", "--image"])
        .arg(dir.path().join("b.img"))
        .args([
            "--workloads",
            workloads,
            "--flash",
            profile,
            "--scale",
            scale,
        ])
        .args(["--partition-offset", &SECTOR_63.to_string()])
        .args(["--mount-policy", "desktop", "--json"])
        .arg(&json);
    for fs in fss {
        cmd.args(["--fs", fs]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mut got = Vec::new();
    for r in v["results"].as_array().unwrap() {
        for w in r["workloads"].as_array().unwrap() {
            assert_eq!(w["simulated"][0]["profile"], profile, "{w}");
            // The least of the runs: once, in the whole suite on a loaded
            // machine, one run of ntfs-3g's read-back came out 8x its usual
            // device time; a run the host's load disturbed must not decide.
            let least = w["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|run| run["simulated"][0]["device_seconds"].as_f64().unwrap())
                .fold(f64::INFINITY, f64::min);
            got.push((
                r["fs"].as_str().unwrap().to_string(),
                w["name"].as_str().unwrap().to_string(),
                least,
            ));
        }
    }
    got
}

/// The record's read-back of the copied tree ([LP1]: read seconds ext4 53,
/// ntfs-3g 118) with bench's own workloads: `tree-write`, then `tree-read`
/// cold after bench's remount, on the record's class of card at its MBR
/// offset. The table's row is a hit at scale 1 (2.50 in two runs); here at
/// a quarter of the tree it must stay one: ntfs-3g slower, within 2x of the
/// published 2.23. XFS and btrfs (no published read-back) are printed.
#[test]
fn class10_tree_read_back_with_the_bench_workloads() {
    if !ready() || !can_fuse() || !have(&["mkfs.ext4", "mkntfs", "ntfs-3g"]) {
        return;
    }
    let card = "sd-2013-class10";
    let mut fss = vec!["ext4", "ntfs"];
    fss.extend(
        ["xfs", "btrfs"]
            .into_iter()
            .filter(|f| have(&[&format!("mkfs.{f}")])),
    );
    let got = bench_device_seconds(&fss, "tree-write,tree-read", card, "0.25");
    let secs = |fs: &str, w: &str| {
        got.iter()
            .find(|(f, n, _)| f == fs && n == w)
            .map(|g| g.2)
            .unwrap_or_else(|| panic!("no {fs} {w} in {got:?}"))
    };
    let read4 = secs("ext4", "tree-read");
    for fs in &fss[2..] {
        eprintln!(
            "VALIDATION {fs} / ext4 tree read on {card}: simulated {:.2}",
            secs(fs, "tree-read") / read4
        );
    }
    let r = secs("ntfs", "tree-read") / read4;
    assert!(
        row(
            &format!("ntfs-3g / ext4 tree-read on {card}"),
            118.0 / 53.0,
            r
        ),
        "ntfs-3g read the tree back in {r:.2}x ext4's time (published 2.23)"
    );
}

/// OLPC's SD card tests (wiki.laptop.org 'SDCard Testing', flashbench by
/// Arnd Bergmann, 2011): writes of one size, each into another AU, on 4 GB
/// class 2/4 microSD cards. Toshiba 'B': 4 MiB 5.84 MB/s, 1 MiB 2.21, 64
/// KiB 186 KB/s, 4 KiB 11.8 KB/s; SanDisk 'A': 3.14, 2.84, 297 K, 19 K.
#[test]
fn olpc_cards_write_curve_on_the_2011_profile() {
    let p = profile("sd-2011-1au").unwrap();
    let au = p.au_bytes();
    let mut hits = 0;
    for (size, toshiba, sandisk) in [
        (4 * MIB, 5.84e6, 3.14e6),
        (MIB, 2.21e6, 2.84e6),
        (64 << 10, 186e3, 297e3),
        (4 << 10, 11.8e3, 19e3),
    ] {
        let writes: Vec<Request> = (0..32u64)
            .flat_map(|i| {
                let base = (64 + 3 * i) * au;
                let max = p.max_transfer_bytes();
                (0..size.div_ceil(max)).map(move |k| Request {
                    op: Op::Write,
                    offset: base + k * max,
                    len: max.min(size - k * max),
                    t_ns: 0,
                })
            })
            .collect();
        let r = replay(&mut *p.device(), &writes);
        let got = 32.0 * size as f64 / r.device_seconds;
        hits += u32::from(row(&format!("OLPC Toshiba {size} B writes"), toshiba, got));
        hits += u32::from(row(&format!("OLPC SanDisk {size} B writes"), sandisk, got));
    }
    // The table: 7 of the 8 points within 2x (SanDisk's 4 MiB point, slower
    // than its own 2 MiB one, is the miss).
    assert!(hits >= 7, "{hits} of 8 points within 2x");
}

/// Requests and device seconds of the 10 MB file's write on FAT16 and
/// FAT32 in a lab run's JSON (`dir/POLICY.json`), for usb2-stick.
fn fat16_fat32_figures(dir: &Path, policy: &str) -> ((f64, f64), (f64, f64)) {
    let json = std::fs::read(dir.join(format!("{policy}.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let one = |fs: &str| {
        let r = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["fs"] == fs)
            .unwrap_or_else(|| panic!("no {fs} in {v}"));
        let s = &r["workloads"][0]["runs"][0]["simulated"][0];
        (
            s["requests"].as_f64().unwrap(),
            s["device_seconds"].as_f64().unwrap(),
        )
    };
    (one("fat16"), one("fat32"))
}

/// The Windows XP comparison (`004_dec9c8d1c5b499aa.txt`): a 10 MB file on a
/// 512 MB stick under XP's quick removal, FAT16 1.64 MB/s and FAT32 0.176
/// MB/s, with the clusters XP's format gives a 512 MB volume (FAT16 8 KiB,
/// FAT32 4 KiB). The kernel vfat this host lacks runs in the QEMU lab, under
/// `--mount-policy windows-write-through` and under the server policy.
/// What is checked is the approximation's mechanism, as docs/VALIDATION.md
/// explains it: Windows' FAT driver writes the FAT and the directory entry
/// once a write request, and so does vfat for a file opened O_SYNC, so the
/// requests follow the program's write calls, not the clusters (FAT32 at
/// 4 KiB makes about as many as FAT16 at 8 KiB, where a `sync` mount made
/// twice as many, four a cluster), and writing through costs both more than
/// the server policy. The row itself (9.3x published) is a miss, printed.
#[test]
fn windows_write_through_fat_writes_follow_the_write_requests() {
    use crate::common::lab;
    if !lab::qemu_ready() || !have(&["mkfs.fat"]) {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("fsfit-lab-wt-")
        .tempdir()
        .unwrap();
    let image = dir.path().join("unused.img");
    std::fs::File::create(&image).unwrap().set_len(MIB).unwrap();
    // A fifth of the 10 MB file: 2 MiB, 256 clusters of 8 KiB.
    let bench = |policy: &str| {
        format!(
            "{bin} bench -q --repeat 1 --driver kernel --size 490M --scale 0.2 \
             --workloads tenmb-write --flash usb2-stick --fs fat16:8K --fs fat32:4K \
             --mount-policy {policy} --json {d}/{policy}.json\n",
            bin = env!("CARGO_BIN_EXE_fsfit"),
            d = dir.path().display()
        )
    };
    let script = format!(
        "export TMPDIR={d} FSFIT_STATE_DIR={d}/state\n{}{}",
        bench("windows-write-through"),
        bench("server"),
        d = dir.path().display()
    );
    lab::qemu(&["fat32"], dir.path(), &image, &["sh", "-ec", &script], 900).ok();
    let ((req16, t16), (req32, t32)) = fat16_fat32_figures(dir.path(), "windows-write-through");
    let ((_, s16), (_, s32)) = fat16_fat32_figures(dir.path(), "server");
    eprintln!(
        "VALIDATION 004 lab: requests FAT16 {req16}, FAT32 {req32}; device s write-through \
         {t16:.2} / {t32:.2}, server {s16:.2} / {s32:.2}"
    );
    // A `sync` mount wrote both FATs for each cluster: at least two requests
    // a cluster. Written through a request at a time, the 2 MiB file's two
    // write calls make far fewer, and as many on FAT32 as on FAT16.
    let clusters16 = (2 * MIB / 8192) as f64;
    assert!(
        req16 < clusters16,
        "FAT16 written through: {req16} requests for {clusters16} clusters: per cluster again"
    );
    let req_ratio = req32 / req16;
    assert!(
        (0.67..=1.5).contains(&req_ratio),
        "FAT32 at 4 KiB made {req_ratio:.2}x FAT16 at 8 KiB's requests: not per request"
    );
    row(
        "004 10 MB file, FAT32 / FAT16 time, write-through",
        9.3,
        t32 / t16,
    );
    assert!(
        t16 > s16 && t32 > s32,
        "writing through should cost more than the server policy: FAT16 {t16:.2} against \
         {s16:.2} s, FAT32 {t32:.2} against {s32:.2} s"
    );
}

/// Linux Format, 'USB flash drive performance' (December 2021): a USB 3.1
/// stick, a kernel tarball unpacked onto it: XFS best on thousands of tiny
/// files, ext4 "lagged a little", NTFS-3G "expectably poor" (orderings
/// only). Here the kernel-like tree the [LP1] rows copy (closer to a kernel
/// tarball than bench's `tree-write`), on the USB 3 stick's class: ntfs-3g
/// slowest, asserted; XFS against ext4 printed.
#[test]
fn usb3_stick_kernel_tree_orderings() {
    if !ready() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    kernel_like_tree(src.path(), 1500);
    let stick = "usb3-stick";
    let mut secs = Vec::new();
    for fs in [&EXT4, &XFS, &BTRFS, &NTFS3G] {
        let Some(t) = traced(fs, src.path(), VOLUME) else {
            continue;
        };
        secs.push((fs.label, seconds(stick, &t.write, MIB)));
    }
    let of = |label: &str| secs.iter().find(|s| s.0 == label).map(|s| s.1);
    let (Some(ext4), Some(ntfs)) = (of("ext4"), of("ntfs-3g")) else {
        return;
    };
    if let Some(xfs) = of("xfs") {
        eprintln!(
            "VALIDATION xfs / ext4 kernel-like tree write on {stick}: {:.2} (the record: XFS ahead)",
            xfs / ext4
        );
    }
    for (label, s) in &secs {
        eprintln!("VALIDATION {label} kernel-like tree write on {stick}: {s:.3} device s");
        assert!(
            *label == "ntfs-3g" || ntfs > *s,
            "ntfs-3g {ntfs:.3} s is not the slowest: {label} {s:.3} s"
        );
    }
}
