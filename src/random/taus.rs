//! fio's offset/direction/size generators: L'Ecuyer's maximally equidistributed
//! combined Tausworthe generators, "taus88" (three 32-bit components, period ≈ 2^88)
//! and the 64-bit five-component "taus258" fio uses for `random_generator=tausworthe64`,
//! with fio's seeding (a 69069 / 6906969069 LCG mixed with the seed, each component
//! forced above its forbidden small values, then six warm-up steps) and fio's ways of
//! turning a draw into a number in a range. Bit-exact with fio (lib/rand.[ch]); the
//! unit tests hold sequences confirmed against fio 3.33's `--debug=random` output.

/// Three-component 32-bit combined Tausworthe state (s1 > 1, s2 > 7, s3 > 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taus88 {
    s: [u32; 3],
}

/// Five-component 64-bit combined Tausworthe state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taus258 {
    s: [u64; 5],
}

/// One step of a Tausworthe component: `((s & mask) << d) ^ (((s << a) ^ s) >> b)`.
#[inline]
fn step32(s: u32, a: u32, b: u32, mask: u32, d: u32) -> u32 {
    ((s & mask) << d) ^ (((s << a) ^ s) >> b)
}

#[inline]
fn step64(s: u64, a: u32, b: u32, mask: u64, d: u32) -> u64 {
    ((s & mask) << d) ^ (((s << a) ^ s) >> b)
}

/// A component seed below its minimum would collapse; fio lifts it by the minimum.
#[inline]
fn lift(x: u64, min: u64) -> u64 {
    if x < min {
        x + min
    } else {
        x
    }
}

/// fio starts its seeding LCG from the constant it writes as `(2^31)+(2^17)+(2^7)`;
/// in C `^` is exclusive or, so that is 29 + 19 + 5 = 53.
const LCG_START: u64 = 53;
const WARM_UP: usize = 6;

impl Taus88 {
    pub fn new(seed: u32) -> Taus88 {
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let s1 = lift(lcg(LCG_START as u32) as u64, 1) as u32;
        let s2 = lift(lcg(s1) as u64, 7) as u32;
        let s3 = lift(lcg(s2) as u64, 15) as u32;
        let mut t = Taus88 { s: [s1, s2, s3] };
        for _ in 0..WARM_UP {
            t.draw();
        }
        t
    }

    #[inline]
    pub fn draw(&mut self) -> u32 {
        let s = &mut self.s;
        s[0] = step32(s[0], 13, 19, 0xffff_fffe, 12);
        s[1] = step32(s[1], 2, 25, 0xffff_fff8, 4);
        s[2] = step32(s[2], 3, 11, 0xffff_fff0, 17);
        s[0] ^ s[1] ^ s[2]
    }
}

impl Taus258 {
    pub fn new(seed: u64) -> Taus258 {
        let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
        let mut s = [0u64; 5];
        let mins = [1u64, 7, 15, 33, 49];
        let mut prev = LCG_START;
        for (i, m) in mins.iter().enumerate() {
            s[i] = lift(lcg(prev), *m);
            prev = s[i];
        }
        let mut t = Taus258 { s };
        for _ in 0..WARM_UP {
            t.draw();
        }
        t
    }

    #[inline]
    pub fn draw(&mut self) -> u64 {
        let s = &mut self.s;
        s[0] = step64(s[0], 1, 53, 0xffff_ffff_ffff_fffe, 10);
        s[1] = step64(s[1], 24, 50, 0xffff_ffff_ffff_fe00, 5);
        s[2] = step64(s[2], 3, 23, 0xffff_ffff_ffff_f000, 29);
        s[3] = step64(s[3], 5, 24, 0xffff_ffff_fffe_0000, 23);
        s[4] = step64(s[4], 3, 33, 0xffff_ffff_ff80_0000, 8);
        s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
    }
}

/// fio's `frand_state`: either generator, chosen per stream (`use64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioRand {
    T32(Taus88),
    T64(Taus258),
}

const TWO_32: f64 = 4_294_967_296.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

/// `n · r / 2^32` in double precision, truncated (fio's scaling of a 32-bit draw `r`).
#[inline(always)]
fn scale32(n: u64, r: u64) -> u64 {
    if n < 1 << 21 {
        // n · r < 2^53: the double product is exact, and so its truncation is the
        // integer one (an imul and a shift instead of a chain of four floating-point
        // steps; 2^21 blocks is 8 GiB at 4 KiB).
        return (n * r) >> 32;
    }
    // Dividing by 2^32 is exact, so multiplying by its reciprocal gives the same
    // double, without a division per draw.
    let f = r as i64 as f64 * (1.0 / TWO_32);
    if n < 1 << 62 {
        // n, r and the result (below n) all fit an i64, whose conversions (one
        // instruction each on x86-64, an unsigned one takes several) give the same
        // doubles and the same truncation.
        (n as i64 as f64 * f) as i64 as u64
    } else {
        (n as f64 * f) as u64
    }
}

impl FioRand {
    /// A stream seeded as fio's `init_rand_seed`: the 32-bit generator keeps only the
    /// seed's low 32 bits.
    pub fn new(seed: u64, use64: bool) -> FioRand {
        if use64 {
            FioRand::T64(Taus258::new(seed))
        } else {
            FioRand::T32(Taus88::new(seed as u32))
        }
    }

    /// The raw next value (fio's `__rand`).
    #[inline]
    pub fn draw(&mut self) -> u64 {
        match self {
            FioRand::T32(t) => t.draw() as u64,
            FioRand::T64(t) => t.draw(),
        }
    }

