//! One steady-state window: the per-interval measurements of a job (or of a whole
//! reporting group with group_reporting), the criteria judged on them, and the
//! coordination of the threads that feed it.
//!
//! Each thread reports its own interval `k` once (a few counters and sparse latency
//! histograms); when every member still running has reported `k`, the members' rates
//! are summed into measurement `k` (fio sums per-thread rates the same way), the
//! window slides and the criteria are judged. The lock is taken once per interval per
//! thread, never per I/O.
//!
//! With real clocks the threads never wait for each other: the one that completes
//! measurement `k` judges it, and the others see the verdict when they next poll.
//! With virtual clocks (clocksource=virtual) each thread has its own time, so a
//! thread that has reported `k` waits until measurement `k` is complete and judged:
//! every member then stops exactly at the end of interval `k` of its own clock.

use ferrio_config::ext::steadystate::{Criterion, Metric, SteadyStateSpec, Test};
use ferrio_stats::steadystate::{judge, per_second, Judgement, SparseHistogram, WindowTest};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// What one thread measured over one interval.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    pub elapsed_ns: u64,
    pub ios: [u64; 3],
    pub bytes: [u64; 3],
    pub clat: [SparseHistogram; 3],
    pub lat: [SparseHistogram; 3],
}

/// One measurement of the window (all members summed).
#[derive(Clone, Debug, Default)]
pub struct Point {
    /// Interval number since the start of measurements (0-based).
    pub index: u64,
    /// All directions: IOPS and bytes/s.
    pub iops: u64,
    pub bw: u64,
    /// Per direction.
    pub dir_iops: [u64; 3],
    pub dir_bw: [u64; 3],
    pub clat: [SparseHistogram; 3],
    pub lat: [SparseHistogram; 3],
}

impl Point {
    fn add(&mut self, s: &Sample) {
        let total_ios: u64 = s.ios.iter().sum();
        let total_bytes: u64 = s.bytes.iter().sum();
        self.iops += per_second(total_ios, s.elapsed_ns);
        self.bw += per_second(total_bytes, s.elapsed_ns);
        for d in 0..3 {
            self.dir_iops[d] += per_second(s.ios[d], s.elapsed_ns);
            self.dir_bw[d] += per_second(s.bytes[d], s.elapsed_ns);
            self.clat[d].add(&s.clat[d]);
            self.lat[d].add(&s.lat[d]);
        }
    }

    fn hist(h: &[SparseHistogram; 3], dir: Option<usize>) -> SparseHistogram {
        match dir {
            Some(d) => h[d].clone(),
            None => {
                let mut m = h[0].clone();
                m.add(&h[1]);
                m.add(&h[2]);
                m
            }
        }
    }

    /// Mean completion latency (ns) over the interval (fio's `lat` criteria).
    pub fn mean_clat(&self, dir: Option<usize>) -> u64 {
        let (mut n, mut sum) = (0u64, 0f64);
        for d in 0..3 {
            if dir.map_or(true, |x| x == d) {
                n += self.clat[d].count;
                sum += self.clat[d].sum;
            }
        }
        if n == 0 {
            0
        } else {
            (sum / n as f64) as u64
        }
    }

    /// The value a criterion tracks for this measurement.
    pub fn value(&self, c: &Criterion) -> u64 {
        match (c.metric, c.dir) {
            (Metric::Iops, None) => self.iops,
            (Metric::Iops, Some(d)) => self.dir_iops[d],
            (Metric::Bw, None) => self.bw,
            (Metric::Bw, Some(d)) => self.dir_bw[d],
            (Metric::Lat, dir) => self.mean_clat(dir),
            (Metric::ClatPct(p), dir) => Self::hist(&self.clat, dir).percentile(p),
            (Metric::LatPct(p), dir) => Self::hist(&self.lat, dir).percentile(p),
        }
    }
}

/// The test a criterion applies.
pub fn window_test(c: &Criterion) -> WindowTest {
    match c.test {
        Test::Deviation => WindowTest::Deviation,
        Test::Slope => WindowTest::Slope,
        Test::Snia {
            range_pct,
            slope_pct,
        } => WindowTest::Snia {
            range_pct,
            slope_pct,
        },
    }
}

#[derive(Default)]
struct Pending {
    point: Point,
}

/// A thread feeding the window.
#[derive(Clone, Copy, Debug)]
struct Member {
    /// The first interval it measures (it joined during it).
    first_index: u64,
    /// The last interval it reported (a report covers every earlier interval it skipped).
    last_reported: Option<u64>,
    left: bool,
}

/// Mutable state of a window.
#[derive(Default)]
pub struct WindowState {
    members: Vec<Member>,
    pending: BTreeMap<u64, Pending>,
    /// The last `intervals` measurements, oldest first, and each criterion's values.
    pub points: VecDeque<Point>,
    pub values: Vec<VecDeque<u64>>,
    /// Number of measurements completed.
    pub measured: u64,
    /// Every measurement below this index is complete.
    done_upto: u64,
    /// The judgements of the latest full window (fio keeps the last ones computed).
    pub judgements: Vec<Judgement>,
    pub attained: bool,
    /// The waits of virtual-time members gave up (a member never showed up).
    degraded: bool,
}

