//! Golden tests of the JSON renderer on a hand-built report (tests/json_support), and
//! hand-computed checks of the values fio derives while printing.
//!
//! Regenerate the expected files with `FERRIO_BLESS=1 cargo test -p ferrio-report
//! --test json_golden` after checking the diff by eye.

mod json_support;

use ferrio_report::json::render;
use ferrio_stats::{plat_idx_to_val, plat_val_to_idx, FIO_MAX_BIN};
use serde_json::Value;

fn check_golden(name: &str, got: &str) {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("FERRIO_BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(w, g, "{name}: line {} differs", i + 1);
    }
    assert_eq!(want, got, "{name}");
}

#[test]
fn golden_json() {
    check_golden(
        "json_ferrio_handbuilt.json",
        &render(&json_support::report(), false),
    );
}

#[test]
fn golden_json_plus() {
    check_golden(
        "json_ferrio_handbuilt_plus.json",
        &render(&json_support::report(), true),
    );
}

fn parsed(plus: bool) -> Value {
    serde_json::from_str(&render(&json_support::report(), plus)).expect("valid JSON")
}

#[test]
fn derived_rates_by_hand() {
    let v = parsed(false);
    let r = &v["jobs"][0]["read"];
    // 4096000 B in 2000 ms.
    assert_eq!(r["bw_bytes"], 2_048_000);
    assert_eq!(r["bw"], 2000);
    assert_eq!(r["io_kbytes"], 4000);
    assert_eq!(r["iops"].as_f64(), Some(500.0));
    // bw_agg: int(mean 4012.5) * 100 / (8192000 / 1024) = 401200 / 8000.
    assert_eq!(r["bw_agg"].as_f64(), Some(50.15));
    assert_eq!(r["bw_min"], 3900);
    assert_eq!(r["bw_max"], 4100);
    assert_eq!(r["bw_samples"], 4);
    let w = &v["jobs"][1]["write"];
    // (3 MiB + 7) * 1000 / 1499 = 3145735000 / 1499 = 2098555 (integer division), / 1024 = 2049.
    assert_eq!(w["bw_bytes"], 2_098_555);
    assert_eq!(w["bw"], 2049);
    assert_eq!(w["io_kbytes"], 3072);
    // Group aggregate of 1000 B/s is <= 1024: fio reports 100%.
    assert_eq!(w["bw_agg"].as_f64(), Some(100.0));
    assert_eq!(
        (w["short_ios"].as_u64(), w["drop_ios"].as_u64()),
        (Some(1), Some(2))
    );
}

#[test]
fn text_details_by_hand() {
    let text = render(&json_support::report(), false);
    // iops of the writer: 1000 * 769 / 1499 printed with %f.
    assert!(text.contains("\"iops\" : 513.008672,"), "{text}");
    assert!(text.contains("\"sys_cpu\" : 33.333333,"));
    // Percentile keys sorted and printed with %f.
    let p1 = text.find("\"1.000000\" :").unwrap();
    let p50 = text.find("\"50.000000\" :").unwrap();
    let p99 = text.find("\"99.000000\" :").unwrap();
    assert!(p1 < p50 && p50 < p99);
    assert!(text.contains("\"0.500000\" :") && text.contains("\"99.990000\" :"));
    // Escaping of options and description.
    assert!(text.contains("\"directory\" : \"/tmp/a \\\\ b\""));
    assert!(text.contains("\"desc\" : \"say \\\"hi\\\"\""));
    // eta: 0 after >= 3 s, INT_MAX before.
    assert!(text.contains("\"eta\" : 0,") && text.contains("\"eta\" : 2147483647,"));
}

