//! Wall-clock helpers for report headers (not for measuring: see ferrio-clock).

/// Seconds and milliseconds since the Unix epoch.
pub fn unix_now() -> (u64, u64) {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs(), d.as_millis() as u64)
}

/// ctime(3)-style local time without the newline: "Sun Nov 22 03:32:27 2026".
pub fn ctime(secs: u64) -> String {
    let t = secs as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into our 64-byte buffer and NUL-terminates it.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r returned a pointer into `buf`, NUL-terminated.
    let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    s.to_string_lossy().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ctime_has_fios_shape() {
        let s = super::ctime(0);
        // e.g. "Thu Jan  1 00:00:00 1970" in UTC.
        assert_eq!(s.len(), 24, "{s:?}");
        assert!(s.ends_with("1970") || s.ends_with("1969"), "{s:?}");
    }
}

/// Milliseconds on clock `clock_id` (clock_gettime(2): 0 = CLOCK_REALTIME,
/// 1 = CLOCK_MONOTONIC, ...), for log_alternate_epoch; None for a clock the kernel
/// does not have.
pub fn clock_ms(clock_id: u32) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec the call writes.
    if unsafe { libc::clock_gettime(clock_id as libc::clockid_t, &mut ts) } != 0 {
        return None;
    }
    Some(ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
}

#[cfg(test)]
mod clock_tests {
    #[test]
    fn clock_ms_reads_realtime_and_monotonic() {
        let real = super::clock_ms(0).unwrap();
        assert!(real.abs_diff(super::unix_now().1) < 60_000);
        assert!(super::clock_ms(1).is_some());
        assert!(super::clock_ms(4242).is_none());
    }
}
