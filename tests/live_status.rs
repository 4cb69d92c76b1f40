//! --status-interval reports, SIGUSR1 reports and the interval line format.

mod common;
use common::*;
use std::time::Duration;

fn lines_json(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("line is not JSON ({e}): {l}")))
        .collect()
}

fn ddir_u64(doc: &serde_json::Value, dir: &str, key: &str) -> u64 {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j[dir][key].as_u64().unwrap())
        .sum()
}

#[test]
fn status_interval_json_lines_deltas_sum_to_totals() {
    for fmt in ["json", "json+"] {
        let out = run_ok(&[
            "--name=t",
            "--ioengine=null",
            "--rw=randrw",
            "--size=1G",
            "--time_based",
            "--runtime=2500ms",
            "--numjobs=2",
            "--status-interval=500ms",
            "--json-lines",
            &format!("--output-format={fmt}"),
        ]);
        let docs = lines_json(&out.stdout);
        assert!(docs.len() >= 3, "{} reports", docs.len());
        let last = docs.last().unwrap();
        assert_eq!(last["ferrio_report"], "final");
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(d["seq"].as_u64(), Some(i as u64 + 1));
            assert!(d["cumulative"]["jobs"].is_array() && d["interval"]["jobs"].is_array());
            if i + 1 < docs.len() {
                assert_eq!(d["ferrio_report"], "periodic");
            }
        }
        for dir in ["read", "write"] {
            for key in ["total_ios", "io_bytes"] {
                let sum: u64 = docs
                    .iter()
                    .map(|d| ddir_u64(&d["interval"], dir, key))
                    .sum();
                assert_eq!(
                    sum,
                    ddir_u64(&last["cumulative"], dir, key),
                    "{fmt} {dir} {key}"
                );
                assert!(sum > 0);
            }
        }
        // Cumulative counts never go down, and each is the sum of the intervals so far.
        let mut acc = 0;
        for d in &docs {
            acc += ddir_u64(&d["interval"], "read", "total_ios");
            assert_eq!(acc, ddir_u64(&d["cumulative"], "read", "total_ios"));
        }
        // Interval latency percentiles are there for an interval with I/O.
        let first = &docs[0]["interval"]["jobs"][0]["read"];
        assert!(first["total_ios"].as_u64().unwrap() > 0);
        assert!(
            first["clat_ns"]["percentile"]["99.000000"]
                .as_u64()
                .unwrap()
                > 0
        );
        if fmt == "json+" {
            assert!(first["clat_ns"]["bins"].is_object());
        }
    }
}

#[test]
fn status_interval_normal_prints_interval_and_cumulative() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--size=1G",
        "--time_based",
        "--runtime=1200ms",
        "--status-interval=500ms",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("<ferrio periodic report 1:"), "{text}");
    assert!(text.contains("--- interval: the last"));
    assert!(text.contains("--- cumulative ---"));
    assert!(text.contains("Run status group 0 (all jobs):"));
}

#[test]
fn interval_lines_add_up_to_the_total_line() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--rw=randread",
        "--size=1G",
        "--time_based",
        "--runtime=1500ms",
        "--status-interval=250ms",
        "--interval-percentiles=50:99.9",
        "--output-format=interval",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let ios = |l: &str| -> u64 {
        let f: Vec<&str> = l.split_whitespace().collect();
        let i = f.iter().position(|x| *x == "ios").unwrap();
        f[i - 1].parse().unwrap()
    };
    let intervals: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("total"))
        .collect();
    let totals: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("total"))
        .collect();
    assert!(intervals.len() >= 3, "{text}");
    assert_eq!(totals.len(), 1, "{text}");
    for l in &intervals {
        assert!(l.contains(" read "), "{l}");
        assert!(
            l.contains("p50=") && l.contains("p99.9=") && l.contains("max="),
            "{l}"
        );
    }
    let sum: u64 = intervals.iter().map(|l| ios(l)).sum();
    assert_eq!(sum, ios(totals[0]), "{text}");
}

/// Whether a status line shows reads being done (`[r=175k IOPS]`, not `[r=0 IOPS]`).
fn reading(line: &str) -> bool {
    let Some(end) = line.find(" IOPS]") else {
        return false;
    };
    let Some(start) = line[..end].rfind("[r=") else {
        return false;
    };
    line[start + 3..end]
        .chars()
        .any(|c| ('1'..='9').contains(&c))
}

/// SIGUSR1 while the job runs: the whole document at the signal, then (here after
/// SIGTERM, so no timing decides which comes first) the final document. The signal
/// is sent once the status line shows reads being done, so the job is running and
/// its handler installed however slow the machine is.
#[test]
fn sigusr1_prints_a_report_on_demand() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let d = scratch();
    let report = d.path().join("r.json");
    let mut child = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=600s",
            "--output-format=json",
            "--eta=always",
            "--eta-interval=250ms",
            "--eta-newline=250ms",
        ])
        .arg(format!("--output={}", report.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let kill = |sig: &str, pid: u32| {
        let ok = std::process::Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .unwrap();
        assert!(ok.success(), "kill {sig}");
    };
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut l = String::new();
        if lines.read_line(&mut l).unwrap() == 0 {
            let _ = child.kill();
            panic!("ended before reading: {seen}");
        }
        seen.push_str(&l);
        if reading(&l) {
            break;
        }
    }
    // Keep the status lines flowing while we wait.
    let drain = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = lines.read_to_string(&mut rest);
    });
    kill("-USR1", child.id());
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while json_stream_prefix(&std::fs::read(&report).unwrap_or_default()).is_empty() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("no report after SIGUSR1");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    kill("-TERM", child.id());
    let out = child.wait_with_output().unwrap();
    drain.join().unwrap();
    assert_eq!(
        out.status.code(),
        Some(128),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = json_stream(&std::fs::read(&report).unwrap());
    // As fio: the whole document at the signal, then the usual final document.
    assert_eq!(docs.len(), 2, "{docs:?}");
    let at_signal = ddir_u64(&docs[0], "read", "total_ios");
    assert!(at_signal > 0);
    assert!(ddir_u64(&docs[1], "read", "total_ios") > at_signal);
}

/// The complete JSON documents at the start of `bytes` (a file still being written).
fn json_stream_prefix(bytes: &[u8]) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_slice(bytes)
        .into_iter::<serde_json::Value>()
        .map_while(Result::ok)
        .collect()
}

/// Concatenated JSON documents (fio's --status-interval json output).
fn json_stream(stdout: &[u8]) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_slice(stdout)
        .into_iter::<serde_json::Value>()
        .map(|d| d.expect("a JSON document"))
        .collect()
}

#[test]
fn status_interval_json_is_fios_pretty_documents_unless_json_lines_is_asked() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--size=1G",
        "--time_based",
        "--runtime=1600ms",
        "--status-interval=400ms",
        "--output-format=json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let docs = json_stream(&out.stdout);
    assert!(docs.len() >= 3, "{} documents", docs.len());
    assert_eq!(
        text.matches("\n{\n  \"fio version\"").count() + 1,
        docs.len(),
        "{text}"
    );
    let ios: Vec<u64> = docs
        .iter()
        .map(|d| ddir_u64(d, "read", "total_ios"))
        .collect();
    assert!(ios.windows(2).all(|w| w[0] <= w[1]), "{ios:?}");
    assert!(docs.iter().all(|d| d.get("ferrio_report").is_none()));
}
