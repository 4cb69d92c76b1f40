//! fio's own log tools (Debian's fio package) read ferrio's logs: fio_generate_plots
//! (needs gnuplot), fio2gnuplot, and fiologparser_hist.py (needs pandas). A tool that
//! is missing is skipped with a SKIP message, and fails the test when CI is set.
//!
//! fiologparser.py is not tested: the copy shipped with fio 3.33 expects four columns
//! and fails on fio 3.33's own logs, which have five.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

fn write_logs(dir: &Path) {
    let prefix = file_in(dir, "s");
    run_ok(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=uniform:50us:150us",
        "--rw=randrw",
        "--bs=4k",
        "--size=64M",
        "--time_based",
        "--runtime=5s",
        &format!("--write_bw_log={prefix}"),
        &format!("--write_iops_log={prefix}"),
        &format!("--write_lat_log={prefix}"),
        &format!("--write_hist_log={prefix}"),
        "--log_avg_msec=500",
        "--output-format=terse",
    ]);
}

fn tool(name: &str) -> Option<std::path::PathBuf> {
    common::skip::tool_or_skip(name)
}

#[test]
fn fio_generate_plots_draws_every_log() {
    if !have_fio() || tool("gnuplot").is_none() {
        return;
    }
    let Some(t) = tool("fio_generate_plots") else {
        return;
    };
    let d = scratch();
    write_logs(d.path());
    let out = Command::new(t)
        .arg("s")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for kind in ["bw", "iops", "lat", "clat", "slat"] {
        let svg = d.path().join(format!("s-{kind}.svg"));
        let text = std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{kind}: {e}"));
        // A drawn series is a path in the SVG.
        assert!(text.contains("<path"), "{kind}: no plot");
    }
}

#[test]
fn fio2gnuplot_computes_the_bandwidth_statistics() {
    if !have_fio() {
        return;
    }
    let Some(t) = tool("fio2gnuplot") else {
        return;
    };
    let d = scratch();
    write_logs(d.path());
    let out = Command::new(t)
        .args(["-b", "-d", "."])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let global = std::fs::read_to_string(d.path().join("result.global")).unwrap();
    let avg: f64 = global
        .lines()
        .find_map(|l| l.strip_prefix("avg="))
        .expect("avg= line")
        .parse()
        .unwrap();
    assert!(avg > 0.0, "{global}");
}

#[test]
fn fiologparser_hist_reads_the_histogram_log() {
    if !have_fio() {
        return;
    }
    let script = Path::new("/usr/share/doc/fio/fiologparser_hist.py.gz");
    let python = Path::new("/usr/bin/python3");
    if !script.exists() || !python.exists() {
        common::skip::skip("fiologparser_hist.py or /usr/bin/python3 missing");
        return;
    }
    let has_pandas = Command::new(python)
        .args(["-c", "import pandas, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !has_pandas {
        common::skip::skip("python3-pandas not installed");
        return;
    }
    let d = scratch();
    write_logs(d.path());
    let gz = std::fs::read(script).unwrap();
    let py = d.path().join("fiologparser_hist.py");
    let mut unzip = Command::new("gzip")
        .args(["-dc"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        unzip.stdin.take().unwrap().write_all(&gz).unwrap();
    }
    std::fs::write(&py, unzip.wait_with_output().unwrap().stdout).unwrap();
    let out = Command::new(python)
        .arg(&py)
        .arg("s_clat_hist.1.log")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().starts_with("end-time, samples"),
        "{text}"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
        .collect();
    // The tool sums both directions per 1 s interval by default.
    assert_eq!(rows.len(), 5, "{text}");
    for r in &rows {
        // samples > 0; min <= median <= max; latencies within the simulated 50-150 us
        // (the tool reports in the log's unit, ns), give or take fio's bucket width.
        assert!(r[1] > 0.0, "{r:?}");
        assert!(r[2] <= r[4] && r[4] <= r[8], "{r:?}");
        assert!(r[2] >= 45_000.0 && r[8] <= 170_000.0, "{r:?}");
    }
}
