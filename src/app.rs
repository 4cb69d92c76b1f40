//! Runs an [`Invocation`]: chooses the clock, plans and lays out, prints the
//! pre-run lines, runs, and writes every requested output format.

use crate::live;
use crate::runner::observer::Factories;
use crate::runner::{self, collect, plan, planner};
use crate::sys::{diskstats, file, time};
use ferrio_clock::Clock;
use ferrio_config::{ClockSource, DebugCategory, Invocation, OutputFormat};
use ferrio_report::{json, normal, terse, JobHeader, RunReport};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Exit code of a run stopped by SIGINT or SIGTERM (fio 3.33 exits 128 for both); the
/// results measured until then are still reported in full.
pub const EXIT_INTERRUPTED: i32 = 128;

/// fio's exit status after a run: the number of threads that failed (each clone of
/// `numjobs` counts), plus [`EXIT_INTERRUPTED`] when a signal stopped the run. fio's
/// wraps modulo 256 (256 failed threads exit 0); this one stops at 127 (255 after a
/// signal), so a failure never reads as success, nor as a signal.
pub fn exit_code(signalled: bool, failed_threads: usize) -> i32 {
    let failed = failed_threads.min(127) as i32;
    match signalled {
        true => EXIT_INTERRUPTED + failed,
        false => failed,
    }
}

/// Run and report; returns the process exit code: 0 success, 1 bad input, else
/// [`exit_code`] (the failed threads' count, plus [`EXIT_INTERRUPTED`] after a signal).
pub fn run(inv: Invocation) -> i32 {
    match run_inner(inv) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    }
}

/// --parse-only: the checks a run makes before it touches a file (plan, devices in
/// use, resources), without laying out or running anything; returns the exit code.
/// As in fio, what only the target machine can say is left to the run: the size of
/// target files that do not exist, NUMA nodes, engines ferrio cannot run.
pub fn check(inv: Invocation) -> i32 {
    match prepare(&inv, Plan::Check) {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    }
}

/// What a run decides before it touches anything: the thread plans (with every plan-time
/// check) and the steady-state windows.
type Prepared = (
    Vec<plan::ThreadPlan>,
    Arc<runner::steadystate::SteadyStateFactory>,
);

/// How [`prepare`] plans: for a run (its file accesses confined on a server), or for
/// `--parse-only` (target files that do not exist leave a job unsized, as in fio).
enum Plan {
    Run(Option<Arc<crate::sys::confine::Confine>>),
    Check,
}

fn prepare(inv: &Invocation, how: Plan) -> Result<Prepared, String> {
    for j in &inv.jobs {
        for w in &j.warnings {
            eprintln!("ferrio: job '{}': {w} (at {})", j.name, j.origin);
        }
    }
    let threads = match how {
        Plan::Run(confine) => planner::plan_confined(&inv.jobs, confine)?,
        Plan::Check => planner::plan_check(&inv.jobs)?,
    };
    let steadystate = Arc::new(runner::steadystate::SteadyStateFactory::new(&threads)?);
    Ok((threads, steadystate))
}

/// Where a captured run leaves its cumulative report once a second.
pub type Progress = Arc<std::sync::Mutex<Option<RunReport>>>;

/// What a captured run hands back: the final report, and the latest live one.
struct Capture<'a> {
    keep: &'a mut Option<RunReport>,
    progress: Progress,
    /// A sweep's --prometheus endpoint, bound once for all its points: taken for the
    /// run and put back after it.
    endpoint: Option<&'a mut Option<live::prometheus::Endpoint>>,
    /// The signal a sweep caught (0: none): one that came before this run set up its
    /// own handlers stops the run at once instead of being missed.
    caught: Option<&'a AtomicUsize>,
    /// A server's run: its files opened beneath the allowed directories only.
    confine: Option<Arc<crate::sys::confine::Confine>>,
    /// A server's run: set when its client asks it to stop (or goes away); the run
    /// stops as after SIGINT, and its report is made as usual.
    stop: Option<Arc<AtomicBool>>,
}

