//! Logs are written while the run goes on: a run killed outright (SIGKILL, no chance
//! to clean up) still leaves every entry older than about a second on disk.

mod common;
use common::*;
use std::time::Duration;

#[test]
fn a_killed_run_keeps_its_log() {
    let d = scratch();
    let prefix = file_in(d.path(), "k");
    let mut child = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=30s",
            &format!("--write_iops_log={prefix}"),
            &format!("--write_hist_log={prefix}"),
            "--log_avg_msec=100",
            "--output=/dev/null",
        ])
        .spawn()
        .unwrap();
    // Entries must reach the disk while the run goes on: wait for the first second's
    // worth in both logs (however slowly a loaded machine starts the job), then kill.
    let iops = d.path().join("k_iops.1.log");
    let hist = d.path().join("k_clat_hist.1.log");
    let lines_in = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let until = std::time::Instant::now() + Duration::from_secs(25);
    while (lines_in(&iops) < 9 || lines_in(&hist) < 9) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let text = std::fs::read_to_string(d.path().join("k_iops.1.log")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // At least the entries up to the first flush (1 s of 100 ms windows), all whole.
    assert!(lines.len() >= 9, "only {} entries:\n{text}", lines.len());
    assert!(text.ends_with('\n'));
    for l in &lines {
        assert_eq!(l.split(", ").count(), 5, "{l}");
    }
    let hist = std::fs::read_to_string(d.path().join("k_clat_hist.1.log")).unwrap();
    assert!(hist.lines().count() >= 9);
}
