//! `ferrio --server`: accept sessions (TLS over TCP, or one on stdin/stdout for ssh),
//! authenticate, admit the jobs ([`super::guard`]), wait for the client's start, run
//! with the ordinary runner and send the report back. One thread per connection (at
//! most [`MAX_SESSIONS`]); runs themselves take turns, so two clients never share the
//! devices unknowingly.

use super::guard::{self, Limits};
use super::tls;
use super::wire::{self, Conn, Pipes, ToClient, ToServer};
use ferrio_config::{GlobalFlags, DEFAULT_PORT};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Connections served at once; more are refused at accept.
pub const MAX_SESSIONS: usize = 16;

/// How long an authenticated client may take to send its jobs and its start.
const START_TIMEOUT: Duration = Duration::from_secs(3600);

/// The furthest ahead a client may schedule the start.
const MAX_START_WAIT: Duration = Duration::from_secs(10);

/// How long an unauthenticated peer may take to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a finished session waits for its client to close first ([`linger`]).
const LINGER: Duration = Duration::from_secs(2);

/// What every session shares.
struct Shared {
    limits: Limits,
    /// None in stdio mode (ssh authenticated the peer) or when client certificates
    /// alone authenticate.
    token: Option<String>,
    /// Held for the length of a run.
    run_turn: Mutex<()>,
    host: String,
    /// Added to every wall-clock time this server tells its clients (0 but in tests:
    /// `FERRIO_TEST_SERVER_CLOCK_SKEW_NS` plays a host whose clock is off).
    skew_ns: i64,
}

impl Shared {
    /// This server's wall clock as its clients see it.
    fn now(&self) -> u64 {
        (wire::unix_ns() as i64).saturating_add(self.skew_ns).max(0) as u64
    }
}

