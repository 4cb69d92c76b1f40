//! The sweep/repeat table (docs/reports.md): one row per point, job and direction,
//! with throughput, IOPS, mean and percentile latency; with repeats, each metric's
//! mean, standard deviation, min/max and coefficient of variation across the runs,
//! and a flag on points whose throughput varied more than the limit. Printed as a
//! Markdown table, CSV or JSON.

use crate::json::value::{print_root, Object, Value};
use crate::model::{DirReport, RunReport};

/// The percentiles of the table's latency columns.
pub const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// One run's numbers for one job and direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Bytes per second.
    pub bw: f64,
    pub iops: f64,
    /// Mean total latency (fio's `lat`; `clat` when lat was not recorded), ns.
    pub lat_mean_ns: f64,
    /// Latency at [`PERCENTILES`], ns.
    pub lat_pct_ns: [f64; 3],
}

impl Metrics {
    /// The numbers of one direction of a report.
    pub fn of(d: &DirReport) -> Metrics {
        let runtime_s = d.runtime_ms.max(1) as f64 / 1000.0;
        let h = if d.lat.count() > 0 { &d.lat } else { &d.clat };
        let p = h.percentiles(&PERCENTILES);
        Metrics {
            bw: d.io_bytes as f64 / runtime_s,
            iops: d.total_ios as f64 / runtime_s,
            lat_mean_ns: h.mean(),
            lat_pct_ns: [p[0] as f64, p[1] as f64, p[2] as f64],
        }
    }

    /// (column name, value) of every metric, in table order.
    fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("bw_bytes", self.bw),
            ("iops", self.iops),
            ("lat_mean_ns", self.lat_mean_ns),
            ("lat_p50_ns", self.lat_pct_ns[0]),
            ("lat_p99_ns", self.lat_pct_ns[1]),
            ("lat_p99.9_ns", self.lat_pct_ns[2]),
        ]
    }
}

/// Mean, sample standard deviation, min, max and CV (%) of values across runs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub cv_pct: f64,
}

impl Spread {
    pub fn of(xs: &[f64]) -> Spread {
        if xs.is_empty() {
            return Spread::default();
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = if xs.len() > 1 {
            xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let stddev = var.sqrt();
        Spread {
            mean,
            stddev,
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            cv_pct: if mean > 0.0 {
                stddev / mean * 100.0
            } else {
                0.0
            },
        }
    }
}

/// One point × job × direction, with every run's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The swept options' values, in [`Table::axes`] order.
    pub labels: Vec<String>,
    pub job: String,
    /// "read", "write" or "trim".
    pub dir: &'static str,
    pub runs: Vec<Metrics>,
    /// Every run's extra statistics of the job (crate::extra), in run order.
    pub extras: Vec<Vec<crate::extra::ExtraStat>>,
    /// Every run's per-interval samples, pooled (for `--compare` of two sweeps).
    pub intervals: Vec<crate::series::Row>,
}

impl Row {
    /// The spread of metric `i` (in [`Metrics::named`] order) across the runs.
    fn spread(&self, i: usize) -> Spread {
        let xs: Vec<f64> = self.runs.iter().map(|m| m.named()[i].1).collect();
        Spread::of(&xs)
    }

    /// Whether the throughput varied more than `limit_pct` across repeats.
    pub fn unstable(&self, limit_pct: f64) -> bool {
        self.runs.len() > 1 && self.spread(0).cv_pct > limit_pct
    }
}

/// A whole sweep (or repeated run).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// The swept options, in the order given.
    pub axes: Vec<String>,
    /// Runs per point.
    pub repeat: u32,
    pub cv_limit_pct: f64,
    pub rows: Vec<Row>,
    /// Points that were planned; fewer rows mean the sweep was stopped.
    pub planned_points: usize,
    pub finished_points: usize,
}

const DIRS: [&str; 3] = ["read", "write", "trim"];

