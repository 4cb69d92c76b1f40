//! Steady-state window arithmetic, exactly as fio's `steadystate.c` computes it, plus
//! the SNIA PTS test and sparse per-interval latency histograms.
//!
//! A window is the last `n` per-interval measurements, oldest first, as integers
//! (IOPS, bytes/s or nanoseconds). fio keeps running sums in `uint64_t` and computes
//! in `double`; these functions reproduce its expressions operation by operation so
//! the criterion values are bit-identical:
//!
//! * mean: `sum_y / n` in double (the integer mean `sum_y / n` for the slope percentage
//!   and for the `*_mean` report fields);
//! * maximum deviation: `max |y_i - mean|`;
//! * slope: least squares over x = 0..n-1,
//!   `(sum_xy - sum_x * sum_y / n) / (sum_x2 - sum_x * sum_x / n)`.

use crate::histogram::{plat_idx_to_val, LatencyHistogram, PLAT_NR};
use crate::threshold::reached;

/// Which judgement is applied to a window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowTest {
    /// All values within the limit of the mean (fio's `iops`, `bw`, `lat`).
    Deviation,
    /// |least-squares slope| below the limit (fio's `*_slope`).
    Slope,
    /// SNIA PTS 2.0 §2.1.24: (max − min) ≤ range_pct % of the average and
    /// |slope| · (n − 1) ≤ slope_pct % of the average.
    Snia { range_pct: f64, slope_pct: f64 },
}

/// The outcome of judging one window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Judgement {
    /// fio's `criterion`: the deviation or slope, in percent of the mean when the
    /// limit is a percentage. For SNIA: the range in percent of the average.
    pub criterion: f64,
    /// Whether the window is steady by this test.
    pub met: bool,
    /// fio's `max_deviation` (0 unless the test computed it, as in fio).
    pub max_deviation: f64,
    /// fio's `slope` (0 unless the test computed it, as in fio).
    pub slope: f64,
    /// SNIA only: max − min, and the line's excursion |slope| · (n − 1), both in
    /// percent of the average.
    pub range_pct: f64,
    pub excursion_pct: f64,
}

/// fio's running sums over a window (wrapping like its `uint64_t`s).
fn sums(ys: &[u64]) -> (u64, u64) {
    let mut sum_y = 0u64;
    let mut sum_xy = 0u64;
    for (i, &y) in ys.iter().enumerate() {
        sum_y = sum_y.wrapping_add(y);
        sum_xy = sum_xy.wrapping_add((i as u64).wrapping_mul(y));
    }
    (sum_y, sum_xy)
}

/// fio's `steadystate_*_mean`: the integer mean (0 for an empty window).
pub fn integer_mean(ys: &[u64]) -> u64 {
    if ys.is_empty() {
        return 0;
    }
    sums(ys).0 / ys.len() as u64
}

/// The window mean in double, as fio's deviation test computes it.
pub fn mean(ys: &[u64]) -> f64 {
    if ys.is_empty() {
        return 0.0;
    }
    sums(ys).0 as f64 / ys.len() as f64
}

/// Largest |y - mean| over the window.
pub fn max_deviation(ys: &[u64]) -> f64 {
    let m = mean(ys);
    ys.iter()
        .map(|&y| {
            let d = y as f64 - m;
            if d < 0.0 {
                -d
            } else {
                d
            }
        })
        .fold(0.0, f64::max)
}

/// Least-squares slope over x = 0..n-1 (units of the values per interval), with
/// fio's expression and rounding. NaN for fewer than two values.
pub fn slope(ys: &[u64]) -> f64 {
    let n = ys.len() as u64;
    if n < 2 {
        return f64::NAN;
    }
    let sum_x = n * (n - 1) / 2;
    let sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;
    let (sum_y, sum_xy) = sums(ys);
    let nf = n as f64;
    (sum_xy as f64 - sum_x as f64 * sum_y as f64 / nf)
        / (sum_x_sq as f64 - sum_x as f64 * sum_x as f64 / nf)
}

