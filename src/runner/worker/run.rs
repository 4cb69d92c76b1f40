//! The I/O loop. One iteration is fio's do_io step: (1) generate and queue one I/O,
//! committing a full submit batch; (2) when the queue is full (or completions are
//! polled, or no work is left), reap as iodepth_batch_complete_min/max and iodepth_low
//! say. Passes wrap (loops, time_based), ramp_time discards what came before it, and
//! the first error stops the job unless the error policy (continue_on_error,
//! ignore_error) makes it non-fatal: then it is counted and the loop goes on.

use super::account::Accounting;
use super::setup::Io;
use super::state::{Limits, LoopState};
use super::units::UnitTimes;
use crate::engine::{Accounting as Counts, IoOp, Queued};
use crate::runner::observer::{Observers, Verdict};
use crate::runner::pattern::Pattern;
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::ThreadResult;
use crate::runner::region::Region;
use crate::sys::rusage::Usage;
use ferrio_clock::Clock;
use ferrio_config::ext::engine::Batching;
use std::sync::atomic::{AtomicBool, Ordering};

// PACING: the rate wait, think time and minimum-rate check (glue to runner::pacing).
mod pace;
// Where a pass ends and the next begins (loops, io_size, time_based).
mod passes;
// ZONES: zonemode=zbd moves each I/O (glue to runner::zones).
mod zones;
// VERIFY: verify data in written blocks, the read-back (glue to crate::verify).
mod verify;
// CMDPRIO: per-command priorities, uncached's errors (glue to runner::cmdprio).
mod prio;
// openfiles < nrfiles: files opened and closed during the run.
mod files;
// fio's wait_for_completions and cleanup_pending_aio: when and how much to reap.
mod wait;
// The unit to queue next: the lean path and the options' per-I/O extras.
mod issue;
// RAMP: ramp_size's byte count and its end.
mod ramp;

/// What became of a completed I/O.
enum Residual {
    /// Complete (whole, failed with -errno, or a sync): account it.
    Done,
    /// Short: the rest is to be issued again.
    Again,
    /// Nothing transferred, a fatal error: the job's error is set.
    Failed,
    /// Nothing transferred, a non-fatal error: counted, the unit is free again.
    Dropped,
}

pub struct Worker<'a> {
    plan: &'a ThreadPlan,
    clock: &'a Clock,
    io: Io,
    acct: Accounting,
    st: LoopState,
    lim: Limits,
    batching: Batching,
    pattern: Pattern,
    synchronous: bool,
    /// The engine moves no data (cpuio, exec): it may end the job itself.
    no_data: bool,
    /// fsync=N / fdatasync=N: sync every this many writes (0: never).
    sync_every: u32,
    /// The sync is an fdatasync.
    sync_data_only: bool,
    /// fio 3.33's fsync=N (`fio_seeds=3.33`): a read or trim while the writes are
    /// still at a multiple of N is synced again. fio 3.38 syncs only right after a
    /// write (its commit 704a8cfe), as ferrio does by default.
    sync_after_reads: bool,
    /// The sync is a sync_file_range with these flags.
    sync_range_flags: Option<u32>,
    /// serialize_overlap: per unit, whether it is in flight (empty when off).
    in_flight: Vec<bool>,
    /// Start of the measured phase (after ramp_time).
    stats_start_ns: u64,
    /// The latest clock reading of the current step, if it took one.
    last_read: Option<u64>,
    // PACING
    pacer: crate::runner::pacing::Pacer,
    waiter: crate::runner::pacing::Waiter<'a>,
    // ZONES: zonemode=zbd, and the writes completed since it last looked.
    zbd: Option<crate::runner::zones::Zbd>,
    zoned: bool,
    zone_done: Vec<(usize, u64, u64)>,
    // VERIFY
    verify: Option<crate::verify::Verifier>,
    // CMDPRIO: per-command priorities (runner/cmdprio.rs); None when off.
    cmdprio: Option<crate::runner::cmdprio::CmdPrio>,
    /// openfiles < nrfiles: I/Os are counted per file so a closed file waits for
    /// its I/Os in flight (files.rs); the file events the loop applies; fio's EBUSY.
    lazy_files: bool,
    file_busy: bool,
    file_events: Vec<(usize, bool)>,
    /// Fixed for the job (its options never change): whether an issue or a
    /// completion has per-I/O work beyond the plain job's (issue.rs,
    /// [`Worker::complete_extras`]), so a plain job pays one test for all of it.
    issue_extras: bool,
    complete_extras: bool,
    /// A plain job (no per-I/O extras, no zones, no polling): one step queues every
    /// I/O the engine takes while units are free, without the loop's checks between
    /// them (stop, deadline, periodic work: none of them is due within a few I/Os).
    burst: bool,
    /// The engine does file operations (only then may an I/O be untimed).
    file_ops: bool,
    /// VERIFY: end_fsync's sync was done before the read-back, after the last
    /// writes: the end of the job does not sync again.
    end_synced: bool,
}

