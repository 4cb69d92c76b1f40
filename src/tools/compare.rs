//! `ferrio --compare BEFORE.json AFTER.json`: "did my change make it faster?"
//!
//! Per job (matched by name) and direction, the change in bandwidth, IOPS, mean and
//! percentile latency, each with a 95 % confidence interval (Welch's t) computed from
//! the per-interval samples: ferrio's `"ferrio_intervals"`, or for a report without
//! them (fio's own JSON) fio's bw/IOPS sample summaries (`bw_mean`, `bw_dev`,
//! `bw_samples`), with no interval for latencies. The verdict follows bandwidth:
//! faster, slower, or no significant difference. `--output-format=json` prints the
//! same as JSON. docs/reports.md.

use ferrio_stats::compare::{mean_sd, welch95, Diff};
use serde_json::{json, Value};
use std::path::Path;

/// One metric's comparison.
struct Metric {
    name: String,
    /// Higher is better (throughput) or worse (latency).
    higher_is_better: bool,
    unit: Unit,
    before: f64,
    after: f64,
    /// None: no samples to compute an interval from.
    diff: Option<Diff>,
}

#[derive(Clone, Copy)]
enum Unit {
    BytesPerSec,
    PerSec,
    Ns,
}

/// One job and direction.
struct Outcome {
    job: String,
    dir: &'static str,
    samples: (usize, usize),
    metrics: Vec<Metric>,
}

const DIRS: [&str; 3] = ["read", "write", "trim"];
const PCTS: [(&str, &str); 4] = [
    ("50", "50.000000"),
    ("90", "90.000000"),
    ("99", "99.000000"),
    ("99.9", "99.900000"),
];

/// Compare and print; the exit code is 0, or 1 when a file cannot be read.
pub fn main(before: &Path, after: &Path, json_out: bool) -> i32 {
    let run = || -> Result<String, String> {
        let (a, b) = (load(before)?, load(after)?);
        let outcomes = compare(&a, &b)?;
        Ok(if json_out {
            render_json(before, after, &outcomes)
        } else {
            render_text(before, after, &outcomes)
        })
    };
    match run() {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(e) => {
            eprintln!("ferrio: --compare: {e}");
            1
        }
    }
}

/// A JSON report: the first document in the file (text before its `{` is skipped, as
/// fio's warnings can precede it).
fn load(p: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
    let start = text
        .find('{')
        .ok_or_else(|| format!("'{}' holds no JSON report", p.display()))?;
    let mut it = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    match it.next() {
        Some(Ok(v)) if v.get("jobs").is_some_and(Value::is_array) => Ok(v),
        // A sweep table (--sweep ... --output-format=json).
        Some(Ok(v)) if v.get("sweep").is_some() && v.get("rows").is_some_and(Value::is_array) => {
            Ok(v)
        }
        Some(Ok(_)) => Err(format!(
            "'{}' is not a fio/ferrio JSON report (no \"jobs\")",
            p.display()
        )),
        Some(Err(e)) => Err(format!("'{}': bad JSON: {e}", p.display())),
        None => Err(format!("'{}' holds no JSON report", p.display())),
    }
}

