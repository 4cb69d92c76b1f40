//! /proc/diskstats snapshots for fio's "Disk stats" section.

use std::collections::BTreeMap;

/// One device's cumulative counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiskCounters {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_ticks: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_ticks: u64,
    pub io_ticks: u64,
    pub in_queue: u64,
}

/// Parse /proc/diskstats text into name → counters.
pub fn parse(text: &str) -> BTreeMap<String, DiskCounters> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 14 {
            continue;
        }
        let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
        out.insert(
            f[2].to_string(),
            DiskCounters {
                read_ios: n(3),
                read_merges: n(4),
                read_ticks: n(6),
                write_ios: n(7),
                write_merges: n(8),
                write_ticks: n(10),
                io_ticks: n(12),
                in_queue: n(13),
            },
        );
    }
    out
}

/// Current counters of every device.
pub fn snapshot() -> BTreeMap<String, DiskCounters> {
    std::fs::read_to_string("/proc/diskstats")
        .map(|t| parse(&t))
        .unwrap_or_default()
}

/// The whole-disk name for a device number, as fio reports it (a partition maps to its disk).
pub fn disk_name(major: u32, minor: u32) -> Option<String> {
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let real = std::fs::canonicalize(&sys).ok()?;
    let target = if real.join("partition").exists() {
        real.parent()?.to_path_buf()
    } else {
        real
    };
    Some(target.file_name()?.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_diskstats_line() {
        let t = " 254       0 vda 100 2 3000 40 500 6 7000 80 0 90 120 0 0 0 0\n";
        let m = parse(t);
        let d = &m["vda"];
        assert_eq!(d.read_ios, 100);
        assert_eq!(d.read_merges, 2);
        assert_eq!(d.read_ticks, 40);
        assert_eq!(d.write_ios, 500);
        assert_eq!(d.write_merges, 6);
        assert_eq!(d.write_ticks, 80);
        assert_eq!(d.io_ticks, 90);
        assert_eq!(d.in_queue, 120);
    }
}
