//! fio's log-linear latency histogram, extended past fio's ~17 s ceiling.
//!
//! CONTRACT (implemented by the stats owner; signatures are relied on elsewhere):
//! values are nanoseconds; buckets are grouped by most significant bit with 64
//! sub-buckets per group exactly as fio's `plat_val_to_idx`/`plat_idx_to_val`
//! (FIO_IO_U_PLAT_BITS = 6), so for values fio can hold, bucket boundaries,
//! bucket representative values ("bins" keys in json+) and percentiles are
//! identical to fio's. Groups continue up to u64::MAX instead of stopping at 29.
//! min/max/mean/stddev are exact (not from buckets), computed like fio's
//! `add_stat_sample` (running mean and sum of squares in f64).

/// A mergeable latency histogram with exact min/max/mean/stddev.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    _todo: (),
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        todo!()
    }
    /// Record one value in nanoseconds. O(1), no allocation.
    #[inline]
    pub fn record(&mut self, _ns: u64) {
        todo!()
    }
    /// Add every sample of `other` into `self`.
    pub fn merge(&mut self, _other: &LatencyHistogram) {
        todo!()
    }
    /// Number of samples recorded.
    pub fn count(&self) -> u64 {
        todo!()
    }
    /// Smallest value (0 when empty).
    pub fn min(&self) -> u64 {
        todo!()
    }
    /// Largest value (0 when empty).
    pub fn max(&self) -> u64 {
        todo!()
    }
    /// Exact mean (0.0 when empty).
    pub fn mean(&self) -> f64 {
        todo!()
    }
    /// Sample standard deviation as fio computes it (0.0 with fewer than 2 samples).
    pub fn stddev(&self) -> f64 {
        todo!()
    }
    /// Percentiles as fio's `calc_clat_percentiles` computes them: for each p in
    /// `list` (in percent, e.g. 99.9) the representative value of the first bucket
    /// where the cumulative count reaches p/100 * N. Returns values in input order.
    pub fn percentiles(&self, _list: &[f64]) -> Vec<u64> {
        todo!()
    }
    /// Non-empty buckets as (representative value in ns, count), ascending: json+ "bins".
    pub fn bins(&self) -> Vec<(u64, u64)> {
        todo!()
    }
}
