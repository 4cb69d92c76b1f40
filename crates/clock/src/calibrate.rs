//! Calibration of the CPU counter against `CLOCK_MONOTONIC`.
//!
//! Two *bracketed* samples are taken a window apart: read the counter, read
//! CLOCK_MONOTONIC, read the counter again, and keep the attempt with the narrowest
//! bracket (the one least disturbed by interrupts or preemption), taking the middle of
//! the bracket as the counter value at the monotonic instant. The ratio of the two
//! differences is the ns-per-tick factor, stored as a [`Scale`].
//!
//! The error of the ratio is bounded by the bracket widths over the window length, and
//! is reported as `uncertainty_ppm`; a calibration whose bound exceeds the limit is
//! redone with a longer window. With a 20 ms window and ~100-tick brackets the bound is
//! a few ppm, well inside the 0.01 % (100 ppm) drift budget.

use crate::scale::Scale;

/// The result of calibrating a counter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calibration {
    pub scale: Scale,
    /// Length of the window the ratio was measured over.
    pub window_ns: u64,
    /// Worst-case relative error of the ratio from the bracket widths, in ppm.
    pub uncertainty_ppm: f64,
}

/// Counter value at a reference-clock instant, ± `width / 2` ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    pub ticks: u64,
    pub ns: u64,
    pub width: u64,
}

/// The narrowest of `tries` bracketed samples. `None` when the counter never advanced
/// monotonically across a bracket.
pub(crate) fn bracketed_pair(
    counter: &mut dyn FnMut() -> u64,
    reference: &mut dyn FnMut() -> u64,
    tries: u32,
) -> Option<Pair> {
    let mut best: Option<Pair> = None;
    for _ in 0..tries {
        let t0 = counter();
        let ns = reference();
        let t1 = counter();
        if t1 < t0 {
            continue;
        }
        let p = Pair {
            ticks: t0 + (t1 - t0) / 2,
            ns,
            width: t1 - t0,
        };
        match best {
            Some(b) if b.width <= p.width => {}
            _ => best = Some(p),
        }
    }
    best
}

/// Calibrate `counter` against `reference` (both read through closures so tests can
/// simulate either). `sleep(ns)` waits between the two samples. Retries twice with a
/// doubled window while the error bound is above `max_ppm`.
pub(crate) fn calibrate_with(
    counter: &mut dyn FnMut() -> u64,
    reference: &mut dyn FnMut() -> u64,
    sleep: &mut dyn FnMut(u64),
    window_ns: u64,
    max_ppm: f64,
) -> Result<Calibration, String> {
    const TRIES: u32 = 16;
    let mut last_ppm = f64::INFINITY;
    for attempt in 0..3 {
        let a = bracketed_pair(counter, reference, TRIES)
            .ok_or("the counter went backwards within every sample")?;
        sleep(window_ns << attempt);
        let b = bracketed_pair(counter, reference, TRIES)
            .ok_or("the counter went backwards within every sample")?;
        if b.ns <= a.ns {
            return Err("CLOCK_MONOTONIC did not advance during calibration".to_string());
        }
        if b.ticks <= a.ticks {
            return Err(format!(
                "the counter did not advance during calibration ({} -> {})",
                a.ticks, b.ticks
            ));
        }
        let (dticks, dns) = (b.ticks - a.ticks, b.ns - a.ns);
        let scale = Scale::from_ratio(dns, dticks)
            .ok_or_else(|| format!("counter rate out of range: {dticks} ticks in {dns} ns"))?;
        // Half of each bracket, plus one tick of quantisation at each end.
        last_ppm = ((a.width + b.width) as f64 / 2.0 + 2.0) / dticks as f64 * 1e6;
        if last_ppm <= max_ppm {
            return Ok(Calibration {
                scale,
                window_ns: dns,
                uncertainty_ppm: last_ppm,
            });
        }
    }
    Err(format!(
        "calibration too noisy: ±{last_ppm:.0} ppm after 3 attempts"
    ))
}

