//! fio's random map ("axmap"): one bit per block, set once the block was done, so a
//! random pass does every block exactly once. When the drawn block is already done,
//! fio takes the first free block after it, wrapping to the start of the map; that rule
//! (not the data structure) is what makes the offset sequence, and is kept exactly.
//!
//! Levels of summary bits (a bit set when the 64 bits below are all set) make the
//! search for a free block logarithmic instead of linear in the map's size.

const W: u64 = 64;

#[derive(Clone, Debug)]
pub struct Axmap {
    nr_bits: u64,
    /// levels[0] holds the blocks; levels[i+1] bit k = word k of levels[i] is full.
    levels: Vec<Vec<u64>>,
}

impl Axmap {
    pub fn new(nr_bits: u64) -> Axmap {
        let mut levels = Vec::new();
        let mut n = nr_bits.max(1);
        loop {
            let words = n.div_ceil(W);
            levels.push(vec![0u64; words as usize]);
            if words == 1 {
                break;
            }
            n = words;
        }
        let mut map = Axmap { nr_bits, levels };
        map.reset();
        map
    }

    /// Every level's bits past its last real one (a block, or a word of the level
    /// below) are set, so a summary word fills when its real bits do and a search
    /// never descends into a word that does not exist.
    fn set_padding(&mut self) {
        let mut n = self.nr_bits.max(1);
        for l in &mut self.levels {
            let used = n % W;
            if used != 0 {
                *l.last_mut().expect("a word") |= u64::MAX << used;
            }
            n = l.len() as u64;
        }
    }

    /// Whether every block is done.
    pub fn is_full(&self) -> bool {
        self.first_free_from(0).is_none()
    }

    pub fn reset(&mut self) {
        for l in &mut self.levels {
            l.fill(0);
        }
        self.set_padding();
    }

    #[inline]
    pub fn is_set(&self, bit: u64) -> bool {
        bit < self.nr_bits && self.levels[0][(bit / W) as usize] >> (bit % W) & 1 == 1
    }

    /// Set one bit (which must be clear), updating the summaries.
    fn set_one(&mut self, bit: u64) {
        let mut idx = bit;
        for l in 0..self.levels.len() {
            let word = &mut self.levels[l][(idx / W) as usize];
            *word |= 1 << (idx % W);
            if *word != u64::MAX {
                return;
            }
            idx /= W;
        }
    }

    /// Mark up to `nr` blocks from `bit` as done, stopping at the first one already
    /// done; returns how many were marked (fio's `axmap_set_nr`).
    pub fn set_run(&mut self, bit: u64, nr: u64) -> u64 {
        let mut done = 0;
        while done < nr {
            let b = bit + done;
            if b >= self.nr_bits || self.is_set(b) {
                break;
            }
            self.set_one(b);
            done += 1;
        }
        done
    }

    /// First clear bit at or after `from`, or None. Climbs while the rest of a word is
    /// full (the level above then names the next word with a free bit), then descends.
    fn first_free_from(&self, from: u64) -> Option<u64> {
        let top = self.levels.len();
        let (mut level, mut idx) = (0usize, from);
        loop {
            let limit = if level == 0 {
                self.nr_bits
            } else {
                self.levels[level - 1].len() as u64
            };
            if idx >= limit {
                return None;
            }
            let w = (idx / W) as usize;
            let rest = self.levels[level][w] | ((1u64 << (idx % W)) - 1);
            if rest != u64::MAX {
                idx = w as u64 * W + (!rest).trailing_zeros() as u64;
                if idx >= limit {
                    return None;
                }
                break;
            }
            if level + 1 == top {
                return None;
            }
            idx = w as u64 + 1;
            level += 1;
        }
        while level > 0 {
            level -= 1;
            let word = self.levels[level][idx as usize];
            idx = idx * W + (!word).trailing_zeros() as u64;
        }
        (idx < self.nr_bits).then_some(idx)
    }

    /// The block fio uses when `bit` is already done: the first free one after it,
    /// wrapping to the start; None when the map is full.
    pub fn next_free(&self, bit: u64) -> Option<u64> {
        if bit >= self.nr_bits {
            return None;
        }
        let mut next = bit + 1;
        if next == self.nr_bits {
            next = 0;
        }
        self.first_free_from(next).or_else(|| {
            if next != 0 {
                self.first_free_from(0)
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_whose_summary_words_are_partly_used_finds_free_blocks_to_the_end() {
        // 25600 blocks: 400 words, whose summary has 7 words, the last one partly
        // used (100 MiB of 4 KiB blocks once crashed the search).
        for n in [25600u64, 16640, 64 * 64 + 1, 65, 64, 1] {
            let mut m = Axmap::new(n);
            let mut order = Vec::new();
            let mut b = 0;
            while let Some(f) = if m.is_set(b) { m.next_free(b) } else { Some(b) } {
                assert!(f < n, "{n}: {f}");
                assert_eq!(m.set_run(f, 1), 1);
                order.push(f);
                b = (f * 7919 + 13) % n;
            }
            assert_eq!(order.len() as u64, n, "{n}: every block once");
            assert!(m.is_full());
            m.reset();
            assert_eq!(m.next_free(n - 1), Some(0), "{n}: wraps to the start");
        }
    }

    fn slow_next_free(bits: &[bool], bit: usize) -> Option<u64> {
        let n = bits.len();
        let next = if bit + 1 == n { 0 } else { bit + 1 };
        (next..n)
            .chain(0..next)
            .find(|&i| !bits[i])
            .map(|i| i as u64)
    }

    #[test]
    fn next_free_is_the_first_clear_bit_after_wrapping() {
        for n in [1u64, 5, 64, 65, 200, 4096, 4097, 300_000] {
            let mut m = Axmap::new(n);
            let mut shadow = vec![false; n as usize];
            let mut x = 12345u64;
            for step in 0..(n.min(5000) * 2) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let b = (x >> 33) % n;
                assert_eq!(m.is_set(b), shadow[b as usize]);
                let got = m.next_free(b);
                assert_eq!(
                    got,
                    slow_next_free(&shadow, b as usize),
                    "n={n} step={step} b={b}"
                );
                // Mark a run (fio marks from the chosen block).
                let start = if shadow[b as usize] { got } else { Some(b) };
                if let Some(s) = start {
                    let len = 1 + (x >> 20) % 3;
                    let set = m.set_run(s, len);
                    let mut expect = 0;
                    while expect < len && s + expect < n && !shadow[(s + expect) as usize] {
                        shadow[(s + expect) as usize] = true;
                        expect += 1;
                    }
                    assert_eq!(set, expect);
                }
            }
        }
    }

    #[test]
    fn full_map_has_no_free_block_and_reset_clears() {
        let mut m = Axmap::new(130);
        assert_eq!(m.set_run(0, 200), 130);
        assert_eq!(m.next_free(5), None);
        m.reset();
        assert_eq!(m.next_free(129), Some(0));
    }
}
