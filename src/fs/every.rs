//! Tests that hold for every registered filesystem, as ripgrep's `rgtest!`
//! runs a test in each of its modes: [`fstest!`](crate::fstest) makes one
//! `#[test]` that runs its body once per filesystem in [`super::all`], so a
//! new filesystem is tested by the line that registers it, and a failure
//! names every filesystem that failed, not only the first.

use super::Filesystem;

/// Run `body` for each of `filesystems`; panic after the last one, naming
/// each that panicked and what it said.
pub fn run(
    test: &str,
    filesystems: &[&'static dyn Filesystem],
    body: impl Fn(&'static dyn Filesystem),
) {
    let failed: Vec<String> = filesystems
        .iter()
        .filter_map(|&f| {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(f)));
            ran.err()
                .map(|e| format!("{}: {}", f.name(), panic_text(&*e)))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{test} failed for {} of {} filesystems:\n  {}",
        failed.len(),
        filesystems.len(),
        failed.join("\n  ")
    );
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> &str {
    e.downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| e.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)")
}

/// `fstest!(name, |f| { ... })`: a `#[test] fn name` that runs the block
/// for every registered filesystem (`f: &'static dyn Filesystem`) and fails
/// naming each filesystem it failed for.
#[macro_export]
macro_rules! fstest {
    ($(#[$meta:meta])* $name:ident, |$f:ident| $body:block) => {
        $(#[$meta])*
        #[test]
        fn $name() {
            $crate::fs::every::run(
                stringify!($name),
                $crate::fs::all(),
                |$f: &'static dyn $crate::fs::Filesystem| $body,
            );
        }
    };
}
