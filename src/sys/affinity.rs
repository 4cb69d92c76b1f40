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

/// The calling thread's kernel id (what fio prints as the pid of a thread job).
pub fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as u32 }
}

/// Set the calling thread's I/O priority (ioprio_set(2), IOPRIO_WHO_PROCESS of this
/// thread): `value` is the class in bits 13.. and the level below, as fio passes it.
pub fn set_ioprio(value: u32) -> std::io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: integers only; who = 0 is the calling thread.
    let r = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            value as libc::c_long,
        )
    };
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

/// The number of CPUs the system has configured (fio's limit for CPU numbers).
pub fn configured_cpus() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    if n > 0 {
        n as usize
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// The CPUs this process may run on (its affinity mask, which a cpuset may narrow);
/// None when it cannot be read.
pub fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: cpu_set_t is a plain bitmask; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; `set` is a writable cpu_set_t of the given size.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return None;
    }
    // SAFETY: CPU_ISSET only reads inside `set`; c < CPU_SETSIZE.
    let cpus = (0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect();
    Some(cpus)
}
