//! The job's "steadystate" object: fio's keys and number formats first (`ss`,
//! `duration`, `attained`, `criterion`, `max_deviation`, `slope`, `data`), then
//! ferrio's additions: every criterion with the values it judged, per-direction
//! data, and the latency distribution of the steady-state window alone.

use super::lat::sorted_list;
use super::value::{fmt_f, Object, Value};
use crate::model::{JobReport, SteadyStateCriterion, SteadyStateReport};
use ferrio_stats::steadystate::SparseHistogram;

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// fio's `"%s%s:%f%s"` spelling of a criterion (the limit printed as a float).
pub fn ss_text(c: &SteadyStateCriterion) -> String {
    if c.test == "snia" {
        return format!(
            "{}:{}%/{}%",
            c.name,
            fmt_f(c.snia_limits.0 as f32 as f64),
            fmt_f(c.snia_limits.1 as f32 as f64)
        );
    }
    format!(
        "{}:{}{}",
        c.name,
        fmt_f(c.limit as f32 as f64),
        if c.pct { "%" } else { "" }
    )
}

/// fio's `"%f%s"` of the criterion value, through a float like fio.
pub fn criterion_text(c: &SteadyStateCriterion) -> String {
    format!(
        "{}{}",
        fmt_f(c.criterion as f32 as f64),
        if c.pct { "%" } else { "" }
    )
}

fn ints(v: &[u64]) -> Value {
    Value::Arr(v.iter().map(|&x| Value::Int(x as i128)).collect())
}

fn mean(v: &[u64]) -> u64 {
    if v.is_empty() {
        0
    } else {
        v.iter().fold(0u64, |a, &b| a.wrapping_add(b)) / v.len() as u64
    }
}

fn criterion_object(c: &SteadyStateCriterion) -> Object {
    let mut o = Object::new();
    o.str("ss", &ss_text(c))
        .str("name", &c.name)
        .str("metric", &c.metric)
        .str("test", &c.test)
        .int("attained", c.met as u8)
        .str("criterion", &criterion_text(c))
        .float("value", c.criterion)
        .float("max_deviation", c.max_deviation)
        .float("slope", c.slope);
    if c.test == "snia" {
        o.float("range_pct", c.range_pct)
            .float("excursion_pct", c.excursion_pct)
            .float("range_limit_pct", c.snia_limits.0)
            .float("excursion_limit_pct", c.snia_limits.1);
    }
    o.arr("values", ints(&c.values).into_arr());
    o
}

trait IntoArr {
    fn into_arr(self) -> Vec<Value>;
}

impl IntoArr for Value {
    fn into_arr(self) -> Vec<Value> {
        match self {
            Value::Arr(a) => a,
            v => vec![v],
        }
    }
}

fn hist_object(h: &SparseHistogram, list: &[f64]) -> Object {
    let mut o = Object::new();
    o.int("N", h.count).float("mean", h.mean());
    if h.count > 0 && !list.is_empty() {
        let mut p = Object::new();
        for (pct, v) in list.iter().zip(h.percentiles(list)) {
            p.int(&fmt_f(*pct), v);
        }
        o.obj("percentile", p);
    }
    o
}

