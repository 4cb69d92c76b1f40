//! The running statistics of fio's `struct io_stat`: `add_stat_sample` and `sum_stat`.
//!
//! fio keeps min/max as integers and the mean and the sum of squared deviations `S`
//! as doubles updated with Welford's method; merging uses the parallel variant
//! (Chan et al.). The bw/IOPS sample statistics (`sample.rs`, a few samples a second)
//! use this, in fio's order and with its rounding; the latency histograms, which take
//! three samples per I/O, keep exact integer sums instead (`moments.rs`).

/// One Welford step on (mean, S) with `samples` values already seen, as fio's
/// `add_stat_sample` does it (nothing changes when the value equals the mean).
#[inline]
pub(crate) fn step(mean: &mut f64, s: &mut f64, samples: u64, val: f64) {
    let delta = val - *mean;
    if delta != 0.0 {
        *mean += delta / (samples as f64 + 1.0);
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