impl<'a> Worker<'a> {
    /// `begin_ns`: the start of the job on `clock` (runtime and ramp count from it).
    pub fn new(
        plan: &'a ThreadPlan,
        clock: &'a Clock,
        mut io: Io,
        observers: Observers,
        begin_ns: u64,
    ) -> Self {
        let spec = &plan.spec;
        let synchronous = plan.caps.synchronous;
        let depth = io.units.io.len();
        let regions: Vec<Region> = plan.files.iter().map(|f| f.region).collect();
        let pacer = crate::runner::pacing::Pacer::new(plan, begin_ns);
        let lim = Limits::new(plan, begin_ns).paced_by(&pacer, plan);
        // CMDPRIO: without cmdprio, every I/O carries the job's own priority.
        let cmdprio = crate::runner::cmdprio::CmdPrio::new(spec, &plan.seeds, depth);
        if let (None, Some(v)) = (&cmdprio, spec.lifecycle.ioprio_value()) {
            for i in 0..depth {
                io.engine.set_ioprio(i, v as u16, false);
            }
        }
        let mut acct =
            Accounting::new(spec, synchronous, plan.caps.accounting, observers, begin_ns);
        acct.marks_queue_completed = !io.engine.fio_commit_hook();
        let mut w = Worker {
            cmdprio,
            plan,
            clock,
            acct,
            st: LoopState::new(&lim, spec.ramps()),
            lim,
            batching: spec.engine.batching(depth),
            pattern: {
                let mut p = Pattern::for_thread(plan, &regions, io.iolog.take());
                p.fio_passes = lim.fio_passes;
                if io.lazy {
                    p.track_files();
                }
                p
            },
            synchronous,
            no_data: plan.caps.accounting == Counts::NoData,
            sync_every: if spec.fsync > 0 {
                spec.fsync
            } else if spec.fdatasync > 0 {
                spec.fdatasync
            } else {
                spec.sync_file_range.map_or(0, |s| s.1)
            },
            sync_data_only: spec.fsync == 0,
            sync_after_reads: spec.fio_seeds == ferrio_config::FioSeeds::Fio333,
            // fio turns serialize_overlap off where nothing can overlap a write
            in_flight: if spec.serialize_overlap
                && depth > 1
                && (spec.writes() || spec.logs.read_iolog.is_some())
            {
                vec![false; depth]
            } else {
                Vec::new()
            },
            sync_range_flags: spec
                .sync_file_range
                .filter(|_| spec.fsync == 0 && spec.fdatasync == 0)
                .map(|s| s.0),
            stats_start_ns: begin_ns,
            last_read: None,
            // PACING
            pacer,
            waiter: Default::default(),
            zbd: None,
            zoned: false,
            zone_done: Vec::new(),
            // VERIFY: with no data kept (diskless but nbd) verify pretends, as fio's does.
            verify: crate::verify::Verifier::new(
                spec,
                (plan.job_index as u32 + plan.clone + 1) as u16,
                &plan.seeds,
            )
            .map(|v| if plan.discards() { v.pretend() } else { v }),
            lazy_files: spec
                .local
                .openfiles
                .is_some_and(|n| (n as usize) < regions.len()),
            file_busy: false,
            file_events: Vec::new(),
            issue_extras: true,
            complete_extras: true,
            burst: false,
            file_ops: plan.caps.accounting == Counts::FileOps,
            end_synced: false,
            io,
        };
        w.issue_extras = issue::issue_extras(
            w.lim.paced,
            w.lazy_files,
            w.verify.is_some(),
            w.sync_every,
            w.cmdprio.is_some(),
        );
        w.complete_extras = w.cmdprio.is_some()
            || w.sync_range_flags.is_some()
            || w.lazy_files
            || w.verify.is_some();
        // fio reaps after every queued I/O when it polls (iodepth_batch_complete_min
        // and _max 0): no burst then, or the depth maps would differ from fio's.
        w.burst = !w.issue_extras && !w.complete_extras && !w.batching.polling;
        w
    }

