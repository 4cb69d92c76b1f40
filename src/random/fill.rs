//! fio's random buffer contents (`__fill_random_buf`): from one 64-bit seed, four
//! interleaved sequences of 64-bit words (seed times 1, 2, 3 and 5, each word the
//! previous times the 64-bit golden ratio), little-endian; a tail shorter than four
//! words continues the first sequence alone. The seed is drawn from the job's buffer
//! stream as the product of two draws.
//!
//! Compressible contents (`__fill_random_buf_percentage` with one segment): the first
//! `len × (100 − p) / 100` bytes random from the seed, the rest zeroes or the buffer
//! pattern repeated from the start of that rest.

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

/// Fill `buf` as one compressible segment: `percentage` % of it (rounded up to whole
/// bytes) zeroes or `pattern`, after a random head from `seed`.
pub fn fill_compressible(buf: &mut [u8], seed: u64, percentage: u32, pattern: &[u8]) {
    let (head, rest) = if percentage >= 100 {
        buf.split_at_mut(0)
    } else {
        let random = (buf.len() as u64 * (100 - percentage as u64) / 100) as usize;
        buf.split_at_mut(random)
    };
    fill_from_seed(head, seed);
    fill_pattern(rest, pattern);
}

/// `pattern` repeated over `buf` from its first byte (zeroes when it is empty).
pub fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        buf.fill(0);
        return;
    }
    let n = pattern.len().min(buf.len());
    buf[..n].copy_from_slice(&pattern[..n]);
    // Double the filled prefix until the buffer is full (as fio's dup_pattern).
    let mut filled = n;
    while filled < buf.len() {
        let take = filled.min(buf.len() - filled);
        buf.copy_within(..take, filled);
        filled += take;
    }
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

    #[test]
    fn compressible_has_a_random_head_and_a_pattern_tail() {
        let mut b = vec![7u8; 512];
        fill_compressible(&mut b, 99, 40, &[]);
        // 512 × 60 / 100 = 307 random bytes, then 205 zeroes.
        let mut r = vec![0u8; 307];
        fill_from_seed(&mut r, 99);
        assert_eq!(b[..307], r[..]);
        assert!(b[307..].iter().all(|&x| x == 0));
        fill_compressible(&mut b, 99, 40, &[1, 2, 3]);
        assert_eq!(b[307..313], [1, 2, 3, 1, 2, 3]);
        assert_eq!(b[511], [1, 2, 3][(511 - 307) % 3]);
        fill_compressible(&mut b, 99, 100, &[5]);
        assert!(b.iter().all(|&x| x == 5));
    }

    #[test]
    fn pattern_repeats_from_the_start() {
        let mut b = [0u8; 11];
        fill_pattern(&mut b, &[1, 2, 3, 4]);
        assert_eq!(b, [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3]);
        let mut b = [9u8; 3];
        fill_pattern(&mut b, &[1, 2, 3, 4, 5]);
        assert_eq!(b, [1, 2, 3]);
    }
}
