//! flow= / flow_id= / flow_sleep=: fio's flow control across jobs (flow.c), learnt
//! from fio 3.33 and written anew. The jobs of one flow_id share a counter of
//! issue steps and the sum of their weights; a job whose share of the counter is
//! above its share of the weights is held back (it skips its turn, or empties its
//! queue and sleeps flow_sleep µs) until the others catch up. So the jobs of a group
//! issue in proportion to their weights, whatever their devices' speeds.
//!
//! The group's members that start at once also start their clocks at once: each
//! waits, after its setup, for the others ([`Arrival`]) and all take the same
//! start time, so their runtimes end together. fio starts its threads together
//! and leaves a finished job's share in the group until the main thread reaps it;
//! without a common start, the member that started first (it waits, held, for the
//! others) would end first and leave the others unchecked for the skew between the
//! starts — on a loaded machine many milliseconds of unthrottled I/O, enough to
//! double a 1:8 ratio.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Whether a member starts with the run (no startdelay, no wait_for): only those
/// wait for one another at the start line.
pub fn starts_at_once(spec: &ferrio_config::JobSpec) -> bool {
    spec.startdelay_us == (0, 0) && spec.wait_for.is_none()
}

/// What the jobs of one flow_id share (created when the run is planned).
#[derive(Debug)]
pub struct FlowGroup {
    /// Steps taken by the group's running jobs, plus 1 (fio starts it at 1).
    counter: AtomicU64,
    /// Sum of the weights of the group's running jobs.
    weight: AtomicU64,
    /// The members that start at once: how many, how many have arrived, and the
    /// common start time once all have.
    start: Mutex<Start>,
    started: Condvar,
}

#[derive(Debug, Default)]
struct Start {
    expected: u64,
    arrived: u64,
    /// All have arrived.
    go: bool,
    /// The common start (None when the last to arrive was a job that failed: then
    /// each starts on its own clock).
    at_ns: Option<u64>,
}

impl Default for FlowGroup {
    fn default() -> Self {
        FlowGroup {
            counter: AtomicU64::new(1),
            weight: AtomicU64::new(0),
            start: Mutex::new(Start::default()),
            started: Condvar::new(),
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

    /// A member that starts with the run's others (no startdelay, no wait_for): its
    /// thread will arrive through an [`Arrival`].
    pub fn expect_start(&self) {
        if let Ok(mut s) = self.start.lock() {
            s.expected += 1;
        }
    }

    /// The guard of one member's thread, of `weight`; `expected`: it starts with
    /// the run ([`FlowGroup::expect_start`]). Waited on, it arrives at the start
    /// line; dropped unused (the job never got to run: a failed setup, a stop), it
    /// arrives too and takes the job's weight out, so the others neither wait for
    /// it at the start nor stay held by a share it never takes.
    pub fn arrival(self: &Arc<Self>, weight: u64, expected: bool) -> Arrival {
        Arrival {
            group: Some(self.clone()),
            weight,
            expected,
        }
    }

    /// One member arrived; the last one sets the common start, read from `now`
    /// (None: it failed). Some(start) once all have arrived.
    fn arrive(&self, now: Option<&dyn Fn() -> u64>) -> Option<Option<u64>> {
        let mut s = self.start.lock().ok()?;
        s.arrived += 1;
        if s.arrived >= s.expected && !s.go {
            s.go = true;
            s.at_ns = now.map(|f| f());
            self.started.notify_all();
        }
        s.go.then_some(s.at_ns)
    }
}

/// A member's thread on its way to the start line (see [`FlowGroup::arrival`]).
#[derive(Debug)]
pub struct Arrival {
    group: Option<Arc<FlowGroup>>,
    weight: u64,
    expected: bool,
}

impl Arrival {
    /// The job is set up: wait for the group's other members and return the
    /// common start time (read with `now` by the last to arrive; None for a job on
    /// a clock of its own, which does not set one). None when the job is not
    /// expected at the start, when a stop came first, or when the last to arrive
    /// set no start: the job then starts at once, on its own clock.
    pub fn wait(mut self, stop: &AtomicBool, now: Option<&dyn Fn() -> u64>) -> Option<u64> {
        let group = self.group.take()?;
        if !self.expected {
            return None;
        }
        if let Some(t) = group.arrive(now) {
            return t;
        }
        let mut s = group.start.lock().ok()?;
        loop {
            if s.go {
                return s.at_ns;
            }
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            // (The timeout only notices a stop: the last arrival notifies.)
            s = group
                .started
                .wait_timeout(s, Duration::from_millis(50))
                .ok()?
                .0;
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        if let Some(g) = self.group.take() {
            // The job never got to run: the others need not wait for it, nor hold
            // back for its weight.
            g.weight.fetch_sub(self.weight, Ordering::Relaxed);
            if self.expected {
                let _ = g.arrive(None);
            }
        }
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

    #[test]
    fn members_start_together_at_the_last_arrival() {
        let g = Arc::new(FlowGroup::default());
        for _ in 0..3 {
            g.expect_start();
        }
        let stop = AtomicBool::new(false);
        let starts: Vec<Option<u64>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2u64)
                .map(|i| {
                    let a = g.arrival(1, true);
                    let stop = &stop;
                    s.spawn(move || a.wait(stop, Some(&|| 100 + i)))
                })
                .collect();
            // The third member arrives once the first two wait (or have arrived).
            while g.start.lock().unwrap().arrived < 2 {
                std::thread::yield_now();
            }
            let mine = g.arrival(1, true).wait(&stop, Some(&|| 7));
            let mut v: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
            v.push(mine);
            v
        });
        assert_eq!(starts, [Some(7); 3]);
    }

    #[test]
    fn a_member_that_fails_does_not_hold_the_start() {
        let g = Arc::new(FlowGroup::default());
        g.enlist(1);
        g.enlist(3);
        g.expect_start();
        g.expect_start();
        drop(g.arrival(3, true)); // its setup failed: its weight goes too
        assert_eq!(g.weight.load(Ordering::Relaxed), 1);
        let stop = AtomicBool::new(false);
        let a = g.arrival(1, true);
        assert_eq!(a.wait(&stop, Some(&|| 5)), Some(5));
        // The one left is not held for the weight that never came.
        let mut f = Flow::join(g.clone(), 1, 0);
        assert!((0..100).all(|_| !f.held()));
        // Not expected at the start (startdelay): no wait.
        assert_eq!(g.arrival(0, false).wait(&stop, Some(&|| 5)), None);
        // Failing last: the others start on their own clocks.
        let g = Arc::new(FlowGroup::default());
        g.expect_start();
        g.expect_start();
        let stop = AtomicBool::new(false);
        let t = std::thread::scope(|s| {
            let a = g.arrival(0, true);
            let h = s.spawn(|| a.wait(&stop, Some(&|| 5)));
            while g.start.lock().unwrap().arrived < 1 {
                std::thread::yield_now();
            }
            drop(g.arrival(0, true));
            h.join().unwrap()
        });
        assert_eq!(t, None);
        // A stop ends the wait.
        let g = Arc::new(FlowGroup::default());
        g.expect_start();
        g.expect_start();
        stop.store(true, Ordering::Relaxed);
        assert_eq!(g.arrival(0, true).wait(&stop, Some(&|| 5)), None);
    }
}
