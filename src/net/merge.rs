//! Sums across hosts: the "All clients" job and group (fio's client_ts and client_gs)
//! and the per-host table rows. Bytes and I/O counts add exactly; latency percentiles
//! come from the merged histograms, never from averaging the hosts' percentiles.

use ferrio_report::{DirReport, GroupReport, JobReport, RunReport};
use ferrio_stats::LatencyHistogram;

/// Add `src` into `dst` as fio's sum_thread_stats does for a client's jobs.
pub fn add_job(dst: &mut JobReport, src: &JobReport) {
    for d in 0..3 {
        dst.dir[d].add(&src.dir[d]);
    }
    dst.sync.total_ios += src.sync.total_ios;
    dst.sync.lat.merge(&src.sync.lat);
    dst.depth.merge(&src.depth);
    dst.lat_buckets.merge(&src.lat_buckets);
    let (n, m) = (f64::from(dst.nr_threads), f64::from(src.nr_threads));
    if n + m > 0.0 {
        dst.usr_cpu = (dst.usr_cpu * n + src.usr_cpu * m) / (n + m);
        dst.sys_cpu = (dst.sys_cpu * n + src.sys_cpu * m) / (n + m);
    }
    dst.nr_threads += src.nr_threads;
    dst.ctx += src.ctx;
    dst.majf += src.majf;
    dst.minf += src.minf;
    dst.job_runtime_ms = dst.job_runtime_ms.max(src.job_runtime_ms);
    dst.elapsed_s = dst.elapsed_s.max(src.elapsed_s);
    if dst.error == 0 {
        dst.error = src.error;
    }
    // ferrio's extra statistics (sim buffers, pacer period), each by its own rule.
    ferrio_report::extra::merge(&mut dst.extra, &src.extra);
    if let (Some(d), Some(s)) = (&mut dst.errors, &src.errors) {
        d.total += s.total;
        if d.first_error == 0 {
            d.first_error = s.first_error;
        }
    }
}

/// fio's sum_group_stats: bytes and aggregate bandwidth add, the extremes widen.
pub fn add_group(dst: &mut GroupReport, src: &GroupReport) {
    for d in 0..3 {
        let (a, b) = (&mut dst.dir[d], &src.dir[d]);
        if b.max_run_ms == 0 {
            continue;
        }
        if a.max_run_ms == 0 {
            *a = b.clone();
            continue;
        }
        a.io_bytes += b.io_bytes;
        a.agg_bw += b.agg_bw;
        a.min_bw = a.min_bw.min(b.min_bw);
        a.max_bw = a.max_bw.max(b.max_bw);
        a.min_run_ms = a.min_run_ms.min(b.min_run_ms);
        a.max_run_ms = a.max_run_ms.max(b.max_run_ms);
    }
}

/// The "All clients" report: every job of every host summed into one job, every group
/// into group 0. None when no host reported.
pub fn all_clients(reports: &[&RunReport]) -> Option<RunReport> {
    let first_job = reports.iter().flat_map(|r| r.jobs.iter()).next()?;
    let mut job = first_job.clone();
    job.name = "All clients".into();
    job.description = None;
    job.groupid = 0;
    job.pid = 0;
    job.job_options.clear();
    job.steadystate = None;
    let mut first = true;
    for j in reports.iter().flat_map(|r| r.jobs.iter()) {
        if !first {
            add_job(&mut job, j);
        }
        first = false;
    }
    for d in &mut job.dir {
        d.bw_agg_pct = 100.0;
    }
    let mut group: Option<GroupReport> = None;
    for g in reports.iter().flat_map(|r| r.groups.iter()) {
        match &mut group {
            None => group = Some(g.clone()),
            Some(acc) => add_group(acc, g),
        }
    }
    let mut group = group.unwrap_or_default();
    group.groupid = 0;
    let base = reports[0];
    Some(RunReport {
        version: base.version.clone(),
        timestamp: base.timestamp,
        timestamp_ms: base.timestamp_ms,
        time: base.time.clone(),
        global_options: Vec::new(),
        jobs: vec![job],
        groups: vec![group],
        disk_util: Vec::new(),
        clock_source: base.clock_source.clone(),
        cpu_idleness: None,
        series: Vec::new(),
    })
}

/// One row of the hosts table: rates over every direction, latency from the merged
/// histograms (total latency where recorded, else completion latency).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub ios: u64,
    pub bytes: u64,
    /// I/Os and bytes per second, each direction's count over its own runtime, added.
    pub iops: f64,
    pub bw_bytes: f64,
    pub lat: LatencyHistogram,
}

impl Row {
    pub fn of(report: &RunReport) -> Row {
        let mut row = Row {
            ios: 0,
            bytes: 0,
            iops: 0.0,
            bw_bytes: 0.0,
            lat: LatencyHistogram::new(),
        };
        for j in &report.jobs {
            for d in &j.dir {
                row.add_dir(d);
            }
        }
        row
    }

