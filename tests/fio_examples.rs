//! The job files in tests/jobs (ours, each exercising the features of one of fio's
//! sample jobs) run to completion against temporary files, unchanged but for paths,
//! sizes and runtimes. With FERRIO_FIO_EXAMPLES naming a directory of fio's own
//! samples, those run too.

mod common;
use common::*;

fn run_example(name: &str) -> serde_json::Value {
    run_job(&jobs_dir().join(name))
}

fn run_job(path: &std::path::Path) -> serde_json::Value {
    let name = path.file_name().unwrap().to_str().unwrap();
    let d = scratch();
    let src = std::fs::read_to_string(path).expect("job file exists");
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
fn fio_rate_clients() {
    let v = run_example("rate-clients.fio");
    // 4 MiB each: 16 MiB/s readers take about 0.25 s, the 4000-IOPS one 1024 I/Os.
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["read"]["io_bytes"].as_u64(), Some(4 << 20), "{j}");
        assert_eq!(j["error"].as_u64(), Some(0), "{j}");
    }
}

#[test]
fn fio_rand_read() {
    run_example("rand-read.fio");
}

#[test]
fn fio_rand_write() {
    run_example("rand-write.fio");
}

#[test]
fn fio_seq_read() {
    run_example("seq-read.fio");
}

#[test]
fn fio_seq_write() {
    run_example("seq-write.fio");
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
    let v = run_example("four-phases.fio");
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
    let v = run_example("file-server.fio");
    let j = &v["jobs"][0];
    let r = j["read"]["io_bytes"].as_u64().unwrap();
    let w = j["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(r + w, 4 << 20);
}

#[test]
fn rand_zones() {
    run_example("zones.fio");
}

#[test]
fn backwards_read() {
    let v = run_example("backwards.fio");
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

#[test]
#[ignore = "needs fio's source tree: FERRIO_FIO_EXAMPLES=/path/to/fio/examples cargo test -- --ignored"]
fn fio_own_samples_when_given() {
    // Runs fio's originals of the jobs above (Debian's fio package ships no examples;
    // tests/jobs covers the same features in every run).
    let Some(dir) = fio_examples_dir() else {
        panic!("set FERRIO_FIO_EXAMPLES to fio's examples directory");
    };
    for name in [
        "fio-rand-read.fio",
        "fio-rand-write.fio",
        "fio-seq-read.fio",
        "fio-seq-write.fio",
        "null.fio",
        "zipf.fio",
        "tiobench-example.fio",
        "iometer-file-access-server.fio",
        "rand-zones.fio",
        "backwards-read.fio",
        "filestat-ioengine.fio",
        "filedelete-ioengine.fio",
        "cpuio.fio",
        "ftruncate.fio",
        "falloc.fio",
        "fixed-rate-submission.fio",
        "poisson-rate-submission.fio",
        "flow.fio",
    ] {
        run_job(&dir.join(name));
    }
}

/// fio's examples that `ferrio --parse-only` does not accept yet, each with why (the
/// rest of fio's examples must parse).
const EXAMPLES_NOT_PARSED: &[(&str, &str)] = &[
    // Placeholders fio refuses as well ("failed parsing port"): port=[port].
    ("rdmaio-client.fio", "placeholder values (port=[port])"),
    ("rdmaio-server.fio", "placeholder values (port=[port])"),
    (
        "gpudirect-rdmaio-client.fio",
        "placeholder values (port=[port])",
    ),
    (
        "gpudirect-rdmaio-server.fio",
        "placeholder values (port=[port])",
    ),
];

#[test]
#[ignore = "needs fio's source tree: FERRIO_FIO_EXAMPLES=/path/to/fio/examples cargo test -- --ignored"]
fn fio_own_samples_parse() {
    // Every example of fio master but those above parses with --parse-only, with the
    // variables the examples expect set; the xnvme ones (as their comments say) with
    // --ioengine=xnvme. Nothing is created.
    let Some(dir) = fio_examples_dir() else {
        panic!("set FERRIO_FIO_EXAMPLES to fio's examples directory");
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    names.sort();
    assert!(names.len() > 100, "{names:?}");
    let d = scratch();
    let mut refused = Vec::new();
    for name in &names {
        let known = EXAMPLES_NOT_PARSED.iter().any(|(n, _)| n == name);
        let mut cmd = ferrio();
        cmd.arg("--parse-only").current_dir(d.path());
        for (k, v) in [
            ("FIO_DIR", "/tmp"),
            ("FIO_BS", "4k"),
            ("FIO_RW", "randread"),
            ("FIO_IODEPTH", "8"),
            ("GPU_DEV_IDS", "0"),
            ("POOL", "pool"),
            ("CONT", "cont"),
            ("SSE_KEY", "c2VjcmV0"),
            ("STORAGE_CLASS", "STANDARD"),
            ("uri", "nbd://127.0.0.1/"),
        ] {
            cmd.env(k, v);
        }
        if name.starts_with("xnvme-") {
            cmd.arg("--ioengine=xnvme");
        }
        let o = cmd.arg(dir.join(name)).output().unwrap();
        if o.status.success() == known {
            refused.push(format!(
                "{name}: {}",
                if known {
                    "parses now: take it off EXAMPLES_NOT_PARSED".into()
                } else {
                    String::from_utf8_lossy(&o.stderr).into_owned()
                }
            ));
        }
    }
    assert!(refused.is_empty(), "{refused:#?}");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "--parse-only created {left:?}");
}

/// Each job's (read, write, trim) total_ios and clat sample counts.
fn ios_and_ops(v: &serde_json::Value) -> Vec<(String, u64, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let sum = |k: &str| -> u64 {
                ["read", "write", "trim"]
                    .iter()
                    .map(|d| match k {
                        "ios" => j[d]["total_ios"].as_u64().unwrap(),
                        _ => j[d]["clat_ns"]["N"].as_u64().unwrap(),
                    })
                    .sum()
            };
            (
                j["jobname"].as_str().unwrap().to_string(),
                sum("ios"),
                sum("ops"),
            )
        })
        .collect()
}

