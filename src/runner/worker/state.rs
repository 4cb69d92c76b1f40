//! The I/O loop's state: what has been issued, what is in flight, where the pass
//! stands. One small value the loop owns, so its rules can be read (and tested) in
//! one place.

use crate::runner::plan::ThreadPlan;

/// The job's fixed limits, in the thread's clock.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub begin_ns: u64,
    pub ramp_end_ns: u64,
    /// End of runtime (u64::MAX without one).
    pub deadline_ns: u64,
    /// number_ios (u64::MAX without one).
    pub max_ios: u64,
    /// Bytes per pass.
    pub pass_bytes: u64,
    /// Passes end as fio's do: when every file is done, when the bytes issued over
    /// all passes reach `total_bytes` (fio's io_size · loops), or when the bytes an
    /// asynchronous engine queued in this pass reach `pass_cap` (fio's do_io limit,
    /// size=, which fio counts only for queued I/Os). Off for time-based and
    /// replaying jobs, whose passes are `pass_bytes` each.
    pub fio_passes: bool,
    pub total_bytes: u64,
    pub pass_cap: u64,
    /// Anything paces the job (rate, think time, flow=, a timed replay...); when not,
    /// the loop skips every pacing hook with this one test (see [`Limits::paced_by`]).
    pub paced: bool,
}

impl Limits {
    pub fn new(plan: &ThreadPlan, begin_ns: u64) -> Limits {
        let spec = &plan.spec;
        // ramp_size's ramp ends at an amount of I/O (ramp.rs), not at a time.
        let ramp_end_ns = match spec.ramp_size {
            0 => begin_ns + spec.ramp_time_us * 1000,
            _ => u64::MAX,
        };
        Limits {
            begin_ns,
            ramp_end_ns,
            deadline_ns: spec
                .runtime_us
                .map(|r| ramp_end_ns.saturating_add(r * 1000))
                .unwrap_or(u64::MAX),
            // fio counts number_ios over all loops (number_ios · loops) and ignores it
            // in a time-based job.
            max_ios: match spec.number_ios {
                Some(n) if !spec.time_based => n.saturating_mul(u64::from(spec.loops.max(1))),
                _ => u64::MAX,
            },
            pass_bytes: plan.pass_bytes,
            fio_passes: fio_passes(plan),
            total_bytes: plan.pass_bytes.saturating_mul(u64::from(spec.loops.max(1))),
            pass_cap: pass_cap(plan),
            paced: true,
        }
    }

    /// `paced` from the job's pacer (fixed for the run).
    pub fn paced_by(mut self, pacer: &crate::runner::pacing::Pacer, plan: &ThreadPlan) -> Limits {
        self.paced = !pacer.idle() || pacer.flow.is_some() || plan.replay.is_some();
        self
    }
}

/// Whether passes follow fio's rules (see [`Limits::fio_passes`]).
fn fio_passes(plan: &ThreadPlan) -> bool {
    !plan.spec.time_based && plan.replay.is_none()
}

/// fio's do_io limit: the job's size (size=, or its files'), raised to io_size for a
/// random write job without a random map, plus the size again for a verify_backlog
/// job's reads, plus everything a trimwrite writes.
fn pass_cap(plan: &ThreadPlan) -> u64 {
    let spec = &plan.spec;
    let mut cap = crate::runner::work_size::job_size(spec, &plan.files);
    if spec.writes() && spec.rw.random && spec.norandommap {
        cap = cap.max(spec.io_size.unwrap_or(0));
    }
    if spec.sprandom.enabled {
        // fio sets sprandom's io_size to the drive's physical size (pass_bytes).
        cap = cap.max(plan.pass_bytes);
    }
    if spec.verify.on() && spec.verify.backlog > 0 && spec.writes() {
        // fio's do_io leaves room for the backlog's reads: up to twice the size.
        cap = cap.saturating_add(crate::runner::work_size::job_size(spec, &plan.files));
    }
    if spec.rw.kind == ferrio_config::RwKind::TrimWrite {
        let total = plan.pass_bytes.saturating_mul(u64::from(spec.loops.max(1)));
        cap = cap.saturating_add(total);
    }
    cap
}

