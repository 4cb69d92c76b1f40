//! fio's `random_generator=lfsr`: a maximal-length Galois LFSR sized to the number of
//! blocks, which visits every value below that number exactly once per pass without
//! any memory of what was done. Taps are fio's table (one tap set per register width,
//! 3 to 63 bits); values past the block count are skipped. Bit-exact with fio's
//! lib/lfsr.c with spin 0 (the only spin fio's offset code uses), including its quirk
//! that the very first value after initialisation is taken two steps in.

/// Tap positions per register width (index = bits); fio's table.
const TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lfsr {
    xormask: u64,
    top_bit: u64,
    max_val: u64,
    last: u64,
    produced: u64,
    /// fio's spin bookkeeping: 1 until the first value (which takes an extra step).
    cycle_left: u64,
}

impl Lfsr {
    /// A register for values `0..n`, started from `seed`. Err when n is too large (2^63
    /// or more) or the seed lands on the register's forbidden all-ones state.
    pub fn new(n: u64, seed: u64) -> Result<Lfsr, String> {
        let bits = (3..64)
            .find(|&i| (1u64 << i) > n)
            .ok_or_else(|| format!("lfsr: {n} values is too many for the register"))?;
        let taps = TAPS[bits];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1u64 << (t - 1));
        let mut l = Lfsr {
            xormask,
            top_bit: 1u64 << (taps[0] - 1),
            max_val: n.saturating_sub(1),
            last: 0,
            produced: 0,
            cycle_left: 1,
        };
        l.reset(seed)?;
        Ok(l)
    }

    /// Start a new pass from `seed` (fio reseeds with the offset stream's seed).
    pub fn reset(&mut self, seed: u64) -> Result<(), String> {
        let mask = (self.top_bit << 1) - 1;
        self.produced = 0;
        self.last = seed & mask;
        if self.last == mask {
            return Err("lfsr: the seed gives the forbidden all-ones state".into());
        }
        Ok(())
    }

    /// Whether the pass handed out all its values.
    pub fn is_done(&self) -> bool {
        self.produced > self.max_val
    }

    #[inline]
    fn step(&mut self) {
        let v = self.last;
        self.last = ((v >> 1) | self.top_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
    }

    /// The next value of the pass, or None once all `n` were handed out.
    pub fn next_value(&mut self) -> Option<u64> {
        let done = self.produced > self.max_val;
        self.produced += 1;
        if done {
            return None;
        }
        loop {
            if self.cycle_left > 0 {
                self.cycle_left -= 1;
                if self.cycle_left == 0 {
                    self.step();
                }
            }
            self.step();
            if self.last <= self.max_val {
                return Some(self.last);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_visits_every_value_once() {
        for n in [5u64, 8, 100, 256, 1000] {
            let mut l = Lfsr::new(n, 12345).unwrap();
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let v = l.next_value().unwrap() as usize;
                assert!(!seen[v], "n={n}: {v} twice");
                seen[v] = true;
            }
        }
    }

    /// The first blocks of `fio --name=j --ioengine=null --size=1M --bs=4k --rw=randread
    /// --randrepeat=0 --randseed=1234 --random_generator=lfsr --write_iolog=...`
    /// (fio 3.33): 256 blocks, seeded with the thread's offset-stream seed.
    #[test]
    fn matches_fio() {
        let seed = crate::random::SeedSet::from_seed(1234, 1).get(crate::random::Stream::Block);
        let mut l = Lfsr::new(256, seed).unwrap();
        let got: Vec<u64> = (0..6).map(|_| l.next_value().unwrap()).collect();
        assert_eq!(got, [46, 7, 240, 104, 36, 2]);
    }

    #[test]
    fn forbidden_seed_is_refused() {
        // 256 values → 9-bit register; seed with the low 9 bits all ones.
        assert!(Lfsr::new(256, 0x1ff).is_err());
        assert!(Lfsr::new(256, 0x1fe).is_ok());
    }
}
