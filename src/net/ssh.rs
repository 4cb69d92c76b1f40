//! The ssh transport: `--client=ssh://[user@]host[:port]` runs the remote ferrio as
//! `ferrio --server-stdio` through the system's `ssh`, and speaks the protocol over
//! its stdin/stdout. Keys, agents, known_hosts and jump hosts are ssh's business
//! (`--ssh-config=FILE` hands it a config file); ssh's own keep-alives notice a dead
//! link.

use super::wire::{Conn, Pipes};
use ferrio_config::GlobalFlags;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};

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

/// The ssh child's pipes; the child is killed when the connection is dropped.
struct SshPipe {
    child: Child,
}

impl Drop for SshPipe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads the child's stdout and keeps the child alive (and reaped) with it.
struct ChildOut {
    out: ChildStdout,
    _child: SshPipe,
}

impl std::io::Read for ChildOut {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.out.read(buf)
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

/// Start ssh and wrap its pipes as a connection.
pub fn connect(d: &Dest, o: &Options) -> Result<Conn, String> {
    let mut child = Command::new("ssh")
        .args(args(d, o))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run ssh: {e}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("ssh gave no pipes".into());
    };
    Ok(Conn::new(Box::new(Pipes {
        read: ChildOut {
            out: stdout,
            _child: SshPipe { child },
        },
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
