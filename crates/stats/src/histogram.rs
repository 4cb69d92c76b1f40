//! fio's log-linear latency histogram, extended past fio's ~17 s ceiling.
//!
//! Values are nanoseconds. Buckets are grouped by most significant bit with 64
//! sub-buckets per group exactly as fio's `plat_val_to_idx`/`plat_idx_to_val`
//! (FIO_IO_U_PLAT_BITS = 6): values below 128 have a bucket each, larger values
//! lose `msb - 6` low bits. For every value fio can hold (below 2^34 ns, about 17.2 s) the bucket
//! boundaries, the representative values ("bins" keys in json+) and the percentiles
//! are identical to fio's; fio clamps larger values into its last bucket, ferrio keeps
//! adding groups up to u64::MAX instead (fio issue #1668).
//!
//! min/max/mean/stddev are exact (not from buckets): integer sums of the values and
//! their squares (`moments.rs`), where fio keeps a running mean in doubles.

use crate::moments::Moments;
use crate::threshold::reached;

/// fio's FIO_IO_U_PLAT_BITS: log2 of the number of sub-buckets per group.
pub const PLAT_BITS: u32 = 6;
/// Sub-buckets per group (fio's FIO_IO_U_PLAT_VAL).
pub const PLAT_VAL: usize = 1 << PLAT_BITS;
/// Number of buckets fio has (FIO_IO_U_PLAT_GROUP_NR 29 * 64): values from 2^34 ns
/// (about 17.2 s) on all land in fio's last bucket.
pub const FIO_PLAT_NR: usize = 29 * PLAT_VAL;
/// Representative value of fio's last bucket (index 1855), ~17.1 s.
pub const FIO_MAX_BIN: u64 = plat_idx_to_val(FIO_PLAT_NR - 1);
/// Number of buckets ferrio has: enough groups for every u64 (index of u64::MAX + 1).
pub const PLAT_NR: usize = (64 - PLAT_BITS as usize + 1) * PLAT_VAL;

/// The bucket index of a value: fio's `plat_val_to_idx` without the clamp.
#[inline]
///
/// Without branches: with `e` = max(msb - 6, 0) lost bits, `val >> e` is the value
/// itself below 128 and `64 + offset` above, so `(e << 6) + (val >> e)` is fio's
/// `base + offset` (base = (e + 1) << 6) in every case (`val | 1`: 0 has msb 0 too).
pub const fn plat_val_to_idx(val: u64) -> usize {
    let msb = 63 - (val | 1).leading_zeros();
    let error_bits = msb.saturating_sub(PLAT_BITS);
    ((error_bits as usize) << PLAT_BITS) + (val >> error_bits) as usize
}

/// The representative value of a bucket: fio's `plat_idx_to_val`, the midpoint
/// `base + (k + 0.5) * 2^error_bits` (always an integer since error_bits >= 1).
///
/// Panics if `idx >= PLAT_NR`.
#[inline]
pub const fn plat_idx_to_val(idx: usize) -> u64 {
    assert!(idx < PLAT_NR);
    if idx < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as u64;
    base + (k << error_bits) + (1u64 << (error_bits - 1))
}

/// The smallest value of bucket `idx`.
fn bucket_low(idx: usize) -> u64 {
    if idx < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    (1u64 << (error_bits + PLAT_BITS)) + (((idx % PLAT_VAL) as u64) << error_bits)
}

/// The largest value of bucket `idx`.
fn bucket_high(idx: usize) -> u64 {
    if idx < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    bucket_low(idx).saturating_add((1u64 << error_bits) - 1)
}

/// A mergeable latency histogram with exact min/max/mean/stddev.
///
/// The bucket array (about 30 KiB) is allocated on the first sample: a thread keeps
/// ten histograms and typically fills one or two, so unused ones cost no memory. An
/// unallocated array reads as all zeros everywhere (equality included).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LatencyHistogram {
    /// Empty until the first sample, then PLAT_NR long.
    buckets: Box<[u64]>,
    stat: Moments,
}

