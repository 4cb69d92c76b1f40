//! The ssh transport against a local sshd started by the test (throwaway host and user
//! keys, its own config, a loopback port): `--client=ssh://host` runs
//! `ferrio --server-stdio` through the system's ssh, and a run mixes ssh and TLS hosts.

mod common;
mod multihost_support;

use common::skip;
use multihost_support::{exists, json, stderr, Lab};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A throwaway sshd on 127.0.0.1, killed when dropped.
struct Sshd {
    child: Child,
    config: String,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sshd(lab: &Lab) -> Option<Sshd> {
    let sshd = Path::new("/usr/sbin/sshd");
    if !sshd.exists() {
        skip::skip("sshd is not installed (Debian openssh-server)");
        return None;
    }
    let keygen = skip::tool_or_skip("ssh-keygen")?;
    skip::tool_or_skip("ssh")?;
    // sshd must run as root to switch to the user.
    if euid() != 0 {
        skip::skip("sshd needs root");
        return None;
    }
    let d = lab.dir.path();
    for key in ["host_key", "user_key"] {
        let ok = Command::new(&keygen)
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(d.join(key))
            .status()
            .unwrap()
            .success();
        assert!(ok, "ssh-keygen {key}");
    }
    std::fs::copy(d.join("user_key.pub"), d.join("authorized_keys")).unwrap();
    // sshd's privilege separation directory.
    std::fs::create_dir_all("/run/sshd").unwrap();
    // The port is picked free and released, so another process (another test's
    // connection) may take it before sshd binds it; sshd then exits. Start again on
    // another port until sshd itself answers.
    for _ in 0..5 {
        if let Some(daemon) = start_sshd(sshd, lab) {
            return Some(daemon);
        }
    }
    panic!("sshd did not start (five ports tried)");
}

/// One try of `sshd`: an sshd on a free loopback port, once it sent its banner;
/// None if it exited first.
fn start_sshd(sshd: &Path, lab: &Lab) -> Option<Sshd> {
    let d = lab.dir.path();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dp = d.display();
    std::fs::write(
        d.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dp}/host_key\n\
             AuthorizedKeysFile {dp}/authorized_keys\nPidFile {dp}/sshd.pid\n\
             PermitRootLogin yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             UsePAM no\nStrictModes no\n"
        ),
    )
    .unwrap();
    let mut daemon = Sshd {
        child: Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
        config: lab.p("ssh_config"),
    };
    std::fs::write(
        d.join("ssh_config"),
        format!(
            "Host ferrio-lab\n  HostName 127.0.0.1\n  Port {port}\n  User root\n\
             IdentityFile {dp}/user_key\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n\
             UserKnownHostsFile {dp}/known_hosts\n  LogLevel ERROR\n"
        ),
    )
    .unwrap();
    for _ in 0..100 {
        if daemon.child.try_wait().unwrap().is_some() {
            return None; // (its port was taken)
        }
        // Ready when sshd itself answers: an accepted connection alone could be
        // another listener's, or the kernel's self-connection on a free port.
        if let Ok(mut c) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::Read;
            c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            let mut banner = [0u8; 4];
            if c.read_exact(&mut banner).is_ok() && &banner == b"SSH-" {
                return Some(daemon);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("sshd did not answer on port {port}");
}

/// The effective user id, from /proc.
fn euid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|u| u.parse().ok())
        .unwrap_or(u32::MAX)
}

