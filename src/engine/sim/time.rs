//! Where the simulated device's time comes from. In virtual time the device *is* the
//! clock: waiting for a completion moves the thread's virtual clock to it. In real
//! time the device waits for real: it sleeps until shortly before the completion time
//! and spins the rest, so completions are never early and rarely more than a few
//! microseconds late.

use ferrio_clock::VirtualHandle;
use std::time::{Duration, Instant};

/// Sleep only when at least this much is left; spin for the last of it.
const SPIN_NS: u64 = 150_000;

pub enum TimeBase {
    Virtual(VirtualHandle),
    Real(Instant),
}

impl TimeBase {
    pub fn new(virtual_clock: Option<VirtualHandle>) -> TimeBase {
        match virtual_clock {
            Some(h) => TimeBase::Virtual(h),
            None => TimeBase::Real(Instant::now()),
        }
    }

    pub fn is_virtual(&self) -> bool {
        matches!(self, TimeBase::Virtual(_))
    }

    /// Now, in ns (virtual: the thread's clock; real: since the engine was created).
    #[inline]
    pub fn now(&self) -> u64 {
        match self {
            TimeBase::Virtual(h) => h.now_ns(),
            TimeBase::Real(origin) => origin.elapsed().as_nanos() as u64,
        }
    }

    /// Let time reach `t_ns`; returns the time now (>= t_ns).
    pub fn wait_until(&self, t_ns: u64) -> u64 {
        match self {
            TimeBase::Virtual(h) => {
                let now = h.now_ns();
                if t_ns > now {
                    h.set_ns(t_ns);
                    t_ns
                } else {
                    now
                }
            }
            TimeBase::Real(_) => {
                let mut now = self.now();
                while now < t_ns {
                    let left = t_ns - now;
                    if left > SPIN_NS {
                        std::thread::sleep(Duration::from_nanos(left - SPIN_NS));
                    } else {
                        std::hint::spin_loop();
                    }
                    now = self.now();
                }
                now
            }
        }
    }
}
