//! The exact running statistics of a latency histogram: count, min, max, and the sums
//! of the values and of their squares, kept in integers.
//!
//! fio keeps a running mean and sum of squared deviations in doubles (Welford's
//! method, `add_stat_sample`): one division on the critical path of every sample,
//! three per asynchronous I/O (slat, clat, lat). Integer sums cost an add and a
//! multiply instead, and are exact: the mean is `sum / n` rounded once, the sum of
//! squared deviations `S = (n·Σv² − (Σv)²) / n` is computed exactly in 256 bits and
//! rounded once, merging is addition, and the samples between two copies of one
//! histogram (per-interval statistics) are a subtraction. The results agree with
//! fio's to the last digit or two of a double; fio's own rounding, which differs
//! with the order of the samples, is not reproduced.
//!
//! Σv fits a u128 for any count of u64 values; Σv² is kept in 192 bits (a u128 and
//! the carries out of it), which no count of u64 values can overflow.

/// Count, min, max, Σv and Σv² of the values recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Moments {
    pub samples: u64,
    /// u64::MAX while empty, like fio's initial min_val.
    pub min: u64,
    pub max: u64,
    sum: u128,
    /// Σv² modulo 2^128 ...
    sq_lo: u128,
    /// ... and the carries out of it.
    sq_hi: u64,
}

impl Default for Moments {
    fn default() -> Self {
        Moments {
            samples: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sq_lo: 0,
            sq_hi: 0,
        }
    }
}

/// a · b as 192 bits: (low 128, high 64).
fn mul_128_64(a: u128, b: u64) -> (u128, u64) {
    let (a_lo, a_hi) = (a as u64 as u128, a >> 64);
    let lo = a_lo * b as u128;
    let hi = a_hi * b as u128 + (lo >> 64);
    ((hi << 64) | (lo as u64 as u128), (hi >> 64) as u64)
}

/// a · b as 256 bits: (low 128, high 128).
fn mul_128_128(a: u128, b: u128) -> (u128, u128) {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    // The middle column: three terms below 2^128 each, summed with their carries.
    let mid = (p00 >> 64) + (p01 as u64 as u128) + (p10 as u64 as u128);
    let lo = (mid << 64) | (p00 as u64 as u128);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (lo, hi)
}

/// A 256-bit (low, high) value as the nearest-ish double (two roundings).
fn u256_to_f64(lo: u128, hi: u128) -> f64 {
    hi as f64 * 2f64.powi(128) + lo as f64
}

impl Moments {
    /// Record one value.
    #[inline(always)]
    pub fn add(&mut self, v: u64) {
        if v > self.max {
            self.max = v;
        }
        if v < self.min {
            self.min = v;
        }
        self.samples += 1;
        self.sum += v as u128;
        let (lo, carry) = self.sq_lo.overflowing_add(v as u128 * v as u128);
        self.sq_lo = lo;
        self.sq_hi += carry as u64;
    }

