//! Flow control across jobs (flow=, flow_id=, flow_sleep=; docs/pacing.md): jobs of
//! one flow group issue in proportion to their weights, as fio 3.33's do. The share
//! is enforced by a shared counter, not by time, so it holds on any machine: the
//! job file ends both jobs together (exitall), so neither runs alone at the end.

mod common;
use common::*;
use serde_json::Value;

/// The first job's share of the I/Os of both.
fn share(v: &Value) -> f64 {
    let n: Vec<f64> = (0..2)
        .map(|i| v["jobs"][i]["read"]["total_ios"].as_f64().unwrap())
        .collect();
    // 'a' does its whole size (4096 I/Os), then exitall stops 'b'.
    assert_eq!(n[0], 4096.0, "{n:?}");
    n[0] / (n[0] + n[1])
}

fn job() -> String {
    jobs_dir().join("flow.fio").to_string_lossy().into_owned()
}

#[test]
fn jobs_of_a_flow_group_issue_in_proportion_to_their_weights() {
    let s = share(&run_json(&[&job()]));
    assert!((s - 0.25).abs() < 0.005, "{s}");
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
    assert!((s - 0.25).abs() < 0.005, "{s}");
    // The group is left only after exitall has stopped the others: a job slow to
    // end (here its exec_postrun takes half a second, as a loaded machine may take
    // in its teardown) must not let 'b' run unthrottled meanwhile.
    let slow = dir.path().join("flow_slow_end.fio");
    std::fs::write(
        &slow,
        text.replace("\nexitall\n", "\nexitall\nexec_postrun=sleep 0.5\n"),
    )
    .unwrap();
    // In the scratch directory: the postrun writes a.postrun.txt where it runs.
    let s = share(&run_json_in(dir.path(), &[&path_str(&slow)]));
    assert!((s - 0.25).abs() < 0.005, "{s}");
}

#[test]
fn fio_shares_the_same_way() {
    if !have_fio() {
        return;
    }
    let s = share(&fio_json(&[&job()]));
    assert!((s - 0.25).abs() < 0.005, "fio: {s}");
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
    // flow_watermark: deprecated, accepted with a warning and ignored (as fio).
    let out = ferrio()
        .args([
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--flow_watermark=5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("flow_watermark is deprecated"), "{err}");
}

/// fio 3.33 pools a flow_id across the whole run, so a job waits forever for the
/// weight of one behind a stonewall (which can start only after it ends). ferrio
/// pools the jobs that run together: both finish, each alone in its flow group.
#[test]
fn a_stonewall_starts_new_flow_groups_instead_of_hanging() {
    let child = ferrio()
        .args([
            "--output-format=json",
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--flow_id=1",
            "--flow=1",
            "--name=b",
            "--stonewall",
            "--ioengine=null",
            "--size=1m",
            "--flow_id=1",
            "--flow=1",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let limit = std::time::Duration::from_secs(60);
    let out = wait_bounded(child, limit, "a flow job behind a stonewall");
    assert_eq!(out.status.code(), Some(0));
    let v = parse_json(&out.stdout);
    for j in 0..2 {
        assert_eq!(v["jobs"][j]["read"]["total_ios"].as_u64(), Some(256), "{j}");
    }
}
