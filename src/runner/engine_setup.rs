//! What a thread's engine is told at creation, taken from the thread's plan: its
//! tuning, the regions the plan computed and a few flags — never the whole job.

use super::plan::ThreadPlan;
use crate::engine::EngineOptions;
use ferrio_clock::VirtualHandle;

/// The engine options for `plan`'s thread (`virtual_clock` with clocksource=virtual).
pub fn engine_options(plan: &ThreadPlan, virtual_clock: Option<VirtualHandle>) -> EngineOptions {
    let spec = &plan.spec;
    EngineOptions {
        job: spec.name.clone(),
        iodepth: spec.iodepth,
        hipri: spec.hipri,
        direct: spec.direct,
        directions: spec.rw.kind.directions(),
        tuning: spec.engine.clone(),
        sim: spec.sim.clone(),
        regions: plan
            .files
            .iter()
            .map(|f| f.region.start..f.region.start + f.region.len)
            .collect(),
        sized: spec.size.is_some() || spec.filesize.is_some(),
        virtual_clock,
        clone: plan.clone,
    }
}
