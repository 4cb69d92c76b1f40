//! Steady-state detection (fio's steadystate / ss_dur / ss_ramp / ss_interval).
//!
//! Every thread of a job with `ss_dur` gets an [`SsObserver`]. At each check
//! interval boundary of its clock it takes the difference of its cumulative
//! statistics (I/Os, bytes, completion and total latency histograms per direction)
//! and reports it to its [`Window`]: one per thread, or one per reporting group with
//! group_reporting (fio's rule). The window judges the criteria and, when all hold,
//! every member stops. See `docs/steadystate.md`.

mod debug;
pub mod report;
pub mod window;

use super::observer::{Observer, ObserverFactory, Verdict};
use super::plan::ThreadPlan;
use super::recorder::ThreadResult;
use super::recorder::ThreadStats;
use ferrio_config::{ClockSource, DebugCategory};
use ferrio_stats::steadystate::SparseHistogram;
use ferrio_stats::LatencyHistogram;
use std::collections::BTreeMap;
use std::sync::Arc;
use window::{Sample, Window};

/// Which window a thread feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WindowKey {
    /// group_reporting: the whole reporting group.
    Group(u32),
    /// Otherwise each thread alone: (job index, clone).
    Thread(usize, u32),
}

/// The key of a thread's window.
pub fn window_key(plan: &ThreadPlan) -> WindowKey {
    if plan.spec.group_reporting {
        WindowKey::Group(plan.groupid)
    } else {
        WindowKey::Thread(plan.job_index, plan.clone)
    }
}

/// Builds the steady-state observers and owns the windows (which the report and
/// the live status read).
pub struct SteadyStateFactory {
    windows: BTreeMap<WindowKey, Arc<Window>>,
}

impl SteadyStateFactory {
    /// Windows for every thread with ss_dur, after fio's checks: the options must be
    /// the same for every job of a reporting group, and the window must be a whole
    /// number of intervals.
    pub fn new(threads: &[ThreadPlan]) -> Result<SteadyStateFactory, String> {
        let mut first_of_group: BTreeMap<u32, &ThreadPlan> = BTreeMap::new();
        // A job without steadystate_duration has no steady state, whatever its
        // steadystate= says (fio copies the other options only with a duration).
        fn effective(t: &ThreadPlan) -> Option<&ferrio_config::ext::steadystate::SteadyStateSpec> {
            let ss = &t.spec.steadystate;
            ss.enabled().then_some(ss)
        }
        for t in threads {
            let first = *first_of_group.entry(t.groupid).or_insert(t);
            if effective(first) != effective(t) {
                return Err(format!(
                    "job '{}': job rejected: steadystate options must be consistent within reporting groups (group {})",
                    t.spec.name, t.groupid
                ));
            }
            t.spec
                .steadystate
                .check()
                .map_err(|e| format!("job '{}': {e}", t.spec.name))?;
            if t.spec.steadystate.enabled() {
                check_latency_recorded(&t.spec)?;
            }
        }
        let mut members: BTreeMap<WindowKey, (usize, &ThreadPlan)> = BTreeMap::new();
        for t in threads.iter().filter(|t| t.spec.steadystate.enabled()) {
            members.entry(window_key(t)).or_insert((0, t)).0 += 1;
        }
        let windows = members
            .into_iter()
            .map(|(k, (n, t))| {
                let lockstep = t.spec.clocksource == Some(ClockSource::Virtual);
                (
                    k,
                    Arc::new(
                        Window::new(t.spec.steadystate.clone(), n, lockstep)
                            .with_debug(t.spec.compat.debug.has(DebugCategory::Steadystate)),
                    ),
                )
            })
            .collect();
        Ok(SteadyStateFactory { windows })
    }

    /// Whether any job uses steady-state detection.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// The window a thread feeds, if its job has ss_dur.
    pub fn window(&self, plan: &ThreadPlan) -> Option<&Arc<Window>> {
        self.windows.get(&window_key(plan))
    }
}

/// Latency criteria need the latencies they track to be measured.
fn check_latency_recorded(spec: &ferrio_config::JobSpec) -> Result<(), String> {
    use ferrio_config::ext::steadystate::Metric;
    for c in &spec.steadystate.criteria {
        let (needs, off) = match c.metric {
            Metric::Lat | Metric::ClatPct(_) => ("completion", spec.disable_clat),
            Metric::LatPct(_) => ("total", spec.disable_lat),
            Metric::Iops | Metric::Bw => continue,
        };
        if off || spec.gtod_reduce {
            return Err(format!(
                "job '{}': steadystate criterion '{}' needs {needs} latencies, which \
                 disable_clat/disable_lat/gtod_reduce turn off",
                spec.name,
                c.name()
            ));
        }
    }
    Ok(())
}

impl ObserverFactory for SteadyStateFactory {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        match self.window(plan) {
            Some(w) => vec![Box::new(SsObserver::new(
                w.clone(),
                start_ns,
                plan.spec.ramps(),
            ))],
            None => Vec::new(),
        }
    }
}

/// Shares one factory between the runner's factory list and the report.
impl ObserverFactory for Arc<SteadyStateFactory> {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        self.as_ref().observers(plan, start_ns)
    }
}

/// Cumulative counters at the previous boundary.
#[derive(Default)]
struct Baseline {
    ns: u64,
    ios: [u64; 3],
    bytes: [u64; 3],
    clat: [LatencyHistogram; 3],
    lat: [LatencyHistogram; 3],
}

