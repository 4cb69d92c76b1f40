//! Faults in multi-host runs: a server killed mid-run, a server that goes silent, a
//! host that is not ready (no host starts then), a client stopped by SIGINT or killed
//! mid-run (its hosts stop their runs). The others' results stay intact, the
//! failed host is reported with what it had said, and the exit code is non-zero.

mod common;
mod multihost_support;

use common::wait_bounded;
use multihost_support::{json, stderr, Lab, Server};
use std::process::{Child, Stdio};
use std::time::Duration;

const PACED: &str =
    "[p]\nioengine=null\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=4s\nrate_iops=200\n";

/// Run PACED on two servers; `fault` is applied to the second once it is running.
fn run_with_fault(lab: &Lab, fault: &str, extra: &[&str]) -> (std::process::Output, String) {
    let a = lab.server(&[]);
    let b = lab.server(&[]);
    let job = lab.job("p.fio", PACED);
    let hosts = format!("--client={},{}", a.addr, b.addr);
    let mut args = vec![
        hosts.as_str(),
        job.as_str(),
        "--output-format=hosts-json,json",
    ];
    args.extend(extra);
    let out = std::thread::scope(|sc| {
        let h = sc.spawn(|| lab.client(&args));
        b.wait_for("threads admitted");
        // Well into the 4 s run (the start is set 0.2 s ahead), after at least one
        // heartbeat with results (they come once a second).
        std::thread::sleep(Duration::from_millis(2700));
        b.signal(fault);
        h.join().unwrap()
    });
    (out, b.addr.clone())
}

/// Both documents of `--output-format=hosts-json,json`.
fn docs(out: &std::process::Output) -> (serde_json::Value, serde_json::Value) {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut it = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
    let hosts = it.next().unwrap().unwrap();
    let full = it.next().unwrap().unwrap();
    (hosts, full)
}

#[test]
fn a_server_killed_mid_run_is_reported_and_the_others_are_intact() {
    let Some(lab) = Lab::new() else { return };
    let (out, dead) = run_with_fault(&lab, "-KILL", &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("host {dead}: lost: connection lost")),
        "{err}"
    );
    let (hosts, full) = docs(&out);
    let rows = hosts["hosts"].as_array().unwrap();
    assert!(rows[0]["total_ios"].as_u64().unwrap() > 0, "{hosts}");
    assert!(
        rows[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("FAILED (lost)"),
        "{hosts}"
    );
    // What the dead host had done by its last heartbeat.
    let partial = rows[1]["partial"]["total_ios"].as_u64().unwrap();
    assert!(partial > 0, "{hosts}");
    // The total is the surviving host's, exactly.
    assert_eq!(hosts["total"]["total_ios"], rows[0]["total_ios"]);
    let e = &full["client_errors"][0];
    assert_eq!(e["hostname"], dead.as_str());
    assert_eq!(e["stage"], "lost");
    assert_eq!(e["threads"], 1);
    assert!(e["heartbeats"].as_u64().unwrap() >= 1, "{e}");
    assert_eq!(
        e["partial_jobs"][0]["read"]["total_ios"].as_u64(),
        Some(partial)
    );
    let stats = full["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 2, "{full}");
    assert_eq!(stats[1]["read"]["total_ios"], stats[0]["read"]["total_ios"]);
}

#[test]
fn a_silent_server_times_out_with_a_clear_message() {
    let Some(lab) = Lab::new() else { return };
    let (out, silent) = run_with_fault(&lab, "-STOP", &["--client-timeout=1500ms"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "host {silent}: timeout: no word from {silent} for 1.5s (--client-timeout); giving up on it"
        )),
        "{err}"
    );
    let (hosts, _) = docs(&out);
    assert!(
        hosts["hosts"][0]["total_ios"].as_u64().unwrap() > 0,
        "{hosts}"
    );
    assert!(hosts["hosts"][1]["error"]
        .as_str()
        .unwrap()
        .starts_with("FAILED (timeout)"));
    assert!(
        hosts["hosts"][1]["partial"]["total_ios"].as_u64().unwrap() > 0,
        "{hosts}"
    );
}