/// Run for a multi-host server: nothing goes to stdout (it may be the ssh channel);
/// returns the report and the exit code a local run would have. `progress` gets the
/// cumulative report every second (what a client keeps of a host that dies).
pub fn run_captured(
    mut inv: Invocation,
    progress: Progress,
    confine: Option<Arc<crate::sys::confine::Confine>>,
    stop: Option<Arc<AtomicBool>>,
) -> Result<(RunReport, i32), String> {
    inv.flags.output_formats.clear();
    inv.flags.output = None;
    inv.flags.eta = ferrio_config::EtaMode::Never;
    inv.flags.live.status_interval_ms = Some(1000);
    let mut kept = None;
    let capture = Capture {
        keep: &mut kept,
        progress,
        endpoint: None,
        caught: None,
        confine,
        stop,
    };
    let code = run_with(inv, Some(capture))?;
    kept.map(|r| (r, code))
        .ok_or_else(|| "the run ended before its report was made".to_string())
}

fn run_inner(inv: Invocation) -> Result<i32, String> {
    run_with(inv, None)
}

/// A run whose final report is handed back instead of printed (sweep points and
/// repeats); errors are printed. Returns the report (if the run got that far) and the
/// exit code. `endpoint`: the sweep's --prometheus endpoint, served during the run.
pub fn run_keeping(
    inv: Invocation,
    endpoint: &mut Option<live::prometheus::Endpoint>,
    caught: &AtomicUsize,
) -> (Option<RunReport>, i32) {
    let mut kept = None;
    let capture = Capture {
        keep: &mut kept,
        progress: Progress::default(),
        endpoint: Some(endpoint),
        caught: Some(caught),
        confine: None,
        stop: None,
    };
    let code = run_with(inv, Some(capture)).unwrap_or_else(|e| {
        eprintln!("ferrio: {e}");
        1
    });
    (kept, code)
}

