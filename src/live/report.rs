//! Periodic and on-demand reports (--status-interval, SIGUSR1, the interval line
//! format): gathers snapshots from the [`Hub`], builds cumulative and interval
//! [`RunReport`]s with the runner's own `collect::build`, and renders them.

use super::delta::stats_delta;
use super::hub::{Hub, Snapshot};
use crate::runner::collect::{self, RunInfo};
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::ThreadResult;
use crate::runner::recorder::ThreadStats;
use crate::runner::RunResults;
use crate::sys::time;
use ferrio_config::OutputFormat;
use ferrio_report::interval::{self, Frame, Kind, LineData};
use ferrio_report::{json, normal, terse, RunReport};
use ferrio_stats::LatencyHistogram;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Run-wide facts every report repeats.
#[derive(Clone, Debug)]
pub struct RunFacts {
    pub version: String,
    pub global_options: Vec<(String, String)>,
    pub clock_source: String,
}

/// Adds what other features know to a cumulative report while the run goes on
/// (e.g. the steady-state criterion so far), given the run's thread plans.
pub type Decorator = Arc<dyn Fn(&[ThreadPlan], &mut RunReport) + Send + Sync>;

/// How long a report waits for running threads to answer a snapshot request.
const ANSWER_WAIT: Duration = Duration::from_secs(2);

pub struct Reporter {
    hub: Arc<Hub>,
    plans: Vec<ThreadPlan>,
    facts: RunFacts,
    formats: Vec<OutputFormat>,
    percentiles: Vec<f64>,
    /// --json-lines: json/json+ reports are JSON Lines (one framed object per report,
    /// the final one too); otherwise each report is fio's pretty-printed document.
    pub json_lines: bool,
    /// --terse-version.
    pub terse_version: u32,
    /// Every thread's statistics at the previous report; empty before the first one
    /// (a thread's statistics hold ~300 KiB of histograms: nothing is allocated for
    /// runs that never report while they go).
    prev: Vec<ThreadStats>,
    prev_ms: u64,
    seq: u64,
    t0: Instant,
    /// The final interval report (set by [`Reporter::prepare_final`]).
    final_interval: Option<(RunReport, u64)>,
    /// See [`Decorator`].
    pub decorate: Option<Decorator>,
}

fn info(f: &RunFacts, elapsed_ms: u64) -> RunInfo {
    let (secs, ms) = time::unix_now();
    RunInfo {
        version: f.version.clone(),
        global_options: f.global_options.clone(),
        clock_source: f.clock_source.clone(),
        timestamp: secs,
        timestamp_ms: ms,
        time: time::ctime(secs),
        elapsed_s: elapsed_ms.div_ceil(1000),
    }
}

impl Reporter {
    pub fn new(
        hub: Arc<Hub>,
        plans: Vec<ThreadPlan>,
        facts: RunFacts,
        formats: Vec<OutputFormat>,
        percentiles: Vec<f64>,
        json_lines: bool,
        t0: Instant,
    ) -> Reporter {
        Reporter {
            hub,
            plans,
            facts,
            formats,
            percentiles,
            json_lines,
            terse_version: ferrio_report::terse::TERSE_VERSION,
            prev: Vec::new(),
            prev_ms: 0,
            seq: 0,
            t0,
            final_interval: None,
            decorate: None,
        }
    }

    /// Ask the threads for fresh snapshots and collect them (a thread that does not
    /// answer in time is represented by its latest snapshot).
    fn gather(&self) -> Vec<Snapshot> {
        let gen = self.hub.request_snapshots();
        let deadline = Instant::now() + ANSWER_WAIT;
        while !(0..self.plans.len()).all(|i| self.hub.answered(i, gen)) && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        (0..self.plans.len())
            .map(|i| self.hub.snapshot(i).unwrap_or_default())
            .collect()
    }

    // `..Default::default()` keeps this building when ThreadResult gains fields.
    #[allow(clippy::needless_update)]
    fn results(&self, stats: Vec<(ThreadStats, &Snapshot)>, wall_ms: u64) -> RunResults {
        RunResults {
            threads: self
                .plans
                .iter()
                .cloned()
                .zip(stats.into_iter().map(|(stats, s)| ThreadResult {
                    stats,
                    error: s.error.clone(),
                    start_ns: s.start_ns,
                    end_ns: s.now_ns,
                    elapsed_ns: s.elapsed_ns,
                    ..Default::default()
                }))
                .collect(),
            wall_ms,
        }
    }

    /// A periodic (or signal) report, rendered in every output format.
    pub fn periodic(&mut self, kind: Kind) -> String {
        let snaps = self.gather();
        let now_ms = self.t0.elapsed().as_millis() as u64;
        let span_ms = now_ms.saturating_sub(self.prev_ms);
        let cum = self.results(snaps.iter().map(|s| (s.stats.clone(), s)).collect(), now_ms);
        let int = self.results(
            snaps
                .iter()
                .enumerate()
                .map(|(i, s)| (self.since_prev(i, &s.stats), s))
                .collect(),
            span_ms,
        );
        let mut cum = collect::build(&cum, info(&self.facts, now_ms), Vec::new());
        if let Some(f) = &self.decorate {
            f(&self.plans, &mut cum);
        }
        let int = collect::build(&int, info(&self.facts, now_ms), Vec::new());
        self.prev = snaps.into_iter().map(|s| s.stats).collect();
        self.seq += 1;
        let frame = Frame {
            kind,
            seq: self.seq,
            elapsed_ms: now_ms,
            interval_ms: span_ms,
            extra: Vec::new(),
        };
        self.prev_ms = now_ms;
        let mut text = String::new();
        for f in self.formats.clone() {
            text.push_str(&self.render(f, &frame, &cum, &int));
        }
        text
    }

