//! ioengine=net against fio 3.33 on loopback: the same netio-style job file under both
//! (the counts, the JSON fields), and each tool as the other's peer — a ferrio sender
//! with a fio receiver and the reverse, over TCP and UDP — which holds only if ferrio
//! speaks fio's wire (its link-open and link-close messages, its UDP sequence trailer).
//! Every process runs under a time bound. Skipped when fio is absent, unless
//! FERRIO_REQUIRE_FIO=1 (CI).

mod common;
mod net_support;
use common::*;
use net_support::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn fio() -> Command {
    Command::new("fio")
}

#[test]
fn the_netio_job_file_runs_alike_under_fio_and_ferrio() {
    if !have_fio() {
        return;
    }
    let job_file = jobs_dir().join("netio.fio");
    // fio is the reference here, and fio 3.33 races with itself under load: its
    // receiver undercounts short receives, so it can close the socket with the
    // sender's last blocks unread, and its sender then ends with error 104
    // (ECONNRESET), or dies of SIGPIPE. Seen once in ~25 runs on a loaded 2-vCPU VM.
    // Only those failures of fio's are retried; ferrio's run below gets one attempt.
    let fio_out = (1..=3)
        .map(|_| {
            let mut f = fio();
            f.arg(&job_file)
                .arg("--output-format=json")
                .env("NETPORT", free_port(1).to_string());
            bounded(f, 60, "fio netio.fio")
        })
        .find(|o| o.status.success() || !fio_sender_was_reset(o))
        .expect("fio's sender was reset by its own receiver three times running");
    assert!(fio_out.status.success(), "{}", text(&fio_out));
    let port = free_port(1).to_string();
    let mut c = ferrio();
    c.arg(&job_file)
        .arg("--output-format=json")
        .env("NETPORT", &port);
    let ours = bounded(c, 60, "ferrio netio.fio");
    assert!(ours.status.success(), "{}", text(&ours));
    let (fv, ov) = (parse_json(&fio_out.stdout), parse_json(&ours.stdout));
    let size = 8u64 << 20;
    // The sender: the same count of I/Os and bytes under both.
    assert_eq!(counts(job_named(&fv, "sender"), "write"), (size, 2048));
    assert_eq!(counts(job_named(&ov, "sender"), "write"), (size, 2048));
    // The receiver: ferrio counts every byte received, in whole blocks (a short
    // receive's rest is received again, as fio's residual rule). fio 3.33 loses the
    // first part of each short receive from io_bytes (it counts only the last piece of
    // a requeued I/O), so its total is at most the size.
    assert_eq!(counts(job_named(&ov, "receiver"), "read"), (size, 2048));
    let (fio_bytes, _) = counts(job_named(&fv, "receiver"), "read");
    assert!(fio_bytes > 0 && fio_bytes <= size, "{fio_bytes}");
    for name in ["receiver", "sender"] {
        let (a, b) = (job_named(&fv, name), job_named(&ov, name));
        assert_eq!(a["error"], 0);
        assert_eq!(b["error"], 0);
        assert_eq!(keys(a), keys(b), "{name}: job keys");
        for d in ["read", "write"] {
            assert_eq!(keys(&a[d]), keys(&b[d]), "{name}: {d} keys");
        }
    }
    assert_eq!(keys(&fv["global options"]), keys(&ov["global options"]));
}

/// Whether a failed fio run is fio's own receiver-closes-early race: its sender job
/// ended with ECONNRESET and nothing else went wrong, or its sender process was
/// killed by SIGPIPE writing to the closed socket (fio prints `got signal=13`; seen
/// once in CI, where fio's parent then also aborted on a double free).
fn fio_sender_was_reset(o: &std::process::Output) -> bool {
    if String::from_utf8_lossy(&o.stderr).contains("got signal=13") {
        return true;
    }
    let Ok(v) = serde_json::from_slice::<Value>(&o.stdout[json_start(&o.stdout)..]) else {
        return false;
    };
    let errors: Vec<_> = v["jobs"]
        .as_array()
        .map(|jobs| {
            jobs.iter()
                .map(|j| (j["jobname"].clone(), j["error"].clone()))
                .collect()
        })
        .unwrap_or_default();
    errors.iter().any(|(n, e)| n == "sender" && e == 104)
        && errors.iter().all(|(n, e)| n == "sender" || e == 0)
}

