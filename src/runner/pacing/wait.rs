//! Waiting until a time: sleep then spin on a real clock; move the clock in virtual
//! time. A real wait wakes up at least every [`SLICE_NS`] to see whether the run was
//! told to stop, so a long think time or a low rate never delays Ctrl-C.

use ferrio_clock::{Clock, VirtualHandle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Below this much left, spin instead of sleeping: a sleep overshoots by tens of
/// microseconds (timer slack), a spin ends on time.
const SPIN_NS: u64 = 100_000;
/// The longest single sleep: how late a stop request may be noticed.
const SLICE_NS: u64 = 10_000_000;

/// How the thread waits.
#[derive(Clone, Debug)]
pub enum Waiter<'a> {
    /// On the real clock: sleep, then spin the last [`SPIN_NS`]; give up early when
    /// the flag (the run's stop request) is set.
    Real(Option<&'a AtomicBool>),
    /// In virtual time: set the clock forward (the simulated device's clock).
    Virtual(VirtualHandle),
}

impl Default for Waiter<'_> {
    fn default() -> Self {
        Waiter::Real(None)
    }
}

impl Waiter<'_> {
    /// Wait until `clock` reads at least `t` (or, on the real clock, until a stop is
    /// requested); returns the reading after the wait.
    pub fn wait_until(&self, clock: &Clock, t: u64) -> u64 {
        loop {
            let now = clock.now_ns();
            if now >= t || self.stopped() {
                return now;
            }
            match self {
                Waiter::Virtual(h) => h.advance_ns(t - now),
                Waiter::Real(_) if t - now > SPIN_NS => {
                    std::thread::sleep(Duration::from_nanos((t - now - SPIN_NS).min(SLICE_NS)))
                }
                Waiter::Real(_) => std::hint::spin_loop(),
            }
        }
    }

    /// Spin (never sleep) until `clock` reads at least `t` (thinktime_spin), or a
    /// stop is requested.
    pub fn spin_until(&self, clock: &Clock, t: u64) -> u64 {
        loop {
            let now = clock.now_ns();
            if now >= t || self.stopped() {
                return now;
            }
            match self {
                Waiter::Virtual(h) => h.advance_ns(t - now),
                Waiter::Real(_) => std::hint::spin_loop(),
            }
        }
    }

    /// Sleep about `ns` (never spin: another thread is to run meanwhile, so a sleep
    /// that overshoots is better than a spin that holds the CPU it waits for); in
    /// virtual time, move the clock by `ns`.
    pub fn nap(&self, ns: u64) {
        match self {
            Waiter::Virtual(h) => h.advance_ns(ns),
            Waiter::Real(_) if !self.stopped() => {
                std::thread::sleep(Duration::from_nanos(ns.min(SLICE_NS)))
            }
            Waiter::Real(_) => {}
        }
    }

    fn stopped(&self) -> bool {
        matches!(self, Waiter::Real(Some(stop)) if stop.load(Ordering::Relaxed))
    }
}
