//! ioengine=net and netsplice over loopback only (127.0.0.1, ::1, unix sockets in a
//! temporary directory): a receiving and a sending job in one job file, with exact
//! byte and I/O counts on both ends; fio's option rules; and every wait for a peer
//! bounded (net_timeout, signals), so a missing peer is a clear error, never a hang.

mod common;
mod net_support;
use common::*;
use net_support::*;

/// A job file: `global` lines, then a [receiver] and a [sender] job with their lines.
fn pair(global: &str, receiver: &str, sender: &str) -> String {
    format!(
        "[global]\n{global}\nnet_timeout=20\n\n[receiver]\nrw=read\n{receiver}\n\n[sender]\nrw=write\nstartdelay=300ms\n{sender}\n"
    )
}

/// A UDP sender's open message is lost if it comes before the reader binds (fio's
/// protocol has no retry): on a loaded machine the reader's thread may start late, so
/// UDP senders wait longer (a later startdelay in the sender's lines overrides the pair's 300 ms).
const UDP_DELAY: &str = "startdelay=2";

/// Run a job file with ferrio (JSON output) within 60 s; it must succeed.
fn run_pair(dir: &std::path::Path, job_file: &str) -> serde_json::Value {
    let path = dir.join("net.fio");
    std::fs::write(&path, job_file).unwrap();
    let mut cmd = ferrio();
    cmd.arg(&path).arg("--output-format=json");
    let out = bounded(cmd, 60, "ferrio net job");
    assert!(out.status.success(), "{job_file}\n{}", text(&out));
    parse_json(&out.stdout)
}

/// Both ends moved exactly `bytes` in `ios` I/Os, without error.
fn assert_exact(v: &serde_json::Value, bytes: u64, ios: u64) {
    let (r, s) = (job_named(v, "receiver"), job_named(v, "sender"));
    assert_eq!(r["error"], 0, "{r}");
    assert_eq!(s["error"], 0, "{s}");
    assert_eq!(counts(r, "read"), (bytes, ios), "receiver");
    assert_eq!(counts(s, "write"), (bytes, ios), "sender");
    assert_eq!(counts(r, "write").0, 0);
    assert_eq!(counts(s, "read").0, 0);
    // A UDP reader checks the sender's sequence trailers: nothing was lost.
    assert_eq!(r["read"]["drop_ios"], 0);
}

#[test]
fn tcp_receiver_and_sender_in_one_job_file_move_exactly_the_size() {
    let port = free_port(1);
    let mut cmd = ferrio();
    cmd.arg(jobs_dir().join("netio.fio"))
        .args(["--output-format=json"])
        .env("NETPORT", port.to_string());
    let out = bounded(cmd, 60, "tests/jobs/netio.fio");
    assert!(out.status.success(), "{}", text(&out));
    assert_exact(&parse_json(&out.stdout), 8 << 20, 2048);
}

#[test]
fn tcp_netsplice_nodelay_window_and_mss_move_exactly_the_size() {
    let dir = scratch();
    let port = free_port(1);
    for engine in ["net", "netsplice"] {
        let g = format!(
            "ioengine={engine}\nport={port}\nbs=64k\nsize=4m\nnodelay=1\nwindow_size=256k\nmss=1400"
        );
        let v = run_pair(dir.path(), &pair(&g, "listen", "hostname=localhost"));
        assert_exact(&v, 4 << 20, 64);
    }
}

#[test]
fn tcpv6_and_udpv6_over_ipv6_loopback() {
    if !have_ipv6_loopback() {
        skip::skip("no IPv6 loopback (::1) in this network namespace");
        return;
    }
    let dir = scratch();
    let port = free_port(1);
    let g = format!("ioengine=net\nprotocol=tcpv6\nport={port}\nbs=4k\nsize=1m");
    assert_exact(
        &run_pair(dir.path(), &pair(&g, "listen", "hostname=::1")),
        1 << 20,
        256,
    );
    let g = format!("ioengine=net\nprotocol=udpv6\nport={port}\nbs=1k\nsize=64k");
    assert_exact(
        &run_pair(
            dir.path(),
            &pair(&g, "", &format!("hostname=::1\n{UDP_DELAY}")),
        ),
        64 << 10,
        64,
    );
}

