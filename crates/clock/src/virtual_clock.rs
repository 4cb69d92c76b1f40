//! The virtual clock: time that only moves when told to (tests, simulated devices).
//!
//! A [`crate::Clock`] built by [`crate::Clock::virtual_clock`] reads a shared atomic
//! nanosecond counter; the paired [`VirtualHandle`] advances or sets it. Reads are a
//! single relaxed load, writes are sequentially consistent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Advances a virtual clock (tests, simulated device).
#[derive(Clone, Debug)]
pub struct VirtualHandle(pub(crate) Arc<AtomicU64>);

impl VirtualHandle {
    /// Move the clock forward by `ns` (wrapping at `u64::MAX`).
    pub fn advance_ns(&self, ns: u64) {
        self.0.fetch_add(ns, Ordering::SeqCst);
    }

    /// Set the clock to `ns`; setting it backwards is allowed (tests of clock faults).
    pub fn set_ns(&self, ns: u64) {
        self.0.store(ns, Ordering::SeqCst);
    }

    /// The clock's current value.
    pub fn now_ns(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use crate::Clock;

    #[test]
    fn moves_only_when_told() {
        let (clock, h) = Clock::virtual_clock();
        assert_eq!(clock.source_name(), "virtual");
        assert_eq!(clock.now_ns(), 0);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_eq!(clock.now_ns(), 0);
        h.advance_ns(1_500);
        assert_eq!(clock.now_ns(), 1_500);
        h.advance_ns(500);
        assert_eq!(clock.now_ns(), 2_000);
        h.set_ns(10);
        assert_eq!(clock.now_ns(), 10);
        assert_eq!(h.now_ns(), 10);
    }

    #[test]
    fn clones_and_threads_share_one_time() {
        let (clock, h) = Clock::virtual_clock();
        let c2 = clock.clone();
        let h2 = h.clone();
        std::thread::spawn(move || h2.advance_ns(7)).join().unwrap();
        assert_eq!(c2.now_ns(), 7);
        let seen = std::thread::spawn(move || c2.now_ns()).join().unwrap();
        assert_eq!(seen, 7);
        // Separate virtual clocks are independent.
        let (other, _) = Clock::virtual_clock();
        assert_eq!(other.now_ns(), 0);
        assert_eq!(clock.now_ns(), 7);
    }
}