impl Table {
    /// Add one run of a point: a row per job name and direction that did I/O (the
    /// same rows again for a repeat of the point). Jobs of the same name in one run
    /// (numjobs clones without group_reporting) are one row, summed as
    /// group_reporting sums them: bytes and I/Os add up over the longest runtime and
    /// latencies pool, so a `numjobs` sweep shows the total throughput per point.
    pub fn add_run(&mut self, labels: &[String], report: &RunReport) {
        let mut names: Vec<&str> = Vec::new();
        for job in &report.jobs {
            if !names.contains(&job.name.as_str()) {
                names.push(&job.name);
            }
        }
        for name in names {
            let mut dirs: [DirReport; 3] = Default::default();
            let mut extra = Vec::new();
            let mut series: Option<crate::series::JobSeries> = None;
            for (j, job) in report.jobs.iter().enumerate() {
                if job.name != name {
                    continue;
                }
                for (sum, d) in dirs.iter_mut().zip(&job.dir) {
                    sum.add(d);
                }
                crate::extra::merge(&mut extra, &job.extra);
                if let Some(s) = report.series.iter().find(|s| s.job == j) {
                    match &mut series {
                        Some(acc) => acc.merge(s),
                        None => series = Some(s.clone()),
                    }
                }
            }
            for (d, dir) in dirs.iter().enumerate() {
                if dir.total_ios == 0 {
                    continue;
                }
                let m = Metrics::of(dir);
                let at = self
                    .rows
                    .iter()
                    .position(|r| r.labels == labels && r.job == name && r.dir == DIRS[d]);
                let row = match at {
                    Some(i) => &mut self.rows[i],
                    None => {
                        self.rows.push(Row {
                            labels: labels.to_vec(),
                            job: name.to_string(),
                            dir: DIRS[d],
                            runs: Vec::new(),
                            extras: Vec::new(),
                            intervals: Vec::new(),
                        });
                        self.rows.last_mut().expect("just pushed")
                    }
                };
                row.runs.push(m);
                row.extras.push(extra.clone());
                if let Some(s) = &series {
                    row.intervals.extend(s.rows(d));
                }
            }
        }
    }
}

fn mib(bytes_s: f64) -> String {
    format!("{:.1}", bytes_s / 1048576.0)
}

fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1000.0)
}

fn kiops(iops: f64) -> String {
    if iops >= 10_000.0 {
        format!("{:.1}k", iops / 1000.0)
    } else {
        format!("{iops:.0}")
    }
}

/// The extra statistics' columns over every row, in order of first appearance:
/// (key, text header, unit).
pub(crate) fn extra_columns(t: &Table) -> Vec<(String, String, crate::extra::ExtraUnit)> {
    let mut cols: Vec<(String, String, crate::extra::ExtraUnit)> = Vec::new();
    for s in t.rows.iter().flat_map(|r| r.extras.iter().flatten()) {
        if !cols.iter().any(|c| c.0 == s.key) {
            let unit = match s.unit {
                crate::extra::ExtraUnit::Nanos => " us",
                crate::extra::ExtraUnit::Count => "",
            };
            cols.push((
                s.key.clone(),
                format!("{} {}{unit}", s.line, s.name),
                s.unit,
            ));
        }
    }
    cols
}

impl Row {
    /// Every run's value of extra statistic `key` (runs without it are left out).
    pub(crate) fn extra_values(&self, key: &str) -> Vec<f64> {
        self.extras
            .iter()
            .filter_map(|e| e.iter().find(|s| s.key == key).map(|s| s.value))
            .collect()
    }
}

/// The Markdown table (readable as text).
pub fn render_text(t: &Table) -> String {
    let mut head: Vec<String> = t.axes.clone();
    head.extend(["job", "dir", "IOPS", "BW MiB/s", "mean lat us"].map(String::from));
    head.extend(PERCENTILES.iter().map(|p| format!("p{p} us")));
    let repeated = t.repeat > 1;
    if repeated {
        head.extend(["BW stddev", "BW min", "BW max", "BW CV %", "stable"].map(String::from));
    }
    let extra = extra_columns(t);
    head.extend(extra.iter().map(|c| c.1.clone()));
    let mut lines = vec![head];
    for r in &t.rows {
        let s: Vec<Spread> = (0..6).map(|i| r.spread(i)).collect();
        let mut cells = r.labels.clone();
        cells.push(r.job.clone());
        cells.push(r.dir.into());
        cells.push(kiops(s[1].mean));
        cells.push(mib(s[0].mean));
        cells.extend((2..6).map(|i| us(s[i].mean)));
        if repeated {
            cells.push(mib(s[0].stddev));
            cells.push(mib(s[0].min));
            cells.push(mib(s[0].max));
            cells.push(format!("{:.1}", s[0].cv_pct));
            cells.push(
                if r.unstable(t.cv_limit_pct) {
                    "UNSTABLE"
                } else {
                    "yes"
                }
                .into(),
            );
        }
        for (key, _, unit) in &extra {
            let v = r.extra_values(key);
            cells.push(match (v.is_empty(), unit) {
                (true, _) => String::new(),
                (false, crate::extra::ExtraUnit::Nanos) => us(Spread::of(&v).mean),
                (false, u) => crate::extra::show(Spread::of(&v).mean, *u),
            });
        }
        lines.push(cells);
    }
    let widths: Vec<usize> = (0..lines[0].len())
        .map(|c| lines.iter().map(|l| l[c].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, w))| {
                // Names left, numbers right.
                if c < t.axes.len() + 2 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if i == 0 {
            let rule: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(c, w)| {
                    if c < t.axes.len() + 2 {
                        "-".repeat(w + 2)
                    } else {
                        format!("{}:", "-".repeat(w + 1))
                    }
                })
                .collect();
            out.push_str(&format!("|{}|\n", rule.join("|")));
        }
    }
    out.push_str(&footer(t));
    out
}

