//! The worker's verify glue (the rules live in `crate::verify`): each write's
//! buffer gets its data and headers before its start is stamped, the blocks
//! written are logged, and they are read back and checked — after the writes
//! through the job's own engine and depth (the I/O loop runs once more over
//! reads of the logged blocks), and every verify_backlog writes, when the queue
//! is empty, by direct reads. The reads are accounted as reads (fio reports its
//! verify phase so); a failure is printed as fio prints it and goes to the error
//! policy as EILSEQ, so continue_on_error=verify counts it and goes on.

use super::super::state::{Limits, LoopState};
use super::super::units::UnitTimes;
use super::Worker;
use crate::engine::{IoOp, IoUnit};
use crate::runner::pattern::Pattern;
use crate::runner::replay::{Entry, IoLog};
use crate::sys::memory::AlignedBuf;
use crate::verify::block::Failure;
use crate::verify::log::Piece;
use crate::verify::phase::Phase;
use crate::verify::state;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The job's own I/O state while a verify phase runs in its place.
pub(super) struct Saved {
    pattern: Pattern,
    lim: Limits,
    st: LoopState,
}

impl<'a> Worker<'a> {
    /// A write is about to start from unit `idx`: give its buffer verify data.
    /// False when the job does not verify.
    #[inline]
    pub(super) fn verify_stamp(&mut self, idx: usize) -> bool {
        let Some(v) = self.verify.as_mut() else {
            return false;
        };
        let u = &self.io.units.io[idx];
        let (file, offset, len) = (u.file, u.offset, u.len);
        let t = self.clock.now_ns();
        match self.io.units.buffer_mut(idx) {
            Some(buf) => v.stamp(buf, file, offset, t),
            // No buffers (a diskless engine, whose verify pretends): the block is
            // still logged, so the verify phase reads it back as fio's does.
            None => v.would_write(file, offset, len),
        }
        true
    }

    /// verify_policy=fsynced: an fsync from unit `idx` is submitted (`done`: it
    /// completed), which marks the writes its state file covers.
    pub(super) fn verify_sync(&mut self, idx: usize, done: bool) {
        let Some(v) = self.verify.as_mut().filter(|v| v.tracker.fsynced) else {
            return;
        };
        let u = &self.io.units.io[idx];
        if !matches!(u.op, IoOp::Fsync | IoOp::Fdatasync) {
            return;
        }
        match done {
            false => v.tracker.sync_started(idx),
            true => v.tracker.sync_done(idx, u.result >= 0),
        }
    }

    /// A read-only job with verify checks every block it reads (fio verifies each
    /// read of a job that does not write).
    pub(super) fn verify_read(&mut self, idx: usize) {
        let Some(v) = self.verify.as_mut() else {
            return;
        };
        let u = &self.io.units.io[idx];
        if u.op != IoOp::Read || u.result != u.len as i64 {
            return;
        }
        let p = match v.phase_piece(u.file, u.offset) {
            Some(p) => p,
            None if v.inline_reads => Piece {
                file: u.file,
                offset: u.offset,
                len: u.len,
                seed: None,
                numberio: None,
                trimmed: false,
                seq: 0,
            },
            None => return,
        };
        // The plan outlives the worker's borrows: its path needs no copy per block.
        let plan = self.plan;
        let path = plan.files[p.file].path.as_path();
        let Some(block) = self.io.units.buffer_mut(idx) else {
            return;
        };
        let failures = v.check(block, &p, path);
        if !failures.is_empty() {
            let mut dumped = Vec::new();
            for f in &failures {
                if v.dump {
                    dumped.extend(v.dump_failure(f, block, &p, path));
                }
            }
            let goes_on = self.verify_failed(&failures, dumped, path);
            if goes_on && v_fatal(&self.verify) {
                // verify_fatal: issue nothing more; what is in flight completes.
                self.lim.max_ios = self.st.issued_ios;
            }
        }
    }

