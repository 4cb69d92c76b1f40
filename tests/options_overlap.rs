//! serialize_overlap (issue 14): an I/O overlapping one in flight is held back until
//! that one completes. Four distinct blocks and iodepth=16 with libaio (which only
//! reaps when its queue is full): without the option the depth reaches 16, with it
//! never more than 4 I/Os can be in flight. fio 3.33 is run on the same jobs where
//! installed, as the reference for the same bounds and for when the option is on
//! (its depths are not compared exactly: they depend on when completions arrive).

mod common;
use common::*;
use std::process::Command;

/// The job: random writes (or `rw`) over 4 blocks of 4 KiB, 256 I/Os at depth 16.
fn args(file: &str, rw: &str, serialize: bool) -> Vec<String> {
    [
        "--name=o",
        "--ioengine=libaio",
        &format!("--filename={file}"),
        &format!("--rw={rw}"),
        "--bs=4k",
        "--size=16k",
        "--io_size=1m",
        "--norandommap",
        "--iodepth=16",
        &format!("--serialize_overlap={}", serialize as u8),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Percent of submissions at depth 5-8 and 9-16 ("8" and "16" of iodepth_level),
/// and the number of I/Os of direction `dir`.
fn deep(v: &serde_json::Value, dir: &str) -> (f64, f64, u64) {
    let j = &v["jobs"][0];
    let l = &j["iodepth_level"];
    (
        l["8"]
            .as_f64()
            .unwrap_or_else(|| panic!("no iodepth_level in {v}")),
        l["16"].as_f64().unwrap(),
        j[dir]["total_ios"].as_u64().unwrap(),
    )
}

fn ferrio_json(a: &[String]) -> serde_json::Value {
    run_json(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>())
}

fn fio_json(a: &[String]) -> serde_json::Value {
    let out = Command::new("fio")
        .args(a)
        .arg("--output-format=json")
        .output()
        .expect("run fio");
    assert!(
        out.status.success(),
        "fio {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_json(&out.stdout)
}

#[test]
fn overlapping_writes_wait_for_each_other() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    let fio = have_fio();
    // without: the queue fills up
    let (_, d16, n) = deep(&ferrio_json(&args(&file, "randwrite", false)), "write");
    assert!(d16 > 50.0, "depth 16 without serialize_overlap: {d16}%");
    assert_eq!(n, 256);
    // with: at most one I/O per block in flight
    let mut runs = vec![("ferrio", ferrio_json(&args(&file, "randwrite", true)))];
    if fio {
        runs.push(("fio", fio_json(&args(&file, "randwrite", true))));
    }
    for (who, v) in runs {
        assert_eq!(deep(&v, "write"), (0.0, 0.0, 256), "{who}: {v}");
    }
}

/// How many times fio 3.33 held an I/O back ("in-flight overlap" in its --debug=io).
fn fio_overlaps(a: &[String]) -> usize {
    let out = Command::new("fio")
        .args(a)
        .arg("--debug=io")
        .output()
        .expect("run fio");
    assert!(out.status.success(), "fio {a:?}");
    String::from_utf8_lossy(&out.stdout)
        .matches("in-flight overlap")
        .count()
}

#[test]
fn a_read_only_job_is_not_serialized() {
    // fio turns serialize_overlap off for jobs that neither write nor trim (its
    // buffered libaio reads rarely queue up, so its depths tell nothing: its
    // debug log says whether it held I/Os back)
    // The reads also hit 4 blocks, but of a 1 MiB job: with an engine that queues,
    // fio (and ferrio) end a pass once size= bytes are queued, so a 16 KiB read job
    // (no io_size raise for reads) never gets past depth 4 whatever the option.
    let reads = |file: &str, rw: &str| -> Vec<String> {
        let mut a = args(file, rw, true);
        a.retain(|x| x != "--size=16k");
        a.push("--size=1m".into());
        a.push("--random_distribution=zoned_abs:100/16k".into());
        a
    };
    let d = scratch();
    let file = file_in(d.path(), "f");
    let (_, d16, n) = deep(&ferrio_json(&reads(&file, "randread")), "read");
    assert!(d16 > 50.0, "depth 16 for reads: {d16}%");
    assert_eq!(n, 256);
    if have_fio() {
        assert_eq!(fio_overlaps(&reads(&file, "randread")), 0);
        assert!(fio_overlaps(&reads(&file, "randwrite")) > 0);
    }
}