impl PartialEq for LatencyHistogram {
    fn eq(&self, other: &Self) -> bool {
        if self.stat != other.stat {
            return false;
        }
        match (self.buckets.is_empty(), other.buckets.is_empty()) {
            (false, false) => self.buckets == other.buckets,
            (true, true) => true,
            (true, false) => other.buckets.iter().all(|&c| c == 0),
            (false, true) => self.buckets.iter().all(|&c| c == 0),
        }
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram. Allocates nothing: the bucket array comes with the first
    /// sample.
    pub fn new() -> Self {
        LatencyHistogram {
            buckets: Box::default(),
            stat: Moments::default(),
        }
    }

    /// The bucket array, allocated (zeroed) on first use.
    #[inline]
    fn buckets_mut(&mut self) -> &mut [u64] {
        if self.buckets.is_empty() {
            self.allocate();
        }
        &mut self.buckets
    }

    #[cold]
    #[inline(never)]
    fn allocate(&mut self) {
        self.buckets = vec![0u64; PLAT_NR].into_boxed_slice();
    }

    /// Record one value in nanoseconds. O(1); allocates only on the first sample.
    /// (Always inlined: the I/O loop records two per I/O, and a call costs more
    /// than the record.)
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.buckets_mut()[plat_val_to_idx(ns)] += 1;
        self.stat.add(ns);
    }

