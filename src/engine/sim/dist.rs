//! Service-time distributions of the simulated device: each draw is the quantile
//! function at one uniform number, so a draw costs one generator step and the
//! sequence of service times is fixed by the seed.

use crate::random::Rng;
use ferrio_config::ext::sim::Dist;

/// A distribution prepared for drawing (parameters converted once).
#[derive(Clone, Debug)]
pub enum ServiceTime {
    Fixed(f64),
    Uniform {
        lo: f64,
        width: f64,
    },
    Normal {
        mean: f64,
        sd: f64,
    },
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    Exponential {
        mean: f64,
    },
    /// (probability in 0..=1, value) points of a piecewise-linear quantile function.
    Empirical(Vec<(f64, f64)>),
}

impl ServiceTime {
    pub fn new(d: &Dist) -> ServiceTime {
        match d {
            Dist::Fixed(v) => ServiceTime::Fixed(*v),
            Dist::Uniform(a, b) => ServiceTime::Uniform {
                lo: *a,
                width: b - a,
            },
            Dist::Normal(m, s) => ServiceTime::Normal { mean: *m, sd: *s },
            Dist::Lognormal(m, s) => {
                // Parameters of the underlying normal from the mean and sd of the time.
                let sigma2 = (1.0 + (s / m) * (s / m)).ln();
                ServiceTime::Lognormal {
                    mu: m.ln() - sigma2 / 2.0,
                    sigma: sigma2.sqrt(),
                }
            }
            Dist::Exponential(m) => ServiceTime::Exponential { mean: *m },
            Dist::Empirical(pts) => {
                ServiceTime::Empirical(pts.iter().map(|&(p, v)| (p / 100.0, v)).collect())
            }
        }
    }

    /// The value below which a fraction `p` (0 < p < 1) of draws fall, in ns.
    pub fn quantile(&self, p: f64) -> f64 {
        let v = match self {
            ServiceTime::Fixed(v) => *v,
            ServiceTime::Uniform { lo, width } => lo + width * p,
            ServiceTime::Normal { mean, sd } => mean + sd * inverse_normal(p),
            ServiceTime::Lognormal { mu, sigma } => (mu + sigma * inverse_normal(p)).exp(),
            ServiceTime::Exponential { mean } => -mean * (1.0 - p).ln(),
            ServiceTime::Empirical(pts) => {
                let i = pts
                    .partition_point(|&(q, _)| q <= p)
                    .clamp(1, pts.len() - 1);
                let (q0, v0) = pts[i - 1];
                let (q1, v1) = pts[i];
                if q1 > q0 {
                    v0 + (v1 - v0) * (p - q0) / (q1 - q0)
                } else {
                    v1
                }
            }
        };
        v.max(0.0)
    }

    /// One draw, rounded to whole nanoseconds.
    #[inline]
    pub fn draw(&self, rng: &mut Rng) -> u64 {
        if let ServiceTime::Fixed(v) = self {
            return v.round() as u64;
        }
        // Uniform in (0, 1): the midpoint of one of 2^53 equal cells, never 0 or 1.
        let u = ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
        self.quantile(u).round() as u64
    }
}

/// The standard normal quantile function (P. J. Acklam's rational approximation,
/// relative error below 1.2e-9).
pub fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.383_577_518_672_69e2,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-03,
        3.224671290700398e-01,
        2.445134137142996e+00,
        3.754408661907416e+00,
    ];
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let lo = 0.02425;
    if p < lo {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - lo {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::ext::sim::parse_dist;

    fn st(s: &str) -> ServiceTime {
        ServiceTime::new(&parse_dist(s).unwrap())
    }

    #[test]
    fn normal_quantiles() {
        for (p, z) in [
            (0.5, 0.0),
            (0.975, 1.959963984540054),
            (0.99, 2.326347874040841),
            (0.001, -3.090232306167813),
            (0.9999, 3.719016485455709),
        ] {
            assert!((inverse_normal(p) - z).abs() < 1e-6, "{p}");
        }
    }

    #[test]
    fn quantiles_of_each_kind() {
        assert_eq!(st("fixed:5us").quantile(0.3), 5000.0);
        assert_eq!(st("uniform:10us:20us").quantile(0.25), 12_500.0);
        let e = st("exponential:1ms").quantile(0.5);
        assert!((e - 1e6 * std::f64::consts::LN_2).abs() < 1e-6);
        let emp = st("empirical:50=100us:90=200us:100=1ms");
        assert_eq!(emp.quantile(0.25), 100_000.0);
        assert!((emp.quantile(0.7) - 150_000.0).abs() < 1e-6);
        assert!((emp.quantile(0.95) - 600_000.0).abs() < 1e-6);
        // Lognormal: the median is exp(mu), the mean is the one given.
        let l = st("lognormal:100us:50us");
        let sigma2 = (1.25f64).ln();
        assert!((l.quantile(0.5) - 100_000.0 * (-sigma2 / 2.0).exp()).abs() < 1e-3);
        assert_eq!(st("normal:1us:10us").quantile(0.01), 0.0);
    }

    #[test]
    fn draws_have_the_right_mean_and_repeat_with_the_seed() {
        for s in [
            "uniform:10us:30us",
            "normal:20us:2us",
            "lognormal:20us:10us",
            "exponential:20us",
        ] {
            let d = st(s);
            let mut rng = Rng::new(7);
            let n = 200_000;
            let mean = (0..n).map(|_| d.draw(&mut rng) as f64).sum::<f64>() / n as f64;
            assert!((mean / 20_000.0 - 1.0).abs() < 0.01, "{s}: {mean}");
            let a: Vec<u64> = (0..5).map(|_| d.draw(&mut Rng::new(3))).collect();
            let b: Vec<u64> = (0..5).map(|_| d.draw(&mut Rng::new(3))).collect();
            assert_eq!(a, b);
        }
    }
}