#[test]
fn udp_datagrams_are_counted_one_per_io() {
    // 64 datagrams of 1 KiB fit the default receive buffer, so loopback drops none.
    let dir = scratch();
    let port = free_port(1);
    let g = format!("ioengine=net\nprotocol=udp\nport={port}\nbs=1k\nsize=64k");
    assert_exact(
        &run_pair(
            dir.path(),
            &pair(&g, "", &format!("hostname=127.0.0.1\n{UDP_DELAY}")),
        ),
        64 << 10,
        64,
    );
}

#[test]
fn udp_multicast_on_loopback_reaches_every_reader_with_pingpong() {
    let port = free_port(1);
    let mut cmd = ferrio();
    cmd.arg(jobs_dir().join("netio_multicast.fio"))
        .args(["--output-format=json", "--net_timeout=20"])
        .env("NETPORT", port.to_string());
    let out = bounded(cmd, 60, "tests/jobs/netio_multicast.fio");
    assert!(out.status.success(), "{}", text(&out));
    let v = parse_json(&out.stdout);
    for (name, dir) in [
        ("pingpong_reader", "read"),
        ("normal_reader", "read"),
        ("pingpong_writer", "write"),
    ] {
        let j = job_named(&v, name);
        assert_eq!(j["error"], 0, "{j}");
        assert_eq!(counts(j, dir), (8192, 128), "{name}");
    }
}

#[test]
fn unix_socket_in_a_temporary_directory() {
    let dir = scratch();
    let sock = dir.path().join("net.sock");
    let g = format!(
        "ioengine=net\nprotocol=unix\nfilename={}\nbs=4k\nsize=2m",
        sock.display()
    );
    assert_exact(&run_pair(dir.path(), &pair(&g, "", "")), 2 << 20, 512);
}

#[test]
fn the_legacy_host_port_protocol_filename_form_connects() {
    let dir = scratch();
    let port = free_port(1);
    let job_file = format!(
        "[receiver]\nioengine=net\nport={port}\nlisten\nrw=read\nbs=4k\nsize=1m\nnet_timeout=20\n\n\
         [sender]\nioengine=net\nfilename=127.0.0.1,{port},tcp\nrw=write\nbs=4k\nsize=1m\nstartdelay=300ms\nnet_timeout=20\n"
    );
    assert_exact(&run_pair(dir.path(), &job_file), 1 << 20, 256);
}

#[test]
fn pingpong_echoes_every_payload_over_tcp_and_udp() {
    let dir = scratch();
    let port = free_port(1);
    for (proto, listen, bs) in [("tcp", "listen", "4k"), ("udp", "", "1k")] {
        let g = format!("ioengine=net\nprotocol={proto}\nport={port}\nbs={bs}\nnumber_ios=100\nsize=1m\npingpong=1");
        let v = run_pair(
            dir.path(),
            &pair(&g, listen, &format!("hostname=127.0.0.1\n{UDP_DELAY}")),
        );
        let n = if bs == "4k" { 4096 } else { 1024 };
        assert_exact(&v, 100 * n, 100);
    }
}

#[test]
fn numjobs_clones_use_consecutive_ports() {
    let dir = scratch();
    let port = free_port(2);
    let g = format!("ioengine=net\nport={port}\nbs=4k\nsize=1m\nnumjobs=2\ngroup_reporting=0");
    let v = run_pair(dir.path(), &pair(&g, "listen", "hostname=127.0.0.1"));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4, "{v}");
    for j in jobs {
        assert_eq!(j["error"], 0, "{j}");
        let dir = if j["jobname"] == "receiver" {
            "read"
        } else {
            "write"
        };
        assert_eq!(counts(j, dir), (1 << 20, 256), "{j}");
    }
}

#[test]
fn a_receiver_ends_when_the_sender_is_done() {
    // The receiver asks for more than is sent: the sender's close message ends it.
    let dir = scratch();
    let port = free_port(1);
    let g = format!("ioengine=net\nport={port}\nbs=4k");
    let v = run_pair(
        dir.path(),
        &pair(&g, "listen\nsize=1g", "hostname=127.0.0.1\nsize=3m"),
    );
    assert_eq!(counts(job_named(&v, "receiver"), "read"), (3 << 20, 768));
    assert_eq!(counts(job_named(&v, "sender"), "write"), (3 << 20, 768));
}

