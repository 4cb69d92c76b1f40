//! block_error_percentiles=1: fio's per-trim-block lifetime tracking. Each block of
//! the job's file (trim block size units, from the region's start) counts its
//! completed trims; a failed trim or write marks it failed for good. The counts go
//! to the report (ferrio_report::blockinfo prints fio's percentiles and states).

use super::observer::{Completion, Observer, ObserverFactory, Verdict};
use super::plan::ThreadPlan;
use super::recorder::{ThreadResult, ThreadStats};
use ferrio_config::ext::compat::MAX_BLOCK_INFOS;
use ferrio_report::blockinfo::{info, state_of, trims_of, State};

/// Builds a tracker for each thread whose job asks for one.
pub struct BlockInfoFactory;

impl BlockInfoFactory {
    /// A factory if any thread tracks blocks.
    pub fn for_threads(threads: &[ThreadPlan]) -> Option<BlockInfoFactory> {
        threads
            .iter()
            .any(|t| t.spec.compat.block_error_hist)
            .then_some(BlockInfoFactory)
    }
}

impl ObserverFactory for BlockInfoFactory {
    fn observers(&self, plan: &ThreadPlan, _start_ns: u64) -> Vec<Box<dyn Observer>> {
        if !plan.spec.compat.block_error_hist {
            return Vec::new();
        }
        let Some(f) = plan.files.first() else {
            return Vec::new();
        };
        let bs = plan.spec.bs[2].min.max(1);
        let n = f.region.len / bs;
        if n == 0 || n > MAX_BLOCK_INFOS {
            // Sized only now (a device, size=N%): fio fails the job; ferrio runs it
            // without the histogram and says why.
            eprintln!(
                "ferrio: job '{}': cannot calculate block histogram with {n} trim blocks, maximum {MAX_BLOCK_INFOS}",
                plan.spec.name
            );
            return Vec::new();
        }
        vec![Box::new(Tracker {
            start: f.region.start,
            bs,
            blocks: vec![info(State::Unwritten, 0); n as usize],
        })]
    }
}

struct Tracker {
    start: u64,
    bs: u64,
    blocks: Vec<u32>,
}

impl Tracker {
    fn block(&mut self, offset: u64) -> Option<&mut u32> {
        let i = offset.checked_sub(self.start)? / self.bs;
        self.blocks.get_mut(i as usize)
    }
}

impl Observer for Tracker {
    fn next_due_ns(&self) -> u64 {
        u64::MAX
    }

    fn observe(&mut self, _now_ns: u64, _stats: &ThreadStats) -> Verdict {
        Verdict::Continue
    }

    fn wants_completions(&self) -> bool {
        true
    }

    fn completed(&mut self, c: &Completion) {
        if c.ddir != 2 {
            return;
        }
        if let Some(b) = self.block(c.offset) {
            if !state_of(*b).failed() {
                *b = info(State::Trimmed, trims_of(*b) + 1);
            }
        }
    }

    fn failed(&mut self, ddir: usize, offset: u64) {
        let state = match ddir {
            1 => State::WriteFailure,
            2 => State::TrimFailure,
            _ => return,
        };
        if let Some(b) = self.block(offset) {
            if !state_of(*b).failed() {
                *b = info(state, trims_of(*b));
            }
        }
    }

    fn finish(self: Box<Self>, _now_ns: u64, _stats: &ThreadStats, result: &mut ThreadResult) {
        result.block_infos = Some(self.blocks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_count_until_a_failure_sticks() {
        let mut t = Tracker {
            start: 8192,
            bs: 4096,
            blocks: vec![0; 4],
        };
        let trim = |off| Completion {
            ddir: 2,
            offset: off,
            ..Default::default()
        };
        t.completed(&trim(8192));
        t.completed(&trim(8192));
        t.completed(&trim(12288));
        t.completed(&Completion {
            ddir: 1,
            offset: 16384,
            ..Default::default()
        });
        t.failed(2, 12288);
        t.completed(&trim(12288));
        t.failed(0, 16384);
        t.completed(&trim(0)); // before the region: not a block of it
        t.completed(&trim(1 << 20)); // past it
        assert_eq!(t.blocks[0], info(State::Trimmed, 2));
        assert_eq!(t.blocks[1], info(State::TrimFailure, 1));
        assert_eq!(t.blocks[2], info(State::Unwritten, 0));
    }
}
