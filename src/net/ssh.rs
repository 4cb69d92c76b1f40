//! The ssh transport: `--client=ssh://[user@]host[:port]` runs the remote ferrio as
//! `ferrio --server-stdio` through the system's `ssh`, and speaks the protocol over
//! its stdin/stdout. Keys, agents, known_hosts and jump hosts are ssh's business
//! (`--ssh-config=FILE` hands it a config file); ssh's own keep-alives notice a dead
//! link, and a watchdog ends ssh when a read waits longer than `--client-timeout` (a
//! silent host).

use super::wire::{Conn, Pipes};
use ferrio_config::GlobalFlags;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The command run on the remote host unless `--ssh-command` says otherwise.
pub const DEFAULT_COMMAND: &str = "ferrio --server-stdio";

/// `[user@]host[:port]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dest {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

impl Dest {
    pub fn parse(s: &str) -> Result<Dest, String> {
        let bad =
            || format!("--client: bad ssh destination 'ssh://{s}' (ssh://[user@]host[:port])");
        let (user, rest) = match s.split_once('@') {
            Some((u, r)) if !u.is_empty() => (Some(u.to_string()), r),
            Some(_) => return Err(bad()),
            None => (None, s),
        };
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p.parse().map_err(|_| bad())?)),
            None => (rest, None),
        };
        // A host that looks like an ssh option would be read as one.
        if host.is_empty() || host.starts_with('-') || host.contains('/') {
            return Err(bad());
        }
        Ok(Dest {
            user,
            host: host.to_string(),
            port,
        })
    }
}

/// The client's ssh settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub config: Option<PathBuf>,
    pub command: Option<String>,
}

impl Options {
    pub fn from_flags(f: &GlobalFlags) -> Options {
        Options {
            config: f.net.ssh_config.clone(),
            command: f.net.ssh_command.clone(),
        }
    }
}

/// The state a read shares with its watchdog.
struct Watch {
    t0: Instant,
    /// Milliseconds since `t0` + 1 when the current read began; 0 while not reading.
    reading_since: AtomicU64,
    timed_out: AtomicBool,
    done: AtomicBool,
    child: Mutex<Child>,
}

impl Watch {
    fn now(&self) -> u64 {
        self.t0.elapsed().as_millis() as u64 + 1
    }

    /// Kill ssh when a read has waited longer than `timeout`; ends with the connection.
    fn run(&self, timeout: Duration) {
        while !self.done.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
            let since = self.reading_since.load(Ordering::SeqCst);
            if since != 0 && self.now().saturating_sub(since) > timeout.as_millis() as u64 {
                self.timed_out.store(true, Ordering::SeqCst);
                if let Ok(mut c) = self.child.lock() {
                    let _ = c.kill();
                }
                return;
            }
        }
    }
}

/// Reads the child's stdout under the watchdog; ends and reaps ssh when dropped.
struct ChildOut {
    out: ChildStdout,
    watch: Arc<Watch>,
}

impl std::io::Read for ChildOut {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let w = &self.watch;
        w.reading_since.store(w.now(), Ordering::SeqCst);
        let r = self.out.read(buf);
        w.reading_since.store(0, Ordering::SeqCst);
        if w.timed_out.load(Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the host went silent",
            ));
        }
        r
    }
}

impl Drop for ChildOut {
    fn drop(&mut self) {
        self.watch.done.store(true, Ordering::SeqCst);
        if let Ok(mut c) = self.watch.child.lock() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The argument list for ssh (without the program name).
pub fn args(d: &Dest, o: &Options) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "-T".into(),
        "-o".into(),
        "BatchMode=yes".into(),
        "-o".into(),
        "ServerAliveInterval=5".into(),
        "-o".into(),
        "ServerAliveCountMax=3".into(),
    ];
    if let Some(c) = &o.config {
        a.extend(["-F".into(), c.display().to_string()]);
    }
    if let Some(p) = d.port {
        a.extend(["-p".into(), p.to_string()]);
    }
    if let Some(u) = &d.user {
        a.extend(["-l".into(), u.clone()]);
    }
    a.push("--".into());
    a.push(d.host.clone());
    a.push(o.command.clone().unwrap_or_else(|| DEFAULT_COMMAND.into()));
    a
}

/// Start ssh and wrap its pipes as a connection; a read waiting longer than
/// `timeout` ends ssh and fails as timed out.
pub fn connect(d: &Dest, o: &Options, timeout: Duration) -> Result<Conn, String> {
    let mut child = Command::new("ssh")
        .args(args(d, o))
        // Its own process group, so a terminal's Ctrl-C reaches only the client,
        // which then stops the host over this connection (a Stop, then the report);
        // ssh killed by it would lose the host's report. (BatchMode: it never reads
        // the terminal.)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run ssh: {e}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("ssh gave no pipes".into());
    };
    let watch = Arc::new(Watch {
        t0: Instant::now(),
        reading_since: AtomicU64::new(0),
        timed_out: AtomicBool::new(false),
        done: AtomicBool::new(false),
        child: Mutex::new(child),
    });
    {
        let watch = watch.clone();
        std::thread::spawn(move || watch.run(timeout));
    }
    Ok(Conn::new(Box::new(Pipes {
        read: ChildOut { out: stdout, watch },
        write: stdin,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_and_the_ssh_command_line() {
        let d = Dest::parse("bob@h1:2222").unwrap();
        assert_eq!(
            (d.user.as_deref(), d.host.as_str(), d.port),
            (Some("bob"), "h1", Some(2222))
        );
        assert!(Dest::parse("-oProxyCommand=x").is_err());
        assert!(Dest::parse("@h").is_err());
        let a = args(
            &d,
            &Options {
                config: Some("/tmp/c".into()),
                command: None,
            },
        );
        let tail: Vec<&str> = a.iter().rev().take(2).map(String::as_str).collect();
        assert_eq!(tail, ["ferrio --server-stdio", "h1"]);
        assert!(a.windows(2).any(|w| w == ["-F", "/tmp/c"]));
        assert!(a.windows(2).any(|w| w == ["-l", "bob"]));
    }
}