#[test]
fn omissions_like_fio() {
    let v = parsed(true);
    let a = &v["jobs"][0];
    let b = &v["jobs"][1];
    // No job options -> no key; iodepth 0 -> no latency target block.
    assert!(b.get("job options").is_none());
    assert!(b.get("latency_depth").is_none() && b.get("desc").is_none());
    assert_eq!(a["latency_depth"], 1);
    assert_eq!(a["latency_percentile"].as_f64(), Some(100.0));
    // clat percentiles only: no percentile/bins for lat; none for empty directions.
    assert!(a["read"]["clat_ns"].get("percentile").is_some());
    assert!(a["read"]["clat_ns"].get("bins").is_some());
    assert!(a["read"]["lat_ns"].get("percentile").is_none());
    assert!(a["read"]["lat_ns"].get("bins").is_none());
    assert!(a["write"]["clat_ns"].get("percentile").is_none());
    // sync follows clat || lat.
    assert!(a["sync"]["lat_ns"].get("percentile").is_some());
    assert_eq!(a["sync"]["total_ios"], 100);
    // lat + slat percentiles for the writer, not clat.
    assert!(b["write"]["lat_ns"].get("percentile").is_some());
    assert!(b["write"]["slat_ns"].get("bins").is_some());
    assert!(b["write"]["clat_ns"].get("percentile").is_none());
    assert!(b["sync"]["lat_ns"].get("percentile").is_none()); // N == 0
                                                              // Plain json has no bins at all.
    assert!(!render(&json_support::report(), false).contains("\"bins\""));
}

#[test]
fn latencies_beyond_fio_ceiling_are_kept() {
    let v = parsed(true);
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    assert_eq!(clat["max"], json_support::HOUR_NS);
    // Bins: each long latency keeps a bin of its own, keyed by fio's formula
    // continued past fio's last bucket (fio would clamp both into FIO_MAX_BIN).
    let key = |ns: u64| plat_idx_to_val(plat_val_to_idx(ns)).to_string();
    assert_eq!(clat["bins"][key(100_000_000_000)], 1);
    assert_eq!(clat["bins"][key(json_support::HOUR_NS)], 1);
    assert!(clat["bins"].get(FIO_MAX_BIN.to_string()).is_none());
    let bins = clat["bins"].as_object().unwrap();
    let top = bins
        .keys()
        .map(|k| k.parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert_eq!(top.to_string(), key(json_support::HOUR_NS));
    assert!(top > FIO_MAX_BIN);
    assert_eq!(
        bins.values().map(|c| c.as_u64().unwrap()).sum::<u64>(),
        1000
    );
    assert_eq!(clat["N"], 1000);
    // Percentiles keep the real values: 99.85% of 1000 is the 999th value (100 s);
    // 99.9% of 1000 is, in fio's extended precision, a hair above 999: the hour.
    let p = plat_idx_to_val(plat_val_to_idx(100_000_000_000));
    let hour = plat_idx_to_val(plat_val_to_idx(json_support::HOUR_NS));
    let mut r = json_support::report();
    r.jobs[0].percentile_list = vec![99.85, 99.9, 100.0];
    let v2: Value = serde_json::from_str(&render(&r, false)).unwrap();
    let pct = &v2["jobs"][0]["read"]["clat_ns"]["percentile"];
    assert_eq!(pct["99.850000"], p);
    assert_eq!(pct["99.900000"], hour);
    assert_eq!(pct["100.000000"], hour);
    // 99% of 1000 is the 990th value: still in the 5 ms range.
    assert!(clat["percentile"]["99.000000"].as_u64().unwrap() < 5_100_000);
    // The ms distribution has one value in ">=2000" (both > 2 s): 2/1000 = 0.2%.
    assert_eq!(v["jobs"][0]["latency_ms"][">=2000"].as_f64(), Some(0.2));
}

#[test]
fn percentile_list_ends_at_zero_like_fio() {
    let mut r = json_support::report();
    r.jobs[0].percentile_list = vec![50.0, 0.0, 99.0];
    let v: Value = serde_json::from_str(&render(&r, false)).unwrap();
    let p = v["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap();
    assert_eq!(p.keys().collect::<Vec<_>>(), vec!["50.000000"]);
    r.jobs[0].percentile_list = vec![0.0, 50.0];
    let text = render(&r, true);
    assert!(
        text.contains("\"percentile\" : {\n\n          },"),
        "empty object as fio prints it"
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v["jobs"][0]["read"]["clat_ns"]["bins"].is_object());
}
