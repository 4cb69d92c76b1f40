//! fio's `unified_rw_reporting`: `mixed` reports the read, write and trim statistics of
//! a job as one direction called "mixed"; `both` reports the three directions and the
//! mixed one after them. The runner folds `mixed` jobs with [`fold_mixed`] before the
//! group statistics are computed (so the group's first direction is the mixed one, as
//! in fio); the printers add the mixed direction of `both` jobs with [`merged_dir`] and
//! [`merged_group`].

use crate::model::{DirReport, GroupDir, JobReport, Unified};

/// The three directions as one (fio's sum_thread_stats into direction 0): counts and
/// bytes add up, the runtime is the longest, latencies pool, bw/IOPS rates add.
pub fn merged_dir(dirs: &[DirReport; 3]) -> DirReport {
    let mut m = DirReport::default();
    for d in dirs {
        m.add(d);
    }
    m
}

/// fio's "MIXED" group line under `both`: bytes and aggregate bandwidth add up, the
/// smallest and largest bandwidths and runtimes over the directions that ran.
pub fn merged_group(dirs: &[GroupDir; 3]) -> GroupDir {
    let mut m = GroupDir {
        min_bw: u64::MAX,
        min_run_ms: u64::MAX,
        ..Default::default()
    };
    for d in dirs.iter().filter(|d| d.max_run_ms != 0) {
        m.io_bytes += d.io_bytes;
        m.agg_bw += d.agg_bw;
        m.min_bw = m.min_bw.min(d.min_bw);
        m.max_bw = m.max_bw.max(d.max_bw);
        m.min_run_ms = m.min_run_ms.min(d.min_run_ms);
        m.max_run_ms = m.max_run_ms.max(d.max_run_ms);
    }
    m
}

/// A job's share of its group's aggregate bandwidth, percent (fio: the mean of its
/// bw samples in KiB/s over the aggregate; 100 when the aggregate is tiny).
pub fn share(mean_kib: f64, agg_bytes: u64) -> f64 {
    if agg_bytes <= 1024 {
        return 100.0;
    }
    ((mean_kib.trunc() * 100.0) / (agg_bytes as f64 / 1024.0)).min(100.0)
}

/// A `mixed` job: its directions become the one mixed direction (index 0).
pub fn fold_mixed(job: &mut JobReport) {
    if job.unified == Unified::Mixed {
        let m = merged_dir(&job.dir);
        job.dir = [m, DirReport::default(), DirReport::default()];
    }
}

/// The name of direction `d` of `job` in the job block and JSON ("mixed" for a
/// `mixed` job's only direction).
pub fn dir_name(job: &JobReport, d: usize) -> &'static str {
    match (job.unified, d) {
        (Unified::Mixed, _) => "mixed",
        (_, 0) => "read",
        (_, 1) => "write",
        _ => "trim",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_stats::LatencyHistogram;

    fn dir(bytes: u64, ios: u64, rt: u64, lats: &[u64]) -> DirReport {
        let mut clat = LatencyHistogram::new();
        for l in lats {
            clat.record(*l);
        }
        DirReport {
            io_bytes: bytes,
            total_ios: ios,
            runtime_ms: rt,
            clat,
            ..Default::default()
        }
    }

    #[test]
    fn mixed_adds_counts_and_pools_latencies() {
        let m = merged_dir(&[
            dir(4096, 1, 5, &[1000]),
            dir(8192, 2, 7, &[3000, 5000]),
            DirReport::default(),
        ]);
        assert_eq!((m.io_bytes, m.total_ios, m.runtime_ms), (12288, 3, 7));
        assert_eq!(m.clat.count(), 3);
        assert_eq!(m.clat.min(), 1000);
    }

    #[test]
    fn the_group_line_spans_the_directions_that_ran() {
        let g = |io, bw, run| GroupDir {
            io_bytes: io,
            agg_bw: bw,
            min_bw: bw,
            max_bw: bw,
            min_run_ms: run,
            max_run_ms: run,
        };
        let m = merged_group(&[g(10, 100, 2), g(20, 300, 3), GroupDir::default()]);
        assert_eq!(
            (m.io_bytes, m.agg_bw, m.min_bw, m.max_bw),
            (30, 400, 100, 300)
        );
        assert_eq!((m.min_run_ms, m.max_run_ms), (2, 3));
    }

    #[test]
    fn groups_or_their_modes_like_fio() {
        assert_eq!(Unified::None.or(Unified::Mixed), Unified::Mixed);
        assert_eq!(Unified::Both.or(Unified::Both), Unified::Both);
        assert_eq!(Unified::Mixed.or(Unified::Both), Unified::None);
    }
}
