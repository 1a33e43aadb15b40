//! The downloads `bash scripts/release` writes into dist/ (CI runs it before
//! the tests): each is unpacked and run as a user would, on its own.

use crate::common::{have, run, skip};
use std::path::{Path, PathBuf};
use std::process::Command;

/// dist/'s artifact named from Cargo.toml's version, or None (a skip, a
/// failure under FSFIT_REQUIRE_ALL=1) when scripts/release has not run.
fn artifact(name: &str) -> Option<PathBuf> {
    let name = name.replace("VERSION", env!("CARGO_PKG_VERSION"));
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("dist")
        .join(&name);
    if p.is_file() {
        Some(p)
    } else {
        skip(&format!("dist/{name} (run bash scripts/release)"));
        None
    }
}

#[test]
fn sums_match_every_download() {
    let Some(sums) = artifact("SHA256SUMS") else {
        return;
    };
    let text = std::fs::read_to_string(&sums).unwrap();
    for a in [
        "fsfit-VERSION-x86_64-linux.tar.gz",
        "fsfit_VERSION_amd64.deb",
        "fsfit-VERSION-x86_64-windows.zip",
    ] {
        let a = a.replace("VERSION", env!("CARGO_PKG_VERSION"));
        assert!(text.contains(&format!("  {a}\n")), "{a} not in {text}");
    }
    let out = Command::new("sha256sum")
        .arg("-c")
        .arg("SHA256SUMS")
        .current_dir(sums.parent().unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_linux_binary_is_static_and_runs() {
    let Some(tgz) = artifact("fsfit-VERSION-x86_64-linux.tar.gz") else {
        return;
    };
    if !have(&["file", "ldd", "tar"]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    run(
        "tar",
        &[
            "-xzf",
            tgz.to_str().unwrap(),
            "-C",
            d.path().to_str().unwrap(),
        ],
    );
    let top = d
        .path()
        .join(format!("fsfit-{}-x86_64-linux", env!("CARGO_PKG_VERSION")));
    let bin = top.join("fsfit");
    let kind = run("file", &["-b", bin.to_str().unwrap()]);
    assert!(
        kind.contains("statically linked") || kind.contains("static-pie"),
        "{kind}"
    );
    // ldd fails on a static binary, saying so.
    let ldd = Command::new("ldd").arg(&bin).output().unwrap();
    let said = String::from_utf8_lossy(&ldd.stdout) + String::from_utf8_lossy(&ldd.stderr);
    assert!(
        said.contains("not a dynamic executable") || said.contains("statically linked"),
        "{said}"
    );
    let v = run(bin.to_str().unwrap(), &["--version"]);
    assert_eq!(v.trim(), format!("fsfit {}", env!("CARGO_PKG_VERSION")));
    for f in ["README.md", "completions/fsfit.bash", "man/fsfit-usage.1"] {
        assert!(top.join(f).is_file(), "{f} missing from the tarball");
    }
}

#[test]
fn the_deb_says_what_it_is_and_holds_the_binary() {
    let Some(deb) = artifact("fsfit_VERSION_amd64.deb") else {
        return;
    };
    if !have(&["dpkg-deb"]) {
        return;
    }
    let deb = deb.to_str().unwrap();
    let fields = run(
        "dpkg-deb",
        &["-f", deb, "Package", "Version", "Architecture"],
    );
    let want = format!(
        "Package: fsfit\nVersion: {}\nArchitecture: amd64\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(fields, want);
    let desc = run("dpkg-deb", &["-f", deb, "Description", "Maintainer"]);
    assert!(
        desc.contains("filesystem and cluster size") && desc.contains('@'),
        "{desc}"
    );
    let files = run("dpkg-deb", &["-c", deb]);
    for f in [
        "./usr/bin/fsfit",
        "./usr/share/man/man1/fsfit.1.gz",
        "./usr/share/bash-completion/completions/fsfit",
    ] {
        assert!(files.contains(f), "{f} not in the .deb:\n{files}");
    }
    assert!(files.contains("root/root"), "owned by root:\n{files}");
}

/// The zip unpacked alone into an empty folder: its fsfit.exe under wine
/// prints its help and measures a folder as the Linux build does.
#[test]
fn the_windows_zip_alone_runs_under_wine() {
    let Some(zip) = artifact("fsfit-VERSION-x86_64-windows.zip") else {
        return;
    };
    if !have(&["unzip"]) {
        return;
    }
    let Some(wine) = crate::common::wine() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let unpacked = d.path().join("unpacked");
    run(
        "unzip",
        &[
            "-q",
            zip.to_str().unwrap(),
            "-d",
            unpacked.to_str().unwrap(),
        ],
    );
    let top = unpacked.join(format!(
        "fsfit-{}-x86_64-windows",
        env!("CARGO_PKG_VERSION")
    ));
    for f in ["README.md", "completions/fsfit.ps1", "man/fsfit-usage.txt"] {
        assert!(top.join(f).is_file(), "{f} missing from the zip");
    }
    let exe = top.join("fsfit.exe");
    let help = wine.run(&exe, &["--help"]);
    assert!(help.contains("Usage: fsfit"), "{help}");
    let tree = d.path().join("tree");
    crate::common::write_file(&tree.join("docs/readme.txt"), 5000);
    let v = wine.run(
        &exe,
        &[
            "usage",
            "--json",
            "--quiet",
            &crate::common::wine_path(&tree),
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&v).unwrap();
    assert_eq!(
        (v["tree"]["files"].as_u64(), v["tree"]["dirs"].as_u64()),
        (Some(1), Some(1))
    );
}

/// fsfit.exe from the release zip, unpacked into `dir`.
pub fn windows_exe(dir: &Path) -> Option<PathBuf> {
    let zip = artifact("fsfit-VERSION-x86_64-windows.zip")?;
    if !have(&["unzip"]) {
        return None;
    }
    run(
        "unzip",
        &["-q", zip.to_str().unwrap(), "-d", dir.to_str().unwrap()],
    );
    let top = dir.join(format!(
        "fsfit-{}-x86_64-windows",
        env!("CARGO_PKG_VERSION")
    ));
    Some(top.join("fsfit.exe"))
}
