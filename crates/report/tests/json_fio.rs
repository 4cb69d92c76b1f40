//! ferrio's JSON against real fio 3.33 output (tests/golden/json_fio333_*.json, see
//! json_fio333_captures.txt for the commands).
//!
//! Each test rebuilds a RunReport from a captured fio document: byte counts, runtimes,
//! options and distributions from their fields, latency histograms from the json+
//! "bins" (with fio's exact min and max). It then renders the report and compares it
//! with fio's text line by line. Only latency "mean"/"stddev" cannot be rebuilt from
//! the bins, so only their values are masked. This checks key names, order and
//! nesting, number format, which keys are left out, and that ferrio's percentiles
//! computed from the same buckets equal fio's.

use ferrio_report::json::render;
use ferrio_report::model::*;
use ferrio_stats::{LatencyHistogram, SampleStats};
use serde_json::Value;

fn golden(name: &str) -> String {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Undo fio's string escaping (`\"` and `\\`).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            out.extend(it.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// The (key, value) pairs of the `nth` object named `key`, in document order (serde_json
/// does not keep order, option order matters).
fn ordered_pairs(text: &str, key: &str, nth: usize) -> Vec<(String, String)> {
    let opener = format!("\"{key}\" : {{");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == opener)
        .nth(nth)
        .map(|(i, _)| i + 1);
    let mut out = Vec::new();
    let Some(start) = start else { return out };
    for l in &lines[start..] {
        let t = l.trim().trim_end_matches(',');
        if t.starts_with('}') {
            break;
        }
        let (k, v) = t.split_once("\" : \"").expect("string pair");
        out.push((unescape(&k[1..]), unescape(&v[..v.len() - 1])));
    }
    out
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// A histogram with fio's buckets, and fio's exact min and max.
fn histogram(lat: &Value) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    let n = u(&lat["N"]);
    if n == 0 {
        return h;
    }
    let (min, max) = (u(&lat["min"]), u(&lat["max"]));
    let Some(bins) = lat["bins"].as_object() else {
        // No bins (no percentiles asked, or plain json): only min, max and N can be
        // rebuilt, which is all fio prints then besides the masked moments.
        h.record(min);
        if n > 1 {
            h.record(max);
            h.record_n(min, n - 2);
        }
        return h;
    };
    let mut bins: Vec<(u64, u64)> = bins
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), u(v)))
        .collect();
    bins.sort_unstable();
    let last = bins.len() - 1;
    for (i, &(rep, mut c)) in bins.iter().enumerate() {
        if i == 0 {
            h.record(min);
            c -= 1;
        }
        if i == last && c > 0 {
            h.record(max);
            c -= 1;
        }
        h.record_n(rep, c);
    }
    assert_eq!(h.count(), n);
    h
}

/// Counts that print as fio's percentages of `total` (with fio's minimum display).
fn counts<const N: usize>(pcts: &Value, keys: &[&str], total: u64) -> [u64; N] {
    let mut out = [0u64; N];
    for (o, k) in out.iter_mut().zip(keys) {
        let p = pcts[*k].as_f64().unwrap();
        *o = (p * total as f64 / 100.0).round() as u64;
        if p > 0.0 && *o == 0 {
            *o = 1;
        }
    }
    out
}

/// bw/IOPS sample statistics with fio's samples, min, max and mean. With up to three
/// samples these determine the series (fio's samples are integers), so the printed
/// stddev matches too; the captures stay within that.
fn samples(d: &Value, n: &str, min: &str, max: &str, mean: &str) -> SampleStats {
    let n = u(&d[n]);
    let (lo, hi, mean) = (
        u(&d[min]) as f64,
        u(&d[max]) as f64,
        d[mean].as_f64().unwrap(),
    );
    let mut s = SampleStats::default();
    assert!(n <= 3, "cannot rebuild {n} samples");
    if n >= 1 {
        s.add(lo);
    }
    if n == 3 {
        s.add((3.0 * mean - lo - hi).round());
    }
    if n >= 2 {
        s.add(hi);
    }
    s
}

fn percentile_list(job: &Value) -> Vec<f64> {
    for d in ["read", "write", "trim"] {
        for l in ["slat_ns", "clat_ns", "lat_ns"] {
            if let Some(p) = job[d][l]["percentile"].as_object() {
                return p.keys().map(|k| k.parse().unwrap()).collect();
            }
        }
    }
    vec![
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ]
}

