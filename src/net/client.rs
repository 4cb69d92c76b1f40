//! `ferrio --client`: one thread per host connects (TLS or ssh), authenticates and
//! sends the job files; when every host is ready they are told to start at once (the
//! barrier), and each thread waits for its host's report, giving up on a host silent
//! for `--client-timeout`. A host that fails before the start stops the whole run (no
//! host starts); one that fails mid-run is reported, the others finish.

use super::clock;
use super::outcome::{HostResult, Outcome};
use super::print;
use super::ssh;
use super::status;
use super::tls;
use super::wire::{self, Conn, JobText, ToClient, ToServer};
use ferrio_config::{GlobalFlags, DEFAULT_PORT};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long a host may stay silent unless `--client-timeout` says otherwise.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// How far ahead of now the common start is set.
const START_LEAD: Duration = Duration::from_millis(200);

/// Where a host is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Tls { host: String, port: u16 },
    Ssh(ssh::Dest),
}

impl HostResult {
    fn fail(mut self, stage: &'static str, reason: String) -> HostResult {
        self.outcome = Outcome::Failed { stage, reason };
        self
    }
}

/// What every host thread needs.
struct Ctx {
    board: Arc<status::Board>,
    token: String,
    tls: Option<Arc<rustls::ClientConfig>>,
    timeout: Duration,
    ssh: ssh::Options,
    /// --debug=net.
    debug: bool,
    /// Each host's latest cumulative report (its heartbeats'), for --status-interval.
    latest: super::interval::Latest,
    /// Set by SIGINT/SIGTERM or a closed stdout mid-run: every host is told to stop.
    stop_hosts: Arc<AtomicBool>,
}

/// The hosts' results, and what cut the run short (if anything).
pub struct Run {
    pub results: Vec<HostResult>,
    /// The signal (SIGINT/SIGTERM) that made the client stop the hosts (0: none).
    pub signal: usize,
    /// stdout's reader went away mid-run (the status line or an interval report
    /// found EPIPE): the hosts were stopped, and the process ends by SIGPIPE.
    pub stdout_gone: bool,
}

enum Event {
    Ready,
    Finished(Box<HostResult>),
}

/// Run the client; the exit code: 0 when every host finished cleanly, 1 otherwise.
pub fn run(flags: &GlobalFlags) -> i32 {
    match run_inner(flags) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    }
}

/// `host[:port]`, `[v6]:port` or `ssh://[user@]host[:port]`.
pub fn parse_target(s: &str) -> Result<Target, String> {
    if let Some(rest) = s.strip_prefix("ssh://") {
        return ssh::Dest::parse(rest).map(Target::Ssh);
    }
    let bad = || {
        format!("--client: bad host '{s}' (host[:port], host,port, [v6addr]:port or ssh://[user@]host[:port])")
    };
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, p) = rest.split_once(']').ok_or_else(bad)?;
        let port = match p.strip_prefix(':') {
            Some(p) => p.parse().map_err(|_| bad())?,
            None if p.is_empty() => DEFAULT_PORT,
            None => return Err(bad()),
        };
        (h.to_string(), port)
    } else if let Some((h, p)) = s.rsplit_once(',').filter(|_| !s.contains(':')) {
        // fio's `host,port`; an empty host is this one (where `--server=,PORT`
        // listens: on every IPv4 address).
        let h = if h.is_empty() { "127.0.0.1" } else { h };
        (h.to_string(), p.parse().map_err(|_| bad())?)
    } else if s.matches(':').count() == 1 {
        let (h, p) = s.split_once(':').ok_or_else(bad)?;
        (h.to_string(), p.parse().map_err(|_| bad())?)
    } else {
        (s.to_string(), DEFAULT_PORT)
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok(Target::Tls { host, port })
}

fn run_inner(flags: &GlobalFlags) -> Result<i32, String> {
    let made = print::check_output(flags)?;
    let run = match run_hosts(flags, &[]) {
        Ok(Some(run)) => run,
        // No host started: nothing to report, and no report file left behind.
        other => {
            if let Some(p) = made {
                let _ = std::fs::remove_file(p);
            }
            return other.map(|_| 1);
        }
    };
    print::write_all(flags, &run.results)?;
    if run.stdout_gone {
        // --output's file is written (a report to stdout has ended the process).
        crate::sys::signals::die_by_sigpipe();
    }
    let code = exit_code(&run.results);
    Ok(match run.signal {
        0 => code,
        _ => crate::app::EXIT_INTERRUPTED + code,
    })
}