#[test]
fn a_sender_with_nobody_listening_fails_at_once() {
    let port = free_port(1);
    let mut cmd = ferrio();
    cmd.args([
        "--name=s",
        "--ioengine=net",
        "--hostname=127.0.0.1",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
    ])
    .arg(format!("--port={port}"));
    let out = bounded(cmd, 30, "sender without receiver");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("connect to 127.0.0.1 port") && err.contains("refused"),
        "{err}"
    );
}

#[test]
fn a_receiver_whose_sender_never_comes_times_out_with_a_clear_error() {
    let dir = scratch();
    let port = free_port(2);
    // The sender in the same file connects to the wrong port and fails; the receiver
    // gives up after net_timeout.
    let job_file = format!(
        "[receiver]\nioengine=net\nport={port}\nlisten\nrw=read\nbs=4k\nsize=1m\nnet_timeout=2\n\n\
         [sender]\nioengine=net\nhostname=127.0.0.1\nport={}\nrw=write\nbs=4k\nsize=1m\n",
        port + 1
    );
    let path = dir.path().join("net.fio");
    std::fs::write(&path, job_file).unwrap();
    let mut cmd = ferrio();
    cmd.arg(&path);
    let out = bounded(cmd, 30, "receiver without sender");
    // Both threads failed (the exit code counts them, as fio's).
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refused"), "{err}");
    assert!(
        err.contains("job 'receiver': no connection") && err.contains("net_timeout=2s"),
        "{err}"
    );
    // The same for a UDP reader that never hears from a sender.
    let mut cmd = ferrio();
    cmd.args([
        "--name=r",
        "--ioengine=net",
        "--protocol=udp",
        "--rw=read",
        "--bs=1k",
        "--size=1m",
        "--net_timeout=1",
    ])
    .arg(format!("--port={port}"));
    let out = bounded(cmd, 30, "UDP reader without sender");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no UDP sender"),
        "{}",
        text(&out)
    );
}

#[test]
fn exitall_on_error_lets_a_failing_sender_stop_its_waiting_receiver() {
    let dir = scratch();
    let port = free_port(2);
    // No net_timeout: the sender's refused connection stops the run, and with it the
    // receiver's wait.
    let job_file = format!(
        "[global]\nioengine=net\nbs=4k\nsize=1m\nexitall_on_error\n\n\
         [receiver]\nport={port}\nlisten\nrw=read\n\n\
         [sender]\nport={}\nhostname=127.0.0.1\nrw=write\nstartdelay=300ms\n",
        port + 1
    );
    let path = dir.path().join("net.fio");
    std::fs::write(&path, job_file).unwrap();
    let mut cmd = ferrio();
    cmd.arg(&path);
    let out = bounded(cmd, 30, "exitall_on_error");
    // Only the sender failed: the receiver it stopped is not counted (fio's exitall
    // fails no one it stops).
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refused"), "{err}");
    assert!(
        err.contains("job 'receiver': stopped while waiting for a connection"),
        "{err}"
    );
}

#[test]
fn a_signal_stops_a_receiver_waiting_without_a_timeout() {
    let port = free_port(1);
    let p = format!("--port={port}");
    let out = run_signalled(
        &[
            "--name=r",
            "--ioengine=net",
            "--listen",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            &p,
        ],
        std::time::Duration::from_millis(700),
        "-TERM",
    );
    assert_eq!(out.status.code(), Some(128), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stopped while waiting for a connection"),
        "{}",
        text(&out)
    );
}

