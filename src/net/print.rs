//! Client-mode output: each host's jobs under its name, then "All clients" (normal,
//! json/json+ with fio's `client_stats` array, terse), and the hosts table (text,
//! JSON, CSV) with a Total row.

use super::merge::{self, Row};
use super::outcome::{HostResult, Outcome};
use ferrio_config::{GlobalFlags, OutputFormat};
use ferrio_report::json::{job, value};
use ferrio_report::{json::value::Value, normal, terse, RunReport};
use std::fmt::Write as _;
use std::io::Write;

/// Write every requested format to --output or stdout.
pub fn write_all(flags: &GlobalFlags, results: &[HostResult]) -> Result<(), String> {
    let mut text = String::new();
    for f in &flags.output_formats {
        text.push_str(&render(*f, flags, results));
    }
    for r in results {
        if let Outcome::Failed { stage, reason } = &r.outcome {
            eprintln!("ferrio: host {}: {stage}: {reason}", r.label);
        }
    }
    let mut out = output(flags, flags.live.status_interval_ms.is_some())?;
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(crate::app::report_write_error)
}

/// Whether --output can be written, asked before any host runs (fio's client opens
/// it as it starts): found only after the run, every host's results would be lost.
/// An existing file is opened for writing and left as it is; a missing one is
/// created, and its path returned, so that a run in which no host starts can remove
/// it again (bad input leaves no file behind).
pub fn check_output(flags: &GlobalFlags) -> Result<Option<std::path::PathBuf>, String> {
    let Some(p) = &flags.output else {
        return Ok(None);
    };
    if crate::debug_sink::output_file(p).is_some() {
        return Ok(None);
    }
    let existed = p.exists();
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(p)
        .map_err(|e| format!("cannot write --output '{}': {e}", p.display()))?;
    Ok((!existed).then(|| p.clone()))
}

/// Where reports go: --output (appended to, after --status-interval's reports, which
/// truncated it first) or stdout.
pub fn output(flags: &GlobalFlags, append: bool) -> Result<Box<dyn Write>, String> {
    Ok(match &flags.output {
        Some(p) => match crate::debug_sink::output_file(p) {
            // With --debug the file is open already (its lines first): write after them.
            Some(f) => Box::new(f),
            None => Box::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .append(append)
                    .truncate(!append)
                    .open(p)
                    .map_err(|e| format!("cannot write --output '{}': {e}", p.display()))?,
            ),
        },
        None => Box::new(std::io::stdout()),
    })
}

/// One `--status-interval` report of the hosts that have sent results so far (their
/// latest cumulative ones): as the final report, without the closing summary (no host
/// has finished) and without the hosts tables' totals of a finished run.
pub fn render_interval(f: OutputFormat, flags: &GlobalFlags, results: &[HostResult]) -> String {
    match f {
        OutputFormat::Normal => {
            let reports: Vec<&RunReport> = done(results).iter().map(|(_, r)| *r).collect();
            let all = merge::all_clients(&reports);
            let mut s = String::new();
            for (r, report) in done(results) {
                for line in normal::render(report).lines() {
                    match line.is_empty() {
                        true => s.push('\n'),
                        false => {
                            let _ = writeln!(s, "<{}> {line}", r.label);
                        }
                    }
                }
            }
            if let Some(a) = &all {
                s.push_str(&normal::render(a));
            }
            s
        }
        f => render(f, flags, results),
    }
}

fn done(results: &[HostResult]) -> Vec<(&HostResult, &RunReport)> {
    results
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Done { report, .. } => Some((r, report.as_ref())),
            Outcome::Failed { .. } => None,
        })
        .collect()
}

/// Spread of the hosts' start times on this machine's clock (offsets removed), ms.
pub fn start_skew_ms(results: &[HostResult]) -> Option<f64> {
    let starts: Vec<i128> = results.iter().filter_map(|r| r.start_ns).collect();
    let (min, max) = (starts.iter().min()?, starts.iter().max()?);
    Some((max - min) as f64 / 1e6)
}

