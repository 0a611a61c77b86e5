//! Signals to a target's process group: the target runs as the leader of a group of its own, so
//! one signal reaches it and every process it started.

/// Ends the target's process group (the target and every child it started).
pub fn kill_group(pid: Option<i32>) {
    signal_group(pid, libc::SIGKILL);
}

/// Sends `signal` to the target's process group.
pub fn signal_group(pid: Option<i32>, signal: libc::c_int) {
    if let Some(pid) = pid {
        // SAFETY: kill(2) with a negative pid signals the process group we created for the target.
        unsafe {
            libc::kill(-pid, signal);
        }
    }
}
