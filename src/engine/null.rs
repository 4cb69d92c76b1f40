//! `ioengine=null`: completes every I/O without touching memory or files.
//! It measures the benchmark's own per-I/O overhead.
//!
//! As fio's null engine: at iodepth=1 every `queue` completes the I/O (synchronous);
//! above it `queue` only queues, `commit` turns the whole queued batch into
//! completions (while earlier completions are still unreaped, `queue` says Busy), and
//! a reap that must wait for at least one completion takes them all. So the depth
//! maps, submission latencies and batch sizes of a deep null job are fio's.

use super::{IoEngine, IoUnit, Queued};
use std::io;

pub struct NullEngine {
    /// Whether I/Os are queued (iodepth > 1) rather than completed at once.
    deep: bool,
    /// Queued, not yet committed.
    queued: Vec<usize>,
    /// Committed: complete, waiting to be reaped.
    events: Vec<usize>,
}

impl NullEngine {
    pub fn new(iodepth: u32) -> NullEngine {
        let depth = iodepth.max(1) as usize;
        NullEngine {
            deep: depth > 1,
            queued: Vec::with_capacity(depth),
            events: Vec::with_capacity(depth),
        }
    }
}

impl IoEngine for NullEngine {
    #[inline]
    fn queue(&mut self, index: usize, unit: &mut IoUnit) -> Queued {
        unit.result = unit.len as i64;
        if !self.deep {
            return Queued::Completed;
        }
        if !self.events.is_empty() {
            return Queued::Busy;
        }
        self.queued.push(index);
        Queued::Queued
    }

    fn fio_commit_hook(&self) -> bool {
        true
    }

    fn commit(&mut self) -> io::Result<()> {
        if self.events.is_empty() {
            std::mem::swap(&mut self.queued, &mut self.events);
        }
        Ok(())
    }

    fn reap(
        &mut self,
        _units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        // As fio's: completions go only to a caller that waits for some (the loop
        // always does once its queue is full, and when it drains).
        if min > 0 {
            let n = self.events.len().min(max.max(1));
            done.extend(self.events.drain(..n));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IoOp;

    fn unit() -> IoUnit {
        IoUnit::for_test(IoOp::Read, -1, 0, 4096)
    }

    #[test]
    fn depth_one_completes_at_queue() {
        let mut e = NullEngine::new(1);
        let mut u = unit();
        assert_eq!(e.queue(0, &mut u), Queued::Completed);
        assert_eq!(u.result, 4096);
    }

    #[test]
    fn deep_queues_commits_a_batch_and_is_busy_until_it_is_reaped() {
        let mut e = NullEngine::new(4);
        let mut units: Vec<IoUnit> = (0..4).map(|_| unit()).collect();
        for (i, u) in units.iter_mut().enumerate() {
            assert_eq!(e.queue(i, u), Queued::Queued);
        }
        let mut done = Vec::new();
        e.reap(&mut units, 1, 4, &mut done).unwrap();
        assert!(done.is_empty(), "nothing completes before commit");
        e.commit().unwrap();
        let mut extra = unit();
        assert_eq!(e.queue(0, &mut extra), Queued::Busy);
        e.reap(&mut units, 1, 4, &mut done).unwrap();
        assert_eq!(done, vec![0, 1, 2, 3]);
        assert!(units.iter().all(|u| u.result == 4096));
    }
}
