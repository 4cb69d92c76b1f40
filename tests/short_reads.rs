//! fio's residual rules (issue 11): a read that moves nothing before the end of the
//! region is an error (EIO, fio's "full resid"), never a counted I/O.

mod common;
use common::*;
use std::time::Duration;

#[test]
fn a_file_truncated_under_a_running_read_job_stops_it_with_eio() {
    truncated_under("psync", 1);
}

#[test]
fn the_same_with_an_asynchronous_engine() {
    // fio counts zero-byte asynchronous completions; ferrio stops as with psync.
    truncated_under("libaio", 8);
}

fn truncated_under(engine: &str, iodepth: u32) {
    let d = scratch();
    let file = file_in(d.path(), "data");
    std::fs::write(&file, vec![7u8; 16 << 20]).unwrap();
    let child = ferrio()
        .args([
            "--name=t",
            &format!("--filename={file}"),
            &format!("--ioengine={engine}"),
            &format!("--iodepth={iodepth}"),
            "--rw=read",
            "--bs=4k",
            "--size=16M",
            "--time_based",
            "--runtime=60s",
            "--invalidate=0",
            "--output-format=json",
            &format!("--write_iops_log={}", file_in(d.path(), "started")),
            "--log_avg_msec=50",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Truncate only once the job is reading (its IOPS log has an entry), however
    // slowly a loaded machine starts it: truncating before its open would test a
    // different path.
    wait_for_log_entry(&d.path().join("started_iops.1.log"));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let started = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    // Stopped by the error, not by the 60 s runtime.
    assert!(started.elapsed() < Duration::from_secs(30));
    let v = parse_json(&out.stdout);
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 5, "{}", String::from_utf8_lossy(&out.stderr));
    let (bytes, ios) = dir_counts(&v, "read");
    // Every completed I/O is a whole 4 KiB one; the reads that moved nothing moved no
    // bytes but were issued, so (as in fio's issued count) they are in total_ios: the
    // one that stopped a psync job, at most iodepth with libaio.
    assert!(ios > 0);
    assert_eq!(bytes % 4096, 0);
    let failed = ios - bytes / 4096;
    assert!(
        (1..=u64::from(iodepth)).contains(&failed),
        "{failed} failed reads"
    );
    assert!(!out.status.success());
}

/// Wait (at most 60 s) until the job's IOPS log at `path` has an entry: the job has
/// been reading for a while (entries reach the disk about once a second).
fn wait_for_log_entry(path: &std::path::Path) {
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(path).map_or(true, |t| t.lines().next().is_none()) {
        assert!(
            std::time::Instant::now() < until,
            "no IOPS log entry in 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