    /// verify_only: walk the workload's I/Os without issuing them, logging the writes.
    /// True when the job verifies only (the I/O loop is then skipped). As fio's
    /// dry run, the writes not issued count as issued (bytes and I/Os) but take no
    /// time: the write runtime stays 0, so no rate is derived from them. The pass
    /// ends where the job's own would (its bytes, number_ios, every file done).
    pub(super) fn verify_dry_run(&mut self) -> bool {
        // verify_only without verify=: fio still walks the writes without issuing
        // them (do_dry_run), and then has nothing to check.
        let spec = &self.plan.spec;
        let only = match &self.verify {
            Some(v) => v.only,
            None => spec.verify.only && spec.writes(),
        };
        if !only {
            return false;
        }
        // A state file that could not be loaded stopped the job before any I/O.
        if self.acct.error.is_some() {
            return true;
        }
        let stats = &mut self.acct.stats;
        while !self.st.out_of_work(&self.lim) {
            let left = self.lim.pass_bytes.saturating_sub(self.st.pass_issued);
            let Some(io) = self.pattern.next_io_or_end(left).filter(|io| io.len > 0) else {
                self.st.files_done = self.pattern.take_ran_out();
                break;
            };
            let pending = self.pattern.has_pending();
            self.st.generated(&self.lim, io.len, io.follow_up, pending);
            if !self.synchronous {
                // Passes end where the job's own would with this engine: an
                // asynchronous one queues its I/Os, and fio ends a pass at the
                // bytes queued (so the walk meets the writes it checks).
                self.st.queued(&self.lim, io.len, pending);
            }
            // fio's do_dry_run counts every I/O it walks, a mixed job's reads too
            // (none is issued), and logs the writes for the check.
            let d = match io.op {
                IoOp::Read => 0,
                IoOp::Write => 1,
                IoOp::Trim => 2,
                _ => continue,
            };
            if d == 1 {
                if let Some(v) = self.verify.as_mut() {
                    v.would_write(io.file, io.offset, io.len as usize);
                }
            }
            stats.dir[d].io_bytes += io.len;
            stats.dir[d].total_ios += 1;
            stats.depth.record_depth(1, 1);
        }
        true
    }

    /// verify_state_load: read the job's state file before any I/O; a missing or
    /// damaged one stops the job with an error naming it (fio fails the run).
    pub(super) fn verify_load_state(&mut self) {
        let spec = &self.plan.spec;
        let Some(v) = self.verify.as_mut().filter(|_| spec.verify.state_load) else {
            return;
        };
        let index = self.plan.seeds.thread_number.saturating_sub(1);
        let name = state::in_aux(
            spec.verify.aux_path.as_deref(),
            state::file_name(&spec.name, index),
        );
        let loaded = std::fs::read(&name)
            .map_err(|e| (e.raw_os_error().unwrap_or(libc::EIO), e.to_string()))
            .and_then(|b| state::State::decode(&b).map_err(|e| (libc::EINVAL, e)));
        match loaded {
            Ok(s) => v.loaded = Some(s),
            Err((errno, why)) => {
                self.acct.error = Some((
                    errno,
                    format!(
                        "verify_state_load: cannot use the state file {}: {why}",
                        name
                    ),
                ));
            }
        }
    }

    /// verify_state_save: a verifying write job leaves its state file when it
    /// ends (done, stopped, interrupted), as fio; nothing is in flight by now.
    pub(super) fn verify_save_state(&self) {
        let spec = &self.plan.spec;
        let Some(v) = self.verify.as_ref() else {
            return;
        };
        if !spec.verify.state_save || !spec.writes() || spec.verify.state_load && v.loaded.is_none()
        {
            return;
        }
        // A server's run writes only beneath its --server-allow directories; the
        // state file would land in the server's working directory.
        if self.plan.confine.is_some() {
            return;
        }
        let index = self.plan.seeds.thread_number.saturating_sub(1);
        let s = v.tracker.state(&spec.name, index, self.plan.files.len());
        let name = state::in_aux(
            spec.verify.aux_path.as_deref(),
            state::file_name(&s.name, index),
        );
        if let Err(e) = std::fs::write(&name, s.encode()) {
            eprintln!("ferrio: verify_state_save: cannot write {}: {e}", name);
        }
    }

