//! The error policy (continue_on_error, ignore_error, error_dump, exitall_on_error)
//! on real failing storage, against fio 3.33 on the same jobs:
//! - EIO: a loop device over an 8 MiB file truncated to 4 MiB under it (its capacity
//!   is not re-read): direct reads past 4 MiB fail with EIO in the loop driver.
//! - ENOSPC: writes to a 1 MiB tmpfs.
//!
//! Both need root (losetup, mount): without it a test is skipped with the reason
//! printed, but fails when CI is set. Guards undo mounts and loop devices on drop,
//! whatever the test's outcome.

mod common;

use common::{ferrio, have_fio, parse_json, path_str, scratch};
use serde_json::Value;
use std::process::{Command, Output};

fn sh(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

/// Skip (None) with the reason, or fail under CI.
fn unavailable<T>(what: &str, why: &str) -> Option<T> {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but {what} is not possible here (needs root): {why}"
    );
    eprintln!("SKIP: cannot {what} (needs root): {why}");
    None
}

/// A loop device whose first 4 MiB read back and whose last 4 MiB fail with EIO.
struct FailingLoop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl FailingLoop {
    const GOOD: u64 = 4 << 20;

    fn new() -> Option<FailingLoop> {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(2 * Self::GOOD))
            .unwrap();
        let dev = match common::loopdev::attach(&img) {
            Ok(dev) => dev,
            Err(e) => return unavailable("make a loop device", &e),
        };
        let lo = FailingLoop { dev, _dir: dir };
        // Cut the backing file under the device; the device keeps its 8 MiB.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&img)
            .and_then(|f| f.set_len(Self::GOOD))
            .unwrap();
        Some(lo)
    }
}

impl Drop for FailingLoop {
    fn drop(&mut self) {
        common::loopdev::detach(&self.dev);
    }
}

/// A mounted 1 MiB tmpfs.
struct SmallTmpfs {
    mnt: std::path::PathBuf,
    mounted: bool,
    _dir: tempfile::TempDir,
}

impl SmallTmpfs {
    fn new() -> Option<SmallTmpfs> {
        let dir = scratch();
        let mnt = dir.path().join("small");
        std::fs::create_dir(&mnt).unwrap();
        let o = sh(
            "mount",
            &["-t", "tmpfs", "-o", "size=1m", "tmpfs", &path_str(&mnt)],
        );
        if !o.status.success() {
            return unavailable("mount a tmpfs", &String::from_utf8_lossy(&o.stderr));
        }
        Some(SmallTmpfs {
            mnt,
            mounted: true,
            _dir: dir,
        })
    }

    fn file(&self) -> String {
        path_str(&self.mnt.join("data"))
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        if self.mounted {
            let _ = sh("umount", &[&path_str(&self.mnt)]);
        }
    }
}