    /// Record `n` copies of a value, in O(1) (the same as `n` calls of `record`).
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.buckets_mut()[plat_val_to_idx(ns)] += n;
        self.stat.add_n(ns, n);
    }

    /// Add every sample of `other` into `self` (fio's `sum_stat` for the statistics,
    /// here exact, and a bucket-wise sum for the histogram).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        if !other.buckets.is_empty() {
            for (d, s) in self.buckets_mut().iter_mut().zip(other.buckets.iter()) {
                *d += *s;
            }
        }
        self.stat.merge(&other.stat);
    }

    /// The samples recorded since `earlier`, a previous copy of this same histogram
    /// (per-interval statistics from cumulative ones). Buckets, count, mean and S are
    /// exact (differences of integer sums). min and max are exact when the interval
    /// moved the cumulative extreme; otherwise they are the bounds of the interval's
    /// lowest and highest non-empty buckets (within fio's bucket error, <= 1/64), so
    /// that min <= every sample <= max still holds. Returns an empty histogram if
    /// `earlier` is not a prefix of `self` (e.g. after a reset).
    pub fn delta(&self, earlier: &LatencyHistogram) -> LatencyHistogram {
        let mut out = LatencyHistogram::new();
        let (n2, n1) = (self.stat.samples, earlier.stat.samples);
        if n2 <= n1 {
            return out;
        }
        let mut lo = None;
        let mut hi = 0;
        // An unallocated earlier histogram counts as all zeros.
        let earlier_buckets = earlier
            .buckets
            .iter()
            .chain(std::iter::repeat(&0u64))
            .take(self.buckets.len());
        for (i, (d, (a, b))) in out
            .buckets_mut()
            .iter_mut()
            .zip(self.buckets.iter().zip(earlier_buckets))
            .enumerate()
        {
            let Some(c) = a.checked_sub(*b) else {
                return LatencyHistogram::new();
            };
            *d = c;
            if c > 0 {
                lo.get_or_insert(i);
                hi = i;
            }
        }
        let min = if n1 == 0 || self.stat.min < earlier.stat.min {
            self.stat.min
        } else {
            lo.map(bucket_low).unwrap_or(0).max(self.stat.min)
        };
        let max = if n1 == 0 || self.stat.max > earlier.stat.max {
            self.stat.max
        } else {
            bucket_high(hi).min(self.stat.max)
        };
        match self.stat.since(&earlier.stat, min, max) {
            Some(stat) => out.stat = stat,
            None => return LatencyHistogram::new(),
        }
        out
    }

    /// Number of samples recorded.
    pub fn count(&self) -> u64 {
        self.stat.samples
    }

    /// Smallest value (0 when empty).
    pub fn min(&self) -> u64 {
        if self.stat.samples == 0 {
            0
        } else {
            self.stat.min
        }
    }

    /// Largest value (0 when empty).
    pub fn max(&self) -> u64 {
        self.stat.max
    }

    /// Exact mean (0.0 when empty).
    pub fn mean(&self) -> f64 {
        self.stat.mean()
    }

    /// Sample standard deviation as fio computes it: sqrt(S / (n - 1)), 0.0 with
    /// fewer than 2 samples.
    pub fn stddev(&self) -> f64 {
        self.stat.stddev()
    }

    /// Number of samples in the bucket with index `idx` (see [`plat_val_to_idx`]).
    pub fn bucket(&self, idx: usize) -> u64 {
        assert!(idx < PLAT_NR, "bucket index {idx} out of range");
        self.buckets.get(idx).copied().unwrap_or(0)
    }

    /// Percentiles as fio's `calc_clat_percentiles` computes them: for each p in
    /// `list` (in percent, e.g. 99.9) the representative value of the first bucket
    /// where the cumulative count reaches p/100 * N (compared in x87 extended
    /// precision like fio). Returns values in input order (fio prints its list
    /// sorted ascending; callers that print must sort). Every value is 0 when the
    /// histogram is empty.
    pub fn percentiles(&self, list: &[f64]) -> Vec<u64> {
        let mut out = vec![0u64; list.len()];
        let nr = self.stat.samples;
        if nr == 0 || list.is_empty() {
            return out;
        }
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_by(|&a, &b| list[a].total_cmp(&list[b]));
        let mut j = 0;
        let mut sum = 0u64;
        'buckets: for (i, &c) in self.buckets.iter().enumerate() {
            sum += c;
            while reached(sum, list[order[j]], nr) {
                out[order[j]] = plat_idx_to_val(i);
                j += 1;
                if j == order.len() {
                    break 'buckets;
                }
            }
        }
        out
    }

    /// Non-empty buckets as (representative value in ns, count), ascending, with
    /// every bucket fio does not have folded into fio's last one (representative
    /// [`FIO_MAX_BIN`]): exactly the bins fio itself would hold. (json+ prints
    /// [`LatencyHistogram::bins`], the full range.)
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        if self.buckets.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<(u64, u64)> = self.buckets[..FIO_PLAT_NR - 1]
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, &c)| (plat_idx_to_val(i), c))
            .collect();
        let tail: u64 = self.buckets[FIO_PLAT_NR - 1..].iter().sum();
        if tail != 0 {
            out.push((FIO_MAX_BIN, tail));
        }
        out
    }

    /// Non-empty buckets as (representative value in ns, count), ascending, including
    /// those beyond fio's range (json+ "bins"). Where fio has the bucket the key is
    /// fio's; past it, the same formula goes on.
    pub fn bins(&self) -> Vec<(u64, u64)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, &c)| (plat_idx_to_val(i), c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_map_to_themselves() {
        for v in 0..128u64 {
            assert_eq!(plat_val_to_idx(v), v as usize);
            assert_eq!(plat_idx_to_val(v as usize), v);
        }
    }

    #[test]
    fn first_rounded_group_by_hand() {
        // msb 7: error_bits 1, base (1+1)<<6 = 128, offset (v >> 1) & 63.
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        assert_eq!(plat_val_to_idx(255), 191);
        // Representative: 128 + (0 + 0.5) * 2 = 129.
        assert_eq!(plat_idx_to_val(128), 129);
        assert_eq!(plat_idx_to_val(191), 128 + 63 * 2 + 1);
        // msb 8: error_bits 2, base 192.
        assert_eq!(plat_val_to_idx(256), 192);
        assert_eq!(plat_idx_to_val(192), 258);
    }

    #[test]
    fn large_values_by_hand() {
        // 1_000_000 ns: msb 19, error_bits 13, base 14*64 = 896,
        // offset (1_000_000 >> 13) & 63 = 122 & 63 = 58 -> idx 954;
        // value 2^19 + 58.5 * 2^13 = 524288 + 475136 + 4096 = 1003520.
        assert_eq!(plat_val_to_idx(1_000_000), 954);
        assert_eq!(plat_idx_to_val(954), 1_003_520);
        // fio's last bucket (1855) ends at 2^34 - 1 ns (~17.2 s).
        assert_eq!(plat_val_to_idx((1 << 34) - 1), FIO_PLAT_NR - 1);
        assert_eq!(plat_val_to_idx(1 << 34), FIO_PLAT_NR);
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        assert_eq!(
            plat_idx_to_val(PLAT_NR - 1),
            (1u64 << 63) + (63u64 << 57) + (1u64 << 56)
        );
    }

    #[test]
    fn fio_printed_bins_are_representatives() {
        // Keys from a real fio 3.33 json+ run (psync randrw 4k on tmpfs).
        for v in [
            50432u64, 50944, 51456, 51968, 52480, 52992, 53504, 54016, 58112, 62208, 64768, 67072,
            69120, 71168, 74240, 78336, 91648, 92672, 99840, 226304,
        ] {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v, "{v}");
        }
        // ...and a non-representative is not one.
        assert_ne!(plat_idx_to_val(plat_val_to_idx(50433)), 50433);
    }

    /// fio's plat_val_to_idx as fio writes it (branches, no clamp): the branch-free
    /// index must agree on every value.
    fn fio_idx(val: u64) -> usize {
        let msb = if val == 0 {
            0
        } else {
            63 - val.leading_zeros()
        };
        if msb <= PLAT_BITS {
            return val as usize;
        }
        let error_bits = msb - PLAT_BITS;
        (((error_bits + 1) as usize) << PLAT_BITS) + ((PLAT_VAL - 1) & (val >> error_bits) as usize)
    }

    #[test]
    fn branch_free_index_is_fios() {
        for v in (0..70_000u64).chain((0..64).flat_map(|b| {
            let p = 1u64 << b;
            [
                p - 1,
                p,
                p + 1,
                p | (p >> 1),
                p.wrapping_mul(3) / 2,
                u64::MAX >> b,
            ]
        })) {
            assert_eq!(plat_val_to_idx(v), fio_idx(v), "{v}");
        }
    }

    #[test]
    fn representative_is_inside_its_bucket() {
        for idx in 0..PLAT_NR {
            let v = plat_idx_to_val(idx);
            assert_eq!(plat_val_to_idx(v), idx, "idx {idx}");
        }
    }

    #[test]
    fn stats_of_small_set() {
        let mut h = LatencyHistogram::new();
        assert_eq!((h.count(), h.min(), h.max()), (0, 0, 0));
        assert_eq!(h.percentiles(&[50.0]), vec![0]);
        for v in [10u64, 20, 30, 40] {
            h.record(v);
        }
        assert_eq!((h.count(), h.min(), h.max()), (4, 10, 40));
        assert_eq!(h.mean(), 25.0);
        // S = 15^2 + 5^2 + 5^2 + 15^2 = 500; sqrt(500 / 3).
        assert!((h.stddev() - (500.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(h.bins(), vec![(10, 1), (20, 1), (30, 1), (40, 1)]);
        // 25% of 4 = 1 -> first bucket; 50% -> 2nd; 75.1% -> 4th.
        assert_eq!(h.percentiles(&[75.1, 25.0, 50.0]), vec![40, 10, 20]);
    }

    #[test]
    fn single_sample_has_zero_stddev() {
        let mut h = LatencyHistogram::new();
        h.record(5);
        assert_eq!(h.stddev(), 0.0);
        assert_eq!(h.min(), 5);
    }

    #[test]
    fn beyond_fio_ceiling() {
        let mut h = LatencyHistogram::new();
        let hour = 3_600_000_000_000u64;
        h.record(100_000_000_000);
        h.record(hour);
        let p = h.percentiles(&[50.0, 100.0]);
        assert!((p[0] as f64 / 1e11 - 1.0).abs() <= 1.0 / 128.0);
        assert!((p[1] as f64 / hour as f64 - 1.0).abs() <= 1.0 / 128.0);
        assert_eq!(h.max(), hour);
    }

    #[test]
    fn fio_bins_fold_the_extension_into_fios_last_bucket() {
        assert_eq!(FIO_MAX_BIN, 17_112_760_320);
        let mut h = LatencyHistogram::new();
        h.record(5);
        h.record(FIO_MAX_BIN);
        h.record(100_000_000_000);
        h.record(3_600_000_000_000);
        assert_eq!(h.fio_bins(), vec![(5, 1), (FIO_MAX_BIN, 3)]);
        assert_eq!(h.bins().len(), 4);
        let mut small = LatencyHistogram::new();
        small.record(1000);
        assert_eq!(small.fio_bins(), small.bins());
    }

    #[test]
    fn delta_is_the_interval() {
        let mut cum = LatencyHistogram::new();
        for v in [100u64, 5000, 70_000, 90] {
            cum.record(v);
        }
        let before = cum.clone();
        let mut interval = LatencyHistogram::new();
        for v in [300u64, 400, 1_000_000, 250] {
            cum.record(v);
            interval.record(v);
        }
        let d = cum.delta(&before);
        assert_eq!(d.count(), 4);
        assert_eq!(d.bins(), interval.bins());
        assert!((d.mean() - interval.mean()).abs() < 1e-6);
        assert!((d.stddev() - interval.stddev()).abs() < 1e-6 * interval.stddev());
        // The maximum moved: exact. The minimum did not: its bucket's lower bound.
        assert_eq!(d.max(), 1_000_000);
        assert_eq!(d.min(), 250);
        let mut more = cum.clone();
        more.record(70_001);
        let one = more.delta(&cum);
        assert_eq!((one.min(), one.max()), (69_632, 70_655));
        for idx in [0, 127, 128, 129, 500, PLAT_NR - 1] {
            assert_eq!(plat_val_to_idx(bucket_low(idx)), idx);
            assert_eq!(plat_val_to_idx(bucket_high(idx)), idx);
        }
        let p = [50.0, 99.0];
        assert_eq!(d.percentiles(&p), interval.percentiles(&p));
        // Nothing new, or not a prefix: empty.
        assert_eq!(cum.delta(&cum).count(), 0);
        assert_eq!(before.delta(&cum).count(), 0);
        // From empty: a copy.
        assert_eq!(cum.delta(&LatencyHistogram::new()), cum);
    }

    #[test]
    fn buckets_are_allocated_on_the_first_sample_only() {
        let empty = LatencyHistogram::new();
        assert!(empty.buckets.is_empty());
        assert_eq!(empty.bucket(5), 0);
        assert_eq!(empty.bucket(PLAT_NR - 1), 0);
        assert!(empty.bins().is_empty());
        assert!(empty.fio_bins().is_empty());
        assert_eq!(empty.percentiles(&[50.0, 99.0]), vec![0, 0]);
        assert_eq!(empty, LatencyHistogram::default());
        // Merging empties allocates nothing; an allocated all-zero histogram equals an
        // unallocated one.
        let mut m = LatencyHistogram::new();
        m.merge(&empty);
        assert!(m.buckets.is_empty());
        assert_eq!(m, empty);
        let mut zeroed = LatencyHistogram::new();
        zeroed.allocate();
        assert_eq!(zeroed, empty);
        assert_eq!(empty, zeroed);
        // record_n of nothing leaves it empty; the first record allocates.
        m.record_n(10, 0);
        assert!(m.buckets.is_empty());
        m.record(10);
        assert_eq!(m.buckets.len(), PLAT_NR);
        assert_ne!(m, empty);
        // Merging a full histogram into an empty one copies it, both ways round.
        let mut into_empty = LatencyHistogram::new();
        into_empty.merge(&m);
        assert_eq!(into_empty, m);
        let mut full = m.clone();
        full.merge(&empty);
        assert_eq!(full, m);
        // Deltas against an unallocated earlier copy.
        assert_eq!(m.delta(&empty), m);
        assert_eq!(empty.delta(&empty).count(), 0);
        assert_eq!(m.delta(&m).count(), 0);
    }

    #[test]
    fn record_n_equals_repeated_record() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        a.record_n(1234, 3);
        a.record_n(99, 0);
        for _ in 0..3 {
            b.record(1234);
        }
        assert_eq!(a, b);
    }
}
