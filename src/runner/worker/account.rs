//! What the loop records: each completion (latencies, bytes, errors under the
//! job's error policy), each submission (slat), fio's depth maps, the periodic bw/IOPS samples
//! and the observers. Nothing here reads the clock: the loop passes the times in.

use super::units::UnitTimes;
use crate::engine::{Accounting as Counts, IoOp, IoUnit};
use crate::runner::act::ActCounter;
use crate::runner::debug_hooks;
use crate::runner::observer::{Completion, Observers, Verdict};
use crate::runner::pacing::LatTarget;
use crate::runner::recorder::{Recording, Sampler, ThreadStats};
use ferrio_config::ext::errors::{ErrorPolicy, ErrorType};
use ferrio_config::{DebugCategory, JobSpec};
use std::path::Path;

pub struct Accounting {
    pub stats: ThreadStats,
    pub observers: Observers,
    pub sampler: Sampler,
    /// The error that stops the job: (errno, message).
    pub error: Option<(i32, String)>,
    policy: ErrorPolicy,
    /// fill_device: ENOSPC/EDQUOT is how the job ends, not an error (`out_of_space`).
    fill_device: bool,
    rec: Recording,
    /// Whether lat may be shadowed at all (see `lat_shadow`).
    shadow: bool,
    /// Per direction: every completion so far had lat == clat (a synchronous engine
    /// starts timing where the I/O is issued), so only clat is recorded and lat is
    /// copied from it when read (`materialize_lat`). The same values, recorded once.
    lat_shadow: [bool; 3],
    bw_avg_ms: u64,
    iops_avg_ms: u64,
    /// due_lat=1: record the latency from the due time too (pacing).
    due_lat: bool,
    /// max_latency=, per direction (ns; 0: none).
    max_lat_ns: [u64; 3],
    /// latency_target=: the queue-depth search, which judges every completion.
    pub lat_target: Option<LatTarget>,
    /// What the engine's completions count for (data, file operations, no data).
    counts: Counts,
    /// The priority of the I/O being accounted (the job's own unless cmdprio sets it
    /// per I/O): the per-I/O logs' priority column.
    pub ioprio: u32,
    /// Any of due_lat, max_latency, latency_target, a per-I/O observer or ACT's
    /// slices (profile=act) is on: only
    /// then does a completion look at them (one test per I/O instead of four).
    extras: bool,
    /// An I/O that `queue` completed at once counts in the submit and complete maps
    /// (fio's td_io_queue marks it only for engines without a commit hook).
    pub marks_queue_completed: bool,
    /// Inside one reap (`begin_batch` .. `end_batch`): equal clats in a row are
    /// recorded once, as `clat_run`.
    batching: bool,
    clat_run: ClatRun,
}

/// Completion latencies not yet recorded: `n` of `ns` in direction `d`. One reap
/// stamps all its completions with one reading, and one commit gave them one issue
/// time, so a batch's clats are usually all equal: one record of `n` (exactly the
/// same histogram, moments and buckets) instead of `n` records.
#[derive(Clone, Copy, Debug, Default)]
struct ClatRun {
    d: usize,
    ns: u64,
    n: u64,
}

impl Accounting {
    /// `synchronous`: the engine completes every I/O in `queue` (only then can lat
    /// equal clat for every I/O).
    pub fn new(
        spec: &JobSpec,
        synchronous: bool,
        counts: Counts,
        observers: Observers,
        begin_ns: u64,
    ) -> Self {
        let reduce = spec.gtod_reduce;
        let rec = Recording {
            slat: !(spec.disable_slat || reduce),
            clat: !(spec.disable_clat || reduce),
            lat: !(spec.disable_lat || reduce),
        };
        // lat is recorded as a copy of clat when both are recorded; observers that
        // read the statistics during the run get the copy made for them (`periodic`).
        let shadow = synchronous && rec.lat && rec.clat && counts != Counts::FileOps;
        let mut a = Accounting {
            stats: ThreadStats::default(),
            observers,
            sampler: Sampler::new(begin_ns, spec.bw_avg_time_ms, spec.iops_avg_time_ms),
            error: None,
            policy: spec.errors.clone(),
            fill_device: spec.fill_device,
            rec,
            shadow,
            lat_shadow: [shadow; 3],
            bw_avg_ms: spec.bw_avg_time_ms,
            iops_avg_ms: spec.iops_avg_time_ms,
            due_lat: spec.pacing.due_lat,
            max_lat_ns: spec.pacing.max_latency_ns,
            lat_target: LatTarget::new(&spec.pacing, spec.iodepth, begin_ns)
                .map(|t| t.with_debug(debug_hooks::on(spec, DebugCategory::Rate))),
            counts,
            extras: false,
            marks_queue_completed: true,
            batching: false,
            clat_run: ClatRun::default(),
            ioprio: spec.lifecycle.ioprio_value().unwrap_or(0),
        };
        a.extras = a.due_lat
            || a.max_lat_ns.iter().any(|&m| m > 0)
            || a.lat_target.is_some()
            || a.observers.per_io
            || spec.compat.act_report.is_some();
        a.stats.act = spec.compat.act_report.map(|n| ActCounter::new(begin_ns, n));
        if let Some(t) = &a.lat_target {
            a.stats.latency_depth = t.qd;
        }
        a
    }

