//! Steady-state rules end to end, on the simulated device in virtual time (fixed
//! 80 µs service time at depth 1: every interval has exactly the same IOPS, bandwidth
//! and latency, so every window is perfectly flat):
//!
//! * fio's strict `<` (fio 3.33 steadystate.c, `steadystate_slope` and
//!   `steadystate_deviation`): a flat window has slope and deviation exactly 0, so a
//!   limit of 0 is never met, and any positive limit is met at the first full window.
//! * the JSON object's key names, order and types: fio's keys as fio prints them
//!   (fio 3.33 for iops/bw criteria; fio 3.42 stat.c, where `lat` criteria appeared,
//!   for `data.lat_mean` and `data.lat_ns`), and every key documented in
//!   docs/steadystate.md present under that name.

mod common;
use common::*;
use serde_json::Value;

/// A flat job: `runtime` virtual seconds, `ss_dur=2`, plus the criterion.
fn flat(crit: &str, extra: &[&str]) -> (Value, String) {
    let ss = format!("--ss={crit}");
    let mut a = vec![
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--time_based",
        "--runtime=6",
        "--ss_dur=2",
        &ss,
        "--output-format=json",
    ];
    a.extend_from_slice(extra);
    let out = run_ok(&a);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (parse_json(&out.stdout), text)
}

#[test]
fn a_criterion_equal_to_its_limit_is_never_met() {
    for (never, at_once) in [
        ("iops_slope:0", "iops_slope:1"),
        ("bw_slope:0", "bw_slope:1"),
        ("iops:0", "iops:1"),
        ("bw:0%", "bw:0.5%"),
        ("iops_slope:0%", "iops_slope:0.1%"),
        ("lat:0", "lat:1"),
        ("lat_slope:0", "lat_slope:1"),
        ("clat_p99_slope:0", "clat_p99_slope:1"),
        ("clat_p50:0", "clat_p50:1"),
    ] {
        let (v, _) = flat(never, &[]);
        let j = &v["jobs"][0];
        let s = &j["steadystate"];
        assert!(
            s["criterion"].as_str().unwrap().starts_with("0.000000"),
            "{never}: the window is flat: {s}"
        );
        assert_eq!(s["attained"], 0, "{never}: 0 < 0 is false (fio: <): {s}");
        assert_eq!(
            j["job_runtime"], 6000,
            "{never}: runs its whole runtime: {j}"
        );
        let (v, _) = flat(at_once, &[]);
        let j = &v["jobs"][0];
        assert_eq!(j["steadystate"]["attained"], 1, "{at_once}: {j}");
        assert!(
            j["job_runtime"].as_u64().unwrap() < 6000,
            "{at_once}: stops early: {j}"
        );
    }
}

/// The keys of the object that starts at `text[start]` (`{`), in document order, at
/// its top level only.
fn keys_in_order(text: &str, start: usize) -> Vec<String> {
    let b = text.as_bytes();
    assert_eq!(b[start], b'{');
    let (mut depth, mut i, mut keys) = (0i32, start, Vec::new());
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                let s = i + 1;
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let after = text[i + 1..].trim_start();
                if depth == 1 && after.starts_with(':') {
                    keys.push(text[s..i].to_string());
                }
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

/// Where the value of `"key"` (an object) starts, searching from `from`.
fn object_at(text: &str, key: &str, from: usize) -> usize {
    let k = text[from..]
        .find(&format!("\"{key}\""))
        .unwrap_or_else(|| panic!("no {key}"))
        + from;
    k + text[k..].find('{').unwrap()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(n) if n.is_u64() || n.is_i64() => "int",
        Value::Number(_) => "float",
        Value::Array(a) if a.iter().all(|x| x.is_u64()) => "int[]",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        _ => "other",
    }
}