/// One thread's steady-state observer.
pub struct SsObserver {
    window: Arc<Window>,
    member: Option<usize>,
    interval_ns: u64,
    /// Intervals that start before ss_ramp are measured but not recorded.
    first_recorded: u64,
    epoch_ns: u64,
    /// Index of the interval in progress and the time it ends.
    index: u64,
    boundary_ns: u64,
    /// Real clocks, group windows: how often to look for the group's verdict.
    poll_ns: u64,
    next_due: u64,
    base: Baseline,
}

impl SsObserver {
    /// With `ramping`, measuring starts at the end of ramp_time (`stats_reset`).
    fn new(window: Arc<Window>, start_ns: u64, ramping: bool) -> SsObserver {
        let interval_ns = window.spec.interval_us.max(1) * 1000;
        let ramp_ns = window.spec.ramp_us * 1000;
        let poll_ns = if !window.lockstep && window.expected > 1 {
            (interval_ns / 100).clamp(1_000_000, 10_000_000)
        } else {
            u64::MAX
        };
        let mut o = SsObserver {
            window,
            member: None,
            interval_ns,
            first_recorded: ramp_ns.div_ceil(interval_ns),
            epoch_ns: start_ns,
            index: 0,
            boundary_ns: u64::MAX,
            poll_ns,
            next_due: u64::MAX,
            base: Baseline::default(),
        };
        if ramping {
            // Due (finite) from the start: the worker keeps full statistics for
            // threads whose observers read them, and calls none while ramping.
            o.next_due = start_ns;
        } else {
            o.restart(start_ns);
        }
        o
    }

    /// (Re)start measuring at `now_ns` with zeroed statistics.
    fn restart(&mut self, now_ns: u64) {
        let epoch = self.window.epoch(now_ns);
        self.epoch_ns = epoch;
        // The interval in progress at now_ns (0 for the first member).
        self.index = now_ns.saturating_sub(epoch) / self.interval_ns;
        self.boundary_ns = epoch + (self.index + 1) * self.interval_ns;
        self.base = Baseline {
            ns: now_ns,
            ..Default::default()
        };
        if self.member.is_none() {
            let first = self.index.saturating_sub(self.first_recorded);
            self.member = Some(self.window.join(first));
        }
        self.schedule(now_ns);
    }

    fn schedule(&mut self, now_ns: u64) {
        self.next_due = self.boundary_ns.min(now_ns.saturating_add(self.poll_ns));
    }

    fn sample(&mut self, now_ns: u64, stats: &ThreadStats) -> Sample {
        let mut s = Sample {
            elapsed_ns: now_ns - self.base.ns,
            ..Default::default()
        };
        for d in 0..3 {
            let ds = &stats.dir[d];
            s.ios[d] = ds.total_ios - self.base.ios[d];
            s.bytes[d] = ds.io_bytes - self.base.bytes[d];
            if ds.clat.count() != self.base.clat[d].count() {
                s.clat[d] = SparseHistogram::between(&ds.clat, &self.base.clat[d]);
                self.base.clat[d].clone_from(&ds.clat);
            }
            if ds.lat.count() != self.base.lat[d].count() {
                s.lat[d] = SparseHistogram::between(&ds.lat, &self.base.lat[d]);
                self.base.lat[d].clone_from(&ds.lat);
            }
            self.base.ios[d] = ds.total_ios;
            self.base.bytes[d] = ds.io_bytes;
        }
        self.base.ns = now_ns;
        s
    }
}

impl Observer for SsObserver {
    fn next_due_ns(&self) -> u64 {
        self.next_due
    }

    fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict {
        if self.window.attained() {
            return Verdict::Stop;
        }
        if now_ns < self.boundary_ns {
            self.schedule(now_ns);
            return Verdict::Continue;
        }
        // The interval (or, after a stall, the intervals) up to the last boundary
        // passed: one measurement, timed by the real elapsed time (as fio does).
        let last = (now_ns - self.epoch_ns) / self.interval_ns - 1;
        let sample = self.sample(now_ns, stats);
        let mut attained = false;
        if last >= self.first_recorded {
            let index = last - self.first_recorded;
            attained = self.window.report(self.member.unwrap_or(0), index, &sample);
        }
        self.index = last + 1;
        self.boundary_ns = self.epoch_ns + (self.index + 1) * self.interval_ns;
        self.schedule(now_ns);
        if attained || self.window.attained() {
            Verdict::Stop
        } else {
            Verdict::Continue
        }
    }

    fn stats_reset(&mut self, now_ns: u64) {
        self.restart(now_ns);
    }

    fn finish(self: Box<Self>, _now_ns: u64, _stats: &ThreadStats, _result: &mut ThreadResult) {
        if let Some(m) = self.member {
            self.window.leave(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::worker::tests::plan_of;

    #[test]
    fn intervals_are_measured_from_the_threads_own_start() {
        // A thread that starts 5 s into the run: its first interval ends at 6 s and
        // covers one second, not six.
        let plan = plan_of("size=64k\nss=iops:50%\nss_dur=3s\nss_interval=1s", true);
        let f = SteadyStateFactory::new(std::slice::from_ref(&plan)).unwrap();
        let mut obs = f.observers(&plan, 5_000_000_000);
        assert_eq!(obs.len(), 1);
        let o = &mut obs[0];
        let mut s = ThreadStats::default();
        for i in 1..=3u64 {
            let t = (5 + i) * 1_000_000_000;
            assert_eq!(o.next_due_ns(), t);
            s.dir[0].total_ios = 100 * i;
            s.dir[0].io_bytes = 409_600 * i;
            o.observe(t, &s);
        }
        let r = report::window_report(f.window(&plan).unwrap());
        assert_eq!(r.iops, [100, 100, 100]);
    }
}
