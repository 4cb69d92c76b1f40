//! Per-interval samples of each job (ferrio's addition to fio's JSON, under the
//! top-level key `"ferrio_intervals"`, which fio's tools ignore): bytes, I/Os and the
//! latency distribution of every interval, for `--compare`'s confidence intervals
//! and the HTML report's charts over time.

use ferrio_stats::steadystate::SparseHistogram;

/// The latency percentiles printed per interval.
pub const PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

/// One direction during one interval.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntervalDir {
    pub bytes: u64,
    pub ios: u64,
    /// Total latency (`lat`; `clat` when lat is not recorded) of the I/Os completed.
    pub lat: SparseHistogram,
}

/// One interval: it ended `t_ms` after the job's measured phase began.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interval {
    pub t_ms: u64,
    pub dir: [IntervalDir; 3],
}

/// One interval of one direction, as rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// End of the interval, ms after the measured phase began.
    pub t_ms: u64,
    /// Bytes per second.
    pub bw: f64,
    pub iops: f64,
    pub lat_mean_ns: f64,
    /// Latency at [`PERCENTILES`], ns.
    pub lat_pct_ns: [u64; 4],
}

/// One job's intervals (`job` indexes `RunReport::jobs`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSeries {
    pub job: usize,
    pub interval_ms: u64,
    pub intervals: Vec<Interval>,
}

impl JobSeries {
    /// Add another thread's intervals of the same job (numjobs, group_reporting):
    /// interval by interval, counts and latencies add up.
    pub fn merge(&mut self, other: &JobSeries) {
        for (i, o) in other.intervals.iter().enumerate() {
            if i == self.intervals.len() {
                self.intervals.push(o.clone());
                continue;
            }
            let s = &mut self.intervals[i];
            s.t_ms = s.t_ms.max(o.t_ms);
            for (a, b) in s.dir.iter_mut().zip(&o.dir) {
                a.bytes += b.bytes;
                a.ios += b.ios;
                a.lat.add(&b.lat);
            }
        }
    }

    /// Direction `d`'s intervals as rates; intervals with no I/O in `d` are skipped.
    pub fn rows(&self, d: usize) -> Vec<Row> {
        let mut prev = 0;
        let mut out = Vec::new();
        for iv in &self.intervals {
            let span_s = iv.t_ms.saturating_sub(prev).max(1) as f64 / 1000.0;
            prev = iv.t_ms;
            let x = &iv.dir[d];
            if x.ios == 0 {
                continue;
            }
            let p = x.lat.percentiles(&PERCENTILES);
            out.push(Row {
                t_ms: iv.t_ms,
                bw: x.bytes as f64 / span_s,
                iops: x.ios as f64 / span_s,
                lat_mean_ns: x.lat.mean(),
                lat_pct_ns: [p[0], p[1], p[2], p[3]],
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_stats::LatencyHistogram;

    fn interval(t_ms: u64, ios: u64, lat_ns: u64) -> Interval {
        let mut h = LatencyHistogram::new();
        for _ in 0..ios {
            h.record(lat_ns);
        }
        let mut iv = Interval {
            t_ms,
            ..Default::default()
        };
        iv.dir[0] = IntervalDir {
            bytes: ios * 4096,
            ios,
            lat: SparseHistogram::between(&h, &LatencyHistogram::new()),
        };
        iv
    }

    #[test]
    fn rows_are_rates_over_each_interval_and_merging_adds_threads() {
        let mut a = JobSeries {
            job: 0,
            interval_ms: 500,
            intervals: vec![interval(500, 100, 1000), interval(1000, 200, 1000)],
        };
        let r = a.rows(0);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].t_ms, r[0].iops), (500, 200.0));
        assert_eq!(r[1].iops, 400.0);
        assert_eq!(r[1].bw, 400.0 * 4096.0);
        assert!((r[0].lat_mean_ns - 1000.0).abs() < 1e-6);
        assert!(a.rows(1).is_empty());
        let b = JobSeries {
            job: 0,
            interval_ms: 500,
            intervals: vec![interval(500, 100, 3000)],
        };
        a.merge(&b);
        let r = a.rows(0);
        assert_eq!(r[0].iops, 400.0);
        assert!((r[0].lat_mean_ns - 2000.0).abs() < 1e-6);
        assert!(r[0].lat_pct_ns[3] >= 2900, "{:?}", r[0].lat_pct_ns);
        assert_eq!(r[1].iops, 400.0);
    }
}
