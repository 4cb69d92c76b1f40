//! The pattern's hooks for the loop's other features: zonemode=zbd moves an I/O
//! before it is logged ([`Pattern::next_io_unlogged`], [`Pattern::accepted`]), and
//! a timed iolog replay paces by its entries' timing ([`Pattern::replay_timing`]),
//! and a paced mixed job turns to the direction behind its rate (`rate_ddir`).

use super::{NextIo, Pattern};
use crate::engine::IoOp;
use crate::runner::iolog::IoLogWriter;

impl Pattern {
    /// The next I/O, not yet logged: zonemode=zbd moves it first, then hands it to
    /// [`Pattern::accepted`].
    pub fn next_io_unlogged(&mut self, max_len: u64) -> NextIo {
        match self.generate(max_len, false) {
            Some(io) => io,
            None => {
                debug_assert!(self.sequence_ended(), "files start over");
                self.ended_io()
            }
        }
    }

    /// zonemode=zbd: the I/O as moved is issued; the next sequential one continues
    /// after it (fio sets last_pos from the adjusted I/O), and the log records it.
    pub fn accepted(&mut self, io: &mut NextIo) {
        // fio marks the random map at the drawn offset for the moved I/O's length.
        if let Some((file, d, rel)) = self.zbd.as_mut().and_then(|z| z.mark.take()) {
            io.len = self.mark_map(file, d, rel, io.len);
        }
        let d = usize::from(io.op == IoOp::Write) + 2 * usize::from(io.op == IoOp::Trim);
        let f = &mut self.files[io.file];
        let rel = io.offset - f.region.start;
        f.last_start[d] = Some(rel);
        f.seq_pos[d] = rel + io.len;
        if let Some(log) = &mut self.iolog {
            log.io(io.file, io.op, io.offset, io.len);
        }
    }

    /// Replaying a timed iolog: the timing of the I/O just generated, as (µs after the
    /// previous I/O's start, not before this many ms after the job's start). None
    /// when not replaying or the entry has no timing.
    pub fn replay_timing(&self) -> Option<(u64, Option<u64>)> {
        let e = self.replay.as_ref()?.last()?;
        (e.delay_us > 0 || e.at_ms.is_some()).then_some((e.delay_us, e.at_ms))
    }

    /// fio's rate_ddir for a mixed job: the direction the mix chose, unless it is
    /// ahead of its rate and the other one is not (or is due sooner).
    pub(super) fn rate_ddir(&self, d: usize) -> usize {
        match self.rate_view {
            Some((now, due)) => {
                crate::runner::pacing::rate_ddir(d, now, due, self.rwmix[d ^ 1] > 0)
            }
            None => d,
        }
    }

    /// write_iolog: a sync is issued to `file` (fio logs it at issue, like any I/O).
    pub fn log_sync(&mut self, file: usize, op: IoOp, stale_offset: u64) {
        if let Some(log) = &mut self.iolog {
            log.sync(file, op, stale_offset);
        }
    }

    /// write_iolog: end_fsync's sync of `file`, opened (and closed again) for it
    /// when closed.
    pub fn log_end_sync(&mut self, file: usize, stale_offset: u64) {
        if let Some(log) = &mut self.iolog {
            log.end_sync(file, stale_offset);
        }
    }

    /// write_iolog: a verify_backlog read-back, issued outside the pattern.
    pub fn log_read(&mut self, file: usize, offset: u64, len: u64) {
        if let Some(log) = &mut self.iolog {
            log.io(file, IoOp::Read, offset, len);
        }
    }

    /// write_iolog: the writer, handed from the job's pattern to its verify phase's
    /// (fio logs the verify reads too) and back.
    pub fn take_iolog(&mut self) -> Option<IoLogWriter> {
        self.iolog.take()
    }

    /// See [`Pattern::take_iolog`].
    pub fn put_iolog(&mut self, log: Option<IoLogWriter>) {
        self.iolog = log;
    }
}
