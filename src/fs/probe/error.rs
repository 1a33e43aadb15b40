//! Why a volume could not be read as a filesystem. The text names the read,
//! the structure or the field (tests and users compare it); the kind says
//! what went wrong without reading the text.

use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// The device (or image) could not be read or opened.
    Read(String),
    /// A structure is truncated, corrupt, or outside what its
    /// specification allows: the text names the field.
    Corrupt(String),
    /// Nothing fsfit reads is there: an empty device, a volume of a kind
    /// fsfit does not read, a partition table where a volume was expected.
    NotFound(String),
}

impl ProbeError {
    /// The message, as shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ProbeError::Read(m) | ProbeError::Corrupt(m) | ProbeError::NotFound(m) => m,
        }
    }

    /// The same error with `prefix: ` in front (the filesystem, the path).
    pub fn within(self, prefix: impl fmt::Display) -> ProbeError {
        let wrap = |m: String| format!("{prefix}: {m}");
        match self {
            ProbeError::Read(m) => ProbeError::Read(wrap(m)),
            ProbeError::Corrupt(m) => ProbeError::Corrupt(wrap(m)),
            ProbeError::NotFound(m) => ProbeError::NotFound(wrap(m)),
        }
    }
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ProbeError {}

/// In JSON, the message (as the info corpus and documents keep it).
impl Serialize for ProbeError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.message())
    }
}

/// A volume that cannot be read fails the command while working (exit 1),
/// as the text errors did.
impl From<ProbeError> for crate::Error {
    fn from(e: ProbeError) -> crate::Error {
        crate::Error::work(e.to_string())
    }
}

/// `ProbeError::Corrupt(format!(...))`.
macro_rules! corrupt {
    ($($arg:tt)*) => {
        $crate::fs::probe::ProbeError::Corrupt(format!($($arg)*))
    };
}
pub(crate) use corrupt;
