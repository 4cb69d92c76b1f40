//! Fixed-point conversion of counter ticks to nanoseconds by multiply-and-shift.
//!
//! `ns = (ticks * mult) >> 32`, computed as one 64×64→128-bit multiply: on x86_64 a
//! single `mul` followed by `shrd`, with no division on the hot path. `mult` is the
//! nanoseconds-per-tick ratio in 32.32 fixed point, rounded to nearest when the
//! clock is calibrated, so the conversion's relative error is at most
//! `2^-33 / ratio` (≈ 3·10⁻¹⁰ for a 2.6 GHz TSC, far below calibration error).
//! Rust's `u128` gives the exact 128-bit product, so unlike fio's split 64-bit
//! multiply there is no `max_cycles` range to track: the result is exact floor
//! arithmetic until the nanosecond value itself no longer fits in a `u64`
//! (≈ 584 years), where it saturates.

/// Fractional bits of [`Scale`]'s multiplier.
pub const SHIFT: u32 = 32;

/// A ticks→nanoseconds conversion factor: `ns = ticks * mult / 2^32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    mult: u64,
}

impl Scale {
    /// The scale that turns `ticks` counter ticks into `ns` nanoseconds (the
    /// multiplier rounded to nearest). `None` when either is 0 or the ratio does not
    /// fit 32.32 fixed point (a counter slower than ~0.25 Hz or faster than 2^32 GHz).
    pub fn from_ratio(ns: u64, ticks: u64) -> Option<Scale> {
        if ns == 0 || ticks == 0 {
            return None;
        }
        let num = (ns as u128) << SHIFT;
        let mult = (num + ticks as u128 / 2) / ticks as u128;
        if mult == 0 || mult > u64::MAX as u128 {
            return None;
        }
        Some(Scale { mult: mult as u64 })
    }

    /// The raw 32.32 multiplier.
    #[cfg(test)]
    pub fn mult(self) -> u64 {
        self.mult
    }

    /// Nanoseconds per tick as a float (reporting only).
    pub fn ns_per_tick(self) -> f64 {
        self.mult as f64 / (1u64 << SHIFT) as f64
    }

    /// Counter frequency in Hz implied by this scale (reporting only).
    pub fn ticks_per_sec(self) -> f64 {
        1e9 / self.ns_per_tick()
    }

    /// Convert a tick count to nanoseconds: `floor(ticks * mult / 2^32)`, saturating
    /// at `u64::MAX`. Hot path: one widening multiply, one shift, one compare.
    #[inline(always)]
    pub fn apply(self, ticks: u64) -> u64 {
        let wide = (ticks as u128 * self.mult as u128) >> SHIFT;
        if wide > u64::MAX as u128 {
            u64::MAX
        } else {
            wide as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Exact `floor(a * b / 2^32)` by schoolbook multiplication on 32-bit limbs: an
    /// implementation independent of `u128` multiply to check `apply` against.
    fn limb_mul_shift(a: u64, b: u64) -> u128 {
        let (a0, a1) = (a & 0xffff_ffff, a >> 32);
        let (b0, b1) = (b & 0xffff_ffff, b >> 32);
        // a*b = a1b1·2^64 + (a1b0 + a0b1)·2^32 + a0b0; each partial product < 2^64.
        let low = a0 * b0;
        let mid = (a1 * b0) as u128 + (a0 * b1) as u128 + (low >> 32) as u128;
        (((a1 * b1) as u128) << 32) + mid
    }

    #[test]
    fn known_frequencies() {
        // 2.6 GHz: 1 ns = 2.6 ticks.
        let s = Scale::from_ratio(1_000_000_000, 2_600_000_000).unwrap();
        assert!(s.apply(2_600_000_000).abs_diff(1_000_000_000) <= 1);
        assert_eq!(s.apply(2_600_000_000_000), 999_999_999_720);
        assert_eq!(s.apply(26), 9); // floor(9.99999999972)
        assert_eq!(s.apply(27), 10);
        assert!((s.ticks_per_sec() - 2.6e9).abs() < 1.0);
        // 24 MHz (typical arm64 cntvct): 41.666… ns per tick.
        let s = Scale::from_ratio(1_000, 24).unwrap();
        assert_eq!(s.apply(24_000_000), 1_000_000_000);
        assert_eq!(s.apply(0), 0);
        // Identity (1 GHz counter).
        let s = Scale::from_ratio(7, 7).unwrap();
        assert_eq!(s.mult(), 1 << 32);
        assert_eq!(s.apply(u64::MAX), u64::MAX);
    }

    #[test]
    fn rejects_degenerate_ratios() {
        assert_eq!(Scale::from_ratio(0, 5), None);
        assert_eq!(Scale::from_ratio(5, 0), None);
        // 1 ns per 2^40 ticks: multiplier rounds to 0.
        assert_eq!(Scale::from_ratio(1, 1 << 40), None);
        // 2^40 ns per tick: multiplier needs 72 bits.
        assert_eq!(Scale::from_ratio(1 << 40, 1), None);
    }

    #[test]
    fn saturates_instead_of_wrapping() {
        let s = Scale::from_ratio(1000, 1).unwrap(); // 1 MHz counter
        assert_eq!(s.apply(u64::MAX / 999), u64::MAX);
        assert_eq!(s.apply(u64::MAX / 1001), (u64::MAX / 1001) * 1000);
    }

    proptest! {
        /// The hot-path product equals exact 128-bit limb arithmetic.
        #[test]
        fn apply_is_exact_floor(ticks in any::<u64>(), mult in 1u64..) {
            let s = Scale { mult };
            let exact = limb_mul_shift(ticks, mult);
            let expect = if exact > u64::MAX as u128 { u64::MAX } else { exact as u64 };
            prop_assert_eq!(s.apply(ticks), expect);
        }

        /// Converting with a scale built from ns/ticks stays within the rounding bound
        /// of the exact rational `ticks * ns / ticks_ref`: |err| <= 1 + ticks / 2^33.
        #[test]
        fn conversion_matches_exact_ratio(
            ns in 1u64..=1_000_000_000_000,
            ticks_ref in 1u64..=1_000_000_000_000,
            ticks in 0u64..=1u64 << 62,
        ) {
            let s = Scale::from_ratio(ns, ticks_ref);
            prop_assume!(s.is_some());
            let s = s.unwrap();
            let exact = (ticks as u128 * ns as u128 / ticks_ref as u128).min(u64::MAX as u128);
            let got = s.apply(ticks) as u128;
            let bound = 1 + (ticks as u128 >> (SHIFT + 1)) + 1;
            prop_assert!(got.abs_diff(exact) <= bound,
                "ticks={} ns={} ref={} got={} exact={} bound={}", ticks, ns, ticks_ref, got, exact, bound);
        }

        /// Monotonic: more ticks never gives fewer nanoseconds.
        #[test]
        fn apply_is_monotonic(a in any::<u64>(), b in any::<u64>(), mult in 1u64..) {
            let s = Scale { mult };
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(s.apply(lo) <= s.apply(hi));
        }

        /// The multiplier is the nearest 32.32 value to the ratio.
        #[test]
        fn mult_is_rounded_to_nearest(ns in 1u64..=u32::MAX as u64, ticks in 1u64..=u32::MAX as u64) {
            let s = Scale::from_ratio(ns, ticks).unwrap();
            // |mult·ticks − ns·2^32| ≤ ticks/2
            let lhs = s.mult() as i128 * ticks as i128;
            let rhs = (ns as i128) << SHIFT;
            prop_assert!((lhs - rhs).abs() <= ticks as i128 / 2 + 1);
        }
    }
}