#[test]
fn ssh_hosts_run_the_jobs_and_mix_with_tls_hosts() {
    let Some(lab) = Lab::new() else { return };
    let Some(sshd) = sshd(&lab) else { return };
    let tls = lab.server(&[]);
    let bin = env!("CARGO_BIN_EXE_ferrio");
    let command = format!(
        "--ssh-command={bin} --server-stdio --server-allow={}",
        lab.p("data")
    );
    let job = lab.job(
        "s.fio",
        &format!(
            "[s]\nioengine=sync\nrw=write\nbs=4k\nsize=256k\nfilename={}\n",
            lab.p("data/s.bin")
        ),
    );
    let out = lab.client(&[
        &format!(
            "--client=ssh://ferrio-lab,ssh://root@ferrio-lab,{}",
            tls.addr
        ),
        &job,
        &format!("--ssh-config={}", sshd.config),
        &command,
        "--output-format=hosts-json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let hosts = v["hosts"].as_array().unwrap();
    assert_eq!(hosts[0]["host"], "ssh://ferrio-lab");
    assert_eq!(hosts[1]["host"], "ssh://root@ferrio-lab");
    for h in hosts {
        assert_eq!(h["total_ios"], 64, "{v}");
    }
    assert_eq!(v["total"]["io_bytes"], 3 * 256 * 1024);

    // The remote server's allow-list holds under ssh too.
    let outside = lab.path("outside.bin");
    let bad = lab.job(
        "b.fio",
        &format!(
            "[b]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n",
            outside.display()
        ),
    );
    let out = lab.client(&[
        "--client=ssh://ferrio-lab",
        &bad,
        &format!("--ssh-config={}", sshd.config),
        &command,
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("outside this server's --server-allow list"),
        "{err}"
    );
    assert!(!exists(&outside));
}

#[test]
fn a_silent_ssh_host_times_out() {
    let Some(lab) = Lab::new() else { return };
    let Some(sshd) = sshd(&lab) else { return };
    // A remote command that never answers stands for a host gone silent.
    let out = lab.client(&[
        "--client=ssh://ferrio-lab",
        &lab.job("t.fio", "[t]\nioengine=null\nsize=1m\n"),
        &format!("--ssh-config={}", sshd.config),
        "--ssh-command=sleep 60",
        "--client-timeout=1s",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "host ssh://ferrio-lab: timeout: no word from ssh://ferrio-lab for 1.0s (--client-timeout)"
        ),
        "{err}"
    );
}

/// Ctrl-C at the terminal of a client with an ssh host (SIGINT to the client's whole
/// process group): ssh runs in a group of its own, so only the client gets it, and
/// it stops the host over the connection; the host's report of what it measured
/// comes back and the client exits 128. ssh killed with the client would have lost
/// the host's report, and the remote run would have gone on for its 30 s.
#[test]
fn ctrl_c_at_the_client_stops_an_ssh_host_and_keeps_its_report() {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let Some(lab) = Lab::new() else { return };
    let Some(sshd) = sshd(&lab) else { return };
    let bin = env!("CARGO_BIN_EXE_ferrio");
    let job = lab.job(
        "long.fio",
        "[long]\nioengine=null\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=30s\nrate_iops=200\n",
    );
    let mut child = lab
        .client_cmd(&[
            "--client=ssh://ferrio-lab",
            &job,
            &format!("--ssh-config={}", sshd.config),
            &format!("--ssh-command={bin} --server-stdio"),
            "--output-format=json",
        ])
        // A group of its own, as a shell gives a foreground job.
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The server's stderr comes through ssh onto the client's.
    let err = std::io::BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut log = String::new();
    while !log.contains("threads admitted") {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no 'threads admitted': {log}"));
        log.push_str(&line);
        log.push('\n');
    }
    std::thread::sleep(Duration::from_millis(1500));
    let group = format!("-{}", child.id());
    let ok = Command::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -INT {group}");
    let out = common::wait_bounded(child, Duration::from_secs(25), "client after Ctrl-C");
    // The rest of its stderr (the pipe ends once the client and ssh are gone).
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        log.push_str(&line);
        log.push('\n');
    }
    assert_eq!(out.status.code(), Some(128), "{log}");
    assert!(log.contains("the client stopped the run"), "{log}");
    let v = json(&out);
    let host = &v["client_stats"][0];
    assert_eq!(host["error"], 0, "{v}");
    assert!(host["read"]["total_ios"].as_u64().unwrap() > 0, "{v}");
    assert!(host["read"]["runtime"].as_u64().unwrap() < 20_000, "{v}");
}
