//! ramp_size (fio 3.42): statistics start once the job — with group_reporting, its
//! reporting group together — has completed that many bytes; the ramp's I/O counts
//! toward size= as ramp_time's does, and runtime counts from the ramp's end.

mod common;
use common::*;

const MIB: u64 = 1 << 20;

fn read_bytes(v: &serde_json::Value) -> Vec<u64> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["io_bytes"].as_u64().unwrap())
        .collect()
}

#[test]
fn the_ramp_ends_at_the_io_that_completes_ramp_size() {
    let base = [
        "--name=r",
        "--ioengine=null",
        "--rw=read",
        "--bs=4k",
        "--size=8M",
    ];
    let v = run_json(&[&base[..], &["--ramp_size=3M"]].concat());
    assert_eq!(read_bytes(&v), vec![5 * MIB]);
    // Each clone ramps on its own without group_reporting.
    let v = run_json(&[&base[..], &["--ramp_size=1M", "--numjobs=2"]].concat());
    assert_eq!(read_bytes(&v), vec![7 * MIB, 7 * MIB]);
    // With group_reporting the group's bytes end it for all: each thread may finish
    // the I/O it is doing when another's completion reaches the size.
    let v = run_json(
        &[
            &base[..],
            &["--ramp_size=3M", "--numjobs=2", "--group_reporting"],
        ]
        .concat(),
    );
    let total = read_bytes(&v)[0];
    assert!(
        (13 * MIB - 4096..=13 * MIB).contains(&total),
        "group of 2 x 8 MiB, ramp 3 MiB: {total}"
    );
    // A ramp longer than the job: nothing is measured (as with ramp_time).
    let v = run_json(&[&base[..], &["--ramp_size=100M"]].concat());
    assert_eq!(read_bytes(&v), vec![0]);
}

#[test]
fn runtime_counts_from_the_end_of_the_ramp() {
    // 40 MB/s: the 2 MiB ramp takes about 50 ms; a runtime counted from the job's
    // start would leave about 150 ms measured, and one never set would let the
    // 64 MiB run on for 1.6 s.
    let v = run_json(&[
        "--name=r",
        "--ioengine=null",
        "--rw=read",
        "--bs=4k",
        "--size=64M",
        "--rate=40M",
        "--ramp_size=2M",
        "--runtime=200ms",
    ]);
    let runtime = v["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!(
        (195..1000).contains(&runtime),
        "measured {runtime} ms of a 200 ms runtime"
    );
}

#[test]
fn a_ramp_by_time_and_size_and_a_group_with_two_sizes_are_refused() {
    let e = run_err(&[
        "--name=r",
        "--ioengine=null",
        "--size=1M",
        "--ramp_size=4k",
        "--ramp_time=1s",
    ]);
    assert!(
        e.contains("ramp_time and ramp_size cannot both be given"),
        "{e}"
    );
    let e = run_err(&[
        "--ioengine=null",
        "--size=1M",
        "--name=a",
        "--ramp_size=4k",
        "--name=b",
        "--name=c",
        "--ramp_size=4k",
    ]);
    assert!(
        e.contains("job 'c': ramp_size=4096 but job 'b' of the same reporting group"),
        "{e}"
    );
    // A new group may ramp differently.
    run_ok(&[
        "--ioengine=null",
        "--size=1M",
        "--name=a",
        "--ramp_size=4k",
        "--name=b",
        "--stonewall",
        "--ramp_size=8k",
    ]);
}
