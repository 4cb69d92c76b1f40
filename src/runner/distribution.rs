//! Non-uniform random block selection (`random_distribution`): zipf, pareto, normal,
//! zoned and zoned_abs. As in fio, a non-uniform model turns the random map off, and
//! zipf/pareto ranks are scattered over the range by a hash so the hot blocks are not
//! all at the start of the file.

use crate::random::Rng;
use ferrio_config::RandomDistribution;

/// Largest n over which the zipf normalisation constant is summed exactly (as fio, which
/// caps the same sum at 10M terms for start-up time); beyond it the tail is integrated.
const ZIPF_EXACT_TERMS: u64 = 10_000_000;

/// A block-index generator for one file region of `n` blocks.
#[derive(Clone, Debug)]
pub enum BlockPicker {
    Zipf {
        n: u64,
        theta: f64,
        alpha: f64,
        zetan: f64,
        eta: f64,
    },
    Pareto {
        n: u64,
        pow: f64,
    },
    Normal {
        n: u64,
        dev: f64,
        center: f64,
    },
    /// Cumulative access percentages and [start, end) block ranges.
    Zoned {
        zones: Vec<(u32, u64, u64)>,
    },
}

/// Bijective-ish scatter of a rank over 0..n (fio hashes its zipf ranks the same way).
#[inline]
fn scatter(rank: u64, n: u64) -> u64 {
    let mut z = rank.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % n
}