    /// end_fsync and fsync_on_close sync the files when the writes end, before the
    /// read-back (fio's do_io syncs at its end, then do_verify reads), so the blocks
    /// checked are the ones on the device; the time counts for the writes. Returns
    /// the time read after the sync (`now` when there was none).
    pub(super) fn sync_before_read_back(&mut self, stop: &AtomicBool, now: u64) -> u64 {
        let reads_back = self.verify.as_ref().is_some_and(|v| v.do_verify);
        if !reads_back
            || !self.syncs_at_loop_end()
            || self.st.inflight > 0
            || self.acct.error.is_some()
            || stop.load(Ordering::Relaxed)
        {
            return now;
        }
        self.end_syncs();
        self.end_synced = true;
        self.clock.now_ns()
    }

    /// fio's per-direction runtime of a verify job: a phase from `from` to `to`
    /// counts for reads when it is a verify phase, else for each of the job's own
    /// directions that moved data (not a verify_only job's writes, never issued).
    pub(super) fn verify_clock(&mut self, verify_phase: bool, from: u64, to: u64) {
        let Some(v) = self.verify.as_mut() else {
            return;
        };
        if self.st.ramping {
            return;
        }
        if from < self.stats_start_ns {
            v.dir_us = [0; 3]; // ramp_time ended in this phase: nothing before counts
        }
        let us = to.saturating_sub(from.max(self.stats_start_ns)) / 1000;
        if verify_phase {
            v.dir_us[0] += us;
            return;
        }
        let own = self.plan.spec.rw.kind.directions();
        for (d, t) in v.dir_us.iter_mut().enumerate() {
            // Trims of trim_backlog in a write job count too (fio aborts on those).
            let mine = own[d] || d == 2;
            if mine && self.acct.stats.dir[d].io_bytes > 0 && !(d == 1 && v.only) {
                *t += us;
            }
        }
    }

    /// loops=N: after a loop's verify phase, go back to the job's own I/O for the
    /// next loop (fio verifies each loop's writes before the next). True when
    /// another loop is to run.
    pub(super) fn verify_next_loop(
        &mut self,
        saved: Option<Saved>,
        stop: &AtomicBool,
        now: u64,
    ) -> bool {
        let Some(v) = self.verify.as_mut() else {
            return false;
        };
        if saved.is_some() {
            v.debug_phase(false);
        }
        if !v.each_loop {
            return false;
        }
        v.phase = Default::default();
        let only = v.only;
        if let Some(s) = saved {
            let log = self.pattern.take_iolog();
            self.pattern = s.pattern;
            self.pattern.put_iolog(log);
            // fio's number_ios counts every block moved, the read-back included.
            let read_back_ios = self.st.issued_ios;
            self.lim = s.lim;
            self.lim.max_ios = self.lim.max_ios.saturating_sub(read_back_ios);
            self.st = s.st;
        }
        if only {
            self.st.passes += 1; // the dry run counts no passes of its own
        }
        if stop.load(Ordering::Relaxed)
            || self.acct.error.is_some()
            || now >= self.lim.deadline_ns
            || (self.st.passes >= self.plan.spec.loops.max(1) && !self.more_passes())
            || self.st.ios_exhausted(&self.lim)
        {
            return false;
        }
        self.new_pass();
        self.st.restart_pass(&self.lim);
        true
    }

