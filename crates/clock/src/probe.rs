//! Deciding, once per process, whether and how the CPU counter can be the clock.
//!
//! Steps, each of which can veto the CPU clock with a one-line reason:
//! 1. the counter must be invariant (constant rate in every power state);
//! 2. some read sequence must be documented to be ordered on this CPU — the cheapest
//!    of those is chosen by measuring each;
//! 3. calibration against CLOCK_MONOTONIC must succeed within its error bound;
//! 4. a short cross-core test with the chosen sequence must see no violation.
//!
//! [`probe`] takes the steps as closures so tests can drive it with a simulated CPU.

use std::sync::OnceLock;

use crate::barrier::{self, Barrier, Platform};
use crate::calibrate::{self, Calibration};
use crate::{bench, cross_core, sys};

/// How ferrio reads the CPU clock on this machine.
#[derive(Clone, Debug)]
pub(crate) struct CpuSetup {
    pub counter: &'static str,
    pub barrier: Barrier,
    /// Cost of one read with `barrier`.
    pub cost_ns: f64,
    pub calibration: Calibration,
}

/// The machine's CPU clock setup (or why there is none), computed on first use.
pub(crate) fn cpu_setup() -> &'static Result<CpuSetup, String> {
    static SETUP: OnceLock<Result<CpuSetup, String>> = OnceLock::new();
    SETUP.get_or_init(|| {
        probe(
            barrier::platform(),
            &mut bench::read_cost,
            &mut |b| calibrate::calibrate(&mut || b.read()),
            &mut |b| {
                let cpus = sys::allowed_cpus();
                cross_core::run(b, &cpus, cross_core::Size::quick(cpus.len())).map(|o| o.violations)
            },
        )
    })
}

/// Run the decision steps. `cost` measures ns per read, `calibrate` calibrates a
/// strategy, `cross_core` returns the number of violations seen with a strategy.
pub(crate) fn probe(
    platform: &Platform,
    cost: &mut dyn FnMut(Barrier) -> f64,
    calibrate: &mut dyn FnMut(Barrier) -> Result<Calibration, String>,
    cross_core: &mut dyn FnMut(Barrier) -> Result<u64, String>,
) -> Result<CpuSetup, String> {
    let counter = platform.counter.ok_or_else(|| {
        platform
            .invariant
            .clone()
            .err()
            .unwrap_or_else(|| "no CPU cycle counter on this architecture".to_string())
    })?;
    platform.invariant.as_ref().map_err(Clone::clone)?;
    let candidates: Vec<Barrier> = platform.candidates.iter().map(|&(b, _)| b).collect();
    let (barrier, cost_ns) = barrier::choose(&candidates, cost).ok_or_else(|| {
        format!(
            "no read sequence is known to order the {counter} on this CPU ({})",
            platform.summary
        )
    })?;
    let calibration =
        calibrate(barrier).map_err(|e| format!("{counter} calibration failed: {e}"))?;
    match cross_core(barrier) {
        Ok(0) => {}
        Ok(n) => {
            return Err(format!(
                "{counter} failed the cross-core test: {n} backward steps with {}",
                barrier.name()
            ))
        }
        Err(e) => return Err(format!("{counter} cross-core test could not run: {e}")),
    }
    Ok(CpuSetup {
        counter,
        barrier,
        cost_ns,
        calibration,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::Scale;

    fn cal() -> Calibration {
        Calibration {
            scale: Scale::from_ratio(10, 26).unwrap(),
            window_ns: 20_000_000,
            uncertainty_ppm: 1.0,
        }
    }

    fn never_cost(_: Barrier) -> f64 {
        panic!("must not measure")
    }
    fn never_cal(_: Barrier) -> Result<Calibration, String> {
        panic!("must not calibrate")
    }
    fn never_cross(_: Barrier) -> Result<u64, String> {
        panic!("must not run the cross-core test")
    }

    /// The real platform with its invariance verdict replaced.
    fn platform_with(invariant: Result<String, String>) -> Platform {
        Platform {
            invariant,
            ..barrier::platform().clone()
        }
    }

    #[test]
    fn non_invariant_counter_is_vetoed_before_any_measurement() {
        let p = platform_with(Err("TSC is not invariant (simulated)".to_string()));
        let err = probe(&p, &mut never_cost, &mut never_cal, &mut never_cross).unwrap_err();
        assert!(err.contains("not invariant (simulated)"), "{err}");
    }

    #[test]
    fn no_ordered_read_is_a_veto() {
        let p = Platform {
            candidates: Vec::new(),
            ..platform_with(Ok("invariant".to_string()))
        };
        let err = probe(&p, &mut never_cost, &mut never_cal, &mut never_cross).unwrap_err();
        assert!(
            err.contains("no read sequence") || p.counter.is_none(),
            "{err}"
        );
    }

    #[test]
    // Where `Barrier` is uninhabited (no CPU counter) the `Ok` path is unreachable.
    #[allow(unreachable_code, unused_variables)]
    fn cross_core_failure_and_calibration_failure_are_vetoes() {
        let p = platform_with(Ok("invariant".to_string()));
        if p.candidates.is_empty() {
            return; // no CPU counter here: nothing to veto
        }
        let err = probe(&p, &mut |_| 10.0, &mut |_| Ok(cal()), &mut |_| Ok(3)).unwrap_err();
        assert!(err.contains("3 backward steps"), "{err}");
        let err = probe(
            &p,
            &mut |_| 10.0,
            &mut |_| Err("noisy".into()),
            &mut never_cross,
        )
        .unwrap_err();
        assert!(err.contains("calibration failed: noisy"), "{err}");
        let ok = probe(&p, &mut |_| 10.0, &mut |_| Ok(cal()), &mut |_| Ok(0)).unwrap();
        // Equal costs: the first (strongest) candidate is kept.
        assert_eq!(ok.barrier, p.candidates[0].0);
        assert_eq!(ok.cost_ns, 10.0);
    }

    #[test]
    fn real_machine_decision_is_consistent() {
        let p = barrier::platform();
        match cpu_setup() {
            Ok(s) => {
                assert!(p.invariant.is_ok());
                assert!(p.candidates.iter().any(|&(b, _)| b == s.barrier));
                assert!(s.calibration.uncertainty_ppm <= 10.0);
            }
            Err(reason) => assert!(!reason.is_empty()),
        }
    }
}
