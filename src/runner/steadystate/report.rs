//! Windows → the report model: fio's "steadystate" fields (with its zero padding and
//! integer means) and ferrio's additions (all criteria, per-direction data, the
//! window's latency distribution).

use super::window::{Point, Window, WindowState};
use super::{window_key, SteadyStateFactory};
use crate::runner::plan::ThreadPlan;
use ferrio_config::ext::steadystate::{Metric, Test};
use ferrio_report::{RunReport, SteadyStateCriterion, SteadyStateReport};
use std::collections::BTreeMap;

fn padded(values: impl Iterator<Item = u64>, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = values.collect();
    v.resize(n.max(v.len()), 0);
    v
}

fn metric_label(m: Metric) -> String {
    match m {
        Metric::Iops => "iops".into(),
        Metric::Bw => "bw".into(),
        Metric::Lat => "lat".into(),
        Metric::ClatPct(p) => format!("clat_p{p}"),
        Metric::LatPct(p) => format!("lat_p{p}"),
    }
}

/// The report of one window, as it stands now (final after the run, current during it).
pub fn window_report(w: &Window) -> SteadyStateReport {
    w.with_state(|st| build(w, st))
}

fn build(w: &Window, st: &WindowState) -> SteadyStateReport {
    let spec = &w.spec;
    let n = spec.intervals().max(1);
    let pts = &st.points;
    let col = |f: &dyn Fn(&Point) -> u64| padded(pts.iter().map(f), n);
    let mut r = SteadyStateReport {
        duration_s: spec.duration_us / 1_000_000,
        interval_ms: spec.interval_us / 1000,
        ramp_ms: spec.ramp_us / 1000,
        intervals: n,
        filled: pts.len(),
        measured: st.measured,
        attained: st.attained,
        iops: col(&|p| p.iops),
        bw: col(&|p| p.bw),
        lat_ns: col(&|p| p.mean_clat(None)),
        dir_iops: std::array::from_fn(|d| col(&|p| p.dir_iops[d])),
        dir_bw: std::array::from_fn(|d| col(&|p| p.dir_bw[d])),
        ..Default::default()
    };
    for p in pts {
        for d in 0..3 {
            r.window_clat[d].add(&p.clat[d]);
            r.window_lat[d].add(&p.lat[d]);
        }
    }
    for (i, c) in spec.criteria.iter().enumerate() {
        let j = st.judgements.get(i).copied().unwrap_or_default();
        let (test, snia) = match c.test {
            Test::Deviation => ("deviation", (0.0, 0.0)),
            Test::Slope => ("slope", (0.0, 0.0)),
            Test::Snia {
                range_pct,
                slope_pct,
            } => ("snia", (range_pct, slope_pct)),
        };
        r.criteria.push(SteadyStateCriterion {
            name: c.name(),
            metric: metric_label(c.metric),
            test: test.into(),
            limit: c.limit,
            pct: c.pct,
            snia_limits: snia,
            criterion: j.criterion,
            max_deviation: j.max_deviation,
            slope: j.slope,
            range_pct: j.range_pct,
            excursion_pct: j.excursion_pct,
            met: j.met,
            values: padded(st.values[i].iter().copied(), n),
        });
    }
    r
}

/// Fill `JobReport::steadystate` of every reported job whose threads fed a window.
/// `threads` are the run's thread plans in plan order: the job reports are matched
/// the way the collector builds them (group_reporting folds a group into the report
/// of its first thread; otherwise one report per thread).
pub fn attach(factory: &SteadyStateFactory, threads: &[&ThreadPlan], report: &mut RunReport) {
    if factory.is_empty() {
        return;
    }
    let mut slots: Vec<&ThreadPlan> = Vec::new();
    let mut group_slot: BTreeMap<u32, usize> = BTreeMap::new();
    for &t in threads {
        if t.spec.group_reporting {
            if group_slot.contains_key(&t.groupid) {
                continue;
            }
            group_slot.insert(t.groupid, slots.len());
        }
        slots.push(t);
    }
    for (job, plan) in report.jobs.iter_mut().zip(slots) {
        if let Some(w) = factory.windows.get(&window_key(plan)) {
            job.steadystate = Some(window_report(w));
        }
    }
}

/// [`attach`] for a finished run.
pub fn attach_results(
    factory: &SteadyStateFactory,
    results: &crate::runner::RunResults,
    report: &mut RunReport,
) {
    let plans: Vec<&ThreadPlan> = results.threads.iter().map(|(p, _)| p).collect();
    attach(factory, &plans, report);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_labels_are_the_criteria_names_metrics() {
        // The JSON "metric" of each criterion (docs/steadystate.md).
        let labels: Vec<String> = [
            Metric::Iops,
            Metric::Bw,
            Metric::Lat,
            Metric::ClatPct(99.0),
            Metric::LatPct(99.9),
        ]
        .into_iter()
        .map(metric_label)
        .collect();
        assert_eq!(labels, ["iops", "bw", "lat", "clat_p99", "lat_p99.9"]);
    }
}