/// Two sweep tables (`--sweep ... --output-format=json`): rows paired by point, job
/// and direction; each row's pooled interval samples (its runs' summaries otherwise).
fn compare_sweeps(a: &Value, b: &Value) -> Result<Vec<Outcome>, String> {
    let rows = |v: &Value| v["rows"].as_array().cloned().unwrap_or_default();
    let (ra, rb) = (rows(a), rows(b));
    let mut out = Vec::new();
    for x in &ra {
        let Some(y) = rb
            .iter()
            .find(|y| y["point"] == x["point"] && y["job"] == x["job"] && y["dir"] == x["dir"])
        else {
            continue;
        };
        let Some(dir) = DIRS.iter().find(|d| x["dir"] == **d) else {
            continue;
        };
        let point: Vec<String> = x["point"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
            .collect();
        let name = format!("{} [{}]", x["job"].as_str().unwrap_or(""), point.join(" "));
        out.push(compare_dir(
            &name,
            dir,
            (&as_dir(x), x.get("intervals")),
            (&as_dir(y), y.get("intervals")),
        ));
    }
    if out.is_empty() {
        return Err("the two sweeps have no point, job and direction in common".into());
    }
    Ok(out)
}

/// A sweep row in the shape of a fio direction object, for [`compare_dir`]'s fallbacks.
fn as_dir(row: &Value) -> Value {
    let m = |k: &str, s: &str| row[k][s].as_f64().unwrap_or(0.0);
    let mut pct = serde_json::Map::new();
    for (p, key) in [
        ("50", "50.000000"),
        ("99", "99.000000"),
        ("99.9", "99.900000"),
    ] {
        pct.insert(key.into(), json!(m(&format!("lat_p{p}_ns"), "mean")));
    }
    json!({
        "io_bytes": 1,
        "bw_mean": m("bw_bytes", "mean") / 1024.0,
        "bw_dev": m("bw_bytes", "stddev") / 1024.0,
        "bw_samples": row["runs"],
        "iops_mean": m("iops", "mean"),
        "iops_stddev": m("iops", "stddev"),
        "iops_samples": row["runs"],
        "lat_ns": {"N": 1, "mean": m("lat_mean_ns", "mean"), "percentile": pct},
    })
}

/// Jobs paired by name (the k-th job of a name with the k-th of the same name).
fn compare(a: &Value, b: &Value) -> Result<Vec<Outcome>, String> {
    match (a.get("sweep").is_some(), b.get("sweep").is_some()) {
        (true, true) => return compare_sweeps(a, b),
        (false, false) => {}
        _ => {
            return Err(
                "one report is a sweep table and the other a run: compare like with like".into(),
            )
        }
    }
    let jobs = |v: &Value| -> Vec<(usize, String)> {
        v["jobs"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, j)| (i, j["jobname"].as_str().unwrap_or("").to_string()))
            .collect()
    };
    let (ja, jb) = (jobs(a), jobs(b));
    let mut used = vec![false; jb.len()];
    let mut out = Vec::new();
    for (ia, name) in &ja {
        let Some(k) = (0..jb.len()).find(|&k| !used[k] && jb[k].1 == *name) else {
            continue;
        };
        used[k] = true;
        let ib = jb[k].0;
        for dir in DIRS {
            let (da, db) = (&a["jobs"][ia][dir], &b["jobs"][ib][dir]);
            if num(&da["io_bytes"]) == 0.0 || num(&db["io_bytes"]) == 0.0 {
                continue;
            }
            let (sa, sb) = (intervals(a, *ia, dir), intervals(b, ib, dir));
            out.push(compare_dir(name, dir, (da, sa), (db, sb)));
        }
    }
    if out.is_empty() {
        return Err("the two reports have no job and direction in common that did I/O".into());
    }
    Ok(out)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// The `"ferrio_intervals"` columns of job `i`, direction `dir`, if the report has them.
fn intervals<'a>(doc: &'a Value, i: usize, dir: &str) -> Option<&'a Value> {
    doc.get("ferrio_intervals")?
        .as_array()?
        .iter()
        .find(|s| s["job"].as_u64() == Some(i as u64))?
        .get(dir)
}

fn column(s: Option<&Value>, key: &str) -> Option<Vec<f64>> {
    let c: Vec<f64> = s?
        .get(key)?
        .as_array()?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    (c.len() >= 2).then_some(c)
}

/// Mean, sd and count of a column.
fn summary(xs: &[f64]) -> (f64, f64, u64) {
    let (m, s) = mean_sd(xs);
    (m, s, xs.len() as u64)
}

fn compare_dir(
    job: &str,
    dir: &'static str,
    (da, sa): (&Value, Option<&Value>),
    (db, sb): (&Value, Option<&Value>),
) -> Outcome {
    let mut metrics = Vec::new();
    let both = |key: &str| Some((column(sa, key)?, column(sb, key)?));
    // Throughput: the interval samples, else fio's sample summaries.
    for (name, key, fio, scale, unit) in [
        (
            "bandwidth",
            "bw_bytes",
            ("bw_mean", "bw_dev", "bw_samples"),
            1024.0,
            Unit::BytesPerSec,
        ),
        (
            "IOPS",
            "iops",
            ("iops_mean", "iops_stddev", "iops_samples"),
            1.0,
            Unit::PerSec,
        ),
    ] {
        let diff = match both(key) {
            Some((x, y)) => welch95(summary(&x), summary(&y)),
            None => {
                let s = |d: &Value| {
                    let n = d[fio.2].as_u64().unwrap_or(0);
                    (num(&d[fio.0]) * scale, num(&d[fio.1]) * scale, n)
                };
                welch95(s(da), s(db))
            }
        };
        let (before, after) = match diff {
            Some(d) => (d.before, d.after),
            None => (num(&da[key]), num(&db[key])),
        };
        metrics.push(Metric {
            name: name.into(),
            higher_is_better: true,
            unit,
            before,
            after,
            diff,
        });
    }
    // Latency: total latency where reported, else completion latency.
    let lat = |d: &Value| -> Value {
        let l = &d["lat_ns"];
        if num(&l["N"]) > 0.0 && l.get("percentile").is_some() {
            l.clone()
        } else {
            d["clat_ns"].clone()
        }
    };
    let (la, lb) = (lat(da), lat(db));
    let mut lat_metric = |name: String, key: String, whole: (f64, f64)| {
        let diff = both(&key).and_then(|(x, y)| welch95(summary(&x), summary(&y)));
        let (before, after) = diff.map_or(whole, |d| (d.before, d.after));
        metrics.push(Metric {
            name,
            higher_is_better: false,
            unit: Unit::Ns,
            before,
            after,
            diff,
        });
    };
    lat_metric(
        "mean latency".into(),
        "lat_mean_ns".into(),
        (num(&la["mean"]), num(&lb["mean"])),
    );
    for (p, key) in PCTS {
        let whole = (num(&la["percentile"][key]), num(&lb["percentile"][key]));
        lat_metric(format!("p{p} latency"), format!("lat_p{p}_ns"), whole);
    }
    let count = |s: Option<&Value>| column(s, "bw_bytes").map_or(0, |c| c.len());
    Outcome {
        job: job.to_string(),
        dir,
        samples: (count(sa), count(sb)),
        metrics,
    }
}