    fn render(&self, f: OutputFormat, frame: &Frame, cum: &RunReport, int: &RunReport) -> String {
        match f {
            OutputFormat::Json | OutputFormat::JsonPlus => {
                let plus = f == OutputFormat::JsonPlus;
                if !self.json_lines {
                    // fio: every status report is the whole (cumulative) document.
                    return json::render(cum, plus);
                }
                interval::json_line(frame, json::document(cum, plus), json::document(int, plus))
            }
            OutputFormat::Normal => format!(
                "\n<ferrio {} report {}: {:.3}s into the run>\n--- interval: the last {:.3}s ---\n{}--- cumulative ---\n{}",
                frame.kind.name(),
                frame.seq,
                frame.elapsed_ms as f64 / 1000.0,
                frame.interval_ms as f64 / 1000.0,
                normal::render(int),
                normal::render(cum)
            ),
            OutputFormat::Terse => terse::render_version(cum, self.terse_version),
            OutputFormat::Interval => {
                let mut s = lines(int, frame.elapsed_ms, frame.interval_ms, &self.percentiles, false);
                if frame.kind == Kind::Final {
                    s.push_str(&lines(cum, frame.elapsed_ms, 0, &self.percentiles, true));
                }
                s
            }
            // Only --client runs print the hosts table (src/net).
            OutputFormat::Hosts | OutputFormat::HostsJson | OutputFormat::HostsCsv => String::new(),
        }
    }

    /// Thread `i`'s statistics since the previous report.
    fn since_prev(&self, i: usize, now: &ThreadStats) -> ThreadStats {
        match self.prev.get(i) {
            Some(p) => stats_delta(now, p),
            None => stats_delta(now, &ThreadStats::default()),
        }
    }

    /// Whether the final report is framed here (see [`Reporter::final_text`]).
    fn frames_final(&self) -> bool {
        self.formats.iter().any(|f| {
            *f == OutputFormat::Interval
                || (self.json_lines && matches!(f, OutputFormat::Json | OutputFormat::JsonPlus))
        })
    }

    /// Compute the last interval (from the previous report to the end of the run)
    /// from the threads' final statistics (only when a format needs it).
    #[allow(clippy::needless_update)]
    pub fn prepare_final(&mut self, results: &RunResults) {
        if !self.frames_final() {
            return;
        }
        let now_ms = self.t0.elapsed().as_millis() as u64;
        let span_ms = now_ms.saturating_sub(self.prev_ms);
        let int = RunResults {
            threads: results
                .threads
                .iter()
                .enumerate()
                .map(|(i, (p, r))| {
                    (
                        p.clone(),
                        ThreadResult {
                            stats: self.since_prev(i, &r.stats),
                            error: r.error.clone(),
                            start_ns: r.start_ns,
                            end_ns: r.end_ns,
                            elapsed_ns: r.elapsed_ns,
                            ..Default::default()
                        },
                    )
                })
                .collect(),
            wall_ms: span_ms,
        };
        let report = collect::build(&int, info(&self.facts, now_ms), Vec::new());
        self.final_interval = Some((report, span_ms));
        self.prev_ms = now_ms;
    }

    /// The final report in format `f` when the live framing changes it (JSON Lines,
    /// interval lines); None where the usual printer applies.
    pub fn final_text(&mut self, f: OutputFormat, report: &RunReport) -> Option<String> {
        let json = matches!(f, OutputFormat::Json | OutputFormat::JsonPlus);
        if !(f == OutputFormat::Interval || (json && self.json_lines)) {
            return None;
        }
        let (int, span_ms) = self.final_interval.clone()?;
        let frame = Frame {
            kind: Kind::Final,
            seq: self.seq + 1,
            elapsed_ms: self.prev_ms,
            interval_ms: span_ms,
            extra: Vec::new(),
        };
        Some(self.render(f, &frame, report, &int))
    }

    /// Count a final report as printed (after every format's [`Reporter::final_text`]).
    pub fn final_printed(&mut self) {
        self.seq += 1;
    }
}

/// One interval line per direction that moved data, over every job of `r`.
fn lines(r: &RunReport, elapsed_ms: u64, span_ms: u64, pct: &[f64], total: bool) -> String {
    const NAMES: [&str; 3] = ["read", "write", "trim"];
    let mut out = String::new();
    for (d, name) in NAMES.iter().enumerate() {
        let mut ios = 0;
        let mut bytes = 0;
        let mut lat = LatencyHistogram::new();
        let mut clat = LatencyHistogram::new();
        let mut runtime_ms = 0;
        let mut any = false;
        for j in &r.jobs {
            let x = &j.dir[d];
            any |= x.total_ios > 0 || x.runtime_ms > 0;
            ios += x.total_ios;
            bytes += x.io_bytes;
            lat.merge(&x.lat);
            clat.merge(&x.clat);
            runtime_ms = runtime_ms.max(x.runtime_ms);
        }
        if !any {
            continue;
        }
        let hist = if lat.count() > 0 { &lat } else { &clat };
        out.push_str(&interval::line(&LineData {
            dir: name,
            elapsed_ms,
            // Rates over the threads' own time (virtual time included); the wall
            // span only when no thread measured any.
            span_ms: if runtime_ms > 0 { runtime_ms } else { span_ms },
            ios,
            bytes,
            lat: hist,
            percentiles: pct,
            total,
        }));
        out.push('\n');
    }
    out
}
