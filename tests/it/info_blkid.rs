//! `fsfit info --json` against `blkid -p -o udev` (run here, on the same
//! image) for volumes made by every mkfs tool and changed by every label
//! tool: type (and FAT version), label (raw bytes for FAT), the FAT boot
//! sector label, UUID and block size must agree. Covers ASCII, non-ASCII
//! and code-page labels, empty and erased labels, the smallest and a large
//! layout of each tool (sparse files), and hand-built cases: an erased FAT
//! label, a cp850 label, a small FAT32, a sub-1 MiB exFAT, UDF volume set
//! identifiers of each of libblkid's three UUID kinds, truncated images
//! and foreign volumes.
use crate::common;

use common::{have, run, Image};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const K: u64 = 1 << 10;
const M: u64 = 1 << 20;
const G: u64 = 1 << 30;

/// `blkid -p -o udev`: ID_FS_* keys without the prefix.
fn udev(path: &Path) -> BTreeMap<String, String> {
    let out = Command::new("blkid")
        .args(["-p", "-o", "udev"])
        .arg(path)
        .output()
        .expect("run blkid");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("ID_FS_")?.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// blkid's _ENC value as bytes: `\xNN` escapes undone.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 4 <= b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 2..i + 4], 16) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn hex_bytes(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

/// `fsfit info --json [--codepage CP] PATH`, the whole report.
fn info(path: &Path, codepage: Option<&str>) -> Value {
    let mut c = common::fsfit();
    c.args(["info", "--json"]);
    if let Some(cp) = codepage {
        c.args(["--codepage", cp]);
    }
    let out = c.arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "fsfit info {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Compare fsfit's volume with blkid's view of `path`; returns the volume.
fn agree(what: &str, path: &Path, codepage: Option<&str>) -> Value {
    let b = udev(path);
    let r = info(path, codepage);
    let v = r["volume"].clone();
    let ctx = format!("{what}:\nblkid {b:#?}\nfsfit {v:#}");
    let btype = b
        .get("TYPE")
        .unwrap_or_else(|| panic!("blkid knows no type: {ctx}"));
    let fs = v["fs"]
        .as_str()
        .unwrap_or_else(|| panic!("fsfit found no volume: {ctx}"));
    let want_fs = match btype.as_str() {
        "vfat" => b["VERSION"].to_ascii_lowercase(),
        t => t.to_string(),
    };
    assert_eq!(fs, want_fs, "type: {ctx}");

    // Label. FAT: the bytes as stored (blkid does not decode them).
    let blabel = b.get("LABEL_ENC").map(|e| unescape(e));
    if btype == "vfat" {
        let ours = v["label_bytes_hex"].as_str().map(|h| {
            let mut raw = hex_bytes(h);
            while raw.last() == Some(&b' ') {
                raw.pop();
            }
            raw
        });
        assert_eq!(ours, blabel, "label bytes: {ctx}");
        let boot = b.get("LABEL_FATBOOT_ENC").map(|e| {
            let cp = fsfit::info::codepage::by_name(codepage.unwrap_or("437")).unwrap();
            cp.decode(&unescape(e)).trim_end().to_string()
        });
        assert_eq!(
            v["boot_label"].as_str().map(str::to_string),
            boot,
            "boot label: {ctx}"
        );
    } else {
        let ours = v["label"].as_str().map(|s| s.as_bytes().to_vec());
        assert_eq!(ours, blabel, "label: {ctx}");
    }
    let buuid = b
        .get("UUID_ENC")
        .map(|e| String::from_utf8(unescape(e)).unwrap());
    assert_eq!(v["uuid"].as_str().map(str::to_string), buuid, "uuid: {ctx}");

    // blkid's block size is the sector for FAT, exFAT, NTFS, XFS and UDF,
    // the allocation block for ext2/3/4, F2FS and btrfs.
    let bs: u64 = b["BLOCK_SIZE"].parse().unwrap();
    let ours = match fs {
        // With bigalloc the cluster is larger than the block.
        "ext2" | "ext3" | "ext4" => detail(&v, "block size").and_then(|s| s.parse().ok()),
        "f2fs" | "btrfs" => v["cluster_bytes"].as_u64(),
        _ => v["sector_bytes"].as_u64(),
    };
    assert_eq!(ours, Some(bs), "block size: {ctx}");
    // Images made whole are not truncated.
    if let Some(w) = v["warnings"].as_array() {
        assert!(
            !w.iter().any(|w| w.as_str().unwrap().contains("truncated")),
            "{ctx}"
        );
    }
    v
}

/// A "details" entry of a volume.
fn detail(v: &Value, key: &str) -> Option<String> {
    v["details"]
        .as_array()?
        .iter()
        .find(|kv| kv[0] == key)
        .and_then(|kv| kv[1].as_str().map(str::to_string))
}

fn warned(v: &Value, needle: &str) -> bool {
    v["warnings"]
        .as_array()
        .is_some_and(|w| w.iter().any(|w| w.as_str().unwrap().contains(needle)))
}

fn mkfs(size: u64, tool: &str, args: &[&str]) -> Image {
    let img = Image::new(size);
    let mut a = args.to_vec();
    a.push(img.path_str());
    run(tool, &a);
    img
}

/// The first root-directory entry of a FAT12/16 image (offset, bytes).
fn fat16_root(path: &Path) -> u64 {
    let b = std::fs::read(path).unwrap();
    let bps = u64::from(u16::from_le_bytes([b[11], b[12]]));
    let rsvd = u64::from(u16::from_le_bytes([b[14], b[15]]));
    let fatsz = u64::from(u16::from_le_bytes([b[22], b[23]]));
    (rsvd + u64::from(b[16]) * fatsz) * bps
}

fn patch(path: &Path, off: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, off).unwrap();
}

// ------------------------------------------------------------------ FAT

#[test]
fn fat_agrees_with_blkid() {
    if !have(&["mkfs.fat", "fatlabel", "blkid"]) {
        return;
    }
    // Smallest FAT12 mkfs.fat makes, FAT16, a 4Kn FAT16, a small FAT32 (too
    // few clusters for fatgen103), and a 256 GiB FAT32 of 64 KiB clusters.
    let cases: [(&str, u64, &[&str]); 6] = [
        ("fat12 64K", 64 * K, &["-F", "12", "-n", "TINY"]),
        ("fat12 no label", 4 * M, &["-F", "12"]),
        ("fat16 16M", 16 * M, &["-F", "16", "-n", "DATA 16"]),
        (
            "fat16 4Kn",
            64 * M,
            &["-F", "16", "-S", "4096", "-n", "FOURK"],
        ),
        ("fat32 32M", 32 * M, &["-F", "32", "-n", "SMALL32"]),
        (
            "fat32 256G",
            256 * G,
            &["-F", "32", "-s", "128", "-n", "BIG"],
        ),
    ];
    for (what, size, args) in cases {
        let img = mkfs(size, "mkfs.fat", args);
        let v = agree(what, &img.path, None);
        if what == "fat32 32M" {
            assert!(warned(&v, "fatgen103"), "{v:#}");
        }
    }

    // fatlabel: relabel, a cp850 label, then reset (remove) it.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "OLD"]);
    run("fatlabel", &[img.path_str(), "NEWLABEL"]);
    let v = agree("fatlabel NEWLABEL", &img.path, None);
    assert_eq!(v["label"], "NEWLABEL");
    // A non-ASCII label through fatlabel's own cp850 encoder. dosfstools
    // 4.2 refuses every byte over 0x7F on signed-char machines ("characters
    // below 0x20"); where it works, check it. The hand-built cp850 label
    // below covers the case either way.
    let cp850 = Command::new("fatlabel")
        .env("LC_ALL", "C.utf8")
        .args(["-c", "850", img.path_str(), "SØREN"])
        .output()
        .unwrap();
    if cp850.status.success() {
        let v = agree("fatlabel -c 850 SØREN", &img.path, Some("850"));
        assert_eq!(v["label"], "SØREN", "{v:#}");
        assert_eq!(v["label_codepage"], "cp850");
        // Read in the kernel's default cp437, the same bytes are another text.
        let v437 = agree("cp850 label read as cp437", &img.path, None);
        assert_eq!(v437["label"], "S¥REN", "{v437:#}");
    } else {
        eprintln!(
            "note: fatlabel -c 850 refused a non-ASCII label: {}",
            String::from_utf8_lossy(&cp850.stderr).trim()
        );
    }
    run("fatlabel", &["-r", img.path_str()]);
    agree("fatlabel -r", &img.path, None);

    // Hand-built: Windows erases a label by marking its root-directory
    // entry deleted; the boot sector keeps the stale copy.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "STALE"]);
    patch(&img.path, fat16_root(&img.path), &[0xE5]);
    let v = agree("erased label", &img.path, None);
    assert_eq!(v["label"], Value::Null, "{v:#}");
    assert_eq!(v["boot_label"], "STALE");
    // No 0x55AA boot signature (old and non-PC formatters): the FAT type
    // string is enough for blkid and the kernel, and for fsfit.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "NOSIG"]);
    patch(&img.path, 510, &[0, 0]);
    let v = agree("no 0x55AA", &img.path, None);
    assert_eq!(v["label"], "NOSIG");
    // An unknown code page is bad input: exit 2, one line, nothing printed.
    let out = common::fsfit()
        .args(["info", "--codepage", "1252"])
        .arg(&img.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cp850") && err.lines().count() == 1, "{err}");
    assert!(fits_100(&short_path(&err, &img.path)), "{err}");
    // An old dosfslabel wrote only the boot sector: same picture.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16"]);
    let ext = 43;
    patch(&img.path, ext, b"BOOTONLY   ");
    let v = agree("boot-sector-only label", &img.path, None);
    assert_eq!(
        (&v["label"], &v["boot_label"]),
        (&Value::Null, &Value::from("BOOTONLY"))
    );
    // A cp850 label written straight into the root directory.
    patch(&img.path, fat16_root(&img.path), b"CAF\x90 \x99L    \x08");
    let v = agree("hand-written cp850 label", &img.path, Some("cp850"));
    assert_eq!(v["label"], "CAFÉ ÖL", "{v:#}");
    assert_eq!(v["label_bytes_hex"], "4341469020994c20202020");
    // The same bytes in the default cp437: 0x90 is É there too, 0x99 Ö.
    let v437 = agree("cp850 label read as cp437", &img.path, None);
    assert_eq!(v437["label"], "CAFÉ ÖL");
    // A byte where the two pages differ: 0x9D is Ø in cp850, ¥ in cp437.
    patch(&img.path, fat16_root(&img.path), b"S\x9DREN      ");
    let v = agree("cp850 Ø", &img.path, Some("850"));
    assert_eq!(v["label"], "SØREN", "{v:#}");
    let v = agree("cp850 Ø read as cp437", &img.path, None);
    assert_eq!(v["label"], "S¥REN", "{v:#}");
}

// ---------------------------------------------------------------- exFAT

#[test]
fn exfat_agrees_with_blkid() {
    if !have(&["mkfs.exfat", "exfatlabel", "blkid"]) {
        return;
    }
    let cases: [(&str, u64, &[&str]); 4] = [
        // Under the spec's 1 MiB: mkfs.exfat makes it with small alignment.
        (
            "exfat 256K",
            256 * K,
            &["-b", "4096", "-c", "4096", "-L", "TINY"],
        ),
        ("exfat 64M", 64 * M, &["-L", "Camera"]),
        ("exfat no label", 64 * M, &[]),
        (
            "exfat 64G 32M clusters",
            64 * G,
            &["-c", "32M", "-L", "BIG"],
        ),
    ];
    for (what, size, args) in cases {
        let img = mkfs(size, "mkfs.exfat", args);
        let v = agree(what, &img.path, None);
        assert_eq!(warned(&v, "1 MiB"), size < M, "{what}: {v:#}");
    }
    let img = mkfs(64 * M, "mkfs.exfat", &["-L", "Old"]);
    run("exfatlabel", &[img.path_str(), "Café ☕ Día"]);
    let v = agree("exfatlabel non-ASCII", &img.path, None);
    assert_eq!(v["label"], "Café ☕ Día");
    run("exfatlabel", &[img.path_str(), ""]);
    agree("exfatlabel empty", &img.path, None);
}

/// A volume has one label entry, and the first one found is it: when it
/// is empty, a later label entry with a name is not the label (blkid and
/// tune.exfat show none).
#[test]
fn exfat_label_is_the_first_label_entry_even_when_empty() {
    if !have(&["mkfs.exfat", "blkid"]) {
        return;
    }
    // mkfs.exfat without -L writes an empty label entry (0x83, count 0).
    let img = mkfs(64 * M, "mkfs.exfat", &[]);
    let mut b = std::fs::read(&img.path).unwrap();
    let sector = 1u64 << b[108];
    let cluster = sector << b[109];
    let heap = u64::from(u32::from_le_bytes(b[88..92].try_into().unwrap())) * sector;
    let root = u64::from(u32::from_le_bytes(b[96..100].try_into().unwrap()));
    let dir = (heap + (root - 2) * cluster) as usize;
    let entries: Vec<u8> = b[dir..dir + 4 * 32].chunks(32).map(|e| e[0]).collect();
    assert_eq!(
        entries,
        [0x83, 0x81, 0x82, 0x00],
        "mkfs.exfat's root directory"
    );
    assert_eq!(b[dir + 1], 0, "an empty label entry");
    // A second label entry with a name, before the end of the directory.
    let e = &mut b[dir + 3 * 32..dir + 4 * 32];
    e[0] = 0x83;
    e[1] = 6;
    for (i, u) in "SECOND".encode_utf16().enumerate() {
        e[2 + 2 * i..4 + 2 * i].copy_from_slice(&u.to_le_bytes());
    }
    std::fs::write(&img.path, &b).unwrap();
    let v = agree("exfat empty label, then a named one", &img.path, None);
    assert_eq!(v["label"], Value::Null, "{v:#}");
}

#[test]
fn windows_exfat_agrees_with_blkid() {
    if !have(&["xz", "blkid"]) {
        return;
    }
    let img = crate::info::windows_exfat();
    let v = agree("exfat made by Windows", &img.path, None);
    assert_eq!(v["label"], "Новый том");
}

// ----------------------------------------------------------------- NTFS

#[test]
fn ntfs_agrees_with_blkid() {
    if !have(&["mkntfs", "ntfslabel", "blkid"]) {
        return;
    }
    let cases: [(&str, u64, &[&str]); 3] = [
        ("ntfs 2M", 2 * M, &["-Q", "-F", "-q", "-L", "Tiny"]),
        (
            "ntfs 64G 64K",
            64 * G,
            &["-Q", "-F", "-q", "-c", "65536", "-L", "Big"],
        ),
        ("ntfs no label", 64 * M, &["-Q", "-F", "-q"]),
    ];
    for (what, size, args) in cases {
        agree(what, &mkfs(size, "mkntfs", args).path, None);
    }
    let img = mkfs(64 * M, "mkntfs", &["-Q", "-F", "-q", "-L", "Old"]);
    run("ntfslabel", &["-f", img.path_str(), "Données ✓"]);
    let v = agree("ntfslabel non-ASCII", &img.path, None);
    assert_eq!(v["label"], "Données ✓");
    run("ntfslabel", &["-f", img.path_str(), ""]);
    agree("ntfslabel empty", &img.path, None);
}

// ------------------------------------------------------------- ext2/3/4

#[test]
fn ext_agrees_with_blkid() {
    if !have(&["mke2fs", "e2label", "blkid"]) {
        return;
    }
    let cases: [(&str, u64, &[&str]); 4] = [
        (
            "ext2 128K",
            128 * K,
            &["-F", "-q", "-t", "ext2", "-L", "tiny"],
        ),
        ("ext3 32M", 32 * M, &["-F", "-q", "-t", "ext3"]),
        ("ext4 1T", 1 << 40, &["-F", "-q", "-t", "ext4", "-L", "big"]),
        (
            "ext4 bigalloc",
            256 * M,
            &["-F", "-q", "-t", "ext4", "-O", "bigalloc", "-L", "ba"],
        ),
    ];
    for (what, size, args) in cases {
        agree(what, &mkfs(size, "mke2fs", args).path, None);
    }
    let img = mkfs(32 * M, "mke2fs", &["-F", "-q", "-t", "ext4", "-L", "old"]);
    run("e2label", &[img.path_str(), "säkerhet"]);
    let v = agree("e2label non-ASCII", &img.path, None);
    assert_eq!(v["label"], "säkerhet");
    run("e2label", &[img.path_str(), ""]);
    agree("e2label empty", &img.path, None);
}

// ---------------------------------------------------------- XFS, btrfs

#[test]
fn xfs_agrees_with_blkid() {
    if !have(&["mkfs.xfs", "xfs_admin", "blkid"]) {
        return;
    }
    // 300 MiB is mkfs.xfs's minimum.
    agree(
        "xfs 300M",
        &mkfs(300 * M, "mkfs.xfs", &["-f", "-q", "-L", "small"]).path,
        None,
    );
    let big = mkfs(
        G << 10,
        "mkfs.xfs",
        &["-f", "-q", "-s", "size=4096", "-L", "big"],
    );
    agree("xfs 1T 4Kn", &big.path, None);
    let img = mkfs(300 * M, "mkfs.xfs", &["-f", "-q"]);
    agree("xfs no label", &img.path, None);
    run("xfs_admin", &["-L", "médias", img.path_str()]);
    let v = agree("xfs_admin -L non-ASCII", &img.path, None);
    assert_eq!(v["label"], "médias");
    run("xfs_admin", &["-L", "--", img.path_str()]);
    agree("xfs_admin -L -- (erase)", &img.path, None);
}

#[test]
fn btrfs_agrees_with_blkid() {
    if !have(&["mkfs.btrfs", "btrfs", "blkid"]) {
        return;
    }
    agree(
        "btrfs 128M",
        &mkfs(128 * M, "mkfs.btrfs", &["-f", "-q", "-L", "small"]).path,
        None,
    );
    agree(
        "btrfs 1T",
        &mkfs(G << 10, "mkfs.btrfs", &["-f", "-q", "-n", "65536"]).path,
        None,
    );
    // One member of a two-device filesystem holds half of total_bytes:
    // not a truncated image (agree() checks there is no such warning).
    let second = Image::new(256 * M);
    let first = mkfs(
        256 * M,
        "mkfs.btrfs",
        &["-f", "-q", "-L", "multi", "-d", "single", second.path_str()],
    );
    let v = agree("btrfs member of two devices", &first.path, None);
    assert_eq!(v["volume_bytes"], 512 * M, "{v:#}");
    let img = mkfs(256 * M, "mkfs.btrfs", &["-f", "-q", "-L", "old"]);
    run("btrfs", &["filesystem", "label", img.path_str(), "données"]);
    let v = agree("btrfs filesystem label", &img.path, None);
    assert_eq!(v["label"], "données");
    run("btrfs", &["filesystem", "label", img.path_str(), ""]);
    agree("btrfs label empty", &img.path, None);
}

// ----------------------------------------------------------------- F2FS

#[test]
fn f2fs_agrees_with_blkid() {
    if !have(&["mkfs.f2fs", "f2fslabel", "blkid"]) {
        return;
    }
    agree(
        "f2fs 64M",
        &mkfs(64 * M, "mkfs.f2fs", &["-f", "-q", "-l", "small"]).path,
        None,
    );
    agree(
        "f2fs 64G",
        &mkfs(64 * G, "mkfs.f2fs", &["-f", "-q"]).path,
        None,
    );
    let img = mkfs(128 * M, "mkfs.f2fs", &["-f", "-q", "-l", "old"]);
    run("f2fslabel", &[img.path_str(), "größe"]);
    let v = agree("f2fslabel non-ASCII", &img.path, None);
    assert_eq!(v["label"], "größe");
}

// ------------------------------------------------------------------ UDF

#[test]
fn udf_agrees_with_blkid() {
    if !have(&["mkudffs", "udflabel", "blkid"]) {
        return;
    }
    let cases: [(&str, u64, &[&str]); 3] = [
        (
            "udf 512 small",
            2 * M,
            &["--media-type=hd", "--blocksize=512", "--label=Small"],
        ),
        (
            "udf 4096 64G",
            64 * G,
            &["--media-type=hd", "--blocksize=4096", "--label=Big"],
        ),
        (
            "udf unicode",
            16 * M,
            &["--media-type=hd", "--label=Bücher ☕"],
        ),
    ];
    for (what, size, args) in cases {
        agree(what, &mkfs(size, "mkudffs", args).path, None);
    }
    // The volume set identifier decides the UUID, by libblkid's three
    // rules: 16 hex digits (mkudffs), 8 hex then text (udfclient, Windows),
    // text at once (macOS, old mkudffs). 8-bit and 16-bit dstrings.
    let img = mkfs(16 * M, "mkudffs", &["--media-type=hd", "--label=Sets"]);
    let sets = [
        ("16 hex", "0123456789ABCDEFrest of it", "0123456789abcdef"),
        (
            "8 hex then text",
            "4C2B1A09 UDF Volume Set",
            "4c2b1a0920554446",
        ),
        ("text", "Untitled", "556e7469746c6564"),
        ("16-bit text", "Wörterbuch ☕", "57c3b67274657262"),
    ];
    for (what, set, uuid) in sets {
        run("udflabel", &[&format!("--fullvsid={set}"), img.path_str()]);
        let v = agree(&format!("volume set identifier {what}"), &img.path, None);
        assert_eq!(v["uuid"], uuid, "{what}: {v:#}");
    }
    run("udflabel", &[img.path_str(), "Ünïcode"]);
    agree("udflabel non-ASCII", &img.path, None);
    // The label is the Logical Volume Identifier alone: emptied, the
    // volume has none, though the PVD's Volume Identifier remains.
    run("udflabel", &["--lvid=", img.path_str()]);
    let v = agree("udflabel --lvid= (empty)", &img.path, None);
    assert_eq!(v["label"], Value::Null, "{v:#}");
    assert_eq!(detail(&v, "volume identifier").as_deref(), Some("Ünïcode"));
    run(
        "udflabel",
        &["--lvid=Logical", "--vid=Other", img.path_str()],
    );
    let v = agree("udflabel --lvid --vid differ", &img.path, None);
    assert_eq!(v["label"], "Logical");
}

// ------------------------------------------- truncated and foreign images

#[test]
fn truncated_images_are_warned_about() {
    if !have(&["mke2fs", "mkfs.fat", "mkntfs"]) {
        return;
    }
    // The first 4 KiB of a 64 MiB ext4.
    let img = mkfs(64 * M, "mke2fs", &["-F", "-q", "-t", "ext4"]);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    f.set_len(4096).unwrap();
    let v = &info(&img.path, None)["volume"];
    assert_eq!(v["fs"], "ext4");
    assert!(warned(v, "truncated"), "{v:#}");
    // A FAT16 cut before its root directory: the label is unknown, not none.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "CUT"]);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    f.set_len(fat16_root(&img.path)).unwrap();
    let v = &info(&img.path, None)["volume"];
    assert!(warned(v, "truncated"), "{v:#}");
    assert!(
        v["label_error"]
            .as_str()
            .unwrap()
            .contains("root directory"),
        "{v:#}"
    );
    let text = common::fsfit().arg("info").arg(&img.path).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("label unknown") && !text.contains("label (none)"),
        "{text}"
    );
    // NTFS cut before its MFT (cluster 4 of 4 KiB): $Volume unreadable.
    let img = mkfs(
        64 * M,
        "mkntfs",
        &["-Q", "-F", "-q", "-c", "4096", "-L", "CUT"],
    );
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    f.set_len(16 * K).unwrap();
    let v = &info(&img.path, None)["volume"];
    assert!(
        v["label_error"].as_str().unwrap().contains("$Volume"),
        "{v:#}"
    );
    assert!(warned(v, "truncated"), "{v:#}");
}

#[test]
fn foreign_volumes_are_named_not_blamed_on_fat() {
    if !have(&["mkswap", "blkid"]) {
        return;
    }
    let img = mkfs(16 * M, "mkswap", &[]);
    let out = common::fsfit().arg("info").arg(&img.path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no filesystem fsfit knows") && err.contains("swap"),
        "{err}"
    );
    assert_eq!(
        udev(&img.path).get("TYPE").map(String::as_str),
        Some("swap")
    );
    // The other signatures (BitLocker, LUKS, LVM2, HFS+, APFS, BFS, HPFS,
    // ISO 9660, ...) are checked on planted bytes in src/info/foreign.rs:
    // their tools are not installed here.
}

#[test]
fn a_whole_disk_lists_partitions_like_lsblk() {
    if !have(&["sfdisk", "mkfs.fat", "mkfs.exfat"]) {
        return;
    }
    let disk = Image::new(64 * M);
    let script = "label: gpt\nstart=2048, size=32768, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7\nstart=36001, size=40000, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7\n";
    common::sfdisk(&disk.path, script);
    for (start, size, tool, args) in [
        (
            2048u64,
            32768u64,
            "mkfs.fat",
            &["-F", "16", "-n", "PARTONE"][..],
        ),
        (36001, 40000, "mkfs.exfat", &["-L", "PartTwo"][..]),
    ] {
        let part = mkfs(size * 512, tool, args);
        let data = std::fs::read(&part.path).unwrap();
        patch(&disk.path, start * 512, &data);
    }
    let r = info(&disk.path, None);
    let p = r["partitions"].as_array().unwrap();
    assert_eq!(p.len(), 2, "{r:#}");
    assert_eq!(p[0]["volume"]["fs"], "fat16");
    assert_eq!(p[0]["volume"]["label"], "PARTONE");
    assert_eq!(p[0]["aligned_1m"], true);
    assert_eq!(p[1]["volume"]["label"], "PartTwo");
    assert_eq!(p[1]["aligned_1m"], false);
    let text = common::fsfit()
        .arg("info")
        .arg(&disk.path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let header = text
        .lines()
        .find(|l| l.contains("FSTYPE"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        header.contains("LABEL") && header.contains("ALIGNED"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.contains("PartTwo") && l.contains("exfat"))
        .unwrap();
    assert!(row.contains("NO"), "{text}");
}

// ----------------------------------- the cases a new user tried

/// Labels blkid once read otherwise: exFAT labels in non-Latin scripts,
/// a FAT label set to "NO NAME", a FAT label whose first byte is 0xE5
/// (stored 0x05 in the root entry, and by some tools in the boot sector).
#[test]
fn labels_of_issue_20_agree_with_blkid() {
    if !have(&["mkfs.exfat", "exfatlabel", "mkfs.fat", "fatlabel", "blkid"]) {
        return;
    }
    let img = mkfs(64 * M, "mkfs.exfat", &["-L", "日本語ラベル"]);
    let v = agree("exfat Japanese", &img.path, None);
    assert_eq!(v["label"], "日本語ラベル");
    for label in [
        "Ελληνικά",
        "Кириллицааб",
        "日本語日本語日本語日本",
        "😀emoji",
        "αβγ δεζ",
    ] {
        run("exfatlabel", &[img.path_str(), label]);
        let v = agree(label, &img.path, None);
        assert_eq!(v["label"], label);
    }
    // fatlabel writes "NO NAME" into the root directory: a label.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "DATA"]);
    run("fatlabel", &[img.path_str(), "NO NAME"]);
    let v = agree("fatlabel NO NAME", &img.path, None);
    assert_eq!(v["label"], "NO NAME", "{v:#}");
    // mkfs.fat -n "NO NAME" writes no root entry: no label.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "NO NAME"]);
    let v = agree("mkfs.fat -n NO NAME", &img.path, None);
    assert_eq!(v["label"], Value::Null, "{v:#}");
    // 0xE5 first: 0x05 in the root entry, 0xE5 then 0x05 in the boot sector.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "XIGMA"]);
    patch(&img.path, fat16_root(&img.path), &[0x05]);
    for boot in [0xE5u8, 0x05] {
        patch(&img.path, 43, &[boot]);
        let v = agree("0xE5 label", &img.path, None);
        assert_eq!(v["label"], "σIGMA", "{v:#}");
        assert_eq!(v["label_bytes_hex"], "e549474d41202020202020");
        // The same label, escaped: not "a stale copy".
        let out = common::fsfit().arg("info").arg(&img.path).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("stale"), "{text}");
    }
}

/// A folder, random bytes, a cut FAT image and a FAT volume put into a
/// partition without its hidden sectors: each said for what it is, once.
#[test]
fn info_says_what_it_found_once() {
    if !have(&["mkfs.fat", "sfdisk"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = common::fsfit().arg("info").arg(t.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("this is a folder: use fsfit usage"), "{err}");
    assert!(fits_100(&short_path(&err, t.path())), "{err}");
    // Random bytes: one message, on stderr.
    let junk = t.path().join("junk.img");
    std::fs::write(
        &junk,
        (0..1u32 << 20)
            .map(|i| (i.wrapping_mul(2654435761) >> 11) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let out = common::fsfit().arg("info").arg(&junk).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(fits_100(&short_path(&err, &junk)), "{err}");
    // A FAT16 cut inside its root directory: the boot sector's label is not
    // "a stale copy", the root folder could not be read.
    let img = mkfs(16 * M, "mkfs.fat", &["-F", "16", "-n", "CUT"]);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&img.path)
        .unwrap();
    f.set_len(fat16_root(&img.path) + 512).unwrap();
    patch(&img.path, fat16_root(&img.path), &[0u8; 32]);
    f.set_len(fat16_root(&img.path)).unwrap();
    let out = common::fsfit().arg("info").arg(&img.path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("stale"), "{text}");
    assert!(text.contains("root folder could not be read"), "{text}");
    // A whole-disk FAT image copied into a partition at 2048: hidden
    // sectors 0. mkfs.fat -h 2048 sets them right: no warning.
    let disk = Image::new(64 * M);
    common::sfdisk(&disk.path, "label: dos\nstart=2048, type=c\n");
    let part = mkfs(32 * M, "mkfs.fat", &["-F", "16", "-n", "MOVED"]);
    let bytes = std::fs::read(&part.path).unwrap();
    patch(&disk.path, 2048 * 512, &bytes);
    let v = info(&disk.path, None);
    let p = &v["partitions"][0]["volume"];
    assert!(
        warned(
            p,
            "hidden sectors is 0 but the partition starts at sector 2048"
        ),
        "{p:#}"
    );
    run(
        "mkfs.fat",
        &[
            "-F",
            "16",
            "--offset",
            "2048",
            "-h",
            "2048",
            "-n",
            "RIGHT",
            disk.path_str(),
            "32768",
        ],
    );
    let v = info(&disk.path, None);
    let p = &v["partitions"][0]["volume"];
    assert_eq!(p["label"], "RIGHT", "{p:#}");
    assert!(!warned(p, "hidden sectors"), "{p:#}");
}

/// `text` with `path` (a test's temporary one, whose length is not the
/// message's: a refusal names the path whole) said as a short one.
fn short_path(text: &str, path: &std::path::Path) -> String {
    text.replace(&path.display().to_string(), "/tmp/x/a.img")
}

/// Every line within 100 display columns, as a person reads them.
fn fits_100(text: &str) -> bool {
    use unicode_width::UnicodeWidthStr;
    text.lines().all(|l| l.width() <= 100)
}

/// A partition with nothing in it: said once, not "no filesystem
/// recognised: no filesystem fsfit knows", and the line fits.
#[test]
fn an_empty_partition_is_said_once() {
    if !have(&["sfdisk"]) {
        return;
    }
    let disk = Image::new(16 * M);
    common::sfdisk(&disk.path, "label: dos\nstart=2048, type=c\n");
    let out = common::run_ok(common::fsfit().arg("info").arg(&disk.path));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no filesystem fsfit knows"), "{text}");
    assert!(!text.contains("recognised: no filesystem"), "{text}");
    assert!(fits_100(&text), "{text}");
}
