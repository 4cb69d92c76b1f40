//! Multi-host flags (`--server`, `--client`, the server's safety limits, the shared
//! token and TLS files): what the flag table's rows store, and fio's command-line
//! semantics for which job files go to which hosts.

use super::{flag_err, ConfigError};
use std::path::PathBuf;

/// The default TCP port of `--server` and `--client` (fio's default, 8765).
pub const DEFAULT_PORT: u16 = 8765;

/// One `--client=...` argument and the job files that follow it on the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientGroup {
    /// Hosts as given: `host[:port]` or `ssh://[user@]host[:port]`.
    pub hosts: Vec<String>,
    /// Local job files to send, in order.
    pub files: Vec<PathBuf>,
    /// `--remote-config` paths: job files read on the server (if it allows it).
    pub remote: Vec<String>,
}

/// Everything the multi-host flags say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetFlags {
    /// `--server[=ADDR[,PORT]]`: run as a server on this address (`""` = all, 8765).
    pub server: Option<String>,
    /// `--client` groups in command-line order.
    pub clients: Vec<ClientGroup>,
    /// `--server-allow=PATH`: the directories and devices a server's jobs may touch.
    pub allow: Vec<PathBuf>,
    /// `--auth-token-file=FILE`: the shared secret both sides must present.
    pub token_file: Option<PathBuf>,
    /// `--tls-cert`, `--tls-key` (server) and `--tls-ca` (client), PEM files.
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub tls_ca: Option<PathBuf>,
    /// Client certificates: `--tls-client-ca` (server: clients must present a
    /// certificate it signed), `--tls-client-cert` and `--tls-client-key` (client).
    pub tls_client_ca: Option<PathBuf>,
    pub tls_client_cert: Option<PathBuf>,
    pub tls_client_key: Option<PathBuf>,
    /// `--server-enable=exec,net,remote-config`: features a server refuses by default.
    pub enable_exec: bool,
    /// `--server-enable=net`: the network engines (net, netsplice, nbd), which connect to
    /// or listen on any address the job names.
    pub enable_net: bool,
    pub enable_remote_config: bool,
    /// `--server-max-jobs=N` (threads after numjobs) and `--server-max-job-size=BYTES`.
    pub max_jobs: Option<u64>,
    pub max_job_bytes: Option<u64>,
    /// `--client-timeout=TIME`: how long a client waits on a silent host, ms.
    pub timeout_ms: Option<u64>,
    /// `--server-once`: serve one session and exit (tests, SSH's stdio mode).
    pub once: bool,
    /// `--server-stdio`: speak the protocol on stdin/stdout (the SSH transport).
    pub stdio: bool,
    /// `--mpi`: one rank of `mpirun -n N ferrio --mpi job.fio`; rank 0 reports all.
    pub mpi: bool,
    /// `--daemonize=PIDFILE` (fio's): serve in the background, its pid in PIDFILE.
    pub daemonize: Option<PathBuf>,
    /// `--pidfile=FILE`: a server in the foreground writes its pid there.
    pub pidfile: Option<PathBuf>,
    /// `--ssh-config=FILE` (ssh -F) and `--ssh-command=CMD` (run on the remote host).
    pub ssh_config: Option<PathBuf>,
    pub ssh_command: Option<String>,
}

/// `--client=HOST[,HOST...]` or `--client=HOSTFILE` (a file with one host per line,
/// `#` comments), as fio reads it; starts a new group for the job files that follow.
/// A value ending in `,NUMBER` is fio's `host,port` (one host; `,8765` is this host).
pub fn add_client(net: &mut NetFlags, v: &str) -> Result<(), ConfigError> {
    if v.trim().is_empty() {
        return Err(flag_err(
            "client",
            v,
            "a host, a comma list of hosts, or a host file",
        ));
    }
    let path = std::path::Path::new(v);
    let hosts: Vec<String> = if !v.contains("://") && path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read --client host file '{v}': {e}")))?;
        text.lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    } else if v
        .rsplit_once(',')
        .is_some_and(|(_, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        // fio's own form: one `host,port` (an empty host is this one).
        vec![v.trim().to_string()]
    } else {
        v.split(',').map(|h| h.trim().to_string()).collect()
    };
    if hosts.is_empty() || hosts.iter().any(String::is_empty) {
        return Err(flag_err(
            "client",
            v,
            "hosts separated by commas, none empty",
        ));
    }
    net.clients.push(ClientGroup {
        hosts,
        ..ClientGroup::default()
    });
    Ok(())
}