/// Judge a full window. `limit` is a percentage when `pct` (unused for SNIA).
pub fn judge(ys: &[u64], test: WindowTest, limit: f64, pct: bool) -> Judgement {
    let mut j = Judgement::default();
    if ys.is_empty() {
        return j;
    }
    match test {
        WindowTest::Deviation => {
            let m = mean(ys);
            j.max_deviation = max_deviation(ys);
            j.criterion = if pct {
                100.0 * j.max_deviation / m
            } else {
                j.max_deviation
            };
            j.met = j.criterion < limit;
        }
        WindowTest::Slope => {
            j.slope = slope(ys);
            j.criterion = if pct {
                // fio divides by the integer mean here.
                100.0 * j.slope / integer_mean(ys) as f64
            } else {
                j.slope
            };
            let abs = if j.criterion < 0.0 {
                -j.criterion
            } else {
                j.criterion
            };
            j.met = abs < limit;
        }
        WindowTest::Snia {
            range_pct,
            slope_pct,
        } => {
            let m = mean(ys);
            let lo = *ys.iter().min().unwrap_or(&0);
            let hi = *ys.iter().max().unwrap_or(&0);
            j.slope = slope(ys);
            j.max_deviation = max_deviation(ys);
            j.range_pct = 100.0 * (hi - lo) as f64 / m;
            j.excursion_pct = 100.0 * (j.slope * (ys.len() - 1) as f64).abs() / m;
            j.criterion = j.range_pct;
            j.met = j.range_pct <= range_pct && j.excursion_pct <= slope_pct;
        }
    }
    j
}

/// A rate in units per second from a count over `elapsed_ns` (integer, truncated).
pub fn per_second(count: u64, elapsed_ns: u64) -> u64 {
    if elapsed_ns == 0 {
        return 0;
    }
    (count as u128 * 1_000_000_000 / elapsed_ns as u128) as u64
}

/// A sparse latency histogram: the samples recorded between two snapshots of a
/// [`LatencyHistogram`] (non-zero buckets only), mergeable across intervals and
/// threads. Used for per-interval latency percentiles and the steady-state window's
/// latency distribution.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SparseHistogram {
    /// (bucket index, count), ascending by index.
    pub buckets: Vec<(u32, u64)>,
    /// Number of samples.
    pub count: u64,
    /// Sum of the samples in ns (from the exact running means; for the mean only).
    pub sum: f64,
}

impl SparseHistogram {
    /// Samples in `now` that were not in `before` (`before` must be an earlier
    /// snapshot of the same recorder).
    pub fn between(now: &LatencyHistogram, before: &LatencyHistogram) -> SparseHistogram {
        let count = now.count().saturating_sub(before.count());
        if count == 0 {
            return SparseHistogram::default();
        }
        let mut buckets = Vec::new();
        for i in 0..PLAT_NR {
            let d = now.bucket(i).saturating_sub(before.bucket(i));
            if d != 0 {
                buckets.push((i as u32, d));
            }
        }
        let sum = now.mean() * now.count() as f64 - before.mean() * before.count() as f64;
        SparseHistogram {
            buckets,
            count,
            sum: sum.max(0.0),
        }
    }

    /// Add `other`'s samples.
    pub fn add(&mut self, other: &SparseHistogram) {
        if other.count == 0 {
            return;
        }
        let mut out = Vec::with_capacity(self.buckets.len() + other.buckets.len());
        let (mut a, mut b) = (
            self.buckets.iter().peekable(),
            other.buckets.iter().peekable(),
        );
        loop {
            match (a.peek(), b.peek()) {
                (Some(&&(ia, ca)), Some(&&(ib, cb))) => {
                    if ia == ib {
                        out.push((ia, ca + cb));
                        a.next();
                        b.next();
                    } else if ia < ib {
                        out.push((ia, ca));
                        a.next();
                    } else {
                        out.push((ib, cb));
                        b.next();
                    }
                }
                (Some(&&x), None) => {
                    out.push(x);
                    a.next();
                }
                (None, Some(&&x)) => {
                    out.push(x);
                    b.next();
                }
                (None, None) => break,
            }
        }
        self.buckets = out;
        self.count += other.count;
        self.sum += other.sum;
    }

