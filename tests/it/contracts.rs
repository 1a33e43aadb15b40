//! The JSON contracts of shared/DESIGN.md against the types that write and
//! read them: every field the document lists must be there, with the same
//! JSON kind, in what `fsfit usage --json` prints and in the library's
//! types read from the document's own example and written back. The
//! document is read from `../shared/DESIGN.md` beside the crate when that
//! exists (the workspace), else from the copy in docs/contracts/ (a clean
//! clone, as CI makes, has no shared/ beside it: the test failed there).

use crate::common::{usage_json, write_file};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn design() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/DESIGN.md");
    let path = if shared.exists() {
        shared
    } else {
        root.join("docs/contracts/DESIGN.md")
    };
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: the JSON contracts live in shared/DESIGN.md (copied to docs/contracts/)",
            path.display()
        )
    })
}

/// The first ```json block after the heading `### \`fsfit NAME\``.
fn example(doc: &str, name: &str) -> Value {
    let heading = format!("### `fsfit {name}`");
    let at = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("DESIGN.md has no heading {heading}"));
    let rest = &doc[at..];
    let start = rest.find("```json\n").expect("a ```json block") + "```json\n".len();
    let len = rest[start..].find("```").expect("the block's end");
    serde_json::from_str(&rest[start..start + len])
        .unwrap_or_else(|e| panic!("DESIGN.md's {name} example is not JSON: {e}"))
}

