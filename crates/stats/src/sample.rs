//! Running statistics of periodic samples (bw and IOPS samples): fio's `io_stat`.
//!
//! fio feeds these with integer rates (KiB/s or IO/s per averaging window) and prints
//! min/max as integers; ferrio accepts f64 so a caller may pass fractional rates, and
//! the printers truncate min/max the way fio's integer fields would hold them.

use crate::welford::{merge_moments, stddev, step};

/// min/max/mean/stddev/samples of a series, computed like fio's `add_stat_sample`
/// (Welford's running mean and variance in f64). Mergeable like fio's `sum_stat`:
/// [`SampleStats::merge`] pools samples (per-thread merge), [`SampleStats::merge_sum`]
/// adds rates of threads running in parallel (group_reporting's bw/IOPS).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SampleStats {
    samples: u64,
    min: f64,
    max: f64,
    mean: f64,
    s: f64,
}

impl SampleStats {
    /// Add one sample.
    pub fn add(&mut self, value: f64) {
        if self.samples == 0 || value > self.max {
            self.max = value;
        }
        if self.samples == 0 || value < self.min {
            self.min = value;
        }
        step(&mut self.mean, &mut self.s, self.samples, value);
        self.samples += 1;
    }

    /// Pool the samples of `other` into `self`: fio's `sum_stat(dst, src, false)`
    /// (min of mins, max of maxes, parallel-Welford mean and S).
    pub fn merge(&mut self, other: &SampleStats) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = other.clone();
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        (self.mean, self.s) = merge_moments(
            self.mean,
            self.s,
            self.samples,
            other.mean,
            other.s,
            other.samples,
        );
        self.samples += other.samples;
    }

    /// Add the rates of a thread that ran beside `self`'s: fio's
    /// `sum_stat(dst, src, true)`, used for bw/IOPS under group_reporting. min, max,
    /// samples, mean and S are all summed (a copy when `self` is empty).
    pub fn merge_sum(&mut self, other: &SampleStats) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = other.clone();
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.samples += other.samples;
        self.mean += other.mean;
        self.s += other.s;
    }

    /// Number of samples.
    pub fn samples(&self) -> u64 {
        self.samples
    }
    /// Smallest sample (0 when empty).
    pub fn min(&self) -> f64 {
        self.min
    }
    /// Largest sample (0 when empty).
    pub fn max(&self) -> f64 {
        self.max
    }
    /// Mean (0 when empty).
    pub fn mean(&self) -> f64 {
        self.mean
    }
    /// sqrt(S / (n - 1)); 0 with fewer than two samples.
    pub fn stddev(&self) -> f64 {
        stddev(self.s, self.samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_zero() {
        let s = SampleStats::default();
        assert_eq!(
            (s.samples(), s.min(), s.max(), s.mean(), s.stddev()),
            (0, 0.0, 0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn basic_series() {
        let mut s = SampleStats::default();
        for v in [100.0, 200.0, 300.0] {
            s.add(v);
        }
        assert_eq!(
            (s.samples(), s.min(), s.max(), s.mean()),
            (3, 100.0, 300.0, 200.0)
        );
        assert!((s.stddev() - 100.0).abs() < 1e-12);
    }

    /// fio 3.33, `--ioengine=null --rw=read --bs=4k --time_based --runtime=2
    /// --rate_iops=1000 --numjobs=2 --group_reporting`: fio printed bw_min 8000,
    /// bw_max 8016, bw_mean 8008.000000, bw_dev 4.131182, bw_samples 6 for the group,
    /// which is the pure sum of two threads with samples {4000, 4000, 4008} and
    /// {4000, 4008, 4008} KiB/s (integer series that give exactly those numbers).
    #[test]
    fn group_reporting_sum_matches_fio() {
        let mut t = SampleStats::default();
        for v in [4000.0, 4000.0, 4008.0] {
            t.add(v);
        }
        let mut t2 = SampleStats::default();
        for v in [4000.0, 4008.0, 4008.0] {
            t2.add(v);
        }
        let mut g = SampleStats::default();
        g.merge_sum(&t);
        g.merge_sum(&t2);
        assert_eq!((g.min(), g.max(), g.samples()), (8000.0, 8016.0, 6));
        assert_eq!(format!("{:.6}", g.mean()), "8008.000000");
        assert_eq!(format!("{:.6}", g.stddev()), "4.131182");
        // A single such thread (json_fio333_null_timebased_plus.json): fio printed
        // bw_mean 4002.666667, bw_dev 4.618802.
        assert_eq!(
            format!("{:.6} {:.6}", t.mean(), t.stddev()),
            "4002.666667 4.618802"
        );
    }

    #[test]
    fn merge_pools_and_merge_sum_adds() {
        let mut a = SampleStats::default();
        let mut b = SampleStats::default();
        a.add(10.0);
        a.add(20.0);
        b.add(30.0);
        b.add(50.0);
        let mut pooled = a.clone();
        pooled.merge(&b);
        assert_eq!(
            (pooled.samples(), pooled.min(), pooled.max(), pooled.mean()),
            (4, 10.0, 50.0, 27.5)
        );
        // S = 17.5^2 + 7.5^2 + 2.5^2 + 22.5^2 = 875.
        assert!((pooled.stddev() - (875.0f64 / 3.0).sqrt()).abs() < 1e-9);
        let mut summed = a.clone();
        summed.merge_sum(&b);
        assert_eq!(
            (summed.samples(), summed.min(), summed.max(), summed.mean()),
            (4, 40.0, 70.0, 55.0)
        );
        let mut from_empty = SampleStats::default();
        from_empty.merge_sum(&a);
        assert_eq!(from_empty, a);
        from_empty.merge(&SampleStats::default());
        assert_eq!(from_empty, a);
    }
}