    /// verify_backlog / trim_backlog: a round is due and nothing is in flight.
    pub(super) fn verify_backlog(&mut self) {
        let Some(v) = self.verify.as_ref() else {
            return;
        };
        let (due, trim) = (v.backlog_due(), v.trim_due());
        if !(due || trim)
            || self.st.inflight > 0
            || self.st.busy.is_some()
            || !self.st.retry.is_empty()
        {
            return;
        }
        if trim {
            let most = self.verify.as_ref().map_or(0, |v| v.trim_batch as usize);
            self.trim_round(most);
        }
        if !due {
            return;
        }
        let v = self.verify.as_mut().expect("checked");
        v.backlog_reached = false;
        // fio takes the oldest writes when it keeps them in a list, else by offset.
        let n = v.batch as usize;
        let batch = if v.in_write_order() {
            v.log.take_oldest(n)
        } else {
            v.log.take(n)
        };
        for p in &batch {
            self.pattern.log_read(p.file, p.offset, p.len as u64); // write_iolog
        }
        // fio's backlog reads are I/Os of the pass: its keep_running counts their
        // bytes and number_ios their blocks, as the verify phase's.
        let bytes = batch.iter().map(|p| p.len as u64).sum::<u64>();
        v.read_back += bytes;
        self.lim.max_ios = self.lim.max_ios.saturating_sub(batch.len() as u64);
        if !self.synchronous {
            // An asynchronous engine would have queued them: fio's bytes_issued.
            self.st.queued(&self.lim, bytes, self.pattern.has_pending());
        }
        self.verify_blocks(batch, None);
    }

    /// After the writes: point the loop at reads of every block still logged —
    /// through the job's engine at its depth, as fio's verify phase — unless the
    /// job stopped early (an error, a signal, its runtime), as fio. True when the
    /// loop is to run again for them: what it replaces of the job's own I/O is
    /// handed back for the next loop.
    pub(super) fn verify_phase(&mut self, stop: &AtomicBool, now: u64) -> Option<Saved> {
        let v = self.verify.as_mut()?;
        if !v.do_verify && !v.only
            || self.acct.error.is_some()
            || stop.load(Ordering::Relaxed)
            || self.st.inflight > 0
            || (now >= self.lim.deadline_ns && !v.only)
        {
            return None;
        }
        // fio reads back in its io_piece order: as written with a random map, else
        // by offset (the order a write_iolog shows).
        let mut pieces = if v.in_write_order() {
            v.log.take_oldest(usize::MAX)
        } else {
            v.log.take(usize::MAX)
        };
        v.cut_at_state(&mut pieces);
        if pieces.is_empty() {
            return None;
        }
        let entries = pieces
            .iter()
            .map(|p| Entry {
                file: p.file,
                op: IoOp::Read,
                offset: p.offset,
                len: p.len as u64,
                // The read-back runs as fast as it can: no replay timing.
                delay_us: 0,
                at_ms: None,
            })
            .collect();
        let names = self
            .plan
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        let mut plan = self.plan.clone();
        plan.replay = Some(Arc::new(IoLog::from_entries(names, entries)));
        let regions: Vec<_> = self.plan.files.iter().map(|f| f.region).collect();
        // write_iolog: fio logs the read-back too, its files opened anew.
        let mut log = self.pattern.take_iolog();
        if let Some(log) = &mut log {
            log.close_all();
        }
        let saved = Saved {
            pattern: std::mem::replace(
                &mut self.pattern,
                Pattern::for_thread(&plan, &regions, log),
            ),
            lim: self.lim,
            st: std::mem::take(&mut self.st),
        };
        self.lim.pass_bytes = pieces.iter().map(|p| p.len as u64).sum();
        v.read_back += self.lim.pass_bytes;
        // One pass over the blocks, whatever loops, time_based or runtime say.
        self.lim.max_ios = pieces.len() as u64;
        self.lim.deadline_ns = u64::MAX;
        self.st = LoopState::new(&self.lim, false);
        // openfiles below nrfiles: the files closed by now are opened for the
        // read-back, past the limit (as fio's get_next_verify opens them).
        // (Only lazily opened files: a diskless engine's descriptors are always -1.)
        let mut closed: Vec<usize> = pieces.iter().map(|p| p.file).collect();
        closed.sort_unstable();
        closed.dedup();
        closed.retain(|&f| self.io.lazy && self.io.fds[f] < 0);
        v.phase = Phase::new(pieces);
        // fio's do_verify drops the cache of the files still open, says it starts,
        // and reopens the closed ones as it reads (open_file drops theirs).
        self.invalidate_files();
        if let Some(v) = &self.verify {
            v.debug_phase(true);
        }
        for f in closed {
            let opened = self.io.open_file(self.plan, f).and_then(|()| {
                let fd = self.io.fds[f];
                self.io.engine.file_changed(f, fd).map_err(|e| {
                    (
                        e.raw_os_error().unwrap_or(libc::EIO),
                        format!("verify: {e}"),
                    )
                })
            });
            if let Err(e) = opened {
                self.acct.error.get_or_insert(e);
            }
        }
        Some(saved)
    }

