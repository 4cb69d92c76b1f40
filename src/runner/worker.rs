//! One job thread: opens its files, then runs the I/O loop until a stopping rule
//! fires. The loop is the same for synchronous and asynchronous engines (fio's
//! completed / queued / busy contract), and it is the hot path: per I/O it does one
//! pattern step, one or two clock reads, one engine call and a few counter updates —
//! no allocation, no lock, no division, no system call beyond the engine's own.

use super::buffers::BufferPolicy;
use super::direct_io;
use super::engine_setup::engine_options;
use super::observer::{Completion, ObserverFactory, Observers, Verdict};
use super::pattern::{NextIo, Pattern, Region};
use super::plan::ThreadPlan;
use super::recorder::{Recording, Sampler, ThreadStats};
use crate::engine::{self, IoOp, IoUnit, Queued};
use crate::random::Rng;
use crate::sys::file::{self, OpenFlags};
use crate::sys::iomem::IoMemory;
use crate::sys::memory::page_size;
use crate::sys::{affinity, rusage::Usage};
use ferrio_clock::Clock;
use ferrio_config::ext::engine::{Batching, CpusAllowedPolicy};
use ferrio_config::ClockSource;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a thread hands back to the reporter.
#[derive(Debug, Default)]
pub struct ThreadResult {
    pub stats: ThreadStats,
    /// First error: (errno, message). fio stops a job at its first I/O error.
    pub error: Option<(i32, String)>,
    /// Clock time the thread started its measured phase and ended.
    pub start_ns: u64,
    pub end_ns: u64,
    /// Nanoseconds from the thread's first I/O to its end, ramp included (JSON "elapsed").
    pub elapsed_ns: u64,
}

/// Run one thread to completion. A job with clocksource=virtual runs on a clock of
/// its own that its engine advances (the simulated device), not on `clock`.
pub fn run_thread(
    plan: &ThreadPlan,
    clock: &Clock,
    stop: &AtomicBool,
    factory: &dyn ObserverFactory,
) -> ThreadResult {
    let spec = &plan.spec;
    let mut result = ThreadResult::default();
    if let Some(cpus) = &spec.cpus_allowed {
        // cpus_allowed_policy=split: clone N gets the Nth CPU of the set (round robin).
        let one;
        let cpus: &[usize] = match spec.engine.cpus_allowed_policy {
            CpusAllowedPolicy::Split if !cpus.is_empty() => {
                one = [cpus[plan.clone as usize % cpus.len()]];
                &one
            }
            _ => cpus,
        };
        if let Err(e) = affinity::pin_current_thread(cpus) {
            result.error = Some((
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("cpus_allowed: {e}"),
            ));
            return result;
        }
    }
    if let Err(e) = affinity::set_nice(spec.nice) {
        result.error = Some((
            e.raw_os_error().unwrap_or(libc::EPERM),
            format!("nice: {e}"),
        ));
        return result;
    }
    let (virtual_clock, virtual_handle) = if spec.clocksource == Some(ClockSource::Virtual) {
        let (c, h) = Clock::virtual_clock();
        (Some(c), Some(h))
    } else {
        (None, None)
    };
    let clock = virtual_clock.as_ref().unwrap_or(clock);
    match Worker::new(plan, clock, virtual_handle) {
        Ok(mut w) => {
            w.observers = Observers::new(factory.observers(plan, clock.now_ns()));
            w.run(stop);
            let observers = std::mem::take(&mut w.observers);
            result.error = w.error.take();
            result.start_ns = w.stats_start_ns;
            result.end_ns = w.end_ns;
            result.elapsed_ns = w.end_ns - w.begin_ns;
            observers.finish(w.end_ns, &w.stats, &mut result);
            // Moved, not taken: a fresh ThreadStats would allocate (and touch) ten more
            // histograms per thread.
            result.stats = w.stats;
        }
        Err(e) => result.error = Some(e),
    }
    result
}

