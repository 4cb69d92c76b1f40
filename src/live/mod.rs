//! Live reporting while the jobs run: fio's status line (`--eta`, `--eta-interval`,
//! `--eta-newline`), full reports every `--status-interval` and on SIGUSR1 (JSON Lines
//! for json/json+), and the compact `--output-format=interval` lines. See docs/live.md.
//!
//! The worker threads publish through per-thread observers ([`publish`]) into a
//! shared [`hub::Hub`]; one reporter thread started here reads it, so the I/O loop
//! never waits for a reporter and never takes a lock per I/O.

pub mod delta;
pub mod eta;
mod helper_debug;
pub mod hub;
pub mod prometheus;
pub mod publish;
pub mod report;
pub mod series;

use crate::runner::observer::ObserverFactory;
use crate::runner::plan::ThreadPlan;
use crate::runner::RunResults;
use ferrio_config::ext::LiveFlags;
use ferrio_config::{EtaMode, Invocation, OutputFormat};
use ferrio_report::interval::Kind;
use ferrio_report::RunReport;
use hub::Hub;
use report::{Reporter, RunFacts};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the reports go while the run is live (the --output file or stdout).
pub type Out = Box<dyn Write + Send>;

/// What the reporter does when the reader of stdout goes away mid-run (`ferrio
/// --status-interval=1 ... | head`): it sets `gone` and stops the run (`run_stop`), as
/// SIGINT would, so the jobs end in order (`unlink=1` removes their files); the run
/// then ends as fio's SIGPIPE death does (app.rs). fio dies at that write, mid-run.
#[derive(Clone, Debug)]
pub struct StdoutGone {
    pub gone: Arc<AtomicBool>,
    pub run_stop: Arc<AtomicBool>,
}

impl StdoutGone {
    /// Look at the result of a write to stdout.
    pub fn check(&self, written: std::io::Result<()>) {
        if written.is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) {
            self.gone.store(true, Ordering::SeqCst);
            self.run_stop.store(true, Ordering::SeqCst);
        }
    }
}

/// The live reporter of one run.
pub struct Live {
    hub: Arc<Hub>,
    index: Arc<HashMap<(usize, u32), usize>>,
    reporter: Arc<Mutex<Reporter>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Out>>,
}

/// Whether the status line is shown: --eta=always, or auto on a terminal with the
/// normal output format only (fio shows no status line with json or terse output).
pub fn eta_wanted(mode: EtaMode, formats: &[OutputFormat], stdout_tty: bool) -> bool {
    match mode {
        EtaMode::Always => true,
        EtaMode::Never => false,
        EtaMode::Auto => stdout_tty && formats.iter().all(|f| *f == OutputFormat::Normal),
    }
}

/// The period of full reports: --status-interval, or 1 s for the interval lines.
fn status_period(flags: &LiveFlags, formats: &[OutputFormat]) -> Option<Duration> {
    flags
        .status_interval_ms
        .or_else(|| {
            formats
                .contains(&OutputFormat::Interval)
                .then_some(LiveFlags::DEFAULT_INTERVAL_MS)
        })
        .map(Duration::from_millis)
}

