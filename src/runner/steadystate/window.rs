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
            if dir.is_none() || dir == Some(d) {
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
    /// --debug=steadystate: each measurement and judgement is written.
    debug: bool,
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
            debug: false,
        }
    }

    /// --debug=steadystate: write fio's lines for this window.
    pub fn with_debug(mut self, on: bool) -> Window {
        self.debug = on;
        self
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
        if self.debug {
            let p = st.points.back().expect("pushed");
            super::debug::measured(p.index, p.iops, p.bw, st.points.len(), n);
        }
        if st.points.len() < n {
            return;
        }
        let mut all = true;
        let mut js = Vec::with_capacity(self.spec.criteria.len());
        for (i, c) in self.spec.criteria.iter().enumerate() {
            let ys: Vec<u64> = st.values[i].iter().copied().collect();
            let j = judge(&ys, window_test(c), c.limit, c.pct);
            if self.debug {
                super::debug::judged(&ys, window_test(c), &j, c.limit);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::ext::steadystate::parse_criteria;

    fn spec(criteria: &str, intervals: u64) -> SteadyStateSpec {
        SteadyStateSpec {
            duration_us: intervals * 1_000_000,
            criteria: parse_criteria(criteria, 1024).unwrap(),
            ..Default::default()
        }
    }

    /// `ios` reads of 4 KiB over one second.
    fn reads(ios: u64) -> Sample {
        Sample {
            elapsed_ns: 1_000_000_000,
            ios: [ios, 0, 0],
            bytes: [ios * 4096, 0, 0],
            ..Default::default()
        }
    }

    #[test]
    fn group_measurements_are_sums_of_member_rates() {
        let w = Window::new(spec("iops:10%", 2), 2, false);
        let a = w.join(0);
        let b = w.join(0);
        assert!(!w.report(a, 0, &reads(100)));
        // Not complete until both members reported.
        assert_eq!(w.with_state(|s| s.measured), 0);
        let half = Sample {
            elapsed_ns: 500_000_000,
            ..reads(60)
        };
        assert!(!w.report(b, 0, &half));
        w.with_state(|s| {
            assert_eq!(s.measured, 1);
            // 100/s + 60 in half a second = 220/s; bytes likewise.
            assert_eq!(s.points[0].iops, 220);
            assert_eq!(s.points[0].bw, 220 * 4096);
            assert_eq!(s.points[0].dir_iops, [220, 0, 0]);
        });
        // Second measurement: 200 + 200 = 400 vs 220: mean 310, dev 90 = 29 % > 10 %.
        w.report(a, 1, &reads(200));
        assert!(!w.report(b, 1, &reads(200)));
        w.with_state(|s| {
            assert_eq!(s.judgements.len(), 1);
            assert!((s.judgements[0].criterion - 9000.0 / 310.0).abs() < 1e-9);
        });
        // 200 + 210 = 410 vs 400: mean 405, dev 5 = 1.2 % < 10 %: attained.
        w.report(a, 2, &reads(200));
        assert!(w.report(b, 2, &reads(210)));
        assert!(w.attained());
        // The attained window stays what it was.
        w.report(a, 3, &reads(1));
        w.with_state(|s| {
            let v: Vec<u64> = s.values[0].iter().copied().collect();
            assert_eq!(v, [400, 410]);
        });
    }

    #[test]
    fn members_that_leave_or_join_late_do_not_block_the_window() {
        let w = Window::new(spec("iops_slope:1", 3), 3, false);
        let a = w.join(0);
        let b = w.join(0);
        w.report(a, 0, &reads(10));
        w.leave(b); // b never reports interval 0: the measurement completes without it
        assert_eq!(w.with_state(|s| s.measured), 1);
        // c joins during interval 2: it is not waited for before.
        let c = w.join(2);
        w.report(a, 1, &reads(10));
        assert_eq!(w.with_state(|s| s.measured), 2);
        w.report(a, 2, &reads(10));
        assert_eq!(w.with_state(|s| s.measured), 2);
        // Interval 2 is the sum of a and c; slope of 10, 10, 20 is 5: not < 1.
        assert!(!w.report(c, 2, &reads(10)));
        w.with_state(|s| {
            assert_eq!(s.measured, 3);
            let v: Vec<u64> = s.values[0].iter().copied().collect();
            assert_eq!(v, [10, 10, 20]);
        });
    }

    #[test]
    fn lockstep_waits_for_every_planned_member() {
        let w = std::sync::Arc::new(Window::new(spec("iops:50%", 2), 2, true));
        let a = w.join(0);
        let w2 = w.clone();
        let t = std::thread::spawn(move || {
            let b = w2.join(0);
            std::thread::sleep(std::time::Duration::from_millis(50));
            w2.report(b, 0, &reads(10));
            w2.report(b, 1, &reads(10))
        });
        // Blocks until b has reported interval 0 too.
        assert!(!w.report(a, 0, &reads(10)));
        assert_eq!(w.with_state(|s| s.measured), 1);
        assert!(w.report(a, 1, &reads(10)));
        assert!(t.join().unwrap());
        w.with_state(|s| {
            let v: Vec<u64> = s.values[0].iter().copied().collect();
            assert_eq!(v, [20, 20]);
        });
    }

    #[test]
    fn per_direction_and_latency_values() {
        let mut h = ferrio_stats::LatencyHistogram::new();
        for v in 1..=100u64 {
            h.record(v * 1000);
        }
        let lat = SparseHistogram::between(&h, &ferrio_stats::LatencyHistogram::new());
        let s = Sample {
            elapsed_ns: 1_000_000_000,
            ios: [30, 70, 0],
            bytes: [30 * 4096, 70 * 8192, 0],
            clat: [
                SparseHistogram::default(),
                lat.clone(),
                SparseHistogram::default(),
            ],
            lat: [SparseHistogram::default(), lat, SparseHistogram::default()],
        };
        let mut p = Point::default();
        p.add(&s);
        let c = |t: &str| parse_criteria(t, 1024).unwrap().remove(0);
        assert_eq!(p.value(&c("iops:1%")), 100);
        assert_eq!(p.value(&c("write_iops:1%")), 70);
        assert_eq!(p.value(&c("read_bw:1%")), 30 * 4096);
        assert_eq!(p.value(&c("lat:1%")), 50_500);
        assert_eq!(p.value(&c("write_clat_p50:1%")), h.percentiles(&[50.0])[0]);
        assert_eq!(p.value(&c("clat_p99:1%")), h.percentiles(&[99.0])[0]);
        assert_eq!(p.value(&c("read_clat_p99:1%")), 0);
    }
}
