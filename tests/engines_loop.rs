//! The I/O loop's accounting shortcuts are exact: with a synchronous engine lat equals
//! clat I/O by I/O, so lat is recorded once (as clat) and copied; the report must be
//! the same as recording both.

mod common;
mod engines_support;
use common::*;
use engines_support::*;

fn lat_fields(v: &serde_json::Value, dir: &str, which: &str) -> Vec<serde_json::Value> {
    let l = &v["jobs"][0][dir][which];
    ["min", "max", "mean", "stddev", "N"]
        .iter()
        .map(|k| l[*k].clone())
        .collect()
}

#[test]
fn sync_reads_report_lat_equal_to_clat() {
    let d = scratch();
    let file = file_in(d.path(), "r");
    for engine in ["psync", "null", "mmap"] {
        let v = try_run(&job(
            &file,
            engine,
            "randread",
            1 << 20,
            4096,
            &["--lat_percentiles=1", "--clat_percentiles=1"],
        ))
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(
            lat_fields(&v, "read", "lat_ns"),
            lat_fields(&v, "read", "clat_ns"),
            "{engine}"
        );
        assert_eq!(
            v["jobs"][0]["read"]["lat_ns"]["N"].as_u64(),
            Some(256),
            "{engine}"
        );
        assert_eq!(
            v["jobs"][0]["read"]["lat_ns"]["percentile"],
            v["jobs"][0]["read"]["clat_ns"]["percentile"],
            "{engine}"
        );
    }
}

#[test]
fn scrambled_writes_keep_lat_apart_from_clat() {
    // scramble_buffers (fio's default) prepares each write buffer between the I/O's
    // generation and its issue: lat includes that time, clat does not.
    let d = scratch();
    let file = file_in(d.path(), "w");
    let v = try_run(&job(&file, "psync", "randwrite", 1 << 20, 4096, &[])).unwrap();
    let w = &v["jobs"][0]["write"];
    assert_eq!(w["lat_ns"]["N"].as_u64(), Some(256));
    assert_eq!(w["clat_ns"]["N"].as_u64(), Some(256));
    assert!(w["lat_ns"]["mean"].as_f64().unwrap() > w["clat_ns"]["mean"].as_f64().unwrap());
    // Mixed: reads keep lat == clat, writes do not; counts stay exact.
    let v = try_run(&job(&file, "psync", "randrw", 1 << 20, 4096, &[])).unwrap();
    let (ios, _) = counts(&v);
    assert_eq!(ios[0] + ios[1], 256);
    assert_eq!(
        lat_fields(&v, "read", "lat_ns"),
        lat_fields(&v, "read", "clat_ns")
    );
    assert_eq!(v["jobs"][0]["write"]["lat_ns"]["N"].as_u64(), Some(ios[1]));
}

#[test]
fn ramp_time_resets_the_shortcut_with_the_statistics() {
    let v = run_json(&[
        "--name=r",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--time_based",
        "--runtime=300ms",
        "--ramp_time=200ms",
    ]);
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["lat_ns"]["N"], r["clat_ns"]["N"]);
    assert_eq!(r["lat_ns"]["N"], r["total_ios"]);
    assert_eq!(r["lat_ns"]["mean"], r["clat_ns"]["mean"]);
}
