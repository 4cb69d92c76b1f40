//! `--compare` end to end on the simulated device in virtual time: the same job with
//! another seed is no significant difference; a device 5 % slower is reported slower,
//! with the model's change inside the 95 % interval; reports without ferrio's
//! interval samples (fio's JSON) fall back to fio's bw/IOPS sample summaries.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// Write a 20-virtual-second sim run's JSON report to `dir/name`.
fn sim_report(dir: &Path, name: &str, lat: &str, seed: u32) -> String {
    let lat = format!("--sim_lat={lat}");
    let seed = format!("--sim_seed={seed}");
    let out = run_ok(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--sim_bw=0",
        "--iodepth=4",
        "--sim_channels=4",
        "--time_based",
        "--runtime=20s",
        &lat,
        &seed,
        "--output-format=json",
    ]);
    let p = file_in(dir, name);
    std::fs::write(&p, out.stdout).unwrap();
    p
}

fn compare_json(a: &str, b: &str) -> Value {
    parse_json(&run_ok(&["--compare", a, b, "--output-format=json"]).stdout)
}

fn metric<'a>(c: &'a Value, name: &str) -> &'a Value {
    c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == name)
        .unwrap_or_else(|| panic!("no {name} in {c}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn another_seed_is_no_significant_difference() {
    let d = scratch();
    let a = sim_report(d.path(), "a.json", "exponential:100us", 1);
    let b = sim_report(d.path(), "b.json", "exponential:100us", 2);
    let v = compare_json(&a, &b);
    let c = &v["comparisons"][0];
    assert_eq!(
        (c["job"].as_str(), c["rw"].as_str()),
        (Some("t"), Some("read"))
    );
    assert_eq!(c["verdict"], "no significant difference", "{v:#}");
    assert_eq!(c["intervals"], serde_json::json!([40, 40]), "{v:#}");
    for m in c["metrics"].as_array().unwrap() {
        assert!(
            f(&m["ci95_low_pct"]) <= 0.0 && f(&m["ci95_high_pct"]) >= 0.0,
            "{m}"
        );
        assert_eq!(m["verdict"], "no significant difference");
    }
    // A run compared with itself: no change at all.
    let same = compare_json(&a, &a);
    assert_eq!(
        f(&metric(&same["comparisons"][0], "bandwidth")["change_pct"]),
        0.0
    );
    // The text form says the same in words.
    let text = String::from_utf8(run_ok(&["--compare", &a, &b]).stdout).unwrap();
    assert!(
        text.contains("job 't' read: NO SIGNIFICANT DIFFERENCE"),
        "{text}"
    );
}

/// Service time 5 % longer: throughput falls to 1/1.05 (−4.76 %), latency rises 5 %.
#[test]
fn a_device_five_percent_slower_is_slower_by_the_right_amount() {
    let d = scratch();
    let a = sim_report(d.path(), "a.json", "exponential:100us", 1);
    let b = sim_report(d.path(), "b.json", "exponential:105us", 2);
    let v = compare_json(&a, &b);
    let c = &v["comparisons"][0];
    assert_eq!(c["verdict"], "slower", "{v:#}");
    for (name, model) in [
        ("bandwidth", (1.0 / 1.05 - 1.0) * 100.0),
        ("IOPS", (1.0 / 1.05 - 1.0) * 100.0),
        ("mean latency", 5.0),
    ] {
        let m = metric(c, name);
        let (lo, hi) = (f(&m["ci95_low_pct"]), f(&m["ci95_high_pct"]));
        assert!(
            lo <= model && model <= hi,
            "{name}: model {model}% outside [{lo}, {hi}]"
        );
        assert!(
            hi - lo < 2.0,
            "{name}: interval too wide to mean anything: [{lo}, {hi}]"
        );
    }
    assert_eq!(metric(c, "mean latency")["verdict"], "higher (worse)");
    // And the other way round.
    let back = compare_json(&b, &a);
    assert_eq!(back["comparisons"][0]["verdict"], "faster");
}

/// fio's JSON has no "ferrio_intervals": throughput intervals come from bw_mean,
/// bw_dev and bw_samples; latencies are compared without an interval.
#[test]
fn reports_without_interval_samples_use_fios_sample_summaries() {
    let d = scratch();
    let strip = |p: &str| {
        let mut v: Value = parse_json(&std::fs::read(p).unwrap());
        v.as_object_mut().unwrap().remove("ferrio_intervals");
        std::fs::write(p, serde_json::to_vec(&v).unwrap()).unwrap();
    };
    let a = sim_report(d.path(), "a.json", "exponential:100us", 1);
    let b = sim_report(d.path(), "b.json", "exponential:105us", 2);
    strip(&a);
    strip(&b);
    let v = compare_json(&a, &b);
    let c = &v["comparisons"][0];
    assert_eq!(c["verdict"], "slower", "{v:#}");
    assert_eq!(c["intervals"], serde_json::json!([0, 0]));
    let bw = metric(c, "bandwidth");
    let (lo, hi) = (f(&bw["ci95_low_pct"]), f(&bw["ci95_high_pct"]));
    let model = (1.0 / 1.05 - 1.0) * 100.0;
    assert!(
        lo <= model && model <= hi && hi < 0.0,
        "model {model}% outside [{lo}, {hi}]"
    );
    let p99 = metric(c, "p99 latency");
    assert_eq!(p99["verdict"], "no interval samples");
    assert!(p99["ci95_low_pct"].is_null());
    assert!(f(&p99["change_pct"]) > 0.0);
}

/// One sample each (a fio run shorter than two bw_avgtime periods): no interval can
/// be had; the verdict says so, and the text still gives the change, never "NaN".
#[test]
fn one_sample_each_is_undetermined_with_the_change_shown() {
    let d = scratch();
    let one_sample = |p: &str| {
        let mut v: Value = parse_json(&std::fs::read(p).unwrap());
        v.as_object_mut().unwrap().remove("ferrio_intervals");
        for k in ["bw_samples", "iops_samples"] {
            v["jobs"][0]["read"][k] = serde_json::json!(1);
        }
        std::fs::write(p, serde_json::to_vec(&v).unwrap()).unwrap();
    };
    let a = sim_report(d.path(), "a.json", "exponential:100us", 1);
    let b = sim_report(d.path(), "b.json", "exponential:105us", 2);
    one_sample(&a);
    one_sample(&b);
    let v = compare_json(&a, &b);
    let c = &v["comparisons"][0];
    assert!(
        c["verdict"].as_str().unwrap().starts_with("undetermined"),
        "{v:#}"
    );
    let text = String::from_utf8(run_ok(&["--compare", &a, &b]).stdout).unwrap();
    assert!(!text.contains("NaN"), "{text}");
    let head = text
        .lines()
        .find(|l| l.starts_with("job 't' read: "))
        .unwrap();
    let change = f(&metric(c, "bandwidth")["change_pct"]);
    assert!(
        head.contains(&format!("bandwidth {change:+.2}%, no interval")),
        "{head}"
    );
}

#[test]
fn bad_compare_input_is_refused() {
    let d = scratch();
    let a = sim_report(d.path(), "a.json", "fixed:100us", 1);
    let junk = file_in(d.path(), "junk.json");
    std::fs::write(&junk, "{\"not\": \"a report\"}").unwrap();
    let missing = file_in(d.path(), "missing.json");
    for (args, want) in [
        (vec!["--compare", &a], "takes two JSON reports"),
        (vec!["--compare", &a, &a, &a], "takes two JSON reports"),
        (vec!["--compare", &a, &missing], "cannot read"),
        (vec!["--compare", &a, &junk], "not a fio/ferrio JSON report"),
    ] {
        let out = ferrio().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// Two sweep tables: each point compared on its pooled interval samples. A device
/// 10 % faster (90 µs instead of 100 µs) is faster by 11.1 % at every depth.
#[test]
fn two_sweeps_are_compared_point_by_point() {
    let d = scratch();
    let sweep = |name: &str, lat: &str, seed: u32| -> String {
        let lat = format!("--sim_lat={lat}");
        let seed = format!("--sim_seed={seed}");
        let out = run_ok(&[
            "--sweep=iodepth=1,4,16",
            "--name=t",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--size=1g",
            "--rw=randread",
            "--bs=4k",
            "--sim_bw=0",
            "--sim_channels=4",
            "--time_based",
            "--runtime=10s",
            &lat,
            &seed,
            "--output-format=json",
        ]);
        let p = file_in(d.path(), name);
        std::fs::write(&p, out.stdout).unwrap();
        p
    };
    let a = sweep("a.json", "exponential:100us", 1);
    let b = sweep("b.json", "exponential:90us", 7);
    let v = compare_json(&a, &b);
    let rows = v["comparisons"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{v:#}");
    for (c, depth) in rows.iter().zip(["1", "4", "16"]) {
        assert_eq!(c["job"], format!("t [iodepth={depth}]"));
        assert_eq!(c["verdict"], "faster", "{c}");
        let bw = metric(c, "bandwidth");
        let (lo, hi) = (f(&bw["ci95_low_pct"]), f(&bw["ci95_high_pct"]));
        let model = (100.0 / 90.0 - 1.0) * 100.0;
        assert!(
            lo <= model && model <= hi,
            "iodepth={depth}: {model}% outside [{lo}, {hi}]"
        );
    }
    // A sweep against a single run is refused.
    let run = sim_report(d.path(), "run.json", "fixed:100us", 1);
    let out = ferrio().args(["--compare", &a, &run]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("like with like"));
}

/// A long run's interval samples stay bounded: neighbours merge pairwise past 2048
/// intervals, and the merged samples still hold (nearly) every I/O of the run.
#[test]
fn long_runs_keep_a_bounded_number_of_interval_samples() {
    let v = run_json(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--sim_lat=fixed:100us",
        "--bwavgtime=10",
        "--time_based",
        "--runtime=60s",
    ]);
    let s = &v["ferrio_intervals"][0];
    let ios: Vec<f64> = s["read"]["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    let t: Vec<u64> = s["read"]["t_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert!(
        ios.len() <= 2048 && ios.len() >= 1024,
        "{} intervals",
        ios.len()
    );
    // Rates over each interval's own span add up to the run's I/Os.
    let mut prev = 0;
    let mut total = 0.0;
    for (r, t) in ios.iter().zip(&t) {
        total += r * (t - prev) as f64 / 1000.0;
        prev = *t;
    }
    let want = f(&v["jobs"][0]["read"]["total_ios"]);
    assert!(
        (total / want - 1.0).abs() < 0.01,
        "series {total} I/Os, JSON {want}"
    );
    assert_eq!(s["interval_ms"], 40, "10 ms doubled twice");
}
