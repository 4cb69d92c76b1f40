//! flow= / flow_id= / flow_sleep=: fio's flow control across jobs (flow.c), learnt
//! from fio 3.33 and written anew. The jobs of one flow_id share a counter of
//! issue steps and the sum of their weights; a job whose share of the counter is
//! above its share of the weights is held back (it skips its turn, or empties its
//! queue and sleeps flow_sleep µs) until the others catch up. So the jobs of a group
//! issue in proportion to their weights, whatever their devices' speeds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the jobs of one flow_id share (created when the run is planned).
#[derive(Debug)]
pub struct FlowGroup {
    /// Steps taken by the group's running jobs, plus 1 (fio starts it at 1).
    counter: AtomicU64,
    /// Sum of the weights of the group's running jobs.
    weight: AtomicU64,
}

impl Default for FlowGroup {
    fn default() -> Self {
        FlowGroup {
            counter: AtomicU64::new(1),
            weight: AtomicU64::new(0),
        }
    }
}

impl FlowGroup {
    /// A job of the group was planned: its weight counts from the start of the run
    /// (fio adds it when the job is parsed), so the first job to start does not run
    /// unchecked until the others have.
    pub fn enlist(&self, weight: u64) {
        self.weight.fetch_add(weight, Ordering::Relaxed);
    }
}

/// One running job's place in its group; leaving (drop) takes its steps and weight
/// out again, so the jobs still running share the group among themselves.
#[derive(Debug)]
pub struct Flow {
    group: Arc<FlowGroup>,
    weight: u64,
    mine: u64,
    /// flow_sleep, ns.
    pub sleep_ns: u64,
}

impl Flow {
    /// The job starts in `group`, where it was enlisted with `weight` (> 0).
    pub fn join(group: Arc<FlowGroup>, weight: u64, sleep_us: u64) -> Flow {
        Flow {
            group,
            weight,
            mine: 0,
            sleep_ns: sleep_us.saturating_mul(1000),
        }
    }

    /// fio's flow_threshold_exceeded: true when the job is ahead of its weight and
    /// must hold back this turn; otherwise the turn is counted.
    pub fn held(&mut self) -> bool {
        let shared = self.group.counter.load(Ordering::Relaxed).max(1);
        let total = self.group.weight.load(Ordering::Relaxed).max(1);
        if self.mine as f64 / shared as f64 > self.weight as f64 / total as f64 {
            return true;
        }
        self.group.counter.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        false
    }
}

impl Drop for Flow {
    fn drop(&mut self) {
        self.group.counter.fetch_sub(self.mine, Ordering::Relaxed);
        self.group.weight.fetch_sub(self.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_take_turns_in_proportion_to_their_weights() {
        let g = Arc::new(FlowGroup::default());
        g.enlist(1);
        g.enlist(3);
        let mut a = Flow::join(g.clone(), 1, 0);
        let mut b = Flow::join(g.clone(), 3, 0);
        // Both try every round; count who gets through.
        let (mut na, mut nb) = (0, 0);
        for _ in 0..4000 {
            na += !a.held() as u32;
            nb += !b.held() as u32;
        }
        let share = na as f64 / (na + nb) as f64;
        assert!((share - 0.25).abs() < 0.01, "{na} {nb}");
        // Alone in the group, a job is never held.
        drop(b);
        assert!((0..100).all(|_| !a.held()));
        drop(a);
        assert_eq!(g.counter.load(Ordering::Relaxed), 1);
        assert_eq!(g.weight.load(Ordering::Relaxed), 0);
    }
}