    /// Largest raw value (fio's `rand_max`).
    #[inline]
    pub fn max(&self) -> u64 {
        match self {
            FioRand::T32(_) => u32::MAX as u64,
            FioRand::T64(_) => u64::MAX,
        }
    }

    /// `n · r / (max + 1)` in double precision, truncated: how fio scales a draw to a
    /// block number (`__get_next_rand_offset`).
    #[inline]
    pub fn scaled(&mut self, n: u64) -> u64 {
        self.scaled_draw(n).1
    }

    /// [`Self::scaled`] with the raw draw it came from (`--debug=random` prints it).
    #[inline]
    pub fn scaled_draw(&mut self, n: u64) -> (u64, u64) {
        match self {
            FioRand::T32(t) => {
                let r = t.draw() as u64;
                (r, scale32(n, r))
            }
            FioRand::T64(t) => {
                let r = t.draw();
                // max + 1 is 2^64: dividing by a power of two is exact, so multiplying
                // by its reciprocal gives the same double, without a division per draw.
                (r, (n as f64 * (r as f64 * (1.0 / TWO_64))) as u64)
            }
        }
    }

    /// Uniform in `start..=end` exactly as fio's `rand_between`.
    #[inline]
    pub fn between(&mut self, start: u64, end: u64) -> u64 {
        match self {
            FioRand::T32(t) => {
                let r = t.draw();
                let span = (end - start) as u32;
                let v = span.wrapping_add(1) as f64 * (r as f64 / TWO_32);
                // fio converts through a C int.
                start + (v as i32 as u32) as u64
            }
            FioRand::T64(t) => {
                let r = t.draw();
                let span = (end - start).wrapping_add(1);
                start + (span as f64 * (r as f64 / TWO_64)) as u64
            }
        }
    }

    /// In (0, 1]: fio's `__rand_0_1` ((r + 1) / 2^bits).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        match self {
            FioRand::T32(t) => (t.draw() as f64 + 1.0) / TWO_32,
            FioRand::T64(t) => (t.draw() as f64 + 1.0) / TWO_64,
        }
    }

    /// A seed for a buffer fill: the product of two draws (fio's `__get_next_seed` on
    /// a 64-bit machine).
    #[inline]
    pub fn next_seed(&mut self) -> u64 {
        let a = self.draw();
        a.wrapping_mul(self.draw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first offsets' raw draws of `fio --name=j --ioengine=null --size=1M --bs=4k
    /// --rw=randread --randrepeat=0 --randseed=1234 --debug=random` (fio 3.33 prints
    /// them as "off rand N"): the offset stream's seed is the 7th of the job's seeds.
    #[test]
    fn taus88_matches_fio() {
        let seeds = super::super::seeds::SeedSet::from_seed(1234, 1);
        let mut r = FioRand::new(seeds.get(super::super::seeds::Stream::Block), false);
        let got: Vec<u64> = (0..4).map(|_| r.draw()).collect();
        assert_eq!(got, FIO_TAUS88_SEED1234);
    }

    const FIO_TAUS88_SEED1234: [u64; 4] = [320323601, 1854933243, 312579007, 1132836363];

    /// Same job with `--random_generator=tausworthe64`.
    #[test]
    fn taus258_matches_fio() {
        let seeds = super::super::seeds::SeedSet::from_seed(1234, 1);
        let mut r = FioRand::new(seeds.get(super::super::seeds::Stream::Block), true);
        let got: Vec<u64> = (0..4).map(|_| r.draw()).collect();
        assert_eq!(
            got,
            [
                11503225693766928552,
                8218700788829478570,
                12816351301737360022,
                6118887169144599895
            ]
        );
    }

    #[test]
    fn taus88_seed_lifts_small_components() {
        // Seed 0: every component is the LCG alone; none may be below its minimum.
        let t = Taus88::new(0);
        assert!(t.s[0] > 1 && t.s[1] > 7 && t.s[2] > 15);
        assert_ne!(Taus88::new(1), Taus88::new(2));
    }

    #[test]
    fn between_covers_its_range_inclusively() {
        for use64 in [false, true] {
            let mut r = FioRand::new(7, use64);
            let mut seen = [false; 100];
            for _ in 0..5000 {
                let v = r.between(1, 100);
                assert!((1..=100).contains(&v));
                seen[v as usize - 1] = true;
            }
            assert!(seen.iter().all(|&s| s), "use64={use64}");
        }
    }

    #[test]
    fn unit_is_in_half_open_range() {
        let mut r = FioRand::new(3, false);
        for _ in 0..1000 {
            let u = r.unit();
            assert!(u > 0.0 && u <= 1.0);
        }
    }

    #[test]
    fn scaled_is_fios_division_by_max_plus_one() {
        for use64 in [false, true] {
            let (mut a, mut b) = (FioRand::new(11, use64), FioRand::new(11, use64));
            // (both sides of the fast paths' bounds, 2^21 and 2^62, included)
            for n in [
                1u64,
                3,
                256,
                65_536,
                (1 << 21) - 1,
                1 << 21,
                (1 << 21) + 1,
                3 << 21,
                1 << 40,
                u64::MAX >> 11,
                (1 << 62) - 1,
                1 << 62,
                u64::MAX,
            ] {
                for _ in 0..2000 {
                    let r = b.draw();
                    let want = (n as f64 * (r as f64 / (b.max() as f64 + 1.0))) as u64;
                    assert_eq!(a.scaled(n), want, "use64={use64} n={n} r={r}");
                }
            }
        }
    }
}
