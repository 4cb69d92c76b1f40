//! How the CPU's cycle counter is read: the per-architecture *read strategies* and the
//! policy that picks one.
//!
//! A bare `rdtsc` is not ordered with respect to memory: the CPU may execute it before
//! earlier loads have completed (Linux's `rdtsc_ordered()` comment: "empirically an
//! RDTSC instruction can be speculatively executed before prior loads"). A completion
//! timestamp could then be taken *before* the load that observed the completion, and
//! two threads' timestamps could disagree with the order of the memory operations
//! they follow. Each strategy below puts a different barrier in front of the read:
//!
//! | strategy  | sequence                  | ordered after earlier loads?                                   |
//! |-----------|---------------------------|----------------------------------------------------------------|
//! | `none`    | `rdtsc`                   | no                                                             |
//! | `lock-or` | `lock or [rsp],0; rdtsc`  | orders memory only; AMD does not order `rdtsc` after it (what GCC ≥ 11 emits for `__sync_synchronize()`, which broke fio's test on AMD) |
//! | `lfence`  | `lfence; rdtsc`           | Intel: LFENCE does not complete until all prior instructions have. AMD: only when LFENCE is *dispatch serialising*, i.e. DE_CFG MSR C001_1029\[1\] is set (Linux sets it on every AMD CPU with SSE2 and then advertises `X86_FEATURE_LFENCE_RDTSC`) or CPUID 8000_0021 EAX\[2\] says it always is (Zen 3 and later) |
//! | `mfence`  | `mfence; rdtsc`           | AMD: yes (Linux's old `MFENCE_RDTSC`). Intel: not documented (the SDM asks for `mfence; lfence`) |
//! | `rdtscp`  | `rdtscp`                  | yes on both: AMD — "forces all older instructions to retire before reading the time-stamp counter"; Intel — waits until all previous instructions have executed and previous loads are globally visible |
//!
//! (Under KVM the guest's write of DE_CFG is not applied to hardware; the host
//! kernel has already set the bit, and KVM reports it to the guest.)
//!
//! Measured with `--cpuclock-test` on a 2-vCPU AMD EPYC family 0x1a VM, 20 runs of
//! 1 000 000 samples per strategy: `none` and `lock-or` failed every run (3 600 to
//! 87 000 backward steps), `lfence`, `mfence` and `rdtscp` never did. Costs per read
//! there: 10.4, 10.4, 17, 30 and 19.5 ns, so ferrio uses `lfence; rdtsc`.
//!
//! On aarch64 the counter is `CNTVCT_EL0`, read after an `isb` as the Linux vDSO does.
//!
//! Only the *preceding* side is fenced: later instructions may still start before the
//! read completes. Fencing that side too would cost a second fence per read, and what
//! follows a start timestamp is an I/O submission (a system call or a ring doorbell),
//! far longer than the overlap.
//!
//! The policy ([`choose`]) measures the cost of every strategy that is documented as
//! correct on the running CPU ([`Platform::candidates`], listed strongest first) and
//! takes the cheapest, preferring the earlier one when costs are within noise.
//! `cpuclock_test` then checks the choice empirically across cores.

use std::sync::OnceLock;

#[cfg(all(target_arch = "x86_64", not(ferrio_clock_force_generic)))]
#[path = "barrier/x86_64.rs"]
mod imp;

#[cfg(all(target_arch = "aarch64", not(ferrio_clock_force_generic)))]
#[path = "barrier/aarch64.rs"]
mod imp;

#[cfg(any(
    ferrio_clock_force_generic,
    not(any(target_arch = "x86_64", target_arch = "aarch64"))
))]
#[path = "barrier/generic.rs"]
mod imp;

pub(crate) use imp::Barrier;

/// What this CPU offers as a clock, decided once from CPUID / kernel flags.
#[derive(Clone, Debug)]
pub(crate) struct Platform {
    /// Name of the counter ("TSC", "CNTVCT_EL0"), or `None` without one.
    pub counter: Option<&'static str>,
    /// One-line description of the CPU for reports.
    pub summary: String,
    /// `Ok(basis)` when the counter runs at a constant rate in every power state,
    /// `Err(reason)` otherwise.
    pub invariant: Result<String, String>,
    /// Strategies that are documented to order the read after earlier loads on this
    /// CPU, strongest guarantee first, each with the reason.
    pub candidates: Vec<(Barrier, &'static str)>,
    /// Every strategy this CPU can execute (the cross-core test tries them all).
    pub supported: Vec<Barrier>,
}

/// The running machine's [`Platform`], detected once.
pub(crate) fn platform() -> &'static Platform {
    static PLATFORM: OnceLock<Platform> = OnceLock::new();
    PLATFORM.get_or_init(imp::platform)
}

/// Two costs closer than this are treated as equal (measurement noise on a busy machine).
fn within_noise(cost: f64, best: f64) -> bool {
    cost <= best * 1.05 + 0.5
}

/// Pick the strategy to use from `candidates` (preference order) given a cost in ns per
/// read for each: the cheapest, or an earlier (stronger) one within noise of it.
/// `None` when there is no candidate.
pub(crate) fn choose<B: Copy>(
    candidates: &[B],
    mut cost: impl FnMut(B) -> f64,
) -> Option<(B, f64)> {
    let costs: Vec<(B, f64)> = candidates.iter().map(|&b| (b, cost(b))).collect();
    let best = costs.iter().map(|&(_, c)| c).fold(f64::INFINITY, f64::min);
    costs.into_iter().find(|&(_, c)| within_noise(c, best))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choose_takes_cheapest() {
        let costs = [("rdtscp", 30.0), ("lfence", 12.0), ("mfence", 40.0)];
        let c = choose(&["rdtscp", "lfence", "mfence"], |b| {
            costs.iter().find(|x| x.0 == b).unwrap().1
        });
        assert_eq!(c, Some(("lfence", 12.0)));
    }

    #[test]
    fn choose_prefers_stronger_within_noise() {
        let costs = [("rdtscp", 10.4), ("lfence", 10.0), ("mfence", 9.9)];
        let c = choose(&["rdtscp", "lfence", "mfence"], |b| {
            costs.iter().find(|x| x.0 == b).unwrap().1
        });
        assert_eq!(c, Some(("rdtscp", 10.4)));
    }

    #[test]
    fn choose_without_candidates() {
        assert_eq!(choose::<&str>(&[], |_| 1.0), None);
    }

    #[test]
    fn supported_strategies_read_a_counter_that_advances() {
        let p = platform();
        for &b in &p.supported {
            let a = b.read();
            let mut later = b.read();
            for _ in 0..1000 {
                later = b.read();
            }
            assert!(later > a, "{b:?}: {a} then {later}");
        }
        for (b, _) in &p.candidates {
            assert!(p.supported.contains(b));
        }
        assert_eq!(p.counter.is_some(), !p.supported.is_empty());
    }
}
