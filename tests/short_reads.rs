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
    use std::io::BufRead;
    let d = scratch();
    let file = file_in(d.path(), "data");
    std::fs::write(&file, vec![7u8; 16 << 20]).unwrap();
    let mut child = ferrio()
        .args([
            "--name=t",
            &format!("--filename={file}"),
            &format!("--ioengine={engine}"),
            &format!("--iodepth={iodepth}"),
            "--rw=read",
            "--bs=4k",
            "--size=16M",
            "--time_based",
            "--runtime=20s",
            "--invalidate=0",
            "--status-interval=200ms",
            "--json-lines",
            "--output-format=json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Cut the file once the job is reading it (a periodic report with I/O in it), not
    // after a fixed delay: on a loaded machine the job may not have started by then.
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut text = String::new();
    let mut reading = false;
    for line in lines.by_ref() {
        let line = line.unwrap();
        text.push_str(&line);
        text.push('\n');
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["cumulative"]["jobs"][0]["read"]["total_ios"].as_u64() > Some(0) {
            reading = true;
            break;
        }
    }
    assert!(reading, "the job never reported reading: {text}");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let started = std::time::Instant::now();
    for line in lines {
        text.push_str(&line.unwrap());
        text.push('\n');
    }
    let out = child.wait_with_output().unwrap();
    // Stopped by the error, not by the 20 s runtime.
    assert!(started.elapsed() < Duration::from_secs(15));
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["ferrio_report"], "final", "{text}");
    let v = &last["cumulative"];
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 5, "{}", String::from_utf8_lossy(&out.stderr));
    let (bytes, ios) = dir_counts(v, "read");
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
