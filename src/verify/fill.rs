//! The random data of a verified block: fast, and regenerable from the seed the
//! header carries (verify_dump writes the expected block from it).

/// Fill `buf` from `seed` (xorshift64*, eight bytes a step).
pub fn random(buf: &mut [u8], seed: u64) {
    let mut x = seed | 1;
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        c.copy_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
    rest.copy_from_slice(&last[..rest.len()]);
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let (mut a, mut b, mut c) = ([0u8; 100], [0u8; 100], [0u8; 100]);
        super::random(&mut a, 7);
        super::random(&mut b, 7);
        super::random(&mut c, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().filter(|&&x| x == 0).count() < 10);
    }
}