/// Every field path (`configs[].problems.too_large`) and its JSON kind.
fn fields(v: &Value, path: &str, out: &mut BTreeMap<String, &'static str>) {
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if !path.is_empty() {
        out.insert(path.to_string(), kind);
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                fields(x, &p, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                fields(x, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// Every field of `contract` is in `actual` with the same kind.
fn covers(contract: &Value, actual: &Value, what: &str) {
    let (mut want, mut have) = (BTreeMap::new(), BTreeMap::new());
    fields(contract, "", &mut want);
    fields(actual, "", &mut have);
    let missing: Vec<String> = want
        .iter()
        .filter(|(p, k)| have.get(*p) != Some(k))
        .map(|(p, k)| format!("{p} ({k}; found {:?})", have.get(p)))
        .collect();
    assert!(
        missing.is_empty(),
        "{what} lacks fields of DESIGN.md's contract:\n{}",
        missing.join("\n")
    );
    assert!(want.len() > 10, "the contract's fields were found");
}

#[test]
fn usage_json_has_every_field_of_the_contract() {
    let contract = example(&design(), "usage");
    assert_eq!(contract["schema"], fsfit::usage::SCHEMA);
    let t = tempfile::tempdir().unwrap();
    write_file(&t.path().join("a.txt"), 1000);
    write_file(&t.path().join("d/b.bin"), 70_000);
    let printed = usage_json(&["--fs", "exfat:32K", t.path().to_str().unwrap()]);
    covers(&contract, &printed, "fsfit usage --json");
}

#[test]
fn usage_type_reads_and_writes_the_contract() {
    let contract = example(&design(), "usage");
    let r: fsfit::usage::UsageReport = serde_json::from_value(contract.clone())
        .unwrap_or_else(|e| panic!("UsageReport cannot read DESIGN.md's example: {e}"));
    covers(&contract, &serde_json::to_value(&r).unwrap(), "UsageReport");
}

#[test]
fn bench_type_reads_and_writes_the_contract() {
    let contract = example(&design(), "bench");
    assert_eq!(contract["schema"], fsfit::bench::results::SCHEMA);
    let r: fsfit::bench::results::BenchReport = serde_json::from_value(contract.clone())
        .unwrap_or_else(|e| panic!("BenchReport cannot read DESIGN.md's example: {e}"));
    covers(&contract, &serde_json::to_value(&r).unwrap(), "BenchReport");
}

/// The report reads what usage writes with the same type: a file written
/// by `fsfit usage --json` comes back whole.
#[test]
fn usage_json_round_trips_through_its_type() {
    let t = tempfile::tempdir().unwrap();
    // A name Windows refuses, for an example in the JSON; Windows itself
    // cannot make one (CON is a device there).
    let name = if cfg!(windows) {
        "plain.txt"
    } else {
        "CON.txt"
    };
    write_file(&t.path().join(name), 10);
    let printed = usage_json(&["--fs", "fat32", "--fs", "ext4", t.path().to_str().unwrap()]);
    let r: fsfit::usage::UsageReport = serde_json::from_value(printed.clone()).unwrap();
    assert_eq!(serde_json::to_value(&r).unwrap(), printed);
}

/// The fenced block after the heading `### \`fsfit NAME\``, `//` comments
/// stripped (the `--flash` section shows a fragment with comments).
fn fragment(doc: &str, heading: &str) -> String {
    let at = doc
        .find(heading)
        .unwrap_or_else(|| panic!("DESIGN.md has no heading {heading}"));
    let rest = &doc[at..];
    // The second fence: the first shows the command line.
    let blocks: Vec<&str> = rest.split("```").collect();
    blocks[3]
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn bench_flash_fields_read_and_write_the_contract() {
    let text = fragment(&design(), "### `fsfit bench --flash`");
    let v: Value = serde_json::from_str(&format!("{{{text}}}")).unwrap_or_else(|e| {
        panic!("DESIGN.md's --flash example is not a JSON fragment: {e}\n{text}")
    });
    let sim = &v["simulated"][0];
    let w: fsfit::bench::results::SimWorkload = serde_json::from_value(sim.clone()).unwrap();
    let (mut want, mut have) = (BTreeMap::new(), BTreeMap::new());
    fields(sim, "", &mut want);
    fields(&serde_json::to_value(&w).unwrap(), "", &mut have);
    for (p, k) in &want {
        assert_eq!(have.get(p), Some(k), "SimWorkload lacks {p}");
    }
    // Each run: the same per profile, with `seconds`.
    let run = serde_json::to_value(fsfit::bench::results::SimRun::default()).unwrap();
    for f in [
        "profile",
        "seconds",
        "device_seconds",
        "flash_write_amplification",
        "au_copies",
    ] {
        assert!(run.get(f).is_some(), "runs[].simulated[] lacks {f}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn list_profiles_json_has_the_contract_fields() {
    let out = crate::common::fsfit()
        .args(["bench", "--list-profiles", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v.as_array().expect("an array of profiles");
    assert!(all.len() >= 6);
    for p in all {
        assert!(p["name"].is_string() && p["family"].is_string(), "{p}");
        assert!(p["params"]["au_bytes"].as_u64().unwrap() > 0, "{p}");
        let sources = p["sources"].as_array().unwrap();
        assert!(
            sources.len() >= p["params"].as_object().unwrap().len(),
            "{p}"
        );
        assert!(sources
            .iter()
            .all(|s| s.as_str().is_some_and(|s| s.len() > 10)));
    }
    for name in [
        "sd-2006-small-eb",
        "sd-2011-1au",
        "usb2-stick",
        "usb3-stick",
        "microsd-a1",
        "nvme-usb-sn570",
    ] {
        assert!(all.iter().any(|p| p["name"] == name), "no profile {name}");
    }
    // Every name --flash takes is listed, a device behind a port with the
    // figures it runs at there: a USB 3 stick's transport capped at USB 2's.
    let own = all.iter().find(|p| p["name"] == "usb3-stick").unwrap();
    let behind = all.iter().find(|p| p["name"] == "usb3-stick@usb2");
    let behind = behind.expect("usb3-stick@usb2 listed");
    assert!(
        own["port"].is_null() && behind["port"] == "usb2",
        "{behind}"
    );
    let (o, b) = (&own["params"], &behind["params"]);
    assert!(o["bus_read_mb_s"].is_null(), "{own}");
    assert!(
        b["bus_read_mb_s"].as_f64().is_some_and(|r| r < 50.0),
        "{behind}"
    );
    let most = |p: &Value| p["max_transfer_bytes"].as_u64().unwrap();
    assert!(most(b) < most(o), "{behind}");
    assert_eq!(b["au_bytes"], o["au_bytes"]);
    // And each AU profile started new, saying so in its state and params.
    let new = all.iter().find(|p| p["name"] == "usb3-stick@usb2+new");
    let new = new.expect("usb3-stick@usb2+new listed");
    assert!(own["state"].is_null() && new["state"] == "new", "{new}");
    assert!(o["new_device"].is_null() && new["params"]["new_device"] == true);
    assert!(!all.iter().any(|p| p["name"] == "microsd-a1+new"));
}
