//! ramp_size (fio 3.42): the ramp period ends once the job has completed this many
//! bytes, or, with group_reporting, once its reporting group has together. Each
//! thread adds what it completes while ramping to a counter it shares with its
//! group (a counter of its own without group_reporting) and ends its ramp when the
//! counter reaches ramp_size. fio checks this from its helper thread once a second;
//! ferrio at each step of the I/O loop, so the ramp ends at the I/O that reaches it.
//! The planner hands the counters out (`planner::share_ramp_counters`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes completed during a ramp, shared by the threads that ramp together.
#[derive(Debug, Default)]
pub struct RampBytes(AtomicU64);

impl RampBytes {
    /// Add a completed I/O's bytes.
    pub fn add(&self, bytes: u64) {
        self.0.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Whether the total has reached `ramp_size` (another thread of the group may
    /// have got it there).
    pub fn reached(&self, ramp_size: u64) -> bool {
        self.0.load(Ordering::Relaxed) >= ramp_size
    }
}

#[cfg(test)]
mod tests {
    use super::RampBytes;

    #[test]
    fn the_ramp_ends_at_the_io_that_reaches_its_size() {
        let r = RampBytes::default();
        r.add(4096);
        assert!(!r.reached(8192));
        r.add(4096);
        assert!(r.reached(8192));
    }
}
