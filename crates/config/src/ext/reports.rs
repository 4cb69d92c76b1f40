//! Run-wide reporting flags (docs/reports.md): sweeps over option values, repeats,
//! the HTML report, the Prometheus endpoint and `--compare`. The sweep value syntax
//! (lists and ranges) is parsed here, so a bad sweep is refused before anything runs.

use std::path::PathBuf;

/// What the reporting flags ask for. Defaults mean "feature off".
#[derive(Clone, Debug, PartialEq)]
pub struct ReportFlags {
    /// `--sweep=KEY=LIST`, in the order given (the first varies slowest).
    pub sweeps: Vec<SweepAxis>,
    /// `--repeat=N`: run every job (or sweep point) N times.
    pub repeat: u32,
    /// `--settle=T`: pause between sweep points and repeats (milliseconds).
    pub settle_ms: u64,
    /// `--cv-limit=PCT`: a point whose throughput varies more than this across
    /// repeats (coefficient of variation, %) is flagged unstable.
    pub cv_limit_pct: f64,
    /// `--html=FILE`: the self-contained HTML report.
    pub html: Option<PathBuf>,
    /// `--prometheus=ADDR`: serve live metrics at http://ADDR/metrics during the run.
    pub prometheus: Option<String>,
    /// `--prometheus-linger=T`: after the run, keep serving the final values until
    /// one scrape has read them, at most T (milliseconds).
    pub prometheus_linger_ms: u64,
    /// `--compare`: the positional arguments are two JSON reports to compare.
    pub compare: bool,
}

impl Default for ReportFlags {
    fn default() -> Self {
        ReportFlags {
            sweeps: Vec::new(),
            repeat: 1,
            settle_ms: 0,
            cv_limit_pct: 5.0,
            html: None,
            prometheus: None,
            prometheus_linger_ms: 0,
            compare: false,
        }
    }
}

impl ReportFlags {
    /// Whether the run is a series of runs (a sweep, or repeats).
    pub fn is_series(&self) -> bool {
        !self.sweeps.is_empty() || self.repeat > 1
    }
}

/// One swept option and its values, as option text (`bs` → `4k`, `8k`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepAxis {
    pub key: String,
    pub values: Vec<String>,
}

/// Most points one sweep may have (a range typo should not start a week of runs).
pub const MAX_POINTS: usize = 10_000;

/// Parse `KEY=LIST`. LIST is comma-separated items (`|`-separated when a value itself
/// holds commas, as `bs=4k,64k|8k,128k`); an item is a value or a range `LO..HI`,
/// `LO..HI:xF` (multiply by F) or `LO..HI:+S` (add S; the default step is +1). Range
/// ends are integers with an optional binary unit (k, m, g, t); values keep the unit
/// of the range's ends (`4k..1m:x2` → 4k, 8k, ..., 512k, 1m).
pub fn parse_sweep(text: &str) -> Result<SweepAxis, String> {
    let (key, list) = text
        .split_once('=')
        .ok_or_else(|| "KEY=LIST, e.g. iodepth=1,2,4..256:x2".to_string())?;
    let key = key.trim();
    if key.is_empty() {
        return Err("an option name before '='".into());
    }
    let sep = if list.contains('|') { '|' } else { ',' };
    let mut values = Vec::new();
    for item in list.split(sep).map(str::trim) {
        if item.is_empty() {
            return Err(format!(
                "a LIST without empty values (got '{list}'), e.g. iodepth=1,2,4..256:x2"
            ));
        }
        match item.split_once("..") {
            Some((lo, rest)) => values.extend(range(lo, rest)?),
            None => values.push(item.to_string()),
        }
        if values.len() > MAX_POINTS {
            return Err(format!("at most {MAX_POINTS} values"));
        }
    }
    Ok(SweepAxis {
        key: key.to_string(),
        values,
    })
}

enum Step {
    Add(u64),
    Mul(u64),
}