/// A run; `keep` takes the report instead of printing it (and stdout stays unused).
fn run_with(inv: Invocation, capture: Option<Capture>) -> Result<i32, String> {
    let (keep, progress, mut reuse, caught, confine, asked_stop) = match capture {
        Some(c) => (
            Some(c.keep),
            Some(c.progress),
            c.endpoint,
            c.caught,
            c.confine,
            c.stop,
        ),
        None => (None, None, None, None, None, None),
    };
    let started = std::time::Instant::now();
    let (mut threads, steadystate) = prepare(&inv, Plan::Run(confine))?;
    crate::html::check_html_path(&inv.flags)?;
    let prometheus = match reuse.as_mut().and_then(|slot| slot.take()) {
        Some(e) => Some(e),
        None => live::prometheus::Endpoint::bind(&inv.flags.reports)?,
    };
    // clocksource=virtual is per thread (the sim engine drives it); the run clock stays real.
    let clocksource = inv
        .jobs
        .iter()
        .find_map(|j| j.clocksource.filter(|c| *c != ClockSource::Virtual));
    let (clock, fallback) = Clock::for_source(clocksource.map(ClockSource::name))?;
    let normal_out = inv.flags.output_formats.contains(&OutputFormat::Normal);
    if inv.flags.debug.contains(&DebugCategory::Time) {
        crate::debug_sink::note(format_args!(
            "ferrio: clocksource {}: {}",
            clock.source_name(),
            clock.details()
        ));
        if let Some(reason) = &fallback {
            crate::debug_sink::note(format_args!("ferrio: {reason}"));
        }
    }

    let mut pre = Vec::new();
    if normal_out {
        let version = ferrio_config::version_string(inv.flags.fio_compat);
        write_prerun_lines(&mut pre, &threads, &version, fallback.as_deref());
    }
    // fio's note for a file past the 32-bit generator (docs/random.md): on stdout
    // after the Starting line, where fio prints it, in the normal format; on stderr
    // otherwise, so that a JSON or terse report still parses (fio's does not).
    for t in threads.iter().filter(|t| t.clone == 0) {
        if let Some(note) = runner::pattern::limits::note_for(t) {
            let line = format!("ferrio: job '{}': {note}", t.spec.name);
            match normal_out {
                true => {
                    let _ = writeln!(pre, "{line}");
                }
                false => eprintln!("{line}"),
            }
        }
    }
    // From here on SIGINT/SIGTERM stop the run (also while files are laid out) and
    // what was measured is still reported.
    let stopped_from_outside = asked_stop.is_some();
    let stop = asked_stop.unwrap_or_default();
    // Which signal stopped the run (0 = none), for the message and the exit code.
    let signalled = Arc::new(AtomicUsize::new(0));
    // Removed when the run ends (dropped on every return), so runs in a sweep or a
    // server do not pile handlers up.
    let mut signals = crate::sys::signals::Handlers::new();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signals.value(sig, &signalled, sig as usize);
        signals.flag(sig, &stop);
    }
    if let Some(n) = caught.map(|c| c.load(Ordering::SeqCst)).filter(|&n| n != 0) {
        signalled.store(n, Ordering::SeqCst);
        stop.store(true, Ordering::SeqCst);
    }
    // Where reports go: --output=FILE or stdout. Created only once the jobs are known
    // to be runnable, so bad input never leaves a file behind, and before any job
    // file is laid out, so an --output that cannot be written leaves none either.
    let mut out: Box<dyn Write + Send> = match &inv.flags.output {
        _ if keep.is_some() => Box::new(std::io::sink()),
        // With --debug the file is open already, holding the debug lines.
        Some(p) => match crate::debug_sink::output_file(p) {
            Some(f) => Box::new(f),
            None => Box::new(
                std::fs::File::create(p)
                    .map_err(|e| format!("cannot write --output '{}': {e}", p.display()))?,
            ),
        },
        None => Box::new(std::io::stdout()),
    };
    match runner::layout::lay_out(&threads, &mut pre, &stop) {
        // A file the system would not make fails its threads, as fio's setup does:
        // they report the error, and the other jobs run.
        Ok(failed) => runner::layout::mark_failed(&mut threads, failed),
        // A signal during the layout: no job starts, and the report (each job with
        // no I/O, as fio's) and the exit code follow as after a signal mid-run.
        Err(_)
            if signalled.load(Ordering::Relaxed) != 0
                || (stopped_from_outside && stop.load(Ordering::Relaxed)) =>
        {
            runner::layout::mark_interrupted(&mut threads)
        }
        Err(e) => return Err(e),
    }
    if normal_out {
        out.write_all(&pre).map_err(report_write_error)?;
        let _ = out.flush();
    }

    let disk_names = disk_names(&threads);
    let disks_before = diskstats::snapshot();
    runner::debug_hooks::disk_counters(&inv.flags.debug, &disk_names, &disks_before);
    let idle_before = inv.flags.idle_prof.map(|_| crate::tools::idle::snapshot());
    let mut factories = Factories::default();
    factories.0.push(Box::new(steadystate.clone()));
    let series = Arc::new(live::series::SeriesFactory::default());
    factories.0.push(Box::new(series.clone()));
    let to_stdout = inv.flags.output.is_none() && keep.is_none();
    // Set when the reader of stdout goes away mid-run (live reports): see below.
    let stdout_gone = Arc::new(AtomicBool::new(false));
    let mut live = live::Live::start(
        &inv,
        &threads,
        live_facts(&inv, &clock),
        (out, to_stdout),
        &mut signals,
        live::StdoutGone {
            gone: stdout_gone.clone(),
            run_stop: stop.clone(),
        },
    );
    factories.0.extend(live.factories());
    let ss = steadystate.clone();
    live.decorate(Arc::new(move |plans, report| {
        let plans: Vec<&plan::ThreadPlan> = plans.iter().collect();
        runner::steadystate::report::attach(&ss, &plans, report);
        if let Some(p) = &progress {
            if let Ok(mut slot) = p.lock() {
                *slot = Some(report.clone());
            }
        }
    }));
    if let Some(trace) = runner::debug_trace::DebugTrace::for_categories(&inv.flags.debug) {
        factories.0.push(Box::new(trace));
    }
    if let Some(logs) = runner::logs::LogFactory::for_threads(&threads) {
        factories.0.push(Box::new(logs));
    }
    if let Some(b) = runner::blockinfo::BlockInfoFactory::for_threads(&threads) {
        factories.0.push(Box::new(b));
    }
    let prometheus = prometheus.map(|p| p.serve(live.hub(), &threads, steadystate.clone()));
    let trigger = crate::tools::trigger::watch(&inv.flags.trigger, stop.clone());
    let mut results = runner::execute(threads, &clock, &stop, Arc::new(factories));
    // stats=0: those jobs ran but no report shows them; their errors still count.
    let unreported_failed = runner::dropin::drop_unreported(&mut results);
    if let Some(t) = trigger {
        t.finish();
    }
    let signal = signalled.load(Ordering::Relaxed);
    if signal != 0 {
        // fio prints this on stdout, where it breaks the JSON; stderr keeps stdout clean.
        eprintln!("ferrio: terminating on signal {signal}");
    }
    let mut out = live.stop().ok_or("the live reporter failed")?;
    let released = signals.release();
    // Test-only: how many handlers the run registered and removed (tests/signals.rs
    // checks that a long sweep does not pile them up).
    if std::env::var_os(crate::sys::signals::REPORT_ENV).is_some() {
        eprintln!(
            "ferrio: signal handlers: {} registered for the run, {} removed",
            released.registered, released.removed
        );
    }
    live.prepare_final(&results);
    let disks_after = diskstats::snapshot();
    runner::debug_hooks::disk_counters(&inv.flags.debug, &disk_names, &disks_after);

    let info = run_info(&inv, &clock, &results, started);
    let disks = collect::disk_utils(&disk_names, &disks_before, &disks_after, results.wall_ms);
    let mut report = collect::build(&results, info, disks);
    if let (Some(before), Some(how)) = (&idle_before, inv.flags.idle_prof) {
        let after = crate::tools::idle::snapshot();
        let percpu = how == ferrio_config::IdleProf::PerCpu;
        report.cpu_idleness = Some(crate::tools::idle::measure(before, &after, percpu));
    }
    runner::steadystate::report::attach_results(&steadystate, &results, &mut report);
    series.attach(&results, &mut report);
    for (_, r) in &results.threads {
        if let Some((_, msg)) = &r.error {
            eprintln!("ferrio: {msg}");
        }
    }
    let failed = unreported_failed
        + results
            .threads
            .iter()
            .filter(|(_, r)| r.error.is_some())
            .count();
    let code = exit_code(signal != 0, failed);
    if let Some(k) = keep {
        if let Some(p) = prometheus {
            let e = p.finish(&stop);
            if let Some(slot) = reuse {
                *slot = Some(e);
            }
        }
        *k = Some(report);
        return Ok(code);
    }
    if inv.flags.output_formats.contains(&OutputFormat::Normal) {
        // profile=act: ACT's table, where fio prints it (as the jobs end, before the report).
        let act = runner::act::render(&results);
        out.write_all(act.as_bytes()).map_err(report_write_error)?;
    }
    let md_table = ferrio_report::mdtable::render(&runner::metaops::summary(&results));

    write_reports(&mut out, &inv, &report, &live, &md_table)?;
    crate::html::write_run_html(&inv.flags, &report)?;
    if let Some(p) = prometheus {
        p.finish(&stop);
    }
    if inv.flags.bandwidth_log {
        crate::tools::trigger::write_bandwidth_logs()?;
    }
    // The run was stopped because stdout's reader left (a report there has ended the
    // process already; --output's file is written): end as fio's SIGPIPE death does.
    if stdout_gone.load(Ordering::SeqCst) {
        crate::sys::signals::die_by_sigpipe();
    }
    Ok(code)
}