    /// Run until a stopping rule fires; hand back what was measured.
    ///
    /// Timing (docs/engines.md, "Where latency starts and ends"): an I/O's start is
    /// read once it is generated, right before the engine sees it — after the
    /// previous I/O's accounting and any periodic work; its completion right after
    /// the engine returns it. So no latency holds ferrio's own bookkeeping.
    pub fn run(mut self, stop: &AtomicBool) -> ThreadResult {
        let mut usage_start = Usage::thread();
        // Inside the job's runtime and CPU window, as fio's open of each file.
        self.invalidate_files();
        let mut now = self.clock.now_ns();
        self.verify_load_state(); // VERIFY
        loop {
            // VERIFY: verify_only issues nothing but the verify reads.
            let t0 = now;
            if !self.verify_dry_run() {
                self.end_synced = false;
                now = self.io_loop(stop, now, &mut usage_start);
                self.trim_the_rest(stop, now); // VERIFY: trim_backlog's picks
                self.log_end_syncs();
                now = self.sync_before_read_back(stop, now); // VERIFY
            }
            self.verify_clock(false, t0, now);
            // VERIFY: the written blocks are read back through the same loop (after
            // each of `loops`, as fio), then the next loop writes again.
            let t1 = now;
            let saved = self.verify_phase(stop, now);
            if saved.is_some() {
                now = self.io_loop(stop, now, &mut usage_start);
            }
            self.verify_clock(true, t1, now);
            if !self.verify_next_loop(saved, stop, now) {
                break;
            }
        }
        self.finish(now, usage_start)
    }

    /// The loop itself: step until a stopping rule fires; returns the last time read.
    fn io_loop(&mut self, stop: &AtomicBool, mut now: u64, usage_start: &mut Usage) -> u64 {
        loop {
            if stop.load(Ordering::Relaxed)
                || self.acct.error.is_some()
                || now >= self.lim.deadline_ns
            {
                break;
            }
            if self.st.ramping && (now >= self.lim.ramp_end_ns || self.ramp_size_reached()) {
                // Ramp over: everything measured so far is discarded.
                self.st.ramping = false;
                self.ramp_size_over(now);
                self.acct.reset(now);
                *usage_start = Usage::thread();
                self.stats_start_ns = now;
                self.pacer.restart(now); // PACING
            }
            if now >= self.acct.next_due_ns()
                && !self.st.ramping
                && self.acct.periodic(now) == Verdict::Stop
            {
                break;
            }
            self.last_read = None;
            // PACING: flow control across jobs holds this turn back (flow=).
            if self.lim.paced && self.pacer.flow.is_some() && self.flow_held() {
                now = self.clock.now_ns();
                continue;
            }
            if !self.step() {
                break;
            }
            // PACING: think time and the rate_min check, after each step as in fio.
            if self.lim.paced && !self.pacer.idle() && !self.after_step() {
                break;
            }
            // The checks above need no fresh reading: the step's last one (usually
            // the completion just accounted) will do; one is taken only when the
            // step read none.
            now = match self.last_read {
                Some(t) => t,
                None => self.clock.now_ns(),
            };
            self.verify_backlog(); // VERIFY
        }
        now
    }