    /// Record `n` copies of one value (the same as `n` calls of `add`).
    pub fn add_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.max = self.max.max(v);
        self.min = self.min.min(v);
        self.samples += n;
        self.sum += v as u128 * n as u128;
        let (lo, hi) = mul_128_64(v as u128 * v as u128, n);
        self.add_squares(lo, hi);
    }

    fn add_squares(&mut self, lo: u128, hi: u64) {
        let (sum, carry) = self.sq_lo.overflowing_add(lo);
        self.sq_lo = sum;
        self.sq_hi += hi + carry as u64;
    }

    /// Add every sample of `other` (fio's `sum_stat`, exactly).
    pub fn merge(&mut self, other: &Moments) {
        if other.samples == 0 {
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.samples += other.samples;
        self.sum += other.sum;
        self.add_squares(other.sq_lo, other.sq_hi);
    }

    /// The samples recorded after `earlier`, a previous copy of these moments: count
    /// and sums exact; min and max are the caller's (`min`, `max`). None if `earlier`
    /// is not a prefix (it has more of anything).
    pub fn since(&self, earlier: &Moments, min: u64, max: u64) -> Option<Moments> {
        let samples = self.samples.checked_sub(earlier.samples)?;
        let sum = self.sum.checked_sub(earlier.sum)?;
        let (sq_lo, borrow) = self.sq_lo.overflowing_sub(earlier.sq_lo);
        let sq_hi = self
            .sq_hi
            .checked_sub(earlier.sq_hi)?
            .checked_sub(borrow as u64)?;
        Some(Moments {
            samples,
            min,
            max,
            sum,
            sq_lo,
            sq_hi,
        })
    }

    /// The mean, 0.0 when empty.
    pub fn mean(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum as f64 / self.samples as f64
        }
    }

    /// The sum of squared deviations from the mean, S = (n·Σv² − (Σv)²) / n: the
    /// numerator exact in 256 bits (it is never negative), then one division.
    pub fn s(&self) -> f64 {
        if self.samples < 2 {
            return 0.0;
        }
        let n = self.samples;
        // n·Σv² = n·sq_lo + (n·sq_hi) << 128
        let (a_lo, a_mid) = mul_128_64(self.sq_lo, n);
        let a_hi = (self.sq_hi as u128 * n as u128) + a_mid as u128;
        let (b_lo, b_hi) = mul_128_128(self.sum, self.sum);
        let (d_lo, borrow) = a_lo.overflowing_sub(b_lo);
        let d_hi = a_hi.wrapping_sub(b_hi).wrapping_sub(borrow as u128);
        u256_to_f64(d_lo, d_hi) / n as f64
    }

    /// sqrt(S / (n − 1)), 0.0 below two samples (fio's `calc_lat`).
    pub fn stddev(&self) -> f64 {
        if self.samples < 2 {
            0.0
        } else {
            (self.s() / (self.samples - 1) as f64).sqrt()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference in exact rational arithmetic is out of reach of std, so the
    /// reference is a two-pass computation in f64 on values small enough that it is
    /// exact, plus hand-made cases at the edges of the 192-bit sum.
    fn two_pass(values: &[u64]) -> (f64, f64) {
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let s = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>();
        (mean, s)
    }

    #[test]
    fn mean_and_s_of_small_values_are_the_two_pass_ones() {
        let values: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 1013).collect();
        let mut m = Moments::default();
        for &v in &values {
            m.add(v);
        }
        let (mean, s) = two_pass(&values);
        assert_eq!(m.mean(), mean);
        assert!((m.s() - s).abs() <= s * 1e-12, "{} vs {s}", m.s());
        assert_eq!((m.min, m.max, m.samples), (0, 1012, 1000));
    }

    #[test]
    fn identical_values_have_no_spread_at_all() {
        let mut m = Moments::default();
        for _ in 0..4096 {
            m.add(987_654_321_987);
        }
        assert_eq!(m.s(), 0.0);
        assert_eq!(m.stddev(), 0.0);
        assert_eq!(m.mean(), 987_654_321_987.0);
    }

    #[test]
    fn huge_values_carry_into_the_high_word_and_stay_exact() {
        // Two values near 2^64: their squares overflow 128 bits together.
        let mut m = Moments::default();
        m.add(u64::MAX);
        m.add(u64::MAX - 2);
        assert_eq!(m.sq_hi, 1, "the carry out of Σv² was lost");
        // S of {a, a - 2} is exactly 2.
        assert_eq!(m.s(), 2.0);
        assert_eq!(m.stddev(), 2f64.sqrt());
        let mut n = Moments::default();
        n.add_n(u64::MAX, 3);
        assert_eq!(n.s(), 0.0);
        assert_eq!(n.samples, 3);
    }

    #[test]
    fn add_n_merge_and_since_are_exact() {
        let mut one_by_one = Moments::default();
        let mut batched = Moments::default();
        let mut left = Moments::default();
        let mut right = Moments::default();
        for (i, v) in [5u64, 1 << 40, 77, u64::MAX / 3, 0].into_iter().enumerate() {
            let n = i as u64 * 3 + 1;
            for _ in 0..n {
                one_by_one.add(v);
            }
            batched.add_n(v, n);
            if i % 2 == 0 {
                left.add_n(v, n)
            } else {
                right.add_n(v, n)
            }
        }
        assert_eq!(one_by_one, batched);
        let before = left.clone();
        left.merge(&right);
        assert_eq!(left, one_by_one);
        let later = left.since(&before, right.min, right.max).unwrap();
        assert_eq!(later, right);
        assert!(before.since(&left, 0, 0).is_none());
    }

    #[test]
    fn wide_products_are_right() {
        let a = u128::MAX;
        assert_eq!(mul_128_128(a, a), (1, u128::MAX - 1));
        assert_eq!(
            mul_128_64(u128::MAX, u64::MAX),
            (u128::MAX - u64::MAX as u128 + 1, u64::MAX - 1)
        );
        let x = 0x1234_5678_9abc_def0_1122_3344_5566_7788u128;
        let (lo, hi) = mul_128_128(x, 3);
        assert_eq!((lo, hi), (x.wrapping_mul(3), 0));
    }
}