    /// After a pass's writes: trim every block still picked, as fio's do_io goes on
    /// while its trim list is not empty — unless the job was stopped (a signal, an
    /// error, its runtime), as fio's loop breaks then.
    pub(super) fn trim_the_rest(&mut self, stop: &AtomicBool, now: u64) {
        let Some(v) = self.verify.as_ref() else {
            return;
        };
        if v.trims.is_empty()
            || self.acct.error.is_some()
            || stop.load(Ordering::Relaxed)
            || now >= self.lim.deadline_ns
            || self.st.inflight > 0
        {
            return;
        }
        self.trim_round(usize::MAX);
    }

    /// trim_backlog: trim the oldest picked blocks, up to `most` (punching holes, as
    /// fio does in files), accounted as trims; each is then expected to read back as
    /// zeros (trim_verify_zero) or is no longer verified. Like fio's, the trims are
    /// I/Os of the job: they count toward `number_ios`.
    fn trim_round(&mut self, most: usize) {
        let v = self.verify.as_mut().expect("verifying");
        v.trim_reached = false;
        let n = most.min(v.trims.len());
        let batch: Vec<_> = v.trims.drain(..n).collect();
        let mut held = None;
        for (file, offset, len) in batch {
            let v = self.verify.as_mut().expect("verifying");
            let keep = v.trim_zero;
            if !v.log.trimmed(file, offset, len, keep) {
                continue; // written over since: nothing to trim
            }
            let Some(fd) = self.verify_fd(file, &mut held) else {
                break;
            };
            let start = self.clock.now_ns();
            let r = crate::sys::io::punch_hole(fd, offset, len);
            let end = self.clock.now_ns();
            let unit = IoUnit {
                op: IoOp::Trim,
                file,
                fd,
                offset,
                len,
                buf: std::ptr::null_mut(),
                result: r,
                done_ns: None,
            };
            self.account_inline(&unit, start, end);
            self.lim.max_ios = self.lim.max_ios.saturating_sub(1);
            if self.acct.error.is_some() {
                break;
            }
        }
        self.verify_release(held);
    }

    /// Account an I/O the verify phase did itself, synchronously, from `start` to
    /// `end` (its issue and its start are the same moment).
    fn account_inline(&mut self, unit: &IoUnit, start: u64, end: u64) {
        let times = UnitTimes {
            due_ns: start,
            start_ns: start,
            issue_ns: start,
        };
        let files = &self.plan.files;
        let path = || files.get(unit.file).map(|f| f.path.as_path());
        self.acct
            .complete(unit, times, end, path, self.st.ramping, true);
    }