impl Live {
    /// Start the reporter thread. `out` is where reports go; it is handed back by
    /// [`Live::stop`]. Its SIGUSR1 handler goes into the run's `signals`, removed
    /// with the run's others when the run ends.
    pub fn start(
        inv: &Invocation,
        threads: &[ThreadPlan],
        facts: RunFacts,
        (out, out_is_stdout): (Out, bool),
        signals: &mut crate::sys::signals::Handlers,
        stdout_gone: StdoutGone,
    ) -> Live {
        let t0 = Instant::now();
        let hub = Arc::new(Hub::new(threads.len()));
        let index: HashMap<(usize, u32), usize> = threads
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.job_index, t.clone), i))
            .collect();
        let flags = &inv.flags;
        let formats = flags.output_formats.clone();
        let percentiles = flags
            .live
            .interval_percentiles
            .clone()
            .unwrap_or_else(|| LiveFlags::DEFAULT_PERCENTILES.to_vec());
        let mut reporter = Reporter::new(
            hub.clone(),
            threads.to_vec(),
            facts,
            formats.clone(),
            percentiles,
            flags.json_lines,
            t0,
        );
        reporter.terse_version = flags.terse_version;
        let reporter = Arc::new(Mutex::new(reporter));
        let stop = Arc::new(AtomicBool::new(false));
        let usr1 = Arc::new(AtomicBool::new(false));
        signals.flag(signal_hook::consts::SIGUSR1, &usr1);
        let stdout_tty = std::io::stdout().is_terminal();
        let cfg = LoopConfig {
            eta: eta_wanted(flags.eta, &formats, stdout_tty),
            eta_every: Duration::from_millis(
                flags
                    .live
                    .eta_interval_ms
                    .unwrap_or(LiveFlags::DEFAULT_ETA_INTERVAL_MS),
            ),
            eta_newline: flags.live.eta_newline_ms.map(Duration::from_millis),
            status_every: status_period(&flags.live, &formats),
            out_is_stdout,
            stdout_gone,
            debug: flags
                .debug
                .contains(&ferrio_config::DebugCategory::Helperthread),
        };
        let infos = threads.iter().map(eta::ThreadInfo::of).collect();
        let thread = {
            let (hub, reporter, stop) = (hub.clone(), reporter.clone(), stop.clone());
            std::thread::Builder::new()
                .name("ferrio-live".into())
                .spawn(move || {
                    live_loop(
                        cfg,
                        hub,
                        reporter,
                        stop,
                        usr1,
                        eta::Eta::new(infos),
                        out,
                        t0,
                    )
                })
                .expect("spawn the live reporter")
        };
        Live {
            hub,
            index: Arc::new(index),
            reporter,
            stop,
            thread: Some(thread),
        }
    }

    /// Let `f` add to every live cumulative report (see [`report::Decorator`]).
    pub fn decorate(&self, f: report::Decorator) {
        if let Ok(mut r) = self.reporter.lock() {
            r.decorate = Some(f);
        }
    }

    /// The observer factories the run needs for live reporting.
    pub fn factories(&self) -> Vec<Box<dyn ObserverFactory>> {
        let index = self.index.clone();
        vec![Box::new(publish::PublisherFactory {
            hub: self.hub.clone(),
            index: Arc::new(move |p: &ThreadPlan| index.get(&(p.job_index, p.clone)).copied()),
        })]
    }

    /// Stop the reporter thread (the status line ends with a newline) and take the
    /// report writer back.
    /// The hub the threads publish into (for other live readers: --prometheus).
    pub fn hub(&self) -> Arc<Hub> {
        self.hub.clone()
    }

    pub fn stop(&mut self) -> Option<Out> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().and_then(|t| t.join().ok())
    }

    /// See [`Reporter::prepare_final`].
    pub fn prepare_final(&self, results: &RunResults) {
        if let Ok(mut r) = self.reporter.lock() {
            r.prepare_final(results);
        }
    }

    /// The final report in format `f` when live reporting frames it differently
    /// (JSON Lines with --status-interval, interval lines); None otherwise.
    pub fn final_text(&self, f: OutputFormat, report: &RunReport) -> Option<String> {
        self.reporter.lock().ok()?.final_text(f, report)
    }
}

struct LoopConfig {
    eta: bool,
    eta_every: Duration,
    eta_newline: Option<Duration>,
    status_every: Option<Duration>,
    out_is_stdout: bool,
    stdout_gone: StdoutGone,
    /// --debug=helperthread.
    debug: bool,
}

/// The status line on stdout, rewritten in place.
struct StatusLine {
    last_len: usize,
    shown: bool,
}