/// One format's text.
pub fn render(f: OutputFormat, flags: &GlobalFlags, results: &[HostResult]) -> String {
    let ok = done(results);
    let reports: Vec<&RunReport> = ok.iter().map(|(_, r)| *r).collect();
    let all = merge::all_clients(&reports);
    match f {
        OutputFormat::Normal => normal_text(results, all.as_ref()),
        OutputFormat::Json | OutputFormat::JsonPlus => {
            json_text(results, all.as_ref(), f == OutputFormat::JsonPlus)
        }
        OutputFormat::Terse => {
            let mut s: String = reports
                .iter()
                .map(|r| terse::render_version(r, flags.terse_version))
                .collect();
            if let Some(a) = &all {
                s.push_str(&terse::render_version(a, flags.terse_version));
            }
            s
        }
        OutputFormat::Hosts => hosts_table(results),
        OutputFormat::HostsJson => hosts_json(results),
        OutputFormat::HostsCsv => hosts_csv(results),
        // Refused with --client (ferrio-config): the live reporter runs on the servers.
        OutputFormat::Interval => String::new(),
    }
}

fn normal_text(results: &[HostResult], all: Option<&RunReport>) -> String {
    let mut s = String::new();
    for r in results {
        match &r.outcome {
            Outcome::Done { report, code } => {
                for line in normal::render(report).lines() {
                    if line.is_empty() {
                        s.push('\n');
                    } else {
                        let _ = writeln!(s, "<{}> {line}", r.label);
                    }
                }
                // fio's client says so when a host's run exits non-zero (its failed
                // threads' count, as a local run's exit code).
                if *code != 0 {
                    let _ = writeln!(s, "client <{}>: exited with error {code}", r.label);
                }
            }
            Outcome::Failed { stage, reason } => {
                let _ = writeln!(
                    s,
                    "\n<{}> FAILED ({stage}): {reason}; it admitted {} threads and sent {} heartbeats before that",
                    r.label, r.threads, r.heartbeats
                );
                if let Some(p) = &r.partial {
                    let _ = writeln!(
                        s,
                        "<{}> its partial results, as of its last heartbeat (not in All clients):",
                        r.label
                    );
                    for line in normal::render(p).lines().filter(|l| !l.is_empty()) {
                        let _ = writeln!(s, "<{}> {line}", r.label);
                    }
                }
            }
        }
    }
    if let Some(a) = all {
        s.push_str(&normal::render(a));
    }
    let _ = write!(
        s,
        "\nAll clients: {} of {} hosts finished",
        done(results).len(),
        results.len()
    );
    if let Some(skew) = start_skew_ms(results) {
        let _ = write!(s, "; start skew {skew:.3} ms (measured)");
    }
    s.push('\n');
    for r in results {
        if let Some(c) = &r.clock {
            let _ = writeln!(
                s,
                "<{}> clock offset {:+.3} ms \u{b1} {:.3} ms (start times corrected by it)",
                r.label,
                c.offset_ns as f64 / 1e6,
                c.uncertainty_ns() as f64 / 1e6
            );
        }
    }
    s
}

/// Each host's clock offset and its uncertainty (JSON), where one was measured.
fn clock_offsets(results: &[HostResult]) -> Option<Vec<Value>> {
    let v: Vec<Value> = results
        .iter()
        .filter_map(|r| {
            let c = r.clock?;
            let mut o = value::Object::new();
            o.str("hostname", &r.label)
                .int("offset_ns", c.offset_ns)
                .int("uncertainty_ns", c.uncertainty_ns())
                .int("rtt_ns", c.rtt_ns);
            Some(Value::Obj(o))
        })
        .collect();
    (!v.is_empty()).then_some(v)
}

