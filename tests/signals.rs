//! SIGINT/SIGTERM end the run gracefully: the results gathered so far are printed in
//! full (valid JSON), stderr says which signal ended it, and the exit code is fio's 128
//! so scripts can tell an interrupted run from a complete one.

mod common;
use common::*;
use std::time::{Duration, Instant};

fn interrupted(sig: &str, number: i32) {
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128), "exit code; stderr: {stderr}");
    assert!(
        stderr.contains(&format!("ferrio: terminating on signal {number}")),
        "{stderr}"
    );
    // The whole of stdout is one JSON document: nothing else was printed into it.
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{text}"));
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(ios > 0, "interrupted run must still report the I/O it did");
}

#[test]
fn normal_output_is_complete_after_sigint() {
    let out = run_signalled(
        &[
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=60",
        ],
        Duration::from_millis(700),
        "-INT",
    );
    assert_eq!(out.status.code(), Some(128));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Run status group 0 (all jobs):"), "{text}");
    assert!(
        !text.contains("terminating"),
        "the signal line goes to stderr: {text}"
    );
}

#[test]
fn a_run_that_ends_on_its_own_exits_0() {
    // The exit code tells the two apart: no signal, no message, 0.
    let out = ferrio()
        .args(["--name=t", "--ioengine=null", "--size=1m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("terminating"));
}

#[test]
fn sigint_stops_and_reports() {
    interrupted("-INT", 2);
}

#[test]
fn sigterm_stops_and_reports() {
    interrupted("-TERM", 15);
}

#[test]
fn a_signal_while_laying_out_stops_and_leaves_no_half_file() {
    // A large file to lay out (written with data, as a read job needs): the signal
    // lands while it is being filled (8 GiB take this machine several seconds), or
    // (on a very fast disk) during the run.
    let d = scratch();
    let f = file_in(d.path(), "big");
    let out = run_signalled(
        &[
            "--name=t",
            "--rw=read",
            "--size=8g",
            "--time_based",
            "--runtime=60",
            &format!("--filename={f}"),
            "--output-format=json",
        ],
        Duration::from_millis(700),
        "-TERM",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128), "{stderr}");
    assert!(stderr.contains("terminating on signal 15"), "{stderr}");
    // Either way there is a report, as fio's: during the layout, the job with no I/O
    // and no error (a script reading it still gets one).
    let v = parse_json(&out.stdout);
    let job = &v["jobs"][0];
    assert_eq!(job["error"], 0, "{v}");
    match std::fs::metadata(&f) {
        // The half-laid-out file is removed; the job did nothing.
        Err(_) => {
            assert_eq!(job["read"]["io_bytes"], 0, "{v}");
            assert_eq!(job["job_runtime"], 0, "{v}");
        }
        Ok(m) => assert_eq!(m.len(), 8 << 30, "never a half-laid-out file"),
    }
}

#[test]
fn a_long_think_time_or_a_low_rate_does_not_hold_up_a_signal() {
    // A paced job spends nearly all its time waiting; the wait must notice the stop
    // request. Without that, these runs would end only after their 60 s think time
    // (or their next I/O, due 16 s later at rate=4k with 64 KiB blocks) — the bound is that
    // functional difference, not a performance figure.
    for pace in [
        ["--thinktime=60s", "--thinktime_blocks=1"],
        ["--rate=4k", "--bs=64k"],
    ] {
        let t = Instant::now();
        let mut args = vec![
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=120",
            "--output-format=json",
        ];
        args.extend(pace);
        let out = run_signalled(&args, Duration::from_millis(1500), "-TERM");
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{pace:?}: the wait held up the signal for {:?}",
            t.elapsed()
        );
        assert_eq!(out.status.code(), Some(128), "{pace:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert!(
            v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() >= 1,
            "{pace:?}"
        );
    }
}

/// Each run removes the signal handlers it registered when it ends, so a sweep of many
/// points (or a server taking run after run) does not pile them up: with the test-only
/// FERRIO_TEST_REPORT_SIGNALS each run says at its end how many it registered and
/// removed, and every point of a 64-point sweep registered the same few and removed
/// all of them.
#[test]
fn a_sweep_removes_each_points_signal_handlers() {
    let out = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=4k",
            "--bs=4k",
            "--sweep=iodepth=1..64",
            "--output-format=json",
        ])
        .env("FERRIO_TEST_REPORT_SIGNALS", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ends: Vec<(usize, usize)> = stderr
        .lines()
        .filter_map(|l| l.split_once("signal handlers: "))
        .map(|(_, rest)| {
            let w: Vec<&str> = rest.split_whitespace().collect();
            assert_eq!(w[1..5], ["registered", "for", "the", "run,"], "{rest}");
            (w[0].parse().unwrap(), w[5].parse().unwrap())
        })
        .collect();
    assert_eq!(ends.len(), 64, "{stderr}");
    let (registered, _) = ends[0];
    assert!((1..=8).contains(&registered), "{ends:?}");
    assert!(
        ends.iter().all(|&e| e == (registered, registered)),
        "{ends:?}"
    );
}