/// Calibrate a real counter read by `counter` against CLOCK_MONOTONIC over ~20 ms.
pub(crate) fn calibrate(counter: &mut dyn FnMut() -> u64) -> Result<Calibration, String> {
    calibrate_with(
        counter,
        &mut crate::sys::monotonic_ns,
        &mut |ns| std::thread::sleep(std::time::Duration::from_nanos(ns)),
        20_000_000,
        10.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A simulated machine: `now` advances 25 ns per reference read, 3 ns per counter
    /// read, and by the requested amount when sleeping; the counter ticks `num/den`
    /// per ns from an arbitrary offset.
    struct Sim {
        now: Cell<u64>,
    }

    fn simulate(num: u64, den: u64, window: u64, max_ppm: f64) -> Result<Calibration, String> {
        let sim = Sim {
            now: Cell::new(1_000_000),
        };
        let counter = |s: &Sim| {
            s.now.set(s.now.get() + 3);
            123_456_789 + s.now.get() * num / den
        };
        calibrate_with(
            &mut || counter(&sim),
            &mut || {
                sim.now.set(sim.now.get() + 25);
                sim.now.get()
            },
            &mut |ns| sim.now.set(sim.now.get() + ns),
            window,
            max_ppm,
        )
    }

    #[test]
    fn recovers_simulated_rates() {
        for (num, den) in [(26, 10), (1, 1), (3, 125), (5, 1)] {
            let c = simulate(num, den, 20_000_000, 10.0).unwrap();
            let want = den as f64 / num as f64;
            let got = c.scale.ns_per_tick();
            assert!(
                ((got - want) / want).abs() < 1e-5,
                "{num}/{den}: {got} vs {want}"
            );
            assert!(c.uncertainty_ppm < 10.0);
        }
    }

    #[test]
    fn short_window_is_retried_longer_or_rejected() {
        // 2.6 GHz, 1 µs window: bracket 28 ns ≈ 73 ticks over 2600 ticks is ~28000 ppm;
        // doubling twice cannot reach 10 ppm.
        let err = simulate(26, 10, 1_000, 10.0).unwrap_err();
        assert!(err.contains("too noisy"), "{err}");
        // With a loose limit the second or third attempt is accepted.
        let c = simulate(26, 10, 1_000, 10_000.0).unwrap();
        assert!(c.window_ns >= 2_000, "{}", c.window_ns);
    }

    #[test]
    fn stuck_counter_is_an_error() {
        let err = calibrate_with(
            &mut || 42,
            &mut crate::sys::monotonic_ns,
            &mut |_| std::thread::sleep(std::time::Duration::from_millis(1)),
            1_000_000,
            10.0,
        )
        .unwrap_err();
        assert!(err.contains("did not advance"), "{err}");
    }

    #[test]
    fn backwards_counter_is_an_error() {
        let v = Cell::new(u64::MAX);
        let err = calibrate_with(
            &mut || {
                v.set(v.get() - 1000);
                v.get()
            },
            &mut crate::sys::monotonic_ns,
            &mut |_| {},
            1_000_000,
            10.0,
        )
        .unwrap_err();
        assert!(err.contains("backwards"), "{err}");
    }

    #[test]
    fn narrowest_bracket_wins() {
        let seq = [10u64, 50, 100, 110, 200, 230];
        let i = Cell::new(0);
        let p = bracketed_pair(
            &mut || {
                let k = i.get();
                i.set(k + 1);
                seq[k]
            },
            &mut || 7,
            3,
        );
        // brackets: 10..50 (40), 100..110 (10), 200..230 (30)
        assert_eq!(
            p,
            Some(Pair {
                ticks: 105,
                ns: 7,
                width: 10
            })
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn calibrates_against_real_monotonic_clock() {
        // CLOCK_MONOTONIC_RAW as a "counter" ticking at 1 GHz: the ratio must come out
        // at 1 ns/tick within NTP's maximum slew (500 ppm) plus the error bound.
        let c = calibrate(&mut || {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: valid out-pointer; CLOCK_MONOTONIC_RAW exists on Linux ≥ 2.6.28.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
            ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
        })
        .unwrap();
        assert!((c.scale.ns_per_tick() - 1.0).abs() < 600e-6, "{c:?}");
        assert!(c.window_ns >= 20_000_000);
    }
}