#[test]
fn metadata_examples_time_one_operation_per_file() {
    for (name, jobs, files) in [
        ("filecreate.fio", 4, 200),
        ("filestat.fio", 3, 50),
        ("filedelete.fio", 3, 50),
    ] {
        let v = run_example(name);
        let got = ios_and_ops(&v);
        assert_eq!(got.len(), jobs, "{name}");
        for (job, ios, ops) in got {
            assert_eq!((ios, ops), (files, files), "{name} {job}");
        }
    }
    let v = run_example("dirs.fio");
    let got: Vec<(String, u64)> = ios_and_ops(&v)
        .into_iter()
        .map(|(j, _, ops)| (j, ops))
        .collect();
    assert_eq!(
        got,
        [("mk", 30), ("st", 30), ("st", 30), ("rm", 30)].map(|(j, n)| (j.to_string(), n))
    );
}

#[test]
fn cpuio_exec_falloc_and_ftruncate_examples_run() {
    for name in ["cpuio.fio", "exec.fio", "falloc.fio", "ftruncate.fio"] {
        let v = run_example(name);
        for j in v["jobs"].as_array().unwrap() {
            assert_eq!(j["error"].as_u64(), Some(0), "{name}: {j}");
        }
    }
}

/// (prioclass, prio) of each read priority a job reported, in order.
fn read_prios(j: &serde_json::Value) -> Vec<(u64, u64)> {
    j["read"]["prios"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    (
                        p["prioclass"].as_u64().unwrap(),
                        p["prio"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn fio_cmdprio_percentage() {
    let v = run_example("cmdprio-percentage.fio");
    // The job's own idle class first, then the realtime reads.
    assert_eq!(
        read_prios(&v["jobs"][0]),
        vec![(3, 0), (1, 0)],
        "{}",
        v["jobs"][0]["read"]
    );
}

#[test]
fn fio_cmdprio_bssplit() {
    let v = run_example("cmdprio-bssplit.fio");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(read_prios(&jobs[0]), vec![(0, 0), (1, 0)]);
    // 64 KiB reads are only 40 % of 4 MiB's few reads: an entry may see none, but
    // whatever was reported is the job's own priority or one the split names.
    for (j, own) in [(&jobs[1], (0, 0)), (&jobs[2], (2, 7))] {
        for p in read_prios(j) {
            assert!([own, (1, 1), (3, 2)].contains(&p), "{p:?} in {}", j["read"]);
        }
        assert!(
            j["write"].get("prios").is_none(),
            "writes have no split: {}",
            j["write"]
        );
    }
}
