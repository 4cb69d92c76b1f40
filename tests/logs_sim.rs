//! fio-format logs written during the run, checked against the run itself on the
//! simulated device in virtual time (where every window is known in advance).

mod common;
use common::*;
use std::path::Path;

fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect()
}

fn num(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

/// A 10 s (virtual) random-read job on the simulated device with every log on.
fn sim_run(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let prefix = file_in(dir, "s");
    let mut args = vec![
        "--name=t".to_string(),
        "--ioengine=sim".into(),
        "--clocksource=virtual".into(),
        "--sim_lat=fixed:100us".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=64M".into(),
        "--time_based".into(),
        "--runtime=10s".into(),
        format!("--write_bw_log={prefix}"),
        format!("--write_iops_log={prefix}"),
        format!("--write_lat_log={prefix}"),
        format!("--write_hist_log={prefix}"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run_json(&a)
}

#[test]
fn averaged_logs_match_the_run() {
    let d = scratch();
    let v = sim_run(d.path(), &["--log_avg_msec=1000"]);
    let (bytes, ios) = dir_counts(&v, "read");
    let clat_mean = v["jobs"][0]["read"]["clat_ns"]["mean"].as_f64().unwrap();
    for kind in ["bw", "iops", "slat", "clat", "lat", "clat_hist"] {
        let r = rows(&d.path().join(format!("s_{kind}.1.log")));
        // One entry per second of virtual time, stamped at the window's end.
        assert_eq!(r.len(), 10, "{kind}");
        for (i, row) in r.iter().enumerate() {
            assert_eq!(num(&row[0]), (i as u64 + 1) * 1000, "{kind} {row:?}");
        }
    }
    let iops = rows(&d.path().join("s_iops.1.log"));
    let bw = rows(&d.path().join("s_bw.1.log"));
    for (a, b) in iops.iter().zip(&bw) {
        assert_eq!(a.len(), 5, "time, value, ddir, bs, prio: {a:?}");
        assert_eq!(&a[2..], ["0", "0", "0"]);
        // 4 KiB I/Os: KiB/s = 4 * IOPS (both truncated from the same window).
        assert!(num(&b[1]).abs_diff(4 * num(&a[1])) <= 4, "{a:?} {b:?}");
    }
    let sum_iops: u64 = iops.iter().map(|r| num(&r[1])).sum();
    assert!(sum_iops.abs_diff(ios) <= 10, "{sum_iops} vs {ios}");
    let sum_kib: u64 = bw.iter().map(|r| num(&r[1])).sum();
    assert!(
        (sum_kib * 1024).abs_diff(bytes) <= 10 * 4096 * 4,
        "{sum_kib} KiB vs {bytes}"
    );
    // A fixed service time: every window's mean completion latency is the run's.
    for r in rows(&d.path().join("s_clat.1.log")) {
        assert!(
            (num(&r[1]) as f64 - clat_mean).abs() <= 1.0,
            "{r:?} vs {clat_mean}"
        );
    }
    // Histogram entries: time, ddir, bs, then fio's 1856 bins; the bins count every I/O.
    let hist = rows(&d.path().join("s_clat_hist.1.log"));
    let mut total = 0;
    for r in &hist {
        assert_eq!(r.len(), 3 + 1856);
        assert_eq!(&r[1..3], ["0", "4096"]);
        total += r[3..].iter().map(|x| num(x)).sum::<u64>();
    }
    assert_eq!(total, ios);
}

#[test]
fn optional_columns_and_coarseness() {
    let d = scratch();
    sim_run(
        d.path(),
        &[
            "--log_avg_msec=2000",
            "--log_hist_msec=5000",
            "--log_hist_coarseness=3",
            "--log_window_value=both",
            "--log_offset=1",
            "--log_prio=1",
            "--log_issue_time=1",
        ],
    );
    let clat = rows(&d.path().join("s_clat.1.log"));
    assert_eq!(clat.len(), 5);
    for r in &clat {
        // time, avg, max, ddir, bs, offset, prio, issue_time
        assert_eq!(r.len(), 8, "{r:?}");
        assert!(num(&r[2]) >= num(&r[1]), "max below avg: {r:?}");
        assert_eq!(&r[3..], ["0", "0", "0", "0x0000", "0"]);
    }
    let hist = rows(&d.path().join("s_clat_hist.1.log"));
    assert_eq!(hist.len(), 2);
    assert!(hist.iter().all(|r| r.len() == 3 + 1856 / 8));
}

#[test]
fn max_value_unix_epoch_and_shared_files() {
    let d = scratch();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    sim_run(
        d.path(),
        &[
            "--log_avg_msec=1000",
            "--log_max_value=1",
            "--log_unix_epoch=1",
            "--per_job_logs=0",
            "--numjobs=2",
        ],
    );
    // per_job_logs=0: one file for both threads, no thread number in the name.
    assert!(!d.path().join("s_lat.1.log").exists());
    let lat = rows(&d.path().join("s_lat.log"));
    assert_eq!(lat.len(), 20);
    for r in &lat {
        let t = num(&r[0]);
        assert!(
            t >= now_ms && t < now_ms + 3_600_000,
            "not a Unix time in ms: {t}"
        );
    }
}

#[test]
fn logs_need_a_prefix_and_known_values() {
    for bad in [
        "--write_bw_log=",
        "--log_hist_coarseness=7",
        "--log_window_value=median",
    ] {
        let out = ferrio()
            .args(["--name=t", "--ioengine=null", "--size=1M", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad} accepted");
    }
}