    /// One iteration of the loop: queue, reap, wrap. False when the job is over.
    /// (Inlined into the loop, its only caller: a call per I/O costs spills.)
    #[inline(always)]
    fn step(&mut self) -> bool {
        // (1) Queue one I/O; a plain job (`burst`) goes on queueing while the engine
        // takes them and units are free.
        loop {
            let work_left = !self.st.pass_done && !self.st.ios_exhausted(&self.lim);
            let again = self.st.busy.is_some() || !self.st.retry.is_empty();
            // PACING: latency_target may cap the depth below the units there are.
            let can_queue =
                again || (work_left && !self.io.units.free.is_empty() && !self.depth_capped());
            if !can_queue {
                break;
            }
            let Some(idx) = self.next_unit() else {
                // Every file ran out of blocks: the pass is over, as in fio.
                if self.pattern.take_ran_out() {
                    self.st.pass_done = true;
                    self.st.files_done = true;
                    return true;
                }
                // openfiles: no file to use until an I/O completes (files.rs).
                return self.wait_for_file(); // ZONES: or no zone left to do I/O in
            };
            let queued = if self.overlaps_in_flight(idx) {
                Queued::Busy // fio: FIO_Q_BUSY, retried after a reap
            } else {
                let u = &self.io.units.io[idx];
                let _lock = self.plan.file_locks.hold(u.file, u.op); // lockfile=
                self.io.engine.queue(idx, &mut self.io.units.io[idx])
            };
            if self.zoned && queued != Queued::Busy {
                self.zone_issued(); // ZONES: the zone is the others' again
            }
            match queued {
                Queued::Completed => {
                    let done = self.read_clock();
                    if self.no_data && self.io.engine.ended() {
                        // cpuio's exit_on_io_done: the I/O is not one (fio: BUSY, done).
                        self.io.units.free.push(idx);
                        return false;
                    }
                    match self.residual(idx) {
                        Residual::Done => {
                            self.acct.queue_completed(self.st.inflight);
                            self.complete(idx, done);
                            self.io.units.free.push(idx);
                        }
                        // The rest goes to the engine again in the next iteration.
                        Residual::Again => self.st.retry.push(idx),
                        Residual::Failed => {
                            self.io.units.free.push(idx);
                            return false;
                        }
                        Residual::Dropped => {
                            self.acct.queue_completed(self.st.inflight);
                            self.file_released(idx);
                            self.io.units.free.push(idx);
                        }
                    }
                }
                Queued::Queued => {
                    self.st.inflight += 1;
                    let u = &self.io.units.io[idx];
                    if matches!(u.op, IoOp::Read | IoOp::Write | IoOp::Trim) {
                        let pending = self.pattern.has_pending();
                        self.st.queued(&self.lim, u.len as u64, pending);
                    }
                    if let Some(f) = self.in_flight.get_mut(idx) {
                        *f = true;
                    }
                    self.io.units.pending.push(idx);
                    if self.io.units.pending.len() >= self.batching.submit
                        && self.commit().is_none()
                    {
                        return false;
                    }
                    if self.burst {
                        continue;
                    }
                }
                Queued::Ended => {
                    self.io.units.free.push(idx);
                    return false;
                }
                Queued::Busy => {
                    self.st.busy = Some(idx);
                    if !self.io.units.pending.is_empty() && self.commit().is_none() {
                        return false;
                    }
                }
            }
            break;
        }
        if self.synchronous && self.st.inflight == 0 && self.st.busy.is_none() {
            if self.st.out_of_work(&self.lim) && self.st.retry.is_empty() {
                if !self.pass_ended() {
                    return false;
                }
                self.st.restart_pass(&self.lim);
            }
            return true;
        }
        // time_based: a finished pass wraps at once, with I/Os still in flight (fio
        // resets the file's position and random map without draining).
        if self.st.pass_done
            && self.plan.spec.time_based
            && self.st.busy.is_none()
            && !self.st.ios_exhausted(&self.lim)
        {
            self.st.passes += 1;
            self.new_pass();
            self.st.restart_pass(&self.lim);
        }
        // (2) Reap: fio's wait_for_completions when the queue is full (or polling),
        // then, once nothing is left to issue, its cleanup_pending_aio.
        if self.st.inflight > 0 {
            self.wait_for_completions();
            let no_work = self.st.busy.is_none() && self.st.out_of_work(&self.lim);
            if no_work
                && self.st.inflight > 0
                && self.acct.error.is_none()
                && self.drain().is_none()
            {
                return false;
            }
        }
        if self.st.pass_over(&self.lim) {
            if !self.pass_ended() {
                return false;
            }
            self.st.restart_pass(&self.lim);
        }
        true
    }

