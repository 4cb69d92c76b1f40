//! Where one pass of a job ends and the next begins: fio's loops, io_size and
//! time_based rules (`pass_ended`, `more_passes`) and what a new pass resets
//! (`new_pass`).

use super::super::setup;
use super::Worker;

impl Worker<'_> {
    /// Start the next pass (loops, or a time_based wrap). fio closes and reopens each
    /// file between passes, invalidating its page cache again when invalidate=1 is set;
    /// ferrio keeps the files open but drops their cached pages the same way, so a
    /// time-based job does the same work under both.
    pub(super) fn new_pass(&mut self) {
        if self.pattern.reset_pass() {
            self.io.units.new_pass();
            if let Some(v) = self.verify.as_mut() {
                v.new_pass(); // VERIFY: the blocks' seeds, as the offsets
            }
        }
        self.io.engine.new_pass();
        let spec = &self.plan.spec;
        if spec.dropin.unlink_each_loop {
            if let Err(e) = crate::runner::dropin::unlink_and_reopen(self.plan, &self.io.files) {
                self.acct.error = Some(e);
            }
        }
        self.invalidate_files();
    }

    /// invalidate=1: drop the job's region of each open file from the page cache, as
    /// fio at each open: the run's start (fio opens inside the job's runtime and CPU
    /// window), each pass, and the verify read-back (fio closes the files after the
    /// writes and reopens them, so the read-back reads what reached the file, not
    /// the cached pages, as far as writeback has gone).
    pub(super) fn invalidate_files(&self) {
        if !setup::invalidates(self.plan) {
            return;
        }
        for (f, handle) in self.io.files.iter().enumerate() {
            if let Some(handle) = handle {
                setup::invalidate_region(self.plan, f, handle);
            }
        }
    }

    /// A pass ended with nothing in flight: start the next one (time_based, loops) and
    /// return true, or return false when the job is done (number_ios reached included).
    pub(super) fn pass_ended(&mut self) -> bool {
        if self.st.ios_exhausted(&self.lim) {
            return false;
        }
        self.st.passes += 1;
        let spec = &self.plan.spec;
        if self.lim.fio_passes && self.st.pass_issued == 0 {
            return false; // fio: a pass that moved nothing ends the job
        }
        if self.pattern.sprandom_done() {
            return false; // fio: sprandom's end is the job's (loops too)
        }
        if spec.time_based || self.st.passes < spec.loops.max(1) || self.more_passes() {
            if self.verify.as_ref().is_some_and(|v| v.each_loop) {
                return false; // VERIFY: this loop's blocks are checked first
            }
            if !spec.time_based {
                // A loop ends: fio's do_io ends with a sync of each file (end_fsync,
                // fsync_on_close), every loop; the last loop's is in `finish`.
                self.log_end_syncs();
                if self.syncs_at_loop_end() {
                    self.end_syncs();
                }
            }
            self.new_pass();
            self.acct.error.is_none()
        } else {
            false
        }
    }

    /// fio's keep_running once `loops` passes are done: another pass while the bytes
    /// moved (a verifying job's read-back included, as fio's io_bytes) fall short of
    /// the job's size (or io_size) by a block or more, unless the files ran out
    /// without an io_size= asking for more. A writing job's verify phase reopens
    /// its files (fio's clear_io_state), so they are never out after one: a pass
    /// that skips (`rw=write:16k`) runs again until the bytes add up.
    pub(super) fn more_passes(&self) -> bool {
        if !self.lim.fio_passes {
            return false;
        }
        let reopened = self
            .verify
            .as_ref()
            .is_some_and(|v| v.each_loop && v.do_verify);
        let files_done = self.st.files_done && !reopened;
        let spec = &self.plan.spec;
        let max_bs = spec.bs.iter().map(|b| b.max).max().unwrap_or(0);
        let read_back = self.verify.as_ref().map_or(0, |v| v.read_back);
        let moved = self.st.total_issued.saturating_add(read_back);
        let left = self.lim.pass_bytes.saturating_sub(moved);
        left > 0 && left >= max_bs && !(files_done && spec.io_size.is_none())
    }
}
