//! The per-thread observer that feeds the [`Hub`]: progress counters every
//! [`PUBLISH_NS`] of the thread's clock, a statistics snapshot when a reporter asked
//! for one (at most one clone per request, never per I/O), and the final statistics.

use super::hub::{Hub, Snapshot, DONE, FAILED, RAMPING, RUNNING};
use crate::runner::observer::{Observer, ObserverFactory, Verdict};
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::ThreadResult;
use crate::runner::recorder::ThreadStats;
use crate::sys::rusage::Usage;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How often (thread clock) a thread publishes its counters and checks for requests.
pub const PUBLISH_NS: u64 = 50_000_000;

/// Maps a thread's plan to its slot in the [`Hub`].
pub type SlotIndex = Arc<dyn Fn(&ThreadPlan) -> Option<usize> + Send + Sync>;

/// Builds one [`Publisher`] per thread.
pub struct PublisherFactory {
    pub hub: Arc<Hub>,
    pub index: SlotIndex,
}

impl ObserverFactory for PublisherFactory {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        let Some(slot) = (self.index)(plan) else {
            return Vec::new();
        };
        let ramping = plan.spec.ramps();
        let s = &self.hub.slots[slot];
        s.started_wall_ns
            .store(self.hub.wall_ns().max(1), Ordering::Relaxed);
        s.state
            .store(if ramping { RAMPING } else { RUNNING }, Ordering::Release);
        vec![Box::new(Publisher {
            hub: self.hub.clone(),
            slot,
            begin_ns: start_ns,
            start_ns,
            next_ns: start_ns + PUBLISH_NS,
            gen: 0,
            usage_start: Usage::thread(),
        })]
    }
}

pub struct Publisher {
    hub: Arc<Hub>,
    slot: usize,
    /// The thread's first I/O, and the start of its measured phase.
    begin_ns: u64,
    start_ns: u64,
    next_ns: u64,
    gen: u64,
    usage_start: Usage,
}

impl Publisher {
    fn counters(&self, now_ns: u64, stats: &ThreadStats) {
        let s = &self.hub.slots[self.slot];
        for d in 0..3 {
            s.bytes[d].store(stats.dir[d].io_bytes, Ordering::Relaxed);
            s.ios[d].store(stats.dir[d].total_ios, Ordering::Relaxed);
        }
        s.elapsed_ns
            .store(now_ns.saturating_sub(self.begin_ns), Ordering::Relaxed);
    }

    fn store(&self, snap: Snapshot) {
        if let Ok(mut g) = self.hub.slots[self.slot].snapshot.lock() {
            *g = Some(snap);
        }
    }
}

impl Observer for Publisher {
    fn next_due_ns(&self) -> u64 {
        self.next_ns
    }

    fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict {
        self.counters(now_ns, stats);
        let want = self.hub.request.load(Ordering::Acquire);
        if want > self.gen {
            self.gen = want;
            let mut copy = stats.clone();
            copy.runtime_us = now_ns.saturating_sub(self.start_ns) / 1000;
            copy.usage = Usage::thread().since(&self.usage_start);
            self.store(Snapshot {
                gen: want,
                stats: copy,
                start_ns: self.start_ns,
                now_ns,
                elapsed_ns: now_ns.saturating_sub(self.begin_ns),
                done: false,
                error: None,
            });
        }
        self.next_ns = now_ns + PUBLISH_NS;
        Verdict::Continue
    }

    fn stats_reset(&mut self, now_ns: u64) {
        self.start_ns = now_ns;
        self.usage_start = Usage::thread();
        self.counters(now_ns, &ThreadStats::default());
        self.hub.slots[self.slot]
            .state
            .store(RUNNING, Ordering::Release);
        self.next_ns = now_ns + PUBLISH_NS;
    }

    fn finish(self: Box<Self>, now_ns: u64, stats: &ThreadStats, result: &mut ThreadResult) {
        self.counters(now_ns, stats);
        self.store(Snapshot {
            gen: u64::MAX,
            stats: stats.clone(),
            start_ns: self.start_ns,
            now_ns,
            elapsed_ns: now_ns.saturating_sub(self.begin_ns),
            done: true,
            error: result.error.clone(),
        });
        let state = if result.error.is_some() { FAILED } else { DONE };
        self.hub.slots[self.slot]
            .state
            .store(state, Ordering::Release);
    }
}