    /// Read the clock; the loop's next checks use the latest reading.
    #[inline(always)]
    fn read_clock(&mut self) -> u64 {
        let t = self.clock.now_ns();
        self.last_read = Some(t);
        t
    }

    /// fio's residual rule for an I/O completed with fewer bytes than asked
    /// (backend.c io_queue_event, io_u.c io_completed): some bytes count as a short
    /// I/O and the rest is issued again from where it stopped; when the rest
    /// completes, the unit is whole again and accounted once with all its bytes.
    /// Nothing transferred is an error (EIO, fio's "full resid": e.g. a read past
    /// the end of a file truncated under the job), never a counted I/O — for every
    /// engine (fio counts a zero-byte I/O from an asynchronous engine). The error
    /// policy decides whether that EIO stops the job.
    #[inline]
    fn residual(&mut self, idx: usize) -> Residual {
        let units = &mut self.io.units;
        let u = &units.io[idx];
        let data = matches!(u.op, IoOp::Read | IoOp::Write);
        if !data || u.result < 0 || u.result as usize >= u.len {
            units.make_whole(idx);
            return Residual::Done;
        }
        self.short_residual(idx)
    }

    /// `residual` for a data I/O that moved fewer bytes than asked (rare: kept out
    /// of the loop's way).
    #[cold]
    #[inline(never)]
    fn short_residual(&mut self, idx: usize) -> Residual {
        let units = &mut self.io.units;
        let u = &units.io[idx];
        let bytes = u.result as usize;
        if bytes == 0 {
            let path = self.plan.files.get(u.file).map(|f| f.path.as_path());
            let (op, len, offset) = (u.op, u.len, u.offset);
            let goes_on = self.acct.io_error(op, libc::EIO, || {
                format!(
                    "full resid: {} of {} bytes at offset {} of {} transferred nothing",
                    if op == IoOp::Read { "read" } else { "write" },
                    len,
                    offset,
                    path.map(|p| p.display().to_string()).unwrap_or_default()
                )
            });
            units.make_whole(idx);
            return if goes_on {
                Residual::Dropped
            } else {
                Residual::Failed
            };
        }
        if !self.st.ramping {
            self.acct.short(u.op);
        }
        units.advance(idx, bytes);
        Residual::Again
    }

    /// serialize_overlap: whether unit `idx` overlaps a unit in flight (fio's
    /// in_flight_overlap, asked only while another I/O is in flight; like fio's it
    /// compares offsets only, whatever the file).
    fn overlaps_in_flight(&self, idx: usize) -> bool {
        if self.in_flight.is_empty() || self.st.inflight == 0 {
            return false;
        }
        // syncs have no range in fio's check (a sync_file_range here carries one)
        let data =
            |o: &crate::engine::IoUnit| matches!(o.op, IoOp::Read | IoOp::Write | IoOp::Trim);
        let units = &self.io.units.io;
        let u = &units[idx];
        let end = u.offset + u.len as u64;
        data(u)
            && self.in_flight.iter().enumerate().any(|(i, &f)| {
                let o = &units[i];
                f && i != idx && data(o) && u.offset < o.offset + o.len as u64 && o.offset < end
            })
    }

