//! One error type for the library and the binary. Its kind, never its text,
//! decides the exit status (README "Exit status"): 2 for bad input, 1 for a
//! failure while working, 130 when interrupted.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad arguments or input (an unreadable PATH, a file that is not fsfit
    /// results): nothing was done.
    #[error("{0}")]
    Input(String),
    /// Failed while working.
    #[error("{0}")]
    Work(String),
    /// Ctrl-C or SIGTERM: stopped after releasing everything.
    #[error("interrupted; everything fsfit mounted and attached was released")]
    Interrupted,
    /// A file could not be read or written while working.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }

    pub fn work(message: impl Into<String>) -> Error {
        Error::Work(message.into())
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit status for this kind of error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) => 2,
            Error::Work(_) | Error::Io { .. } => 1,
            Error::Interrupted => 130,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_decides_the_exit_code() {
        assert_eq!(Error::input("bad --volume").exit_code(), 2);
        assert_eq!(Error::work("mkfs failed").exit_code(), 1);
        let e = Error::io("/x/y", std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(e.exit_code(), 1);
        assert!(e.to_string().starts_with("/x/y: "), "{e}");
        // Even a work error whose text says "interrupted" is a work error.
        assert_eq!(Error::work("interrupted").exit_code(), 1);
        assert_eq!(Error::Interrupted.exit_code(), 130);
    }
}