/// 0 when every host finished cleanly, else 1.
pub fn exit_code(results: &[HostResult]) -> i32 {
    let clean = results
        .iter()
        .all(|r| matches!(r.outcome, Outcome::Done { code: 0, .. }) && r.log_errors == 0);
    i32::from(!clean)
}

/// Run the job files on every host, each job section ending with `overrides` (a
/// sweep point's options); the hosts' results, or None when not every host was ready
/// (no host started; the failures are printed).
pub fn run_hosts(
    flags: &GlobalFlags,
    overrides: &[(String, String)],
) -> Result<Option<Run>, String> {
    let mut hosts = Vec::new();
    for g in &flags.net.clients {
        let mut files = Vec::new();
        for f in &g.files {
            let text = std::fs::read(f)
                .map_err(|e| format!("cannot read job file '{}': {e}", f.display()))?;
            let text = ferrio_config::jobfile::decode(&text)
                .map_err(|e| format!("job file '{}': {e}", f.display()))?;
            files.push(JobText {
                name: f.display().to_string(),
                text: with_overrides(&text, overrides),
            });
        }
        for h in &g.hosts {
            hosts.push((h.clone(), parse_target(h)?, files.clone(), g.remote.clone()));
        }
    }
    let any_tls = hosts.iter().any(|h| matches!(h.1, Target::Tls { .. }));
    let (token, tls) = if any_tls {
        let net = &flags.net;
        let identity = match (&net.tls_client_cert, &net.tls_client_key) {
            (Some(c), Some(k)) => Some((c.as_path(), k.as_path())),
            (None, None) => None,
            _ => return Err("--tls-client-cert and --tls-client-key go together".into()),
        };
        // A client certificate may stand in for the token.
        let token = match (&net.token_file, identity) {
            (None, Some(_)) => String::new(),
            (file, _) => super::defaults::client_token(file.as_deref())?,
        };
        let config = match (net.tls_ca.as_deref(), identity) {
            (Some(ca), _) => tls::client_config(ca, identity)?,
            // Without a CA: the default self-signed certificate a server here made.
            (None, None) => {
                let (cert, _) = super::defaults::cert_paths()?;
                if !cert.exists() {
                    return Err(format!(
                        "--client: no --tls-ca, and no default server certificate '{}' \
                         (a `ferrio --server` on this host makes it; for servers on other \
                         hosts copy their directory here, or use --tls-ca)",
                        cert.display()
                    ));
                }
                tls::pinned_client_config(&cert)?
            }
            (None, Some(_)) => {
                return Err(
                    "--client needs --tls-ca (the CA that signed the servers' certificates)".into(),
                )
            }
        };
        (token, Some(config))
    } else {
        (String::new(), None)
    };
    let nhosts = hosts.len();
    let labels: Vec<String> = hosts.iter().map(|h| h.0.clone()).collect();
    let tags = super::logs::host_tags(&labels);
    let ctx = Arc::new(Ctx {
        board: status::Board::new(nhosts),
        token,
        tls,
        timeout: Duration::from_millis(flags.net.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)),
        ssh: ssh::Options::from_flags(flags),
        debug: crate::runner::debug_hooks::net_hosts(
            flags,
            (hosts.iter()).map(|h| (h.0.as_str(), h.2.iter().map(|f| f.name.as_str()).collect())),
        ),
        latest: Arc::new(std::sync::Mutex::new(vec![None; nhosts])),
        stop_hosts: Arc::new(AtomicBool::new(false)),
    });
    let stdout_gone = Arc::new(AtomicBool::new(false));
    let gone = crate::live::StdoutGone {
        gone: stdout_gone.clone(),
        run_stop: ctx.stop_hosts.clone(),
    };
    let (tx, rx) = mpsc::channel();
    let mut starts = Vec::new();
    let mut handles = Vec::new();
    for (i, ((label, target, files, remote), tag)) in hosts.into_iter().zip(tags).enumerate() {
        let (stx, srx) = mpsc::channel::<Option<i128>>();
        starts.push(stx);
        let (ctx, tx) = (ctx.clone(), tx.clone());
        handles.push(std::thread::spawn(move || {
            // Whatever happens in drive, the barrier hears of this host.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let host = HostCtx {
                    label: &label,
                    tag: &tag,
                    target: &target,
                };
                let mut r = drive(&host, &files, &remote, &ctx, &tx, i, &srx);
                if let Outcome::Done { report, .. } = &mut r.outcome {
                    report.global_options = sent_globals(&files);
                }
                r
            }))
            .unwrap_or_else(|_| {
                HostResult::failed(
                    label.clone(),
                    "lost",
                    "internal error in the client (a bug: please report it)".into(),
                )
            });
            let state = match r.outcome {
                Outcome::Done { .. } => status::DONE,
                Outcome::Failed { .. } => status::FAILED,
            };
            ctx.board.set(i, state);
            let _ = tx.send((i, Event::Finished(Box::new(r))));
        }));
    }
    drop(tx);
    let stdout_tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let status = crate::live::eta_wanted(flags.eta, &flags.output_formats, stdout_tty)
        .then(|| status::Status::start(ctx.board.clone(), gone.clone()));
    // The barrier: every host ready (or failed) before any starts.
    let n = starts.len();
    let mut results: Vec<Option<HostResult>> = (0..n).map(|_| None).collect();
    let mut ready = 0;
    while ready + results.iter().filter(|r| r.is_some()).count() < n {
        match rx.recv() {
            Ok((_, Event::Ready)) => ready += 1,
            Ok((i, Event::Finished(r))) => results[i] = Some(*r),
            Err(_) => break,
        }
    }
    let go = results.iter().all(Option::is_none);
    // One start time for all, far enough ahead for the message to reach every host.
    let at = wire::unix_ns() as i128 + START_LEAD.as_nanos() as i128;
    // From the start on, SIGINT/SIGTERM stop the hosts' runs (fio's client sends
    // QUIT): each ends its jobs and sends what they measured, which is printed.
    let signal = Arc::new(AtomicUsize::new(0));
    let mut handlers = crate::sys::signals::Handlers::new();
    if go {
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            handlers.value(sig, &signal, sig as usize);
            handlers.flag(sig, &ctx.stop_hosts);
        }
    }
    for s in &starts {
        let _ = s.send(go.then_some(at));
    }
    let reporter = match (go, flags.live.status_interval_ms) {
        (true, Some(ms)) => Some(super::interval::Reporter::start(
            flags.clone(),
            labels.clone(),
            ctx.latest.clone(),
            Duration::from_millis(ms.max(1)),
            gone,
        )?),
        _ => None,
    };
    for (i, ev) in rx {
        if let Event::Finished(r) = ev {
            results[i] = Some(*r);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    if let Some(r) = reporter {
        r.stop();
    }
    if let Some(s) = status {
        s.stop();
    }
    drop(handlers);
    let signal = signal.load(Ordering::SeqCst);
    if signal != 0 {
        eprintln!("ferrio: terminating on signal {signal}: every host was told to stop");
    }
    let results: Vec<HostResult> = results.into_iter().flatten().collect();
    if !go {
        for r in &results {
            if let Outcome::Failed { stage, reason } = &r.outcome {
                if *stage != "aborted" {
                    eprintln!("ferrio: host {}: {stage}: {reason}", r.label);
                }
            }
        }
        eprintln!("ferrio: not every host was ready; no host started");
        return Ok(None);
    }
    Ok(Some(Run {
        results,
        signal,
        stdout_gone: stdout_gone.load(Ordering::SeqCst),
    }))
}

fn connect(target: &Target, ctx: &Ctx) -> Result<Conn, String> {
    match target {
        Target::Ssh(d) => ssh::connect(d, &ctx.ssh, ctx.timeout),
        Target::Tls { host, port } => {
            let config = ctx.tls.clone().ok_or("no TLS configuration")?;
            connect_tls(host, *port, config, ctx.timeout)
        }
    }
}

/// A TLS connection to a server, the handshake done (public for tests and tools).
pub fn connect_tls(
    host: &str,
    port: u16,
    config: Arc<rustls::ClientConfig>,
    timeout: Duration,
) -> Result<Conn, String> {
    let addr = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("cannot resolve {host}"))?;
    let tcp = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = tcp.set_nodelay(true);
    tcp.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let name = rustls::pki_types::ServerName::try_from(host.to_string())
        .map_err(|e| format!("bad server name {host}: {e}"))?;
    let conn = rustls::ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    // Handshake now, so the hello's round trip (the clock offset) is one round trip.
    while tls.conn.is_handshaking() {
        if let Err(e) = tls.conn.complete_io(&mut tls.sock) {
            return Err(if is_timeout(&e) {
                format!(
                    "no TLS handshake from {addr} within {:.1}s (--client-timeout)",
                    timeout.as_secs_f64()
                )
            } else {
                format!("TLS handshake with {addr}: {e}")
            });
        }
    }
    Ok(Conn::new(Box::new(tls)))
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Why a read failed, as the user should read it.
fn read_failure(label: &str, e: std::io::Error, ctx: &Ctx) -> (&'static str, String) {
    match is_timeout(&e) {
        true => (
            "timeout",
            format!(
                "no word from {label} for {:.1}s (--client-timeout); giving up on it",
                ctx.timeout.as_secs_f64()
            ),
        ),
        false => ("lost", format!("connection lost: {e}")),
    }
}

/// Who one host thread talks to: its label, its log files' host tag, its address.
struct HostCtx<'a> {
    label: &'a str,
    tag: &'a str,
    target: &'a Target,
}

