//! A random permutation of block indices without storing it: fio's "random map"
//! guarantee (every block exactly once per pass) in O(1) time and memory per I/O.
//!
//! A linear congruential generator x → (a·x + c) mod 2^k has full period 2^k when
//! c is odd and a ≡ 1 (mod 4) (Hull–Dobell). Walking it from a random start and
//! skipping values ≥ n visits every index in 0..n exactly once per 2^k steps, with
//! fewer than two steps per index on average (2^k < 2n). Multiplier and increment are
//! drawn from the job's generator, so different seeds give different orders.

use crate::random::Rng;

#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    mask: u64,
    a: u64,
    c: u64,
    x: u64,
    /// Indices handed out in this pass.
    produced: u64,
}

impl Permutation {
    /// A fresh pass over `0..n` (n ≥ 1).
    pub fn new(n: u64, rng: &mut Rng) -> Permutation {
        let n = n.max(1);
        let bits = 64 - (n - 1).leading_zeros();
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let a = ((rng.next_u64() & mask) & !3) | 1 | 4; // ≡ 1 mod 4, not 1 (so it mixes)
        let c = rng.next_u64() | 1;
        let x = rng.next_u64() & mask;
        Permutation {
            n,
            mask,
            a: a & mask | 1,
            c: c & mask | 1,
            x,
            produced: 0,
        }
    }

    /// Next index of the pass, or None once all n were produced.
    #[inline]
    pub fn next_index(&mut self) -> Option<u64> {
        if self.produced >= self.n {
            return None;
        }
        loop {
            self.x = self.a.wrapping_mul(self.x).wrapping_add(self.c) & self.mask;
            if self.x < self.n {
                self.produced += 1;
                return Some(self.x);
            }
        }
    }

    /// Indices still to come in this pass.
    pub fn remaining(&self) -> u64 {
        self.n - self.produced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_full_pass(n: u64, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut p = Permutation::new(n, &mut rng);
        let mut seen = vec![false; n as usize];
        for _ in 0..n {
            let i = p.next_index().expect("an index") as usize;
            assert!(!seen[i], "index {i} repeated (n={n})");
            seen[i] = true;
        }
        assert!(p.next_index().is_none());
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn every_index_exactly_once() {
        for n in [1, 2, 3, 5, 7, 8, 9, 100, 1000, 4097, 8192] {
            for seed in 0..4 {
                check_full_pass(n, seed);
            }
        }
    }

    #[test]
    fn order_depends_on_seed_and_is_not_sequential() {
        let take = |seed| {
            let mut r = Rng::new(seed);
            let mut p = Permutation::new(1000, &mut r);
            (0..20).map(|_| p.next_index().unwrap()).collect::<Vec<_>>()
        };
        assert_ne!(take(1), take(2));
        let v = take(1);
        let sequential = v.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(sequential < 5, "looks sequential: {v:?}");
    }
}
