//! The job files in ../shared/fio-examples that need only the engines ferrio has
//! run to completion against temporary files, unchanged but for paths, sizes and
//! runtimes.

mod common;
use common::*;

fn run_example(name: &str) -> serde_json::Value {
    let d = scratch();
    let src = std::fs::read_to_string(examples_dir().join(name)).expect("example exists");
    let job = d.path().join(name);
    std::fs::write(&job, adapt_example(&src, d.path().to_str().unwrap())).unwrap();
    let v = run_json_in(d.path(), &[job.to_str().unwrap()]);
    let jobs = v["jobs"].as_array().expect("jobs");
    assert!(!jobs.is_empty(), "{name}: no jobs reported");
    let total: u64 = jobs
        .iter()
        .map(|j| {
            ["read", "write", "trim"]
                .iter()
                .map(|d| j[d]["total_ios"].as_u64().unwrap_or(0))
                .sum::<u64>()
        })
        .sum();
    assert!(total > 0, "{name}: no I/O done");
    v
}

#[test]
fn fio_rand_read() {
    run_example("fio-rand-read.fio");
}

#[test]
fn fio_rand_write() {
    run_example("fio-rand-write.fio");
}

#[test]
fn fio_seq_read() {
    run_example("fio-seq-read.fio");
}

#[test]
fn fio_seq_write() {
    run_example("fio-seq-write.fio");
}

#[test]
fn null_example() {
    run_example("null.fio");
}

#[test]
fn zipf_example() {
    run_example("zipf.fio");
}

#[test]
fn tiobench_example_runs_four_stonewalled_groups() {
    let v = run_example("tiobench-example.fio");
    let groups: std::collections::BTreeSet<u64> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["groupid"].as_u64().unwrap())
        .collect();
    assert_eq!(groups.len(), 4, "four stonewalled groups");
    assert_eq!(
        v["jobs"].as_array().unwrap().len(),
        16,
        "4 jobs x numjobs=4"
    );
}

#[test]
fn iometer_file_access_server() {
    let v = run_example("iometer-file-access-server.fio");
    let j = &v["jobs"][0];
    let r = j["read"]["io_bytes"].as_u64().unwrap();
    let w = j["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(r + w, 4 << 20);
}

#[test]
fn rand_zones() {
    run_example("rand-zones.fio");
}

#[test]
fn backwards_read() {
    let v = run_example("backwards-read.fio");
    assert_eq!(v["jobs"][0]["read"]["io_bytes"].as_u64(), Some(4 << 20));
}

#[test]
fn adapt_rewrites_engine_files_and_sizes() {
    let a = adapt_example(
        "[g]\nioengine=libaio\nfilename=/dev/sda ; disk\nsize=10G\nruntime=900\n",
        "/tmp/x",
    );
    assert_eq!(
        a,
        "[g]\nioengine=libaio\nfilename=/tmp/x/sda\nsize=4m\nruntime=1\n"
    );
}
