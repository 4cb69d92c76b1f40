//! ferrio-clock: every timestamp ferrio takes.
//!
//! The runner, rate limiter, ETA and steady-state code call only [`Clock::now_ns`]
//! (and, for an I/O's start, [`Clock::start_ns`]); nothing else in ferrio reads a
//! time function directly.
//!
//! Clock sources (fio's `clocksource=` option):
//! - `cpu` — the CPU's cycle counter (x86_64 TSC, aarch64 `CNTVCT_EL0`), read with the
//!   cheapest sequence that is ordered after earlier loads on the running CPU
//!   (see `barrier.rs`), converted to nanoseconds by a calibrated multiply-and-shift
//!   (`scale.rs`, `calibrate.rs`). Usable only when the counter is invariant and a
//!   cross-core test passes (`probe.rs`, `cross_core.rs`).
//! - `clock_gettime` — `clock_gettime(CLOCK_MONOTONIC)`.
//! - `gettimeofday` — `gettimeofday()`; microsecond resolution, and as a wall clock it
//!   can step if the system time is set (readings are clamped at 0, never negative).
//! - virtual — manually advanced ([`Clock::virtual_clock`]).
//!
//! With no `clocksource`, ferrio uses `cpu` when it is usable and otherwise
//! `clock_gettime`, reporting why. `--cpuclock-test` is [`cpuclock_test`];
//! `--clock-bench` is [`clock_bench`]. User documentation: `crates/clock/README.md`.

mod barrier;
mod bench;
mod calibrate;
mod cpuclock_test;
mod cross_core;
mod probe;
mod scale;
mod sys;
mod virtual_clock;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use barrier::Barrier;
use probe::CpuSetup;
use scale::Scale;

pub use bench::clock_bench;
pub use cpuclock_test::cpuclock_test;
pub use virtual_clock::VirtualHandle;

/// The `clocksource=` values ferrio accepts (fio's spelling).
pub const CLOCK_SOURCES: [&str; 3] = ["gettimeofday", "clock_gettime", "cpu"];

/// A cheap, clonable, thread-safe monotonic clock reporting nanoseconds since its creation.
#[derive(Clone, Debug)]
pub struct Clock {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// CPU counter: `scale(read() - origin)`.
    Cpu {
        barrier: Barrier,
        origin: u64,
        scale: Scale,
    },
    /// CLOCK_MONOTONIC nanoseconds at creation.
    ClockGettime {
        origin: u64,
    },
    /// gettimeofday nanoseconds at creation.
    Gettimeofday {
        origin: u64,
    },
    Virtual(Arc<AtomicU64>),
}

impl Clock {
    /// Choose a clock for `clocksource` (None = automatic: TSC when invariant and the
    /// cross-core test passes, else clock_gettime). Returns the clock and, when the
    /// automatic choice fell back, a one-line reason.
    ///
    /// The CPU clock is probed (detection, strategy choice, ~20 ms calibration, a short
    /// cross-core test) on first use only; later calls reuse the result. Naming
    /// `clock_gettime` or `gettimeofday` never probes.
    pub fn for_source(source: Option<&str>) -> Result<(Clock, Option<String>), String> {
        select(source, probe::cpu_setup)
    }

    /// A manually advanced clock starting at 0.
    pub fn virtual_clock() -> (Clock, VirtualHandle) {
        let v = Arc::new(AtomicU64::new(0));
        (
            Clock {
                kind: Kind::Virtual(v.clone()),
            },
            VirtualHandle(v),
        )
    }

