//! The self-contained HTML report (`--html=FILE`, docs/reports.md): one offline page
//! per run or sweep. Charts are inline SVG drawn here ([`svg`]): no script, no
//! external stylesheet, font or image, so the file opens from disk in any browser
//! with no network. A run shows, per job and direction, bandwidth, IOPS and latency
//! over time (from the per-interval samples, with the steady-state window shaded),
//! the latency percentile curve and the latency histogram, and its extra statistics
//! (crate::extra) as a table; a sweep adds the table, throughput/latency curves
//! against the swept option, and one curve per extra statistic.

pub mod svg;

use crate::model::{JobReport, RunReport};
use crate::series::JobSeries;
use crate::sweep::{render_text, Table};
use ferrio_stats::LatencyHistogram;
use std::fmt::Write;
use svg::{bars, escape, Line, LineChart};

/// One run shown in a sweep page.
pub struct Run<'a> {
    pub title: String,
    pub report: &'a RunReport,
}

const DIRS: [&str; 3] = ["read", "write", "trim"];
const CURVE: [f64; 13] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1500px}\
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-top:8px}\
h3{font-size:15px}.sm{font-size:11px;fill:#444}.ct{font-size:13px;font-weight:bold}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{border:1px solid #ddd}\
pre{background:#f6f6f6;padding:8px;overflow-x:auto}.facts{color:#555}\
table.extra{border-collapse:collapse}table.extra td,table.extra th{border:1px solid #ddd;padding:2px 8px}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{t}</title><style>{STYLE}</style></head><body><h1>{t}</h1>\n{body}</body></html>\n",
        t = escape(title)
    )
}

/// The page of a single run.
pub fn run_page(report: &RunReport) -> String {
    let mut body = facts(report);
    body.push_str(&run_sections(report));
    page("ferrio report", &body)
}

fn facts(r: &RunReport) -> String {
    format!(
        "<p class=\"facts\">{} &middot; {} &middot; clock: {}</p>\n",
        escape(&r.version),
        escape(&r.time),
        escape(&r.clock_source)
    )
}

fn lat_of(d: &crate::model::DirReport) -> &LatencyHistogram {
    if d.lat.count() > 0 {
        &d.lat
    } else {
        &d.clat
    }
}

/// Every job and direction of a run.
fn run_sections(report: &RunReport) -> String {
    let mut s = String::new();
    for (j, job) in report.jobs.iter().enumerate() {
        let series = report.series.iter().find(|x| x.job == j);
        s.push_str(&extra_table(job));
        for (d, dir) in job.dir.iter().enumerate() {
            if dir.total_ios == 0 {
                continue;
            }
            let runtime_s = dir.runtime_ms.max(1) as f64 / 1000.0;
            let h = lat_of(dir);
            let p = h.percentiles(&[50.0, 99.0]);
            let _ = write!(
                s,
                "<h2>job {} &middot; {}</h2><p>{:.0} IOPS, {:.1} MiB/s, mean latency {:.1} &micro;s, p50 {:.1} &micro;s, p99 {:.1} &micro;s ({} I/Os in {:.1} s)</p><div class=\"charts\">",
                escape(&job.name),
                DIRS[d],
                dir.total_ios as f64 / runtime_s,
                dir.io_bytes as f64 / runtime_s / 1048576.0,
                h.mean() / 1e3,
                p[0] as f64 / 1e3,
                p[1] as f64 / 1e3,
                dir.total_ios,
                runtime_s
            );
            if let Some(ser) = series {
                s.push_str(&over_time(job, ser, d));
            }
            s.push_str(&percentile_curve(h));
            s.push_str(&histogram(h));
            s.push_str("</div>\n");
        }
    }
    s
}

/// The job's extra statistics, one row per normal-output line (`sim`, `pacer`) with
/// the same `name=value` text, and each value's JSON key.
fn extra_table(job: &JobReport) -> String {
    if job.extra.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<h3>job {} &middot; ferrio statistics</h3><table class=\"extra\">\
         <tr><th>line</th><th>values</th><th>JSON keys</th></tr>",
        escape(&job.name)
    );
    let mut lines: Vec<&str> = Vec::new();
    for x in &job.extra {
        if !lines.contains(&x.line.as_str()) {
            lines.push(&x.line);
        }
    }
    for l in lines {
        let of_line: Vec<&crate::extra::ExtraStat> =
            job.extra.iter().filter(|x| x.line == l).collect();
        let values: Vec<String> = of_line
            .iter()
            .map(|x| format!("{}={}", x.name, x.shown()))
            .collect();
        let keys: Vec<&str> = of_line.iter().map(|x| x.key.as_str()).collect();
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(l),
            escape(&values.join(", ")),
            escape(&keys.join(", "))
        );
    }
    s.push_str("</table>\n");
    s
}