    /// A reap's completions follow (until `end_batch`): their clats may be recorded
    /// in runs (`ClatRun`). Nothing may read the clat histograms before `end_batch`.
    #[inline]
    pub fn begin_batch(&mut self) {
        self.batching = self.rec.clat;
    }

    /// The reap's completions are accounted: record the pending clats.
    #[inline]
    pub fn end_batch(&mut self) {
        self.flush_clats();
        self.batching = false;
    }

    #[inline]
    fn flush_clats(&mut self) {
        let r = &mut self.clat_run;
        if r.n > 0 {
            self.stats.record_clats(r.d, r.ns, r.n);
            r.n = 0;
        }
    }

    /// End of ramp_time at `now`: everything measured so far is discarded.
    pub fn reset(&mut self, now: u64) {
        self.stats = ThreadStats {
            errors: self.stats.errors,
            latency_depth: self.stats.latency_depth,
            act: self.stats.act.take().map(|c| c.restart(now)),
            ..Default::default()
        };
        if let Some(t) = &mut self.lat_target {
            t.reset(now);
        }
        self.lat_shadow = [self.shadow; 3];
        self.sampler = Sampler::new(now, self.bw_avg_ms, self.iops_avg_ms);
        self.observers.stats_reset(now);
    }

    /// The earliest time periodic work (samples, observers) is due.
    #[inline]
    pub fn next_due_ns(&self) -> u64 {
        self.sampler.next_due_ns.min(self.observers.next_due_ns)
    }

    /// Take the samples and run the observers due at `now`; Stop if one asks to.
    pub fn periodic(&mut self, now: u64) -> Verdict {
        if now >= self.sampler.next_due_ns {
            self.sampler.sample(now, &mut self.stats);
        }
        if now >= self.observers.next_due_ns {
            self.show_lat();
            return self.observers.observe(now, &self.stats);
        }
        Verdict::Continue
    }

    /// Before observers read the statistics: a shadowed lat is made a copy of clat
    /// (every value so far was the same in both), and stays shadowed.
    fn show_lat(&mut self) {
        self.flush_clats();
        for d in 0..3 {
            if self.lat_shadow[d] {
                let s = &mut self.stats.dir[d];
                s.lat.clone_from(&s.clat);
            }
        }
    }

    /// One I/O completed by `queue` itself (synchronous engines) while `inflight`
    /// others were in flight: fio counts depth, one submit and one completion of 1.
    #[inline]
    pub fn queue_completed(&mut self, inflight: usize) {
        self.stats.depth.record_depth(inflight as u32 + 1, 1);
        if self.marks_queue_completed {
            self.stats.depth.record_submit(1);
            self.stats.depth.record_complete(1);
        }
    }

    /// One commit of `n` units at depth `inflight` (fio's io_u_mark_depth with the
    /// queued count, io_u_mark_submit).
    #[inline]
    pub fn committed(&mut self, inflight: usize, n: usize) {
        self.stats.depth.record_depth(inflight as u32, n as u64);
        self.stats.depth.record_submit(n as u32);
    }

    /// One reap that returned `n` completions (fio's io_u_mark_complete).
    #[inline]
    pub fn reaped(&mut self, n: usize) {
        if n > 0 {
            self.stats.depth.record_complete(n as u32);
        }
    }

    /// A unit of direction `op` was submitted `slat` ns after its start.
    #[inline]
    pub fn submitted(&mut self, op: IoOp, slat_ns: u64) {
        let d = ddir_of(op);
        if d < 3 {
            self.stats.submitted(self.rec, d, slat_ns);
        }
    }

