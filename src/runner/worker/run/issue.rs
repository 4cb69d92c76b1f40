//! The issue side of one step: which unit goes to the engine next (the one it was
//! busy for, the rest of a short transfer, a due sync, or a newly generated I/O) and
//! its times. The lean path (`next_unit`) does only what every job does; whatever a
//! job's options add per I/O (pacing, openfiles, verify, fsync=N counts, cmdprio)
//! runs in `generate_extras`, chosen by one flag fixed when the worker is made
//! ([`issue_extras`]), so a plain job pays one test for all of them.

use super::Worker;
use crate::engine::IoOp;
use crate::runner::region::NextIo;
use crate::runner::worker::units::{BufferWork, UnitTimes};

/// Whether a job adds per-I/O work at issue (see the module doc): pacing of any
/// kind, openfiles < nrfiles, verify, fsync=N/fdatasync=N/sync_file_range counts,
/// cmdprio.
pub(super) fn issue_extras(
    paced: bool,
    lazy_files: bool,
    verify: bool,
    sync_every: u32,
    cmdprio: bool,
) -> bool {
    paced || lazy_files || verify || sync_every > 0 || cmdprio
}

impl Worker<'_> {
    /// The unit to queue next: the one the engine was busy for, else the rest of a
    /// short transfer, else a due sync, else the next generated I/O. Its start is
    /// read here, once the I/O is generated (as fio stamps start_time at the end of
    /// get_io_u), right before the engine sees it.
    #[inline(always)]
    pub(super) fn next_unit(&mut self) -> Option<usize> {
        if self.st.busy.is_some() || !self.st.retry.is_empty() || self.st.sync_due.is_some() {
            return self.next_unit_again();
        }
        let idx = self.io.units.free.pop().expect("a free unit");
        // Like fio, a pass moves exactly pass_bytes: the last I/O is trimmed to fit.
        let left = self.lim.pass_bytes.saturating_sub(self.st.pass_issued);
        if self.issue_extras {
            return self.generate_extras(idx, left);
        }
        // A plain random job's block goes to its unit on a path of its own. Joined
        // with the general path's, the block went through that call's out-parameter
        // on the stack, stored field by field and loaded back wider: a failed store
        // forwarding, about 5 ns per I/O (perf on the batch-32 io_uring job).
        if self.zbd.is_none() {
            if let Some(io) = self.pattern.next_plain_io() {
                return Some(self.start_unit(idx, io));
            }
        }
        let Some(io) = self.next_io(left) else {
            self.io.units.free.push(idx);
            return None;
        };
        Some(self.start_unit(idx, io))
    }

    /// Point unit `idx` at the generated `io`, prepare its buffer and read its start:
    /// the lean path's end (inlined into each of `next_unit`'s two paths).
    #[inline(always)]
    fn start_unit(&mut self, idx: usize, io: NextIo) -> usize {
        let work = self.io.units.point(idx, io, self.io.fds[io.file]);
        // fio times a refill in no latency and a scramble in lat only.
        if work == BufferWork::BeforeStart {
            self.io.units.prepare_buffer(idx, 0);
        }
        let (start_ns, issue_ns) = self.read_start(idx, work);
        self.io.units.times[idx] = UnitTimes {
            due_ns: start_ns,
            start_ns,
            issue_ns,
        };
        self.st
            .generated(&self.lim, io.len, io.follow_up, self.pattern.has_pending());
        idx
    }

    /// `next_unit` for a unit that is not newly generated: the one the engine was
    /// busy for, the rest of a short transfer, or a due fsync=N sync.
    #[inline(never)]
    fn next_unit_again(&mut self) -> Option<usize> {
        if let Some(idx) = self.st.busy.take() {
            // Retry the unit the engine had no room for; it is already counted.
            return Some(idx);
        }
        if let Some(idx) = self.st.retry.pop() {
            // The rest of a short transfer: its start stays (lat covers every part),
            // its issue is now (synchronous) or its commit (asynchronous), as fio's.
            if self.synchronous {
                self.io.units.times[idx].issue_ns = self.read_clock();
            }
            return Some(idx);
        }
        let idx = self.io.units.free.pop().expect("a free unit");
        let file = self.st.sync_due.take().expect("a due sync");
        // fsync=N: the sync is an I/O unit of its own (fio's DDIR_SYNC), so every
        // engine — including diskless and asynchronous ones — runs it.
        let fd = self.io.fds[file];
        // fio: a sync of any kind ends the file's written range
        let range = self.st.take_written(file);
        let stale = self.io.units.io[idx].offset; // write_iolog logs it, as fio
        match self.sync_range_flags {
            Some(flags) => self.io.units.point_range_sync(idx, file, fd, flags, range),
            None => self.io.units.point_sync(idx, file, fd, self.sync_data_only),
        }
        self.pattern.log_sync(file, self.io.units.io[idx].op, stale);
        self.verify_sync(idx, false); // VERIFY: verify_policy=fsynced's mark
        let t = self.read_clock();
        self.io.units.times[idx] = UnitTimes {
            due_ns: t,
            start_ns: t,
            issue_ns: t,
        };
        Some(idx)
    }

    /// `next_unit`'s generation for a job whose options add per-I/O work (see
    /// [`issue_extras`]); the same steps as the lean path, in the same order, with
    /// each option's own.
    #[inline(never)]
    fn generate_extras(&mut self, idx: usize, left: u64) -> Option<usize> {
        self.rate_view(); // PACING: a mixed job may turn to the direction behind its rate.
        let Some(io) = self.next_io(left) else {
            self.io.units.free.push(idx);
            return None;
        };
        if self.lazy_files && !self.file_for_io(io.file) {
            self.io.units.free.push(idx);
            return None;
        }
        let work = self.io.units.point(idx, io, self.io.fds[io.file]);
        // PACING: wait for the I/O's due time before its start is stamped.
        let Ok(due_ns) = self.pace(io.op, io.len) else {
            // The runtime ended (or a stop came) during the wait: not issued.
            self.io.units.free.push(idx);
            return None;
        };
        // fio times a refill in no latency and a scramble in lat only. VERIFY: a
        // verified write's stamp replaces every byte of a refill (fio fills twice).
        let stamped =
            io.op == IoOp::Write && self.verify.as_ref().is_some_and(|v| v.fills_blocks());
        if work == BufferWork::BeforeStart && !stamped {
            self.io.units.prepare_buffer(idx, 0);
        }
        // VERIFY: a verified write's data and headers, before its start as in fio;
        // they replace any refill or scramble.
        let work = if io.op == IoOp::Write && self.verify_stamp(idx) {
            BufferWork::None
        } else {
            work
        };
        let (start_ns, issue_ns) = self.read_start(idx, work);
        if io.op == IoOp::Write {
            self.st.count_write(self.sync_every, io.file);
        } else if self.sync_after_reads && matches!(io.op, IoOp::Read | IoOp::Trim) {
            self.st.count_other(io.file); // (a replayed sync is a sync to fio)
        }
        self.io.units.times[idx] = UnitTimes {
            due_ns: due_ns.unwrap_or(start_ns),
            start_ns,
            issue_ns,
        };
        self.st
            .generated(&self.lim, io.len, io.follow_up, self.pattern.has_pending());
        if self.cmdprio.is_some() {
            self.prio_issue(idx, io.op, io.len); // CMDPRIO
        }
        Some(idx)
    }

    /// The I/O's start, read right before the engine sees it, and its issue time: a
    /// scramble done after the start (fio times it in lat only) moves the issue.
    /// The start is the clock's unordered read (`Clock::start_ns`: it may be a few
    /// ns early, never late, and does not stall), so it is not the loop's latest
    /// reading either: the step's commit or completion reads again, ordered.
    #[inline(always)]
    fn read_start(&mut self, idx: usize, work: BufferWork) -> (u64, u64) {
        let start_ns = self.clock.start_ns();
        if work == BufferWork::AfterStart {
            self.io.units.prepare_buffer(idx, start_ns);
            (start_ns, self.read_clock())
        } else {
            (start_ns, start_ns)
        }
    }
}