/// Bandwidth, IOPS and latency over time, the steady-state window shaded.
fn over_time(job: &JobReport, ser: &JobSeries, d: usize) -> String {
    let rows = ser.rows(d);
    let t = |r: &crate::series::Row| r.t_ms as f64 / 1000.0;
    let end = rows.last().map_or(0.0, t);
    let shade_label;
    let shade = match &job.steadystate {
        Some(ss) => {
            shade_label = if ss.attained {
                "steady-state window (attained)"
            } else {
                "steady-state window (not attained)"
            };
            Some((end - ss.duration_s as f64, end, shade_label))
        }
        None => None,
    };
    let line = |name: &str, f: &dyn Fn(&crate::series::Row) -> f64| Line {
        name: name.into(),
        points: rows.iter().map(|r| (t(r), f(r))).collect(),
    };
    let mut s = String::new();
    for (title, y, l) in [
        (
            "Bandwidth over time",
            "MiB/s",
            line("bandwidth", &|r| r.bw / 1048576.0),
        ),
        ("IOPS over time", "IOPS", line("IOPS", &|r| r.iops)),
    ] {
        s.push_str(
            &LineChart {
                title,
                x_label: "seconds",
                y_label: y,
                lines: vec![l],
                shade,
                x_names: None,
                log_y: false,
            }
            .render(),
        );
    }
    let lat = vec![
        line("mean", &|r| r.lat_mean_ns / 1e3),
        line("p50", &|r| r.lat_pct_ns[0] as f64 / 1e3),
        line("p99", &|r| r.lat_pct_ns[2] as f64 / 1e3),
        line("p99.9", &|r| r.lat_pct_ns[3] as f64 / 1e3),
    ];
    s.push_str(
        &LineChart {
            title: "Latency over time",
            x_label: "seconds",
            y_label: "microseconds",
            lines: lat,
            shade,
            x_names: None,
            log_y: false,
        }
        .render(),
    );
    s
}

fn percentile_curve(h: &LatencyHistogram) -> String {
    let p = h.percentiles(&CURVE);
    LineChart {
        title: "Latency percentiles",
        x_label: "percentile",
        y_label: "microseconds (log)",
        lines: vec![Line {
            name: "latency".into(),
            points: p
                .iter()
                .enumerate()
                .map(|(i, &v)| (i as f64, v as f64 / 1e3))
                .collect(),
        }],
        shade: None,
        x_names: Some(CURVE.iter().map(|c| format!("{c}")).collect()),
        log_y: true,
    }
    .render()
}

/// I/O counts per power-of-two latency range (≤1 µs, ≤2 µs, ...).
fn histogram(h: &LatencyHistogram) -> String {
    let mut counts: Vec<u64> = Vec::new();
    for (v, c) in h.bins() {
        let us = v as f64 / 1e3;
        let k = if us <= 1.0 {
            0
        } else {
            us.log2().ceil() as usize
        };
        if counts.len() <= k {
            counts.resize(k + 1, 0);
        }
        counts[k] += c;
    }
    let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let label = |k: usize| {
        let us = 1u64 << k;
        if us >= 1_000_000 {
            format!("{}s", us / 1_000_000)
        } else if us >= 1000 {
            format!("{}ms", us / 1000)
        } else {
            format!("{us}us")
        }
    };
    let b: Vec<(String, f64)> = counts
        .iter()
        .enumerate()
        .skip(first)
        .map(|(k, &c)| (format!("≤{}", label(k)), c as f64))
        .collect();
    bars("Latency histogram", "I/Os", &b)
}

/// The page of a sweep (or repeated run): the table, curves against the first swept
/// option (one line per job, direction and other options' values), then each run.
pub fn sweep_page(table: &Table, runs: &[Run]) -> String {
    let mut body = String::new();
    if let Some(r) = runs.first() {
        body.push_str(&facts(r.report));
    }
    let _ = write!(
        body,
        "<h2>Table</h2><pre>{}</pre>",
        escape(&render_text(table))
    );
    body.push_str(&sweep_curves(table));
    for r in runs {
        let _ = writeln!(
            body,
            "<details><summary>run: {}</summary>{}</details>",
            escape(&r.title),
            run_sections(r.report)
        );
    }
    page("ferrio sweep report", &body)
}

