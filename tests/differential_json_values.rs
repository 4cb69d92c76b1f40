//! JSON *values* against Debian's fio 3.33 (/usr/bin/fio) on deterministic jobs: every
//! value that does not depend on timing must be equal, at every path where it occurs
//! (jobs of every reporting group, every direction, sync, nested latency objects):
//!
//! * counts: `io_bytes`, `io_kbytes`, `total_ios`, `short_ios`, `drop_ios`, and `N` of
//!   every latency object (one sample per I/O);
//! * identity: `jobname`, `groupid`, `error`, `eta`, the whole `job options` object;
//! * the depth maps `iodepth_level`, `iodepth_submit`, `iodepth_complete` (each I/O
//!   alone with psync, so deterministic);
//! * the number of jobs, and which directions ran.

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// Keys whose values must be equal wherever they occur.
const EXACT: &[&str] = &[
    "io_bytes",
    "io_kbytes",
    "total_ios",
    "short_ios",
    "drop_ios",
    "N",
    "jobname",
    "groupid",
    "error",
    "eta",
    "job options",
    "iodepth_level",
    "iodepth_submit",
    "iodepth_complete",
];

/// path → value for every EXACT key under `v`.
fn exact_values(v: &Value, path: &str, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let p = format!("{path}/{k}");
                if EXACT.contains(&k.as_str()) {
                    out.insert(p, child.clone());
                } else {
                    exact_values(child, &p, out);
                }
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                exact_values(child, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn values(v: &Value) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    exact_values(&v["jobs"], "jobs", &mut m);
    m
}

#[test]
fn deterministic_values_equal_fios() {
    same_values_as_fio(&[
        &["--name=a", "--rw=read", "--bs=4k", "--size=1M"],
        &[
            "--name=a",
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--fsync=4",
        ],
        &[
            "--name=a",
            "--rw=randwrite",
            "--bs=16k",
            "--size=1M",
            "--percentile_list=50:99.9",
        ],
        &[
            "--name=a",
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--lat_percentiles=1",
        ],
        &[
            "--name=a",
            "--rw=read",
            "--bs=64k",
            "--size=1M",
            "--loops=3",
        ],
        &[
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            "--ioengine=libaio",
            "--iodepth=4",
            "--iodepth_batch=4",
            "--iodepth_batch_complete_min=4",
        ],
        &[
            "--name=a",
            "--rw=rw",
            "--rwmixread=100",
            "--bs=4k",
            "--size=1M",
        ],
        &[
            "--name=a",
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--numjobs=2",
        ],
        &[
            "--name=a",
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--numjobs=2",
            "--group_reporting",
        ],
        &[
            "--name=a",
            "--rw=write",
            "--bs=8k",
            "--size=512k",
            "--name=b",
            "--rw=read",
            "--bs=4k",
            "--size=512k",
            "--stonewall",
        ],
    ]);
}

/// fio 3.33's null engine queues above iodepth=1: commit completes the batch, and
/// each I/O gets a submission latency (slat_ns.N = 1024 for 4M/4k); ferrio's does the
/// same, so every value of the JSON is fio's.
#[test]
fn null_engine_values_equal_fios_when_deep() {
    for depth in ["--iodepth=2", "--iodepth=8"] {
        same_values_as_fio(&[&[
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=4M",
            "--ioengine=null",
            depth,
        ]]);
    }
}

/// fio 3.33's null engine at iodepth=1 counts no submits and no completions (its
/// iodepth_submit and iodepth_complete maps are all 0 %: the engine has a commit hook,
/// so fio's synchronous path never marks them); ferrio does the same
/// (`IoEngine::fio_commit_hook`), so every value is fio's.
#[test]
fn null_engine_values_equal_fios_at_depth_one() {
    same_values_as_fio(&[&[
        "--name=a",
        "--rw=randread",
        "--bs=4k",
        "--size=4M",
        "--ioengine=null",
        "--iodepth=1",
    ]]);
}

/// Run each job with fio and ferrio and compare the EXACT values.
fn same_values_as_fio(jobs: &[&[&str]]) {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for (i, job) in jobs.iter().enumerate() {
        // Each tool in its own directory, so `job options` (which echo no path) match.
        let dir = |who: &str| {
            let p = d.path().join(format!("{who}{i}"));
            std::fs::create_dir_all(&p).unwrap();
            format!("--directory={}", path_str(&p))
        };
        let mut theirs_args: Vec<String> = job.iter().map(|s| s.to_string()).collect();
        let mut ours_args = theirs_args.clone();
        // Before the first --name: global, so every job of the command line uses it.
        theirs_args.insert(0, dir("fio"));
        ours_args.insert(0, dir("ferrio"));
        let theirs = fio_json(&theirs_args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let ours = run_json(&ours_args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert_eq!(
            ours["jobs"].as_array().map(Vec::len),
            theirs["jobs"].as_array().map(Vec::len),
            "{job:?}: number of job entries"
        );
        let (o, t) = (values(&ours), values(&theirs));
        let keys_o: Vec<&String> = o.keys().collect();
        let keys_t: Vec<&String> = t.keys().collect();
        assert_eq!(keys_o, keys_t, "{job:?}: where the exact values are");
        for (k, tv) in &t {
            let ov = &o[k];
            // "job options" echo the options given: the directory differs.
            if k.ends_with("/job options") {
                let strip = |v: &Value| {
                    let mut v = v.clone();
                    v.as_object_mut().unwrap().remove("directory");
                    v
                };
                assert_eq!(strip(ov), strip(tv), "{job:?}: {k}");
                continue;
            }
            assert_eq!(ov, tv, "{job:?}: {k}");
        }
    }
}