#[test]
fn fio_keys_in_fios_order_and_types() {
    // fio 3.33 stat.c show_thread_status_json: ss, duration, attained, criterion,
    // max_deviation, slope, data{bw_mean, iops_mean, iops[], bw[]}; fio 3.42 adds
    // lat_mean and lat_ns[] after iops_mean for lat criteria.
    let fio_top = [
        ("ss", "string"),
        ("duration", "int"),
        ("attained", "int"),
        ("criterion", "string"),
        ("max_deviation", "float"),
        ("slope", "float"),
        ("data", "object"),
    ];
    for (crit, data_keys) in [
        (
            "iops:10%",
            &[
                ("bw_mean", "int"),
                ("iops_mean", "int"),
                ("iops", "int[]"),
                ("bw", "int[]"),
            ][..],
        ),
        (
            "lat:10%",
            &[
                ("bw_mean", "int"),
                ("iops_mean", "int"),
                ("lat_mean", "int"),
                ("lat_ns", "int[]"),
                ("iops", "int[]"),
                ("bw", "int[]"),
            ][..],
        ),
        (
            "lat_slope:1",
            &[
                ("bw_mean", "int"),
                ("iops_mean", "int"),
                ("lat_mean", "int"),
                ("lat_ns", "int[]"),
                ("iops", "int[]"),
                ("bw", "int[]"),
            ][..],
        ),
    ] {
        let (v, text) = flat(crit, &[]);
        let s = &v["jobs"][0]["steadystate"];
        let at = object_at(&text, "steadystate", 0);
        let top = keys_in_order(&text, at);
        let want: Vec<&str> = fio_top.iter().map(|(k, _)| *k).collect();
        assert_eq!(&top[..want.len()], &want[..], "{crit}: fio's keys first");
        for (k, t) in fio_top {
            assert_eq!(kind(&s[k]), t, "{crit}: {k} = {}", s[k]);
        }
        let data = keys_in_order(&text, object_at(&text, "data", at));
        let want: Vec<&str> = data_keys.iter().map(|(k, _)| *k).collect();
        assert_eq!(data, want, "{crit}: data keys");
        for (k, t) in data_keys {
            assert_eq!(kind(&s["data"][k]), *t, "{crit}: data.{k}");
        }
        if crit.starts_with("lat") {
            // The mean latency of a flat 80 µs window: every entry the same.
            let lat = s["data"]["lat_ns"].as_array().unwrap();
            assert_eq!(lat.len(), 2);
            assert!(lat.iter().all(|x| x == &s["data"]["lat_mean"]), "{s}");
        }
    }
}

/// The first backticked name of each row of docs/steadystate.md's JSON key table.
fn documented_keys() -> Vec<String> {
    let doc = include_str!("../docs/steadystate.md");
    let table = &doc[doc.find("| key | meaning |").expect("the JSON key table")..];
    let mut out = Vec::new();
    for line in table.lines().skip(2) {
        if !line.starts_with('|') {
            break;
        }
        let cell = line.split('|').nth(1).unwrap();
        for name in cell.split('`').skip(1).step_by(2) {
            out.push(name.to_string());
        }
    }
    out
}

#[test]
fn every_documented_key_is_present_under_its_name() {
    let docs = documented_keys();
    assert!(docs.len() > 10, "{docs:?}");
    // A mixed job with a lat criterion and a second criterion: every optional part
    // of the object is there.
    let (v, _) = flat("lat:10%,write_iops:50%", &["--rw=randrw"]);
    let s = &v["jobs"][0]["steadystate"];
    let top: Vec<&String> = s.as_object().unwrap().keys().collect();
    let data: Vec<&String> = s["data"].as_object().unwrap().keys().collect();
    let mut doc_top = Vec::new();
    let mut doc_data = Vec::new();
    for k in &docs {
        let k = k.trim_end_matches("[]");
        match k.split_once('.') {
            Some(("data", rest)) => {
                doc_top.push("data".to_string());
                doc_data.push(rest.trim_end_matches("[]").to_string())
            }
            Some((head, _)) => doc_top.push(head.to_string()),
            None => doc_top.push(k.to_string()),
        }
    }
    for k in &doc_top {
        assert!(s.get(k).is_some(), "documented key {k} missing: {s}");
    }
    for k in &doc_data {
        assert!(s["data"].get(k).is_some(), "documented data.{k} missing");
    }
    for k in top {
        assert!(doc_top.contains(k), "undocumented key {k}");
    }
    for k in data {
        assert!(doc_data.contains(k), "undocumented key data.{k}");
    }
    for d in ["read", "write"] {
        assert!(s["dir_data"][d].is_object(), "dir_data.{d}: {s}");
        for l in ["clat_ns", "lat_ns"] {
            assert!(s["window_latency"][d][l]["N"].as_u64().unwrap() > 0);
        }
    }
    assert_eq!(s["criteria"].as_array().unwrap().len(), 2);
}
