//! Behaviours fio's own test harness (t/run-fio-tests.py) checks at run time,
//! reproduced with small job files of our own: flow groups whose members end
//! together (the ratio holds to the end), fio master's log columns (log_issue_time,
//! log_window_value=both, per-I/O entries), and an iolog replay whose huge trims
//! size no buffers. No assertion here is about time: counts and columns only.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Run `cmd`, failing the test if it has not ended within a minute (a hang is the
/// bug some of these tests guard against).
fn run_bounded(mut cmd: Command) -> std::process::Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    common::wait_bounded(child, Duration::from_secs(60), "the run")
}

fn total_ios(v: &serde_json::Value, job: usize, dir: &str) -> u64 {
    v["jobs"][job][dir]["total_ios"].as_u64().unwrap()
}

/// A rate-limited member of weight 1 and an unlimited one of weight 4, ended by
/// their runtime: the fast one issues 4 I/Os for each of the slow one's, to the
/// end. (Before the members started their clocks together, the one that started
/// first ended first and left the other unthrottled for the skew between their
/// starts: on a loaded machine, many times the whole run's share.)
#[test]
fn a_flow_ratio_holds_to_the_end_of_the_runtime() {
    let dir = scratch();
    let job = dir.path().join("flow.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\nbs=4k\nrw=read\nsize=64g\nruntime=1\nflow_id=3\n\
         [slow]\nflow=1\nrate_iops=300\n\
         [fast]\nflow=4\n",
    )
    .unwrap();
    let v = run_json(&[&path_str(&job)]);
    let (slow, fast) = (total_ios(&v, 0, "read"), total_ios(&v, 1, "read"));
    assert!(slow > 0, "{slow} {fast}");
    let ratio = fast as f64 / slow as f64;
    assert!((3.0..=5.0).contains(&ratio), "{slow} {fast}: {ratio}");
}

/// A member that never runs (its exec_prerun fails) takes its weight out of the
/// group and does not hold the start line: the other member runs to its end
/// instead of waiting for it forever.
#[test]
fn a_flow_member_that_fails_to_start_does_not_hold_the_others() {
    let dir = scratch();
    let job = dir.path().join("flow_fail.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\nbs=4k\nrw=read\nsize=1m\nflow_id=5\n\
         [broken]\nflow=3\nexec_prerun=false\n\
         [ok]\nflow=1\n",
    )
    .unwrap();
    let mut cmd = ferrio();
    cmd.arg("--output-format=json")
        .arg(path_str(&job))
        .current_dir(dir.path());
    let out = run_bounded(cmd);
    // The broken job's error makes the run's status non-zero; the other ran.
    assert_ne!(out.status.code(), Some(0));
    let v = parse_json(&out.stdout);
    assert_eq!(total_ios(&v, 1, "read"), 256);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exec_prerun"), "{err}");
}

/// The lines of `dir/name`, each split into its columns.
fn rows(dir: &Path, name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect();
    assert!(!rows.is_empty(), "{name} is empty");
    rows
}

