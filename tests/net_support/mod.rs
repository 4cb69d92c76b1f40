//! Helpers for the network-engine tests (tests/engines_net.rs, tests/differential_net.rs):
//! free loopback ports, and processes run under a time bound so a peer that never
//! comes cannot hang the test.
#![allow(dead_code)]

use std::net::{TcpListener, UdpSocket};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A port free for TCP and UDP on 127.0.0.1 (and `n - 1` after it, for numjobs).
pub fn free_port(n: u16) -> u16 {
    'next: for _ in 0..200 {
        let base = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if base > 65000 {
            continue;
        }
        for p in base..base + n {
            if TcpListener::bind(("127.0.0.1", p)).is_err()
                || UdpSocket::bind(("127.0.0.1", p)).is_err()
            {
                continue 'next;
            }
        }
        return base;
    }
    panic!("no free port");
}

/// Whether IPv6 loopback (::1) is usable here.
pub fn have_ipv6_loopback() -> bool {
    TcpListener::bind("[::1]:0").is_ok()
}

/// Start `cmd` with its output captured, in a process group of its own (fio forks a
/// process per job; a kill must reach them all, or their pipes never close).
pub fn start(mut cmd: Command) -> Child {
    use std::os::unix::process::CommandExt;
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start the process")
}

/// Wait (at most 30 s) until something has bound `port` on loopback — the receiver
/// started by the caller — so a sender's first datagram or connection is not lost.
/// A probe that binds is dropped at once; one that cannot bind means it is taken.
pub fn wait_bound(port: u16, udp: bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        let taken = if udp {
            UdpSocket::bind(("0.0.0.0", port)).is_err()
        } else {
            TcpListener::bind(("0.0.0.0", port)).is_err()
        };
        if taken {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nothing bound port {port} within 30 s");
}

/// Wait for `child` at most `secs` seconds; kill it and panic (naming `what`) if it
/// takes longer.
pub fn finish(mut child: Child, secs: u64, what: &str) -> Output {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("collect output");
        }
        if Instant::now() > until {
            // The whole group: the process and any it forked.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let out = child.wait_with_output().expect("collect output");
            panic!(
                "{what} still running after {secs}s (killed)\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run `cmd` to completion within `secs` seconds.
pub fn bounded(cmd: Command, secs: u64, what: &str) -> Output {
    finish(start(cmd), secs, what)
}

pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// (io_bytes, total_ios) of direction `dir` ("read", "write") of a job.
pub fn counts(job: &serde_json::Value, dir: &str) -> (u64, u64) {
    (
        job[dir]["io_bytes"].as_u64().unwrap(),
        job[dir]["total_ios"].as_u64().unwrap(),
    )
}
