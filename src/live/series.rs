//! Per-interval samples of every thread (the report's `"ferrio_intervals"`): an
//! observer cuts the thread's cumulative statistics every `bwavgtime` of its own clock
//! (so virtual time works too) into bytes, I/Os and a sparse latency histogram per
//! direction; [`SeriesFactory::attach`] folds the threads into their jobs as the
//! report does (numjobs clones, group_reporting).

use crate::runner::observer::{Observer, ObserverFactory, Verdict};
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::{ThreadResult, ThreadStats};
use crate::runner::RunResults;
use ferrio_report::series::{Interval, IntervalDir, JobSeries};
use ferrio_report::RunReport;
use ferrio_stats::steadystate::SparseHistogram;
use ferrio_stats::LatencyHistogram;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// At most this many intervals are kept per thread: past it, neighbours merge pairwise
/// and the interval doubles, so a day-long run's series stays small.
const MAX_INTERVALS: usize = 2048;

/// Collects each thread's intervals when it finishes, keyed by (job index, clone).
#[derive(Default)]
pub struct SeriesFactory {
    done: Mutex<HashMap<(usize, u32), JobSeries>>,
}

impl ObserverFactory for Arc<SeriesFactory> {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        let interval_ns = plan.spec.bw_avg_time_ms.max(1) * 1_000_000;
        vec![Box::new(SeriesObserver {
            sink: self.clone(),
            key: (plan.job_index, plan.clone),
            interval_ns,
            start_ns,
            next_ns: start_ns + interval_ns,
            base: Base::default(),
            intervals: Vec::new(),
        })]
    }
}

impl SeriesFactory {
    /// Put every job's series into `report` (threads merged as `collect::build` does).
    pub fn attach(&self, results: &RunResults, report: &mut RunReport) {
        let Ok(mut done) = self.done.lock() else {
            return;
        };
        let mut slots: Vec<Option<JobSeries>> = Vec::new();
        let mut group_slot: BTreeMap<u32, usize> = BTreeMap::new();
        for (plan, _) in &results.threads {
            let s = done.remove(&(plan.job_index, plan.clone));
            let slot = match group_slot.get(&plan.groupid) {
                Some(&i) if plan.spec.group_reporting => i,
                _ => {
                    if plan.spec.group_reporting {
                        group_slot.insert(plan.groupid, slots.len());
                    }
                    slots.push(None);
                    slots.len() - 1
                }
            };
            if let Some(s) = s {
                match &mut slots[slot] {
                    Some(acc) => acc.merge(&s),
                    none => *none = Some(s),
                }
            }
        }
        report.series = slots
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i < report.jobs.len())
            .filter_map(|(i, s)| s.map(|s| JobSeries { job: i, ..s }))
            .filter(|s| !s.intervals.is_empty())
            .collect();
    }
}

/// Cumulative counters at the last cut.
#[derive(Default)]
struct Base {
    bytes: [u64; 3],
    ios: [u64; 3],
    lat: [LatencyHistogram; 3],
    clat: [LatencyHistogram; 3],
}

struct SeriesObserver {
    sink: Arc<SeriesFactory>,
    key: (usize, u32),
    interval_ns: u64,
    start_ns: u64,
    next_ns: u64,
    base: Base,
    intervals: Vec<Interval>,
}

impl SeriesObserver {
    /// Close the interval ending at `now_ns`.
    fn cut(&mut self, now_ns: u64, stats: &ThreadStats) {
        let mut iv = Interval {
            t_ms: now_ns.saturating_sub(self.start_ns) / 1_000_000,
            ..Default::default()
        };
        for d in 0..3 {
            let s = &stats.dir[d];
            // Total latency where it is recorded, completion latency otherwise.
            let lat = if s.lat.count() > 0 {
                SparseHistogram::between(&s.lat, &self.base.lat[d])
            } else {
                SparseHistogram::between(&s.clat, &self.base.clat[d])
            };
            iv.dir[d] = IntervalDir {
                bytes: s.io_bytes.saturating_sub(self.base.bytes[d]),
                ios: s.total_ios.saturating_sub(self.base.ios[d]),
                lat,
            };
            self.base.bytes[d] = s.io_bytes;
            self.base.ios[d] = s.total_ios;
            self.base.lat[d] = s.lat.clone();
            self.base.clat[d] = s.clat.clone();
        }
        self.intervals.push(iv);
        if self.intervals.len() >= MAX_INTERVALS {
            self.coalesce();
        }
    }

    /// Merge neighbouring intervals pairwise; later cuts come twice as far apart.
    fn coalesce(&mut self) {
        let old = std::mem::take(&mut self.intervals);
        let mut it = old.into_iter();
        while let Some(mut a) = it.next() {
            if let Some(b) = it.next() {
                a.t_ms = b.t_ms;
                for (x, y) in a.dir.iter_mut().zip(&b.dir) {
                    x.bytes += y.bytes;
                    x.ios += y.ios;
                    x.lat.add(&y.lat);
                }
            }
            self.intervals.push(a);
        }
        self.interval_ns *= 2;
    }
}

impl Observer for SeriesObserver {
    fn next_due_ns(&self) -> u64 {
        self.next_ns
    }

    fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict {
        self.cut(now_ns, stats);
        // Boundaries stay on the grid even when the observer is called late.
        while self.next_ns <= now_ns {
            self.next_ns += self.interval_ns;
        }
        Verdict::Continue
    }

    fn stats_reset(&mut self, now_ns: u64) {
        self.start_ns = now_ns;
        self.next_ns = now_ns + self.interval_ns;
        self.base = Base::default();
        self.intervals.clear();
    }

    fn finish(mut self: Box<Self>, now_ns: u64, stats: &ThreadStats, _r: &mut ThreadResult) {
        // The last, partial interval counts only if it did I/O (a rate over a sliver
        // of time would be noise).
        let moved = (0..3).any(|d| stats.dir[d].total_ios > self.base.ios[d]);
        let span = now_ns.saturating_sub(self.next_ns - self.interval_ns);
        if moved && span * 2 >= self.interval_ns {
            self.cut(now_ns, stats);
        }
        let series = JobSeries {
            job: 0,
            interval_ms: self.interval_ns / 1_000_000,
            intervals: std::mem::take(&mut self.intervals),
        };
        if let Ok(mut done) = self.sink.done.lock() {
            done.insert(self.key, series);
        }
    }
}