fn drive(
    host: &HostCtx,
    files: &[JobText],
    remote: &[String],
    ctx: &Ctx,
    tx: &mpsc::Sender<(usize, Event)>,
    index: usize,
    start: &mpsc::Receiver<Option<i128>>,
) -> HostResult {
    let (label, target) = (host.label, host.target);
    let res = HostResult::failed(label.to_string(), "connect", String::new());
    crate::runner::debug_hooks::net(ctx.debug, format_args!("client: connect to host {label}"));
    let mut conn = match connect(target, ctx) {
        Ok(c) => c,
        Err(e) => return res.fail("connect", e),
    };
    crate::runner::debug_hooks::net(ctx.debug, format_args!("client: {label} connected"));
    let mut res = res;
    let t0 = wire::unix_ns() as i128;
    let hello = ToServer::Hello {
        protocol: wire::PROTOCOL,
        token: ctx.token.clone(),
    };
    if let Err(e) = conn.send(&hello) {
        return res.fail("connect", format!("handshake failed: {e}"));
    }
    let hello = match conn.recv::<ToClient>(wire::HELLO_LIMIT) {
        Ok(ToClient::Welcome { host, unix_ns }) => {
            let t1 = wire::unix_ns() as i128;
            res.server_host = Some(host);
            clock::Offset::from_sample(t0, unix_ns as i128, t1)
        }
        Ok(ToClient::Refused { reason }) => return res.fail("refused", reason),
        Ok(m) => return res.fail("connect", format!("unexpected answer {m:?}")),
        Err(e) if is_timeout(&e) => {
            let (stage, why) = read_failure(label, e, ctx);
            return res.fail(stage, why);
        }
        Err(e) => return res.fail("connect", format!("handshake failed: {e}")),
    };
    // The hello's round trip included the server's token check: a few bare exchanges
    // measure the offset more tightly (the best round trip wins).
    let mut now = || wire::unix_ns() as i128;
    let mut exchange = || {
        conn.send(&ToServer::Clock)?;
        match conn.recv::<ToClient>(wire::HELLO_LIMIT)? {
            ToClient::Clock { unix_ns } => Ok(unix_ns as i128),
            m => Err(std::io::Error::other(format!("unexpected answer {m:?}"))),
        }
    };
    let offset = match clock::estimate(clock::ROUNDS, Some(hello), &mut now, &mut exchange) {
        Ok(o) => o,
        Err(e) => {
            let (stage, why) = read_failure(label, e, ctx);
            return res.fail(stage, why);
        }
    };
    res.clock = Some(offset);
    let jobs = ToServer::Jobs {
        files: files.to_vec(),
        remote: remote.to_vec(),
    };
    if let Err(e) = conn.send(&jobs) {
        return res.fail("lost", format!("sending the job files: {e}"));
    }
    match conn.recv::<ToClient>(wire::HELLO_LIMIT) {
        Ok(ToClient::Ready { threads }) => res.threads = threads,
        Ok(ToClient::Refused { reason }) => return res.fail("refused", reason),
        Ok(m) => return res.fail("lost", format!("unexpected answer {m:?}")),
        Err(e) => {
            let (stage, why) = read_failure(label, e, ctx);
            return res.fail(stage, why);
        }
    }
    ctx.board.set(index, status::READY);
    let _ = tx.send((index, Event::Ready));
    let Ok(Some(at)) = start.recv() else {
        return res.fail("aborted", "another host was not ready".into());
    };
    let at_unix_ns = offset.to_host(at).max(0) as u64;
    if let Err(e) = conn.send(&ToServer::Start { at_unix_ns }) {
        return res.fail("lost", format!("sending start: {e}"));
    }
    let mut stop_sent = false;
    loop {
        // Each message (a heartbeat at least once a second) is a chance to pass on a
        // stop; the host then ends its run and its report follows as usual.
        if !stop_sent && ctx.stop_hosts.load(Ordering::SeqCst) {
            stop_sent = true;
            crate::runner::debug_hooks::net(ctx.debug, format_args!("client: stop {label}"));
            if let Err(e) = conn.send(&ToServer::Stop) {
                return res.fail("lost", format!("sending stop: {e}"));
            }
        }
        match conn.recv::<ToClient>(wire::RESULT_LIMIT) {
            Ok(ToClient::Started { unix_ns }) => {
                res.start_ns = Some(offset.to_local(unix_ns as i128))
            }
            Ok(ToClient::Alive { progress, .. }) => {
                res.heartbeats += 1;
                if let Some(p) = &progress {
                    ctx.board.progress(index, p);
                    if let Ok(mut l) = ctx.latest.lock() {
                        l[index] = Some(p.clone());
                    }
                    res.partial = progress;
                }
            }
            Ok(ToClient::Log(log)) => {
                let written = super::logs::accept(&log, files, !remote.is_empty())
                    .and_then(|()| match &log.note {
                        Some(why) => Err(format!("'{}{}': {why}", log.prefix, log.suffix)),
                        None => Ok(()),
                    })
                    .and_then(|()| super::logs::write(&log, host.tag, Some(offset.offset_ns)));
                if let Err(e) = written {
                    eprintln!("ferrio: host {label}: log file: {e}");
                    res.log_errors += 1;
                }
            }
            Ok(ToClient::Done { report, code }) => {
                res.outcome = Outcome::Done { report, code };
                return res;
            }
            Ok(ToClient::Refused { reason }) => return res.fail("run", reason),
            Ok(m) => return res.fail("lost", format!("unexpected message {m:?}")),
            Err(e) => {
                let (stage, why) = read_failure(label, e, ctx);
                return res.fail(stage, why);
            }
        }
    }
}