/// Run `prog` with `args`; (exit code, stdout, stderr).
fn run(prog: Command, args: &[String]) -> (Option<i32>, String, String) {
    let mut prog = prog;
    let o = prog.args(args).output().expect("run");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn read_job(dev: &str, extra: &[&str]) -> Vec<String> {
    let mut a = args(&["--name=t", "--rw=read", "--bs=4k", "--direct=1"]);
    a.push(format!("--filename={dev}"));
    a.extend(args(extra));
    a
}

fn write_job(file: &str, extra: &[&str]) -> Vec<String> {
    let mut a = args(&["--name=t", "--rw=write", "--bs=64k", "--size=2m"]);
    a.push(format!("--filename={file}"));
    a.extend(args(extra));
    a
}

/// The error fields of the first job: (error, total_err, first_error, issued, bytes)
/// of direction `dir`; total_err/first_error are None when the keys are absent.
fn error_fields(v: &Value, dir: &str) -> (i64, Option<i64>, Option<i64>, u64, u64) {
    let j = &v["jobs"][0];
    (
        j["error"].as_i64().unwrap(),
        j.get("total_err").map(|x| x.as_i64().unwrap()),
        j.get("first_error").map(|x| x.as_i64().unwrap()),
        j[dir]["total_ios"].as_u64().unwrap(),
        j[dir]["io_bytes"].as_u64().unwrap(),
    )
}

/// The `err=` part of the header and the `errors` line of normal output.
fn normal_error_lines(out: &str) -> (String, Option<String>) {
    let header = out
        .lines()
        .find(|l| l.starts_with("t: (groupid="))
        .unwrap_or_else(|| panic!("no header in {out}"));
    let err = header.split(": ").nth(2).unwrap();
    let err = err.split(" (").next().unwrap().to_string();
    let errors = out
        .lines()
        .find(|l| l.trim_start().starts_with("errors    :"))
        .map(str::to_string);
    (err, errors)
}

/// terse v3: the job's error (field 5), the number of fields, and the last two
/// (total_err;first_error when the job continues on errors, else disk figures).
fn terse_error_fields(out: &str, continues: bool) -> (String, usize, String) {
    let line = out
        .lines()
        .find(|l| l.starts_with("3;"))
        .expect("a terse line");
    let f: Vec<&str> = line.split(';').collect();
    let tail = if continues {
        f[f.len() - 2..].join(";")
    } else {
        String::new()
    };
    (f[4].to_string(), f.len(), tail)
}

#[test]
fn eio_reads_are_counted_and_the_job_goes_on_under_continue_on_error() {
    let Some(lo) = FailingLoop::new() else { return };
    let (code, out, err) = run(
        ferrio(),
        &read_job(
            &lo.dev,
            &["--continue_on_error=all", "--output-format=json"],
        ),
    );
    assert_eq!(code, Some(0), "{err}");
    let v = parse_json(out.as_bytes());
    // 2048 reads issued, the 1024 past 4 MiB failed; fio reports err=first_error.
    assert_eq!(
        error_fields(&v, "read"),
        (5, Some(1024), Some(5), 2048, FailingLoop::GOOD)
    );
    assert!(!err.contains("io_u error"), "no error_dump: {err}");

    // Normal output: the header's err= and fio's errors line.
    let (code, out, _) = run(ferrio(), &read_job(&lo.dev, &["--continue_on_error=read"]));
    assert_eq!(code, Some(0));
    assert_eq!(
        normal_error_lines(&out),
        (
            "err= 5".to_string(),
            Some("     errors    : total=1024, first_error=5/<Input/output error>".into())
        )
    );
}

#[test]
fn without_continue_on_error_the_first_eio_stops_the_job() {
    let Some(lo) = FailingLoop::new() else { return };
    let (code, out, err) = run(ferrio(), &read_job(&lo.dev, &["--output-format=json"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("Input/output error"), "{err}");
    let v = parse_json(out.as_bytes());
    // The failed read is issued too; no error count without continue_on_error.
    assert_eq!(
        error_fields(&v, "read"),
        (5, None, None, 1025, FailingLoop::GOOD)
    );
    // continue_on_error=write does not cover reads: fatal, and not counted.
    let (code, out, _) = run(
        ferrio(),
        &read_job(
            &lo.dev,
            &["--continue_on_error=write", "--output-format=json"],
        ),
    );
    assert_eq!(code, Some(1));
    let v = parse_json(out.as_bytes());
    assert_eq!(
        error_fields(&v, "read"),
        (5, Some(0), Some(0), 1025, FailingLoop::GOOD)
    );
}

#[test]
fn error_dump_prints_every_error() {
    let Some(lo) = FailingLoop::new() else { return };
    let (code, _, err) = run(
        ferrio(),
        &read_job(
            &lo.dev,
            &["--offset=3m", "--continue_on_error=all", "--error_dump=1"],
        ),
    );
    assert_eq!(code, Some(0), "{err}");
    let dumped: Vec<&str> = err.lines().filter(|l| l.contains("io_u error")).collect();
    assert_eq!(dumped.len(), 1024, "{err}");
    assert_eq!(
        dumped[0],
        format!(
            "ferrio: io_u error on file {}: Input/output error: read offset=4194304, buflen=4096",
            lo.dev
        )
    );
}

#[test]
fn eio_fields_match_fio() {
    let Some(lo) = FailingLoop::new() else { return };
    if !have_fio() {
        return;
    }
    let cases: [&[&str]; 5] = [
        &["--continue_on_error=all"][..],
        &["--ignore_error=EIO:ENXIO"],
        &["--continue_on_error=write"],
        &[],
        // Counts add up over a group; err= and first_error as fio's.
        &[
            "--continue_on_error=all",
            "--numjobs=2",
            "--group_reporting",
        ],
    ];
    // Every run only reads the device, so the cases run a few at a time.
    common::cases::each_case(&cases, |&extra| {
        let mut e = extra.to_vec();
        e.push("--output-format=json");
        let (fc, fout, ferr) = run(Command::new("fio"), &read_job(&lo.dev, &e));
        let (oc, oout, oerr) = run(ferrio(), &read_job(&lo.dev, &e));
        assert_eq!(oc, fc, "{extra:?}: exit code\nfio: {ferr}\nferrio: {oerr}");
        assert_eq!(
            error_fields(&parse_json(oout.as_bytes()), "read"),
            error_fields(&parse_json(fout.as_bytes()), "read"),
            "{extra:?}"
        );
        let (_, fout, _) = run(Command::new("fio"), &read_job(&lo.dev, extra));
        let (_, oout, _) = run(ferrio(), &read_job(&lo.dev, extra));
        assert_eq!(
            normal_error_lines(&oout),
            normal_error_lines(&fout),
            "{extra:?}"
        );
        // terse: the error field, and total_err;first_error at the end when continuing.
        let mut e = extra.to_vec();
        e.push("--output-format=terse");
        let (_, fout, _) = run(Command::new("fio"), &read_job(&lo.dev, &e));
        let (_, oout, _) = run(ferrio(), &read_job(&lo.dev, &e));
        let continues = !extra.is_empty();
        assert_eq!(
            terse_error_fields(&oout, continues),
            terse_error_fields(&fout, continues),
            "{extra:?}"
        );
    });
}

#[test]
fn enospc_on_a_full_tmpfs_under_ignore_error_and_continue_on_error() {
    let Some(fs) = SmallTmpfs::new() else { return };
    let f = fs.file();
    // ENOSPC is not ignored by default: continue_on_error=write stops at it (counted).
    let (code, out, err) = run(
        ferrio(),
        &write_job(&f, &["--continue_on_error=write", "--output-format=json"]),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let v = parse_json(out.as_bytes());
    assert_eq!(
        error_fields(&v, "write"),
        (28, Some(1), Some(28), 17, 1 << 20)
    );
    std::fs::remove_file(&f).unwrap();
    // ignore_error=,ENOSPC: every write past the first 1 MiB fails, the job goes on.
    let (code, out, err) = run(
        ferrio(),
        &write_job(&f, &["--ignore_error=,ENOSPC", "--output-format=json"]),
    );
    assert_eq!(code, Some(0), "{err}");
    let v = parse_json(out.as_bytes());
    assert_eq!(
        error_fields(&v, "write"),
        (28, Some(16), Some(28), 32, 1 << 20)
    );
    std::fs::remove_file(&f).unwrap();
    let (_, out, _) = run(ferrio(), &write_job(&f, &["--ignore_error=,ENOSPC"]));
    assert_eq!(
        normal_error_lines(&out),
        (
            "err=28".to_string(),
            Some("     errors    : total=16, first_error=28/<No space left on device>".into())
        )
    );
}

#[test]
fn enospc_fields_match_fio() {
    let Some(fs) = SmallTmpfs::new() else { return };
    if !have_fio() {
        return;
    }
    let f = fs.file();
    for extra in [
        &["--ignore_error=,ENOSPC"][..],
        &["--continue_on_error=write"],
        &["--continue_on_error=all"],
        // fill_device: running out of space ends the job without an error.
        &["--fill_device=1"],
        &["--fill_device=1", "--continue_on_error=write"],
    ] {
        let mut e = extra.to_vec();
        e.push("--output-format=json");
        let (fc, fout, ferr) = run(Command::new("fio"), &write_job(&f, &e));
        let _ = std::fs::remove_file(&f);
        let (oc, oout, oerr) = run(ferrio(), &write_job(&f, &e));
        let _ = std::fs::remove_file(&f);
        assert_eq!(oc, fc, "{extra:?}: exit code\nfio: {ferr}\nferrio: {oerr}");
        assert_eq!(
            error_fields(&parse_json(oout.as_bytes()), "write"),
            error_fields(&parse_json(fout.as_bytes()), "write"),
            "{extra:?}"
        );
    }
}

#[test]
fn exitall_on_error_stops_the_other_jobs() {
    let Some(lo) = FailingLoop::new() else { return };
    // "slow" would run for 60 s; the failing job's error ends it early.
    let job = |exitall: &str| {
        let mut a = read_job(&lo.dev, &[exitall]);
        a.extend(args(&[
            "--name=slow",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=60s",
            "--output-format=json",
        ]));
        a
    };
    let (code, out, err) = run(ferrio(), &job("--exitall_on_error"));
    assert_eq!(code, Some(1), "{err}");
    let v = parse_json(out.as_bytes());
    assert_eq!(v["jobs"][0]["error"], 5);
    assert_eq!(v["jobs"][1]["error"], 0);
    let slow_ms = v["jobs"][1]["job_runtime"].as_u64().unwrap();
    assert!(slow_ms < 60_000, "the other job ran its full runtime");
}

#[test]
fn bad_values_are_refused_naming_the_option() {
    let d = scratch();
    let f = path_str(&d.path().join("never"));
    for (opt, val, says) in [
        (
            "continue_on_error",
            "sometimes",
            "allowed: none, read, write, io, verify, all, 0, 1",
        ),
        ("continue_on_error", "2", "allowed: none"),
        ("ignore_error", "EWHAT", "unknown error name 'EWHAT'"),
        ("ignore_error", "0", "not an errno"),
        ("ignore_error", "EIO,EIO,EIO,EIO", "at most 3"),
        ("ignore_error", ",EIO:x", "'x' is not an errno"),
        ("error_dump", "2", "use 0 or 1"),
        ("exitall_on_error", "maybe", "use 0 or 1"),
    ] {
        let o = ferrio()
            .args([
                "--name=t",
                "--rw=write",
                "--size=1m",
                &format!("--filename={f}"),
                &format!("--{opt}={val}"),
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{opt}={val}: {err}");
        assert!(
            err.contains(&format!("option '{opt}'")) && err.contains(says),
            "{opt}={val}: {err}"
        );
        assert!(
            !std::path::Path::new(&f).exists(),
            "{opt}={val} made a file"
        );
    }
}

#[test]
fn status_interval_reports_carry_the_running_error_count() {
    let Some(lo) = FailingLoop::new() else { return };
    let (code, out, err) = run(
        ferrio(),
        &read_job(
            &lo.dev,
            &[
                "--continue_on_error=all",
                "--time_based",
                "--runtime=2s",
                "--status-interval=300ms",
                "--output-format=json",
                "--json-lines",
            ],
        ),
    );
    assert_eq!(code, Some(0), "{err}");
    // (first_error, total_err) of each periodic report. A report written before the
    // job reached the failing region (a loaded machine can delay it past the first
    // 300 ms) says no error at all; from the first error on, every report names EIO
    // and a count that never falls.
    let reports: Vec<(i64, i64)> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["ferrio_report"] == "periodic")
        .map(|v| {
            let j = &v["cumulative"]["jobs"][0];
            (
                j["first_error"].as_i64().unwrap(),
                j["total_err"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(!reports.is_empty(), "no periodic report: {out}");
    assert!(
        reports
            .iter()
            .all(|&r| r == (0, 0) || (r.0 == 5 && r.1 > 0)),
        "{reports:?}"
    );
    assert!(
        reports.iter().any(|r| r.1 > 0),
        "no report carried the errors: {reports:?}"
    );
    assert!(reports.windows(2).all(|w| w[0].1 <= w[1].1), "{reports:?}");
}
