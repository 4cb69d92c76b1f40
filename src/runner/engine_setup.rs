//! What a thread's engine is told at creation, taken from the thread's plan: its
//! tuning, the regions the plan computed and a few flags — never the whole job.

use super::plan::ThreadPlan;
use crate::engine::EngineOptions;
use ferrio_clock::VirtualHandle;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

/// The engine options for `plan`'s thread (`virtual_clock` with clocksource=virtual;
/// `io_threads_left`: the run's count of unfinished I/O threads).
pub fn engine_options(
    plan: &ThreadPlan,
    virtual_clock: Option<VirtualHandle>,
    io_threads_left: Option<Arc<AtomicUsize>>,
) -> EngineOptions {
    let spec = &plan.spec;
    EngineOptions {
        job: spec.name.clone(),
        iodepth: spec.iodepth,
        hipri: spec.hipri,
        direct: spec.direct,
        sync: spec.sync,
        uncached: spec.prio.uncached,
        atomic: spec.compat.atomic,
        // A replayed log's own directions (its trims may come with reads).
        directions: plan
            .replay
            .as_ref()
            .map_or(spec.rw.kind.directions(), |log| log.directions()),
        tuning: spec.engine.clone(),
        sim: spec.sim.clone(),
        net: spec.net.clone(),
        nbd_uri: spec.nbd.uri.clone(),
        stop: None,
        regions: plan
            .files
            .iter()
            .map(|f| f.region.start..f.region.start + f.region.len)
            .collect(),
        sized: spec.size.is_some() || spec.filesize.is_some(),
        virtual_clock,
        clone: plan.subjob(),
        paths: plan.files.iter().map(|f| f.path.clone()).collect(),
        local: spec.local.clone(),
        runtime_us: spec.runtime_us,
        directory: spec.directory.clone(),
        io_threads_left,
        confine: plan.confine.clone(),
        targets: plan.targets.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::planner;
    use ferrio_config::values::size::SizeOrPercent;
    use ferrio_config::JobSpec;

    fn vec_of(r: std::ops::Range<u64>) -> Vec<std::ops::Range<u64>> {
        std::iter::once(r).collect()
    }

    fn sim_job(offset: SizeOrPercent) -> JobSpec {
        let mut j = JobSpec::with_defaults("t", "");
        j.ioengine = "sim".into();
        j.size = Some(SizeOrPercent::Bytes(4 << 20));
        j.offset = offset;
        j.offset_increment = 1 << 20;
        j.numjobs = 2;
        j.sim.ssd = true;
        j
    }

    #[test]
    fn each_clone_gets_the_region_the_plan_computed() {
        let threads = planner::plan(&[sim_job(SizeOrPercent::Bytes(0))]).unwrap();
        let opts: Vec<EngineOptions> = threads
            .iter()
            .map(|t| engine_options(t, None, None))
            .collect();
        assert_eq!(opts[0].regions, vec_of(0..4 << 20));
        assert_eq!(opts[1].regions, vec_of((1 << 20)..(5 << 20)));
        assert!(opts.iter().all(|o| o.sized && o.clone < 2 && o.job == "t"));
        assert_eq!((opts[0].clone, opts[1].clone), (0, 1));
        assert_eq!(opts[0].directions, [true, false, false]);
    }

    #[test]
    fn offset_as_a_percentage_is_read_once_by_the_plan() {
        // 50% of the 4 MiB region: the engine sees the plan's start, not a second reading.
        let threads = planner::plan(&[sim_job(SizeOrPercent::Percent(50.0))]).unwrap();
        let o = engine_options(&threads[1], None, None);
        let r = &threads[1].files[0].region;
        assert_eq!(o.regions, vec_of(r.start..r.start + r.len));
        assert_eq!(r.start, (2 << 20) + (1 << 20));
    }

    #[test]
    fn a_job_without_a_size_is_not_sized() {
        let mut j = sim_job(SizeOrPercent::Bytes(0));
        j.size = None;
        j.time_based = true;
        let threads = planner::plan(&[j]).unwrap();
        assert!(!engine_options(&threads[0], None, None).sized);
    }
}
