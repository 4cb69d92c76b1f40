//! fio's `add_ddir_status_json`: the "read"/"write"/"trim" and "sync" objects.

use super::lat::lat_object;
use super::value::{Object, Value};
use crate::model::{DirReport, GroupDir, JobReport};

/// fio's `convert_agg_kbytes_percent`: the job's mean bandwidth sample (KiB/s,
/// truncated to an int as fio passes it) as a percentage of the group's aggregate
/// bandwidth; 100 when the aggregate is 1024 B/s or less, capped at 100.
pub fn bw_agg_percent(group: Option<&GroupDir>, mean_kib: f64) -> f64 {
    let mut p = 100.0;
    if let Some(g) = group {
        if g.agg_bw > 1024 {
            p = (mean_kib as i32) as f64 * 100.0 / (g.agg_bw as f64 / 1024.0);
            if p > 100.0 {
                p = 100.0;
            }
        }
    }
    p
}

/// One data direction (read, write or trim).
pub fn ddir_object(job: &JobReport, d: &DirReport, group: Option<&GroupDir>, plus: bool) -> Object {
    let mut o = Object::new();
    let (bw_bytes, iops) = if d.runtime_ms > 0 {
        let bw = (1000u128 * d.io_bytes as u128 / d.runtime_ms as u128) as u64;
        (bw, (1000.0 * d.total_ios as f64) / d.runtime_ms as f64)
    } else {
        (0, 0.0)
    };
    o.int("io_bytes", d.io_bytes)
        .int("io_kbytes", d.io_bytes >> 10)
        .int("bw_bytes", bw_bytes)
        .int("bw", bw_bytes / 1024)
        .float("iops", iops)
        .int("runtime", d.runtime_ms)
        .int("total_ios", d.total_ios)
        .int("short_ios", d.short_ios)
        .int("drop_ios", d.drop_ios);
    let list = &job.percentile_list;
    o.obj(
        "slat_ns",
        lat_object(&d.slat, job.slat_percentiles, list, plus),
    );
    o.obj(
        "clat_ns",
        lat_object(&d.clat, job.clat_percentiles, list, plus),
    );
    o.obj(
        "lat_ns",
        lat_object(&d.lat, job.lat_percentiles, list, plus),
    );
    if let Some(prios) = prios_array(job, d, plus) {
        o.arr("prios", prios);
    }

    let bw = &d.bw_samples;
    if bw.samples() > 0 {
        o.int("bw_min", bw.min() as u64)
            .int("bw_max", bw.max() as u64)
            .float("bw_agg", bw_agg_percent(group, bw.mean()))
            .float("bw_mean", bw.mean())
            .float("bw_dev", bw.stddev());
    } else {
        o.int("bw_min", 0u64)
            .int("bw_max", 0u64)
            .float("bw_agg", 0.0)
            .float("bw_mean", 0.0)
            .float("bw_dev", 0.0);
    }
    o.int("bw_samples", bw.samples());
    let io = &d.iops_samples;
    o.int("iops_min", io.min() as u64)
        .int("iops_max", io.max() as u64)
        .float("iops_mean", io.mean())
        .float("iops_stddev", io.stddev())
        .int("iops_samples", io.samples());
    // ferrio's own key, after all of fio's (due_lat=1, docs/pacing.md).
    if d.due_lat.count() > 0 {
        o.obj("due_lat_ns", lat_object(&d.due_lat, true, list, plus));
    }
    o
}

/// fio's per-priority array (`prios`): one `{prioclass, prio, clat_ns|lat_ns}` per
/// priority with samples, only when at least two have some (cmdprio in use).
fn prios_array(job: &JobReport, d: &DirReport, plus: bool) -> Option<Vec<Value>> {
    if ferrio_stats::prio::with_samples(&d.prios) < 2 {
        return None;
    }
    let key = if job.lat_percentiles {
        "lat_ns"
    } else {
        "clat_ns"
    };
    let pct = job.clat_percentiles || job.lat_percentiles;
    // fio 3.4x adds "priohint"; given only when a hint is in use, so that jobs
    // without one keep fio 3.33's keys.
    let hints = ferrio_stats::prio::any_hint(&d.prios);
    let out = d
        .prios
        .iter()
        .filter(|p| p.lat.count() > 0)
        .map(|p| {
            let mut o = Object::new();
            o.int("prioclass", p.class()).int("prio", p.level());
            if hints {
                o.int("priohint", p.hint());
            }
            o.obj(key, lat_object(&p.lat, pct, &job.percentile_list, plus));
            Value::Obj(o)
        })
        .collect();
    Some(out)
}

/// The "sync" object: fsync/fdatasync count and latency (percentiles when either
/// clat or lat percentiles are enabled).
pub fn sync_object(job: &JobReport, plus: bool) -> Object {
    let mut o = Object::new();
    o.int("total_ios", job.sync.total_ios);
    let pct = job.clat_percentiles || job.lat_percentiles;
    o.obj(
        "lat_ns",
        lat_object(&job.sync.lat, pct, &job.percentile_list, plus),
    );
    o
}
