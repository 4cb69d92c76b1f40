//! RAMP glue: ramp_size's byte count (runner/ramp.rs) and what its end moves. A
//! ramp_time ramp ends at `Limits::ramp_end_ns`; these only act for ramp_size.

use super::Worker;

impl Worker<'_> {
    /// Count a completed I/O's bytes toward ramp_size (called while ramping).
    #[cold]
    pub(super) fn ramp_progress(&self, bytes: u64) {
        if let Some(r) = &self.plan.ramp_bytes {
            r.add(bytes);
        }
    }

    /// Whether this thread's (or its group's) ramp_size is done.
    pub(super) fn ramp_size_reached(&self) -> bool {
        let size = self.plan.spec.ramp_size;
        self.plan
            .ramp_bytes
            .as_ref()
            .is_some_and(|r| r.reached(size))
    }

    /// A ramp_size ramp ended at `now`: runtime counts from here, as it counts from
    /// the end of ramp_time (fio resets the job's epoch at the ramp's end).
    pub(super) fn ramp_size_over(&mut self, now: u64) {
        if self.plan.spec.ramp_size == 0 {
            return;
        }
        if let Some(r) = self.plan.spec.runtime_us {
            self.lim.deadline_ns = now.saturating_add(r.saturating_mul(1000));
        }
    }
}
