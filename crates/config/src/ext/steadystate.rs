//! Steady-state detection (steadystate=, ss_dur=, ss_ramp=, ss_interval=).
//!
//! fio's criteria (`iops`, `iops_slope`, `bw`, `bw_slope`, `lat`, `lat_slope`, each
//! with an absolute or a percentage threshold) plus ferrio's extensions, written in
//! the same `criterion:threshold` form:
//!
//! * latency percentiles: `clat_p99:5%`, `lat_p50_slope:1%`, `clat_p99.9:200us`;
//! * per direction: a `read_`, `write_` or `trim_` prefix (`write_iops_slope:1%`);
//! * SNIA PTS steady state: `iops_snia` (range ≤ 20 % and slope excursion ≤ 10 % of
//!   the window average), or `iops_snia:25%/12%` for other limits;
//! * several criteria at once, comma-separated (`iops:2%,clat_p99_slope:1%`): the
//!   window is steady when all of them hold. The first one is the one fio's output
//!   fields (`ss`, `criterion`, `max_deviation`, `slope`) describe.

use crate::values::{parse_size, parse_time, TimeUnit};

/// What a criterion tracks, one value per check interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean completion latency over the interval, ns (fio's `lat` criteria).
    Lat,
    /// A completion-latency percentile over the interval, ns (`clat_pN`).
    ClatPct(f64),
    /// A total-latency percentile over the interval, ns (`lat_pN`).
    LatPct(f64),
}

/// How the window of values is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Test {
    /// Every value within `limit` of the window mean (fio's `iops`, `bw`).
    Deviation,
    /// The least-squares slope below `limit` (fio's `*_slope`).
    Slope,
    /// SNIA PTS 2.0 §2.1.24: max − min ≤ `range_pct` % of the average, and the
    /// least-squares line's excursion across the window ≤ `slope_pct` % of it.
    Snia { range_pct: f64, slope_pct: f64 },
}

/// One steady-state criterion.
#[derive(Clone, Debug, PartialEq)]
pub struct Criterion {
    pub metric: Metric,
    pub test: Test,
    /// Threshold: a percentage of the window mean when `pct`, else an absolute value
    /// (IOPS, bytes/s or ns). Unused by [`Test::Snia`].
    pub limit: f64,
    pub pct: bool,
    /// Only this direction (0 read, 1 write, 2 trim); None: all directions together.
    pub dir: Option<usize>,
}

impl Criterion {
    /// fio's spelling of the criterion name: `iops`, `bw_slope`, `write_clat_p99_slope`, ...
    pub fn name(&self) -> String {
        let mut s = String::new();
        if let Some(d) = self.dir {
            s.push_str(["read_", "write_", "trim_"][d]);
        }
        match self.metric {
            Metric::Iops => s.push_str("iops"),
            Metric::Bw => s.push_str("bw"),
            Metric::Lat => s.push_str("lat"),
            Metric::ClatPct(p) => s.push_str(&format!("clat_p{}", fmt_pct(p))),
            Metric::LatPct(p) => s.push_str(&format!("lat_p{}", fmt_pct(p))),
        }
        match self.test {
            Test::Deviation => {}
            Test::Slope => s.push_str("_slope"),
            Test::Snia { .. } => s.push_str("_snia"),
        }
        s
    }

    /// Whether fio 3.x knows this criterion (and so its JSON fields mean the same).
    pub fn fio_compatible(&self) -> bool {
        self.dir.is_none()
            && matches!(self.metric, Metric::Iops | Metric::Bw | Metric::Lat)
            && matches!(self.test, Test::Deviation | Test::Slope)
    }

    /// Whether the criterion needs per-interval latency histograms.
    pub fn needs_histograms(&self) -> bool {
        matches!(self.metric, Metric::ClatPct(_) | Metric::LatPct(_))
    }
}

fn fmt_pct(p: f64) -> String {
    let s = format!("{p}");
    s
}

/// Steady-state detection options of one job. Defaults are fio's: off (duration 0),
/// criterion `iops_slope:0.01%`, checked every second, no ramp.
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyStateSpec {
    /// ss_dur in microseconds; 0 disables steady-state detection.
    pub duration_us: u64,
    /// ss_ramp in microseconds: time after the job's start (after ramp_time) before
    /// measurements enter the window.
    pub ramp_us: u64,
    /// ss_interval in microseconds: the length of one measurement.
    pub interval_us: u64,
    /// The criteria; all must hold. Never empty.
    pub criteria: Vec<Criterion>,
}

impl Default for SteadyStateSpec {
    fn default() -> Self {
        SteadyStateSpec {
            duration_us: 0,
            ramp_us: 0,
            interval_us: 1_000_000,
            criteria: vec![Criterion {
                metric: Metric::Iops,
                test: Test::Slope,
                limit: 0.01,
                pct: true,
                dir: None,
            }],
        }
    }
}

