//! Non-uniform random blocks (`random_distribution=zipf|pareto|normal`), exactly as fio
//! (lib/zipf.c, lib/gauss.c): each file has its own 32-bit tausworthe stream seeded
//! from a hash of its name, the thread number and the offset seed; ranks are scattered
//! over the file by multiplying with the 64-bit golden ratio (fio's `__hash_u64`), and
//! a centre shifts them. As in fio, these turn the random map off.

use crate::random::{FioRand, SeedSet, Stream};
use ferrio_config::values::dist::RandomDistribution;

/// fio sums at most this many terms of the zipf normalisation constant.
const ZIPF_MAX_TERMS: u64 = 10_000_000;
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
const GOLDEN_RATIO_32: u32 = 0x61C8_8647;
/// fio spreads non-uniform file choices over 2^10 ranges per file.
const FILE_SHIFT: u32 = 10;
/// Draws per normal value (fio averages 12 uniform draws).
const GAUSS_ITERS: u64 = 12;

#[derive(Clone, Debug)]
enum Model {
    Zipf { theta: f64, zeta2: f64, zetan: f64 },
    Pareto { pow: f64 },
    Gauss { stddev: u64 },
}

/// A block-number generator for one file of `n` blocks.
#[derive(Clone, Debug)]
pub struct BlockPicker {
    n: u64,
    model: Model,
    rand: FioRand,
    /// Added to every value (modulo n): a random rotation, or the centre.
    offset: u64,
    /// Scatter values with the golden ratio (off for file selection, as fio).
    hash: bool,
}

/// fio's jhash of a file name: Bob Jenkins' hash as fio writes it, which adds one byte
/// (not one 32-bit word) per word of each 12-byte block.
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let mut a = GOLDEN_RATIO_32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let (mut b, mut c) = (a, a);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(k[0] as u32);
        b = b.wrapping_add(k[4] as u32);
        c = c.wrapping_add(k[8] as u32);
        // mix
        a = a.wrapping_sub(c);
        a ^= c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c);
        a ^= c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    let byte = |i: usize, shift: u32| k.get(i).map_or(0, |&x| (x as u32) << shift);
    c = c
        .wrapping_add(byte(11, 24))
        .wrapping_add(byte(10, 16))
        .wrapping_add(byte(9, 8))
        .wrapping_add(byte(8, 0));
    b = b
        .wrapping_add(byte(7, 24))
        .wrapping_add(byte(6, 16))
        .wrapping_add(byte(5, 8))
        .wrapping_add(byte(4, 0));
    a = a
        .wrapping_add(byte(3, 24))
        .wrapping_add(byte(2, 16))
        .wrapping_add(byte(1, 8))
        .wrapping_add(byte(0, 0));
    // final
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(24));
    c
}

/// The seed of a file's distribution stream: the name's hash times the thread number
/// times the offset seed, kept to 32 bits (fio 3.35 and later); fio 3.33 used the hash
/// times the thread number with randrepeat, the offset seed alone without.
pub fn file_seed(name: &str, seeds: &SeedSet) -> u32 {
    let hash = jhash(name.as_bytes(), 0) as u64;
    let block = seeds.get(Stream::Block);
    match seeds.fio333 {
        Some(true) => hash.wrapping_mul(seeds.thread_number) as u32,
        Some(false) => block as u32,
        None => hash.wrapping_mul(seeds.thread_number).wrapping_mul(block) as u32,
    }
}

