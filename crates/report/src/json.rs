//! fio's `json` and `json+` output (fio 3.33 key set, key order and number format).
//!
//! The document is built as an ordered tree ([`value::Object`]) and printed exactly
//! like fio's `json.c` prints its tree: two-space indentation, `"key" : value`,
//! doubles with `%f`. ferrio adds one top-level key, "clocksource", after "time". json+ differs only by the "bins" objects beside the
//! percentiles (see [`lat`]). Rates are derived from bytes, counts and runtimes with
//! fio's integer arithmetic (see [`ddir`]).

pub mod ddir;
pub mod job;
pub mod lat;
pub mod series;
pub mod steadystate;
pub mod value;

use crate::model::{DiskUtil, RunReport};
use value::{Object, Value};

fn disk_util_object(d: &DiskUtil) -> Object {
    let mut o = Object::new();
    o.str("name", &d.name)
        .int("read_ios", d.read_ios)
        .int("write_ios", d.write_ios)
        .int("read_merges", d.read_merges)
        .int("write_merges", d.write_merges)
        .int("read_ticks", d.read_ticks)
        .int("write_ticks", d.write_ticks)
        .int("in_queue", d.in_queue)
        .float("util", d.util);
    o
}

/// The run as an ordered JSON tree (what [`render`] prints).
pub fn document(report: &RunReport, plus: bool) -> Object {
    let mut root = Object::new();
    root.str("fio version", &report.version)
        .int("timestamp", report.timestamp)
        .int("timestamp_ms", report.timestamp_ms)
        .str("time", &report.time);
    // ferrio's one addition to fio's top level: which clock timed the run (empty when
    // unknown, e.g. in reports built by tests from fio captures).
    if !report.clock_source.is_empty() {
        root.str("clocksource", &report.clock_source);
    }
    if let Some(g) = job::options(&report.global_options) {
        root.obj("global options", g);
    }
    let jobs = report
        .jobs
        .iter()
        .map(|j| Value::Obj(job::job_object(report, j, plus)))
        .collect();
    root.arr("jobs", jobs);
    // fio omits "disk_util" when no device was tracked (e.g. ioengine=null).
    if !report.disk_util.is_empty() {
        let disks = report
            .disk_util
            .iter()
            .map(|d| Value::Obj(disk_util_object(d)))
            .collect();
        root.arr("disk_util", disks);
    }
    if let Some(c) = &report.cpu_idleness {
        let mut o = Object::new();
        o.float("system", c.system);
        for (i, p) in c.percpu.iter().flatten().enumerate() {
            o.float(&format!("cpu-{i}"), *p);
        }
        o.float("unit_mean", c.unit_mean_us)
            .float("unit_stddev", c.unit_stddev);
        root.obj("cpu_idleness", o);
    }
    // ferrio's per-interval samples, after every key of fio's (fio's tools ignore it).
    if !report.series.is_empty() {
        let names: Vec<String> = report.jobs.iter().map(|j| j.name.clone()).collect();
        root.0.push((
            "ferrio_intervals".into(),
            series::json(&report.series, &names),
        ));
    }
    root
}

/// Render the whole run as fio 3.x JSON; `plus` adds "bins" (json+).
pub fn render(report: &RunReport, plus: bool) -> String {
    value::print_root(&document(report, plus))
}
