//! A filesystem's checker (fsck) as data on its [`super::FsInfo`]: the
//! program, how to check an image without changing it, how to repair it,
//! what its exit codes mean; and the one runner `fsfit crash` runs them with.

#[cfg(target_os = "linux")]
use std::io::Write;
#[cfg(target_os = "linux")]
use std::path::Path;
#[cfg(target_os = "linux")]
use std::process::{Command, Stdio};

/// A filesystem checker: how to check an image without changing it, how to
/// repair it, and what its exit codes mean. The image path is appended.
#[derive(Clone, Copy, Debug)]
pub struct Checker {
    pub program: &'static str,
    /// Check only; must write nothing.
    pub check_args: &'static [&'static str],
    /// Repair without asking.
    pub repair_args: &'static [&'static str],
    /// Text fed to the repair's stdin (for tools that insist on asking).
    pub repair_stdin: &'static str,
    /// What an exit code of the check means.
    pub exit_codes: ExitCodes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No problem found.
    Clean,
    /// Problems found (or, after a repair, left).
    Errors,
    /// The checker itself failed (usage, operational error, gave up).
    Failed,
}

/// How a checker's exit code reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCodes {
    /// e2fsck's, which fsck.exfat and fsck.f2fs follow: 0 clean, 1 and 2
    /// errors corrected, 4 errors left, 8 and up operational failures.
    Fsck,
    /// 0 clean, 1 problems found, anything else failed (fsck.fat,
    /// xfs_repair -n, btrfs check).
    ZeroOne,
    /// 0 when the volume is fine (or was fixed), anything else problems
    /// (ntfsfix).
    ZeroClean,
}

impl ExitCodes {
    pub fn verdict(self, code: i32) -> Verdict {
        match (self, code) {
            (_, 0) => Verdict::Clean,
            (ExitCodes::Fsck, 1 | 2 | 4 | 5 | 6 | 7) => Verdict::Errors,
            (ExitCodes::ZeroOne, 1) => Verdict::Errors,
            (ExitCodes::ZeroClean, _) => Verdict::Errors,
            _ => Verdict::Failed,
        }
    }
}

/// Which of a checker's two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Check,
    Repair,
}

impl Checker {
    /// What an exit code of the check means.
    pub fn verdict(&self, code: i32) -> Verdict {
        self.exit_codes.verdict(code)
    }

    /// The arguments and stdin of `step`.
    pub fn args(&self, step: Step) -> (&'static [&'static str], &'static str) {
        match step {
            Step::Check => (self.check_args, ""),
            Step::Repair => (self.repair_args, self.repair_stdin),
        }
    }

    /// Run `step` on `image` in its own process group (a Ctrl-C meant for
    /// fsfit does not kill it half-way): its verdict and
    /// `PROGRAM exit CODE: LAST LINE OF OUTPUT`.
    #[cfg(target_os = "linux")]
    pub fn run(&self, step: Step, image: &Path) -> (Verdict, String) {
        let (args, stdin) = self.args(step);
        self.run_with(args, stdin, image)
    }

    /// [`Checker::run`] with the arguments and stdin spelled out.
    #[cfg(target_os = "linux")]
    pub fn run_with(&self, args: &[&str], stdin: &str, image: &Path) -> (Verdict, String) {
        use std::os::unix::process::CommandExt;
        let child = Command::new(self.program)
            .args(args)
            .arg(image)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return (Verdict::Failed, format!("cannot run {}: {e}", self.program)),
        };
        if let Some(mut i) = child.stdin.take() {
            let _ = i.write_all(stdin.as_bytes());
        }
        let out = match child.wait_with_output() {
            Ok(o) => o,
            Err(e) => return (Verdict::Failed, format!("{}: {e}", self.program)),
        };
        let code = out.status.code().unwrap_or(-1);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let last = text
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        (
            self.verdict(code),
            format!("{} exit {code}: {last}", self.program),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_read_as_each_tool_documents() {
        let fsck: Vec<Verdict> = (0..9).map(|c| ExitCodes::Fsck.verdict(c)).collect();
        use Verdict::*;
        assert_eq!(
            fsck,
            [Clean, Errors, Errors, Failed, Errors, Errors, Errors, Errors, Failed]
        );
        assert_eq!(ExitCodes::ZeroOne.verdict(0), Clean);
        assert_eq!(ExitCodes::ZeroOne.verdict(1), Errors);
        assert_eq!(ExitCodes::ZeroOne.verdict(2), Failed);
        assert_eq!(ExitCodes::ZeroOne.verdict(-1), Failed);
        assert_eq!(ExitCodes::ZeroClean.verdict(0), Clean);
        assert_eq!(ExitCodes::ZeroClean.verdict(1), Errors);
        assert_eq!(ExitCodes::ZeroClean.verdict(-1), Errors);
    }

    // The checkers run on Linux only.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_program_is_a_failed_run() {
        let ck = Checker {
            program: "fsfit-no-such-checker",
            check_args: &["-n"],
            repair_args: &["-y"],
            repair_stdin: "",
            exit_codes: ExitCodes::Fsck,
        };
        let (v, said) = ck.run(Step::Check, Path::new("/nonexistent"));
        assert_eq!(v, Verdict::Failed);
        assert!(
            said.starts_with("cannot run fsfit-no-such-checker: "),
            "{said}"
        );
    }
}