/// The test hook's skew (an integer of nanoseconds; anything else is 0).
fn test_skew() -> i64 {
    std::env::var("FERRIO_TEST_SERVER_CLOCK_SKEW_NS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Serve until killed (or one session with `--server-once`/`--server-stdio`); the exit code.
pub fn serve(flags: &GlobalFlags) -> i32 {
    match serve_inner(flags) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    }
}

fn serve_inner(flags: &GlobalFlags) -> Result<i32, String> {
    let limits = Limits::from_flags(flags)?;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    if flags.net.stdio {
        // Under ssh the peer already has a shell on this host as this user: without
        // --server-allow its jobs may use what that user may.
        let mut limits = limits;
        if limits.allow.is_empty() {
            limits.allow.push("/".into());
            limits.confine = None;
        }
        let shared = Shared {
            limits,
            token: None,
            run_turn: Mutex::new(()),
            host,
            skew_ns: test_skew(),
        };
        exit_on_signals(None)?;
        let conn = Conn::with_read_fd(
            Box::new(Pipes {
                read: std::io::stdin(),
                write: std::io::stdout(),
            }),
            libc::STDIN_FILENO,
        );
        return Ok(match session(conn, &shared, "stdio", &|| {}) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("ferrio: server: {e}");
                1
            }
        });
    }
    // Client certificates may replace the token; without them it is required.
    let client_ca = flags.net.tls_client_ca.as_deref();
    let token = match (&flags.net.token_file, client_ca) {
        (None, Some(_)) => None,
        (file, _) => Some(super::defaults::server_token(file.as_deref())?),
    };
    // Without --tls-cert and --tls-key: the user's default self-signed certificate.
    let (cert, key) = match (&flags.net.tls_cert, &flags.net.tls_key) {
        (Some(c), Some(k)) => (c.clone(), k.clone()),
        (None, None) => super::defaults::server_cert()?,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    let config = tls::server_config(&cert, &key, client_ca)?;
    let addr = listen_addr(flags.net.server.as_deref().unwrap_or(""))?;
    if let Some(path) = flags.net.daemonize.as_ref().or(flags.net.pidfile.as_ref()) {
        super::pidfile::check(path)?;
    }
    let listener =
        TcpListener::bind(&addr).map_err(|e| format!("--server: cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    // The pid file is written and the signals handled (they remove it) before the
    // "listening" line, and a daemon prints that line before its parent returns: so
    // whoever reads the line or the pid may connect or signal at once. A daemon
    // forks before any thread starts.
    let ready = |pidfile: Option<&std::path::Path>| {
        let pidfile = pidfile.map(super::pidfile::write).transpose()?;
        exit_on_signals(pidfile.clone())?;
        eprintln!("ferrio: server listening on {bound}");
        Ok::<_, String>(pidfile)
    };
    // A daemon's messages go to syslog (connected in the child, before its parent
    // returns, so a missing syslog is said on the terminal).
    let mut syslog = None;
    let pidfile = match &flags.net.daemonize {
        Some(path) => match crate::sys::daemon::daemonize(|| {
            syslog = super::daemon_log::connect();
            ready(Some(path)).map(drop)
        })? {
            crate::sys::daemon::Side::Parent { ready } => return Ok(i32::from(!ready)),
            crate::sys::daemon::Side::Child { stdout, stderr } => {
                super::daemon_log::forward(syslog.take(), stdout, stderr);
                eprintln!("ferrio: server listening on {bound}");
                Some(super::pidfile::PidFile::ours(path))
            }
        },
        None => ready(flags.net.pidfile.as_deref())?,
    };
    let mut limits = limits;
    limits.name_prefix = Some(bound.ip().to_string());
    let shared = Arc::new(Shared {
        limits,
        token,
        run_turn: Mutex::new(()),
        host,
        skew_ns: test_skew(),
    });
    let active = Arc::new(AtomicUsize::new(0));
    let once = flags.net.once;
    let finished = Arc::new(AtomicBool::new(false));
    let debug = flags.debug.contains(&ferrio_config::DebugCategory::Net);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if active.load(Ordering::SeqCst) >= MAX_SESSIONS {
            drop(stream);
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (shared, config, active2, finished2) = (
            shared.clone(),
            config.clone(),
            active.clone(),
            finished.clone(),
        );
        let h = std::thread::spawn(move || {
            let peer = stream.peer_addr().map_or("?".into(), |a| a.to_string());
            crate::runner::debug_hooks::net(debug, format_args!("server: connection from {peer}"));
            if let Err(e) = tls_session(stream, config, &shared, &peer) {
                eprintln!("ferrio: server: {peer}: {e}");
            } else {
                finished2.store(true, Ordering::SeqCst);
            }
            active2.fetch_sub(1, Ordering::SeqCst);
        });
        if once {
            let _ = h.join();
            if finished.load(Ordering::SeqCst) {
                break;
            }
        }
    }
    if let Some(p) = &pidfile {
        p.remove();
    }
    Ok(0)
}

/// SIGINT and SIGTERM end a server, also mid-run (each run registers its own
/// stop handlers, which would otherwise leave the server deaf to them): its client
/// sees the connection drop and reports the host as lost. Its pid file goes first.
fn exit_on_signals(pidfile: Option<super::pidfile::PidFile>) -> Result<(), String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = crate::sys::signals::watch(&[SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            eprintln!("ferrio: server: terminating on signal {sig}");
            if let Some(p) = &pidfile {
                p.remove();
            }
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}

/// `--server=[ip:|ip6:]ADDR[,PORT]` (fio's form); an empty ADDR means all addresses.
pub fn listen_addr(v: &str) -> Result<String, String> {
    let v = v
        .strip_prefix("ip6:")
        .or_else(|| v.strip_prefix("ip:"))
        .unwrap_or(v);
    let (host, port) = match v.rsplit_once(',') {
        Some((h, p)) => (
            h,
            p.parse::<u16>()
                .map_err(|_| format!("--server={v}: bad port '{p}'"))?,
        ),
        None => (v, DEFAULT_PORT),
    };
    let host = if host.is_empty() { "0.0.0.0" } else { host };
    Ok(if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    })
}

fn tls_session(
    stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
    shared: &Shared,
    peer: &str,
) -> Result<(), String> {
    let _ = stream.set_nodelay(true);
    stream
        .set_read_timeout(Some(HELLO_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let conn = rustls::ServerConnection::new(config).map_err(|e| e.to_string())?;
    let tls = rustls::StreamOwned::new(conn, stream.try_clone().map_err(|e| e.to_string())?);
    // Once authenticated, a client may take as long as its slowest host to start
    // (bounded, so a vanished client does not hold its session for ever).
    let relax = || {
        let _ = stream.set_read_timeout(Some(START_TIMEOUT));
    };
    let conn = Conn::with_read_fd(Box::new(tls), stream.as_raw_fd());
    let r = session(conn, shared, peer, &relax);
    linger(&stream);
    r
}

/// A lingering close: a Stop the client sent as the run ended may still be on its way,
/// and a socket closed with bytes unread resets the connection, which can drop the
/// report the client has not read yet. So: end our side, then wait (briefly) for the
/// client to close its own after reading everything, discarding what it sent.
fn linger(stream: &TcpStream) {
    use std::io::Read;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(LINGER));
    let mut sink = [0u8; 4096];
    let mut reader = stream;
    let until = std::time::Instant::now() + LINGER;
    while std::time::Instant::now() < until && matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Refuse with a reason the client prints, then end the session.
fn refuse(conn: &mut Conn, reason: String) -> Result<(), String> {
    let _ = conn.send(&ToClient::Refused {
        reason: reason.clone(),
    });
    Err(reason)
}

/// One client's session; `authenticated` is called once the token checked out.
fn session(
    mut conn: Conn,
    shared: &Shared,
    peer: &str,
    authenticated: &dyn Fn(),
) -> Result<(), String> {
    let hello = conn
        .recv::<ToServer>(wire::HELLO_LIMIT)
        .map_err(|e| format!("no valid hello: {e}"))?;
    match hello {
        ToServer::Hello { protocol, token } => {
            if protocol != wire::PROTOCOL {
                return refuse(
                    &mut conn,
                    format!(
                        "protocol {protocol} is not this server's {}",
                        wire::PROTOCOL
                    ),
                );
            }
            if let Some(t) = &shared.token {
                if !tls::same_token(t, &token) {
                    return refuse(
                        &mut conn,
                        "authentication failed: wrong or missing token (the client's token file \
                         must hold the server's token: copy the server host's file)"
                            .into(),
                    );
                }
            }
        }
        _ => return refuse(&mut conn, "authentication failed: no hello".into()),
    }
    authenticated();
    conn.send(&ToClient::Welcome {
        host: shared.host.clone(),
        unix_ns: shared.now(),
    })
    .map_err(|e| e.to_string())?;
    let limit = shared.limits.max_job_bytes as usize + 64 * 1024;
    // The client's clock exchanges (a bounded number), then its job files.
    let mut rounds = 0;
    let (files, remote) = loop {
        match conn.recv::<ToServer>(limit) {
            Ok(ToServer::Clock) if rounds < super::clock::MAX_ROUNDS => {
                rounds += 1;
                conn.send(&ToClient::Clock {
                    unix_ns: shared.now(),
                })
                .map_err(|e| e.to_string())?;
            }
            Ok(ToServer::Jobs { files, remote }) => break (files, remote),
            Ok(_) => return refuse(&mut conn, "expected the job files".into()),
            Err(e) => return refuse(&mut conn, format!("job files refused: {e}")),
        }
    };
    let (mut inv, threads) = match guard::admit(&files, &remote, &shared.limits) {
        Ok(x) => x,
        Err(e) => return refuse(&mut conn, e),
    };
    // Logs go to a private directory of this server's, and back to the client.
    let logs = match super::logs::redirect(&mut inv) {
        Ok(l) => l,
        Err(e) => return refuse(&mut conn, e),
    };
    eprintln!("ferrio: server: {peer}: {threads} threads admitted");
    conn.send(&ToClient::Ready {
        threads: threads as u32,
    })
    .map_err(|e| e.to_string())?;
    // The client's barrier: wait (without a limit) for every host to be ready.
    match conn.recv::<ToServer>(wire::HELLO_LIMIT) {
        Ok(ToServer::Start { at_unix_ns }) => {
            wait_until((at_unix_ns as i64).saturating_sub(shared.skew_ns).max(0) as u64)
        }
        Ok(_) => return refuse(&mut conn, "expected start".into()),
        Err(e) => return Err(format!("the client left before the start: {e}")),
    }
    let turn = shared.run_turn.lock().unwrap_or_else(|p| p.into_inner());
    conn.send(&ToClient::Started {
        unix_ns: shared.now(),
    })
    .map_err(|e| e.to_string())?;
    let conn = Arc::new(Mutex::new(conn));
    let done = Arc::new(AtomicBool::new(false));
    let progress: crate::app::Progress = Arc::new(Mutex::new(None));
    let stop = Arc::new(AtomicBool::new(false));
    let beat = {
        let (conn, done, progress) = (conn.clone(), done.clone(), progress.clone());
        let (skew, stop, peer) = (shared.skew_ns, stop.clone(), peer.to_string());
        std::thread::spawn(move || {
            let run = Beat {
                done: &done,
                progress: &progress,
                stop: &stop,
                skew,
                peer: &peer,
            };
            heartbeat(&conn, &run)
        })
    };
    let result = crate::app::run_captured(inv, progress, shared.limits.confine.clone(), Some(stop));
    done.store(true, Ordering::SeqCst);
    let _ = beat.join();
    drop(turn);
    let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
    if let (Ok(_), Some(logs)) = (&result, &logs) {
        logs.send_each(&mut |log| {
            conn.send(&ToClient::Log(Box::new(log)))
                .map_err(|e| e.to_string())
        })?;
    }
    drop(logs);
    let msg = match result {
        Ok((report, code)) => ToClient::Done {
            report: Box::new(report),
            code,
        },
        Err(e) => ToClient::Refused {
            reason: format!("the run failed: {e}"),
        },
    };
    conn.send(&msg).map_err(|e| e.to_string())
}

/// Sleep until the agreed start (at most [`MAX_START_WAIT`] ahead; a past time starts now).
fn wait_until(at_unix_ns: u64) {
    let now = wire::unix_ns();
    if at_unix_ns > now {
        std::thread::sleep(Duration::from_nanos(at_unix_ns - now).min(MAX_START_WAIT));
    }
}

/// What the heartbeat thread shares with its run.
struct Beat<'a> {
    done: &'a AtomicBool,
    progress: &'a crate::app::Progress,
    /// The run's stop: set when the client asks (or goes away).
    stop: &'a AtomicBool,
    skew: i64,
    peer: &'a str,
}

/// "Still running", at least once a second, until the run ends, with the latest
/// results; in between, a look for the client's Stop (fio's QUIT), or for the client
/// gone, either of which stops the run (nobody would read a report it kept running
/// for; its end frees the server for the next client).
fn heartbeat(conn: &Mutex<Conn>, run: &Beat) {
    let mut ticks = 0u32;
    let mut listening = true;
    while !run.done.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        ticks += 1;
        if listening {
            let mut c = conn.lock().unwrap_or_else(|p| p.into_inner());
            if c.has_input() {
                listening = false;
                match c.recv::<ToServer>(wire::HELLO_LIMIT) {
                    Ok(ToServer::Stop) => {
                        eprintln!("ferrio: server: {}: the client stopped the run", run.peer)
                    }
                    Ok(m) => eprintln!(
                        "ferrio: server: {}: unexpected {m:?} mid-run; stopping the run",
                        run.peer
                    ),
                    Err(e) => eprintln!(
                        "ferrio: server: {}: the client went away mid-run ({e}); stopping the run",
                        run.peer
                    ),
                }
                run.stop.store(true, Ordering::SeqCst);
            }
        }
        // New results go out at once (the client's status line and --status-interval
        // see them without waiting for the next beat); otherwise a bare beat a second.
        let latest = run.progress.lock().ok().and_then(|mut p| p.take());
        if latest.is_some() || ticks >= 20 {
            ticks = 0;
            let mut c = conn.lock().unwrap_or_else(|p| p.into_inner());
            if c.send(&ToClient::Alive {
                unix_ns: (wire::unix_ns() as i64).saturating_add(run.skew).max(0) as u64,
                progress: latest.map(Box::new),
            })
            .is_err()
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_addresses_as_fio_writes_them() {
        assert_eq!(listen_addr("").unwrap(), "0.0.0.0:8765");
        assert_eq!(listen_addr("127.0.0.1,9000").unwrap(), "127.0.0.1:9000");
        assert_eq!(listen_addr("ip:10.0.0.1").unwrap(), "10.0.0.1:8765");
        assert_eq!(listen_addr("ip6:::1,9").unwrap(), "[::1]:9");
        assert!(listen_addr("h,x").unwrap_err().contains("bad port 'x'"));
    }
}
