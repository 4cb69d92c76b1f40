//! `--prometheus=ADDR` scraped by a real Prometheus server (Debian's `prometheus`),
//! started here on a temporary configuration and data directory: it scrapes the
//! running job several times, and the last scraped totals equal the final JSON.

mod common;
use common::skip::tool_or_skip;
use common::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port nobody listens on now (the OS's choice for port 0).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// HTTP/1.0 GET; the body, or None when nothing answers.
fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.lines().next()?;
    status.contains(" 200 ").then(|| body.to_string())
}

/// Query Prometheus; the numbers of the result vector by their `rw` label.
fn query(port: u16, q: &str) -> Vec<(String, f64)> {
    let enc: String = q
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let Some(body) = get(port, &format!("/api/v1/query?query={enc}")) else {
        return Vec::new();
    };
    let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    v["data"]["result"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let rw = r["metric"]["rw"].as_str().unwrap_or("").to_string();
            let x: f64 = r["value"][1].as_str().unwrap_or("nan").parse().unwrap();
            (rw, x)
        })
        .collect()
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn prometheus_scrapes_a_running_job_and_its_totals_match_the_json() {
    let Some(prom) = tool_or_skip("prometheus") else {
        return;
    };
    let dir = scratch();
    let (prom_port, our_port) = (free_port(), free_port());
    let cfg = dir.path().join("prometheus.yml");
    std::fs::write(
        &cfg,
        format!(
            "global:\n  scrape_interval: 200ms\n  scrape_timeout: 180ms\n\
             scrape_configs:\n  - job_name: ferrio\n    static_configs:\n\
             \x20     - targets: ['127.0.0.1:{our_port}']\n"
        ),
    )
    .unwrap();
    let _prom = Killed(
        Command::new(prom)
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while get(prom_port, "/-/ready").is_none() {
        assert!(Instant::now() < deadline, "prometheus did not become ready");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Prometheus starts its scrape loops a few seconds after it is ready: wait for
    // the first (failed: nothing listens yet) scrape of our address.
    loop {
        let t = get(prom_port, "/api/v1/targets").unwrap_or_default();
        let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
        let health = v["data"]["activeTargets"][0]["health"]
            .as_str()
            .unwrap_or("");
        if health == "down" || health == "up" {
            break;
        }
        assert!(Instant::now() < deadline, "prometheus never scraped: {t}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A paced real-time job long enough for several scrapes; it serves the final
    // values until Prometheus has scraped them.
    let out = ferrio()
        .args([
            &format!("--prometheus=127.0.0.1:{our_port}"),
            "--prometheus-linger=60s",
            "--name=watched",
            "--ioengine=sim",
            "--size=1g",
            "--rw=randrw",
            "--bs=4k",
            "--rate_iops=2000",
            "--time_based",
            "--runtime=4s",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = parse_json(&out.stdout);
    let job = &json["jobs"][0];
    // Stale markers hide the series once ferrio is gone; range functions still see it.
    let series =
        |m: &str, f: &str| query(prom_port, &format!("{f}({m}{{jobname=\"watched\"}}[10m])"));
    let mut last = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    for rw in ["read", "write"] {
        let want_bytes = job[rw]["io_bytes"].as_f64().unwrap();
        let want_ios = job[rw]["total_ios"].as_f64().unwrap();
        assert!(want_ios > 0.0);
        loop {
            last = series("ferrio_io_bytes_total", "max_over_time");
            let ios = series("ferrio_ios_total", "max_over_time");
            let got = |v: &[(String, f64)]| v.iter().find(|x| x.0 == rw).map(|x| x.1);
            if got(&last) == Some(want_bytes) && got(&ios) == Some(want_ios) {
                let count = series("ferrio_latency_seconds_count", "max_over_time");
                assert_eq!(got(&count), Some(want_ios), "{rw}: latency histogram count");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{rw}: scraped bytes {last:?}, ios {ios:?}; JSON says {want_bytes} bytes, {want_ios} I/Os"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // It watched the job run: earlier scrapes saw smaller totals than the final ones.
    let first = series("ferrio_ios_total", "min_over_time");
    let scrapes = series("ferrio_ios_total", "count_over_time");
    assert!(
        scrapes.iter().all(|s| s.1 >= 2.0),
        "scrapes {scrapes:?}, bytes {last:?}"
    );
    let final_ios = series("ferrio_ios_total", "max_over_time");
    for (rw, lo) in &first {
        let hi = final_ios.iter().find(|x| &x.0 == rw).unwrap().1;
        assert!(*lo < hi, "{rw}: every scrape saw the final total {hi}");
    }
}

#[test]
fn a_bad_or_busy_address_is_refused_before_anything_runs() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = format!("--prometheus={}", busy.local_addr().unwrap());
    let name = format!("--filename={f}");
    for (flag, want) in [
        ("--prometheus=nowhere", "IP:PORT"),
        (busy.as_str(), "cannot listen on"),
    ] {
        let out = ferrio()
            .args([flag, "--name=x", "--rw=write", "--size=1m", &name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag}: {err}");
        assert!(err.contains(want), "{flag}: {err}");
        assert!(
            !std::path::Path::new(&f).exists(),
            "{flag}: a file was laid out"
        );
    }
}