fn json_text(results: &[HostResult], all: Option<&RunReport>, plus: bool) -> String {
    let mut root = value::Object::new();
    let base = done(results)
        .first()
        .map(|(_, r)| *r)
        .cloned()
        .unwrap_or_default();
    root.str("fio version", &base.version)
        .int("timestamp", base.timestamp)
        .int("timestamp_ms", base.timestamp_ms)
        .str("time", &base.time);
    root.0
        .push(("global options".into(), global_options(results)));
    let mut stats = Vec::new();
    for (h, r) in done(results) {
        for j in &r.jobs {
            let mut o = job::job_object(r, j, plus);
            host_info(&mut o, h);
            stats.push(Value::Obj(o));
        }
    }
    if let Some(a) = all {
        let mut o = job::job_object(a, &a.jobs[0], plus);
        o.str("hostname", "All clients");
        stats.push(Value::Obj(o));
    }
    root.arr("client_stats", stats);
    let failed: Vec<Value> = results
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Failed { stage, reason } => {
                let mut o = value::Object::new();
                o.str("hostname", &r.label)
                    .str("stage", stage)
                    .str("error", reason)
                    .int("threads", r.threads)
                    .int("heartbeats", r.heartbeats);
                if let Some(p) = &r.partial {
                    let jobs = p
                        .jobs
                        .iter()
                        .map(|j| Value::Obj(job::job_object(p, j, plus)))
                        .collect();
                    o.arr("partial_jobs", jobs);
                }
                Some(Value::Obj(o))
            }
            Outcome::Done { .. } => None,
        })
        .collect();
    if !failed.is_empty() {
        root.arr("client_errors", failed);
    }
    if let Some(skew) = start_skew_ms(results) {
        root.float("start_skew_ms", skew);
    }
    if let Some(c) = clock_offsets(results) {
        root.arr("clock_offsets", c);
    }
    value::print_root(&root)
}

/// fio's "global options" in client mode: with one host its options as an object
/// (empty when its job files have none); with several, an array with an object per
/// host that has some, led by the host's name and port.
fn global_options(results: &[HostResult]) -> Value {
    let done = done(results);
    if results.len() == 1 {
        let opts = done.first().map(|(_, r)| r.global_options.as_slice());
        return Value::Obj(job::options(opts.unwrap_or_default()).unwrap_or_default());
    }
    let per_host = done
        .iter()
        .filter(|(_, r)| !r.global_options.is_empty())
        .map(|(h, r)| {
            let mut o = value::Object::new();
            host_info(&mut o, h);
            for (k, v) in &r.global_options {
                o.str(k, v);
            }
            Value::Obj(o)
        })
        .collect();
    Value::Arr(per_host)
}

/// fio's json_object_add_client_info: the host and port after the job's keys.
fn host_info(o: &mut value::Object, h: &HostResult) {
    let (host, port) = host_and_port(&h.label);
    o.str("hostname", host).int("port", port);
}

/// A `--client` label's host and port as given: `host:port`, `[v6]:port` or fio's
/// `host,port` (whose host may be empty, for this host); port 0 when none is given.
fn host_and_port(label: &str) -> (&str, u16) {
    let split = label
        .rsplit_once(',')
        .filter(|(_, p)| p.parse::<u16>().is_ok())
        .or_else(|| {
            label
                .rsplit_once(':')
                .filter(|(a, p)| p.parse::<u16>().is_ok() && !a.ends_with(':'))
        });
    match split {
        Some((a, p)) => (
            a.strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .unwrap_or(a),
            p.parse().unwrap_or(0),
        ),
        None => (label, 0),
    }
}

/// Each host with its row, or its failure and the row of its partial results.
type Rows = Vec<(String, Result<Row, (String, Option<Row>)>)>;