impl SteadyStateSpec {
    /// Whether steady-state detection is on.
    pub fn enabled(&self) -> bool {
        self.duration_us > 0
    }

    /// Number of measurements in the window (ss_dur / ss_interval).
    pub fn intervals(&self) -> usize {
        (self.duration_us / self.interval_us.max(1)) as usize
    }

    /// The window checks fio and ferrio make when a job starts: a whole number of
    /// intervals, and at least two of them.
    pub fn check(&self) -> Result<(), String> {
        if !self.enabled() {
            return Ok(());
        }
        if self.interval_us == 0 {
            return Err("steadystate_check_interval must be positive".into());
        }
        if self.duration_us % self.interval_us != 0 {
            return Err(format!(
                "steadystate_duration ({} us) must be a multiple of steadystate_check_interval ({} us)",
                self.duration_us, self.interval_us
            ));
        }
        // One measurement has no slope (0/0: fio 3.33 prints -nan and calls it
        // attained) and no deviation (always 0, attained at once): fio 3.35 and
        // later refuse such a window for every criterion, and so does ferrio.
        let n = self.intervals();
        if n < 2 {
            return Err(format!(
                "steadystate_duration ({} us) must span at least 2 steadystate_check_interval windows \
                 ({} us each): one measurement has no slope and no deviation",
                self.duration_us, self.interval_us
            ));
        }
        Ok(())
    }
}

/// Parse a `steadystate=` value: one or more comma-separated `criterion:threshold`.
/// `kb_base` applies to bandwidth thresholds (`bw:4k`).
pub fn parse_criteria(text: &str, kb_base: u32) -> Result<Vec<Criterion>, String> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        out.push(parse_one(part, kb_base)?);
    }
    if out.is_empty() {
        return Err("no steady-state criterion given".into());
    }
    Ok(out)
}

fn parse_one(text: &str, kb_base: u32) -> Result<Criterion, String> {
    let (name, threshold) = match text.split_once(':') {
        Some((n, t)) => (n.trim().to_ascii_lowercase(), Some(t.trim())),
        None => (text.trim().to_ascii_lowercase(), None),
    };
    let mut rest = name.as_str();
    let mut dir = None;
    for (i, p) in ["read_", "write_", "trim_"].iter().enumerate() {
        if let Some(r) = rest.strip_prefix(p) {
            dir = Some(i);
            rest = r;
            break;
        }
    }
    let mut test = Test::Deviation;
    if let Some(r) = rest.strip_suffix("_slope") {
        test = Test::Slope;
        rest = r;
    } else if let Some(r) = rest.strip_suffix("_snia") {
        test = Test::Snia {
            range_pct: 20.0,
            slope_pct: 10.0,
        };
        rest = r;
    }
    let metric = match rest {
        "iops" => Metric::Iops,
        "bw" => Metric::Bw,
        "lat" => Metric::Lat,
        _ => {
            let (kind, p) = if let Some(p) = rest.strip_prefix("clat_p") {
                (0, p)
            } else if let Some(p) = rest.strip_prefix("lat_p") {
                (1, p)
            } else {
                return Err(format!(
                    "unknown steady-state criterion '{name}' (iops, bw, lat, clat_pN, lat_pN; \
                     optional read_/write_/trim_ prefix, _slope or _snia suffix)"
                ));
            };
            let p: f64 = p
                .parse()
                .map_err(|_| format!("malformed percentile in '{name}'"))?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(format!("percentile {p} in '{name}' out of range (0, 100]"));
            }
            if kind == 0 {
                Metric::ClatPct(p)
            } else {
                Metric::LatPct(p)
            }
        }
    };
    if let Test::Snia { .. } = test {
        let (range_pct, slope_pct) = match threshold {
            None | Some("") => (20.0, 10.0),
            Some(t) => {
                let (a, b) = t
                    .split_once('/')
                    .ok_or("SNIA limits are written range%/slope% (e.g. 20%/10%)")?;
                (pct_value(a)?, pct_value(b)?)
            }
        };
        return Ok(Criterion {
            metric,
            test: Test::Snia {
                range_pct,
                slope_pct,
            },
            limit: range_pct,
            pct: true,
            dir,
        });
    }
    let t = threshold
        .filter(|t| !t.is_empty())
        .ok_or("steadystate threshold must be specified in addition to criterion")?;
    let (limit, pct) = if let Some(p) = t.strip_suffix('%') {
        (pct_number(p)?, true)
    } else {
        let v = match metric {
            Metric::Iops => t
                .parse::<f64>()
                .map_err(|_| format!("malformed IOPS threshold '{t}'"))?,
            Metric::Bw => parse_size(t, kb_base)? as f64,
            // fio: a latency threshold is a time, nanoseconds without a unit.
            _ => parse_lat(t)? as f64,
        };
        (v, false)
    };
    if limit.is_nan() || limit < 0.0 || !limit.is_finite() {
        return Err(format!("bad steadystate threshold '{t}'"));
    }
    Ok(Criterion {
        metric,
        test,
        limit,
        pct,
        dir,
    })
}