fn has_pct(job: &Value, lat: &str) -> bool {
    ["read", "write", "trim"]
        .iter()
        .any(|d| job[d][lat].get("percentile").is_some())
}

fn report_from_fio(text: &str) -> RunReport {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut r = RunReport {
        version: v["fio version"].as_str().unwrap().into(),
        timestamp: u(&v["timestamp"]),
        timestamp_ms: u(&v["timestamp_ms"]),
        time: v["time"].as_str().unwrap().into(),
        ..Default::default()
    };
    if v.get("global options").is_some() {
        r.global_options = ordered_pairs(text, "global options", 0);
    }
    for (ji, j) in v["jobs"].as_array().unwrap().iter().enumerate() {
        let mut job = JobReport {
            name: j["jobname"].as_str().unwrap().into(),
            groupid: u(&j["groupid"]) as u32,
            error: j["error"].as_i64().unwrap() as i32,
            elapsed_s: u(&j["elapsed"]),
            job_options: ordered_pairs(text, "job options", ji),
            description: j.get("desc").map(|d| d.as_str().unwrap().to_string()),
            job_runtime_ms: u(&j["job_runtime"]),
            usr_cpu: j["usr_cpu"].as_f64().unwrap(),
            sys_cpu: j["sys_cpu"].as_f64().unwrap(),
            ctx: u(&j["ctx"]),
            majf: u(&j["majf"]),
            minf: u(&j["minf"]),
            percentile_list: percentile_list(j),
            clat_percentiles: has_pct(j, "clat_ns"),
            lat_percentiles: has_pct(j, "lat_ns"),
            slat_percentiles: has_pct(j, "slat_ns"),
            iodepth: j.get("latency_depth").map_or(0, |d| u(d) as u32),
            errors: j.get("total_err").map(|t| ErrorTotals {
                total: u(t),
                first_error: u(&j["first_error"]) as i32,
            }),
            ..Default::default()
        };
        // sync percentiles follow clat || lat, which the dirs may not reveal.
        if j["sync"]["lat_ns"].get("percentile").is_some() && !job.lat_percentiles {
            job.clat_percentiles = true;
        }
        for (i, d) in ["read", "write", "trim"].iter().enumerate() {
            let jd = &j[*d];
            job.dir[i] = DirReport {
                io_bytes: u(&jd["io_bytes"]),
                total_ios: u(&jd["total_ios"]),
                short_ios: u(&jd["short_ios"]),
                drop_ios: u(&jd["drop_ios"]),
                runtime_ms: u(&jd["runtime"]),
                slat: histogram(&jd["slat_ns"]),
                clat: histogram(&jd["clat_ns"]),
                lat: histogram(&jd["lat_ns"]),
                ..Default::default()
            };
            job.dir[i].bw_samples = samples(jd, "bw_samples", "bw_min", "bw_max", "bw_mean");
            job.dir[i].iops_samples =
                samples(jd, "iops_samples", "iops_min", "iops_max", "iops_mean");
        }
        job.sync = SyncReport {
            total_ios: u(&j["sync"]["total_ios"]),
            lat: histogram(&j["sync"]["lat_ns"]),
        };
        let total: u64 = job.dir.iter().map(|d| d.total_ios).sum();
        let lvl = ["1", "2", "4", "8", "16", "32", ">=64"];
        let map = ["0", "4", "8", "16", "32", "64", ">=64"];
        let lat = [
            "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
        ];
        job.depth.level = counts(&j["iodepth_level"], &lvl, total);
        job.depth.submit = counts(&j["iodepth_submit"], &map, total);
        job.depth.complete = counts(&j["iodepth_complete"], &map, total);
        job.depth.total_submit = total;
        job.depth.total_complete = total;
        job.lat_buckets.ns = counts(&j["latency_ns"], &lat, total);
        job.lat_buckets.us = counts(&j["latency_us"], &lat, total);
        job.lat_buckets.ms = counts(&j["latency_ms"], &lat, total);
        r.jobs.push(job);
    }
    // fio's group aggregate: all bytes of the group over its longest runtime.
    let mut gids: Vec<u32> = r.jobs.iter().map(|j| j.groupid).collect();
    gids.dedup();
    for gid in gids {
        let mut g = GroupReport {
            groupid: gid,
            ..Default::default()
        };
        for (i, gd) in g.dir.iter_mut().enumerate() {
            let jobs = r.jobs.iter().filter(|j| j.groupid == gid);
            gd.io_bytes = jobs.clone().map(|j| j.dir[i].io_bytes).sum();
            gd.max_run_ms = jobs.map(|j| j.dir[i].runtime_ms).max().unwrap_or(0);
            gd.agg_bw = (gd.io_bytes * 1000).checked_div(gd.max_run_ms).unwrap_or(0);
        }
        r.groups.push(g);
    }
    if let Some(disks) = v.get("disk_util") {
        for d in disks.as_array().unwrap() {
            r.disk_util.push(DiskUtil {
                name: d["name"].as_str().unwrap().into(),
                read_ios: u(&d["read_ios"]),
                write_ios: u(&d["write_ios"]),
                read_merges: u(&d["read_merges"]),
                write_merges: u(&d["write_merges"]),
                read_ticks: u(&d["read_ticks"]),
                write_ticks: u(&d["write_ticks"]),
                in_queue: u(&d["in_queue"]),
                util: d["util"].as_f64().unwrap(),
            });
        }
    }
    r
}