/// A steady-state window shared by the threads that feed it.
pub struct Window {
    pub spec: SteadyStateSpec,
    /// Threads expected to join (planned members).
    pub expected: usize,
    /// Members wait for each other (virtual clocks).
    pub lockstep: bool,
    state: Mutex<WindowState>,
    cond: Condvar,
    attained: AtomicBool,
    /// Real clocks: the members' common time origin (the first member's start), so
    /// that interval k is the same span of time for every member.
    epoch_ns: Mutex<Option<u64>>,
}

/// How long virtual-time members wait for a missing member before going on alone.
const LOCKSTEP_PATIENCE: Duration = Duration::from_secs(20);

impl Window {
    pub fn new(spec: SteadyStateSpec, expected: usize, lockstep: bool) -> Window {
        let n = spec.criteria.len();
        Window {
            spec,
            expected,
            lockstep,
            state: Mutex::new(WindowState {
                values: vec![VecDeque::new(); n],
                ..Default::default()
            }),
            cond: Condvar::new(),
            attained: AtomicBool::new(false),
            epoch_ns: Mutex::new(None),
        }
    }

    /// Whether steady state was attained (cheap; polled by the members).
    pub fn attained(&self) -> bool {
        self.attained.load(Ordering::Acquire)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WindowState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The time origin of a member that starts measuring at `start_ns`: its own
    /// start with virtual clocks, the first member's start with real ones.
    pub fn epoch(&self, start_ns: u64) -> u64 {
        if self.lockstep {
            return start_ns;
        }
        let mut e = self.epoch_ns.lock().unwrap_or_else(|e| e.into_inner());
        *e.get_or_insert(start_ns)
    }

    /// A thread starts feeding the window with interval `first_index`; returns its id.
    pub fn join(&self, first_index: u64) -> usize {
        let mut st = self.lock();
        st.members.push(Member {
            first_index: if self.lockstep { 0 } else { first_index },
            last_reported: None,
            left: false,
        });
        self.advance(&mut st);
        self.cond.notify_all();
        st.members.len() - 1
    }

    /// A member stopped (its measurements so far stay).
    pub fn leave(&self, member: usize) {
        let mut st = self.lock();
        if let Some(m) = st.members.get_mut(member) {
            m.left = true;
        }
        self.advance(&mut st);
        self.cond.notify_all();
    }

    /// A member's measurement of interval `index`. Returns whether steady state has
    /// been attained (in lockstep mode, once measurement `index` has been judged).
    pub fn report(&self, member: usize, index: u64, sample: &Sample) -> bool {
        let mut st = self.lock();
        if let Some(m) = st.members.get_mut(member) {
            m.last_reported = Some(index);
        }
        if index >= st.done_upto {
            st.pending.entry(index).or_default().point.add(sample);
        }
        self.advance(&mut st);
        self.cond.notify_all();
        if self.lockstep {
            let start = Instant::now();
            while !st.attained && !st.degraded && st.done_upto <= index {
                let (g, _) = self
                    .cond
                    .wait_timeout(st, Duration::from_millis(200))
                    .unwrap_or_else(|e| e.into_inner());
                st = g;
                if !st.attained && st.done_upto <= index && start.elapsed() > LOCKSTEP_PATIENCE {
                    st.degraded = true;
                    self.advance(&mut st);
                }
            }
        }
        st.attained
    }

    /// Complete, in order, every measurement all its members have reported.
    fn advance(&self, st: &mut WindowState) {
        loop {
            let Some(&index) = st.pending.keys().next() else {
                return;
            };
            let everyone_here = !self.lockstep || st.degraded || st.members.len() >= self.expected;
            let all_in = st.members.iter().all(|m| {
                m.left || m.first_index > index || m.last_reported.is_some_and(|r| r >= index)
            });
            if !(everyone_here && all_in) {
                return;
            }
            let p = st.pending.remove(&index).expect("present");
            self.complete(st, p.point, index);
        }
    }

    fn complete(&self, st: &mut WindowState, mut point: Point, index: u64) {
        if st.attained {
            // The window that met the criteria is the one reported: it stays.
            return;
        }
        point.index = index;
        let n = self.spec.intervals().max(1);
        for (i, c) in self.spec.criteria.iter().enumerate() {
            let v = point.value(c);
            let q = &mut st.values[i];
            q.push_back(v);
            if q.len() > n {
                q.pop_front();
            }
        }
        st.points.push_back(point);
        if st.points.len() > n {
            st.points.pop_front();
        }
        st.measured += 1;
        st.done_upto = index + 1;
        if st.points.len() < n {
            return;
        }
        let mut all = true;
        let mut js = Vec::with_capacity(self.spec.criteria.len());
        for (i, c) in self.spec.criteria.iter().enumerate() {
            let ys: Vec<u64> = st.values[i].iter().copied().collect();
            let j = judge(&ys, window_test(c), c.limit, c.pct);
            all &= j.met;
            js.push(j);
        }
        st.judgements = js;
        if all {
            st.attained = true;
            self.attained.store(true, Ordering::Release);
        }
    }

    /// Run `f` on the current state (reports, live status).
    pub fn with_state<R>(&self, f: impl FnOnce(&WindowState) -> R) -> R {
        f(&self.lock())
    }
}