#[test]
fn an_unreachable_host_stops_the_run_before_any_host_starts() {
    let Some(lab) = Lab::new() else { return };
    let a = lab.server(&[]);
    // A port nobody listens on: bind one, then free it.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let job = lab.job(
        "w.fio",
        &format!(
            "[w]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n",
            lab.p("data/w.bin")
        ),
    );
    let out = lab.client(&[&format!("--client={},{free}", a.addr), &job]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("host {free}: connect: cannot connect to {free}")),
        "{err}"
    );
    assert!(err.contains("no host started"), "{err}");
    assert!(
        !lab.path("data/w.bin").exists(),
        "the ready host ran anyway"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A host that finished but whose job failed (here a file whose directory is a
/// regular file: ENOTDIR, a job error as in fio) is flagged in every hosts format;
/// its counts stay in the Total (the I/O it did is exact) and the exit code is 1.
#[test]
fn a_host_whose_job_failed_is_flagged_in_the_hosts_table() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    std::fs::write(lab.path("data/notadir"), "a file").unwrap();
    let job = lab.job(
        "j.fio",
        &format!(
            "[ok]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n\
             [bad]\nrw=read\nbs=4k\nsize=64k\nfilename={}\n",
            lab.p("data/notadir/f")
        ),
    );
    let hosts = format!("--client={},{}", servers[0].addr, servers[1].addr);
    let out = lab.client(&[
        &hosts,
        &job,
        "--output-format=hosts-json,hosts,hosts-csv,normal",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut docs = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
    let v = docs.next().unwrap().unwrap();
    let rest = &text[docs.byte_offset()..];
    for (row, s) in v["hosts"].as_array().unwrap().iter().zip(&servers) {
        assert_eq!(row["host"], s.addr.as_str(), "{v}");
        assert_eq!(row["total_ios"], 256, "{v}");
        assert_eq!(row["exit_code"], 1, "{v}");
        let e = &row["job_errors"];
        assert_eq!(e.as_array().map(Vec::len), Some(1), "{v}");
        assert_eq!(e[0]["jobname"], "bad", "{v}");
        assert_eq!(e[0]["error"], libc::ENOTDIR, "{v}");
        assert_eq!(e[0]["message"], "Not a directory", "{v}");
        assert!(row.get("error").is_none(), "a finished host: {v}");
        let note = format!(
            "! {}: job 'bad': error=20 (Not a directory); its results are in the Total",
            s.addr
        );
        assert!(rest.contains(&note), "{rest}");
        // fio's client line for a host whose run exited non-zero (normal format).
        let exited = format!("client <{}>: exited with error 1\n", s.addr);
        assert!(rest.contains(&exited), "{rest}");
        assert!(rest.contains(&format!("\n{} ! ", s.addr)), "{rest}");
        let csv = format!("\"{}\",", s.addr);
        let line = rest.lines().find(|l| l.starts_with(&csv)).unwrap();
        assert!(
            line.ends_with(",256,1048576,\"job 'bad': error=20 (Not a directory)\""),
            "{rest}"
        );
    }
    assert_eq!(v["total"]["total_ios"], 512, "{v}");
}

/// A 30 s paced job that the tests below cut short.
const LONG: &str =
    "[long]\nioengine=null\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=30s\nrate_iops=200\n";

/// Spawn a client on `servers` running LONG, wait until every server has started it
/// and sent a heartbeat with results, then send the client `sig`.
fn signalled_client(lab: &Lab, servers: &[&Server], sig: &str, extra: &[&str]) -> Child {
    let job = lab.job("long.fio", LONG);
    let hosts = format!(
        "--client={}",
        servers
            .iter()
            .map(|s| s.addr.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut args = vec![hosts.as_str(), job.as_str()];
    args.extend(extra);
    let child = lab
        .client_cmd(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for s in servers {
        s.wait_for("threads admitted");
    }
    std::thread::sleep(Duration::from_millis(1500));
    let ok = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
    child
}

/// SIGINT to the client stops every host's run, as fio's client sends QUIT: each host
/// ends its jobs and sends what they measured, which is printed in full; the client
/// exits 128 (fio's code for a run a signal stopped). Before, the client died at once
/// and its hosts ran on for the whole 30 s with nobody to report to.
#[test]
fn sigint_to_the_client_stops_every_host_and_prints_what_they_measured() {
    let Some(lab) = Lab::new() else { return };
    let (a, b) = (lab.server(&[]), lab.server(&[]));
    let child = signalled_client(&lab, &[&a, &b], "-INT", &["--output-format=json"]);
    let out = wait_bounded(child, Duration::from_secs(25), "client after SIGINT");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(128), "{err}");
    assert!(err.contains("terminating on signal 2"), "{err}");
    let v = json(&out);
    let stats = v["client_stats"].as_array().unwrap();
    // Each host's job, then All clients.
    assert_eq!(stats.len(), 3, "{v}");
    for j in &stats[..2] {
        assert_eq!(j["error"], 0, "{j}");
        assert!(j["read"]["total_ios"].as_u64().unwrap() > 0, "{j}");
        // Stopped near 1.5 s, not run for its 30 s.
        assert!(j["read"]["runtime"].as_u64().unwrap() < 20_000, "{j}");
    }
    for s in [&a, &b] {
        s.wait_for("the client stopped the run");
    }
}

/// A client that dies mid-run (SIGKILL: no stop sent) leaves its hosts nobody to
/// report to: each sees the connection end and stops its run, and takes the next
/// client's jobs. Before, the run went on for its whole 30 s.
#[test]
fn a_client_killed_mid_run_stops_its_hosts_runs() {
    let Some(lab) = Lab::new() else { return };
    let a = lab.server(&[]);
    let child = signalled_client(&lab, &[&a], "-KILL", &[]);
    let out = wait_bounded(child, Duration::from_secs(10), "killed client");
    assert_eq!(out.status.code(), None, "killed by a signal");
    a.wait_for("the client went away mid-run");
    a.wait_for("stopping the run");
    let job = lab.job(
        "short.fio",
        "[s]\nioengine=null\nrw=read\nbs=4k\nsize=64k\n",
    );
    let next = lab.client(&[
        &format!("--client={}", a.addr),
        &job,
        "--output-format=json",
    ]);
    assert!(next.status.success(), "{}", stderr(&next));
}

/// The reader of the client's stdout goes away mid-run (`ferrio --client=... |
/// head`): the next interval report finds EPIPE, the hosts are stopped as after
/// SIGINT, and the client ends by SIGPIPE, silently, as fio's would.
#[test]
fn a_closed_stdout_stops_the_hosts_and_the_client_ends_by_sigpipe() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let Some(lab) = Lab::new() else { return };
    let a = lab.server(&[]);
    let job = lab.job("long.fio", LONG);
    let mut child = lab
        .client_cmd(&[&format!("--client={}", a.addr), &job, "--status-interval=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the first interval report's first bytes, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = wait_bounded(child, Duration::from_secs(25), "client with stdout closed");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Broken pipe"), "{}", stderr(&out));
    a.wait_for("the client stopped the run");
}

/// An --output the client cannot write is refused before any host runs: found after
/// the run (as before), every host's results were lost. A run in which no host
/// starts leaves no report file behind.
#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_host_runs() {
    let Some(lab) = Lab::new() else { return };
    let a = lab.server(&[]);
    let job = lab.job("j.fio", "[j]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n");
    let hosts = format!("--client={}", a.addr);
    let missing = format!("--output={}", lab.p("missing/out.json"));
    let out = lab.client(&[&hosts, &job, &missing]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write --output"), "{err}");
    assert!(!a.log().contains("threads admitted"), "{}", a.log());
    // No host starts (one is unreachable): the report file made for the run goes.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let report = lab.path("out.json");
    let out = lab.client(&[
        &format!("--client={},{free}", a.addr),
        &job,
        &format!("--output={}", report.display()),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!report.exists(), "an empty report file was left");
}