impl StatusLine {
    fn show(&mut self, line: &str, newline: bool) -> std::io::Result<()> {
        let pad = self.last_len.saturating_sub(line.len());
        let end = if newline { "\n" } else { "\r" };
        let mut o = std::io::stdout().lock();
        self.last_len = if newline { 0 } else { line.len() };
        self.shown = true;
        write!(o, "{line}{:pad$}{end}", "").and_then(|_| o.flush())
    }

    /// Blank the line so that other output starts at column 0 on a clean line.
    fn clear(&mut self) -> std::io::Result<()> {
        if self.last_len == 0 {
            return Ok(());
        }
        let mut o = std::io::stdout().lock();
        let w = std::mem::take(&mut self.last_len);
        write!(o, "{:w$}\r", "").and_then(|_| o.flush())
    }
}

#[allow(clippy::too_many_arguments)]
fn live_loop(
    cfg: LoopConfig,
    hub: Arc<Hub>,
    reporter: Arc<Mutex<Reporter>>,
    stop: Arc<AtomicBool>,
    usr1: Arc<AtomicBool>,
    eta: eta::Eta,
    mut out: Out,
    t0: Instant,
) -> Out {
    // The writer goes back to the caller even if reporting panics: the final report
    // must still be printed.
    let run = std::panic::AssertUnwindSafe(|| {
        run_loop(&cfg, &hub, &reporter, &stop, &usr1, eta, &mut out, t0)
    });
    if std::panic::catch_unwind(run).is_err() {
        eprintln!("ferrio: live reporting failed; the final report follows");
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn run_loop(
    cfg: &LoopConfig,
    hub: &Hub,
    reporter: &Mutex<Reporter>,
    stop: &AtomicBool,
    usr1: &AtomicBool,
    mut eta: eta::Eta,
    out: &mut Out,
    t0: Instant,
) {
    let tick = Duration::from_millis(20);
    let mut line = StatusLine {
        last_len: 0,
        shown: false,
    };
    let mut next_eta = t0 + cfg.eta_every;
    let mut next_newline = cfg.eta_newline.map(|d| t0 + d);
    let mut next_status = cfg.status_every.map(|d| t0 + d);
    if cfg.debug {
        helper_debug::started(cfg);
    }
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(tick);
        let now = Instant::now();
        let signal = usr1.swap(false, Ordering::SeqCst);
        let periodic = next_status.is_some_and(|t| now >= t);
        if periodic || signal {
            let kind = if periodic {
                Kind::Periodic
            } else {
                Kind::Signal
            };
            if cfg.debug {
                helper_debug::report(periodic, now - t0);
            }
            let text = match reporter.lock() {
                Ok(mut r) => r.periodic(kind),
                Err(_) => String::new(),
            };
            if cfg.out_is_stdout {
                cfg.stdout_gone.check(line.clear());
            }
            let written = out.write_all(text.as_bytes()).and_then(|_| out.flush());
            if cfg.out_is_stdout {
                cfg.stdout_gone.check(written);
            }
            if let (true, Some(d)) = (periodic, cfg.status_every) {
                // Keep to the schedule; skip ticks missed while a report was built.
                let mut t = next_status.unwrap_or(now) + d;
                while t <= now {
                    t += d;
                }
                next_status = Some(t);
            }
        }
        if cfg.eta && now >= next_eta {
            let facts = eta.facts(hub, (now - t0).as_nanos() as u64);
            let newline = next_newline.is_some_and(|t| now >= t);
            if newline {
                next_newline = cfg.eta_newline.map(|d| now + d);
            }
            cfg.stdout_gone
                .check(line.show(&eta::format_line(&facts), newline));
            next_eta = now + cfg.eta_every;
        }
    }
    if cfg.debug {
        helper_debug::exiting();
    }
    if cfg.eta && line.shown {
        let facts = eta.facts(hub, (Instant::now() - t0).as_nanos() as u64);
        cfg.stdout_gone
            .check(line.show(&eta::format_line(&facts), true));
    }
}
