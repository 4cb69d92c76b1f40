//! The JSON "steadystate" object from a hand-built report: fio's fields (fio 3.33
//! stat.c show_thread_status_json, and fio 3.42's lat_mean/lat_ns), then ferrio's
//! additions, with values computed here by hand.

mod json_support;

use ferrio_report::json::render;
use ferrio_report::model::*;
use ferrio_stats::steadystate::SparseHistogram;
use ferrio_stats::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram};
use serde_json::Value;

fn window(values: &[u64]) -> SparseHistogram {
    let mut h = LatencyHistogram::new();
    for &v in values {
        h.record(v);
    }
    SparseHistogram::between(&h, &LatencyHistogram::new())
}

fn criterion(name: &str, metric: &str, test: &str) -> SteadyStateCriterion {
    SteadyStateCriterion {
        name: name.into(),
        metric: metric.into(),
        test: test.into(),
        limit: 10.0,
        pct: true,
        snia_limits: (20.0, 10.0),
        criterion: 2.5,
        max_deviation: 1.25,
        slope: 0.0,
        range_pct: 3.0,
        excursion_pct: 4.0,
        met: true,
        values: vec![10, 12, 11],
    }
}

fn ss() -> SteadyStateReport {
    SteadyStateReport {
        duration_s: 3,
        interval_ms: 1000,
        ramp_ms: 2000,
        intervals: 3,
        filled: 3,
        measured: 7,
        attained: true,
        criteria: vec![
            criterion("lat", "lat", "deviation"),
            criterion("write_iops_snia", "iops", "snia"),
        ],
        iops: vec![100, 110, 120],
        bw: vec![409600, 450560, 491520],
        lat_ns: vec![1000, 2000, 4000],
        dir_iops: [vec![], vec![100, 110, 120], vec![0, 0, 0]],
        dir_bw: [vec![], vec![409600, 450560, 491520], vec![0, 0, 0]],
        window_clat: [
            SparseHistogram::default(),
            window(&[1000, 2000, 4000]),
            SparseHistogram::default(),
        ],
        window_lat: [
            SparseHistogram::default(),
            window(&[1100, 2100, 4100]),
            SparseHistogram::default(),
        ],
    }
}

fn object(ss: SteadyStateReport) -> Value {
    let mut r = json_support::report();
    r.jobs[0].steadystate = Some(ss);
    let v: Value = serde_json::from_str(&render(&r, false)).expect("valid JSON");
    v["jobs"][0]["steadystate"].clone()
}

#[test]
fn fio_fields_and_means() {
    let s = object(ss());
    assert_eq!(s["ss"], "lat:10.000000%");
    assert_eq!(s["duration"], 3);
    assert_eq!(s["attained"], 1);
    assert_eq!(s["criterion"], "2.500000%");
    assert_eq!(s["max_deviation"], 1.25);
    let d = &s["data"];
    assert_eq!(d["bw_mean"], 450560);
    assert_eq!(d["iops_mean"], 110);
    // lat criteria only (fio 3.42): integer mean 7000 / 3.
    assert_eq!(d["lat_mean"], 2333);
    assert_eq!(d["lat_ns"], serde_json::json!([1000, 2000, 4000]));
    let mut other = ss();
    other.criteria[0] = criterion("iops", "iops", "deviation");
    let s = object(other);
    assert!(s["data"].get("lat_mean").is_none() && s["data"].get("lat_ns").is_none());
}

#[test]
fn ferrio_additions() {
    let s = object(ss());
    assert_eq!(s["interval_ms"], 1000);
    assert_eq!(s["ramp_ms"], 2000);
    assert_eq!(s["intervals"], 3);
    assert_eq!(s["measured"], 7);
    // Measurements 5, 6, 7 are the window.
    assert_eq!(s["first_interval"], 5);
    let c = s["criteria"].as_array().unwrap();
    assert_eq!(c.len(), 2);
    // SNIA limits only on the SNIA criterion.
    assert!(c[0].get("range_pct").is_none() && c[0].get("range_limit_pct").is_none());
    assert_eq!(c[1]["range_pct"], 3.0);
    assert_eq!(c[1]["excursion_pct"], 4.0);
    assert_eq!(c[1]["range_limit_pct"], 20.0);
    assert_eq!(c[1]["excursion_limit_pct"], 10.0);
    assert_eq!(c[1]["ss"], "write_iops_snia:20.000000%/10.000000%");
    assert_eq!(c[0]["values"], serde_json::json!([10, 12, 11]));
    // Only directions with I/O in the window.
    let dd = s["dir_data"].as_object().unwrap();
    assert_eq!(dd.keys().collect::<Vec<_>>(), vec!["write"]);
    assert_eq!(s["dir_data"]["write"]["iops_mean"], 110);
    let wl = s["window_latency"].as_object().unwrap();
    assert_eq!(wl.keys().collect::<Vec<_>>(), vec!["write"]);
    let clat = &s["window_latency"]["write"]["clat_ns"];
    assert_eq!(clat["N"], 3);
    // percentile_list 99:50:1, sorted as fio sorts it.
    let p = clat["percentile"].as_object().unwrap();
    assert_eq!(p.len(), 3);
    let v = |x: u64| plat_idx_to_val(plat_val_to_idx(x));
    assert_eq!(clat["percentile"]["50.000000"], v(2000));
    assert_eq!(clat["percentile"]["99.000000"], v(4000));
    assert_eq!(s["window_latency"]["write"]["lat_ns"]["N"], 3);
}

#[test]
fn empty_windows_have_no_percentiles() {
    let mut x = ss();
    // Completion latency only for reads: the read entry exists, its lat_ns is empty.
    x.window_clat[0] = window(&[500]);
    let s = object(x);
    let r = &s["window_latency"]["read"];
    assert_eq!(r["clat_ns"]["N"], 1);
    assert!(r["clat_ns"].get("percentile").is_some());
    assert_eq!(r["lat_ns"]["N"], 0);
    assert!(r["lat_ns"].get("percentile").is_none());
    // Only total latency for trims: listed too.
    let mut x = ss();
    x.window_lat[2] = window(&[700]);
    let s = object(x);
    assert_eq!(s["window_latency"]["trim"]["lat_ns"]["N"], 1);
    assert_eq!(s["window_latency"]["trim"]["clat_ns"]["N"], 0);
    // No percentile list: no percentile objects.
    let mut r = json_support::report();
    r.jobs[0].percentile_list.clear();
    r.jobs[0].steadystate = Some(ss());
    let v: Value = serde_json::from_str(&render(&r, false)).unwrap();
    let w = &v["jobs"][0]["steadystate"]["window_latency"]["write"]["clat_ns"];
    assert_eq!(w["N"], 3);
    assert!(w.get("percentile").is_none(), "{w}");
}

/// fio 3.33 json.c escapes only `"` and `\`, so a control character in a job's
/// description makes its JSON invalid; ferrio escapes control characters (\u00XX) and
/// leaves everything else, a space included, as it is.
#[test]
fn strings_are_valid_json_with_control_characters() {
    let mut r = json_support::report();
    let desc = "tab\there, bell\u{7}, unit sep\u{1f}, space ok, \"q\" \\ del\u{7f}";
    r.jobs[0].description = Some(desc.into());
    let text = render(&r, false);
    assert!(text.contains("tab\\u0009here") && text.contains("\\u001f, space ok"));
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["jobs"][0]["desc"], desc);
}
