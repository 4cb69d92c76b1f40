//! fio's random buffer contents (`__fill_random_buf`): from one 64-bit seed, four
//! interleaved sequences of 64-bit words (seed times 1, 2, 3 and 5, each word the
//! previous times the 64-bit golden ratio), little-endian; a tail shorter than four
//! words continues the first sequence alone. The seed is drawn from the job's buffer
//! stream as the product of two draws.

use super::FioRand;

const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
/// fio's default CONFIG_SEED_BUCKETS and the primes it multiplies the seed by.
const PRIMES: [u64; 4] = [1, 2, 3, 5];

/// Fill `buf` from `seed` exactly as fio does.
pub fn fill_from_seed(buf: &mut [u8], seed: u64) {
    let groups = buf.len() / 8 / PRIMES.len();
    let mut s: [u64; 4] = PRIMES.map(|p| seed.wrapping_mul(p));
    let (head, tail) = buf.split_at_mut(groups * 8 * PRIMES.len());
    for group in head.chunks_exact_mut(8 * PRIMES.len()) {
        for (p, word) in group.chunks_exact_mut(8).enumerate() {
            word.copy_from_slice(&s[p].to_le_bytes());
            s[p] = s[p].wrapping_mul(GOLDEN_RATIO_64);
        }
    }
    let mut x = s[0];
    let mut words = tail.chunks_exact_mut(8);
    for word in &mut words {
        word.copy_from_slice(&x.to_le_bytes());
        x = x.wrapping_mul(GOLDEN_RATIO_64);
    }
    let rest = words.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&x.to_le_bytes()[..n]);
}

/// fio's fill_random_buf: a new seed from the stream, then the fill.
pub fn fill(rand: &mut FioRand, buf: &mut [u8]) {
    let seed = rand.next_seed();
    fill_from_seed(buf, seed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_fios() {
        let mut b = [0u8; 44];
        fill_from_seed(&mut b, 7);
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        // One group of four words: 7·1, 7·2, 7·3, 7·5.
        assert_eq!([w(0), w(1), w(2), w(3)], [7, 14, 21, 35]);
        // Tail: the first sequence's next word, then 4 bytes of the one after.
        let next = 7u64.wrapping_mul(GOLDEN_RATIO_64);
        assert_eq!(w(4), next);
        assert_eq!(
            b[40..44],
            next.wrapping_mul(GOLDEN_RATIO_64).to_le_bytes()[..4]
        );
    }
}
