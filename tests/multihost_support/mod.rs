//! Fixtures for the multi-host tests: a throwaway CA and server certificate (made with
//! the openssl command), a shared token, and servers on loopback ports chosen by the
//! kernel (each reports its address on stderr), killed when dropped.
#![allow(dead_code)]

use super::common::{ferrio, skip};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};

/// Certificates, token and data directory of one test.
pub struct Lab {
    pub dir: tempfile::TempDir,
}

impl Lab {
    /// None (after a visible skip) where openssl is missing.
    pub fn new() -> Option<Lab> {
        let openssl = skip::tool_or_skip("openssl")?;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ossl = |args: &[&str]| {
            let out = Command::new(&openssl)
                .args(args)
                .current_dir(d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ];
        let mut a = vec!["req", "-x509"];
        a.extend(ec);
        a.extend([
            "-days",
            "2",
            "-subj",
            "/CN=ferrio test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
        ]);
        ossl(&a);
        let mut a = vec!["req"];
        a.extend(ec);
        a.extend([
            "-subj",
            "/CN=localhost",
            "-keyout",
            "key.pem",
            "-out",
            "srv.csr",
        ]);
        ossl(&a);
        std::fs::write(
            d.join("ext.cnf"),
            format!(
                "subjectAltName=IP:127.0.0.1,DNS:localhost,{}\nbasicConstraints=CA:FALSE\n",
                netns_sans()
            ),
        )
        .unwrap();
        ossl(&[
            "x509",
            "-req",
            "-in",
            "srv.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
            "-out",
            "cert.pem",
        ]);
        // A client certificate from the same CA (for --tls-client-ca).
        let mut a = vec!["req"];
        a.extend(ec);
        a.extend([
            "-subj",
            "/CN=ferrio client",
            "-keyout",
            "client.key",
            "-out",
            "client.csr",
        ]);
        ossl(&a);
        std::fs::write(
            d.join("client.cnf"),
            "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n",
        )
        .unwrap();
        ossl(&[
            "x509",
            "-req",
            "-in",
            "client.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "client.cnf",
            "-out",
            "client.pem",
        ]);
        std::fs::write(d.join("token"), "correct-horse-battery-staple\n").unwrap();
        std::fs::write(d.join("wrong-token"), "incorrect-horse-battery\n").unwrap();
        std::fs::create_dir(d.join("data")).unwrap();
        Some(Lab { dir })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn p(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// Write a job file in the lab; returns its path.
    pub fn job(&self, name: &str, text: &str) -> String {
        std::fs::write(self.path(name), text).unwrap();
        self.p(name)
    }

    /// A server allowed to use data/ (plus `extra` flags).
    pub fn server(&self, extra: &[&str]) -> Server {
        self.server_in(&[], "127.0.0.1", extra)
    }

    /// A server run through `prefix` (e.g. `ip netns exec NS`) listening on `addr`.
    pub fn server_in(&self, prefix: &[&str], addr: &str, extra: &[&str]) -> Server {
        let args = self.server_args(addr, extra);
        match prefix.split_first() {
            None => Server::start(ferrio(), &args),
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(env!("CARGO_BIN_EXE_ferrio"));
                Server::start(c, &args)
            }
        }
    }

    /// A server on loopback started from `cmd` (a working directory, environment).
    pub fn server_cmd(&self, cmd: Command, extra: &[&str]) -> Server {
        Server::start(cmd, &self.server_args("127.0.0.1", extra))
    }

    fn server_args(&self, addr: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec![
            format!("--server={addr},0"),
            format!("--tls-cert={}", self.p("cert.pem")),
            format!("--tls-key={}", self.p("key.pem")),
            format!("--server-allow={}", self.p("data")),
        ];
        // "--no-token" (a test's marker, not a ferrio flag): client certificates only.
        if !extra.contains(&"--no-token") {
            args.push(format!("--auth-token-file={}", self.p("token")));
        }
        let extra: Vec<&str> = extra
            .iter()
            .copied()
            .filter(|e| *e != "--no-token")
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    /// `ferrio --client ...` with the lab's CA and token (unless `args` name others).
    pub fn client(&self, args: &[&str]) -> Output {
        self.client_cmd(args).output().unwrap()
    }

    /// The command [`Lab::client`] runs, for a test that spawns it (to signal it).
    pub fn client_cmd(&self, args: &[&str]) -> Command {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.push(format!("--tls-ca={}", self.p("ca.pem")));
        if !args
            .iter()
            .any(|x| x.starts_with("--auth-token-file") || x.starts_with("--tls-client-cert"))
        {
            a.push(format!("--auth-token-file={}", self.p("token")));
        }
        let mut cmd = ferrio();
        cmd.args(&a);
        cmd
    }

    /// [`Lab::client`] run in `cwd` (where the hosts' log files land).
    pub fn client_in(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.push(format!("--tls-ca={}", self.p("ca.pem")));
        a.push(format!("--auth-token-file={}", self.p("token")));
        ferrio().args(&a).current_dir(cwd).output().unwrap()
    }
}

/// The test subnet of the network-namespace tests: 10.213.N.0/24, N from the
/// process id, host i at 10.213.N.(4i+2) (its veth peer at 4i+1).
pub fn netns_subnet() -> u32 {
    std::process::id() % 250
}

/// The namespace hosts' addresses, for the server certificate.
fn netns_sans() -> String {
    (0..4)
        .map(|i| format!("IP:10.213.{}.{}", netns_subnet(), 4 * i + 2))
        .collect::<Vec<_>>()
        .join(",")
}

/// A running `ferrio --server`; its stderr and stdout (where `--debug` lines go) are
/// collected for assertions.
pub struct Server {
    pub child: Child,
    pub addr: String,
    pub log: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(mut cmd: Command, args: &[String]) -> Server {
        let mut child = cmd
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut err = BufReader::new(child.stderr.take().unwrap());
        // Lines before "listening" (e.g. the default credentials made) are kept.
        let mut before = String::new();
        let addr = loop {
            let mut line = String::new();
            if err.read_line(&mut line).unwrap() == 0 {
                panic!("server did not start: {before}");
            }
            match line.trim().strip_prefix("ferrio: server listening on ") {
                Some(a) => break a.to_string(),
                None => before.push_str(&line),
            }
        };
        let log = Arc::new(Mutex::new(before));
        let collect = |from: Box<dyn BufRead + Send>| {
            let l = log.clone();
            std::thread::spawn(move || {
                for line in from.lines().map_while(Result::ok) {
                    let mut g = l.lock().unwrap();
                    g.push_str(&line);
                    g.push('\n');
                }
            });
        };
        collect(Box::new(err));
        collect(Box::new(out));
        Server { child, addr, log }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Wait (up to 20 s) until the log contains `what`.
    pub fn wait_for(&self, what: &str) {
        for _ in 0..400 {
            if self.log().contains(what) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("server log never said '{what}':\n{}", self.log());
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.child.id().to_string()])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr:\n{}", stdout(o), stderr(o)))
}

/// Whether `p` exists (without following a final symlink).
pub fn exists(p: &Path) -> bool {
    p.symlink_metadata().is_ok()
}
