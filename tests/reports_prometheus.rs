//! `--prometheus=ADDR` scraped by a real Prometheus server (Debian's `prometheus`),
//! started here on a temporary configuration and data directory: it scrapes the
//! running job several times, and the last scraped totals equal the final JSON. The
//! endpoint read directly: the job's state and its steady-state status.

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
    let prom_port = free_port();
    let our_port = loop {
        match free_port() {
            p if p == prom_port => continue,
            p => break p,
        }
    };
    let cfg = dir.path().join("prometheus.yml");
    // A scrape that takes more than its timeout is dropped by Prometheus, and the
    // one that reads the final values must not be: a timeout generous for a loaded
    // machine (the scrape itself takes milliseconds).
    std::fs::write(
        &cfg,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
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
    let deadline = Instant::now() + Duration::from_secs(120);
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
            "--runtime=6s",
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
    let deadline = Instant::now() + Duration::from_secs(90);
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
    // The rate gauges moved while it ran, and the job's state reached done.
    for g in ["ferrio_iops", "ferrio_bandwidth_bytes_per_second"] {
        let top = series(g, "max_over_time");
        assert!(
            top.len() == 2 && top.iter().all(|x| x.1 > 0.0),
            "{g}: {top:?}"
        );
    }
    let state = query(
        prom_port,
        "max_over_time(ferrio_job_state{jobname=\"watched\"}[10m])",
    );
    assert_eq!(state.first().map(|x| x.1), Some(3.0), "job state {state:?}");
}

/// The value of the sample `name{labels}` in an exposition, if present.
fn sample(body: &str, name_labels: &str) -> Option<f64> {
    body.lines()
        .find_map(|l| l.strip_prefix(name_labels)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

/// Scraping the endpoint directly until ferrio exits (the linger serves the final
/// values until a scrape that began after the run ended): the last scrape says done,
/// steady state attained as the JSON says, and has the JSON's totals and latency count.
#[test]
fn the_final_scrape_says_done_and_steady_state_attained() {
    let port = free_port();
    let dir = scratch();
    let report = dir.path().join("out.json");
    let child = ferrio()
        .args([
            &format!("--prometheus=127.0.0.1:{port}"),
            "--prometheus-linger=300s",
            "--name=ss",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--size=1g",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=8",
            "--sim_lat=lognormal:80us:20us",
            "--time_based",
            "--runtime=60s",
            "--ss=iops:5%",
            "--ss_dur=5s",
            "--output-format=json",
            &format!("--output={}", report.display()),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Killed(child);
    let labels = "{jobname=\"ss\",jobnum=\"0\"}";
    let state = format!("ferrio_job_state{labels}");
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut last = String::new();
    let status = loop {
        if let Some(b) = get(port, "/metrics") {
            last = b;
        }
        if let Some(st) = child.0.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "ferrio still serving; last scrape:\n{last}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    let body = last;
    assert_eq!(sample(&body, &state), Some(3.0), "done: {body}");
    let json = parse_json(&std::fs::read(&report).unwrap());
    let job = &json["jobs"][0];
    assert_eq!(
        job["steadystate"]["attained"], 1,
        "the job reaches steady state"
    );
    let attained = sample(&body, &format!("ferrio_steadystate_attained{labels}"));
    assert_eq!(attained, Some(1.0), "{body}");
    let filled = sample(
        &body,
        &format!("ferrio_steadystate_intervals_filled{labels}"),
    );
    assert_eq!(filled, Some(5.0), "ss_dur=5s of 1 s intervals: {body}");
    let rd = "{jobname=\"ss\",jobnum=\"0\",rw=\"read\"}";
    for (metric, key) in [
        ("ferrio_ios_total", "total_ios"),
        ("ferrio_io_bytes_total", "io_bytes"),
        ("ferrio_latency_seconds_count", "total_ios"),
    ] {
        assert_eq!(
            sample(&body, &format!("{metric}{rd}")),
            job["read"][key].as_f64(),
            "{metric}: {body}"
        );
    }
}

#[test]
fn a_bad_or_busy_address_is_refused_before_anything_runs() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = format!("--prometheus={}", busy.local_addr().unwrap());
    let name = format!("--filename={f}");
    for (flag, sweep, want) in [
        ("--prometheus=nowhere", None, "IP:PORT"),
        (busy.as_str(), None, "cannot listen on"),
        (
            busy.as_str(),
            Some("--sweep=iodepth=1,2"),
            "cannot listen on",
        ),
    ] {
        let out = ferrio()
            .args([flag, "--name=x", "--rw=write", "--size=1m", &name])
            .args(sweep)
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

/// A sweep keeps one endpoint for all its points, scraped throughout: every point
/// runs (binding the address again per point failed while the old listener's thread
/// still held it) and each point's final values are served before the next starts.
#[test]
fn a_sweep_serves_every_point_on_one_endpoint() {
    let port = free_port();
    let child = ferrio()
        .args([
            "--sweep=iodepth=1,2,3",
            &format!("--prometheus=127.0.0.1:{port}"),
            "--prometheus-linger=300s",
            "--name=pt",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--size=1g",
            "--rw=randread",
            "--bs=4k",
            "--number_ios=20000",
            "--output-format=csv",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Killed(child);
    let state = "ferrio_job_state{jobname=\"pt\",jobnum=\"0\"}";
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut done_scrapes = 0;
    let status = loop {
        if let Some(b) = get(port, "/metrics") {
            if sample(&b, state) == Some(3.0) {
                done_scrapes += 1;
            }
        }
        if let Some(st) = child.0.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < deadline, "the sweep never ended");
        std::thread::sleep(Duration::from_millis(10));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{out}");
    // Each point lingered until a scrape read its final values.
    assert!(done_scrapes >= 3, "{done_scrapes} scrapes saw a point done");
}
