//! `--quick` on a busy machine: the measuring thread, and the FUSE daemons
//! it starts (they inherit it), run under the real-time policy SCHED_FIFO
//! at its lowest priority, so that other programs' work waits for theirs
//! instead of the reverse. `nice` cannot do this: the kernel shares the CPUs
//! between sessions (autogroups) and cgroups first, and a nice value only
//! counts inside its own. The kernel's own threads (a loop device's
//! workers, the journal, writeback) keep their priority.
//!
//! Their I/O likewise goes first: the I/O class realtime (lowest level),
//! which the block layer's schedulers (mq-deadline, bfq) serve before
//! other programs' I/O, and which a loop device passes on to the I/O it
//! does on its image file (Linux 6.15 on). Under another build writing to
//! the same disk, ext4 single-read on a loop image took 0.62-1.54 s at
//! SCHED_FIFO alone. Writeback done by the kernel's flusher threads keeps
//! its own class; the workloads' fsyncs write from the measuring thread.
//! Both restored when the measuring ends.

/// The thread's policy and priority before, to restore.
pub struct Raised {
    policy: libc::c_int,
    param: libc::sched_param,
    /// The thread's I/O priority before, when it could be raised.
    ioprio: Option<libc::c_long>,
}

/// What the report says about it.
pub const SAID: &str = "SCHED_FIFO 1 (fsfit's measuring thread and the FUSE daemons it started)";

/// What the report says when the I/O class was raised too.
pub const SAID_IO: &str =
    "SCHED_FIFO 1 and I/O class realtime 7 (the measuring thread and its FUSE daemons)";

impl Raised {
    /// What the report says about it.
    pub fn said(&self) -> &'static str {
        if self.ioprio.is_some() {
            SAID_IO
        } else {
            SAID
        }
    }
}

/// ioprio_set(2)'s "this thread", and the realtime class at its lowest
/// level (7 of 0-7).
const IOPRIO_WHO_PROCESS: libc::c_long = 1;
const IOPRIO_RT_LOWEST: libc::c_long = (1 << 13) | 7;

/// Raise the calling thread's priority; None when the system refuses it
/// (not root, or a cgroup without real-time time).
pub fn raise() -> Option<Raised> {
    // The system calls themselves, not libc's wrappers: musl (the static
    // Linux release) leaves sched_setscheduler and its kin unimplemented
    // (they return ENOSYS), since POSIX means them per process and Linux
    // applies them per thread. The kernel reads only `sched_priority` of
    // the struct, whatever fields a libc adds after it.
    // SAFETY: plain system calls on the calling thread (pid 0), with a
    // sched_param the kernel fills or reads.
    unsafe {
        let policy = libc::syscall(libc::SYS_sched_getscheduler, 0) as libc::c_int;
        let mut param: libc::sched_param = std::mem::zeroed();
        if policy < 0 || libc::syscall(libc::SYS_sched_getparam, 0, &mut param) != 0 {
            return None;
        }
        let mut fifo: libc::sched_param = std::mem::zeroed();
        fifo.sched_priority = libc::sched_get_priority_min(libc::SCHED_FIFO);
        if set(libc::SCHED_FIFO, &fifo) != 0 {
            return None;
        }
        Some(Raised {
            policy,
            param,
            ioprio: raise_io(),
        })
    }
}

/// Put the calling thread's I/O in the realtime class; what it had.
fn raise_io() -> Option<libc::c_long> {
    // SAFETY: plain system calls on the calling thread (who 0), no memory.
    unsafe {
        let before = libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
        let set = libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0,
            IOPRIO_RT_LOWEST,
        );
        (before >= 0 && set == 0).then_some(before)
    }
}

/// sched_setscheduler(2) on the calling thread.
unsafe fn set(policy: libc::c_int, param: &libc::sched_param) -> libc::c_long {
    // SAFETY: the caller's param outlives the call; pid 0 is this thread.
    unsafe { libc::syscall(libc::SYS_sched_setscheduler, 0, policy, param as *const _) }
}

impl Drop for Raised {
    fn drop(&mut self) {
        // SAFETY: as in raise: the calling thread, the values it had.
        unsafe {
            set(self.policy, &self.param);
            if let Some(io) = self.ioprio {
                libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, io);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current_ioprio() -> libc::c_long {
        // SAFETY: a query about the calling thread.
        unsafe { libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0) }
    }

    fn current_policy() -> libc::c_long {
        // SAFETY: a query about the calling thread.
        unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0) }
    }

    #[test]
    fn raises_the_thread_to_fifo_and_restores_what_it_had() {
        let before = current_policy();
        let io_before = current_ioprio();
        assert!(before >= 0, "sched_getscheduler failed");
        let Some(raised) = raise() else {
            // Not root, or a cgroup without real-time time: refused, as
            // the report then says (no priority recorded).
            let root = crate::device::is_root();
            assert!(
                std::env::var_os("FSFIT_REQUIRE_ALL").is_none() || !root,
                "root was refused SCHED_FIFO"
            );
            return;
        };
        assert_eq!(current_policy(), libc::SCHED_FIFO as libc::c_long);
        // Root may put its I/O in the realtime class wherever it may take
        // SCHED_FIFO; the report says which it got.
        assert!(raised.ioprio.is_some(), "the I/O class was not raised");
        assert_eq!(current_ioprio(), IOPRIO_RT_LOWEST);
        assert_eq!(raised.said(), SAID_IO);
        drop(raised);
        assert_eq!(current_policy(), before);
        assert_eq!(current_ioprio(), io_before);
    }
}
