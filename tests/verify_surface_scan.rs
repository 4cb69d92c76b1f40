//! fio's surface-scan.fio scaled to an 8 MiB file (tests/jobs/surface-scan-8m.fio), in
//! one run: the verify phase has no size= and its file exists only once the write phase
//! has run, so its size is resolved when it starts (src/runner/late_sizes.rs). Compared
//! with fio 3.33 on the same job file; what ferrio wrote verifies with fio, and a flipped
//! byte fails the verify phase at its interval.

mod common;
use common::skip::direct_scratch;
use common::*;
use std::path::Path;
use std::process::Command;

const JOB: &str = "surface-scan-8m.fio";

/// (job name, read io_bytes, read total_ios, write io_bytes, write total_ios, error)
/// of each job, in order.
fn per_job(v: &serde_json::Value) -> Vec<(String, u64, u64, u64, u64, i64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            (
                j["jobname"].as_str().unwrap().to_string(),
                n("read", "io_bytes"),
                n("read", "total_ios"),
                n("write", "io_bytes"),
                n("write", "total_ios"),
                j["error"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Run `tool` on the job file in `dir` (its data file and fio's verify state land there).
fn run(tool: Command, dir: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let mut c = tool;
    let o = c
        .arg(jobs_dir().join(JOB))
        .args(extra)
        .arg("--output-format=json")
        .current_dir(dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let v = if o.stdout.is_empty() {
        serde_json::Value::Null
    } else {
        parse_json(&o.stdout)
    };
    (o.status.code().unwrap_or(-1), v, err)
}

#[test]
fn surface_scan_runs_in_one_run_as_fio_runs_it() {
    let Some(d) = direct_scratch() else {
        return;
    };
    let (code, v, err) = run(ferrio(), d.path(), &[]);
    assert_eq!(code, 0, "{err}");
    let got = per_job(&v);
    let mib8 = 8u64 << 20;
    assert_eq!(
        got,
        [
            ("write-phase".to_string(), 0, 0, mib8, 128, 0),
            ("verify-phase".to_string(), mib8, 128, 0, 0, 0),
        ],
        "{err}"
    );
    // Each phase is its own reporting group, as stonewall makes it.
    assert_eq!(v["jobs"][0]["groupid"], 0);
    assert_eq!(v["jobs"][1]["groupid"], 1);

    // A flipped byte is found by the verify phase at its 512-byte interval.
    let data = d.path().join("datafile.tmp");
    let mut b = std::fs::read(&data).unwrap();
    b[(3 << 20) + 1000] ^= 0x01;
    std::fs::write(&data, &b).unwrap();
    let (code, _, err) = run(ferrio(), d.path(), &["--section=verify-phase"]);
    assert_ne!(code, 0, "the corruption went unnoticed");
    assert!(err.contains("offset 3146240"), "{err}");
    b[(3 << 20) + 1000] ^= 0x01;
    std::fs::write(&data, &b).unwrap();

    if !have_fio() {
        return;
    }
    // fio's verify phase accepts what ferrio's write phase wrote.
    let (code, f, err) = run(Command::new("fio"), d.path(), &["--section=verify-phase"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(per_job(&f), got[1..], "{err}");

    // The same job file under fio, from a directory without the data file.
    let Some(fd) = direct_scratch() else {
        return;
    };
    let (code, f, err) = run(Command::new("fio"), fd.path(), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(per_job(&f), got, "fio: {err}");
}

#[test]
fn parse_only_accepts_a_job_sized_at_its_start_and_a_run_refuses_a_file_nobody_creates() {
    let d = scratch();
    let o = ferrio()
        .arg("--parse-only")
        .arg(jobs_dir().join(JOB))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !d.path().join("datafile.tmp").exists(),
        "--parse-only touched a file"
    );
    // The same verify phase alone: no earlier job names its file. --parse-only
    // accepts it as fio does (it never sizes the target files); a run refuses it
    // before anything runs.
    let alone = |extra: &[&str]| {
        ferrio()
            .args(extra)
            .args(["--section=verify-phase"])
            .arg(jobs_dir().join(JOB))
            .current_dir(d.path())
            .output()
            .unwrap()
    };
    let o = alone(&["--parse-only"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = alone(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("size= is not set and '") && err.contains("datafile.tmp' does not exist"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "a refused run touched a file"
    );
}

#[test]
fn a_job_still_unsized_at_its_start_fails_alone_after_the_earlier_jobs_ran() {
    // The first job names the file but never creates it (it runs on the null engine):
    // the second job is refused when it starts, with the plan-time message; the first
    // job's results are still reported and the run exits 1.
    let d = scratch();
    let job = d.path().join("j.fio");
    std::fs::write(
        &job,
        "[first]\nioengine=null\nfilename=later.dat\nsize=64k\nrw=write\n\
         [second]\nstonewall\nfilename=later.dat\nrw=read\n",
    )
    .unwrap();
    let o = ferrio()
        .arg(&job)
        .arg("--output-format=json")
        .current_dir(d.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("job 'second': size= is not set and 'later.dat' does not exist"),
        "{err}"
    );
    let v = parse_json(&o.stdout);
    assert_eq!(v["jobs"][0]["write"]["io_bytes"].as_u64(), Some(64 << 10));
    assert_ne!(v["jobs"][1]["error"], 0);
    assert_eq!(v["jobs"][1]["read"]["io_bytes"].as_u64(), Some(0));
    assert!(!d.path().join("later.dat").exists());
}