fn sweep_curves(t: &Table) -> String {
    let Some(axis) = t.axes.first() else {
        return String::new();
    };
    let mut xs: Vec<String> = Vec::new();
    for r in &t.rows {
        if !xs.contains(&r.labels[0]) {
            xs.push(r.labels[0].clone());
        }
    }
    // One line per (other options, job, direction).
    let mut keys: Vec<String> = Vec::new();
    for r in &t.rows {
        let k = line_key(t, r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let metric = |f: &dyn Fn(&crate::sweep::Metrics) -> f64| -> Vec<Line> {
        keys.iter()
            .map(|k| Line {
                name: k.clone(),
                points: t
                    .rows
                    .iter()
                    .filter(|r| &line_key(t, r) == k)
                    .filter_map(|r| {
                        let x = xs.iter().position(|x| *x == r.labels[0])?;
                        let v: Vec<f64> = r.runs.iter().map(f).collect();
                        Some((x as f64, v.iter().sum::<f64>() / v.len().max(1) as f64))
                    })
                    .collect(),
            })
            .collect()
    };
    let mut s = format!("<h2>Against {}</h2><div class=\"charts\">", escape(axis));
    for (title, y, lines) in [
        ("Bandwidth", "MiB/s", metric(&|m| m.bw / 1048576.0)),
        ("IOPS", "IOPS", metric(&|m| m.iops)),
        (
            "Mean latency",
            "microseconds",
            metric(&|m| m.lat_mean_ns / 1e3),
        ),
        (
            "p99 latency",
            "microseconds",
            metric(&|m| m.lat_pct_ns[1] / 1e3),
        ),
    ] {
        s.push_str(
            &LineChart {
                title,
                x_label: axis,
                y_label: y,
                lines,
                shade: None,
                x_names: Some(xs.clone()),
                log_y: false,
            }
            .render(),
        );
    }
    s.push_str(&extra_curves(t, axis, &xs));
    s.push_str("</div>\n");
    s
}

/// One chart per extra statistic against the swept option: one line per job (and
/// other options' values), the mean over the runs (a job's rows of each direction
/// carry the same statistics, so one of them is drawn).
fn extra_curves(t: &Table, axis: &str, xs: &[String]) -> String {
    let key = |r: &crate::sweep::Row| {
        let mut parts: Vec<String> = t.axes[1..]
            .iter()
            .zip(&r.labels[1..])
            .map(|(a, v)| format!("{a}={v}"))
            .collect();
        parts.push(r.job.clone());
        parts.join(" ")
    };
    let mut s = String::new();
    for (stat, header, unit) in crate::sweep::extra_columns(t) {
        let scale = match unit {
            crate::extra::ExtraUnit::Nanos => 1e3,
            crate::extra::ExtraUnit::Count => 1.0,
        };
        let mut lines: Vec<Line> = Vec::new();
        let mut seen: Vec<(String, String)> = Vec::new();
        for r in &t.rows {
            let v = r.extra_values(&stat);
            let (k, x) = (key(r), r.labels[0].clone());
            if v.is_empty() || seen.contains(&(k.clone(), x.clone())) {
                continue;
            }
            seen.push((k.clone(), x.clone()));
            let Some(xi) = xs.iter().position(|c| *c == x) else {
                continue;
            };
            let point = (xi as f64, v.iter().sum::<f64>() / v.len() as f64 / scale);
            match lines.iter_mut().find(|l| l.name == k) {
                Some(l) => l.points.push(point),
                None => lines.push(Line {
                    name: k,
                    points: vec![point],
                }),
            }
        }
        s.push_str(
            &LineChart {
                title: &header,
                x_label: axis,
                y_label: if scale > 1.0 { "microseconds" } else { "count" },
                lines,
                shade: None,
                x_names: Some(xs.to_vec()),
                log_y: false,
            }
            .render(),
        );
    }
    s
}

fn line_key(t: &Table, r: &crate::sweep::Row) -> String {
    let mut parts: Vec<String> = t.axes[1..]
        .iter()
        .zip(&r.labels[1..])
        .map(|(a, v)| format!("{a}={v}"))
        .collect();
    parts.push(format!("{} {}", r.job, r.dir));
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DirReport, JobReport};

    #[test]
    fn a_run_page_is_one_offline_document_with_charts() {
        let mut dir = DirReport {
            io_bytes: 4096 * 1000,
            total_ios: 1000,
            runtime_ms: 1000,
            ..Default::default()
        };
        for i in 0..1000u64 {
            dir.clat.record(50_000 + i * 100);
        }
        let mut job = JobReport {
            name: "j<1>".into(),
            ..Default::default()
        };
        job.dir[0] = dir;
        let r = RunReport {
            jobs: vec![job],
            ..Default::default()
        };
        let html = run_page(&r);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("job j&lt;1&gt; &middot; read"));
        assert_eq!(
            html.matches("<svg").count(),
            2,
            "percentile curve and histogram"
        );
        for banned in ["<script", "http:", "https:", "src=", "@import", "url("] {
            assert!(!html.contains(banned), "{banned}");
        }
        assert!(
            !html.contains("ferrio statistics"),
            "no extra statistics, no table"
        );
    }

    #[test]
    fn a_jobs_extra_statistics_are_a_table_with_the_normal_outputs_text() {
        use crate::extra::ExtraStat;
        let job = JobReport {
            name: "j".into(),
            extra: vec![
                ExtraStat::new("sim_buffers", "sim", "buffers", 96.0),
                ExtraStat::new("pacer_period_ns", "pacer", "period", 22_800.0).nanos(),
                ExtraStat::new("sim_in_flight", "sim", "in<flight", 95.24),
            ],
            ..Default::default()
        };
        let html = run_page(&RunReport {
            jobs: vec![job],
            ..Default::default()
        });
        assert!(html.contains("<h3>job j &middot; ferrio statistics</h3>"));
        assert!(html.contains(
            "<tr><td>sim</td><td>buffers=96, in&lt;flight=95.2</td><td>sim_buffers, sim_in_flight</td></tr>"
        ));
        assert!(html
            .contains("<tr><td>pacer</td><td>period=22.800us</td><td>pacer_period_ns</td></tr>"));
    }
}
