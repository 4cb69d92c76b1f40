//! fio's own json+ consumer, `fio_jsonplus_clat2csv`, must accept ferrio's json+:
//! it converts the document to CSV, then a second run with `--validate` rebuilds the
//! bins from that CSV and asserts they equal the json+ bins; the CSV must also hold
//! exactly our bins. Skipped, with a
//! note, where the tool is not installed.
//!
//! The tool starts each row's search at a hard-coded 17112760320 (fio's last bin),
//! so it never finishes on a key above it — keys fio itself never prints but
//! ferrio's full-range bins do for latencies past ~17.1 s (docs/live.md). It is run
//! here on a report whose latencies stay within fio's range.

mod json_support;

use ferrio_report::json::render;
use ferrio_report::model::RunReport;
use ferrio_stats::{LatencyHistogram, FIO_MAX_BIN};
use std::path::Path;
use std::process::Command;
use std::process::Output;
use std::time::{Duration, Instant};

const TOOL: &str = "/usr/bin/fio_jsonplus_clat2csv";

/// The tool loops forever (writing without end) on a bin key above 17112760320, so
/// never let it run unbounded: kill it after a minute and fail.
fn run_with_timeout(cmd: &mut Command) -> Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fio_jsonplus_clat2csv did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn fio_jsonplus_clat2csv_accepts_ferrio_output() {
    if !Path::new(TOOL).exists() {
        eprintln!("{TOOL} not installed; skipping");
        return;
    }
    let report = within_fio_range(json_support::report());
    let dir = std::env::temp_dir().join(format!("ferrio-clat2csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _cleanup = RemoveDir(dir.clone());
    let src = dir.join("run.json");
    std::fs::write(&src, render(&report, true)).unwrap();
    for validate in [false, true] {
        let mut cmd = Command::new(TOOL);
        if validate {
            cmd.arg("--validate");
        }
        let out = run_with_timeout(cmd.arg(&src).arg(dir.join("lat.csv")));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "tool failed:\n{stdout}\n{stderr}");
        if validate {
            assert_eq!(stdout.matches("validated").count(), 2, "{stdout}");
        }
    }

    // One CSV per job; check job 0's read clat column against our bins.
    let csv = std::fs::read_to_string(dir.join("lat_job0.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let nsec = header.iter().position(|h| h == "nsec").unwrap();
    let count = header
        .iter()
        .position(|h| h == "read_clat_ns_count")
        .unwrap();
    let mut rows = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        let c: f64 = f[count].parse().unwrap_or(0.0);
        if c > 0.0 {
            rows.push((f[nsec].parse::<u64>().unwrap(), c as u64));
        }
    }
    assert_eq!(rows, report.jobs[0].dir[0].clat.bins());
    // Within fio's range ferrio's bins are exactly fio's.
    assert_eq!(rows, report.jobs[0].dir[0].clat.fio_bins());
    assert!(dir.join("lat_job1.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The report with every latency beyond fio's last bin left out.
fn within_fio_range(mut r: RunReport) -> RunReport {
    let keep = |h: &LatencyHistogram| {
        let mut out = LatencyHistogram::new();
        for (v, c) in h.bins() {
            if v <= FIO_MAX_BIN {
                out.record_n(v, c);
            }
        }
        out
    };
    for j in &mut r.jobs {
        for d in &mut j.dir {
            for h in [&mut d.slat, &mut d.clat, &mut d.lat] {
                if h.max() > FIO_MAX_BIN {
                    *h = keep(h);
                }
            }
        }
    }
    assert!(r.jobs[0].dir[0].clat.count() > 900);
    r
}

/// Removes its directory when dropped, so a run (passing or not) leaves nothing in /tmp.
struct RemoveDir(std::path::PathBuf);

impl Drop for RemoveDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
