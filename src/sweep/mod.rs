//! `--sweep` and `--repeat` (docs/reports.md): run every point of a sweep (each
//! repeat of it) in order, with `--settle` between runs, each one a complete ordinary
//! run whose report is kept instead of printed; then print one table in the chosen
//! formats (normal: a Markdown table, terse/csv: CSV, json: JSON) and, with --html,
//! the HTML report. SIGINT/SIGTERM stop the sweep: the point being run is dropped
//! (it is incomplete) and the finished points are still printed (exit 128).

use crate::app::{self, EXIT_INTERRUPTED};
use crate::html::check_html_path;
use ferrio_config::{EtaMode, OutputFormat, SweepPoint};
use ferrio_report::sweep::{self, Table};
use ferrio_report::RunReport;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One finished run of a point, for the HTML report.
pub struct PointRun {
    pub labels: Vec<(String, String)>,
    /// With --repeat: (this run, runs per point), both from 1.
    pub run: Option<(u32, u32)>,
    pub report: RunReport,
}

/// Run the sweep; returns the exit code (0; a failed run's own, the number of its
/// failed threads, or 1; 128 when stopped).
pub fn run(points: Vec<SweepPoint>) -> i32 {
    run_with(points, |_, inv, served| {
        app::run_keeping(inv, served.endpoint, served.caught)
    })
}

/// What the sweep shares with each local run: its one --prometheus endpoint, and the
/// signal it caught (a run started after a signal stops at once).
pub struct Served<'a> {
    pub endpoint: &'a mut Option<crate::live::prometheus::Endpoint>,
    pub caught: &'a AtomicUsize,
}

/// The same, each run made by `run_one` (given the point's labels, its invocation with
/// output off, and what the sweep serves): `--client` runs every point on its hosts
/// (src/net/series.rs) and hands back the "All clients" report.
pub fn run_with(
    points: Vec<SweepPoint>,
    mut run_one: impl FnMut(
        &[(String, String)],
        ferrio_config::Invocation,
        Served<'_>,
    ) -> (Option<RunReport>, i32),
) -> i32 {
    let Some(first) = points.first() else {
        return 0;
    };
    let flags = first.inv.flags.clone();
    let rf = &flags.reports;
    // Which signal came, 0 for none: it stops the sweep, and a run started after it
    // stops at once (see run_keeping).
    let caught = Arc::new(AtomicUsize::new(0));
    // Held for the whole sweep, removed at its end; each point's run adds its own and
    // removes them when it ends.
    let mut signals = crate::sys::signals::Handlers::new();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signals.value(sig, &caught, sig as usize);
    }
    let mut table = Table {
        axes: rf.sweeps.iter().map(|a| a.key.clone()).collect(),
        repeat: rf.repeat,
        cv_limit_pct: rf.cv_limit_pct,
        planned_points: points.len(),
        ..Table::default()
    };
    let mut kept: Vec<PointRun> = Vec::new();
    let mut code = 0;
    if let Err(e) = check_html_path(&flags) {
        eprintln!("ferrio: {e}");
        return 1;
    }
    // One --prometheus endpoint for the whole sweep (refused before anything runs
    // when the address is bad or busy); each point's run serves it in turn.
    let mut endpoint = match crate::live::prometheus::Endpoint::bind(rf) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ferrio: {e}");
            return 1;
        }
    };
    let total = points.len();
    'points: for (i, p) in points.into_iter().enumerate() {
        let labels: Vec<String> = p.labels.iter().map(|l| l.1.clone()).collect();
        let what: Vec<String> = p.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut runs = Vec::new();
        for r in 0..rf.repeat {
            if (i > 0 || r > 0) && rf.settle_ms > 0 {
                eprintln!(
                    "ferrio: settling {} before sweep point {}/{total} run {}/{}",
                    ms_text(rf.settle_ms),
                    i + 1,
                    r + 1,
                    rf.repeat
                );
                if !settle(rf.settle_ms, &caught) {
                    code = EXIT_INTERRUPTED;
                    break 'points;
                }
            }
            eprintln!(
                "ferrio: sweep point {}/{total} {} run {}/{}",
                i + 1,
                what.join(" "),
                r + 1,
                rf.repeat
            );
            let mut inv = p.inv.clone();
            // Each run reports to us only: no per-run output, status line or HTML.
            inv.flags.output_formats = Vec::new();
            inv.flags.output = None;
            inv.flags.eta = EtaMode::Never;
            inv.flags.reports.html = None;
            let (got, rc) = run_one(
                &p.labels,
                inv,
                Served {
                    endpoint: &mut endpoint,
                    caught: &caught,
                },
            );
            if rc >= EXIT_INTERRUPTED || caught.load(Ordering::Relaxed) != 0 {
                code = EXIT_INTERRUPTED;
                break 'points;
            }
            let Some(report) = got else {
                code = 1;
                break 'points;
            };
            if rc != 0 {
                code = rc;
            }
            runs.push(report);
        }
        for (r, report) in runs.into_iter().enumerate() {
            table.add_run(&labels, &report);
            kept.push(PointRun {
                labels: p.labels.clone(),
                run: (rf.repeat > 1).then_some((r as u32 + 1, rf.repeat)),
                report,
            });
        }
        table.finished_points += 1;
        if code != 0 {
            break;
        }
    }
    if let Err(e) = print(&flags, &table, &kept) {
        eprintln!("ferrio: {e}");
        return 1;
    }
    code
}