impl BlockPicker {
    /// None for distributions without a per-file model (uniform, zoned).
    pub fn new(dist: &RandomDistribution, n: u64, seed: u32) -> Option<BlockPicker> {
        let n = n.max(1);
        let (model, center) = match dist {
            RandomDistribution::Zipf { theta, center } => {
                let terms = n.min(ZIPF_MAX_TERMS);
                let zetan = (0..terms).fold(0.0, |s, i| s + (1.0 / (i + 1) as f64).powf(*theta));
                let zeta2 = 1.0f64.powf(*theta) + 0.5f64.powf(*theta);
                (
                    Model::Zipf {
                        theta: *theta,
                        zeta2,
                        zetan,
                    },
                    *center,
                )
            }
            RandomDistribution::Pareto { h, center } => (
                Model::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                },
                *center,
            ),
            RandomDistribution::Normal { dev_pct, center } => {
                let mut stddev = 0;
                if *dev_pct != 0.0 {
                    stddev = ((n as f64 * dev_pct) / 100.0).ceil() as u64;
                    stddev = stddev.min(n / 2);
                }
                (Model::Gauss { stddev }, *center)
            }
            _ => return None,
        };
        let mut rand = FioRand::new(seed as u64, false);
        let offset = match (&model, center) {
            (Model::Gauss { .. }, None) => 0,
            (Model::Gauss { .. }, Some(c)) => (n as f64 * (c - 0.5)) as i64 as u64,
            // fio draws the rotation for zipf and pareto even when a centre replaces it.
            (_, c) => {
                let r = rand.draw();
                c.map_or(r, |c| (n as f64 * c) as u64)
            }
        };
        Some(BlockPicker {
            n,
            model,
            rand,
            offset,
            hash: true,
        })
    }

    /// fio's non-uniform file_service_type: `files << 10` ranges, unscattered; the
    /// file is the value shifted back down.
    pub fn for_files(dist: &RandomDistribution, files: u64, seed: u32) -> Option<BlockPicker> {
        let mut p = BlockPicker::new(dist, files << FILE_SHIFT, seed)?;
        p.hash = false;
        Some(p)
    }

    /// The next file number of a picker made by `for_files`.
    pub fn pick_file(&mut self) -> u64 {
        self.pick() >> FILE_SHIFT
    }

    fn scatter(&self, v: u64) -> u64 {
        if self.hash {
            v.wrapping_mul(GOLDEN_RATIO_64)
        } else {
            v
        }
    }

    /// Next block number in 0..n.
    pub fn pick(&mut self) -> u64 {
        let n = self.n;
        let v = match &self.model {
            Model::Zipf {
                theta,
                zeta2,
                zetan,
            } => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = self.rand.draw() as f64 / u32::MAX as f64;
                let z = u * zetan;
                let val: u64 = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(*theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                self.scatter(val - 1)
            }
            Model::Pareto { pow } => {
                let u = self.rand.draw() as f64 / u32::MAX as f64;
                self.scatter(((n - 1) as f64 * u.powf(*pow)) as u64)
            }
            Model::Gauss { stddev } => {
                let mut sum = 0u64;
                for _ in 0..GAUSS_ITERS {
                    sum += self.rand.draw() % (n + 1);
                }
                sum = sum.div_ceil(GAUSS_ITERS);
                if *stddev > 0 {
                    let r = self.rand.draw();
                    let vr = (*stddev as f64 * (r as f64 / 4_294_967_296.0)) as i64;
                    let mut dev = vr - (*stddev / 2) as i64;
                    while (dev + sum as i64) as u64 >= n {
                        dev /= 2;
                    }
                    sum = (sum as i64 + dev) as u64;
                }
                self.scatter(sum)
            }
        };
        v.wrapping_add(self.offset) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33 seeds these from the offset seed alone with randrepeat=0; the first
    /// blocks of `fio --name=j --ioengine=null --size=1M --bs=4k --rw=randread
    /// --randrepeat=0 --randseed=1234 --random_distribution=D --write_iolog=...`.
    fn fio333(dist: RandomDistribution) -> Vec<u64> {
        let seed = SeedSet::from_seed(1234, 1).get(Stream::Block) as u32;
        let mut p = BlockPicker::new(&dist, 256, seed).unwrap();
        (0..8).map(|_| p.pick()).collect()
    }

    #[test]
    fn zipf_matches_fio() {
        assert_eq!(
            fio333(RandomDistribution::Zipf {
                theta: 1.2,
                center: None
            }),
            [231, 17, 252, 252, 17, 210, 17, 10]
        );
    }

    #[test]
    fn pareto_matches_fio() {
        assert_eq!(
            fio333(RandomDistribution::Pareto {
                h: 0.3,
                center: None
            }),
            [235, 17, 231, 231, 252, 172, 17, 93]
        );
    }

    #[test]
    fn normal_matches_fio() {
        let normal = |dev_pct, center| RandomDistribution::Normal { dev_pct, center };
        assert_eq!(
            fio333(normal(20.0, None)),
            [212, 183, 111, 220, 69, 78, 220, 103]
        );
        assert_eq!(
            fio333(normal(0.0, None)),
            [120, 212, 2, 23, 212, 27, 48, 212]
        );
        assert_eq!(
            fio333(normal(10.0, Some(0.7))),
            [217, 3, 53, 36, 11, 150, 57, 112]
        );
    }

    #[test]
    fn jhash_is_deterministic_and_spreads() {
        assert_eq!(jhash(b"", 0), GOLDEN_RATIO_32);
        assert_ne!(jhash(b"j.0.0", 0), jhash(b"j.0.1", 0));
        assert_ne!(
            jhash(b"a-long-file-name.0.0", 0),
            jhash(b"a-long-file-name.0.1", 0)
        );
    }

    #[test]
    fn zipf_concentrates_on_few_blocks() {
        let mut p = BlockPicker::new(
            &RandomDistribution::Zipf {
                theta: 1.2,
                center: None,
            },
            1000,
            5,
        )
        .unwrap();
        let mut h = vec![0u64; 1000];
        for _ in 0..100_000 {
            h[p.pick() as usize] += 1;
        }
        h.sort_unstable_by(|a, b| b.cmp(a));
        let top10: u64 = h[..10].iter().sum();
        assert!(top10 > 50_000, "top 10 blocks got only {top10} of 100000");
    }

    #[test]
    fn uniform_and_zoned_have_no_picker() {
        assert!(BlockPicker::new(&RandomDistribution::Random, 10, 1).is_none());
    }
}
