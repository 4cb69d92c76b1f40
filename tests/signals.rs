//! SIGINT/SIGTERM end the run gracefully and the results gathered so far are printed.

mod common;
use common::*;
use std::time::{Duration, Instant};

fn interrupted(sig: &str) {
    let t = Instant::now();
    let out = run_signalled(
        &[
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=60",
            "--output-format=json",
        ],
        Duration::from_millis(700),
        sig,
    );
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "did not stop promptly"
    );
    let v = parse_json(&out.stdout);
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(ios > 0, "interrupted run must still report the I/O it did");
}

#[test]
fn sigint_stops_and_reports() {
    interrupted("-INT");
}

#[test]
fn sigterm_stops_and_reports() {
    interrupted("-TERM");
}