/// `ms` as the user would write it: `30s`, `1500ms`.
fn ms_text(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Wait `ms` unless stopped; false when a signal came.
fn settle(ms: u64, caught: &AtomicUsize) -> bool {
    let end = Instant::now() + Duration::from_millis(ms);
    while Instant::now() < end {
        if caught.load(Ordering::Relaxed) != 0 {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10).min(end - Instant::now()));
    }
    caught.load(Ordering::Relaxed) == 0
}

/// The table in every requested format, to --output or stdout; then --html.
fn print(
    flags: &ferrio_config::GlobalFlags,
    table: &Table,
    kept: &[PointRun],
) -> Result<(), String> {
    let mut text = String::new();
    for f in &flags.output_formats {
        match f {
            // The multi-host formats have no meaning for a sweep: their kind of output.
            OutputFormat::Normal | OutputFormat::Interval | OutputFormat::Hosts => {
                text.push_str(&sweep::render_text(table))
            }
            OutputFormat::Terse | OutputFormat::HostsCsv => {
                text.push_str(&sweep::render_csv(table))
            }
            OutputFormat::Json | OutputFormat::JsonPlus | OutputFormat::HostsJson => {
                text.push_str(&sweep::render_json(table));
                text.push('\n');
            }
        }
    }
    match &flags.output {
        Some(p) => std::fs::write(p, &text)
            .map_err(|e| format!("cannot write --output '{}': {e}", p.display()))?,
        None => {
            let mut o = std::io::stdout();
            o.write_all(text.as_bytes())
                .and_then(|_| o.flush())
                .map_err(|e| {
                    crate::sys::signals::die_if_broken_pipe(&e);
                    format!("cannot write the table: {e}")
                })?;
        }
    }
    if let Some(path) = &flags.reports.html {
        let runs: Vec<ferrio_report::html::Run> = kept
            .iter()
            .map(|k| {
                let mut title: Vec<String> =
                    k.labels.iter().map(|(a, b)| format!("{a}={b}")).collect();
                if let Some((r, n)) = k.run {
                    title.push(format!("run {r}/{n}"));
                }
                ferrio_report::html::Run {
                    title: title.join(" "),
                    report: &k.report,
                }
            })
            .collect();
        let page = ferrio_report::html::sweep_page(table, &runs);
        std::fs::write(path, page)
            .map_err(|e| format!("cannot write --html '{}': {e}", path.display()))?;
    }
    Ok(())
}
