//! `--sweep` and `--repeat` end to end: a queue-depth sweep of the simulated device in
//! virtual time follows the closed-queue model (Little's law) in every row; tables in
//! text, CSV and JSON; job files are swept like command lines; numjobs clones are one
//! row; repeats give spreads; `--settle` pauses between points; a stopped sweep keeps
//! its finished points; bad sweeps are refused before anything runs.

mod common;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

fn sim(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--sim_bw=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn sweep_json(args: &[String]) -> Value {
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_json(&a)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// N commands always in flight on C channels with mean service time S: X = min(N, C)/S
/// and, by Little's law, mean latency N/X, in every row of the sweep.
#[test]
fn sim_depth_sweep_follows_littles_law_in_every_row() {
    let (c, s_ns) = (4.0, 100_000.0);
    for (dist, tol) in [("fixed:100us", 0.005), ("exponential:100us", 0.03)] {
        let v = sweep_json(&sim(&[
            "--sweep=iodepth=1,2,3,4..64:x2",
            &format!("--sim_lat={dist}"),
            "--sim_channels=4",
            "--number_ios=40000",
        ]));
        let rows = v["rows"].as_array().unwrap();
        let depths: Vec<&str> = rows
            .iter()
            .map(|r| r["point"]["iodepth"].as_str().unwrap())
            .collect();
        assert_eq!(depths, ["1", "2", "3", "4", "8", "16", "32", "64"], "{v}");
        assert_eq!(v["sweep"]["finished_points"], 8);
        for r in rows {
            let n: f64 = r["point"]["iodepth"].as_str().unwrap().parse().unwrap();
            let x = num(&r["iops"]["mean"]);
            let lat = num(&r["lat_mean_ns"]["mean"]);
            let want_x = n.min(c) * 1e9 / s_ns;
            assert!(
                (x / want_x - 1.0).abs() <= tol,
                "{dist} N={n}: X={x}, model {want_x}"
            );
            let want_lat = n * 1e9 / want_x;
            assert!(
                (lat / want_lat - 1.0).abs() <= tol,
                "{dist} N={n}: mean latency {lat}, model {want_lat}"
            );
            // Little's law on the table's own numbers.
            assert!(((x * lat / 1e9) / n - 1.0).abs() <= 0.01, "{dist} N={n}");
            assert_eq!(r["dir"], "read");
            assert!(num(&r["bw_bytes"]["mean"]) > 0.0);
            if dist.starts_with("fixed") {
                // Fixed service: every I/O (after the first batch) waits N/C services,
                // so each percentile is the mean, within the histogram's bucket error.
                for p in ["lat_p50_ns", "lat_p99_ns", "lat_p99.9_ns"] {
                    let got = num(&r[p]["mean"]);
                    assert!(
                        (got / want_lat - 1.0).abs() <= 0.01,
                        "{dist} N={n}: {p} {got}, model {want_lat}"
                    );
                }
            }
        }
    }
}

/// A job file's every job section takes the point's value (overriding its own), and
/// `[global]` is left alone: each job's row obeys Little's law at the swept depth.
#[test]
fn a_job_file_is_swept_in_every_job_section() {
    let d = scratch();
    let job = d.path().join("two.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=sim\nclocksource=virtual\nsize=1g\nbs=4k\nsim_bw=0\n\
         sim_channels=4\nsim_lat=fixed:100us\nnumber_ios=4000\niodepth=1\n\n\
         [reader]\nrw=randread\niodepth=32\n\n[writer]\nrw=randwrite\n",
    )
    .unwrap();
    let v = run_json(&[job.to_str().unwrap(), "--sweep=iodepth=2,8"]);
    let rows = v["rows"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["point"]["iodepth"].as_str().unwrap(),
                r["job"].as_str().unwrap(),
                r["dir"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("2", "reader", "read"),
            ("2", "writer", "write"),
            ("8", "reader", "read"),
            ("8", "writer", "write")
        ],
        "{v}"
    );
    for r in rows {
        let n: f64 = r["point"]["iodepth"].as_str().unwrap().parse().unwrap();
        let (x, lat) = (num(&r["iops"]["mean"]), num(&r["lat_mean_ns"]["mean"]));
        assert!(((x * lat / 1e9) / n - 1.0).abs() <= 0.01, "N={n}: {r}");
        let want_x = n.min(4.0) * 10_000.0;
        assert!(
            (x / want_x - 1.0).abs() <= 0.005,
            "N={n}: X={x}, model {want_x}"
        );
    }
}

/// numjobs clones (no group_reporting) are one row per point, summed as
/// group_reporting sums them: the throughput grows with the clones.
#[test]
fn a_numjobs_sweep_sums_the_clones_in_one_row() {
    let args = sim(&[
        "--sweep=numjobs=1..3",
        "--sim_lat=fixed:100us",
        "--sim_channels=16",
        "--number_ios=2000",
    ]);
    let v = sweep_json(&args);
    let mut grouped = args.clone();
    grouped.push("--group_reporting".into());
    let g = sweep_json(&grouped);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{v}");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["runs"], 1, "one run per point, not one per clone: {r}");
        let x = num(&r["iops"]["mean"]);
        let want = (i + 1) as f64 * 10_000.0;
        assert!((x / want - 1.0).abs() <= 0.005, "numjobs={}: {x}", i + 1);
        for m in ["iops", "bw_bytes", "lat_mean_ns", "lat_p99_ns"] {
            assert_eq!(r[m]["mean"], g["rows"][i][m]["mean"], "{m}: {r} vs {g}");
        }
    }
}

/// `--settle` pauses before every point but the first, and says so; a signal during
/// the pause stops the sweep with the finished points kept.
#[test]
fn settle_pauses_between_points_and_a_signal_ends_the_pause() {
    let mut child = ferrio()
        .args(sim(&[
            "--sweep=iodepth=1,2",
            "--number_ios=1000",
            "--settle=1h",
            "--output-format=csv",
        ]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!("ended without settling: {seen}");
        }
        seen.push_str(&line);
        if line.contains("settling 3600s before sweep point 2/2 run 1/1") {
            break;
        }
    }
    assert!(seen.contains("sweep point 1/2 iodepth=1"), "{seen}");
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(128), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].starts_with("1,t,read,1,"), "{text}");
    let rest = String::from_utf8_lossy(&out.stderr);
    assert!(!rest.contains("sweep point 2/2 iodepth=2"), "{rest}");
}