    /// A short transfer of direction `op` whose rest is issued again (fio counts
    /// it in short_ios then).
    #[inline]
    pub fn short(&mut self, op: IoOp) {
        let d = ddir_of(op);
        if d < 3 {
            self.stats.dir[d].short_ios += 1;
        }
    }

    /// An I/O of direction `op` failed with `errno` (fio's break_on_this_error): a
    /// non-fatal error is counted and the job goes on (true); any other stops it
    /// (false: the first becomes the job's error, counted when continue_on_error
    /// covers its type). The I/O itself is never counted. error_dump prints the
    /// non-fatal ones as they happen (the fatal one is printed at the end).
    pub fn io_error(&mut self, op: IoOp, errno: i32, msg: impl FnOnce() -> String) -> bool {
        let t = ErrorType::of(op == IoOp::Read, errno);
        let d = ddir_of(op);
        if d < 3 {
            self.stats.dir[d].failed_ios += 1;
        }
        if self.policy.non_fatal(t, errno) {
            self.stats.errors.add(errno);
            if self.policy.error_dump {
                eprintln!("ferrio: {}", msg());
            }
            return true;
        }
        if self.error.is_none() {
            if self.policy.covers(t) && !self.out_of_space(errno) {
                self.stats.errors.add(errno);
            }
            self.error = Some((errno, msg()));
        }
        false
    }

    /// fill_device ran out of space (fio's backend.c: such a job ends without error).
    pub fn out_of_space(&self, errno: i32) -> bool {
        self.fill_device && (errno == libc::ENOSPC || errno == libc::EDQUOT)
    }