    /// Nanoseconds since this clock was created (virtual: since 0).
    ///
    /// Hot path (twice per I/O): a match on the source, then for `cpu` one ordered
    /// counter read, a saturating subtract and a 64×64→128 multiply-shift.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        match &self.kind {
            Kind::Cpu {
                barrier,
                origin,
                scale,
            } => scale.apply(barrier.read().saturating_sub(*origin)),
            Kind::ClockGettime { origin } => sys::monotonic_ns().saturating_sub(*origin),
            Kind::Gettimeofday { origin } => sys::gettimeofday_ns().saturating_sub(*origin),
            Kind::Virtual(v) => v.load(Ordering::Relaxed),
        }
    }

    /// [`now_ns`](Self::now_ns) for the *start* of an interval whose end is read with
    /// `now_ns` on the same thread (an I/O's start, before the engine sees it).
    ///
    /// For `cpu` the counter is read with no barrier: the CPU may perform the read
    /// a few instructions early (while earlier work is still finishing), never after
    /// a later instruction retires. So the reading is at most a few ns before where
    /// it stands in the program, and always before anything later (a system call, a
    /// ring doorbell) can start the I/O; the end's ordered read waits for it. An
    /// interval can only gain those few ns, never lose any of what it measures, and
    /// the read does not stall the pipeline as an ordered one does (the ordered read
    /// cost ferrio ~17 ns per I/O in the raw-ring profile, docs/engines.md). It may
    /// read below an earlier `now_ns` of the same thread by those few ns, so it is
    /// only for starts, never for deadlines or samples. fio reads its start times so
    /// too (a bare `rdtsc`). Other sources: the same as `now_ns`.
    #[inline]
    pub fn start_ns(&self) -> u64 {
        match &self.kind {
            Kind::Cpu {
                barrier,
                origin,
                scale,
            } => scale.apply(barrier.read_unordered().saturating_sub(*origin)),
            _ => self.now_ns(),
        }
    }

    /// "cpu", "clock_gettime", "gettimeofday" or "virtual".
    pub fn source_name(&self) -> &'static str {
        match &self.kind {
            Kind::Cpu { .. } => "cpu",
            Kind::ClockGettime { .. } => "clock_gettime",
            Kind::Gettimeofday { .. } => "gettimeofday",
            Kind::Virtual(_) => "virtual",
        }
    }

    /// One line describing how this clock reads time, e.g.
    /// "TSC via rdtscp (9.8 ns), 2596.120 MHz (±1.2 ppm vs CLOCK_MONOTONIC)".
    pub fn details(&self) -> String {
        match &self.kind {
            Kind::Cpu { barrier, scale, .. } => {
                let (counter, ppm, cost) = match probe::cpu_setup() {
                    Ok(s) => (s.counter, s.calibration.uncertainty_ppm, s.cost_ns),
                    Err(_) => ("counter", f64::NAN, f64::NAN),
                };
                format!(
                    "{counter} via {} ({cost:.1} ns), {:.3} MHz (±{ppm:.1} ppm vs CLOCK_MONOTONIC)",
                    barrier.sequence(),
                    scale.ticks_per_sec() / 1e6
                )
            }
            Kind::ClockGettime { .. } => "clock_gettime(CLOCK_MONOTONIC)".to_string(),
            Kind::Gettimeofday { .. } => "gettimeofday(), µs resolution, wall clock".to_string(),
            Kind::Virtual(_) => "virtual, manually advanced".to_string(),
        }
    }

    fn cpu(setup: &CpuSetup) -> Clock {
        Clock {
            kind: Kind::Cpu {
                barrier: setup.barrier,
                origin: setup.barrier.read(),
                scale: setup.calibration.scale,
            },
        }
    }

    fn clock_gettime() -> Clock {
        Clock {
            kind: Kind::ClockGettime {
                origin: sys::monotonic_ns(),
            },
        }
    }

    fn gettimeofday() -> Clock {
        Clock {
            kind: Kind::Gettimeofday {
                origin: sys::gettimeofday_ns(),
            },
        }
    }
}

// The runner hands clones of one clock to every worker thread.
const _: fn() = || {
    fn shareable<T: Clone + Send + Sync>() {}
    shareable::<Clock>();
    shareable::<VirtualHandle>();
};

/// `Clock::for_source` with the CPU probe injected (evaluated only when needed).
fn select(
    source: Option<&str>,
    cpu: impl FnOnce() -> &'static Result<CpuSetup, String>,
) -> Result<(Clock, Option<String>), String> {
    match source {
        None => match cpu() {
            Ok(setup) => Ok((Clock::cpu(setup), None)),
            Err(reason) => Ok((
                Clock::clock_gettime(),
                Some(format!("CPU clock not used: {reason}; using clock_gettime")),
            )),
        },
        Some("cpu") => match cpu() {
            Ok(setup) => Ok((Clock::cpu(setup), None)),
            Err(reason) => Err(format!("clocksource=cpu is not usable: {reason}")),
        },
        Some("clock_gettime") => Ok((Clock::clock_gettime(), None)),
        Some("gettimeofday") => Ok((Clock::gettimeofday(), None)),
        Some(other) => Err(format!(
            "unknown clocksource '{other}' (valid: {})",
            CLOCK_SOURCES.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests;