/// A job file argument in client mode: it belongs to the latest `--client` group.
/// Returns false when no `--client` came before it (a local job file).
pub fn attach_file(net: &mut NetFlags, file: &str) -> bool {
    match net.clients.last_mut() {
        Some(g) => {
            g.files.push(PathBuf::from(file));
            true
        }
        None => false,
    }
}

/// `--remote-config=PATH`: a job file read on the server by the latest group.
pub fn add_remote(net: &mut NetFlags, v: &str) -> Result<(), ConfigError> {
    match net.clients.last_mut() {
        Some(g) if !v.is_empty() => {
            g.remote.push(v.to_string());
            Ok(())
        }
        Some(_) => Err(flag_err(
            "remote-config",
            v,
            "a job file path on the server",
        )),
        None => Err(ConfigError(
            "--remote-config needs a --client before it (at command line)".into(),
        )),
    }
}

/// fio's rule for hosts without job files of their own: they run the last job file
/// given on the command line (`loose`: files given before any `--client`). Groups
/// that still have nothing are an error.
pub fn settle(net: &mut NetFlags, loose: &[PathBuf]) -> Result<(), ConfigError> {
    let last = net
        .clients
        .iter()
        .rev()
        .find_map(|g| g.files.last().cloned())
        .or_else(|| loose.last().cloned());
    for g in &mut net.clients {
        if g.files.is_empty() && g.remote.is_empty() {
            match &last {
                Some(f) => g.files.push(f.clone()),
                None => {
                    return Err(ConfigError(format!(
                        "--client={}: no job file to send (give one after it, or --remote-config)",
                        g.hosts.join(",")
                    )))
                }
            }
        }
    }
    Ok(())
}

/// `--server-enable=exec,net,remote-config`.
pub fn enable(net: &mut NetFlags, v: &str) -> Result<(), ConfigError> {
    for w in v.split(',').map(str::trim) {
        match w {
            "exec" => net.enable_exec = true,
            "net" => net.enable_net = true,
            "remote-config" => net.enable_remote_config = true,
            _ => {
                return Err(flag_err(
                    "server-enable",
                    w,
                    "exec, net, remote-config (comma list)",
                ))
            }
        }
    }
    Ok(())
}

/// A positive count or size (`64`, `1M`).
pub fn count(flag: &str, v: &str) -> Result<u64, ConfigError> {
    match crate::values::parse_int(v, 1024) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(flag_err(
            flag,
            v,
            "a positive integer (k/M suffixes allowed)",
        )),
    }
}

/// A non-empty path value.
pub fn path(flag: &str, v: &str) -> Result<PathBuf, ConfigError> {
    if v.is_empty() {
        return Err(flag_err(flag, v, "a path"));
    }
    Ok(PathBuf::from(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_the_files_after_them_and_empty_groups_the_last_file() {
        let mut n = NetFlags::default();
        add_client(&mut n, "h1,h2").unwrap();
        add_client(&mut n, "h3").unwrap();
        assert!(attach_file(&mut n, "b.fio"));
        settle(&mut n, &[]).unwrap();
        assert_eq!(n.clients[0].hosts, ["h1", "h2"]);
        assert_eq!(n.clients[0].files, [PathBuf::from("b.fio")]);
        assert_eq!(n.clients[1].files, [PathBuf::from("b.fio")]);
    }

    #[test]
    fn fios_host_comma_port_is_one_host() {
        let mut n = NetFlags::default();
        add_client(&mut n, ",8765").unwrap();
        add_client(&mut n, "h1,8766").unwrap();
        add_client(&mut n, "h1,h2").unwrap();
        assert_eq!(n.clients[0].hosts, [",8765"]);
        assert_eq!(n.clients[1].hosts, ["h1,8766"]);
        assert_eq!(n.clients[2].hosts, ["h1", "h2"]);
    }

    #[test]
    fn a_group_without_any_job_file_is_an_error() {
        let mut n = NetFlags::default();
        add_client(&mut n, "h1").unwrap();
        let e = settle(&mut n, &[]).unwrap_err().0;
        assert!(e.contains("--client=h1: no job file"), "{e}");
        assert!(add_client(&mut n, "a,,b").is_err());
        assert!(!attach_file(&mut NetFlags::default(), "x.fio"));
    }

    #[test]
    fn a_host_file_lists_one_host_a_line() {
        let d = std::env::temp_dir().join(format!("ferrio-hosts-{}", std::process::id()));
        std::fs::write(&d, "# lab\nh1\n\nh2:9000 # second\n").unwrap();
        let mut n = NetFlags::default();
        add_client(&mut n, d.to_str().unwrap()).unwrap();
        std::fs::remove_file(&d).unwrap();
        assert_eq!(n.clients[0].hosts, ["h1", "h2:9000"]);
    }
}
