//! Two-sample comparison for `--compare`: Welch's t interval for the difference of
//! two means from (mean, standard deviation, count) summaries, which is what a set
//! of per-interval samples (or fio's bw_mean/bw_dev/bw_samples) gives.

/// A difference of means `after - before` with a two-sided confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diff {
    pub before: f64,
    pub after: f64,
    /// `after - before`.
    pub diff: f64,
    /// Half-width of the interval: `diff ± half`.
    pub half: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
}

impl Diff {
    /// The change relative to `before` and its interval (fractions: -0.05 is 5 % less).
    pub fn relative(&self) -> (f64, f64, f64) {
        if self.before == 0.0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        (
            self.diff / self.before,
            (self.diff - self.half) / self.before,
            (self.diff + self.half) / self.before,
        )
    }

    /// -1, 0 or 1: the interval lies below zero, contains it, or lies above it.
    pub fn sign(&self) -> i32 {
        if self.diff - self.half > 0.0 {
            1
        } else if self.diff + self.half < 0.0 {
            -1
        } else {
            0
        }
    }
}

/// Mean and sample standard deviation.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, 0.0);
    }
    let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, v.sqrt())
}

/// Welch's 95 % interval for `after - before`; None with fewer than 2 samples a side.
pub fn welch95(before: (f64, f64, u64), after: (f64, f64, u64)) -> Option<Diff> {
    let ((m1, s1, n1), (m2, s2, n2)) = (before, after);
    if n1 < 2 || n2 < 2 {
        return None;
    }
    let (v1, v2) = (s1 * s1 / n1 as f64, s2 * s2 / n2 as f64);
    let se2 = v1 + v2;
    let df = if se2 == 0.0 {
        (n1 + n2 - 2) as f64
    } else {
        se2 * se2 / (v1 * v1 / (n1 as f64 - 1.0) + v2 * v2 / (n2 as f64 - 1.0))
    };
    Some(Diff {
        before: m1,
        after: m2,
        diff: m2 - m1,
        half: t975(df) * se2.sqrt(),
        df,
    })
}

/// Student's t 0.975 quantile: a table up to 30 degrees of freedom (interpolated),
/// then the Cornish–Fisher expansion around the normal quantile.
pub fn t975(df: f64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if !df.is_finite() || df > 30.0 {
        let z: f64 = 1.959963984540054;
        let v = if df.is_finite() { df } else { f64::INFINITY };
        let (z3, z5, z7) = (z * z * z, z.powi(5), z.powi(7));
        return z
            + (z3 + z) / (4.0 * v)
            + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
            + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v);
    }
    let df = df.max(1.0);
    let lo = df.floor() as usize;
    let frac = df - lo as f64;
    if lo >= 30 {
        return T[29];
    }
    T[lo - 1] + (T[lo.min(29)] - T[lo - 1]) * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        for (df, t) in [
            (1.0, 12.706),
            (5.0, 2.571),
            (30.0, 2.042),
            (60.0, 2.000),
            (120.0, 1.980),
        ] {
            assert!((t975(df) - t).abs() < 0.002, "df {df}: {}", t975(df));
        }
        assert!((t975(f64::INFINITY) - 1.96).abs() < 0.001);
        assert!(t975(40.0) < t975(30.0) && t975(30.0) < t975(29.5));
    }

    #[test]
    fn welch_interval_of_a_textbook_example() {
        // Two samples with equal sizes: df from Welch–Satterthwaite.
        let a = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0];
        let b = [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7];
        let (ma, sa) = mean_sd(&a);
        let (mb, sb) = mean_sd(&b);
        let d = welch95((ma, sa, 10), (mb, sb, 10)).unwrap();
        // Computed independently (Python's statistics module): diff 3.14, df 10.209,
        // SE 1.51397; t(10.209) = 2.2223 from the table.
        assert!((d.diff * 100.0 - 314.0).abs() < 1e-7);
        assert!((d.df - 10.209).abs() < 0.001, "{}", d.df);
        assert!((d.half - 2.2223 * 1.51397).abs() < 0.002, "{}", d.half);
        assert_eq!(d.sign(), 0);
        let (r, lo, hi) = d.relative();
        assert!(lo < 0.0 && r > 0.0 && hi > r);
        assert!(welch95((1.0, 0.0, 1), (1.0, 0.0, 5)).is_none());
        let clear = welch95((100.0, 1.0, 20), (90.0, 1.0, 20)).unwrap();
        assert_eq!(clear.sign(), -1);
    }
}
