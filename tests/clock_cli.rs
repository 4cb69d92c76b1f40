//! The clock as a user meets it: clocksource=, --cpuclock-test, --clock-bench.

mod common;
use common::*;

#[test]
fn every_clocksource_runs_and_counts_exactly() {
    for cs in ["cpu", "clock_gettime", "gettimeofday"] {
        let v = run_json(&[
            "--name=c",
            "--ioengine=null",
            "--size=4M",
            &format!("--clocksource={cs}"),
        ]);
        assert_eq!(dir_counts(&v, "read"), (4 << 20, 1024), "{cs}");
        assert_eq!(
            v["clocksource"].as_str(),
            Some(cs),
            "JSON names the clock used"
        );
        let clat = &v["jobs"][0]["read"]["clat_ns"];
        assert_eq!(clat["N"].as_u64(), Some(1024), "{cs}");
    }
}

#[test]
fn unknown_clocksource_is_rejected_with_the_allowed_values() {
    let out = ferrio()
        .args([
            "--name=c",
            "--ioengine=null",
            "--size=4M",
            "--clocksource=sundial",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("clocksource") && err.contains("clock_gettime"),
        "{err}"
    );
}

#[test]
fn cpuclock_test_prints_a_table_and_a_verdict() {
    let out = ferrio().arg("--cpuclock-test").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Exit code and verdict agree: 0 with "Pass!", 1 with "Failed".
    if out.status.success() {
        assert!(text.contains("Pass!"), "{text}");
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert!(text.contains("Failed"), "{text}");
    }
    for strategy in ["none", "lock-or", "lfence", "mfence", "rdtscp"] {
        if cfg!(target_arch = "x86_64") {
            assert!(text.contains(strategy), "no {strategy} row:\n{text}");
        }
    }
}

#[test]
fn clock_bench_lists_every_source() {
    let out = run_ok(&["--clock-bench"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for s in ["clock_gettime", "gettimeofday", "virtual"] {
        assert!(text.contains(s), "{text}");
    }
}