/// The hosts' rows and the total over those that finished.
fn rows(results: &[HostResult]) -> (Rows, Option<Row>) {
    let mut out = Vec::new();
    for r in results {
        let row = match &r.outcome {
            Outcome::Done { report, .. } => Ok(Row::of(report)),
            Outcome::Failed { stage, reason } => Err((
                format!("FAILED ({stage}): {reason}"),
                r.partial.as_deref().map(Row::of),
            )),
        };
        out.push((r.label.clone(), row));
    }
    let ok: Vec<&Row> = out.iter().filter_map(|(_, r)| r.as_ref().ok()).collect();
    let total = (!ok.is_empty()).then(|| Row::total(&ok));
    (out, total)
}

/// A job that failed on a host that finished: its row counts (its I/O is exact and
/// in the Total), and the table says which job failed and why.
struct JobError {
    job: String,
    errno: i32,
}

impl JobError {
    fn text(&self) -> String {
        format!(
            "job '{}': error={} ({})",
            self.job,
            self.errno,
            normal::strerror(self.errno)
        )
    }
}

/// The failed jobs of a host that finished, with its exit code; None when it
/// finished cleanly (exit 0, no job error).
fn job_errors(r: &HostResult) -> Option<(Vec<JobError>, i32)> {
    let Outcome::Done { report, code } = &r.outcome else {
        return None;
    };
    let errors: Vec<JobError> = report
        .jobs
        .iter()
        .filter(|j| j.error != 0)
        .map(|j| JobError {
            job: j.name.clone(),
            errno: j.error,
        })
        .collect();
    (*code != 0 || !errors.is_empty()).then_some((errors, *code))
}

/// The text of a finished host's failure: its failed jobs, or its exit code.
fn job_errors_text(errors: &[JobError], code: i32) -> String {
    if errors.is_empty() {
        return format!("exit code {code}");
    }
    let jobs: Vec<String> = errors.iter().map(JobError::text).collect();
    jobs.join(", ")
}

fn cells(r: &Row) -> [String; 4] {
    [
        format!("{:.1}", r.iops / 1000.0),
        format!("{:.1}", r.bw_bytes / (1024.0 * 1024.0)),
        format!("{:.1}", r.lat.mean() / 1000.0),
        format!("{:.1}", r.p99_ns() as f64 / 1000.0),
    ]
}

const HEAD: [&str; 5] = ["Host", "kIOPS", "BW,MiB/s", "AVG_LAT,us", "p99,us"];

/// The seed's table: a row per host, a rule, the total.
pub fn hosts_table(results: &[HostResult]) -> String {
    let (rows, total) = rows(results);
    let w = rows.iter().map(|(h, _)| h.len()).max().unwrap_or(0).max(30);
    let line = |c: [&str; 5]| {
        format!(
            "{:<w$} | {:<10} | {:<10} | {:<12} | {}\n",
            c[0], c[1], c[2], c[3], c[4]
        )
    };
    let rule = format!(
        "{}-|-{}-|-{}-|-{}-|-{}\n",
        "-".repeat(w),
        "-".repeat(10),
        "-".repeat(10),
        "-".repeat(12),
        "-".repeat(10)
    );
    let mut s = line(HEAD);
    s.push_str(&rule);
    let mut notes = String::new();
    for ((h, r), host) in rows.iter().zip(results) {
        match r {
            Ok(r) => {
                let c = cells(r);
                match job_errors(host) {
                    None => s.push_str(&line([h, &c[0], &c[1], &c[2], &c[3]])),
                    Some((errors, code)) => {
                        let shown = format!("{h} !");
                        s.push_str(&line([&shown, &c[0], &c[1], &c[2], &c[3]]));
                        let _ = writeln!(
                            notes,
                            "! {h}: {}; its results are in the Total",
                            job_errors_text(&errors, code)
                        );
                    }
                }
            }
            Err((e, partial)) => {
                let shown = format!("{h} *");
                match partial {
                    Some(p) => {
                        let c = cells(p);
                        s.push_str(&line([&shown, &c[0], &c[1], &c[2], &c[3]]));
                    }
                    None => {
                        let _ = writeln!(s, "{shown:<w$} | no results");
                    }
                }
                let _ = writeln!(notes, "* {h}: {e}; partial results, not in the Total");
            }
        }
    }
    s.push_str(&rule);
    if let Some(t) = total {
        let c = cells(&t);
        s.push_str(&line(["Total", &c[0], &c[1], &c[2], &c[3]]));
    }
    s.push_str(&notes);
    s
}