    /// Account unit `idx`, completed at `now`.
    #[inline(always)]
    fn complete(&mut self, idx: usize, now: u64) {
        let t = self.io.units.times[idx];
        if self.complete_extras {
            self.complete_before(idx, t, now);
        }
        let u = &self.io.units.io[idx];
        if self.zoned && u.op == IoOp::Write && u.result >= 0 {
            self.zone_done.push((u.file, u.offset, u.len as u64));
        }
        let files = &self.plan.files;
        let path = || files.get(u.file).map(|f| f.path.as_path());
        let timed = !self.file_ops || self.io.engine.timed();
        self.acct.complete(u, t, now, path, self.st.ramping, timed);
        if self.st.ramping && u.result > 0 && super::account::ddir_of(u.op) < 3 {
            self.ramp_progress(u.result as u64);
        }
        if u.result < 0 {
            self.explain_error(idx);
        }
        if self.complete_extras {
            self.complete_after(idx);
        }
    }

    /// `complete`'s per-I/O work of a job with cmdprio, sync_file_range, openfiles
    /// or verify (`complete_extras`), before the I/O is accounted.
    #[inline(never)]
    fn complete_before(&mut self, idx: usize, t: UnitTimes, now: u64) {
        if self.cmdprio.is_some() {
            self.prio_complete(idx, t, now); // CMDPRIO
        }
        let u = &self.io.units.io[idx];
        if self.sync_range_flags.is_some() && u.op == IoOp::Write && u.result > 0 {
            self.st.note_write(u.file, u.offset, u.result as u64);
        }
    }

    /// `complete`'s per-I/O work after the I/O is accounted (`complete_extras`).
    #[inline(never)]
    fn complete_after(&mut self, idx: usize) {
        self.file_released(idx);
        if self.verify.is_some() {
            self.verify_read(idx); // VERIFY: a read-only job checks what it reads
            self.verify_sync(idx, true);
        }
    }

    /// Submit the pending units: one commit, then (fio) the depth map counts them at
    /// the current depth, the submit map counts one submission of that many, and each
    /// gets its slat (start → submission) and issue time. None on error (recorded).
    fn commit(&mut self) -> Option<u64> {
        if let Err(e) = self.io.engine.commit() {
            self.submit_failed(e); // (recorded, with atomic=1's reason)
            self.st.submit_failed = true;
            return None;
        }
        let t = self.read_clock();
        let units = &mut self.io.units;
        self.acct.committed(self.st.inflight, units.pending.len());
        for &idx in &units.pending {
            let times = &mut units.times[idx];
            if !self.st.ramping {
                self.acct.submitted(units.io[idx].op, t - times.start_ns);
            }
            times.issue_ns = t;
        }
        units.pending.clear();
        Some(t)
    }

    /// One reap of at least `min`, at most `max` completions; accounts them and
    /// takes them out of flight. Like fio, one clock reading after the reap stamps
    /// all its completions — unless the engine knows a unit's exact completion time
    /// (a modelled device in virtual time). Returns the reading, or None on error
    /// (recorded).
    fn reap(&mut self, min: usize, max: usize) -> Option<u64> {
        let units = &mut self.io.units;
        units.done.clear();
        if let Err(e) = self
            .io
            .engine
            .reap(&mut units.io, min, max, &mut units.done)
        {
            self.acct.error = Some((e.raw_os_error().unwrap_or(libc::EIO), format!("reap: {e}")));
            return None;
        }
        let now = self.read_clock();
        let n = self.io.units.done.len();
        self.acct.reaped(n);
        self.acct.begin_batch();
        for i in 0..n {
            let idx = self.io.units.done[i];
            if let Some(f) = self.in_flight.get_mut(idx) {
                *f = false;
            }
            match self.residual(idx) {
                Residual::Done => {
                    let done = self.io.units.io[idx].done_ns.unwrap_or(now);
                    self.complete(idx, done);
                    self.io.units.free.push(idx);
                }
                Residual::Again => self.st.retry.push(idx),
                Residual::Failed | Residual::Dropped => {
                    self.file_released(idx);
                    self.io.units.free.push(idx);
                }
            }
        }
        self.acct.end_batch();
        self.st.inflight -= n;
        Some(now)
    }

