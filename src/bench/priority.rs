//! `--quick` on a busy machine: the measuring thread, and the FUSE daemons
//! it starts (they inherit it), run under the real-time policy SCHED_FIFO
//! at its lowest priority, so that other programs' work waits for theirs
//! instead of the reverse. `nice` cannot do this: the kernel shares the CPUs
//! between sessions (autogroups) and cgroups first, and a nice value only
//! counts inside its own. The kernel's own threads (a loop device's
//! workers, the journal, writeback) keep their priority. Restored when the
//! measuring ends.

/// The thread's policy and priority before, to restore.
pub struct Raised {
    policy: libc::c_int,
    param: libc::sched_param,
}

/// What the report says about it.
pub const SAID: &str = "SCHED_FIFO 1 (fsfit's measuring thread and the FUSE daemons it started)";

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
        (set(libc::SCHED_FIFO, &fifo) == 0).then_some(Raised { policy, param })
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current_policy() -> libc::c_long {
        // SAFETY: a query about the calling thread.
        unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0) }
    }

    #[test]
    fn raises_the_thread_to_fifo_and_restores_what_it_had() {
        let before = current_policy();
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
        drop(raised);
        assert_eq!(current_policy(), before);
    }
}