/// The "steadystate" object of a job.
pub fn object(job: &JobReport, ss: &SteadyStateReport) -> Object {
    let mut o = Object::new();
    let primary = ss.criteria.first().cloned().unwrap_or_default();
    o.str("ss", &ss_text(&primary))
        .int("duration", ss.duration_s)
        .int("attained", ss.attained as u8)
        .str("criterion", &criterion_text(&primary))
        .float("max_deviation", primary.max_deviation)
        .float("slope", primary.slope);
    let mut data = Object::new();
    data.int("bw_mean", mean(&ss.bw))
        .int("iops_mean", mean(&ss.iops));
    if primary.metric == "lat" {
        data.int("lat_mean", mean(&ss.lat_ns))
            .arr("lat_ns", ints(&ss.lat_ns).into_arr());
    }
    data.arr("iops", ints(&ss.iops).into_arr())
        .arr("bw", ints(&ss.bw).into_arr());
    o.obj("data", data);

    // ferrio's additions.
    o.int("interval_ms", ss.interval_ms)
        .int("ramp_ms", ss.ramp_ms)
        .int("intervals", ss.intervals as u64)
        .int("measured", ss.measured)
        .int(
            "first_interval",
            (ss.measured + 1).saturating_sub(ss.filled as u64),
        );
    o.arr(
        "criteria",
        ss.criteria
            .iter()
            .map(|c| Value::Obj(criterion_object(c)))
            .collect(),
    );
    let mut dirs = Object::new();
    for (d, name) in DIRS.iter().enumerate() {
        if ss.dir_iops[d].iter().any(|&v| v != 0) {
            let mut x = Object::new();
            x.int("bw_mean", mean(&ss.dir_bw[d]))
                .int("iops_mean", mean(&ss.dir_iops[d]))
                .arr("iops", ints(&ss.dir_iops[d]).into_arr())
                .arr("bw", ints(&ss.dir_bw[d]).into_arr());
            dirs.obj(name, x);
        }
    }
    o.obj("dir_data", dirs);
    let list = sorted_list(&job.percentile_list);
    let mut lat = Object::new();
    for (d, name) in DIRS.iter().enumerate() {
        if ss.window_clat[d].count > 0 || ss.window_lat[d].count > 0 {
            let mut x = Object::new();
            x.obj("clat_ns", hist_object(&ss.window_clat[d], &list))
                .obj("lat_ns", hist_object(&ss.window_lat[d], &list));
            lat.obj(name, x);
        }
    }
    o.obj("window_latency", lat);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_bw_slope() -> SteadyStateReport {
        // The seed's fio 3.30 bw_slope:4k example (first values of its window).
        SteadyStateReport {
            duration_s: 30,
            intervals: 3,
            filled: 3,
            measured: 3,
            attained: true,
            iops: vec![8456, 8578, 8568],
            bw: vec![34637645, 35135488, 35094528],
            criteria: vec![SteadyStateCriterion {
                name: "bw_slope".into(),
                metric: "bw".into(),
                test: "slope".into(),
                limit: 4096.0,
                pct: false,
                criterion: -3325.282536,
                slope: -3325.282536,
                met: true,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fio_fields_and_formats() {
        let ss = seed_bw_slope();
        let o = object(&JobReport::default(), &ss);
        let text = super::super::value::print_root(&o);
        assert!(
            text.contains("\"ss\" : \"bw_slope:4096.000000\","),
            "{text}"
        );
        assert!(text.contains("\"duration\" : 30,"));
        assert!(text.contains("\"attained\" : 1,"));
        assert!(text.contains("\"criterion\" : \"-3325.282471\","));
        assert!(text.contains("\"max_deviation\" : 0.000000,"));
        assert!(text.contains("\"slope\" : -3325.282536,"));
        assert!(text.contains("\"bw_mean\" : 34955887,"));
        assert!(text.contains("\"iops_mean\" : 8534,"));
        let keys: Vec<&str> = o.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            &keys[..7],
            &[
                "ss",
                "duration",
                "attained",
                "criterion",
                "max_deviation",
                "slope",
                "data"
            ]
        );
    }

    #[test]
    fn percent_criterion() {
        let mut c = SteadyStateCriterion {
            name: "iops".into(),
            limit: 50.0,
            pct: true,
            criterion: 10.788961,
            ..Default::default()
        };
        assert_eq!(ss_text(&c), "iops:50.000000%");
        assert_eq!(criterion_text(&c), "10.788961%");
        c.test = "snia".into();
        c.name = "iops_snia".into();
        c.snia_limits = (20.0, 10.0);
        assert_eq!(ss_text(&c), "iops_snia:20.000000%/10.000000%");
    }
}
