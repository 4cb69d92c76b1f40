//! Extension point of the I/O loop: per-thread observers that look at the thread's
//! cumulative statistics at times they choose (steady-state windows, periodic
//! reports, log files, live progress).
//!
//! The hot path pays one comparison per I/O (`now >= next_due`); observers run only
//! when due, on the worker thread, and may stop the job. They see the thread's own
//! clock, so they work unchanged in virtual time.

use super::plan::ThreadPlan;
use super::recorder::ThreadResult;
use super::recorder::ThreadStats;

/// What an observer wants the worker to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// End this thread's run now (e.g. steady state attained).
    Stop,
}

/// One completed data I/O, for observers that look at every I/O (fio's per-I/O logs,
/// log_avg_msec=0). Times are on the thread's clock, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub now_ns: u64,
    /// 0 read, 1 write, 2 trim.
    pub ddir: usize,
    pub bytes: u64,
    pub offset: u64,
    /// When the I/O was handed to the kernel (its clat start).
    pub issue_ns: u64,
    /// When the I/O was due: its rate schedule when paced, else its start (for
    /// latency measured from the due time, coordinated omission).
    pub due_ns: u64,
    pub slat_ns: u64,
    pub clat_ns: u64,
    pub lat_ns: u64,
    /// The I/O's priority (`class << 13 | level`): the job's own, or cmdprio's choice
    /// (fio's io_u->ioprio, the logs' priority column).
    pub ioprio: u32,
}

/// A per-thread observer of the I/O loop.
pub trait Observer: Send {
    /// The next time (thread clock, ns) `observe` should be called; u64::MAX for never.
    fn next_due_ns(&self) -> u64;

    /// Called when `now_ns >= next_due_ns()`, with the thread's statistics so far
    /// (cumulative since the end of ramp_time).
    fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict;

    /// Whether `completed` must be called for every data I/O (costs a call per I/O,
    /// so only per-I/O logging asks for it).
    fn wants_completions(&self) -> bool {
        false
    }

    /// One data I/O completed (only if `wants_completions`; not during ramp_time).
    fn completed(&mut self, _c: &Completion) {}

    /// A data I/O of direction `ddir` at `offset` failed (only if `wants_completions`).
    fn failed(&mut self, _ddir: usize, _offset: u64) {}

    /// The statistics were reset at `now_ns` (end of ramp_time): baselines start over.
    fn stats_reset(&mut self, _now_ns: u64) {}

    /// The thread ended at `now_ns`: flush, and record results into `result`.
    fn finish(self: Box<Self>, _now_ns: u64, _stats: &ThreadStats, _result: &mut ThreadResult) {}
}

/// Builds the observers of each thread (features register one factory each).
pub trait ObserverFactory: Send + Sync {
    /// Observers for the thread described by `plan`, started at `start_ns` on its clock.
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>>;
}

/// Every feature's factory, asked in turn.
#[derive(Default)]
pub struct Factories(pub Vec<Box<dyn ObserverFactory>>);

impl ObserverFactory for Factories {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        self.0
            .iter()
            .flat_map(|f| f.observers(plan, start_ns))
            .collect()
    }
}

/// The set of observers of one thread, with the earliest due time cached for the hot path.
#[derive(Default)]
pub struct Observers {
    list: Vec<Box<dyn Observer>>,
    /// Earliest `next_due_ns` over the list.
    pub next_due_ns: u64,
    /// Whether any observer wants every completion (checked once per I/O).
    pub per_io: bool,
}

impl Observers {
    pub fn new(list: Vec<Box<dyn Observer>>) -> Observers {
        let per_io = list.iter().any(|o| o.wants_completions());
        let mut o = Observers {
            list,
            next_due_ns: u64::MAX,
            per_io,
        };
        o.refresh();
        o
    }

    fn refresh(&mut self) {
        self.next_due_ns = self
            .list
            .iter()
            .map(|o| o.next_due_ns())
            .min()
            .unwrap_or(u64::MAX);
    }

    /// Run every due observer; Stop if any asks to.
    pub fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict {
        let mut verdict = Verdict::Continue;
        for o in &mut self.list {
            if now_ns >= o.next_due_ns() && o.observe(now_ns, stats) == Verdict::Stop {
                verdict = Verdict::Stop;
            }
        }
        self.refresh();
        verdict
    }

    /// Hand one completion to the observers that want every I/O.
    pub fn completed(&mut self, c: &Completion) {
        for o in &mut self.list {
            if o.wants_completions() {
                o.completed(c);
            }
        }
    }

    /// Hand one failed I/O to the observers that want every I/O.
    pub fn failed(&mut self, ddir: usize, offset: u64) {
        for o in &mut self.list {
            if o.wants_completions() {
                o.failed(ddir, offset);
            }
        }
    }

    pub fn stats_reset(&mut self, now_ns: u64) {
        for o in &mut self.list {
            o.stats_reset(now_ns);
        }
        self.refresh();
    }

    pub fn finish(self, now_ns: u64, stats: &ThreadStats, result: &mut ThreadResult) {
        for o in self.list {
            o.finish(now_ns, stats, result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Every {
        period: u64,
        next: u64,
        calls: u32,
        stop_after: u32,
    }

    impl Observer for Every {
        fn next_due_ns(&self) -> u64 {
            self.next
        }
        fn observe(&mut self, now_ns: u64, _stats: &ThreadStats) -> Verdict {
            self.calls += 1;
            self.next = now_ns + self.period;
            if self.calls >= self.stop_after {
                Verdict::Stop
            } else {
                Verdict::Continue
            }
        }
    }

    #[test]
    fn only_due_observers_run_and_the_earliest_due_time_is_kept() {
        let a = Every {
            period: 10,
            next: 10,
            calls: 0,
            stop_after: 100,
        };
        let b = Every {
            period: 25,
            next: 25,
            calls: 0,
            stop_after: 2,
        };
        let mut obs = Observers::new(vec![Box::new(a), Box::new(b)]);
        let stats = ThreadStats::default();
        assert_eq!(obs.next_due_ns, 10);
        assert_eq!(obs.observe(10, &stats), Verdict::Continue);
        assert_eq!(obs.next_due_ns, 20);
        assert_eq!(obs.observe(25, &stats), Verdict::Continue); // b's first call
        assert_eq!(obs.observe(50, &stats), Verdict::Stop); // b's second call
    }
}
