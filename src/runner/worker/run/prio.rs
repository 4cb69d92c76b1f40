//! CMDPRIO glue: each read or write's per-command priority before it is queued and
//! its latency under that priority when it completes (runner/cmdprio.rs), and the
//! reason an uncached=1 I/O failed with EOPNOTSUPP.

use super::Worker;
use crate::engine::IoOp;
use crate::runner::worker::units::UnitTimes;

/// Appended to the job's error when uncached=1 I/O fails with EOPNOTSUPP.
const UNCACHED_HINT: &str = " (uncached=1: RWF_DONTCACHE needs Linux 6.14 or later and a file system that supports it, such as ext4, xfs or btrfs; tmpfs does not)";

impl Worker<'_> {
    /// fio's draw for unit `idx`'s new I/O (one per read or write handed to the
    /// engine), and the priority the engine sends with it.
    pub(super) fn prio_issue(&mut self, idx: usize, op: IoOp, len: u64) {
        let Some(cp) = &mut self.cmdprio else { return };
        if matches!(op, IoOp::Read | IoOp::Write) {
            let (prio, chosen) = cp.choose(idx, (op == IoOp::Write) as usize, len);
            self.io.engine.set_ioprio(idx, prio, chosen);
        }
    }

    /// Before unit `idx` is accounted: its priority for the per-I/O logs, and its
    /// latency again under that priority.
    pub(super) fn prio_complete(&mut self, idx: usize, t: UnitTimes, now: u64) {
        let Some(cp) = &self.cmdprio else { return };
        let u = &self.io.units.io[idx];
        if !matches!(u.op, IoOp::Read | IoOp::Write) {
            self.acct.ioprio = cp.default_ioprio(); // trims and syncs: the job's own
            return;
        }
        let d = (u.op == IoOp::Write) as usize;
        self.acct.ioprio = cp.ioprio_of(idx, d);
        if u.result >= 0 && !self.st.ramping {
            cp.record(
                &mut self.acct.stats,
                idx,
                d,
                now - t.issue_ns,
                now - t.start_ns,
            );
        }
    }

    /// After unit `idx` failed: an uncached=1 I/O's EOPNOTSUPP says why.
    #[cold]
    pub(super) fn explain_error(&mut self, idx: usize) {
        let u = &self.io.units.io[idx];
        if u.result == -(libc::EOPNOTSUPP as i64) && self.plan.spec.prio.uncached {
            if let Some((_, msg)) = &mut self.acct.error {
                if !msg.ends_with(UNCACHED_HINT) {
                    msg.push_str(UNCACHED_HINT);
                }
            }
        }
    }
}
