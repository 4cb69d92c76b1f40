//! ZONES: the I/O loop's side of zonemode=zbd (src/runner/zones/): each generated I/O
//! is moved where the zone rules allow before it is queued; the zbd logic may wait
//! for everything in flight (before a zone reset, or for a zone to close) or for
//! other threads on the same zoned target; the zone it picked stays held until the
//! I/O reached the engine ([`Worker::zone_issued`]).

use super::Worker;
use crate::runner::region::NextIo;
use crate::runner::zones::{Adjusted, Zbd, ZoneHost};

impl Worker<'_> {
    /// Turn zonemode=zbd on for this worker.
    pub fn with_zones(mut self, zbd: Option<Zbd>) -> Self {
        self.zoned = zbd.is_some();
        self.burst &= !self.zoned;
        self.zbd = zbd;
        self
    }

    /// The next I/O, moved by zonemode=zbd; None when the job is over (no zone left,
    /// or an error, recorded), or the pass is (every file done: `take_ran_out`).
    #[inline(always)]
    pub(super) fn next_io(&mut self, max_len: u64) -> Option<NextIo> {
        if self.zbd.is_none() {
            let io = self.pattern.next_io_or_end(max_len);
            if io.is_none() {
                self.sequence_error();
            }
            return io;
        }
        self.next_io_zoned(max_len)
    }

    /// random_distribution=sequence ran past the file: the job is over (with an
    /// error when the list names a block past it).
    #[cold]
    #[inline(never)]
    fn sequence_error(&mut self) {
        if let Some(e) = self
            .pattern
            .take_sequence_error(|f| self.plan.files[f].path.display().to_string())
        {
            self.acct.error.get_or_insert((libc::EINVAL, e));
        }
    }

    /// `next_io` with zonemode=zbd.
    #[inline(never)]
    fn next_io_zoned(&mut self, max_len: u64) -> Option<NextIo> {
        let mut zbd = self.zbd.take()?;
        self.pattern
            .zbd
            .get_or_insert_with(Default::default)
            .reads_as_writes = zbd.reads_become_writes();
        let io = self.pattern.next_io_unlogged(max_len);
        if self.pattern.sequence_ended() {
            self.zbd = Some(zbd);
            if let Some(e) = self
                .pattern
                .take_sequence_error(|f| self.plan.files[f].path.display().to_string())
            {
                self.acct.error.get_or_insert((libc::EINVAL, e));
            }
            return None;
        }
        let r = zbd.adjust(io, self);
        self.zbd = Some(zbd);
        match r {
            Adjusted::Io(mut io) => {
                self.pattern.accepted(&mut io);
                if let Some(z) = &mut self.zbd {
                    z.queued(&io);
                }
                Some(io)
            }
            Adjusted::End | Adjusted::Wait => None,
            Adjusted::Error(errno, msg) => {
                self.acct.error.get_or_insert((errno, msg));
                None
            }
        }
    }
}

impl ZoneHost for Worker<'_> {
    fn quiesce(&mut self) {
        if self.st.inflight > 0 || !self.io.units.pending.is_empty() {
            let _ = self.drain();
        }
    }

    fn in_flight(&self) -> bool {
        self.st.inflight > 0
    }

    fn completed(&mut self) -> Vec<(usize, u64, u64)> {
        std::mem::take(&mut self.zone_done)
    }
}

impl Worker<'_> {
    /// The I/O last moved by zonemode=zbd reached the engine: other threads may use
    /// its zone now.
    pub(super) fn zone_issued(&mut self) {
        if let Some(z) = &mut self.zbd {
            z.issued();
        }
    }

    /// zonemode=zbd at the job's end: its last completed writes close the zones they
    /// filled (other jobs may open others), its zones are let go, and its statistics
    /// (the most zones open at once) are returned.
    pub(super) fn zone_finish(&mut self) -> Vec<ferrio_report::extra::ExtraStat> {
        let Some(mut z) = self.zbd.take() else {
            return Vec::new();
        };
        z.finish(std::mem::take(&mut self.zone_done));
        z.extra_stats()
    }
}
