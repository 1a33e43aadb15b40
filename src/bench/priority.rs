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
    // SAFETY: plain system calls on the calling thread (pid 0), with a
    // sched_param the kernel fills or reads.
    unsafe {
        let policy = libc::sched_getscheduler(0);
        let mut param: libc::sched_param = std::mem::zeroed();
        if policy < 0 || libc::sched_getparam(0, &mut param) != 0 {
            return None;
        }
        let fifo = libc::sched_param {
            sched_priority: libc::sched_get_priority_min(libc::SCHED_FIFO),
        };
        (libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) == 0)
            .then_some(Raised { policy, param })
    }
}

impl Drop for Raised {
    fn drop(&mut self) {
        // SAFETY: as in raise: the calling thread, the values it had.
        unsafe {
            libc::sched_setscheduler(0, self.policy, &self.param);
        }
    }
}
