//! ferrio-clock: every timestamp ferrio takes. CONTRACT (implemented by the clock owner).
//!
//! The runner, rate limiter, ETA and steady-state code call only [`Clock::now_ns`];
//! nothing else in ferrio reads a time function directly.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A cheap, clonable, thread-safe monotonic clock reporting nanoseconds since its creation.
#[derive(Clone, Debug)]
pub struct Clock {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Monotonic { origin: std::time::Instant },
    Virtual(Arc<AtomicU64>),
}

/// Advances a virtual clock (tests, simulated device).
#[derive(Clone, Debug)]
pub struct VirtualHandle(Arc<AtomicU64>);

impl VirtualHandle {
    pub fn advance_ns(&self, ns: u64) {
        self.0.fetch_add(ns, Ordering::SeqCst);
    }
    pub fn set_ns(&self, ns: u64) {
        self.0.store(ns, Ordering::SeqCst);
    }
}

impl Clock {
    /// Choose a clock for `clocksource` (None = automatic: TSC when invariant and the
    /// cross-core test passes, else clock_gettime). Returns the clock and, when the
    /// automatic choice fell back, a one-line reason.
    pub fn for_source(source: Option<&str>) -> Result<(Clock, Option<String>), String> {
        match source {
            None | Some("clock_gettime") | Some("cpu") | Some("gettimeofday") => Ok((
                Clock {
                    kind: Kind::Monotonic {
                        origin: std::time::Instant::now(),
                    },
                },
                None,
            )),
            Some(other) => Err(format!("unknown clocksource '{other}'")),
        }
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
    #[inline]
    pub fn now_ns(&self) -> u64 {
        match &self.kind {
            Kind::Monotonic { origin } => origin.elapsed().as_nanos() as u64,
            Kind::Virtual(v) => v.load(Ordering::Relaxed),
        }
    }

    /// "cpu", "clock_gettime", "gettimeofday" or "virtual".
    pub fn source_name(&self) -> &'static str {
        match &self.kind {
            Kind::Monotonic { .. } => "clock_gettime",
            Kind::Virtual(_) => "virtual",
        }
    }
}

/// `--cpuclock-test`: writes the report to `out`, returns true on pass.
pub fn cpuclock_test(out: &mut dyn std::io::Write) -> bool {
    let _ = writeln!(out, "cpuclock test not implemented yet");
    false
}