/// Counters of the loop.
#[derive(Clone, Debug, Default)]
pub struct LoopState {
    /// Still inside ramp_time: nothing is recorded.
    pub ramping: bool,
    /// Data I/Os generated so far (number_ios counts these).
    pub issued_ios: u64,
    /// Bytes generated in this pass.
    pub pass_issued: u64,
    /// Bytes generated over all passes (fio's io_issue_bytes).
    pub total_issued: u64,
    /// Bytes the engine queued (not completed at once) in this pass: fio's
    /// bytes_issued, which only queued I/Os add to.
    pub pass_queued: u64,
    /// Passes finished.
    pub passes: u32,
    /// Units handed to the engine and not completed yet (queued or submitted).
    pub inflight: usize,
    /// This pass has generated all its bytes.
    pub pass_done: bool,
    /// This pass ended because every file was done.
    pub files_done: bool,
    /// A generated unit the engine reported Busy for, to queue again after a reap.
    pub busy: Option<usize>,
    /// Units whose transfer was short: their rest is queued again (fio's requeue).
    pub retry: Vec<usize>,
    /// A commit failed: what was queued may never complete, so nothing is drained.
    pub submit_failed: bool,
    /// Writes issued since the last fsync=N / fdatasync=N sync.
    pub writes_since_sync: u32,
    /// The file that fsync=N says must be synced before the next I/O.
    pub sync_due: Option<usize>,
    /// The writes so far are a multiple of fsync=N's N (and not none): fio 3.33
    /// syncs again before the next I/O after any I/O but a sync (`count_other`,
    /// called with `fio_seeds=3.33` only).
    pub writes_at_sync: bool,
    /// sync_file_range: per file, the range [first, end) written since its last
    /// sync (fio's first_write / last_write); empty (0, 0) when none.
    pub written: Vec<(u64, u64)>,
}

impl LoopState {
    pub fn new(lim: &Limits, ramping: bool) -> LoopState {
        LoopState {
            ramping,
            pass_done: lim.pass_bytes == 0,
            ..Default::default()
        }
    }

    /// number_ios reached.
    #[inline]
    pub fn ios_exhausted(&self, lim: &Limits) -> bool {
        self.issued_ios >= lim.max_ios
    }

    /// Nothing more to generate in this pass (or at all).
    #[inline]
    pub fn out_of_work(&self, lim: &Limits) -> bool {
        self.pass_done || self.ios_exhausted(lim)
    }

    /// Nothing in flight, nothing waiting or to queue again, nothing left to
    /// generate: the pass is over.
    #[inline]
    pub fn pass_over(&self, lim: &Limits) -> bool {
        self.inflight == 0 && self.busy.is_none() && self.retry.is_empty() && self.out_of_work(lim)
    }

    /// One data I/O of `len` bytes generated (`follow_up`: a trimwrite's write half,
    /// which does not count toward the pass); `more_pending`: the pattern still holds
    /// a follow-up.
    #[inline]
    pub fn generated(&mut self, lim: &Limits, len: u64, follow_up: bool, more_pending: bool) {
        self.issued_ios += 1;
        if !follow_up {
            self.pass_issued += len;
            self.total_issued += len;
        }
        let reached = if lim.fio_passes {
            self.total_issued >= lim.total_bytes
        } else {
            self.pass_issued >= lim.pass_bytes
        };
        if reached && !more_pending {
            self.pass_done = true;
        }
    }

    /// The engine queued an I/O of `len` bytes (it did not complete at once): with
    /// fio's passes, the pass ends once these reach the pass's cap.
    #[inline]
    pub fn queued(&mut self, lim: &Limits, len: u64, more_pending: bool) {
        self.pass_queued += len;
        if lim.fio_passes && self.pass_queued >= lim.pass_cap && !more_pending {
            self.pass_done = true;
        }
    }

    /// A new pass starts (with fio's passes, one that finds the job's bytes all
    /// issued already issues nothing).
    pub fn restart_pass(&mut self, lim: &Limits) {
        self.pass_issued = 0;
        self.pass_queued = 0;
        self.pass_done = lim.fio_passes && self.total_issued >= lim.total_bytes;
        self.files_done = false;
    }

    /// sync_file_range: a write of `len` bytes at `offset` of `file` completed.
    pub fn note_write(&mut self, file: usize, offset: u64, len: u64) {
        if self.written.len() <= file {
            self.written.resize(file + 1, (0, 0));
        }
        let r = &mut self.written[file];
        *r = if r.1 == 0 {
            (offset, offset + len)
        } else {
            (r.0.min(offset), r.1.max(offset + len))
        };
    }