/// Mask the value of a line when `mask` says so; keep the key and the punctuation.
fn masked(line: &str, mask: &dyn Fn(&str) -> bool) -> String {
    match line.split_once(" : ") {
        Some((k, v)) if mask(k.trim()) && !v.starts_with('{') && !v.starts_with('[') => {
            format!("{k} : #{}", if v.ends_with(',') { "," } else { "" })
        }
        _ => line.to_string(),
    }
}

fn compare(fio: &str, ours: &str, mask: &dyn Fn(&str) -> bool) {
    let a: Vec<String> = fio.lines().map(|l| masked(l, mask)).collect();
    let b: Vec<String> = ours.lines().map(|l| masked(l, mask)).collect();
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        assert_eq!(x, y, "line {} differs", i + 1);
    }
    assert_eq!(a.len(), b.len(), "line count");
    assert!(ours.ends_with("}\n"));
}

fn lat_moments(k: &str) -> bool {
    k == "\"mean\"" || k == "\"stddev\""
}

#[test]
fn psync_randrw_fsync_description_global_options_jsonplus() {
    let fio = golden("json_fio333_psync_plus.json");
    let ours = render(&report_from_fio(&fio), true);
    compare(&fio, &ours, &lat_moments);
}

#[test]
fn null_time_based_with_bw_and_iops_samples_jsonplus() {
    let fio = golden("json_fio333_null_timebased_plus.json");
    let ours = render(&report_from_fio(&fio), true);
    compare(&fio, &ours, &lat_moments);
    assert!(ours.contains("\"bw_samples\" : 3,"));
}

#[test]
fn null_group_reporting_lat_and_slat_percentiles_jsonplus() {
    let fio = golden("json_fio333_null_group_plus.json");
    let ours = render(&report_from_fio(&fio), true);
    compare(&fio, &ours, &lat_moments);
}

/// Plain json has no bins to rebuild the histograms from: compare the layout (every
/// key, in order, and the number formats) with the percentile values masked.
#[test]
fn null_write_plain_json_layout() {
    let fio = golden("json_fio333_null_write.json");
    let ours = render(&report_from_fio(&fio), false);
    let percentile_or_moment =
        |k: &str| lat_moments(k) || k.ends_with(".000000\"") || k.ends_with("0000\"");
    compare(&fio, &ours, &percentile_or_moment);
    assert!(!ours.contains("\"bins\""));
}

/// continue_on_error: total_err and first_error sit between the latency maps and the
/// latency-target block (fio 3.33 reading EIO past a loop device's truncated file).
#[test]
fn eio_under_continue_on_error_total_err_and_first_error_jsonplus() {
    let fio = golden("json_fio333_eio_continue_plus.json");
    let ours = render(&report_from_fio(&fio), true);
    compare(&fio, &ours, &lat_moments);
    assert!(
        ours.contains("\"total_err\" : 1024,\n      \"first_error\" : 5,\n      \"latency_depth\"")
    );
}
