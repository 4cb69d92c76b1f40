//! `"ferrio_intervals"`: the per-interval samples of crate::series in the JSON
//! document, one object per job, column arrays per direction.

use super::value::{Object, Value};
use crate::series::{JobSeries, Row, PERCENTILES};

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// `"ferrio_intervals"`: one object per job with intervals, column arrays per direction.
pub fn json(series: &[JobSeries], job_names: &[String]) -> Value {
    let items = series
        .iter()
        .map(|s| {
            let mut o = Object::new();
            o.str("jobname", job_names.get(s.job).map_or("", |n| n.as_str()))
                .int("job", s.job as u64)
                .int("interval_ms", s.interval_ms);
            for (d, name) in DIRS.iter().enumerate() {
                let rows = s.rows(d);
                if rows.is_empty() {
                    continue;
                }
                let mut c = Object::new();
                let col = |f: &dyn Fn(&Row) -> Value| rows.iter().map(f).collect::<Vec<Value>>();
                c.arr("t_ms", col(&|r| Value::Int(r.t_ms.into())));
                c.arr("bw_bytes", col(&|r| Value::Float(r.bw)));
                c.arr("iops", col(&|r| Value::Float(r.iops)));
                c.arr("lat_mean_ns", col(&|r| Value::Float(r.lat_mean_ns)));
                for (i, p) in PERCENTILES.iter().enumerate() {
                    c.arr(
                        &format!("lat_p{p}_ns"),
                        col(&|r| Value::Int(r.lat_pct_ns[i].into())),
                    );
                }
                o.obj(name, c);
            }
            Value::Obj(o)
        })
        .collect();
    Value::Arr(items)
}