    fn add_dir(&mut self, d: &DirReport) {
        self.ios += d.total_ios;
        self.bytes += d.io_bytes;
        if d.runtime_ms > 0 {
            self.iops += d.total_ios as f64 * 1000.0 / d.runtime_ms as f64;
            self.bw_bytes += d.io_bytes as f64 * 1000.0 / d.runtime_ms as f64;
        }
        let h = if d.lat.count() > 0 { &d.lat } else { &d.clat };
        self.lat.merge(h);
    }

    /// The total row: counts and rates add, latencies merge.
    pub fn total(rows: &[&Row]) -> Row {
        let mut t = Row {
            ios: 0,
            bytes: 0,
            iops: 0.0,
            bw_bytes: 0.0,
            lat: LatencyHistogram::new(),
        };
        for r in rows {
            t.ios += r.ios;
            t.bytes += r.bytes;
            t.iops += r.iops;
            t.bw_bytes += r.bw_bytes;
            t.lat.merge(&r.lat);
        }
        t
    }

    /// The 99th percentile of the latency, ns (0 without samples).
    pub fn p99_ns(&self) -> u64 {
        if self.lat.count() == 0 {
            return 0;
        }
        self.lat.percentiles(&[99.0])[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(ios: u64, lats: &[u64]) -> RunReport {
        let mut j = JobReport {
            nr_threads: 1,
            ..Default::default()
        };
        j.dir[0].total_ios = ios;
        j.dir[0].io_bytes = ios * 4096;
        j.dir[0].runtime_ms = 1000;
        for &l in lats {
            j.dir[0].clat.record(l);
            j.lat_buckets.record(l);
        }
        let groups = vec![GroupReport {
            dir: [
                ferrio_report::GroupDir {
                    io_bytes: ios * 4096,
                    agg_bw: ios * 4096,
                    min_bw: ios * 4096,
                    max_bw: ios * 4096,
                    min_run_ms: 1000,
                    max_run_ms: 1000,
                },
                Default::default(),
                Default::default(),
            ],
            ..Default::default()
        }];
        RunReport {
            jobs: vec![j],
            groups,
            ..Default::default()
        }
    }

    #[test]
    fn all_clients_adds_exactly_and_merges_percentiles_from_histograms() {
        let a = report(3, &[1_000, 1_000, 1_000]);
        let b = report(1, &[9_000_000]);
        let all = all_clients(&[&a, &b]).unwrap();
        let j = &all.jobs[0];
        assert_eq!(j.name, "All clients");
        assert_eq!(j.dir[0].total_ios, 4);
        assert_eq!(j.dir[0].io_bytes, 4 * 4096);
        assert_eq!(j.nr_threads, 2);
        assert_eq!(j.dir[0].clat.count(), 4);
        assert_eq!(j.lat_buckets.total(), 4);
        assert_eq!(all.groups[0].dir[0].io_bytes, 4 * 4096);
        assert_eq!(all.groups[0].dir[0].agg_bw, 4 * 4096);
        assert_eq!(all.groups[0].dir[0].min_bw, 4096);
        // The median of the pooled samples is a 1 µs one; averaging the hosts'
        // medians would give ~4.5 ms.
        let p50 = j.dir[0].clat.percentiles(&[50.0])[0];
        assert!(p50 < 2_000, "{p50}");
        let rows = [Row::of(&a), Row::of(&b)];
        let t = Row::total(&[&rows[0], &rows[1]]);
        assert_eq!((t.ios, t.bytes), (4, 4 * 4096));
        assert_eq!(t.iops, 4.0);
        assert!(t.p99_ns() >= 8_000_000, "{}", t.p99_ns());
        assert!(all_clients(&[]).is_none());
    }

    #[test]
    fn extra_statistics_of_all_clients_combine_by_their_rules() {
        use ferrio_report::extra::{ExtraMerge, ExtraStat};
        let with = |inflight: f64, pool: f64| {
            let mut r = report(1, &[1_000]);
            r.jobs[0].extra = vec![
                ExtraStat::new(
                    "sim_buffers_in_flight_mean",
                    "sim",
                    "in_flight_mean",
                    inflight,
                ),
                ExtraStat::new("sim_buffers", "sim", "buffers", pool).merged_by(ExtraMerge::Max),
            ];
            r
        };
        let (a, b, c) = (with(1.5, 8.0), with(2.25, 16.0), report(1, &[1_000]));
        let all = all_clients(&[&a, &b, &c]).unwrap();
        let x = &all.jobs[0].extra;
        assert_eq!(x.len(), 2, "{x:?}");
        assert_eq!(x[0].value, 3.75);
        assert_eq!(x[1].value, 16.0);
        // A host without them first: the others' still reach the aggregate.
        let all = all_clients(&[&c, &a]).unwrap();
        assert_eq!(all.jobs[0].extra.len(), 2);
    }
}