fn row_object(host: &str, r: &Row) -> value::Object {
    let mut o = value::Object::new();
    o.str("host", host)
        .int("total_ios", r.ios)
        .int("io_bytes", r.bytes)
        .float("iops", r.iops)
        .float("bw_bytes", r.bw_bytes)
        .float("lat_mean_ns", r.lat.mean())
        .int("lat_p99_ns", r.p99_ns());
    o
}

/// The table as JSON: exact counts beside the rates.
pub fn hosts_json(results: &[HostResult]) -> String {
    let (rows, total) = rows(results);
    let mut arr = Vec::new();
    for ((h, r), host) in rows.iter().zip(results) {
        arr.push(Value::Obj(match r {
            Ok(r) => {
                let mut o = row_object(h, r);
                if let Some((errors, code)) = job_errors(host) {
                    o.int("exit_code", code);
                    let jobs = errors
                        .iter()
                        .map(|e| {
                            let mut j = value::Object::new();
                            j.str("jobname", &e.job)
                                .int("error", e.errno)
                                .str("message", &normal::strerror(e.errno));
                            Value::Obj(j)
                        })
                        .collect();
                    o.arr("job_errors", jobs);
                }
                o
            }
            Err((e, partial)) => {
                let mut o = value::Object::new();
                o.str("host", h).str("error", e);
                if let Some(p) = partial {
                    o.obj("partial", row_object(h, p));
                }
                o
            }
        }));
    }
    let mut root = value::Object::new();
    root.arr("hosts", arr);
    if let Some(t) = total {
        root.obj("total", row_object("Total", &t));
    }
    if let Some(skew) = start_skew_ms(results) {
        root.float("start_skew_ms", skew);
    }
    if let Some(c) = clock_offsets(results) {
        root.arr("clock_offsets", c);
    }
    value::print_root(&root)
}

/// The table as CSV (RFC 4180 quoting for host names and errors).
pub fn hosts_csv(results: &[HostResult]) -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let line = |h: &str, r: &Row, err: &str| {
        let c = cells(r);
        format!(
            "{},{},{},{},{},{},{},{err}\n",
            q(h),
            c[0],
            c[1],
            c[2],
            c[3],
            r.ios,
            r.bytes
        )
    };
    let (rows, total) = rows(results);
    let mut s = String::from("host,kiops,bw_mib_s,avg_lat_us,p99_us,total_ios,io_bytes,error\n");
    let mut failed = Vec::new();
    for ((h, r), host) in rows.iter().zip(results) {
        match r {
            Ok(r) => {
                let err = job_errors(host).map_or(String::new(), |(errors, code)| {
                    q(&job_errors_text(&errors, code))
                });
                s.push_str(&line(h, r, &err))
            }
            Err(e) => failed.push((h, e)),
        }
    }
    if let Some(t) = &total {
        s.push_str(&line("Total", t, ""));
    }
    // Failed hosts last, with their partial results where they sent any.
    for (h, (e, partial)) in failed {
        match partial {
            Some(p) => s.push_str(&line(h, p, &q(&format!("{e} (partial results)")))),
            None => {
                let _ = writeln!(s, "{},,,,,,,{}", q(h), q(e));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_give_fios_hostname_and_port() {
        assert_eq!(host_and_port(",8765"), ("", 8765));
        assert_eq!(host_and_port("h1,8766"), ("h1", 8766));
        assert_eq!(host_and_port("h1:9000"), ("h1", 9000));
        assert_eq!(host_and_port("[::1]:9"), ("::1", 9));
        assert_eq!(host_and_port("h1"), ("h1", 0));
        assert_eq!(host_and_port("::1"), ("::1", 0));
    }
}