struct Worker<'a> {
    plan: &'a ThreadPlan,
    /// Per-thread observers (steady state, logs, live progress).
    observers: Observers,
    clock: &'a Clock,
    engine: Box<dyn engine::IoEngine>,
    files: Vec<Option<File>>,
    fds: Vec<i32>,
    units: Vec<IoUnit>,
    /// Per unit: when it was generated and issued, and its direction (0..3).
    unit_start_ns: Vec<u64>,
    unit_issue_ns: Vec<u64>,
    /// Bytes from one unit's buffer to the next in `memory`.
    buf_stride: usize,
    free: Vec<usize>,
    /// Units queued since the last commit.
    pending: Vec<usize>,
    /// Units the last reap completed.
    done_list: Vec<usize>,
    /// A commit failed: what was queued may never complete, so nothing is drained.
    submit_failed: bool,
    batching: Batching,
    pattern: Pattern,
    policy: BufferPolicy,
    rng: Rng,
    rec: Recording,
    /// Per direction: every completion so far had lat == clat (a synchronous engine
    /// starts timing where the I/O is issued), so only clat is recorded and lat is
    /// copied from it when read (`materialize_lat`). The same values, recorded once.
    lat_shadow: [bool; 3],
    stats: ThreadStats,
    error: Option<(i32, String)>,
    begin_ns: u64,
    stats_start_ns: u64,
    end_ns: u64,
    writes_since_sync: u32,
    /// The file that fsync=N says must be synced before the next I/O.
    sync_due: Option<usize>,
    /// The units' buffers. Declared last: the engine (which may have the buffers
    /// registered with the kernel) is dropped before the memory behind them.
    memory: IoMemory,
}

fn errno_text(errno: i32) -> String {
    std::io::Error::from_raw_os_error(errno).to_string()
}