/// The message for a report that could not be written; a closed stdout pipe ends the
/// process quietly instead, as SIGPIPE ends fio's.
pub fn report_write_error(e: std::io::Error) -> String {
    crate::sys::signals::die_if_broken_pipe(&e);
    format!("cannot write the report: {e}")
}

/// Run-level facts for the report: version, time, clock, elapsed seconds.
fn run_info(
    inv: &Invocation,
    clock: &Clock,
    results: &runner::RunResults,
    started: std::time::Instant,
) -> collect::RunInfo {
    let (secs, ms) = time::unix_now();
    // fio's "elapsed" is one run-wide value; in virtual time the longest thread counts.
    let longest_thread = results
        .threads
        .iter()
        .map(|(_, r)| r.elapsed_ns)
        .max()
        .unwrap_or(0);
    collect::RunInfo {
        version: ferrio_config::version_string(inv.flags.fio_compat),
        global_options: inv.global_options.clone(),
        clock_source: clock_name(inv, clock),
        timestamp: secs,
        timestamp_ms: ms,
        time: time::ctime(secs),
        elapsed_s: longest_thread
            .max(started.elapsed().as_nanos() as u64)
            .div_ceil(1_000_000_000),
    }
}

fn write_reports(
    out: &mut dyn Write,
    inv: &Invocation,
    report: &RunReport,
    live: &live::Live,
    md_table: &str,
) -> Result<(), String> {
    let mut text = String::new();
    for f in &inv.flags.output_formats {
        // With --status-interval, json is JSON Lines and interval lines end with totals.
        if let Some(t) = live.final_text(*f, report) {
            text.push_str(&t);
            continue;
        }
        match f {
            OutputFormat::Normal => {
                text.push_str(&normal::render(report));
                // Beyond fio: the metadata engines' rates (empty without them).
                text.push_str(md_table);
            }
            OutputFormat::Terse => {
                text.push_str(&terse::render_version(report, inv.flags.terse_version))
            }
            OutputFormat::Json => text.push_str(&json::render(report, false)),
            OutputFormat::JsonPlus => text.push_str(&json::render(report, true)),
            // Interval lines are printed during the run by the live reporter (src/live);
            // the hosts table belongs to --client runs (src/net).
            OutputFormat::Interval
            | OutputFormat::Hosts
            | OutputFormat::HostsJson
            | OutputFormat::HostsCsv => {}
        }
    }
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(report_write_error)
}

