//! The running statistics of fio's `struct io_stat`: `add_stat_sample` and `sum_stat`.
//!
//! fio keeps min/max as integers and the mean and the sum of squared deviations `S`
//! as doubles updated with Welford's method; merging uses the parallel variant
//! (Chan et al.). Both the latency histograms and the bw/IOPS sample statistics use
//! this, so the arithmetic (and its rounding) is written once, in fio's order.

/// fio's `io_stat`: samples, integer min/max, running mean and S.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Welford {
    pub samples: u64,
    /// u64::MAX while empty, like fio's initial min_val.
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub s: f64,
}

impl Default for Welford {
    fn default() -> Self {
        Welford {
            samples: 0,
            min: u64::MAX,
            max: 0,
            mean: 0.0,
            s: 0.0,
        }
    }
}

/// One Welford step on (mean, S) with `samples` values already seen, as fio's
/// `add_stat_sample` does it (nothing changes when the value equals the mean).
#[inline]
pub(crate) fn step(mean: &mut f64, s: &mut f64, samples: u64, val: f64) {
    step_n1(mean, s, samples as f64 + 1.0, val);
}

/// `step` with `samples + 1.0` already a double.
#[inline(always)]
fn step_n1(mean: &mut f64, s: &mut f64, n1: f64, val: f64) {
    let delta = val - *mean;
    if delta != 0.0 {
        *mean += delta / n1;
        *s += delta * (val - *mean);
    }
}

/// fio's `__sum_stat` moments: merge (src_mean, src_s, src_n) into (mean, s, n).
/// The caller handles the empty cases (fio copies when dst is empty and skips when
/// src is empty).
pub(crate) fn merge_moments(
    mean: f64,
    s: f64,
    n: u64,
    src_mean: f64,
    src_s: f64,
    src_n: u64,
) -> (f64, f64) {
    let delta = src_mean - mean;
    let total = (n + src_n) as f64;
    let new_mean = ((src_mean * src_n as f64) + (mean * n as f64)) / total;
    let new_s = src_s + s + (delta * delta) * (n.wrapping_mul(src_n) as f64) / total;
    (new_mean, new_s)
}

/// sqrt(S / (n - 1)), 0 below two samples (fio's `calc_lat`).
#[inline]
pub(crate) fn stddev(s: f64, samples: u64) -> f64 {
    let n = samples as f64;
    if n > 1.0 {
        (s / (n - 1.0)).sqrt()
    } else {
        0.0
    }
}

impl Welford {
    #[inline]
    pub fn add(&mut self, data: u64) {
        if data > self.max {
            self.max = data;
        }
        if data < self.min {
            self.min = data;
        }
        if ((data | self.samples) as i64) >= 0 {
            // Both fit an i64 (every latency and count does): the signed conversions
            // (one instruction each on x86-64, an unsigned one takes about six) give
            // the same doubles. Kept as two paths so the compiler cannot merge them.
            let n1 = self.samples as i64 as f64 + 1.0;
            step_n1(&mut self.mean, &mut self.s, n1, data as i64 as f64);
        } else {
            step(&mut self.mean, &mut self.s, self.samples, data as f64);
        }
        self.samples += 1;
    }

    /// fio's `sum_stat(dst, src, false)`.
    pub fn merge(&mut self, src: &Welford) {
        if src.samples == 0 {
            return;
        }
        self.min = self.min.min(src.min);
        self.max = self.max.max(src.max);
        if self.samples == 0 {
            self.mean = src.mean;
            self.s = src.s;
        } else {
            (self.mean, self.s) = merge_moments(
                self.mean,
                self.s,
                self.samples,
                src.mean,
                src.s,
                src.samples,
            );
        }
        self.samples += src.samples;
    }

    pub fn stddev(&self) -> f64 {
        stddev(self.s, self.samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_path_is_the_unsigned_one() {
        // Values on both sides of 2^63 (the slow path) and of 2^53 (where doubles
        // round), recorded by `add` and by the plain unsigned step.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut values = vec![0u64, 1, (1 << 53) + 1, i64::MAX as u64, 1 << 63, u64::MAX];
        values.extend((0..5000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (x % 64)
        }));
        let mut w = Welford::default();
        let (mut mean, mut s) = (0.0f64, 0.0f64);
        for (n, &v) in values.iter().enumerate() {
            w.add(v);
            let delta = v as f64 - mean;
            if delta != 0.0 {
                mean += delta / (n as u64 as f64 + 1.0);
                s += delta * (v as f64 - mean);
            }
            assert_eq!(
                (w.mean.to_bits(), w.s.to_bits()),
                (mean.to_bits(), s.to_bits())
            );
        }
    }

    #[test]
    fn merge_into_empty_copies() {
        let mut a = Welford::default();
        let mut b = Welford::default();
        for v in [3u64, 9, 27] {
            b.add(v);
        }
        a.merge(&b);
        assert_eq!(a, b);
        // Merging an empty source changes nothing.
        a.merge(&Welford::default());
        assert_eq!(a, b);
    }

    #[test]
    fn merge_matches_direct() {
        let mut a = Welford::default();
        let mut b = Welford::default();
        let mut all = Welford::default();
        for v in 0..100u64 {
            let x = v * v % 37;
            if v % 3 == 0 {
                a.add(x)
            } else {
                b.add(x)
            }
            all.add(x);
        }
        a.merge(&b);
        assert_eq!((a.samples, a.min, a.max), (all.samples, all.min, all.max));
        assert!((a.mean - all.mean).abs() < 1e-9);
        assert!((a.stddev() - all.stddev()).abs() < 1e-9);
    }
}
