//! `--daemonize=PIDFILE` (fio's) and `--pidfile`: a server that goes to the background
//! once it listens and has written its pid, serves clients from there, refuses a
//! second server on a live pid file, and removes its pid file when signalled. Every
//! wait is for a state (a line, a file, a process), never a fixed time.

mod common;
mod multihost_support;

use multihost_support::{stderr, Lab};
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Kills a daemon left running by a failed assertion (it is no child of the test).
struct Daemon(i32);

impl Drop for Daemon {
    fn drop(&mut self) {
        if state(self.0).is_some_and(|s| s != 'Z') {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &self.0.to_string()])
                .status();
        }
    }
}

/// A process's state letter and session id (/proc/PID/stat), None once it is gone.
fn stat(pid: i32) -> Option<(char, i32)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid pgrp session ...": comm may hold blanks, so from ')'.
    let rest: Vec<&str> = s[s.rfind(')')? + 1..].split_whitespace().collect();
    Some((rest[0].chars().next()?, rest[3].parse().ok()?))
}

fn state(pid: i32) -> Option<char> {
    stat(pid).map(|s| s.0)
}

/// Wait (up to 60 s) until `done` holds.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < until, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn server_args(lab: &Lab, pid_flag: &str) -> Vec<String> {
    vec![
        "--server=127.0.0.1,0".into(),
        format!("--tls-cert={}", lab.p("cert.pem")),
        format!("--tls-key={}", lab.p("key.pem")),
        format!("--server-allow={}", lab.p("data")),
        format!("--auth-token-file={}", lab.p("token")),
        pid_flag.into(),
    ]
}

