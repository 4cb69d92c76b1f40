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
    std::thread::sleep(Duration::from_millis(2500));
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
