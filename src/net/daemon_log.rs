//! A daemonized server's messages (`--daemonize`) go to syslog, as fio's do: each line
//! it writes on its standard output or error is one message, at `user.info` as fio
//! sends all of its own, tagged `ferrio[PID]` (the `ferrio: ` that starts the line on
//! a terminal is left out). The socket is the system's (/dev/log, or the other
//! places the `syslog` crate knows); a test points the daemon at a socket of its own
//! with [`SOCKET_ENV`]. Without a reachable syslog the daemon says so on the terminal
//! before it detaches, and its messages are discarded, as before.

use std::fs::File;
use std::io::{BufRead, BufReader};
use syslog::{Facility, Formatter3164, Logger, LoggerBackend};

/// Test-only: the path of a unix datagram socket to send the messages to instead of
/// the system's syslog (docs/multihost.md).
pub const SOCKET_ENV: &str = "FERRIO_SYSLOG_SOCKET";

type Log = Logger<LoggerBackend, Formatter3164>;

/// Two connections, one per stream (a logger writes from one thread).
pub struct Syslog {
    out: Log,
    err: Log,
}

/// Connect to syslog (in the daemon, before it detaches); on failure say why on the
/// still-inherited standard error.
pub fn connect() -> Option<Syslog> {
    let one = || -> Result<Log, String> {
        let formatter = Formatter3164 {
            facility: Facility::LOG_USER,
            hostname: None,
            process: "ferrio".into(),
            pid: std::process::id(),
        };
        match std::env::var_os(SOCKET_ENV) {
            Some(path) => syslog::unix_custom(formatter, &path)
                .map_err(|e| format!("{}: {e}", std::path::Path::new(&path).display())),
            None => syslog::unix(formatter).map_err(|e| e.to_string()),
        }
    };
    match (one(), one()) {
        (Ok(out), Ok(err)) => Some(Syslog { out, err }),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("ferrio: --daemonize: no syslog ({e}): the server's messages are discarded");
            None
        }
    }
}

/// Send every line of the daemon's `stdout` and `stderr` to `syslog`, each stream on
/// its own thread, for as long as the process lives (without syslog they are read
/// and dropped, so a full pipe never blocks the server).
pub fn forward(syslog: Option<Syslog>, stdout: File, stderr: File) {
    let (out, err) = match syslog {
        Some(s) => (Some(s.out), Some(s.err)),
        None => (None, None),
    };
    for (stream, log) in [(stdout, out), (stderr, err)] {
        let _ = std::thread::Builder::new()
            .name("ferrio-syslog".into())
            .spawn(move || pump(stream, log));
    }
}

fn pump(stream: File, mut log: Option<Log>) {
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { break };
        let Some(log) = log.as_mut() else { continue };
        let text = message(&line);
        if text.is_empty() {
            continue;
        }
        // A syslog that went away loses the line; the server goes on.
        let _ = log.info(text);
    }
}

/// A line as syslog gets it: without the terminal's `ferrio: ` (the tag names us).
fn message(line: &str) -> &str {
    let line = line.trim_end();
    line.strip_prefix("ferrio: ").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_prefix_is_left_out() {
        assert_eq!(
            message("ferrio: server listening on 127.0.0.1:1\n"),
            "server listening on 127.0.0.1:1"
        );
        assert_eq!(message("fio-style line"), "fio-style line");
    }
}