/// Start a daemonizing server; returns once its foreground process has exited.
fn daemonize(lab: &Lab, pidfile: &Path) -> Output {
    // The daemon keeps no copy of these pipes, so this returns when the parent exits.
    common::ferrio()
        .args(server_args(
            lab,
            &format!("--daemonize={}", pidfile.display()),
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn read_pid(p: &Path) -> i32 {
    std::fs::read_to_string(p).unwrap().trim().parse().unwrap()
}

#[test]
fn a_daemonized_server_serves_from_the_background_and_removes_its_pid_file() {
    let Some(lab) = Lab::new() else { return };
    let pidfile = lab.path("server.pid");
    let out = daemonize(&lab, &pidfile);
    assert!(out.status.success(), "{}", stderr(&out));
    // The foreground process returned only once the pid file was written.
    let pid = read_pid(&pidfile);
    let _guard = Daemon(pid);
    let (st, session) = stat(pid).expect("the daemon runs");
    assert_ne!(st, 'Z');
    assert_eq!(session, pid, "the daemon leads a session of its own");
    let err = stderr(&out);
    let addr = err
        .lines()
        .find_map(|l| l.strip_prefix("ferrio: server listening on "))
        .unwrap_or_else(|| panic!("{err}"))
        .to_string();

    let job = lab.job("j.fio", "[j]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n");
    let run = lab.client(&[&format!("--client={addr}"), &job, "--output-format=json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(v["client_stats"][0]["read"]["total_ios"], 256, "{v}");

    // A second server on the same pid file is refused before it listens.
    let again = daemonize(&lab, &pidfile);
    assert_eq!(again.status.code(), Some(1));
    let e = stderr(&again);
    assert!(
        e.contains(&format!("(pid {pid}) is running")) && !e.contains("listening"),
        "{e}"
    );
    assert_eq!(read_pid(&pidfile), pid);

    // SIGTERM: the daemon removes its pid file and exits.
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    wait_until("the pid file is removed", || !pidfile.exists());
    wait_until("the daemon exits", || state(pid).is_none_or(|s| s == 'Z'));
}

#[test]
fn a_foreground_server_writes_and_removes_its_pid_file() {
    let Some(lab) = Lab::new() else { return };
    let pidfile = lab.path("fg.pid");
    let mut server = lab.server(&[&format!("--pidfile={}", pidfile.display())]);
    // Written before the "listening" line that Lab::server waited for.
    assert_eq!(read_pid(&pidfile), server.child.id() as i32);
    server.signal("-TERM");
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    assert!(!pidfile.exists(), "{}", server.log());

    // A pid file that is a symlink is not followed: the server does not start.
    let elsewhere = lab.path("elsewhere");
    std::os::unix::fs::symlink(&elsewhere, &pidfile).unwrap();
    let out = common::ferrio()
        .args(server_args(
            &lab,
            &format!("--pidfile={}", pidfile.display()),
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot write pid file"),
        "{}",
        stderr(&out)
    );
    assert!(!elsewhere.exists());
}

/// Datagrams received on `sock` until one satisfies `want` (each as text), up to 60 s.
fn receive_until(sock: &UnixDatagram, got: &mut Vec<String>, want: impl Fn(&str) -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    let mut buf = vec![0u8; 8192];
    while !got.iter().any(|m| want(m)) {
        assert!(Instant::now() < until, "never came; received: {got:#?}");
        match sock.recv(&mut buf) {
            Ok(n) => got.push(String::from_utf8_lossy(&buf[..n]).into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("recv: {e}"),
        }
    }
}

/// A daemon's messages go to syslog, as fio's do: a socket the test binds stands in
/// for /dev/log (FERRIO_SYSLOG_SOCKET, test-only). Its "listening" line and the error
/// a bad connection causes arrive at user.info (priority 14, as fio sends all of its
/// messages) tagged ferrio[PID], without the terminal's "ferrio: " prefix.
#[test]
fn a_daemons_messages_go_to_syslog() {
    let Some(lab) = Lab::new() else { return };
    let sock_path = lab.path("log.sock");
    let sock = UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let pidfile = lab.path("syslog.pid");
    let out = common::ferrio()
        .args(server_args(
            &lab,
            &format!("--daemonize={}", pidfile.display()),
        ))
        .env("FERRIO_SYSLOG_SOCKET", &sock_path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let pid = read_pid(&pidfile);
    let _guard = Daemon(pid);
    let err = stderr(&out);
    assert!(!err.contains("no syslog"), "{err}");
    let addr = err
        .lines()
        .find_map(|l| l.strip_prefix("ferrio: server listening on "))
        .unwrap_or_else(|| panic!("{err}"))
        .to_string();
    let tag = format!("ferrio[{pid}]: ");
    let mut got = Vec::new();
    let listening = format!("{tag}server listening on {addr}");
    receive_until(&sock, &mut got, |m| {
        m.starts_with("<14>") && m.ends_with(&listening)
    });
    // Not TLS: the server drops the connection and says why on its stderr.
    let mut c = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(&mut c, b"not a TLS hello\r\n\r\n").unwrap();
    drop(c);
    let peer_error = format!("{tag}server: 127.0.0.1:");
    receive_until(&sock, &mut got, |m| {
        m.starts_with("<14>") && m.contains(&peer_error)
    });
    assert!(
        got.iter()
            .all(|m| !m.contains("ferrio: ferrio:") && !m.contains(": ferrio: ")),
        "{got:#?}"
    );
}

/// Without a syslog to reach, the daemon says so on the terminal before it detaches
/// and still serves (its messages are discarded, as before).
#[test]
fn a_daemon_without_syslog_says_so_and_still_starts() {
    let Some(lab) = Lab::new() else { return };
    let pidfile = lab.path("nolog.pid");
    let out = common::ferrio()
        .args(server_args(
            &lab,
            &format!("--daemonize={}", pidfile.display()),
        ))
        .env("FERRIO_SYSLOG_SOCKET", lab.path("no-such.sock"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let pid = read_pid(&pidfile);
    let _guard = Daemon(pid);
    let err = stderr(&out);
    assert!(
        err.contains("--daemonize: no syslog (") && err.contains("no-such.sock"),
        "{err}"
    );
    assert!(err.contains("ferrio: server listening on "), "{err}");
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    wait_until("the pid file is removed", || !pidfile.exists());
}