#[test]
fn fio_rules_refuse_bad_combinations_before_running() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--listen", "--hostname=127.0.0.1", "--port=9", "--rw=read"],
            "not valid for a receiver",
        ),
        (&["--port=9", "--rw=read"], "did you forget 'listen'"),
        (
            &["--protocol=udp", "--listen", "--port=9", "--rw=read"],
            "listen is only valid",
        ),
        (
            &[
                "--protocol=udp",
                "--port=9",
                "--rw=rw",
                "--hostname=127.0.0.1",
            ],
            "either read or write",
        ),
        (&["--hostname=127.0.0.1", "--rw=write"], "needs port="),
        (&["--protocol=unix", "--rw=write"], "needs filename="),
        (
            &[
                "--protocol=unix",
                "--port=9",
                "--filename=/tmp/x",
                "--rw=write",
            ],
            "not valid with protocol=unix",
        ),
        (
            &["--hostname=127.0.0.1", "--port=9", "--rw=randwrite"],
            "can't be random",
        ),
        (
            &["--filename=127.0.0.1,99999,tcp", "--rw=write"],
            "port is 1..65535",
        ),
        (&["--protocol=sctp", "--rw=write"], "protocol"),
        (
            &[
                "--hostname=::1",
                "--port=9",
                "--protocol=udpv6",
                "--rw=write",
                "--interface=eth0",
            ],
            "interface",
        ),
    ];
    for (args, want) in cases {
        let mut cmd = ferrio();
        cmd.args(["--name=n", "--ioengine=net", "--bs=4k", "--size=1m"])
            .args(*args);
        let out = bounded(cmd, 30, "bad net job");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(err.contains(want), "{args:?}: want '{want}' in:\n{err}");
    }
    // An engine option for another engine is refused as for any private option.
    let out = bounded(
        {
            let mut c = ferrio();
            c.args(["--name=n", "--ioengine=psync", "--listen", "--size=1m"]);
            c
        },
        30,
        "listen with psync",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn net_reports_rates_in_bits_as_fio_and_netsplice_in_bytes() {
    // fio's net engine is bit-based (FIO_BIT_BASED): unit_base defaults to bits.
    let dir = scratch();
    for (engine, unit, extra) in [
        ("net", "Mibit/s", ""),
        ("netsplice", "MiB/s", ""),
        ("net", "MiB/s", "unit_base=8"),
    ] {
        let port = free_port(1);
        let job_file = pair(
            &format!("ioengine={engine}\nport={port}\nbs=4k\nsize=1m\n{extra}"),
            "listen",
            "hostname=127.0.0.1",
        );
        let path = dir.path().join("bits.fio");
        std::fs::write(&path, job_file).unwrap();
        let mut cmd = ferrio();
        cmd.arg(&path);
        let out = bounded(cmd, 60, "normal output");
        assert!(out.status.success(), "{}", text(&out));
        let normal = String::from_utf8_lossy(&out.stdout);
        let bw: Vec<&str> = normal.lines().filter(|l| l.contains("BW=")).collect();
        assert_eq!(bw.len(), 2, "{normal}");
        assert!(
            bw.iter().all(|l| l.contains(unit)),
            "{engine} {extra}: {bw:?}"
        );
    }
}

#[test]
fn enghelp_lists_the_net_options() {
    let out = bounded(
        {
            let mut c = ferrio();
            c.arg("--enghelp=net");
            c
        },
        30,
        "enghelp",
    );
    let s = String::from_utf8_lossy(&out.stdout);
    for o in [
        "hostname",
        "port",
        "protocol",
        "listen",
        "pingpong",
        "nodelay",
        "window_size",
        "mss",
        "ttl",
        "interface",
        "net_timeout",
    ] {
        assert!(s.contains(o), "{o} missing:\n{s}");
    }
}

/// A sender's buffers hold what the buffer options say, as fio's (here a pattern),
/// not zeroes: the test's own listener receives the stream and checks every byte.
#[test]
fn a_sender_sends_the_buffer_options_contents() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        let mut got = Vec::new();
        conn.read_to_end(&mut got).unwrap();
        got
    });
    let mut cmd = ferrio();
    cmd.args([
        "--name=s",
        "--ioengine=net",
        "--hostname=127.0.0.1",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--buffer_pattern=0xdeadbeef",
        "--net_timeout=20",
    ])
    .arg(format!("--port={port}"));
    let out = bounded(cmd, 60, "sender with a pattern");
    assert!(out.status.success(), "{}", text(&out));
    let got = reader.join().unwrap();
    // The payload, then fio's 8-byte close message.
    assert_eq!(got.len(), (64 << 10) + 8);
    for (i, c) in got[..64 << 10].chunks(4).enumerate() {
        assert_eq!(c, [0xde, 0xad, 0xbe, 0xef], "bytes at {}", i * 4);
    }
}