fn range(lo: &str, rest: &str) -> Result<Vec<String>, String> {
    let (hi, step) = match rest.split_once(':') {
        Some((hi, s)) => (hi, Some(s)),
        None => (rest, None),
    };
    let (a, unit_a) = number(lo)?;
    let (b, unit_b) = number(hi)?;
    if a > b {
        return Err(format!("range '{lo}..{hi}' runs backwards"));
    }
    let step = match step.map(str::trim) {
        None => Step::Add(1),
        Some(s) => {
            if let Some(f) = s.strip_prefix(['x', '*']) {
                match number(f)?.0 {
                    f if f >= 2 => Step::Mul(f),
                    _ => return Err(format!("step '{s}': a factor of at least 2")),
                }
            } else {
                match number(s.strip_prefix('+').unwrap_or(s))?.0 {
                    0 => return Err(format!("step '{s}': a step of at least 1")),
                    n => Step::Add(n),
                }
            }
        }
    };
    if matches!(step, Step::Mul(_)) && a == 0 {
        return Err(format!("range '{lo}..{hi}' multiplies from 0"));
    }
    let unit = unit_a.max(unit_b);
    let mut out = Vec::new();
    let mut v = a;
    while v <= b {
        out.push(format_with_unit(v, unit));
        if out.len() > MAX_POINTS {
            return Err(format!("range '{lo}..{hi}': at most {MAX_POINTS} values"));
        }
        v = match step {
            Step::Add(s) => v.checked_add(s),
            Step::Mul(f) => v.checked_mul(f),
        }
        .unwrap_or(u64::MAX);
        if v == u64::MAX {
            break;
        }
    }
    Ok(out)
}

/// An integer with an optional binary unit → (value, unit exponent: 0 none, 1 k, ...).
fn number(text: &str) -> Result<(u64, u32), String> {
    let t = text.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let (digits, exp) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1),
        Some('m') => (&t[..t.len() - 1], 2),
        Some('g') => (&t[..t.len() - 1], 3),
        Some('t') => (&t[..t.len() - 1], 4),
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not an integer (with an optional k, m, g, t)"))?;
    n.checked_mul(1u64 << (10 * exp))
        .map(|v| (v, exp))
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// `v` in the largest unit up to `max_exp` that divides it exactly.
fn format_with_unit(v: u64, max_exp: u32) -> String {
    for exp in (1..=max_exp).rev() {
        let u = 1u64 << (10 * exp);
        if v >= u && v % u == 0 {
            return format!("{}{}", v / u, ['k', 'm', 'g', 't'][exp as usize - 1]);
        }
    }
    v.to_string()
}

/// Every combination of the axes' values, the first axis varying slowest; one
/// (key, value) list per point. No axes: one point with no labels.
pub fn points(axes: &[SweepAxis]) -> Result<Vec<Vec<(String, String)>>, String> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for axis in axes {
        let mut next = Vec::new();
        for p in &out {
            for v in &axis.values {
                let mut q = p.clone();
                q.push((axis.key.clone(), v.clone()));
                next.push(q);
            }
        }
        if next.len() > MAX_POINTS {
            return Err(format!("the sweeps make more than {MAX_POINTS} points"));
        }
        out = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(s: &str) -> Vec<String> {
        parse_sweep(s).unwrap().values
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(
            vals("iodepth=1,2,4..8"),
            ["1", "2", "4", "5", "6", "7", "8"]
        );
        assert_eq!(vals("iodepth=1..256:x2").len(), 9);
        assert_eq!(vals("iodepth=1,2,4..16:x2"), ["1", "2", "4", "8", "16"]);
        assert_eq!(vals("bs=4k..64k:x2"), ["4k", "8k", "16k", "32k", "64k"]);
        assert_eq!(vals("bs=512k..2m:x2"), ["512k", "1m", "2m"]);
        assert_eq!(vals("numjobs=1..8:+3"), ["1", "4", "7"]);
        assert_eq!(vals("rw=read,randread"), ["read", "randread"]);
        assert_eq!(vals("bs=4k,64k|8k,128k"), ["4k,64k", "8k,128k"]);
        assert_eq!(parse_sweep("iodepth=1").unwrap().key, "iodepth");
    }

    #[test]
    fn bad_sweeps_say_why() {
        for (s, want) in [
            ("iodepth", "KEY=LIST"),
            ("=1,2", "option name"),
            ("iodepth=8..1", "backwards"),
            ("iodepth=1..8:x1", "factor"),
            ("iodepth=1..8:+0", "step"),
            ("iodepth=0..8:x2", "from 0"),
            ("iodepth=a..8", "not an integer"),
            ("iodepth=1,,2", "empty"),
            ("iodepth=", "without empty values (got '')"),
            ("iodepth=1..100000", "at most"),
        ] {
            let e = parse_sweep(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    #[test]
    fn points_are_the_cartesian_product_first_axis_slowest() {
        let a = parse_sweep("bs=4k,8k").unwrap();
        let b = parse_sweep("iodepth=1..3").unwrap();
        let p = points(&[a, b]).unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(
            p[1],
            [("bs".into(), "4k".into()), ("iodepth".into(), "2".into())]
        );
        assert_eq!(p[3][0].1, "8k");
        assert_eq!(points(&[]).unwrap(), vec![Vec::new()]);
    }
}
