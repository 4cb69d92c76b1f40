//! The latency bucket maps (`latency_ns`, `latency_us`, `latency_ms`) and their normal
//! output line, value by value, where they are deterministic: the simulated device in
//! virtual time with fixed service times, so every I/O of a direction has the same
//! latency (service time + 4 KiB at the default 3 GiB/s link, about 1.3 µs).
//!
//! fio 3.33's rule (stat.c `stat_calc_lat`, io_u.c `io_u_mark_lat_*`): a bucket's
//! percentage is 100 · count / total, each label the exclusive upper edge of its
//! bucket ("50" holds 20–49 µs, "4" in ms 2–3 ms).

mod common;
use common::*;
use serde_json::Value;

fn run(extra: &[&str]) -> Value {
    let mut a = vec![
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--bs=4k",
        "--time_based",
        "--runtime=2",
    ];
    a.extend_from_slice(extra);
    run_json(&a)
}

/// The non-zero entries of a bucket map.
fn nonzero(v: &Value) -> Vec<(String, f64)> {
    v.as_object()
        .unwrap_or_else(|| panic!("not a map: {v}"))
        .iter()
        .filter(|(_, x)| x.as_f64().unwrap() != 0.0)
        .map(|(k, x)| (k.clone(), x.as_f64().unwrap()))
        .collect()
}

#[test]
fn one_latency_fills_one_bucket() {
    for (lat, map, label) in [
        ("fixed:300ns", "latency_us", "2"), // 300 ns + 1.3 µs transfer: 1 µs → "2"
        ("fixed:30us", "latency_us", "50"),
        ("fixed:80us", "latency_us", "100"),
        ("fixed:600us", "latency_us", "750"),
        ("fixed:3ms", "latency_ms", "4"),
        ("fixed:30ms", "latency_ms", "50"),
    ] {
        let v = run(&["--rw=randread", &format!("--sim_lat={lat}")]);
        let j = &v["jobs"][0];
        for m in ["latency_ns", "latency_us", "latency_ms"] {
            let want = if m == map {
                vec![(label.to_string(), 100.0)]
            } else {
                vec![]
            };
            assert_eq!(nonzero(&j[m]), want, "sim_lat={lat}: {m} = {}", j[m]);
        }
    }
}

#[test]
fn a_mix_splits_the_buckets_by_its_counts() {
    let v = run(&[
        "--rw=randrw",
        "--rwmixread=70",
        "--sim_lat=fixed:30us,fixed:3ms",
    ]);
    let j = &v["jobs"][0];
    let r = j["read"]["total_ios"].as_u64().unwrap();
    let w = j["write"]["total_ios"].as_u64().unwrap();
    assert!(r > 0 && w > 0);
    let pct = |c: u64| 100.0 * c as f64 / (r + w) as f64;
    let us = nonzero(&j["latency_us"]);
    let ms = nonzero(&j["latency_ms"]);
    assert_eq!(us.len(), 1, "{us:?}");
    assert_eq!(ms.len(), 1, "{ms:?}");
    assert_eq!(us[0].0, "50");
    assert_eq!(ms[0].0, "4");
    // JSON prints 6 decimals.
    assert!((us[0].1 - pct(r)).abs() < 1e-6, "{us:?} vs {}", pct(r));
    assert!((ms[0].1 - pct(w)).abs() < 1e-6, "{ms:?} vs {}", pct(w));
    assert!(nonzero(&j["latency_ns"]).is_empty());
}

#[test]
fn normal_output_bucket_lines() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--bs=4k",
        "--time_based",
        "--runtime=1",
        "--rw=randread",
        "--sim_lat=fixed:80us",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    // fio 3.33 prints only the non-zero buckets of each unit, two decimals.
    assert!(
        text.contains("  lat (usec)   : 100=100.00%\n"),
        "no usec bucket line in:\n{text}"
    );
    assert!(!text.contains("lat (nsec)   :") && !text.contains("lat (msec)   :"));
}
