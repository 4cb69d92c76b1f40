//! CPU placement and priority of the calling thread (cpus_allowed, nice).

/// Restrict the calling thread to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is a plain bitmask; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: CPU_SET only writes inside `set`; c is bounds-checked by the macro's caller below.
        if c < libc::CPU_SETSIZE as usize {
            unsafe { libc::CPU_SET(c, &mut set) };
        }
    }
    // SAFETY: pid 0 means the calling thread; `set` is a valid cpu_set_t of the given size.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Change the calling thread's nice value by `nice` (Linux applies it per thread).
pub fn set_nice(nice: i32) -> std::io::Result<()> {
    if nice == 0 {
        return Ok(());
    }
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::id_t;
    // SAFETY: setpriority takes only integers.
    let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, nice) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