/// A job file's text with `opts` appended to every job section (not `[global]`), so
/// they override what the job says, as a local sweep's point does. Comments and
/// everything else are kept as written.
/// The global options of the job files sent to a host, as fio's client lists them
/// in JSON ("global options"): every option of their `[global]` sections, a bare
/// one with an empty value (the server's own report leaves those out, as a local
/// run does).
fn sent_globals(files: &[JobText]) -> Vec<(String, String)> {
    let env = ferrio_config::jobfile::Env::system();
    files
        .iter()
        .filter_map(|f| {
            ferrio_config::jobfile::parse_text(&f.text, std::path::Path::new(&f.name), &env).ok()
        })
        .flatten()
        .filter(|s| s.is_global())
        .flat_map(|s| s.options)
        .map(|o| (o.key, o.value.unwrap_or_default()))
        .collect()
}

pub fn with_overrides(text: &str, opts: &[(String, String)]) -> String {
    if opts.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_job = false;
    let close = |out: &mut String, in_job: bool| {
        if in_job {
            for (k, v) in opts {
                out.push_str(&format!("{k}={v}\n"));
            }
        }
    };
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.split_once(']')) {
            close(&mut out, in_job);
            in_job = name.0.trim() != "global";
        }
        out.push_str(line);
        out.push('\n');
    }
    close(&mut out, in_job);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_as_the_command_line_names_them() {
        let t = |h: &str, p| Target::Tls {
            host: h.into(),
            port: p,
        };
        assert_eq!(parse_target("h1").unwrap(), t("h1", DEFAULT_PORT));
        assert_eq!(parse_target("h1:9000").unwrap(), t("h1", 9000));
        assert_eq!(parse_target("[::1]:9").unwrap(), t("::1", 9));
        assert_eq!(parse_target("::1").unwrap(), t("::1", DEFAULT_PORT));
        assert!(parse_target("h:x").unwrap_err().contains("bad host 'h:x'"));
        // fio's own form, whose empty host is this one.
        assert_eq!(parse_target("h1,8765").unwrap(), t("h1", 8765));
        assert_eq!(parse_target(",8765").unwrap(), t("127.0.0.1", 8765));
        assert!(parse_target("h1,x").unwrap_err().contains("bad host"));
    }

    #[test]
    fn globals_as_sent_keep_bare_options() {
        let f = JobText {
            name: "a.fio".into(),
            text: "[global]\nioengine=null\ntime_based\n[j]\nsize=4k\n".into(),
        };
        assert_eq!(
            sent_globals(&[f]),
            [
                ("ioengine".into(), "null".into()),
                ("time_based".into(), String::new())
            ]
        );
        assert!(matches!(
            parse_target("ssh://u@h:22").unwrap(),
            Target::Ssh(_)
        ));
    }
}