    /// Mean in ns (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// Percentiles with fio's rule (the same values [`LatencyHistogram::percentiles`]
    /// gives for the same samples), in input order; all 0 when empty.
    pub fn percentiles(&self, list: &[f64]) -> Vec<u64> {
        let mut out = vec![0u64; list.len()];
        let nr = self.count;
        if nr == 0 || list.is_empty() {
            return out;
        }
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_by(|&a, &b| list[a].total_cmp(&list[b]));
        let mut j = 0;
        // Percentiles reached before any sample (p = 0) land on bucket 0, as in the
        // dense walk.
        while j < order.len() && reached(0, list[order[j]], nr) {
            out[order[j]] = plat_idx_to_val(0);
            j += 1;
        }
        let mut sum = 0u64;
        for &(i, c) in &self.buckets {
            if j == order.len() {
                break;
            }
            sum += c;
            while j < order.len() && reached(sum, list[order[j]], nr) {
                out[order[j]] = plat_idx_to_val(i as usize);
                j += 1;
            }
        }
        out
    }

    /// One percentile (ns).
    pub fn percentile(&self, p: f64) -> u64 {
        self.percentiles(&[p])[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviation_matches_a_fio_run() {
        // fio 3.33, --ss=iops:50% --ss_dur=3: criterion "10.788961%",
        // max_deviation 372263.666667, iops_mean 3450412.
        let ys = [3822676u64, 3351668, 3176893];
        let j = judge(&ys, WindowTest::Deviation, 50.0, true);
        assert_eq!(format!("{:.6}", j.max_deviation), "372263.666667");
        assert_eq!(format!("{:.6}", j.criterion as f32), "10.788961");
        assert!(j.met);
        assert_eq!(j.slope, 0.0);
        assert_eq!(integer_mean(&ys), 3450412);
    }

    #[test]
    fn slope_matches_a_fio_run() {
        // fio 3.33, --ss=bw_slope:0.0001% --ss_dur=3: slope 3558761065.000000,
        // criterion "9.246078%", bw_mean 38489410630, not attained.
        let ys = [34630144000u64, 39090421760, 41747666130];
        let j = judge(&ys, WindowTest::Slope, 0.0001, true);
        assert_eq!(format!("{:.6}", j.slope), "3558761065.000000");
        assert_eq!(format!("{:.6}", j.criterion as f32), "9.246078");
        assert!(!j.met);
        assert_eq!(j.max_deviation, 0.0);
        assert_eq!(integer_mean(&ys), 38489410630);
    }

    #[test]
    fn slope_of_the_seed_example() {
        // The seed's bw_slope:4096 JSON: slope -3325.282536, criterion "-3325.282471".
        let bw = [
            34637645u64,
            35135488,
            35094528,
            34973853,
            34938880,
            35141957,
            34539243,
            34836480,
            34936952,
            34850850,
            34697216,
            34768848,
            35049472,
            34772948,
            34861056,
            34883651,
            34766848,
            34608944,
            34715547,
            34762752,
            34723747,
            35018954,
            34809849,
            34621245,
            34801649,
            34563843,
            35035355,
            35020800,
            34895951,
            34900052,
        ];
        let j = judge(&bw, WindowTest::Slope, 4096.0, false);
        assert_eq!(format!("{:.6}", j.slope), "-3325.282536");
        assert_eq!(format!("{:.6}", j.criterion as f32), "-3325.282471");
        assert!(j.met);
        assert_eq!(integer_mean(&bw), 34845486);
    }

    #[test]
    fn hand_computed_windows() {
        // y = 10, 12, 14, 16: mean 13, max deviation 3, slope 2.
        let ys = [10u64, 12, 14, 16];
        assert_eq!(mean(&ys), 13.0);
        assert_eq!(max_deviation(&ys), 3.0);
        assert_eq!(slope(&ys), 2.0);
        let d = judge(&ys, WindowTest::Deviation, 3.0, false);
        assert_eq!(d.criterion, 3.0);
        assert!(!d.met); // strict: 3 < 3 is false, as in fio
        assert!(judge(&ys, WindowTest::Deviation, 3.01, false).met);
        // Percentages: 3 / 13 and 2 / 13 (integer mean 13).
        let d = judge(&ys, WindowTest::Deviation, 25.0, true);
        assert!((d.criterion - 300.0 / 13.0).abs() < 1e-12);
        let s = judge(&ys, WindowTest::Slope, 15.0, true);
        assert!((s.criterion - 200.0 / 13.0).abs() < 1e-12);
        assert!(!s.met);
        // Decreasing: negative slope, judged by magnitude.
        let down = [16u64, 14, 12, 10];
        let s = judge(&down, WindowTest::Slope, 2.5, false);
        assert_eq!(s.slope, -2.0);
        assert!(s.met);
        // The slope percentage uses the integer mean: 1,2 → mean 1 (not 1.5).
        let s = judge(&[1, 2], WindowTest::Slope, 1000.0, true);
        assert_eq!(s.criterion, 100.0);
        // Flat window.
        let s = judge(&[7, 7, 7], WindowTest::Slope, 0.0001, true);
        assert_eq!(s.criterion, 0.0);
        assert!(s.met);
    }

    #[test]
    fn snia_limits() {
        // avg 100, range 20 (exactly 20 %), slope over 5 rounds.
        let ys = [90u64, 110, 100, 100, 100];
        let j = judge(
            &ys,
            WindowTest::Snia {
                range_pct: 20.0,
                slope_pct: 10.0,
            },
            0.0,
            true,
        );
        assert_eq!(j.range_pct, 20.0);
        // slope = (sum_xy - 10*500/5) / (30 - 20) = (0*90+110+200+300+400 - 1000)/10 = 1
        assert_eq!(j.slope, 1.0);
        assert_eq!(j.excursion_pct, 4.0);
        assert!(j.met);
        let rising = [80u64, 90, 100, 110, 120];
        let j = judge(
            &rising,
            WindowTest::Snia {
                range_pct: 50.0,
                slope_pct: 10.0,
            },
            0.0,
            true,
        );
        assert_eq!(j.excursion_pct, 40.0);
        assert!(!j.met);
    }

    #[test]
    fn rates() {
        assert_eq!(per_second(1000, 1_000_000_000), 1000);
        assert_eq!(per_second(1000, 500_000_000), 2000);
        assert_eq!(per_second(1, 3_000_000_000), 0);
        assert_eq!(per_second(5, 0), 0);
    }

    #[test]
    fn sparse_histograms_match_dense_percentiles() {
        let mut h = LatencyHistogram::new();
        for v in [100u64, 200, 300, 5000, 70_000] {
            h.record(v);
        }
        let before = h.clone();
        let mut fresh = LatencyHistogram::new();
        for i in 0..1000u64 {
            let v = 1000 + i * 37 % 9000;
            h.record(v);
            fresh.record(v);
        }
        let d = SparseHistogram::between(&h, &before);
        assert_eq!(d.count, 1000);
        let list = [0.0, 1.0, 50.0, 99.0, 99.9, 100.0];
        assert_eq!(d.percentiles(&list), fresh.percentiles(&list));
        assert!((d.mean() - fresh.mean()).abs() < 1e-6);
        // Merging two halves gives the whole.
        let mut a = SparseHistogram::between(&before, &LatencyHistogram::new());
        a.add(&d);
        assert_eq!(a.count, 1005);
        assert_eq!(a.percentiles(&list), h.percentiles(&list));
        assert_eq!(SparseHistogram::default().percentile(50.0), 0);
    }
}
