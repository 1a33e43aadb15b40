//! Files written whole or not at all. Its own module, below everything that
//! writes (crash runs, cleanup state, reports), so none of them depends on
//! another just to save a file.

use std::io::Write;
use std::path::Path;

/// Write a file atomically: a temporary file beside it, synced, then renamed
/// over it, so a reader never sees half of it and a failure leaves no debris.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> crate::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| crate::Error::io(path, e);
    let mut tmp = tempfile::Builder::new()
        .prefix(".fsfit-")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    // tempfile creates 0600; results and reports are for sharing.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(fail)?;
    }
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