fn zeta(n: u64, theta: f64) -> f64 {
    let exact = n.min(ZIPF_EXACT_TERMS);
    let mut sum: f64 = (1..=exact).map(|i| 1.0 / (i as f64).powf(theta)).sum();
    if n > exact {
        // Integral of x^-theta from exact+0.5 to n+0.5 approximates the remaining terms.
        let (a, b) = (exact as f64 + 0.5, n as f64 + 0.5);
        sum += if (theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
    }
    sum
}

impl BlockPicker {
    /// None for the uniform distribution (the caller uses the random map instead).
    /// `ddir` selects the per-direction zone list of zoned distributions.
    pub fn new(dist: &RandomDistribution, ddir: usize, n: u64, block: u64) -> Option<BlockPicker> {
        let n = n.max(1);
        match dist {
            RandomDistribution::Random => None,
            RandomDistribution::Zipf(theta) => {
                let theta = *theta;
                let zetan = zeta(n, theta);
                let zeta2 = zeta(2, theta);
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                Some(BlockPicker::Zipf {
                    n,
                    theta,
                    alpha,
                    zetan,
                    eta,
                })
            }
            RandomDistribution::Pareto(h) => Some(BlockPicker::Pareto {
                n,
                pow: h.ln() / (1.0 - h).ln(),
            }),
            RandomDistribution::Normal { dev_pct, center } => Some(BlockPicker::Normal {
                n,
                dev: dev_pct / 100.0,
                center: center.unwrap_or(0.5),
            }),
            RandomDistribution::Zoned(per_dir) => {
                let list = &per_dir[ddir];
                let mut zones = Vec::new();
                let (mut acc, mut start_pct) = (0u32, 0u32);
                for &(access, range) in list {
                    acc += access;
                    let start = n * start_pct as u64 / 100;
                    start_pct += range;
                    let end = (n * start_pct as u64 / 100).max(start + 1).min(n);
                    zones.push((acc, start.min(n - 1), end));
                }
                (!zones.is_empty()).then_some(BlockPicker::Zoned { zones })
            }
            RandomDistribution::ZonedAbs(per_dir) => {
                let list = &per_dir[ddir];
                let mut zones = Vec::new();
                let (mut acc, mut start) = (0u32, 0u64);
                for &(access, bytes) in list {
                    acc += access;
                    let len = (bytes / block.max(1)).max(1);
                    let s = start.min(n - 1);
                    start += len;
                    zones.push((acc, s, start.min(n).max(s + 1)));
                }
                (!zones.is_empty()).then_some(BlockPicker::Zoned { zones })
            }
        }
    }

    /// Next block index in 0..n.
    #[inline]
    pub fn pick(&self, rng: &mut Rng) -> u64 {
        match self {
            BlockPicker::Zipf {
                n,
                theta,
                alpha,
                zetan,
                eta,
            } => {
                // Gray et al., "Quickly generating billion-record synthetic databases".
                let u = rng.unit_f64();
                let uz = u * zetan;
                let rank = if uz < 1.0 {
                    0
                } else if uz < 1.0 + 0.5f64.powf(*theta) {
                    1
                } else {
                    ((*n as f64) * (eta * u - eta + 1.0).powf(*alpha)) as u64
                };
                scatter(rank.min(n - 1), *n)
            }
            BlockPicker::Pareto { n, pow } => {
                let u = rng.unit_f64();
                let rank = ((*n as f64) * u.powf(*pow)) as u64;
                scatter(rank.min(n - 1), *n)
            }
            BlockPicker::Normal { n, dev, center } => {
                // Box–Muller; values outside the range are folded back in by clamping.
                let u1 = rng.unit_f64().max(f64::MIN_POSITIVE);
                let u2 = rng.unit_f64();
                let g = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let x = (center + g * dev).clamp(0.0, 1.0);
                ((x * *n as f64) as u64).min(n - 1)
            }
            BlockPicker::Zoned { zones } => {
                let total = zones.last().map(|z| z.0).unwrap_or(100).max(1);
                let v = rng.below(total as u64) as u32;
                let z = zones
                    .iter()
                    .find(|z| v < z.0)
                    .unwrap_or(&zones[zones.len() - 1]);
                z.1 + rng.below(z.2 - z.1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(p: &BlockPicker, n: u64, draws: usize) -> Vec<u64> {
        let mut r = Rng::new(5);
        let mut h = vec![0u64; n as usize];
        for _ in 0..draws {
            let i = p.pick(&mut r);
            assert!(i < n);
            h[i as usize] += 1;
        }
        h
    }

    #[test]
    fn zipf_concentrates_on_few_blocks() {
        let p = BlockPicker::new(&RandomDistribution::Zipf(1.2), 0, 1000, 4096).unwrap();
        let mut h = histogram(&p, 1000, 100_000);
        h.sort_unstable_by(|a, b| b.cmp(a));
        let top10: u64 = h[..10].iter().sum();
        assert!(top10 > 50_000, "top 10 blocks got only {top10} of 100000");
    }

    #[test]
    fn pareto_concentrates_on_few_blocks() {
        let p = BlockPicker::new(&RandomDistribution::Pareto(0.9), 0, 1000, 4096).unwrap();
        let mut h = histogram(&p, 1000, 100_000);
        h.sort_unstable_by(|a, b| b.cmp(a));
        let top100: u64 = h[..100].iter().sum();
        assert!(top100 > 60_000, "top 10% got only {top100}");
    }

    #[test]
    fn normal_centres_on_the_middle() {
        let dist = RandomDistribution::Normal {
            dev_pct: 10.0,
            center: None,
        };
        let p = BlockPicker::new(&dist, 0, 1000, 4096).unwrap();
        let h = histogram(&p, 1000, 100_000);
        let middle: u64 = h[400..600].iter().sum();
        assert!(middle > 60_000, "middle 20% got {middle}");
    }

    #[test]
    fn zoned_respects_access_percentages() {
        // 60% of accesses to the first 10%, 40% to the rest.
        let zones = [vec![(60, 10), (40, 90)], vec![], vec![]];
        let p = BlockPicker::new(&RandomDistribution::Zoned(zones), 0, 1000, 4096).unwrap();
        let h = histogram(&p, 1000, 100_000);
        let first: u64 = h[..100].iter().sum();
        assert!((58_000..62_000).contains(&first), "first zone got {first}");
    }

    #[test]
    fn uniform_has_no_picker() {
        assert!(BlockPicker::new(&RandomDistribution::Random, 0, 10, 4096).is_none());
    }
}
