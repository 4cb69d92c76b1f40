//! The worker's pacing glue (the rules live in `runner::pacing`): the rate wait
//! before an I/O's start is stamped, after each step the think time, the
//! minimum-rate check and the latency-target search (which caps the queue depth),
//! and before each step flow control across jobs. Both waits first empty the queue, as fio's io_u_quiesce:
//! a paced I/O then never queues behind the ones before it, so its latency is the
//! device's alone.

use super::super::account::ddir_of;
use super::Worker;
use crate::engine::IoOp;
use crate::runner::pacing::{Step, Waiter};
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
    /// one, and return the due time. None when its direction is not paced; Err when
    /// the wait ran into the runtime's end or a stop: the I/O is not issued (fio's
    /// rate_ddir gives DDIR_INVAL then), so a time_based job of T seconds at R per
    /// second issues R×T I/Os, not one more at the deadline.
    pub(super) fn pace(&mut self, op: IoOp, len: u64) -> Result<Option<u64>, ()> {
        if !self.lim.paced {
            return Ok(None); // nothing paces this job: one test per I/O
        }
        let d = ddir_of(op);
        if d < 3 {
            self.pacer.last_dir = d;
        }
        if self.pacer.rate.is_none() && self.pacer.adaptive.is_none() && self.plan.replay.is_none()
        {
            return Ok(None); // nothing paces this job (the common case: one test per I/O)
        }
        // (A replayed sync moves no data: no rate holds it.)
        let rated = if d < 3 { self.pacer.due_ns(d) } else { None };
        if rated.is_some() {
            self.pacer.issued(d, len);
        }
        let replayed = self.replay_due();
        let pacer = self.pacer.pacer_due_ns();
        let Some(due) = rated.max(replayed).max(pacer) else {
            if self.plan.replay.is_some() {
                // An entry without a gap still starts the next one's.
                self.pacer.replay_last_ns = Some(self.clock.now_ns());
            }
            return Ok(None);
        };
        let clock = self.clock;
        let now = clock.now_ns();
        if due > now {
            // fio empties the queue before a rate wait in inline mode only; the
            // adaptive pacer spaces submissions with I/Os in flight.
            if rated.max(replayed) > Some(now) && !self.plan.spec.pacing.offload {
                self.quiesce();
            }
            let deadline = self.lim.deadline_ns;
            let woke = self.waiter.wait_until(clock, due.min(deadline));
            if woke < due || woke >= deadline {
                // Idle at the deadline: the job's run ends there, not when a late
                // thread woke up after it (on a busy machine that can be ms later,
                // which would show as a rate below the target).
                if woke >= deadline && self.st.inflight == 0 && self.io.units.pending.is_empty() {
                    self.pacer.ended_ns = Some(deadline);
                }
                return Err(());
            }
        }
        if self.plan.replay.is_some() {
            self.pacer.replay_last_ns = Some(clock.now_ns());
        }
        if let Some(a) = &mut self.pacer.adaptive {
            a.released(clock.now_ns());
        }
        Ok(Some(due))
    }

    /// Before a paced job's next I/O is generated: show the pattern the clock and
    /// each direction's due time (fio's rate_ddir turns a mixed job to the direction
    /// that is behind its rate). Only a mixed job turns, so only it pays the clock read.
    #[inline]
    pub(super) fn rate_view(&mut self) {
        if !self.lim.paced {
            return;
        }
        if self.pacer.rate.is_some() && self.plan.spec.rw.kind == ferrio_config::RwKind::ReadWrite {
            let due = [self.pacer.due_ns(0), self.pacer.due_ns(1)];
            self.pattern.rate_view = Some((self.clock.now_ns(), due));
        }
    }

    /// Timed iolog replay (fio's iolog_delay): the I/O just generated is due its
    /// logged gap after the previous one started, and not before a v2 wait's time.
    fn replay_due(&self) -> Option<u64> {
        let (delay_us, at_ms) = self.pattern.replay_timing()?;
        let after = self
            .pacer
            .replay_last_ns
            .map(|t| t.saturating_add(delay_us.saturating_mul(1000)));
        let at = at_ms.map(|ms| {
            self.lim
                .begin_ns
                .saturating_add(ms.saturating_mul(1_000_000))
        });
        after.max(at)
    }

    /// After a step: a think time when one is due, then the rate_min check. False
    /// when the job must stop (a minimum rate was missed: the error is recorded).
    pub(super) fn after_step(&mut self) -> bool {
        let clock = self.clock;
        // thinkcycles first, then thinktime, as fio's do_io (not part of the think
        // time, nor of any latency: the next I/O's start is stamped after it).
        self.pacer.spin_cycles(self.st.issued_ios);
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
        if self.acct.lat_target.is_some() && !self.st.ramping && !self.latency_target_step() {
            return false;
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

    /// latency_target: empty the queue after a ramp-down, judge the window when it
    /// is over, restart the statistics for the final window at the depth found, and
    /// end the job when that window met the target (false).
    fn latency_target_step(&mut self) -> bool {
        if self.acct.lat_target.as_ref().is_some_and(|t| t.quiesce) {
            self.quiesce();
        }
        let now = self.last_read.unwrap_or_else(|| self.clock.now_ns());
        let ios = self.acct.stats.dir.iter().map(|s| s.total_ios).sum();
        let Some(t) = &mut self.acct.lat_target else {
            return true;
        };
        t.quiesce = false;
        let step = t.check(now, ios);
        self.acct.stats.latency_depth = t.qd;
        match step {
            Step::Go => true,
            Step::Done => false,
            Step::FinalRun => {
                // fio: quiesce, then reset every statistic; the job's result is this
                // last window's.
                self.quiesce();
                let now = self.clock.now_ns();
                self.acct.reset(now);
                self.stats_start_ns = now;
                self.last_read = Some(now);
                true
            }
        }
    }

    /// latency_target caps the queue depth at the search's current depth (fio's
    /// queue_full).
    #[inline]
    pub(super) fn depth_capped(&self) -> bool {
        self.acct
            .lat_target
            .as_ref()
            .is_some_and(|t| self.st.inflight >= t.qd as usize)
    }

    /// flow=: this turn is held back (fio's flow_threshold_exceeded). With
    /// flow_sleep the queue is emptied and the job sleeps; without, it yields the
    /// CPU to the jobs it waits for.
    pub(super) fn flow_held(&mut self) -> bool {
        let Some(flow) = &mut self.pacer.flow else {
            return false;
        };
        if !flow.held() {
            return false;
        }
        let sleep = flow.sleep_ns;
        if sleep > 0 {
            // fio usleeps: the jobs it waits for need the CPU more than an exact wake-up.
            self.quiesce();
            let left = self.lim.deadline_ns.saturating_sub(self.clock.now_ns());
            self.waiter.nap(sleep.min(left).max(1));
        } else {
            std::thread::yield_now();
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