    /// The range written to `file` since its last sync, which a sync ends.
    pub fn take_written(&mut self, file: usize) -> (u64, u64) {
        self.written.get_mut(file).map_or((0, 0), std::mem::take)
    }

    /// fsync=N / fdatasync=N: count one issued write to `file`; every `every` writes
    /// the file is due a sync (issued before the next I/O, as fio does).
    #[inline]
    pub fn count_write(&mut self, every: u32, file: usize) {
        if every == 0 {
            return;
        }
        self.writes_since_sync += 1;
        self.writes_at_sync = self.writes_since_sync >= every;
        if self.writes_at_sync {
            self.writes_since_sync = 0;
            self.sync_due = Some(file);
        }
    }

    /// fsync=N as fio 3.33: a read or trim issued while the writes are still at a
    /// multiple of N. fio 3.33 decided a sync from its write count and whether the
    /// last I/O was a sync, so a read after the sync made it sync again before the
    /// next I/O (fio 3.38 also asks that the last I/O was a write).
    #[inline]
    pub fn count_other(&mut self, file: usize) {
        if self.writes_at_sync {
            self.sync_due = Some(file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Limits, LoopState};

    fn fio_limits(pass_bytes: u64, loops: u64, pass_cap: u64) -> Limits {
        Limits {
            begin_ns: 0,
            ramp_end_ns: 0,
            deadline_ns: u64::MAX,
            max_ios: u64::MAX,
            pass_bytes,
            fio_passes: true,
            total_bytes: pass_bytes * loops,
            pass_cap,
            paced: true,
        }
    }

    #[test]
    fn fio_passes_end_at_the_bytes_of_all_loops_or_the_queued_cap() {
        // 16 KiB a loop, 3 loops: a pass that ran long (its files never done) leaves
        // the next one only what is left of 48 KiB.
        let lim = fio_limits(16 << 10, 3, u64::MAX);
        let mut st = LoopState::new(&lim, false);
        for _ in 0..10 {
            st.generated(&lim, 4096, false, false);
        }
        assert!(!st.pass_done, "40 KiB of 48 KiB");
        st.restart_pass(&lim);
        st.generated(&lim, 4096, false, false);
        assert!(!st.pass_done);
        st.generated(&lim, 4096, false, false);
        assert!(st.pass_done, "48 KiB issued over both passes");
        // Nothing is left for a third pass.
        st.restart_pass(&lim);
        assert!(st.pass_done);
        // Queued I/Os end a pass at the cap, whatever is left overall.
        let lim = fio_limits(16 << 10, 3, 8 << 10);
        let mut st = LoopState::new(&lim, false);
        st.generated(&lim, 4096, false, false);
        st.queued(&lim, 4096, false);
        assert!(!st.pass_done);
        st.generated(&lim, 4096, false, false);
        st.queued(&lim, 4096, false);
        assert!(st.pass_done);
        st.restart_pass(&lim);
        assert!(!st.pass_done && st.pass_queued == 0 && st.total_issued == 8192);
    }

    #[test]
    fn a_read_at_a_multiple_of_n_writes_is_synced_again_as_fio() {
        let mut st = LoopState::new(&fio_limits(1 << 20, 1, u64::MAX), false);
        st.count_other(0);
        assert_eq!(st.sync_due, None, "no write yet: no sync");
        st.count_write(2, 0);
        assert_eq!(st.sync_due, None);
        st.count_write(2, 0);
        assert_eq!(st.sync_due.take(), Some(0), "the 2nd write");
        st.count_other(0);
        assert_eq!(st.sync_due.take(), Some(0), "still 2 writes: again");
        st.count_write(2, 0);
        st.count_other(0);
        assert_eq!(st.sync_due, None, "3 writes: none");
    }

    #[test]
    fn written_range_spans_writes_and_a_sync_ends_it() {
        let mut st = LoopState::default();
        assert_eq!(st.take_written(0), (0, 0));
        st.note_write(1, 8192, 4096);
        st.note_write(1, 0, 4096);
        st.note_write(1, 4096, 1024);
        assert_eq!(st.take_written(0), (0, 0));
        assert_eq!(st.take_written(1), (0, 12288));
        assert_eq!(st.take_written(1), (0, 0));
        st.note_write(1, 12288, 4096);
        assert_eq!(st.take_written(1), (12288, 16384));
    }
}