fn num(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

/// fio master's columns: `time, value[, max], ddir, bs[, offset], prio[, issue]`.
/// The issue time is the slat and clat entries' (ns since the job's start); lat,
/// bw and iops entries and averaged ones carry 0, and a per-I/O entry's max column
/// (log_window_value=both) is 0.
#[test]
fn log_columns_as_fio_master() {
    let dir = scratch();
    let job = dir.path().join("logs.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\niodepth=4\nrw=read\nbs=4k\nsize=64k\n\
         [a]\nwrite_lat_log=a\nlog_offset=1\nlog_issue_time=1\n\
         [b]\nwrite_lat_log=b\nlog_offset=1\nlog_issue_time=1\nlog_avg_msec=100\nlog_window_value=both\n\
         [c]\nwrite_bw_log=c\nwrite_iops_log=c\nlog_offset=1\nlog_issue_time=1\n\
         [d]\nwrite_lat_log=d\nlog_window_value=both\nlog_prio=1\n",
    )
    .unwrap();
    run_json_in(dir.path(), &[&path_str(&job)]);
    let d = dir.path();
    // Per I/O, with offset and issue time: 7 columns.
    for name in ["a_slat.1.log", "a_clat.1.log"] {
        let r = rows(d, name);
        assert_eq!(r.len(), 16, "{name}");
        for (i, row) in r.iter().enumerate() {
            assert_eq!(row.len(), 7, "{name}: {row:?}");
            assert_eq!(num(&row[4]), i as u64 * 4096, "{name}: {row:?}");
            // Issued before the entry's (completion) time, in ns.
            assert!(num(&row[6]) / 1_000_000 <= num(&row[0]), "{name}: {row:?}");
        }
        assert!(r.iter().any(|row| num(&row[6]) > 0), "{name}: {r:?}");
    }
    for name in ["a_lat.1.log", "c_bw.3.log", "c_iops.3.log"] {
        let r = rows(d, name);
        assert_eq!(r.len(), 16, "{name}");
        assert!(
            r.iter().all(|row| row.len() == 7 && row[6] == "0"),
            "{name}: {r:?}"
        );
    }
    // Averaged, both values: time, mean, max, ddir, bs 0, offset 0, prio 0, issue 0.
    for name in ["b_slat.2.log", "b_clat.2.log", "b_lat.2.log"] {
        for row in rows(d, name) {
            assert_eq!(row.len(), 8, "{name}: {row:?}");
            assert_eq!(&row[3..], ["0", "0", "0", "0", "0"], "{name}: {row:?}");
            assert!(num(&row[1]) <= num(&row[2]), "{name}: {row:?}");
        }
    }
    // Per I/O with both: the max column is 0; log_prio prints the priority in hex.
    for row in rows(d, "d_clat.4.log") {
        assert_eq!(row.len(), 6, "{row:?}");
        assert_eq!(&row[2..], ["0", "0", "4096", "0x0000"], "{row:?}");
    }
}

/// The columns fio 3.33 also has (log_offset, log_prio, log_max_value, averaged
/// and per-I/O entries) are fio 3.33's: every column but the time and the value.
#[test]
fn log_columns_match_fio_3_33() {
    if !have_fio() {
        return;
    }
    let job = "[global]\nioengine=null\niodepth=4\nrw=read\nbs=4k\nsize=64k\n\
               [a]\nwrite_lat_log=a\nwrite_bw_log=a\nlog_offset=1\n\
               [b]\nwrite_lat_log=b\nlog_avg_msec=100\nlog_max_value=1\nlog_offset=1\n\
               [c]\nwrite_lat_log=c\nlog_prio=1\n";
    let names = [
        "a_slat.1.log",
        "a_clat.1.log",
        "a_lat.1.log",
        "a_bw.1.log",
        "b_clat.2.log",
        "c_clat.3.log",
    ];
    let mut seen = Vec::new();
    for fio in [false, true] {
        let dir = scratch();
        let path = dir.path().join("logs.fio");
        std::fs::write(&path, job).unwrap();
        let mut cmd = if fio { Command::new("fio") } else { ferrio() };
        cmd.arg("--output-format=json")
            .arg(path_str(&path))
            .current_dir(dir.path());
        let out = run_bounded(cmd);
        assert!(
            out.status.success(),
            "fio={fio}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cols: Vec<Vec<Vec<String>>> = names
            .iter()
            .map(|n| {
                let mut r = rows(dir.path(), n);
                r.iter_mut().for_each(|row| {
                    row.drain(..2);
                });
                // An averaged log's entries depend on where windows fall: its first
                // entry's columns are what is compared.
                if n.starts_with('b') {
                    r.truncate(1);
                }
                r
            })
            .collect();
        seen.push(cols);
    }
    for (i, n) in names.iter().enumerate() {
        assert_eq!(seen[0][i], seen[1][i], "{n}: ferrio vs fio 3.33");
    }
}

/// An iolog of huge trims and small writes at a deep queue: a trim moves no data,
/// so the buffers are sized from the writes (as fio master does) and the replay
/// runs, where the trims' 2 GiB × 128 would have been refused.
#[test]
fn replayed_trims_size_no_buffers() {
    let dir = scratch();
    let data = path_str(&dir.path().join("data"));
    let mut log = format!("fio version 2 iolog\n{data} add\n{data} open\n");
    for i in 0..4u64 {
        log += &format!(
            "{data} trim {} 2147483648\n{data} write {} 4096\n",
            i << 31,
            i << 31
        );
    }
    log += &format!("{data} close\n");
    let iolog = dir.path().join("trims.iolog");
    std::fs::write(&iolog, log).unwrap();
    let v = run_json_in(
        dir.path(),
        &[
            "--name=r",
            "--ioengine=null",
            "--iodepth=128",
            &format!("--read_iolog={}", path_str(&iolog)),
        ],
    );
    assert_eq!(total_ios(&v, 0, "write"), 4);
    assert_eq!(total_ios(&v, 0, "trim"), 4);
    // The null engine touched no file.
    assert!(!dir.path().join("data").exists());
}

/// A job that really needs more buffer memory than there is is still refused
/// before it starts, naming the options to lower.
#[test]
fn a_job_needing_too_much_buffer_memory_is_refused() {
    let out = ferrio()
        .args([
            "--name=big",
            "--ioengine=null",
            "--rw=read",
            "--bs=1g",
            "--size=1g",
            "--iodepth=65536",
        ])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("I/O buffers would need"), "{err}");
    assert!(err.contains("iodepth=65536"), "{err}");
}
