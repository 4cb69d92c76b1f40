//! Flow control across jobs (flow=, flow_id=, flow_sleep=; docs/pacing.md): jobs of
//! one flow group issue in proportion to their weights, as fio 3.33's do. The share
//! is enforced by a shared counter, not by time, so it holds on any machine (up to
//! the few I/Os a job issues before the other starts or after it stops).

mod common;
use common::*;
use serde_json::Value;

/// The first job's share of the I/Os of both.
fn share(v: &Value) -> f64 {
    let n: Vec<f64> = (0..2)
        .map(|i| v["jobs"][i]["read"]["total_ios"].as_f64().unwrap())
        .collect();
    assert!(n[0] > 1000.0 && n[1] > 1000.0, "{n:?}");
    n[0] / (n[0] + n[1])
}

fn job() -> String {
    jobs_dir().join("flow.fio").to_string_lossy().into_owned()
}

#[test]
fn jobs_of_a_flow_group_issue_in_proportion_to_their_weights() {
    let s = share(&run_json(&[&job()]));
    assert!((s - 0.25).abs() < 0.02, "{s}");
    // flow_sleep: a held job empties its queue and sleeps instead of yielding; the
    // shares are the same.
    let dir = scratch();
    let text = std::fs::read_to_string(job()).unwrap();
    let slept = dir.path().join("flow_sleep.fio");
    std::fs::write(
        &slept,
        text.replace("flow_id=7", "flow_id=7\nflow_sleep=50"),
    )
    .unwrap();
    let s = share(&run_json(&[&path_str(&slept)]));
    assert!((s - 0.25).abs() < 0.02, "{s}");
}

#[test]
fn fio_shares_the_same_way() {
    if !have_fio() {
        return;
    }
    let s = share(&fio_json(&[&job()]));
    assert!((s - 0.25).abs() < 0.02, "fio: {s}");
}

#[test]
fn flow_weights_are_checked_as_fio_checks_them() {
    let out = ferrio()
        .args(["--name=x", "--ioengine=null", "--size=1m", "--flow=1001"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("flow"), "{err}");
}
