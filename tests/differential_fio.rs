//! Differential tests against Debian's fio 3.33 on deterministic jobs: the same I/O
//! counts per direction, the same JSON key sets, the same normal-output structure.
//! Skipped (with a message) when fio is absent, unless FERRIO_REQUIRE_FIO=1 (CI).

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Deterministic jobs: (description, options without filename).
const JOBS: &[&[&str]] = &[
    &["--rw=read", "--bs=4k", "--size=2M"],
    &["--rw=write", "--bs=4k", "--size=2M"],
    &["--rw=randread", "--bs=4k", "--size=2M"],
    &["--rw=randwrite", "--bs=16k", "--size=2M"],
    &["--rw=read", "--bs=64k", "--size=2M", "--loops=2"],
    &["--rw=randread", "--bs=4k", "--size=2M", "--io_size=3M"],
    &["--rw=write", "--bs=4k", "--size=2M", "--number_ios=100"],
    &["--rw=write", "--bs=4k", "--size=1M", "--fsync=4"],
    &[
        "--rw=write",
        "--bs=4k",
        "--size=1M",
        "--fsync=4",
        "--ioengine=libaio",
        "--iodepth=8",
    ],
    &["--rw=read", "--bs=4k", "--size=1M", "--offset=256k"],
    &["--rw=randread", "--bs=4k", "--size=2M", "--norandommap"],
    &[
        "--rw=read",
        "--bsrange=4k-4k",
        "--size=1M",
        "--ioengine=sync",
    ],
    &["--rw=write", "--bs=4k", "--size=1M", "--ioengine=pvsync"],
];

fn with_file(opts: &[&str], file: &str) -> Vec<String> {
    let mut v = vec!["--name=d".to_string(), format!("--filename={file}")];
    v.extend(opts.iter().map(|s| s.to_string()));
    v
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

#[test]
fn same_io_counts_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    // Each job on files of its own, so the jobs run a few at a time.
    let jobs: Vec<(usize, &&[&str])> = JOBS.iter().enumerate().collect();
    common::cases::each_case(&jobs, |&(i, job)| {
        let f_fio = file_in(d.path(), &format!("fio{i}"));
        let f_us = file_in(d.path(), &format!("ferrio{i}"));
        let theirs = fio_json(&refs(&with_file(job, &f_fio)));
        let ours = run_json(&refs(&with_file(job, &f_us)));
        for dir in ["read", "write", "trim"] {
            assert_eq!(
                dir_counts(&ours, dir),
                dir_counts(&theirs, dir),
                "job {job:?}, direction {dir}"
            );
        }
        assert_eq!(
            ours["jobs"][0]["sync"]["total_ios"], theirs["jobs"][0]["sync"]["total_ios"],
            "job {job:?}: fsync count"
        );
    });
}

#[test]
fn null_engine_counts_match_fio() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--ioengine=null", "--rw=randread", "--bs=4k", "--size=64M"][..],
        &["--ioengine=null", "--rw=write", "--bs=128k", "--size=1G"][..],
        &["--ioengine=null", "--rw=randrw", "--bs=4k", "--size=16M"][..],
        &[
            "--ioengine=null",
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--fsync=4",
        ][..],
    ] {
        let mut a = vec!["--name=n"];
        a.extend_from_slice(job);
        let theirs = fio_json(&a);
        let ours = run_json(&a);
        let total = |v: &Value| {
            ["read", "write"]
                .iter()
                .map(|d| dir_counts(v, d))
                .fold((0, 0), |acc, x| (acc.0 + x.0, acc.1 + x.1))
        };
        assert_eq!(total(&ours), total(&theirs), "{job:?}");
        assert_eq!(
            ours["jobs"][0]["sync"]["total_ios"], theirs["jobs"][0]["sync"]["total_ios"],
            "{job:?}: fsyncs go through the engine, as fio's DDIR_SYNC units do"
        );
    }
}