#[test]
fn text_and_csv_tables_have_a_row_per_point_and_direction() {
    let mut a = sim(&[
        "--sweep=bs=4k..8k:x2",
        "--sweep=iodepth=1,2",
        "--rw=randrw",
        "--number_ios=2000",
    ]);
    a.push("--output-format=normal,csv".into());
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    let out = run_ok(&a);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("| bs | iodepth | job | dir "),
        "{text}"
    );
    // 2 bs × 2 depths × (read, write) rows, after the header and the rule.
    let table: Vec<&&str> = lines.iter().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(table.len(), 9, "{text}");
    assert!(
        lines[2].starts_with("| 4k | 1       | t   | read "),
        "{text}"
    );
    let csv_head = lines
        .iter()
        .position(|l| l.starts_with("bs,iodepth,job,dir"))
        .unwrap();
    let csv = &lines[csv_head + 1..];
    assert_eq!(csv.len(), 8, "{text}");
    assert!(csv[7].starts_with("8k,2,t,write,1,"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sweep point 4/4 bs=8k iodepth=2"),
        "{stderr}"
    );
}

#[test]
fn repeats_report_the_spread_and_flag_unstable_points() {
    // The sim in virtual time repeats exactly: three identical runs, zero spread.
    let v = sweep_json(&sim(&[
        "--repeat=3",
        "--sim_lat=exponential:100us",
        "--number_ios=3000",
    ]));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let bw = &rows[0]["bw_bytes"];
    assert_eq!(bw["values"].as_array().unwrap().len(), 3);
    assert_eq!(num(&bw["stddev"]), 0.0, "the sim is deterministic: {bw}");
    assert_eq!(num(&bw["min"]), num(&bw["max"]));
    assert_eq!(rows[0]["unstable"], 0);
    assert_eq!(v["sweep"]["repeat"], 3);
    // Real time: three runs of 300 ms never move exactly the same bytes, so a tiny
    // --cv-limit flags the point (the formats are unit-tested in
    // crates/report/src/sweep.rs).
    let v = run_json(&[
        "--repeat=3",
        "--cv-limit=0.000001",
        "--name=n",
        "--ioengine=null",
        "--size=1g",
        "--rw=read",
        "--time_based",
        "--runtime=300ms",
    ]);
    let row = &v["rows"][0];
    assert!(num(&row["bw_bytes"]["cv_pct"]) > 0.0, "{row}");
    assert_eq!(row["unstable"], 1, "{row}");
    assert_eq!(v["sweep"]["cv_limit_pct"], 0.000001);
}

/// SIGINT during the third point: the two finished points are printed, the
/// interrupted one is dropped, the sweep stops and exits 128. (The third point runs
/// for ten minutes, so the signal lands inside it however slow the machine is.)
#[test]
fn an_interrupted_sweep_keeps_the_finished_points() {
    let mut child = ferrio()
        .args([
            "--sweep=runtime=1,2,600,601,602",
            "--name=slow",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--output-format=csv",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "ended early: {seen}");
        seen.push_str(&line);
        if line.contains("sweep point 3/5") {
            break;
        }
    }
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(128), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("1,slow,read,") && rows[1].starts_with("2,slow,read,"));
    let rest = String::from_utf8_lossy(&out.stderr);
    assert!(!rest.contains("sweep point 4/5"), "{rest}");
}

#[test]
fn bad_sweeps_are_refused_before_anything_runs() {
    let dir = scratch();
    let file = file_in(dir.path(), "f");
    for (args, want) in [
        (
            vec!["--sweep=nosuch=1,2"],
            "KEY=LIST where KEY is a job option",
        ),
        (vec!["--sweep=iodepth=8..1"], "runs backwards"),
        (vec!["--sweep=iodepth"], "KEY=LIST"),
        (
            vec!["--sweep=iodepth=1", "--sweep=iodepth=2"],
            "each option swept once",
        ),
        (vec!["--sweep=rw=read,sideways"], "sweep point rw=sideways"),
        (vec!["--repeat=0"], "--repeat"),
        (vec!["--settle=soon", "--repeat=2"], "--settle"),
    ] {
        let mut a = args.clone();
        let name = format!("--filename={file}");
        a.extend(["--name=x", "--size=1m", "--rw=write", name.as_str()]);
        let out = ferrio().args(&a).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{a:?}: {err}");
        assert!(err.contains(want), "{a:?}: {err}");
        assert!(out.stdout.is_empty(), "{a:?}");
        assert!(!std::path::Path::new(&file).exists(), "{a:?} wrote a file");
    }
}