fn pct_number(t: &str) -> Result<f64, String> {
    t.trim()
        .parse::<f64>()
        .map_err(|_| format!("could not parse steadystate threshold percentage '{t}'"))
}

fn pct_value(t: &str) -> Result<f64, String> {
    let t = t.trim();
    pct_number(t.strip_suffix('%').unwrap_or(t))
}

/// A latency threshold in ns: `500` (ns), `20us`, `1ms`, `1s`.
fn parse_lat(t: &str) -> Result<u64, String> {
    let s = t.trim().to_ascii_lowercase();
    if let Some(n) = s.strip_suffix("ns").or_else(|| s.strip_suffix("nsec")) {
        return n
            .trim()
            .parse()
            .map_err(|_| format!("malformed latency threshold '{t}'"));
    }
    if s.chars().all(|c| c.is_ascii_digit()) {
        return s
            .parse()
            .map_err(|_| format!("malformed latency threshold '{t}'"));
    }
    Ok(parse_time(&s, TimeUnit::Us)?.saturating_mul(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_criteria() {
        let c = parse_criteria("iops:2%", 1024).unwrap();
        assert_eq!(
            c,
            vec![Criterion {
                metric: Metric::Iops,
                test: Test::Deviation,
                limit: 2.0,
                pct: true,
                dir: None
            }]
        );
        let c = &parse_criteria("bw_slope:4k", 1024).unwrap()[0];
        assert_eq!(
            (c.metric, c.test, c.limit, c.pct),
            (Metric::Bw, Test::Slope, 4096.0, false)
        );
        let c = &parse_criteria("bw_slope:4k", 1000).unwrap()[0];
        assert_eq!(c.limit, 4000.0);
        let c = &parse_criteria("iops_slope:0.1", 1024).unwrap()[0];
        assert_eq!((c.limit, c.pct), (0.1, false));
        let c = &parse_criteria("lat:20us", 1024).unwrap()[0];
        assert_eq!((c.metric, c.limit), (Metric::Lat, 20_000.0));
        let c = &parse_criteria("lat_slope:500", 1024).unwrap()[0];
        assert_eq!((c.test, c.limit), (Test::Slope, 500.0));
        assert!(parse_criteria("iops", 1024).is_err());
        assert!(parse_criteria("iopz:1%", 1024).is_err());
        assert!(parse_criteria("bw:x%", 1024).is_err());
    }

    #[test]
    fn extensions() {
        let c = parse_criteria(
            "write_iops_slope:1%, read_clat_p99.9:5%,lat_p50_slope:200ns",
            1024,
        )
        .unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[0].dir, c[0].metric, c[0].test),
            (Some(1), Metric::Iops, Test::Slope)
        );
        assert_eq!(c[0].name(), "write_iops_slope");
        assert_eq!((c[1].dir, c[1].metric), (Some(0), Metric::ClatPct(99.9)));
        assert_eq!(c[1].name(), "read_clat_p99.9");
        assert_eq!(
            (c[2].metric, c[2].limit, c[2].pct),
            (Metric::LatPct(50.0), 200.0, false)
        );
        let s = &parse_criteria("iops_snia", 1024).unwrap()[0];
        assert_eq!(
            s.test,
            Test::Snia {
                range_pct: 20.0,
                slope_pct: 10.0
            }
        );
        let s = &parse_criteria("bw_snia:30%/15%", 1024).unwrap()[0];
        assert_eq!(
            s.test,
            Test::Snia {
                range_pct: 30.0,
                slope_pct: 15.0
            }
        );
        assert!(parse_criteria("clat_p0:1%", 1024).is_err());
        assert!(parse_criteria("clat_p101:1%", 1024).is_err());
    }

    #[test]
    fn window_checks() {
        let mut s = SteadyStateSpec {
            duration_us: 10_000_000,
            ..Default::default()
        };
        assert_eq!(s.intervals(), 10);
        assert!(s.check().is_ok());
        s.interval_us = 3_000_000;
        assert!(s.check().is_err());
        s.interval_us = 10_000_000;
        let e = s.check().unwrap_err(); // a slope over one point
        assert!(e.contains("must span at least 2"), "{e}");
        s.criteria[0].test = Test::Deviation;
        assert!(s.check().is_err()); // a deviation over one point (fio >= 3.35)
        s.interval_us = 5_000_000;
        assert!(s.check().is_ok());
    }

    #[test]
    fn a_threshold_may_be_zero_but_not_negative() {
        assert!(parse_criteria("iops:0", 1024).is_ok());
        let e = parse_criteria("iops:-5", 1024).unwrap_err();
        assert!(e.contains("bad steadystate threshold '-5'"), "{e}");
    }
}