/// Every key path in a JSON document, skipping data-dependent keys (histogram bins,
/// disk names).
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                if k == "bins" || k == "job options" || k == "global options" {
                    continue;
                }
                key_paths(child, &p, out);
            }
        }
        Value::Array(a) => {
            for child in a {
                key_paths(child, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// Keys ferrio adds to fio's schema on purpose (documented in README.md).
/// Each covers its own subtree.
const FERRIO_EXTENSIONS: &[&str] = &["/clocksource", "/ferrio_intervals"];

fn keys(v: &Value) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    key_paths(v, "", &mut s);
    s.retain(|k| {
        !FERRIO_EXTENSIONS
            .iter()
            .any(|e| k == e || k.starts_with(&format!("{e}/")) || k.starts_with(&format!("{e}[")))
    });
    s
}

#[test]
fn same_json_and_json_plus_key_sets_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let cases: Vec<(usize, &[&str])> = [
        &["--rw=randrw", "--bs=4k", "--size=1M"][..],
        &["--rw=write", "--bs=4k", "--size=1M", "--fsync=2"][..],
        &["--rw=read", "--bs=4k", "--size=1M", "--lat_percentiles=1"][..],
        &["--rw=read", "--bs=4k", "--size=1M", "--clat_percentiles=0"][..],
        &[
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--percentile_list=50:99.9",
        ][..],
    ]
    .into_iter()
    .enumerate()
    .collect();
    // Each case on a file of its own, so the cases run a few at a time.
    common::cases::each_case(&cases, |&(i, extra)| {
        for fmt in ["--output-format=json", "--output-format=json+"] {
            let f = file_in(d.path(), &format!("keys{i}"));
            let mut a = with_file(extra, &f);
            a.push(fmt.to_string());
            let theirs = {
                let out = std::process::Command::new("fio").args(&a).output().unwrap();
                parse_json(&out.stdout)
            };
            let ours = parse_json(&run_ok(&refs(&a)).stdout);
            let (k_ours, k_theirs) = (keys(&ours), keys(&theirs));
            let missing: Vec<_> = k_theirs.difference(&k_ours).collect();
            let extra_keys: Vec<_> = k_ours.difference(&k_theirs).collect();
            assert!(
                missing.is_empty() && extra_keys.is_empty(),
                "{extra:?} {fmt}: missing {missing:?}, extra {extra_keys:?}"
            );
        }
    });
}

/// The shape of a normal report: one token per line, numbers and names removed.
fn line_kinds(text: &str) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let kind = if t.is_empty() {
            "blank".to_string()
        } else if t.starts_with('|') {
            "pct-row".to_string()
        } else if let Some(rest) = t.strip_prefix("lat (") {
            // Latency-bucket lines: how many depends on the data.
            if rest.contains('=') && rest.contains('%') && !rest.contains("min=") {
                "lat-buckets".to_string()
            } else {
                format!("lat ({}", rest.split(')').next().unwrap_or(""))
            }
        } else if line.starts_with("d: (groupid=") {
            "job-header".to_string()
        } else if let Some(i) = t.find([':', '=']) {
            t[..i].trim().to_string()
        } else {
            t.split_whitespace().next().unwrap_or("").to_string()
        };
        // Units inside the kind depend on the data: nsec/usec/msec, and the bandwidth
        // unit of the "bw (  KiB/s)" sample line (fio 3.33 picks KiB/s or MiB/s by
        // magnitude, so a faster or slower run changes it).
        let kind = kind
            .replace("nsec", "U")
            .replace("usec", "U")
            .replace("msec", "U");
        let kind = ["KiB/s", "MiB/s", "GiB/s", "TiB/s", "kB/s", "MB/s", "GB/s"]
            .iter()
            .fold(kind, |k, u| k.replace(u, "B/s"));
        if kinds.last() == Some(&kind) && (kind == "lat-buckets" || kind == "pct-row") {
            continue;
        }
        kinds.push(kind);
    }
    kinds
}

#[test]
fn same_normal_output_structure_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    // bw/IOPS sample lines appear only once a job has run for bwavgtime, which on a
    // loaded machine is a matter of timing: short jobs push the period out of reach and
    // a time-based job is long enough for both tools to print them.
    const NO_SAMPLES: [&str; 2] = ["--bwavgtime=60000", "--iopsavgtime=60000"];
    for extra in [
        &[
            "--rw=randrw",
            "--bs=4k",
            "--size=1M",
            NO_SAMPLES[0],
            NO_SAMPLES[1],
        ][..],
        &[
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            NO_SAMPLES[0],
            NO_SAMPLES[1],
        ][..],
        &[
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--fsync=8",
            NO_SAMPLES[0],
            NO_SAMPLES[1],
        ][..],
        &[
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            "--time_based",
            "--runtime=2",
            "--invalidate=0",
        ][..],
    ] {
        let f = file_in(d.path(), "normal");
        let a = with_file(extra, &f);
        let theirs = std::process::Command::new("fio").args(&a).output().unwrap();
        let ours = run_ok(&refs(&a));
        let t = String::from_utf8_lossy(&theirs.stdout).to_string();
        let o = String::from_utf8_lossy(&ours.stdout).to_string();
        // Drop the pre-run lines (header, version, "Starting", layout): compare the report.
        let report = |s: &str| s[s.find("d: (groupid=").expect("a job block")..].to_string();
        assert_eq!(
            line_kinds(&report(&o)),
            line_kinds(&report(&t)),
            "{extra:?}\n--- ferrio:\n{o}\n--- fio:\n{t}"
        );
    }
}