    /// Account one completed unit at `now` (not during ramp: the caller decides). An
    /// error result goes to the error policy (`io_error`). `timed`: with an engine
    /// that does file operations, whether this I/O carried one. `path` names the
    /// unit's file, asked only for a message.
    #[inline(always)]
    pub fn complete<'p>(
        &mut self,
        u: &IoUnit,
        t: UnitTimes,
        now: u64,
        path: impl Fn() -> Option<&'p Path> + Copy,
        ramping: bool,
        timed: bool,
    ) {
        let d = ddir_of(u.op);
        if u.result < 0 {
            let errno = (-u.result) as i32;
            if self.observers.per_io && d < 3 {
                self.observers.failed(d, u.offset); // block_error_percentiles
            }
            self.io_error(u.op, errno, || {
                format!(
                    "io_u error on file {}: {}: {} offset={}, buflen={}",
                    path().map_or(std::borrow::Cow::Borrowed("?"), |p| p.to_string_lossy()),
                    ferrio_report::normal::strerror(errno),
                    op_name(u.op),
                    u.offset,
                    u.len
                )
            });
            if self.counts == Counts::FileOps && d < 3 {
                // fio fails the file operation (its open) before the I/O is
                // issued: no I/O is counted for it.
                self.stats.dir[d].failed_ios -= 1;
            }
            return;
        }
        if ramping {
            return;
        }
        if d == 3 {
            if matches!(u.op, IoOp::SyncFileRange { .. }) {
                self.stats.range_synced(now - t.issue_ns);
            } else {
                self.stats.synced(now - t.issue_ns);
            }
            return;
        }
        let mut bytes = u.result as u64;
        let short = bytes < u.len as u64;
        let clat = now - t.issue_ns;
        let lat = now - t.start_ns;
        match self.counts {
            Counts::Data => {}
            Counts::NoData => bytes = 0,
            Counts::FileOps => {
                // fio: the operation's time is a clat sample (add_clat_sample from
                // the engine), nothing else is timed and no latency bucket marked;
                // the engine takes it unless disable_lat (or gtod_reduce) is set.
                let clat = (self.rec.lat && timed).then_some(clat);
                self.stats.complete_file_op(d, bytes, clat);
                return;
            }
        }
        let mut rec = self.rec;
        if self.batching {
            rec.clat = false;
            let r = &mut self.clat_run;
            if r.n > 0 && r.ns == clat && r.d == d {
                r.n += 1;
            } else {
                self.flush_clats();
                self.clat_run = ClatRun { d, ns: clat, n: 1 };
            }
        }
        if self.lat_shadow[d] {
            if lat == clat {
                rec.lat = false;
            } else {
                self.materialize_lat(d);
            }
        }
        self.stats.complete(rec, d, bytes, short, clat, lat);
        if !self.extras {
            return;
        }
        if self.due_lat {
            // PACING: coordinated omission (docs/pacing.md): from the due time.
            self.stats.dir[d]
                .due_lat
                .record(now - t.due_ns.min(t.start_ns));
        }
        // PACING: max_latency and latency_target judge the total latency, when it is
        // measured (as fio).
        if self.rec.lat && (self.max_lat_ns[d] > 0 || self.lat_target.is_some()) {
            self.judge_latency(u, d, lat, now, path);
        }
        if let Some(act) = &mut self.stats.act {
            // fio's act profile judges the total latency; a failed slice fails the
            // I/O that closes it.
            if let Some(msg) = act.record(now, lat) {
                self.act_failed(u.op, d, msg);
            }
        }
        if self.observers.per_io {
            self.observers.completed(&Completion {
                now_ns: now,
                ddir: d,
                bytes,
                offset: u.offset,
                issue_ns: t.issue_ns,
                due_ns: t.due_ns,
                slat_ns: t.issue_ns - t.start_ns,
                clat_ns: clat,
                lat_ns: lat,
                ioprio: self.ioprio,
            });
        }
    }

    /// fio's max_latency and latency_target rules for one completion: a latency over
    /// max_latency, or over latency_target at depth 1 when every I/O must meet it,
    /// is an ETIMEDOUT error under the job's error policy.
    fn judge_latency<'p>(
        &mut self,
        u: &IoUnit,
        d: usize,
        lat: u64,
        now: u64,
        path: impl Fn() -> Option<&'p Path>,
    ) {
        let mut limit =
            (self.max_lat_ns[d] > 0 && lat > self.max_lat_ns[d]).then_some(self.max_lat_ns[d]);
        if let Some(t) = &mut self.lat_target {
            let ios = self.stats.dir.iter().map(|s| s.total_ios).sum();
            if let Err(max) = t.completed(lat, now, ios) {
                limit = limit.or(Some(max));
            }
            self.stats.latency_depth = t.qd;
        }
        if let Some(max) = limit {
            let msg = format!(
                "latency of {lat} nsec exceeds specified max ({max} nsec): {} {} {} {}",
                path().map_or(std::borrow::Cow::Borrowed("?"), |p| p.to_string_lossy()),
                op_name(u.op),
                u.offset,
                u.len
            );
            // fio says it for each one; a fatal one is the job's error (said at the end).
            let dump = self.policy.error_dump;
            if self.io_error(u.op, libc::ETIMEDOUT, || msg.clone()) && !dump {
                eprintln!("ferrio: {msg}");
            }
            // The I/O itself completed and is counted: it is no failed I/O.
            self.stats.dir[d].failed_ios -= 1;
        }
    }

    /// ACT: the slice just closed failed. fio says so at once and fails the I/O with
    /// EPERM (its hook's 1) under the error policy; the I/O itself is counted.
    #[cold]
    fn act_failed(&mut self, op: IoOp, d: usize, msg: String) {
        eprintln!("ferrio: {msg}");
        self.io_error(op, libc::EPERM, || msg);
        self.stats.dir[d].failed_ios -= 1;
    }

    /// Stop shadowing lat in every direction: lat becomes a copy of clat (every value
    /// recorded so far was the same in both).
    pub fn materialize_all(&mut self) {
        for d in 0..3 {
            self.materialize_lat(d);
        }
    }

    fn materialize_lat(&mut self, d: usize) {
        if self.lat_shadow[d] {
            self.flush_clats(); // (lat is made a copy of the whole of clat)
            self.lat_shadow[d] = false;
            self.stats.dir[d].lat = self.stats.dir[d].clat.clone();
        }
    }
}

/// fio's data direction index: 0 read, 1 write, 2 trim, 3 sync.
#[inline]
pub fn ddir_of(op: IoOp) -> usize {
    match op {
        IoOp::Read => 0,
        IoOp::Write => 1,
        IoOp::Trim => 2,
        IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => 3,
    }
}

fn op_name(op: IoOp) -> &'static str {
    match op {
        IoOp::Read => "read",
        IoOp::Write => "write",
        IoOp::Trim => "trim",
        IoOp::Fsync => "fsync",
        IoOp::Fdatasync => "fdatasync",
        IoOp::SyncFileRange { .. } => "sync_file_range",
    }
}
