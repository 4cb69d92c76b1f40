//! When the loop reaps and how much: fio's `wait_for_completions` (a full queue, or
//! polling) and the end of a pass (everything in flight; after an error, as
//! `cleanup_pending_aio`).

use super::Worker;

impl Worker<'_> {
    /// fio's wait_for_completions: when the queue is full (or completions are
    /// polled), reap at least iodepth_batch_complete_min, and keep reaping while more
    /// than iodepth_low are in flight. An error is recorded and ends the wait.
    ///
    /// Called once per step: the test for a full queue is inlined into the loop and
    /// the reaping kept out of line (a call with its register saves on every step
    /// cost ~15 instructions per I/O where most steps reap nothing).
    #[inline]
    pub(super) fn wait_for_completions(&mut self) {
        let full = self.io.units.free.is_empty()
            || self.st.busy.is_some()
            || self.file_busy
            || self.depth_capped();
        if full || self.batching.polling {
            self.reap_while_full(full);
        }
    }

    #[inline(never)]
    fn reap_while_full(&mut self, full: bool) {
        let b = self.batching;
        let mut min = b.complete_min.min(self.st.inflight);
        if (full && min == 0) || b.complete_min == 0 {
            min = 1;
        }
        loop {
            if !self.io.units.pending.is_empty() && self.commit().is_none() {
                break;
            }
            if self.reap(min, b.complete_max).is_none() {
                break;
            }
            if !(full && self.st.inflight > b.low) || self.acct.error.is_some() {
                break;
            }
            min = min.min(self.st.inflight).max(1);
        }
    }

    /// Complete everything in flight, as fio does once a pass has nothing left to
    /// issue (do_io's last `io_u_queued_complete(td, cur_depth)`): commit what is
    /// queued and wait for all the rest — unlike fio, as they come (at least one per
    /// reap), so each is stamped when it completed, not when the last one did. After
    /// an error, first one look for completions without waiting (at most
    /// iodepth_batch_complete_max), as fio's cleanup_pending_aio. (That look used to
    /// come first on every drain: with libaio's buffered I/O, all complete already, it
    /// took one completion where fio's single reap takes them all, one more entry in
    /// the complete map than fio's.) Returns the time, or None when a reap or commit
    /// failed. After a failed commit nothing is waited for: what was queued may never
    /// complete.
    pub(super) fn drain(&mut self) -> Option<u64> {
        if self.st.submit_failed {
            return Some(self.clock.now_ns());
        }
        let mut now = if self.acct.error.is_some() {
            self.reap(0, self.batching.complete_max)?
        } else {
            self.clock.now_ns()
        };
        if !self.io.units.pending.is_empty() {
            now = self.commit()?;
        }
        // Even after an I/O error: the kernel may still be using the buffers. A
        // short transfer's rest is queued by the loop (or abandoned at the end).
        while self.st.inflight > 0 && self.st.retry.is_empty() {
            now = self.reap(1, self.st.inflight)?;
        }
        Some(now)
    }
}
