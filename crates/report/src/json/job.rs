//! fio's `show_thread_status_json`: one element of the "jobs" array.

use super::ddir::{ddir_object, sync_object};
use super::value::Object;
use crate::model::Unified;
use crate::model::{JobReport, RunReport};
use crate::unified;
use ferrio_stats::{calc_dist, calc_lat_pct};

/// fio's "eta" at the end of a run: its ETA code reports INT_MAX while fewer than 3
/// seconds have elapsed and otherwise the largest per-job ETA, which is 0 once every
/// job has finished.
pub fn final_eta(elapsed_s: u64) -> i32 {
    if elapsed_s >= 3 {
        0
    } else {
        i32::MAX
    }
}

/// Labels of the iodepth_level object.
const LEVEL_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// Labels of the iodepth_submit/iodepth_complete objects.
const MAP_KEYS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];
const LAT_KEYS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

fn pct_object(keys: &[&str], vals: &[f64]) -> Object {
    let mut o = Object::new();
    for (k, v) in keys.iter().zip(vals) {
        o.float(k, *v);
    }
    o
}

fn options_object(opts: &[(String, String)]) -> Object {
    let mut o = Object::new();
    for (k, v) in opts {
        o.str(k, v);
    }
    o
}

/// "global options"/"job options": omitted by the caller when empty, like fio.
pub fn options(opts: &[(String, String)]) -> Option<Object> {
    (!opts.is_empty()).then(|| options_object(opts))
}

/// The whole job object.
pub fn job_object(run: &RunReport, job: &JobReport, plus: bool) -> Object {
    let group = run.groups.iter().find(|g| g.groupid == job.groupid);
    let mut o = Object::new();
    o.str("jobname", &job.name)
        .int("groupid", job.groupid)
        .int("error", job.error)
        .int("eta", final_eta(job.elapsed_s))
        .int("elapsed", job.elapsed_s);
    if let Some(opts) = options(&job.job_options) {
        o.obj("job options", opts);
    }
    if job.unified == Unified::Mixed {
        // fio: one "mixed" object, no read/write/trim/sync.
        let gdir = group.map(|g| &g.dir[0]);
        o.obj("mixed", ddir_object(job, &job.dir[0], gdir, plus));
    } else {
        for (i, name) in ["read", "write", "trim"].iter().enumerate() {
            let gdir = group.map(|g| &g.dir[i]);
            o.obj(name, ddir_object(job, &job.dir[i], gdir, plus));
        }
        o.obj("sync", sync_object(job, plus));
    }
    if job.unified == Unified::Both {
        let m = unified::merged_dir(&job.dir);
        let gdir = group.map(|g| unified::merged_group(&g.dir));
        o.obj("mixed", ddir_object(job, &m, gdir.as_ref(), plus));
    }

    o.int("job_runtime", job.job_runtime_ms)
        .float("usr_cpu", job.usr_cpu)
        .float("sys_cpu", job.sys_cpu)
        .int("ctx", job.ctx)
        .int("majf", job.majf)
        .int("minf", job.minf);

    let total_ios: u64 = job.dir.iter().map(|d| d.total_ios).sum();
    let d = &job.depth;
    o.obj(
        "iodepth_level",
        pct_object(&LEVEL_KEYS, &calc_dist(&d.level, total_ios)),
    );
    o.obj(
        "iodepth_submit",
        pct_object(&MAP_KEYS, &calc_dist(&d.submit, d.total_submit)),
    );
    o.obj(
        "iodepth_complete",
        pct_object(&MAP_KEYS, &calc_dist(&d.complete, d.total_complete)),
    );
    let b = &job.lat_buckets;
    o.obj(
        "latency_ns",
        pct_object(&LAT_KEYS, &calc_lat_pct(&b.ns, total_ios)),
    );
    o.obj(
        "latency_us",
        pct_object(&LAT_KEYS, &calc_lat_pct(&b.us, total_ios)),
    );
    o.obj(
        "latency_ms",
        pct_object(&LAT_KEYS, &calc_lat_pct(&b.ms, total_ios)),
    );

    // fio adds these for a continue_on_error job only.
    if let Some(e) = job.errors {
        o.int("total_err", e.total)
            .int("first_error", e.first_error);
    }
    // fio prints the latency-target block whenever the job's queue depth is
    // non-zero (the depth the latency_target search settled on, when it ran).
    if job.iodepth != 0 {
        o.int("latency_depth", job.iodepth)
            .int("latency_target", job.latency_target_ns)
            .float(
                "latency_percentile",
                job.latency_percentile.unwrap_or(100.0),
            )
            .int("latency_window", job.latency_window_us);
    }
    if let Some(desc) = job.description.as_deref().filter(|d| !d.is_empty()) {
        o.str("desc", desc);
    }
    if let Some(b) = job.block_infos.as_deref() {
        if let Some(block) = block_object(&job.percentile_list, b) {
            o.obj("block", block);
        }
    }
    if let Some(ss) = &job.steadystate {
        o.obj("steadystate", super::steadystate::object(job, ss));
    }
    // ferrio's extra statistics, after every key of fio's (crate::extra).
    for s in &job.extra {
        if s.unit == crate::extra::ExtraUnit::Count && s.value.fract() == 0.0 {
            o.int(&s.key, s.value as i128);
        } else {
            o.float(&s.key, s.value);
        }
    }
    o
}

/// block_error_percentiles' "block" object: trims per percentile and blocks per
/// state (None when no block was trimmed, as fio).
fn block_object(plist: &[f64], blocks: &[u32]) -> Option<Object> {
    use crate::blockinfo::{percentiles, STATES};
    let (pct, counts) = percentiles(plist, blocks);
    if pct.is_empty() {
        return None;
    }
    let mut p = Object::new();
    for (q, trims) in pct {
        p.int(&format!("{q:.6}"), trims);
    }
    let mut s = Object::new();
    for (i, (_, name)) in STATES.iter().enumerate() {
        s.int(name, counts[i]);
    }
    let mut block = Object::new();
    block.obj("percentiles", p).obj("states", s);
    Some(block)
}
