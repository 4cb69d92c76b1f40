//! Pacing: when the next I/O may start (rate=, rate_iops=, rate_process=), the
//! pauses between I/Os (thinktime=), and the minimum-rate check (rate_min=,
//! rate_iops_min=), the queue-depth search for a latency target (latency_target=,
//! [`LatTarget`]) and flow control across jobs (flow=, [`Flow`]) — fio's semantics
//! (io_u.c rate_ddir / usec_for_io, backend.c handle_thinktime / check_min_rate) —
//! and ferrio's adaptive pacer (pacer_period=, [`Adaptive`]), docs/pacing.md.
//!
//! The worker asks [`Pacer::due_ns`] for an I/O's scheduled time, empties its queue
//! (fio quiesces before a rate wait or a think time), and waits with
//! [`Waiter::wait_until`] *before* it stamps the I/O's start: no latency holds a
//! pacing wait. In virtual time (ioengine=sim, clocksource=virtual) a wait moves
//! the virtual clock instead of sleeping, so a paced run takes no wall time.

mod adaptive;
mod latency;
mod rate;
mod thinktime;
mod wait;

pub use adaptive::Adaptive;
pub use latency::{LatTarget, Step};
pub use rate::{rate_ddir, MinRate, Rate};
pub use thinktime::Think;
pub use wait::Waiter;

use crate::runner::flow::Flow;
use crate::runner::plan::ThreadPlan;
use ferrio_report::extra::{ExtraMerge, ExtraStat};

/// A job's pacing state: its rate schedule, think time and minimum-rate check (each
/// absent when the job has none).
pub struct Pacer {
    pub rate: Option<Rate>,
    /// pacer_period=: the adaptive pacer (every direction).
    pub adaptive: Option<Adaptive>,
    pub think: Option<Think>,
    pub min_rate: Option<MinRate>,
    /// The direction of the last I/O generated (a think time after it credits the
    /// rate of that direction, rate_ignore_thinktime).
    pub last_dir: usize,
    /// flow=: the job's place in its flow group.
    pub flow: Option<Flow>,
    /// latency_target=: the search runs (its state is in the accounting, which sees
    /// every completion).
    pub lat_target: bool,
    /// Timed iolog replay: when the previous replayed I/O started.
    pub replay_last_ns: Option<u64>,
    /// A pacing wait ran into the runtime's end with nothing in flight: the job
    /// ended at this time (its deadline), however late the thread woke.
    pub ended_ns: Option<u64>,
    /// thinkcycles=: busy-loop iterations after each I/O (0: none), and the I/Os
    /// issued when the last busy loop ran.
    pub think_cycles: u64,
    pub cycled_ios: u64,
}

impl Pacer {
    /// The pacing `plan` asks for; times count from `begin_ns`.
    pub fn new(plan: &ThreadPlan, begin_ns: u64) -> Pacer {
        let p = &plan.spec.pacing;
        let min_bs = [0, 1, 2].map(|d| plan.spec.bs[d].min.max(1));
        Pacer {
            rate: Rate::new(p, min_bs, &plan.seeds, begin_ns).map(|r| {
                r.with_debug(
                    plan.spec
                        .compat
                        .debug
                        .has(ferrio_config::DebugCategory::Rate),
                )
            }),
            adaptive: Adaptive::new(p, begin_ns),
            think: Think::new(p, begin_ns),
            min_rate: MinRate::new(p, &plan.spec.name, begin_ns),
            last_dir: 0,
            flow: match (&plan.flow, p.flow) {
                (Some(g), w) if w > 0 => Some(Flow::join(g.clone(), w as u64, p.flow_sleep_us)),
                _ => None,
            },
            lat_target: p.latency_target_ns > 0,
            replay_last_ns: None,
            ended_ns: None,
            think_cycles: p.thinkcycles,
            cycled_ios: 0,
        }
    }

    /// Nothing to pace: the loop skips every hook.
    pub fn idle(&self) -> bool {
        self.rate.is_none()
            && self.adaptive.is_none()
            && self.think.is_none()
            && self.min_rate.is_none()
            && !self.lat_target
            && self.think_cycles == 0
    }

    /// thinkcycles=: after a step that issued an I/O (`issued_ios` moved on), spin
    /// `think_cycles` iterations, as fio's cycles_spin after each I/O of do_io.
    pub fn spin_cycles(&mut self, issued_ios: u64) {
        if self.think_cycles == 0 || issued_ios == self.cycled_ios {
            return;
        }
        self.cycled_ios = issued_ios;
        for i in 0..self.think_cycles {
            // Kept: the loop is the work (fio's is a nop per cycle).
            std::hint::black_box(i);
        }
    }

    /// When an I/O of direction `dir` is due on its rate schedule (None: not paced).
    #[inline]
    pub fn due_ns(&self, dir: usize) -> Option<u64> {
        self.rate.as_ref().and_then(|r| r.due_ns(dir))
    }

    /// When the adaptive pacer lets the next I/O leave (None: no pacer).
    #[inline]
    pub fn pacer_due_ns(&self) -> Option<u64> {
        self.adaptive.as_ref().map(|a| a.due_ns())
    }

    /// An I/O of `bytes` in direction `dir` was issued: schedule the next one.
    #[inline]
    pub fn issued(&mut self, dir: usize, bytes: u64) {
        if let Some(r) = &mut self.rate {
            r.issued(dir, bytes);
        }
    }

    /// The pacing statistics the report shows after fio's (the adaptive pacer's
    /// period at the end and its time-weighted mean), at the job's end `now`.
    pub fn extra_stats(&mut self, now: u64) -> Vec<ExtraStat> {
        let Some(a) = &mut self.adaptive else {
            return Vec::new();
        };
        let (period, mean) = a.periods_at_end(now);
        [
            ("pacer_period_ns", "period", period as f64),
            ("pacer_period_mean_ns", "mean_period", mean),
        ]
        .into_iter()
        .map(|(key, name, v)| {
            ExtraStat::new(key, "pacer", name, v)
                .nanos()
                .merged_by(ExtraMerge::Mean)
        })
        .collect()
    }

    /// The measured phase starts again at `now` (ramp_time over): the schedule and
    /// the minimum-rate window restart there, as fio resets them with its stats.
    pub fn restart(&mut self, now: u64) {
        if let Some(r) = &mut self.rate {
            r.restart(now);
        }
        if let Some(m) = &mut self.min_rate {
            m.restart(now);
        }
        if let Some(a) = &mut self.adaptive {
            a.restart(now);
        }
    }
}