fn footer(t: &Table) -> String {
    let mut s = String::new();
    if t.repeat > 1 {
        s.push_str(&format!(
            "{} runs per point; means shown; UNSTABLE: bandwidth CV above {}%\n",
            t.repeat, t.cv_limit_pct
        ));
    }
    if t.finished_points < t.planned_points {
        s.push_str(&format!(
            "stopped after {} of {} points\n",
            t.finished_points, t.planned_points
        ));
    }
    s
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV: one header line, one line per row; with repeats, each metric's mean, stddev,
/// min, max and CV columns, and `unstable` (0/1).
pub fn render_csv(t: &Table) -> String {
    let names = Metrics::default().named().map(|n| n.0);
    let mut head: Vec<String> = t.axes.iter().map(|a| csv_cell(a)).collect();
    head.extend(["job", "dir", "runs"].map(String::from));
    for n in names {
        head.push(n.to_string());
        if t.repeat > 1 {
            for s in ["stddev", "min", "max", "cv_pct"] {
                head.push(format!("{n}_{s}"));
            }
        }
    }
    if t.repeat > 1 {
        head.push("unstable".into());
    }
    let extra = extra_columns(t);
    head.extend(extra.iter().map(|c| csv_cell(&c.0)));
    let mut out = head.join(",") + "\n";
    for r in &t.rows {
        let mut cells: Vec<String> = r.labels.iter().map(|l| csv_cell(l)).collect();
        cells.push(csv_cell(&r.job));
        cells.push(r.dir.into());
        cells.push(r.runs.len().to_string());
        for i in 0..names.len() {
            let s = r.spread(i);
            cells.push(format!("{:.3}", s.mean));
            if t.repeat > 1 {
                for v in [s.stddev, s.min, s.max, s.cv_pct] {
                    cells.push(format!("{v:.3}"));
                }
            }
        }
        if t.repeat > 1 {
            cells.push(u8::from(r.unstable(t.cv_limit_pct)).to_string());
        }
        for (key, _, _) in &extra {
            let v = r.extra_values(key);
            cells.push(if v.is_empty() {
                String::new()
            } else {
                format!("{:.3}", Spread::of(&v).mean)
            });
        }
        out.push_str(&(cells.join(",") + "\n"));
    }
    out
}

/// JSON: `{"sweep": {axes, repeat, points, ...}, "rows": [...]}`, every metric with
/// its mean, stddev, min, max, cv_pct and the per-run values.
pub fn render_json(t: &Table) -> String {
    let mut root = Object::new();
    let mut head = Object::new();
    head.arr(
        "axes",
        t.axes.iter().map(|a| Value::Str(a.clone())).collect(),
    );
    head.int("repeat", t.repeat);
    head.float("cv_limit_pct", t.cv_limit_pct);
    head.int("planned_points", t.planned_points as u64);
    head.int("finished_points", t.finished_points as u64);
    root.obj("sweep", head);
    let names = Metrics::default().named().map(|n| n.0);
    let rows = t
        .rows
        .iter()
        .map(|r| {
            let mut o = Object::new();
            let mut point = Object::new();
            for (a, l) in t.axes.iter().zip(&r.labels) {
                point.str(a, l);
            }
            o.obj("point", point);
            o.str("job", &r.job);
            o.str("dir", r.dir);
            o.int("runs", r.runs.len() as u64);
            for (i, n) in names.iter().enumerate() {
                let s = r.spread(i);
                let mut m = Object::new();
                m.float("mean", s.mean)
                    .float("stddev", s.stddev)
                    .float("min", s.min)
                    .float("max", s.max)
                    .float("cv_pct", s.cv_pct);
                let vals = r.runs.iter().map(|x| Value::Float(x.named()[i].1));
                m.arr("values", vals.collect());
                o.obj(n, m);
            }
            o.int("unstable", u8::from(r.unstable(t.cv_limit_pct)));
            // The job's extra statistics (crate::extra): mean over the runs, and each.
            for (key, _, _) in extra_columns(t) {
                let v = r.extra_values(&key);
                if !v.is_empty() {
                    let mut m = Object::new();
                    m.float("mean", Spread::of(&v).mean);
                    m.arr("values", v.into_iter().map(Value::Float).collect());
                    o.obj(&key, m);
                }
            }
            if !r.intervals.is_empty() {
                o.obj("intervals", intervals_json(&r.intervals));
            }
            Value::Obj(o)
        })
        .collect();
    root.arr("rows", rows);
    print_root(&root)
}

/// The pooled interval samples as columns (the keys of `"ferrio_intervals"`).
fn intervals_json(rows: &[crate::series::Row]) -> Object {
    let mut c = Object::new();
    let col = |f: &dyn Fn(&crate::series::Row) -> f64| -> Vec<Value> {
        rows.iter().map(|r| Value::Float(f(r))).collect()
    };
    c.arr("bw_bytes", col(&|r| r.bw));
    c.arr("iops", col(&|r| r.iops));
    c.arr("lat_mean_ns", col(&|r| r.lat_mean_ns));
    for (i, p) in crate::series::PERCENTILES.iter().enumerate() {
        c.arr(&format!("lat_p{p}_ns"), col(&|r| r.lat_pct_ns[i] as f64));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(labels: &[&str], bws: &[f64]) -> Row {
        Row {
            labels: labels.iter().map(|s| s.to_string()).collect(),
            job: "j".into(),
            dir: "read",
            runs: bws
                .iter()
                .map(|&bw| Metrics {
                    bw,
                    iops: bw / 4096.0,
                    lat_mean_ns: 1000.0,
                    lat_pct_ns: [900.0, 2000.0, 3000.0],
                })
                .collect(),
            extras: Vec::new(),
            intervals: Vec::new(),
        }
    }

    #[test]
    fn spread_is_the_sample_statistics() {
        let s = Spread::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert!((s.cv_pct - s.stddev / 5.0 * 100.0).abs() < 1e-12);
        assert_eq!(Spread::of(&[3.0]).stddev, 0.0);
    }

    #[test]
    fn unstable_rows_are_flagged_in_every_format() {
        let t = Table {
            axes: vec!["iodepth".into()],
            repeat: 3,
            cv_limit_pct: 5.0,
            rows: vec![
                row(&["1"], &[100e6, 101e6, 99e6]),
                row(&["2"], &[100e6, 150e6, 50e6]),
            ],
            planned_points: 3,
            finished_points: 2,
        };
        let text = render_text(&t);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("| iodepth | job | dir  |  IOPS |"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("|---------|-----|------|------:|"),
            "{text}"
        );
        assert!(lines[2].ends_with("yes |"), "{text}");
        assert!(lines[3].ends_with("UNSTABLE |"), "{text}");
        assert!(text.contains("stopped after 2 of 3 points"));
        let csv = render_csv(&t);
        let l: Vec<&str> = csv.lines().collect();
        assert!(l[0].starts_with("iodepth,job,dir,runs,bw_bytes,bw_bytes_stddev"));
        assert!(l[1].ends_with(",0") && l[2].ends_with(",1"), "{csv}");
        let json = render_json(&t);
        assert!(json.contains("\"unstable\" : 1"), "{json}");
        assert!(json.contains("\"finished_points\" : 2"), "{json}");
    }

    #[test]
    fn extra_statistics_are_columns_after_the_metrics_in_every_format() {
        use crate::extra::{ExtraMerge, ExtraStat};
        let period = |v: f64| {
            vec![ExtraStat::new("pacer_period_ns", "pacer", "period", v)
                .nanos()
                .merged_by(ExtraMerge::Mean)]
        };
        let mut a = row(&["1"], &[100e6, 100e6]);
        a.extras = vec![period(20_000.0), period(30_000.0)];
        // A row whose job published nothing leaves the cells empty.
        let b = row(&["2"], &[100e6, 100e6]);
        let t = Table {
            axes: vec!["iodepth".into()],
            repeat: 2,
            cv_limit_pct: 5.0,
            rows: vec![a, b],
            planned_points: 2,
            finished_points: 2,
        };
        let text = render_text(&t);
        let l: Vec<&str> = text.lines().collect();
        assert!(l[0].ends_with("| stable | pacer period us |"), "{text}");
        assert!(l[2].ends_with("|    yes |            25.0 |"), "{text}");
        assert!(l[3].ends_with("|    yes |                 |"), "{text}");
        let csv = render_csv(&t);
        let l: Vec<&str> = csv.lines().collect();
        assert!(l[0].ends_with(",unstable,pacer_period_ns"), "{csv}");
        assert!(
            l[1].ends_with(",0,25000.000") && l[2].ends_with(",0,"),
            "{csv}"
        );
        let json = render_json(&t);
        assert!(json.contains("\"pacer_period_ns\" : {"), "{json}");
        assert!(json.contains("\"mean\" : 25000.000000"), "{json}");
    }
}
