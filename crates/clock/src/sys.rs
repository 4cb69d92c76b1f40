//! Thin, safe wrappers over the few libc calls the clock needs: the two system time
//! sources (`clock_gettime(CLOCK_MONOTONIC)`, `gettimeofday`) and CPU affinity
//! (`sched_getaffinity` / `sched_setaffinity`) for the cross-core test.

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds (vDSO on Linux: no syscall).
#[inline]
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on the
    // platforms we build for, so the call cannot fail and only writes `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// `gettimeofday()` in nanoseconds (microsecond resolution, wall clock: it can step).
#[inline]
pub(crate) fn gettimeofday_ns() -> u64 {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: `tv` is a valid, writable timeval and the timezone argument may be null.
    unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
    (tv.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(tv.tv_usec as u64 * 1_000)
}

/// The CPUs the calling thread may run on (sorted). Falls back to `0..n` where the
/// affinity mask cannot be read.
#[cfg(target_os = "linux")]
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is a plain bit array for which all-zero is a valid value.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 means the calling thread; the size matches the buffer passed.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return fallback_cpus();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` < CPU_SETSIZE, so CPU_ISSET stays inside the set.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn allowed_cpus() -> Vec<usize> {
    fallback_cpus()
}

fn fallback_cpus() -> Vec<usize> {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (0..n).collect()
}

/// Pin the calling thread to `cpu`.
#[cfg(target_os = "linux")]
pub(crate) fn pin_current_thread(cpu: usize) -> Result<(), String> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(format!("cpu {cpu} is beyond CPU_SETSIZE"));
    }
    // SAFETY: all-zero is a valid (empty) cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` < CPU_SETSIZE was checked above.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 means the calling thread; the size matches the set passed.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "sched_setaffinity(cpu {cpu}): {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Pinning is not supported here: threads run where the scheduler puts them.
#[cfg(not(target_os = "linux"))]
pub(crate) fn pin_current_thread(_cpu: usize) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_advances_and_matches_std_instant_rate() {
        let a = monotonic_ns();
        let i = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = monotonic_ns();
        let e = i.elapsed().as_nanos() as u64;
        assert!(b > a);
        // Both read CLOCK_MONOTONIC; they must agree within scheduling noise.
        assert!((b - a).abs_diff(e) < 2_000_000, "{} vs {}", b - a, e);
    }

    #[test]
    fn gettimeofday_is_wall_clock_in_ns() {
        let g = gettimeofday_ns();
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        assert!(g.abs_diff(wall) < 1_000_000_000, "{g} vs {wall}");
        assert_eq!(g % 1_000, 0, "microsecond resolution");
    }

    #[test]
    fn allowed_cpus_nonempty_and_pinnable() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        let first = cpus[0];
        std::thread::spawn(move || pin_current_thread(first))
            .join()
            .unwrap()
            .unwrap();
    }
}