/// Run-wide facts the live reports repeat.
fn live_facts(inv: &Invocation, clock: &Clock) -> live::report::RunFacts {
    live::report::RunFacts {
        version: ferrio_config::version_string(inv.flags.fio_compat),
        global_options: inv.global_options.clone(),
        clock_source: clock_name(inv, clock),
    }
}

/// The clock that timed the jobs: "virtual" when every job ran in virtual time,
/// otherwise the run clock.
fn clock_name(inv: &Invocation, clock: &Clock) -> String {
    let all_virtual = !inv.jobs.is_empty()
        && inv
            .jobs
            .iter()
            .all(|j| j.clocksource == Some(ClockSource::Virtual));
    if all_virtual {
        "virtual".into()
    } else {
        clock.source_name().into()
    }
}

/// What fio prints before a run: one header per job ("..." for numjobs clones), the
/// version, why the TSC was not used (if so), and "Starting N processes".
fn write_prerun_lines(
    pre: &mut Vec<u8>,
    threads: &[plan::ThreadPlan],
    version: &str,
    clock_note: Option<&str>,
) {
    for t in threads {
        // fio prints no header for engines that do no I/O (FIO_NOIO: cpuio, exec).
        if t.caps.accounting == crate::engine::Accounting::NoData {
            continue;
        }
        match t.clone {
            0 => {
                let _ = writeln!(pre, "{}", normal::job_header(&header_of(t)));
            }
            1 => {
                let _ = writeln!(pre, "...");
            }
            _ => {}
        }
    }
    let _ = writeln!(pre, "{version}");
    if let Some(reason) = clock_note {
        let _ = writeln!(pre, "{reason}");
    }
    let threaded = threads.iter().all(|t| t.spec.thread);
    let _ = writeln!(pre, "{}", normal::starting_line(threads.len(), threaded));
}

fn header_of(t: &plan::ThreadPlan) -> JobHeader {
    let s = &t.spec;
    // A replay shows the job's block sizes and depth, not the log's (as fio).
    let shown = t.replay.as_ref().and_then(|l| l.job_bs).unwrap_or_else(|| {
        (
            std::array::from_fn(|d| (s.bs[d].min, s.bs[d].max)),
            s.iodepth,
        )
    });
    JobHeader {
        name: s.name.clone(),
        groupid: t.groupid,
        rw: s.rw.text.clone(),
        bs: shown.0,
        ioengine: s.ioengine.clone(),
        iodepth: shown.1,
        sig_figs: s.sig_figs,
    }
}

/// Whole-disk names behind the files the threads use (fio's disk_util list).
fn disk_names(threads: &[plan::ThreadPlan]) -> Vec<String> {
    let mut names = Vec::new();
    for t in threads
        .iter()
        .filter(|t| !t.caps.diskless && !t.caps.maps_files && t.spec.disk_util)
    {
        for f in &t.files {
            let probe = if f.path.exists() {
                f.path.clone()
            } else {
                f.path.parent().map(|p| p.to_path_buf()).unwrap_or_default()
            };
            if let Some((maj, min)) = file::device_numbers(&probe) {
                let d = t.spec.compat.debug.has(DebugCategory::Diskutil);
                if let Some(n) = diskstats::disk_name(maj, min) {
                    let new = !names.contains(&n);
                    if d {
                        runner::debug_hooks::disk_found(&f.path, (maj, min), &n, new);
                    }
                    if new {
                        names.push(n);
                    }
                }
            }
        }
    }
    names
}