/// Where the JSON document starts (fio prints "waiting for connection" before it).
fn json_start(out: &[u8]) -> usize {
    out.iter().position(|&b| b == b'{').unwrap_or(0)
}

/// Start a receiver (`recv`), then the sender (`send`) once it listens; both must end
/// within the bound. Returns (receiver, sender) JSON.
fn peers(mut recv: Command, mut send: Command, port: u16, udp: bool) -> (Value, Value) {
    recv.arg("--output-format=json");
    send.arg("--output-format=json");
    let r = start(recv);
    wait_bound(port, udp);
    let s = bounded(send, 60, "sender");
    let r = finish(r, 60, "receiver");
    assert!(s.status.success(), "sender: {}", text(&s));
    assert!(r.status.success(), "receiver: {}", text(&r));
    (parse_json(&r.stdout), parse_json(&s.stdout))
}

fn net_args(cmd: &mut Command, proto: &str, port: u16, dir: &str, size: &str, bs: &str) {
    cmd.args(["--name=peer", "--ioengine=net"])
        .arg(format!("--protocol={proto}"))
        .arg(format!("--port={port}"))
        .arg(format!("--rw={dir}"))
        .arg(format!("--size={size}"))
        .arg(format!("--bs={bs}"));
    let is_tcp = proto == "tcp";
    if dir == "read" && is_tcp {
        cmd.arg("--listen");
    }
    if dir == "write" {
        cmd.arg("--hostname=127.0.0.1");
    }
}

#[test]
fn a_ferrio_sender_talks_to_a_fio_receiver() {
    if !have_fio() {
        return;
    }
    // The receivers ask for more than is sent: only the sender's close message, which
    // fio must recognise, ends them.
    for (proto, bs, sent, ios) in [
        ("tcp", "4k", 2u64 << 20, 512u64),
        ("udp", "1k", 64 << 10, 64),
    ] {
        let port = free_port(1);
        let mut r = fio();
        net_args(&mut r, proto, port, "read", "1g", bs);
        let mut s = ferrio();
        net_args(&mut s, proto, port, "write", &sent.to_string(), bs);
        s.arg("--net_timeout=20");
        let (rv, sv) = peers(r, s, port, proto == "udp");
        let (rj, sj) = (&rv["jobs"][0], &sv["jobs"][0]);
        assert_eq!(counts(sj, "write"), (sent, ios), "{proto}");
        assert_eq!(rj["error"], 0, "{proto}: {rj}");
        let (got, _) = counts(rj, "read");
        if proto == "udp" {
            // Datagrams arrive whole; fio checks ferrio's sequence trailer and counts
            // none lost.
            assert_eq!(counts(rj, "read"), (sent, ios), "{proto}");
            assert_eq!(rj["read"]["drop_ios"], 0, "{proto}");
        } else {
            // fio's short-receive accounting (see above): at most what was sent.
            assert!(got > 0 && got <= sent, "{proto}: {got}");
        }
    }
}

#[test]
fn a_fio_sender_talks_to_a_ferrio_receiver() {
    if !have_fio() {
        return;
    }
    for (proto, bs, sent, ios) in [
        ("tcp", "4k", 2u64 << 20, 512u64),
        ("udp", "1k", 64 << 10, 64),
    ] {
        let port = free_port(1);
        let mut r = ferrio();
        net_args(&mut r, proto, port, "read", "1g", bs);
        r.arg("--net_timeout=20");
        let mut s = fio();
        net_args(&mut s, proto, port, "write", &sent.to_string(), bs);
        let (rv, sv) = peers(r, s, port, proto == "udp");
        let (rj, sj) = (&rv["jobs"][0], &sv["jobs"][0]);
        assert_eq!(counts(sj, "write"), (sent, ios), "{proto}");
        // Every byte fio sent, in whole blocks; fio's close message ended the job.
        assert_eq!(rj["error"], 0, "{proto}: {rj}");
        assert_eq!(counts(rj, "read"), (sent, ios), "{proto}");
        // ferrio reads fio's UDP sequence trailers: none missing, none misread.
        assert_eq!(rj["read"]["drop_ios"], 0, "{proto}");
    }
}