    /// Read and check `pieces` in order; stops at a fatal failure (or any with
    /// verify_fatal) and at `stop`.
    fn verify_blocks(&mut self, pieces: Vec<Piece>, stop: Option<&AtomicBool>) {
        let Some(max) = pieces.iter().map(|p| p.len).max() else {
            return;
        };
        let mut buf = AlignedBuf::new(max, crate::sys::memory::page_size());
        let mut held = None;
        for p in pieces {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                break;
            }
            let Some(fd) = self.verify_fd(p.file, &mut held) else {
                break;
            };
            let start = self.clock.now_ns();
            let mut done = 0usize;
            let mut err = 0i32;
            while done < p.len {
                let r = crate::sys::io::pread(
                    fd,
                    buf.as_mut_ptr().wrapping_add(done),
                    p.len - done,
                    p.offset + done as u64,
                );
                if r <= 0 {
                    err = if r < 0 { (-r) as i32 } else { libc::EIO };
                    break;
                }
                done += r as usize;
            }
            let end = self.clock.now_ns();
            // Borrowed from the plan (not from self): no copy per block.
            let plan = self.plan;
            let path = plan.files[p.file].path.as_path();
            let unit = IoUnit {
                op: IoOp::Read,
                file: p.file,
                fd,
                offset: p.offset,
                len: p.len,
                buf: buf.as_mut_ptr(),
                result: if err != 0 {
                    -(err as i64)
                } else {
                    p.len as i64
                },
                done_ns: None,
            };
            self.account_inline(&unit, start, end);
            if err != 0 {
                if self.acct.error.is_some() {
                    break;
                }
                continue;
            }
            let v = self.verify.as_ref().expect("verifying");
            let block = &mut buf.as_mut_slice()[..p.len];
            let failures = v.check(block, &p, path);
            if failures.is_empty() {
                continue;
            }
            let mut dumped = Vec::new();
            if v.dump {
                for f in &failures {
                    dumped.extend(v.dump_failure(f, block, &p, path));
                }
            }
            let goes_on = self.verify_failed(&failures, dumped, path);
            let fatal = self.verify.as_ref().is_some_and(|v| v.fatal);
            if !goes_on || fatal {
                break;
            }
        }
        self.verify_release(held);
    }

    /// The descriptor of `file` for the verify pass. With openfiles below nrfiles
    /// the file may be closed now: it is opened (as fio opens a verified block's
    /// file), and the one opened so before is closed, so at most one file more than
    /// openfiles is open, and none after the pass. None on error (recorded).
    fn verify_fd(&mut self, file: usize, held: &mut Option<usize>) -> Option<i32> {
        if !self.io.lazy || self.io.fds[file] >= 0 {
            return Some(self.io.fds[file]);
        }
        self.verify_release(held.take());
        if let Err(e) = self.io.open_file(self.plan, file) {
            self.acct.error.get_or_insert(e);
            return None;
        }
        *held = Some(file);
        Some(self.io.fds[file])
    }

    /// Close the file the verify pass opened, if any.
    fn verify_release(&mut self, held: Option<usize>) {
        if let Some(f) = held {
            self.io.close_file(self.plan, f);
        }
    }

    /// Print a block's failures as fio does and hand them to the error policy as
    /// one EILSEQ; true when the job goes on.
    fn verify_failed(&mut self, failures: &[Failure], dumped: Vec<String>, path: &Path) -> bool {
        for f in failures {
            for l in &f.lines {
                eprintln!("{l}");
            }
        }
        for l in dumped {
            eprintln!("{l}");
        }
        let first = failures[0].at;
        let kind = self.verify.as_ref().map_or("", |v| v.layout.kind.name());
        self.acct.io_error(IoOp::Read, libc::EILSEQ, || {
            format!(
                "verify ({kind}) failed at file {} offset {first}",
                path.display()
            )
        })
    }
}

fn v_fatal(v: &Option<crate::verify::Verifier>) -> bool {
    v.as_ref().is_some_and(|v| v.fatal)
}