impl Metric {
    /// The plain word for this metric's change.
    fn word(&self) -> &'static str {
        match (self.diff.map(|d| d.sign()), self.higher_is_better) {
            (None, _) => "no interval samples",
            (Some(0), _) => "no significant difference",
            (Some(1), true) => "faster",
            (Some(_), true) => "slower",
            (Some(1), false) => "higher (worse)",
            (Some(_), false) => "lower (better)",
        }
    }
}

impl Outcome {
    /// The verdict: bandwidth's.
    fn verdict(&self) -> &'static str {
        match self.metrics[0].diff.map(|d| d.sign()) {
            None => "undetermined (too few samples for an interval)",
            Some(1) => "faster",
            Some(-1) => "slower",
            Some(_) => "no significant difference",
        }
    }
}

fn show(v: f64, u: Unit) -> String {
    match u {
        Unit::BytesPerSec => format!("{:.1} MiB/s", v / 1048576.0),
        Unit::PerSec => format!("{v:.0}"),
        Unit::Ns if v >= 1e6 => format!("{:.2} ms", v / 1e6),
        Unit::Ns => format!("{:.1} us", v / 1e3),
    }
}

fn pct(x: f64) -> String {
    format!("{:+.2}%", x * 100.0)
}

fn render_text(before: &Path, after: &Path, outcomes: &[Outcome]) -> String {
    let mut s = format!(
        "before: {}\nafter:  {}\n(95% confidence intervals from per-interval samples)\n",
        before.display(),
        after.display()
    );
    for o in outcomes {
        let bw = &o.metrics[0];
        // Without an interval (too few samples) the change alone, never "NaN%".
        let change = match bw.diff {
            Some(d) => {
                let (r, lo, hi) = d.relative();
                format!("{}, 95% CI {} to {}", pct(r), pct(lo), pct(hi))
            }
            None if bw.before != 0.0 => {
                format!("{}, no interval", pct(bw.after / bw.before - 1.0))
            }
            None => "no interval".to_string(),
        };
        s.push_str(&format!(
            "\njob '{}' {}: {} (bandwidth {change}; {} vs {} intervals)\n",
            o.job,
            o.dir,
            o.verdict().to_uppercase(),
            o.samples.0,
            o.samples.1
        ));
        s.push_str(&format!(
            "  {:<14} {:>14} {:>14} {:>9}  {:<20} {}\n",
            "metric", "before", "after", "change", "95% CI", ""
        ));
        for m in &o.metrics {
            let change = if m.before != 0.0 {
                pct(m.after / m.before - 1.0)
            } else {
                "-".to_string()
            };
            let ci = m.diff.map_or("-".to_string(), |d| {
                let (_, lo, hi) = d.relative();
                format!("[{}, {}]", pct(lo), pct(hi))
            });
            s.push_str(&format!(
                "  {:<14} {:>14} {:>14} {:>9}  {:<20} {}\n",
                m.name,
                show(m.before, m.unit),
                show(m.after, m.unit),
                change,
                ci,
                m.word()
            ));
        }
    }
    s
}

fn render_json(before: &Path, after: &Path, outcomes: &[Outcome]) -> String {
    let items: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            let metrics: Vec<Value> = o
                .metrics
                .iter()
                .map(|m| {
                    let rel = m.diff.map(|d| d.relative());
                    json!({
                        "metric": m.name,
                        "before": m.before,
                        "after": m.after,
                        "change_pct": (m.before != 0.0).then(|| (m.after / m.before - 1.0) * 100.0),
                        "ci95_low_pct": rel.map(|r| r.1 * 100.0),
                        "ci95_high_pct": rel.map(|r| r.2 * 100.0),
                        "verdict": m.word(),
                    })
                })
                .collect();
            json!({
                "job": o.job,
                "rw": o.dir,
                "intervals": [o.samples.0, o.samples.1],
                "verdict": o.verdict(),
                "metrics": metrics,
            })
        })
        .collect();
    let doc = json!({
        "before": before.display().to_string(),
        "after": after.display().to_string(),
        "comparisons": items,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
