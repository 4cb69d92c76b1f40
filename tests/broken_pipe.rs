//! `ferrio ... | head`: when the reader of stdout goes away, ferrio ends as fio does,
//! killed by SIGPIPE (the shell sees 141) and silent, not with "Broken pipe" and an
//! exit code of 1. With live reports the run first stops, as after SIGINT, so
//! `unlink=1` still removes its file and a report to `--output` is written (fio dies
//! where it stands and leaves both undone).

mod common;

use common::{ferrio, have_fio, scratch, wait_bounded};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const SIGPIPE: i32 = 13;

fn spawn(mut c: Command, args: &[String]) -> Child {
    c.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the benchmark")
}

#[test]
fn a_closed_stdout_ends_the_run_by_sigpipe_silently_like_fio() {
    let args: Vec<String> = ["--name=x", "--ioengine=null", "--size=64m"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut tools = vec![("ferrio", ferrio())];
    if have_fio() {
        tools.push(("fio", Command::new("fio")));
    }
    for (name, c) in tools {
        let mut child = spawn(c, &args);
        // The reader goes away before anything is written.
        drop(child.stdout.take());
        let out = wait_bounded(child, Duration::from_secs(60), name);
        assert_eq!(
            out.status.signal(),
            Some(SIGPIPE),
            "{name}: {:?}",
            out.status
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("Broken pipe"), "{name}: {stderr}");
    }
}

#[test]
fn a_closed_stdout_mid_run_stops_the_run_and_unlink_still_removes_the_file() {
    let d = scratch();
    let file = d.path().join("f");
    let args: Vec<String> = vec![
        "--name=x".into(),
        format!("--filename={}", file.display()),
        "--size=1m".into(),
        "--time_based".into(),
        "--runtime=600".into(),
        "--unlink=1".into(),
        "--status-interval=1".into(),
        "--output-format=json".into(),
    ];
    let mut child = spawn(ferrio(), &args);
    // Read the first interval report's first line, as `head -1` would, then close.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    let out = wait_bounded(
        child,
        Duration::from_secs(60),
        "ferrio after its stdout closed",
    );
    assert_eq!(out.status.signal(), Some(SIGPIPE), "{:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("terminating"),
        "{stderr}"
    );
    assert!(!file.exists(), "unlink=1 left {}", file.display());
}

#[test]
fn a_closed_stdout_under_the_status_line_stops_the_run_and_the_output_file_is_written() {
    let d = scratch();
    let report = d.path().join("report.json");
    let args: Vec<String> = vec![
        "--name=x".into(),
        "--ioengine=null".into(),
        "--size=1g".into(),
        "--time_based".into(),
        "--runtime=600".into(),
        "--eta=always".into(),
        "--eta-interval=250ms".into(),
        "--output-format=json".into(),
        format!("--output={}", report.display()),
    ];
    let mut child = spawn(ferrio(), &args);
    drop(child.stdout.take());
    let out = wait_bounded(
        child,
        Duration::from_secs(60),
        "ferrio after its stdout closed",
    );
    assert_eq!(out.status.signal(), Some(SIGPIPE), "{:?}", out.status);
    let v = common::parse_json(&std::fs::read(&report).unwrap());
    let job = &v["jobs"][0];
    assert_eq!(job["error"], 0, "{job}");
    assert!(job["read"]["total_ios"].as_u64().unwrap() > 0, "{job}");
}