impl<'a> Worker<'a> {
    fn new(
        plan: &'a ThreadPlan,
        clock: &'a Clock,
        virtual_clock: Option<ferrio_clock::VirtualHandle>,
    ) -> Result<Worker<'a>, (i32, String)> {
        let spec = &plan.spec;
        let engine = engine::create(&spec.ioengine, engine_options(plan, virtual_clock))
            .map_err(|e| (libc::EINVAL, e))?;
        let caps = plan.caps;
        let mut files = Vec::new();
        let mut fds = Vec::new();
        for f in &plan.files {
            if caps.diskless {
                files.push(None);
                fds.push(-1);
                continue;
            }
            let writes = spec.writes();
            let flags = OpenFlags {
                // fio opens O_RDWR for any job that writes (mmap needs it to map shared
                // and writable).
                read: true,
                write: writes,
                create: spec.allow_file_create,
                direct: spec.direct,
                sync: spec.sync,
            };
            let handle = file::open(&f.path, flags).map_err(|e| {
                (
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("cannot open '{}': {e}", f.path.display()),
                )
            })?;
            if spec.invalidate && !spec.direct {
                file::invalidate_cache(&handle);
            }
            file::advise_pattern(&handle, spec.rw.random);
            fds.push(handle.as_raw_fd());
            files.push(Some(handle));
        }
        let depth = if caps.synchronous {
            1
        } else {
            spec.iodepth.max(1) as usize
        };
        let max_bs = spec
            .bs
            .iter()
            .flat_map(|b| std::iter::once(b.max).chain(b.split.iter().map(|s| s.0)))
            .max()
            .unwrap_or(4096)
            .max(1) as usize;
        if spec.direct && !caps.diskless {
            direct_io::check_direct_alignment(plan, &files)?;
        }
        let policy = BufferPolicy::for_thread(plan);
        // One region for all units (fio's layout): unit i's buffer starts at i * stride.
        let align = match spec.engine.iomem_align {
            0 => page_size(),
            a => a as usize,
        };
        let buf_stride = max_bs.div_ceil(align) * align;
        let mut memory = IoMemory::new(
            spec.engine.mem,
            spec.engine.mem_path.as_deref(),
            buf_stride * depth,
            align,
        )
        .map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::ENOMEM),
                format!("I/O buffers: {e}"),
            )
        })?;
        let mut units = Vec::with_capacity(depth);
        let mut bufs = Vec::with_capacity(depth);
        for i in 0..depth {
            let buf = memory.buffer(i, buf_stride);
            if !caps.diskless {
                let slice = memory.bytes_mut(i * buf_stride, buf_stride);
                policy.init(slice, plan.seed ^ i as u64);
            }
            units.push(IoUnit {
                op: IoOp::Read,
                file: 0,
                fd: -1,
                offset: 0,
                len: 0,
                buf,
                result: 0,
            });
            bufs.push((buf, buf_stride));
        }
        let mut engine = engine;
        engine.setup(&fds, &bufs).map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("ioengine={}: {e}", spec.ioengine),
            )
        })?;
        let regions: Vec<Region> = plan.files.iter().map(|f| f.region).collect();
        let reduce = spec.gtod_reduce;
        let rec = Recording {
            slat: !(spec.disable_slat || reduce),
            clat: !(spec.disable_clat || reduce),
            lat: !(spec.disable_lat || reduce),
        };
        Ok(Worker {
            plan,
            clock,
            engine,
            files,
            fds,
            unit_start_ns: vec![0; depth],
            unit_issue_ns: vec![0; depth],
            free: (0..depth).rev().collect(),
            pending: Vec::with_capacity(depth),
            done_list: Vec::with_capacity(depth),
            submit_failed: false,
            batching: spec.engine.batching(depth),
            units,
            buf_stride,
            memory,
            pattern: Pattern::for_thread(plan, &regions).map_err(|e| (libc::EIO, e))?,
            policy,
            rng: Rng::new(plan.seed.rotate_left(17)),
            rec,
            lat_shadow: [false; 3],
            stats: ThreadStats::default(),
            error: None,
            begin_ns: 0,
            stats_start_ns: 0,
            end_ns: 0,
            writes_since_sync: 0,
            sync_due: None,
            observers: Observers::default(),
        })
    }

    fn run(&mut self, stop: &AtomicBool) {
        let spec = self.plan.spec.clone();
        let synchronous = self.plan.caps.synchronous;
        let begin_ns = self.clock.now_ns();
        self.begin_ns = begin_ns;
        let ramp_end_ns = begin_ns + spec.ramp_time_us * 1000;
        let mut ramping = spec.ramp_time_us > 0;
        let deadline_ns = spec
            .runtime_us
            .map(|r| ramp_end_ns.saturating_add(r * 1000))
            .unwrap_or(u64::MAX);
        let mut usage_start = Usage::thread();
        self.stats_start_ns = begin_ns;
        let mut sampler = Sampler::new(begin_ns, spec.bw_avg_time_ms, spec.iops_avg_time_ms);
        let max_ios = spec.number_ios.unwrap_or(u64::MAX);
        let batching = self.batching;
        // lat is recorded as a copy of clat only when nothing reads the statistics
        // during the run (no observers) and both are recorded.
        let shadow =
            synchronous && self.rec.lat && self.rec.clat && self.observers.next_due_ns == u64::MAX;
        self.lat_shadow = [shadow; 3];
        let mut issued_ios: u64 = 0;
        let mut pass_issued: u64 = 0;
        let mut passes: u32 = 0;
        // Units handed to the engine and not completed yet (queued or submitted).
        let mut inflight: usize = 0;
        let mut pass_done = self.plan.pass_bytes == 0;
        // A generated unit the engine reported Busy for, to queue again after a reap.
        let mut busy: Option<usize> = None;
        let mut now = begin_ns;

        // One iteration = fio's do_io step: (1) generate and queue one I/O, committing
        // a full submit batch; (2) when the queue is full (or completions are polled, or
        // no work is left), reap as iodepth_batch_complete_min/max and iodepth_low say.
        loop {
            if stop.load(Ordering::Relaxed) || self.error.is_some() || now >= deadline_ns {
                break;
            }
            if ramping && now >= ramp_end_ns {
                // Ramp over: everything measured so far is discarded.
                ramping = false;
                self.stats = ThreadStats::default();
                self.lat_shadow = [shadow; 3];
                usage_start = Usage::thread();
                self.stats_start_ns = now;
                sampler = Sampler::new(now, spec.bw_avg_time_ms, spec.iops_avg_time_ms);
                self.observers.stats_reset(now);
            }
            if now >= sampler.next_due_ns.min(self.observers.next_due_ns) && !ramping {
                if now >= sampler.next_due_ns {
                    sampler.sample(now, &mut self.stats);
                }
                if now >= self.observers.next_due_ns
                    && self.observers.observe(now, &self.stats) == Verdict::Stop
                {
                    break;
                }
            }
            let work_left = !pass_done && issued_ios < max_ios;
            // (1) Queue one I/O.
            if busy.is_some() || (work_left && !self.free.is_empty()) {
                let idx = if let Some(idx) = busy.take() {
                    // Retry the unit the engine had no room for; it is already counted.
                    idx
                } else if let Some(file) = self.sync_due.take() {
                    // fsync=N: the sync is an I/O unit of its own (fio's DDIR_SYNC), so
                    // every engine — including diskless and asynchronous ones — runs it.
                    let idx = self.free.pop().expect("a free unit");
                    self.prepare_sync_unit(idx, file);
                    self.unit_start_ns[idx] = now;
                    self.unit_issue_ns[idx] = now;
                    idx
                } else {
                    let idx = self.free.pop().expect("a free unit");
                    // Like fio, a pass moves exactly pass_bytes: the last I/O is trimmed to fit.
                    let io = self.pattern.next_io(self.plan.pass_bytes - pass_issued);
                    let issue_ns = self.prepare_unit(idx, io);
                    if io.op == IoOp::Write {
                        self.count_write_for_sync(idx);
                    }
                    self.unit_start_ns[idx] = now;
                    self.unit_issue_ns[idx] = issue_ns.unwrap_or(now);
                    issued_ios += 1;
                    if !io.follow_up {
                        pass_issued += io.len;
                    }
                    if pass_issued >= self.plan.pass_bytes && !self.pattern.has_pending() {
                        pass_done = true;
                    }
                    idx
                };
                match self.engine.queue(idx, &mut self.units[idx]) {
                    Queued::Completed => {
                        now = self.clock.now_ns();
                        self.stats.depth.record_depth(inflight as u32 + 1, 1);
                        self.stats.depth.record_submit(1);
                        self.stats.depth.record_complete(1);
                        self.complete(idx, now, ramping);
                        self.free.push(idx);
                    }
                    Queued::Queued => {
                        inflight += 1;
                        self.pending.push(idx);
                        if self.pending.len() >= batching.submit {
                            match self.commit(inflight, ramping) {
                                Some(t) => now = t,
                                None => break,
                            }
                        }
                    }
                    Queued::Busy => {
                        busy = Some(idx);
                        if !self.pending.is_empty() {
                            match self.commit(inflight, ramping) {
                                Some(t) => now = t,
                                None => break,
                            }
                        }
                    }
                }
            }
            if synchronous && inflight == 0 && busy.is_none() {
                if pass_done || issued_ios >= max_ios {
                    if !self.pass_ended(&mut passes, issued_ios >= max_ios) {
                        break;
                    }
                    pass_issued = 0;
                    pass_done = false;
                }
                // `now` is the last completion time: reused as the next I/O's start.
                continue;
            }
            // time_based: a finished pass wraps at once, with I/Os still in flight (fio
            // resets the file's position and random map without draining).
            if pass_done && spec.time_based && busy.is_none() && issued_ios < max_ios {
                passes += 1;
                self.new_pass();
                pass_issued = 0;
                pass_done = false;
            }
            // (2) Reap: fio's wait_for_completions when the queue is full (or polling),
            // then, once nothing is left to issue, its cleanup_pending_aio.
            if inflight > 0 {
                let full = self.free.is_empty() || busy.is_some();
                if full || batching.polling {
                    let mut min = batching.complete_min.min(inflight);
                    if (full && min == 0) || batching.complete_min == 0 {
                        min = 1;
                    }
                    loop {
                        if !self.pending.is_empty() {
                            match self.commit(inflight, ramping) {
                                Some(t) => now = t,
                                None => break,
                            }
                        }
                        match self.reap(min, batching.complete_max, ramping) {
                            Some((n, t)) => {
                                inflight -= n;
                                now = t;
                            }
                            None => break,
                        }
                        if !(full && inflight > batching.low) || self.error.is_some() {
                            break;
                        }
                        min = min.min(inflight).max(1);
                    }
                }
                let no_work = busy.is_none() && (pass_done || issued_ios >= max_ios);
                if no_work && inflight > 0 && self.error.is_none() {
                    match self.drain(inflight, ramping) {
                        Some((left, t)) => {
                            inflight = left;
                            now = t;
                        }
                        None => break,
                    }
                }
            }
            if inflight == 0 && busy.is_none() && (pass_done || issued_ios >= max_ios) {
                if !self.pass_ended(&mut passes, issued_ios >= max_ios) {
                    break;
                }
                pass_issued = 0;
                pass_done = false;
            }
            now = self.clock.now_ns();
        }
        // Drain anything still queued or in flight (stop signal or deadline mid-queue).
        if let Some(idx) = busy.take() {
            self.free.push(idx);
        }
        if inflight > 0 {
            if let Some((_, t)) = self.drain(inflight, ramping) {
                now = t;
            }
        }
        for d in 0..3 {
            self.materialize_lat(d);
        }
        if spec.end_fsync && spec.writes() {
            self.sync_all_files(false);
        }
        let end = self.clock.now_ns();
        if !ramping && now >= sampler.next_due_ns {
            sampler.sample(end, &mut self.stats);
        }
        self.end_ns = end;
        self.stats.runtime_us = if ramping {
            0
        } else {
            (end - self.stats_start_ns) / 1000
        };
        self.stats.usage = Usage::thread().since(&usage_start);
        if spec.fsync_on_close && spec.writes() {
            self.sync_all_files(false);
        }
        self.files.clear();
        if spec.unlink {
            for f in &self.plan.files {
                if !f.block_device && !self.plan.caps.diskless {
                    let _ = std::fs::remove_file(&f.path);
                }
            }
        }
    }

    /// Start the next pass (loops, or a time_based wrap). fio closes and reopens each
    /// file between passes, invalidating its page cache again when invalidate=1 is set;
    /// ferrio keeps the files open but drops their cached pages the same way, so a
    /// time-based job does the same work under both.
    fn new_pass(&mut self) {
        self.pattern.reset_pass();
        let spec = &self.plan.spec;
        if spec.invalidate && !spec.direct {
            for f in self.files.iter().flatten() {
                file::invalidate_cache(f);
            }
        }
    }

    /// Complete everything in flight, as fio's cleanup_pending_aio: one look for
    /// completions without waiting (at most iodepth_batch_complete_max), then commit
    /// what is queued and wait for all the rest in one reap. Returns (still in flight,
    /// time) — 0 unless a commit failed — or None when a reap or commit failed.
    fn drain(&mut self, mut inflight: usize, ramping: bool) -> Option<(usize, u64)> {
        let mut now = 0;
        if self.submit_failed {
            return Some((inflight, self.clock.now_ns()));
        }
        let (n, t) = self.reap(0, self.batching.complete_max, ramping)?;
        inflight -= n;
        now = now.max(t);
        if !self.pending.is_empty() {
            now = self.commit(inflight, ramping)?;
        }
        // Even after an I/O error: the kernel may still be using the buffers.
        while inflight > 0 {
            let (n, t) = self.reap(inflight, inflight, ramping)?;
            inflight -= n;
            now = t;
        }
        Some((inflight, now))
    }

    /// Submit the pending units: one commit, then (fio) the depth map counts them at
    /// the current depth, the submit map counts one submission of that many, and each
    /// gets its slat (generation → submission) and issue time. None on error (recorded).
    fn commit(&mut self, inflight: usize, ramping: bool) -> Option<u64> {
        if let Err(e) = self.engine.commit() {
            self.error = Some((
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("submit: {e}"),
            ));
            self.pending.clear();
            self.submit_failed = true;
            return None;
        }
        let t = self.clock.now_ns();
        let n = self.pending.len() as u32;
        self.stats.depth.record_depth(inflight as u32, n as u64);
        self.stats.depth.record_submit(n);
        for i in 0..self.pending.len() {
            let idx = self.pending[i];
            let d = ddir_of(self.units[idx].op);
            if !ramping && d < 3 {
                self.stats
                    .submitted(self.rec, d, t - self.unit_start_ns[idx]);
            }
            self.unit_issue_ns[idx] = t;
        }
        self.pending.clear();
        Some(t)
    }

    /// One reap of at least `min`, at most `max` completions; accounts them. Returns
    /// (completed, completion time), or None on error (recorded).
    fn reap(&mut self, min: usize, max: usize, ramping: bool) -> Option<(usize, u64)> {
        self.done_list.clear();
        if let Err(e) = self
            .engine
            .reap(&mut self.units, min, max, &mut self.done_list)
        {
            self.error = Some((e.raw_os_error().unwrap_or(libc::EIO), format!("reap: {e}")));
            return None;
        }
        let now = self.clock.now_ns();
        let n = self.done_list.len();
        if n > 0 {
            self.stats.depth.record_complete(n as u32);
        }
        for i in 0..n {
            let idx = self.done_list[i];
            self.complete(idx, now, ramping);
            self.free.push(idx);
        }
        Some((n, now))
    }

    /// Point unit `idx` at the next I/O; returns a fresh issue time when buffer
    /// preparation took time worth excluding from the completion latency.
    #[inline]
    fn prepare_unit(&mut self, idx: usize, io: NextIo) -> Option<u64> {
        let u = &mut self.units[idx];
        u.op = io.op;
        u.file = io.file;
        u.fd = self.fds[io.file];
        u.offset = io.offset;
        u.len = io.len as usize;
        u.result = 0;
        if io.op == IoOp::Write && self.policy.per_write_work() && !self.plan.caps.diskless {
            let len = u.len.min(self.buf_stride);
            // The unit was just taken from the free list: its buffer is not in flight.
            let buf = self.memory.bytes_mut(idx * self.buf_stride, len);
            self.policy.prepare(buf, io.offset, &mut self.rng);
            return Some(self.clock.now_ns());
        }
        None
    }

    #[inline]
    fn complete(&mut self, idx: usize, now: u64, ramping: bool) {
        let u = &self.units[idx];
        let d = ddir_of(u.op);
        if u.result < 0 {
            let errno = (-u.result) as i32;
            self.error = Some((
                errno,
                format!(
                    "io_u error on file {}: {}: {} offset={}, buflen={}",
                    self.plan.files[u.file].path.display(),
                    errno_text(errno),
                    op_name(u.op),
                    u.offset,
                    u.len
                ),
            ));
            return;
        }
        if d == 3 {
            if !ramping {
                self.stats.synced(now - self.unit_issue_ns[idx]);
            }
            return;
        }
        let bytes = u.result as u64;
        let short = bytes < u.len as u64;
        if !ramping {
            let clat = now - self.unit_issue_ns[idx];
            let lat = now - self.unit_start_ns[idx];
            let mut rec = self.rec;
            if self.lat_shadow[d] {
                if lat == clat {
                    rec.lat = false;
                } else {
                    self.materialize_lat(d);
                }
            }
            self.stats.complete(rec, d, bytes, short, clat, lat);
            if self.observers.per_io {
                let offset = self.units[idx].offset;
                self.observers.completed(&Completion {
                    now_ns: now,
                    ddir: d,
                    bytes,
                    offset,
                    issue_ns: self.unit_issue_ns[idx],
                    slat_ns: self.unit_issue_ns[idx] - self.unit_start_ns[idx],
                    clat_ns: clat,
                    lat_ns: lat,
                });
            }
        }
    }

    /// Stop shadowing lat in direction `d`: lat becomes a copy of clat (every value
    /// recorded so far was the same in both).
    fn materialize_lat(&mut self, d: usize) {
        if self.lat_shadow[d] {
            self.lat_shadow[d] = false;
            self.stats.dir[d].lat = self.stats.dir[d].clat.clone();
        }
    }

    /// fsync=N / fdatasync=N: every N *issued* writes, mark the file for a sync. The
    /// sync is issued before the next I/O (as fio does), so a job's last writes are not
    /// followed by one unless end_fsync asks for it.
    fn count_write_for_sync(&mut self, idx: usize) {
        let spec = &self.plan.spec;
        let every = if spec.fsync > 0 {
            spec.fsync
        } else {
            spec.fdatasync
        };
        if every == 0 {
            return;
        }
        self.writes_since_sync += 1;
        if self.writes_since_sync >= every {
            self.writes_since_sync = 0;
            self.sync_due = Some(self.units[idx].file);
        }
    }

    /// A pass ended with nothing in flight: start the next one (time_based, loops) and
    /// return true, or return false when the job is done (number_ios reached included).
    fn pass_ended(&mut self, passes: &mut u32, ios_exhausted: bool) -> bool {
        if ios_exhausted {
            return false;
        }
        *passes += 1;
        let spec = &self.plan.spec;
        if spec.time_based || *passes < spec.loops.max(1) {
            self.new_pass();
            true
        } else {
            false
        }
    }

    /// Point unit `idx` at an fsync/fdatasync of `file` (fsync=N / fdatasync=N).
    fn prepare_sync_unit(&mut self, idx: usize, file: usize) {
        let u = &mut self.units[idx];
        u.op = if self.plan.spec.fsync == 0 {
            IoOp::Fdatasync
        } else {
            IoOp::Fsync
        };
        u.file = file;
        u.fd = self.fds[file];
        u.offset = 0;
        u.len = 0;
        u.result = 0;
    }

    fn sync_all_files(&mut self, data_only: bool) {
        for &fd in &self.fds {
            if fd >= 0 {
                let _ = crate::sys::io::sync(fd, data_only);
            }
        }
    }
}

#[inline]
fn ddir_of(op: IoOp) -> usize {
    match op {
        IoOp::Read => 0,
        IoOp::Write => 1,
        IoOp::Trim => 2,
        IoOp::Fsync | IoOp::Fdatasync => 3,
    }
}

fn op_name(op: IoOp) -> &'static str {
    match op {
        IoOp::Read => "read",
        IoOp::Write => "write",
        IoOp::Trim => "trim",
        IoOp::Fsync => "fsync",
        IoOp::Fdatasync => "fdatasync",
    }
}
