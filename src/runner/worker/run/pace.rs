//! The worker's pacing glue (the rules live in `runner::pacing`): the rate wait
//! before an I/O's start is stamped, and after each step the think time and the
//! minimum-rate check. Both waits first empty the queue, as fio's io_u_quiesce:
//! a paced I/O then never queues behind the ones before it, so its latency is the
//! device's alone.

use super::super::account::ddir_of;
use super::Worker;
use crate::engine::IoOp;
use crate::runner::pacing::Waiter;
use ferrio_clock::VirtualHandle;
use std::sync::atomic::AtomicBool;

impl<'a> Worker<'a> {
    /// Wait in virtual time: a wait moves the job's virtual clock through `h`
    /// (the handle the simulated device advances) instead of sleeping.
    pub fn in_virtual_time(mut self, h: VirtualHandle) -> Self {
        self.waiter = Waiter::Virtual(h);
        self
    }

    /// Real-time waits end early when `stop` is set (a signal, exitall, a trigger).
    pub fn stoppable(mut self, stop: &'a AtomicBool) -> Self {
        self.waiter = Waiter::Real(Some(stop));
        self
    }

    /// An I/O of `op`, `len` bytes, is about to start: when it is paced, empty the
    /// queue and wait for its due time (never past the runtime), schedule the next
    /// one, and return the due time. None when its direction is not paced.
    pub(super) fn pace(&mut self, op: IoOp, len: u64) -> Option<u64> {
        let d = ddir_of(op);
        self.pacer.last_dir = d;
        let due = self.pacer.due_ns(d)?;
        self.pacer.issued(d, len);
        let clock = self.clock;
        if due > clock.now_ns() {
            self.quiesce();
            self.waiter.wait_until(clock, due.min(self.lim.deadline_ns));
        }
        Some(due)
    }

    /// After a step: a think time when one is due, then the rate_min check. False
    /// when the job must stop (a minimum rate was missed: the error is recorded).
    pub(super) fn after_step(&mut self) -> bool {
        let clock = self.clock;
        if let Some(think) = &mut self.pacer.think {
            let unfinished =
                self.st.inflight + self.st.retry.len() + self.st.busy.is_some() as usize;
            let completed = self.st.issued_ios.saturating_sub(unfinished as u64);
            let last_read = self.last_read;
            if think.take(self.st.issued_ios, completed, || {
                last_read.unwrap_or_else(|| clock.now_ns())
            }) {
                // An engine that paces itself (cpuio's qsort) may ask for another.
                let total = self.io.engine.think_time_ns().unwrap_or(think.total_ns);
                let (spin, ignore) = (think.spin_ns, think.ignore_for_rate);
                self.quiesce();
                let start = clock.now_ns();
                let end = start.saturating_add(total).min(self.lim.deadline_ns);
                self.waiter
                    .spin_until(clock, start.saturating_add(spin).min(end));
                let now = self.waiter.wait_until(clock, end);
                if let Some(think) = &mut self.pacer.think {
                    think.ended(now);
                }
                if ignore {
                    if let Some(r) = &mut self.pacer.rate {
                        r.skip(self.pacer.last_dir, now - start);
                    }
                }
                self.last_read = Some(now);
            }
        }
        if let (Some(m), false) = (&mut self.pacer.min_rate, self.st.ramping) {
            let now = self.last_read.unwrap_or_else(|| clock.now_ns());
            let dirs = &self.acct.stats.dir;
            let done = std::array::from_fn(|d| (dirs[d].io_bytes, dirs[d].total_ios));
            if let Some(msg) = m.check(now, done) {
                self.acct.error = Some((libc::EIO, msg));
                return false;
            }
        }
        true
    }

    /// Commit what is queued and complete everything in flight (fio's io_u_quiesce).
    fn quiesce(&mut self) {
        if !self.io.units.pending.is_empty() && self.commit().is_none() {
            return;
        }
        while self.st.inflight > 0 && self.acct.error.is_none() {
            if self.reap(1, self.st.inflight).is_none() {
                return;
            }
        }
    }
}