    /// After the loop: drain what is still queued or in flight (stop signal or
    /// deadline mid-queue), the end-of-job syncs, the last sample, and the result.
    fn finish(mut self, mut now: u64, usage_start: Usage) -> ThreadResult {
        if let Some(idx) = self.st.busy.take() {
            self.io.units.free.push(idx);
        }
        loop {
            // The rest of a short transfer is not issued once the job is over: that
            // I/O is not recorded.
            while let Some(idx) = self.st.retry.pop() {
                self.io.units.make_whole(idx);
                self.io.units.free.push(idx);
            }
            // After a failed commit nothing is waited for (see `drain`).
            if self.st.inflight == 0 || self.st.submit_failed {
                break;
            }
            match self.drain() {
                Some(t) => now = t,
                None => break,
            }
        }
        self.acct.materialize_all();
        self.verify_save_state(); // VERIFY: nothing is in flight any more
        let spec = self.plan.spec.clone();
        // The last loop's end syncs (end_fsync, end_syncfs, fsync_on_close), unless
        // they came before a verify read-back. Right after them, fio's close finds
        // the last I/O a sync (last_was_sync) and fsync_on_close syncs nothing more.
        let synced = self.syncs_at_loop_end();
        let last_was_sync = synced && !self.end_synced;
        if last_was_sync {
            self.end_syncs();
        }
        // PACING: a job idle in a pacing wait at its deadline ended there (unless
        // it went on: verify reads after the writes, an end_fsync).
        let end = match self.pacer.ended_ns {
            Some(t) if !synced && self.verify.is_none() => t,
            _ => self.clock.now_ns(),
        };
        if !self.st.ramping && now >= self.acct.sampler.next_due_ns {
            self.acct.sampler.sample(end, &mut self.acct.stats);
        }
        let mut stats = std::mem::take(&mut self.acct.stats);
        stats.runtime_us = if self.st.ramping {
            0
        } else {
            (end - self.stats_start_ns) / 1000
        };
        stats.usage = Usage::thread().since(&usage_start);
        stats.dir_runtime_us = match &self.verify {
            Some(v) => Some(v.dir_us), // VERIFY
            // verify_only without verify=: nothing was issued; as fio, the writes
            // take no time and the walk's reads and trims the job's.
            None if spec.verify.only && spec.writes() => {
                let walked = |d: usize| stats.dir[d].io_bytes > 0;
                let r = stats.runtime_us;
                Some([
                    if walked(0) { r } else { 0 },
                    0,
                    if walked(2) { r } else { 0 },
                ])
            }
            None => None,
        };
        for (dir, n) in stats.dir.iter_mut().zip(self.io.engine.dropped()) {
            dir.drop_ios = n;
        }
        if spec.fsync_on_close && spec.writes() && !last_was_sync {
            self.sync_all_files(); // the close's (after a verify read-back)
        }
        self.io.files.clear();
        super::unlink::unlink_files(self.plan);
        let mut error = self.acct.error.take();
        if let Some((errno, msg)) = &error {
            if self.acct.out_of_space(*errno) {
                // fill_device: the device is full, the job is done (still said, as fio).
                eprintln!("ferrio: {msg}");
                error = None;
            }
        }
        let mut result = ThreadResult {
            error,
            start_ns: self.stats_start_ns,
            end_ns: end,
            elapsed_ns: end - self.lim.begin_ns,
            ..Default::default()
        };
        // ZONES: resets issued. PACING: the flow group is left by the runner, after
        // exitall (recorder.rs).
        result.zone_resets = self.zbd.as_ref().map_or(0, |z| z.resets());
        // The engine's and the pacer's own statistics (ferrio_report::extra).
        result.extra = self.io.engine.extra_stats();
        result.extra.extend(self.pacer.extra_stats(end));
        result.extra.extend(self.zone_finish());
        result.held = self
            .pacer
            .flow
            .take()
            .map(|f| Box::new(f) as Box<dyn std::any::Any + Send>);
        let observers = std::mem::take(&mut self.acct.observers);
        observers.finish(end, &stats, &mut result);
        // Moved, not cloned: a copy would allocate (and touch) ten more histograms.
        result.stats = stats;
        result
    }
}
