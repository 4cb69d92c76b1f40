//! CMDPRIO glue: each read or write's per-command priority before it is queued and
//! its latency under that priority when it completes (runner/cmdprio.rs), and the
//! reason an uncached=1 I/O or an atomic=1 write failed.

use super::Worker;
use crate::engine::IoOp;
use crate::runner::worker::units::UnitTimes;

/// Appended to the job's error when uncached=1 I/O fails with EOPNOTSUPP.
const UNCACHED_HINT: &str = " (uncached=1: RWF_DONTCACHE needs Linux 6.14 or later and a file system that supports it, such as ext4, xfs or btrfs; tmpfs does not)";

/// Appended when an atomic=1 write fails with EOPNOTSUPP.
const ATOMIC_UNSUPPORTED: &str = " (atomic=1: the kernel refused RWF_ATOMIC: this file's file system or device has no atomic write support; statx's STATX_WRITE_ATOMIC and /sys/block/<dev>/queue/atomic_write_unit_max_bytes give the limits, 0 when none)";
/// Appended when an atomic=1 write fails with EINVAL.
const ATOMIC_INVALID: &str = " (atomic=1: the kernel refused RWF_ATOMIC: the write is outside the file's atomic write limits, which need direct I/O, a power-of-two size within statx's atomic write unit min and max, and an offset aligned to it)";

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

    /// After unit `idx` failed: an uncached=1 I/O's EOPNOTSUPP, or an atomic=1 write's
    /// EOPNOTSUPP or EINVAL, says why.
    #[cold]
    pub(super) fn explain_error(&mut self, idx: usize) {
        let u = &self.io.units.io[idx];
        let hint = if u.result == -(libc::EOPNOTSUPP as i64) && self.plan.spec.prio.uncached {
            UNCACHED_HINT
        } else if u.op == IoOp::Write && self.plan.spec.compat.atomic {
            match -u.result as i32 {
                libc::EOPNOTSUPP => ATOMIC_UNSUPPORTED,
                libc::EINVAL => ATOMIC_INVALID,
                _ => return,
            }
        } else {
            return;
        };
        if let Some((_, msg)) = &mut self.acct.error {
            if !msg.ends_with(hint) {
                msg.push_str(hint);
            }
        }
    }

    /// A submission failed: the job's error, and the pending units dropped.
    #[cold]
    pub(super) fn submit_failed(&mut self, e: std::io::Error) {
        let errno = e.raw_os_error().unwrap_or(libc::EIO);
        self.acct.error = Some((errno, format!("submit: {e}")));
        self.explain_submit_error();
        self.io.units.pending.clear();
    }

    /// libaio's io_submit refuses RWF_ATOMIC itself: with atomic=1 and a write among
    /// the pending units, name its file and say why.
    fn explain_submit_error(&mut self) {
        if !self.plan.spec.compat.atomic {
            return;
        }
        let units = &self.io.units;
        let Some(&w) = units
            .pending
            .iter()
            .find(|&&i| units.io[i].op == IoOp::Write)
        else {
            return;
        };
        let path = self.plan.files[units.io[w].file].path.display().to_string();
        let Some((errno, msg)) = &mut self.acct.error else {
            return;
        };
        let hint = match *errno {
            libc::EOPNOTSUPP => ATOMIC_UNSUPPORTED,
            libc::EINVAL => ATOMIC_INVALID,
            _ => return,
        };
        msg.push_str(&format!(" on file {path}{hint}"));
    }
}
