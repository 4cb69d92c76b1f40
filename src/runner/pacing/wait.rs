//! Waiting until a time: sleep then spin on a real clock; move the clock in virtual
//! time.

use ferrio_clock::{Clock, VirtualHandle};
use std::time::Duration;

/// Below this much left, spin instead of sleeping: a sleep overshoots by tens of
/// microseconds (timer slack), a spin ends on time.
const SPIN_NS: u64 = 100_000;

/// How the thread waits.
#[derive(Clone, Debug, Default)]
pub enum Waiter {
    /// On the real clock: sleep, then spin the last [`SPIN_NS`].
    #[default]
    Real,
    /// In virtual time: set the clock forward (the simulated device's clock).
    Virtual(VirtualHandle),
}

impl Waiter {
    /// Wait until `clock` reads at least `t`; returns the reading after the wait.
    pub fn wait_until(&self, clock: &Clock, t: u64) -> u64 {
        loop {
            let now = clock.now_ns();
            if now >= t {
                return now;
            }
            match self {
                Waiter::Virtual(h) => h.advance_ns(t - now),
                Waiter::Real if t - now > SPIN_NS => {
                    std::thread::sleep(Duration::from_nanos(t - now - SPIN_NS))
                }
                Waiter::Real => std::hint::spin_loop(),
            }
        }
    }

    /// Spin (never sleep) until `clock` reads at least `t` (thinktime_spin).
    pub fn spin_until(&self, clock: &Clock, t: u64) -> u64 {
        loop {
            let now = clock.now_ns();
            if now >= t {
                return now;
            }
            match self {
                Waiter::Virtual(h) => h.advance_ns(t - now),
                Waiter::Real => std::hint::spin_loop(),
            }
        }
    }
}