#[test]
fn the_multicast_job_file_counts_the_same_under_fio_and_ferrio() {
    if !have_fio() {
        return;
    }
    // Datagrams are never short, so both tools count exactly: 128 of 64 bytes to each
    // reader, and 128 round trips for the writer.
    let job_file = jobs_dir().join("netio_multicast.fio");
    let mut reports = Vec::new();
    for mut cmd in [fio(), ferrio()] {
        let port = free_port(1).to_string();
        cmd.arg(&job_file)
            .arg("--output-format=json")
            .env("NETPORT", &port);
        let out = bounded(cmd, 60, "netio_multicast.fio");
        assert!(out.status.success(), "{}", text(&out));
        reports.push(parse_json(&out.stdout));
    }
    for (tool, v) in ["fio", "ferrio"].iter().zip(&reports) {
        for (name, dir) in [
            ("pingpong_reader", "read"),
            ("normal_reader", "read"),
            ("pingpong_writer", "write"),
        ] {
            let j = job_named(v, name);
            assert_eq!(j["error"], 0, "{tool}: {j}");
            assert_eq!(j[dir]["drop_ios"], 0, "{tool}: {name}");
            let got = counts(j, dir);
            // fio's readers send the writer a close message too; the normal reader's
            // can overtake the last echo, and then fio's writer does not count its
            // last round trip. ferrio's readers send none.
            if *tool == "fio" && name == "pingpong_writer" && got == (8128, 127) {
                continue;
            }
            assert_eq!(got, (8192, 128), "{tool}: {name}");
        }
    }
    for name in ["pingpong_reader", "pingpong_writer"] {
        let (a, b) = (job_named(&reports[0], name), job_named(&reports[1], name));
        assert_eq!(keys(a), keys(b), "{name}: job keys");
    }
}

#[test]
fn unix_sockets_connect_ferrio_and_fio_both_ways() {
    if !have_fio() {
        return;
    }
    let dir = scratch();
    let sock = dir.path().join("peer.sock");
    let args = |cmd: &mut Command, rw: &str, size: &str| {
        cmd.args([
            "--name=peer",
            "--ioengine=net",
            "--protocol=unix",
            "--bs=4k",
        ])
        .arg(format!("--filename={}", sock.display()))
        .arg(format!("--rw={rw}"))
        .arg(format!("--size={size}"))
        .arg("--output-format=json");
    };
    for ferrio_receives in [true, false] {
        let _ = std::fs::remove_file(&sock);
        let (mut r, mut s) = if ferrio_receives {
            (ferrio(), fio())
        } else {
            (fio(), ferrio())
        };
        args(&mut r, "read", "1g");
        args(&mut s, "write", "1m");
        if ferrio_receives {
            r.arg("--net_timeout=20");
        } else {
            s.arg("--net_timeout=20");
        }
        let r = start(r);
        // The receiver's socket file appears when it binds; ferrio's sender with
        // net_timeout also waits for the listener.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !sock.exists() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        let s = bounded(s, 60, "unix sender");
        let r = finish(r, 60, "unix receiver");
        assert!(r.status.success(), "receiver: {}", text(&r));
        let (rv, sv) = (parse_json(&r.stdout), parse_json(&s.stdout));
        if ferrio_receives {
            // fio 3.33's unix sender fails its close message (sendto with an inet
            // address on a connected unix socket: EISCONN) after sending every block;
            // ferrio's receiver ends at the end of the stream instead.
            let err = sv["jobs"][0]["error"].as_u64().unwrap();
            assert!(
                err == 0 || err == libc_eisconn(),
                "fio sender: {}",
                text(&s)
            );
        } else {
            assert!(s.status.success(), "sender: {}", text(&s));
        }
        assert_eq!(counts(&sv["jobs"][0], "write"), (1 << 20, 256));
        let got = counts(&rv["jobs"][0], "read");
        if ferrio_receives {
            assert_eq!(got, (1 << 20, 256), "every byte, in whole blocks");
        } else {
            assert!(got.0 > 0 && got.0 <= 1 << 20, "fio's receiver: {got:?}");
        }
    }
}

/// EISCONN on Linux.
fn libc_eisconn() -> u64 {
    106
}
