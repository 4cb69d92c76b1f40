//! What the system can give before a run asks for it: memory available to this process
//! and the kernel's asynchronous-I/O limits, read from /proc and the cgroup file system.
//! None where a value cannot be read (the caller then does not check it).

/// Bytes of memory this process can still use: MemAvailable from /proc/meminfo, lowered
/// to what the memory cgroup (v2) still allows when it sets a limit.
pub fn mem_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let avail = parse_meminfo_kib(&meminfo, "MemAvailable")? * 1024;
    Some(match cgroup_headroom() {
        Some(h) => avail.min(h),
        None => avail,
    })
}

/// Limit − usage of this process's memory cgroup (v2 `memory.max`, or v1
/// `memory.limit_in_bytes`), when one is set.
fn cgroup_headroom() -> Option<u64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let num = |p: std::path::PathBuf| -> Option<u64> {
        std::fs::read_to_string(p).ok()?.trim().parse().ok() // "max" = no limit
    };
    let root = std::path::Path::new("/sys/fs/cgroup");
    for line in cg.lines() {
        let mut f = line.splitn(3, ':');
        let (_, controllers, rel) = (f.next()?, f.next()?, f.next()?);
        let rel = rel.trim_start_matches('/');
        let (dir, max, cur) = match controllers {
            "" => (root.join(rel), "memory.max", "memory.current"),
            c if c.split(',').any(|c| c == "memory") => (
                root.join("memory").join(rel),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ),
            _ => continue,
        };
        // Inside a container the path may be shown from the host's view: try the root too.
        let Some(base) = dir.ancestors().find(|d| d.join(max).exists()) else {
            continue;
        };
        if let (Some(m), Some(c)) = (num(base.join(max)), num(base.join(cur))) {
            return Some(m.saturating_sub(c));
        }
    }
    None
}

/// The value of `key` (in KiB) in /proc/meminfo's text.
fn parse_meminfo_kib(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// (huge pages a new mapping can still get, huge page size in bytes): free and not
/// reserved, plus the surplus the kernel may still add.
pub fn huge_pages() -> Option<(u64, u64)> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let free = parse_meminfo_count(&m, "HugePages_Free")?;
    let rsvd = parse_meminfo_count(&m, "HugePages_Rsvd").unwrap_or(0);
    let size = parse_meminfo_kib(&m, "Hugepagesize")? * 1024;
    // Surplus pages the kernel may add on demand (nr_overcommit_hugepages) count too.
    let surp = parse_meminfo_count(&m, "HugePages_Surp").unwrap_or(0);
    let overcommit: u64 = std::fs::read_to_string("/proc/sys/vm/nr_overcommit_hugepages")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    Some((
        free.saturating_sub(rsvd) + overcommit.saturating_sub(surp),
        size,
    ))
}

/// A /proc/meminfo count (no unit), e.g. HugePages_Free.
fn parse_meminfo_count(text: &str, key: &str) -> Option<u64> {
    parse_meminfo_kib(text, key)
}

/// (aio-max-nr, aio-nr): the system-wide limit on libaio events and how many are taken.
pub fn aio_limits() -> Option<(u64, u64)> {
    let read = |f: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/proc/sys/fs/{f}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some((read("aio-max-nr")?, read("aio-nr")?))
}

/// The largest io_uring submission queue the kernel accepts (IORING_MAX_ENTRIES).
pub const IO_URING_MAX_ENTRIES: u64 = 32768;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_key() {
        let t = "MemTotal:       32000000 kB\nMemFree:  1 kB\nMemAvailable:   24129848 kB\n";
        assert_eq!(parse_meminfo_kib(t, "MemAvailable"), Some(24129848));
        assert_eq!(parse_meminfo_kib(t, "MemFree"), Some(1));
        assert_eq!(parse_meminfo_kib(t, "Mem"), None);
        assert_eq!(parse_meminfo_kib(t, "Swap"), None);
        let h = "HugePages_Free:      12\nHugepagesize:       2048 kB\n";
        assert_eq!(parse_meminfo_count(h, "HugePages_Free"), Some(12));
        assert_eq!(parse_meminfo_kib(h, "Hugepagesize"), Some(2048));
    }

    #[test]
    fn this_machine_reports_something() {
        assert!(mem_available().is_some_and(|m| m > 0));
    }
}
