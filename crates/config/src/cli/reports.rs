//! The reporting flags' rows of the one flag table ([`super::flags::FLAGS`] lists
//! them) and what they turn a command line into: a sweep (one [`Invocation`] per
//! point, each job with the point's options appended), or a comparison of two reports.

use super::row::{flag, Arg, Flag};
use super::{flag_err, Command, ConfigError, Invocation, Raw};
use crate::builder::Overrides;
use crate::error::Loc;
use crate::ext::reports::{parse_sweep, points};
use crate::jobfile::{RawOpt, Section};
use crate::session::assemble;
use crate::table;
use crate::values::{parse_time, TimeUnit};
use std::path::PathBuf;

pub(super) const SWEEP: Flag = flag(
    &["sweep"],
    None,
    Arg::Value,
    "KEY=LIST",
    "ferrio: run the jobs once per value of job option KEY\n(LIST: 1,2,4 or ranges 1..8, 4k..1m:x2, 0..64:+8;\nrepeatable: every combination); prints one table",
    |r, v| {
        let v = v.unwrap_or("");
        let axis = parse_sweep(v).map_err(|e| flag_err("sweep", v, &e))?;
        if table::find(&axis.key).is_none() {
            return Err(flag_err("sweep", v, "KEY=LIST where KEY is a job option"));
        }
        if r.flags.reports.sweeps.iter().any(|a| a.key == axis.key) {
            return Err(flag_err("sweep", v, "each option swept once"));
        }
        r.flags.reports.sweeps.push(axis);
        Ok(())
    },
);

pub(super) const REPEAT: Flag = flag(
    &["repeat"],
    None,
    Arg::Value,
    "N",
    "ferrio: run every job (or sweep point) N times and\nreport mean, stddev, min/max and CV across runs",
    |r, v| {
        let v = v.unwrap_or("");
        r.flags.reports.repeat = match v.trim().parse::<u32>() {
            Ok(n) if (1..=1000).contains(&n) => n,
            _ => return Err(flag_err("repeat", v, "an integer from 1 to 1000")),
        };
        Ok(())
    },
);

pub(super) const SETTLE: Flag = flag(
    &["settle"],
    None,
    Arg::Value,
    "T",
    "ferrio: pause T between sweep points and repeats\n(seconds by default; default 0)",
    |r, v| {
        let v = v.unwrap_or("");
        let us = parse_time(v, TimeUnit::S).map_err(|e| flag_err("settle", v, &e))?;
        r.flags.reports.settle_ms = us / 1000;
        Ok(())
    },
);

pub(super) const CV_LIMIT: Flag = flag(
    &["cv-limit"],
    None,
    Arg::Value,
    "PCT",
    "ferrio: flag a point unstable when its throughput's\ncoefficient of variation across repeats exceeds PCT\n(default 5)",
    |r, v| {
        let v = v.unwrap_or("");
        r.flags.reports.cv_limit_pct = match v.trim().trim_end_matches('%').parse::<f64>() {
            Ok(p) if p > 0.0 && p.is_finite() => p,
            _ => return Err(flag_err("cv-limit", v, "a positive percentage")),
        };
        Ok(())
    },
);

pub(super) const HTML: Flag = flag(
    &["html"],
    None,
    Arg::Value,
    "FILE",
    "ferrio: also write a self-contained HTML report\n(charts; no network needed to view it)",
    |r, v| {
        let v = v.unwrap_or("");
        if v.is_empty() {
            return Err(flag_err("html", v, "a file name"));
        }
        r.flags.reports.html = Some(PathBuf::from(v));
        Ok(())
    },
);

pub(super) const PROMETHEUS: Flag = flag(
    &["prometheus"],
    None,
    Arg::Value,
    "ADDR",
    "ferrio: serve live metrics for Prometheus at\nhttp://ADDR/metrics during the run (e.g. 127.0.0.1:9269)",
    |r, v| {
        let v = v.unwrap_or("");
        if v.parse::<std::net::SocketAddr>().is_err() {
            return Err(flag_err("prometheus", v, "IP:PORT, e.g. 127.0.0.1:9269"));
        }
        r.flags.reports.prometheus = Some(v.to_string());
        Ok(())
    },
);

pub(super) const PROMETHEUS_LINGER: Flag = flag(
    &["prometheus-linger"],
    None,
    Arg::Value,
    "T",
    "ferrio: after the run, serve the final values until\na scrape has read them, at most T (seconds by default)",
    |r, v| {
        let v = v.unwrap_or("");
        let us = parse_time(v, TimeUnit::S).map_err(|e| flag_err("prometheus-linger", v, &e))?;
        r.flags.reports.prometheus_linger_ms = us / 1000;
        Ok(())
    },
);

pub(super) const COMPARE: Flag = flag(
    &["compare"],
    None,
    Arg::None,
    "",
    "ferrio: compare two JSON reports given as arguments\n(ferrio --compare before.json after.json)",
    |r, _| {
        r.flags.reports.compare = true;
        Ok(())
    },
);

/// One point of a sweep: its (option, value) labels and the run it makes.
#[derive(Clone, Debug)]
pub struct SweepPoint {
    pub labels: Vec<(String, String)>,
    pub inv: Invocation,
}

/// `--compare A B`: the two report files.
pub(super) fn compare(raw: &Raw) -> Result<Command, ConfigError> {
    match raw.files.as_slice() {
        [a, b] if raw.sections.is_empty() => Ok(Command::Compare {
            before: a.clone(),
            after: b.clone(),
            json: raw.flags.output_formats.iter().any(|f| {
                matches!(f, super::OutputFormat::Json | super::OutputFormat::JsonPlus)
            }),
        }),
        _ => Err(ConfigError(
            "--compare takes two JSON reports and nothing else: ferrio --compare before.json after.json"
                .into(),
        )),
    }
}

/// A sweep or repeated run: one [`Invocation`] per point, every job section (from
/// the command line and the job files) ending with the point's options, so they
/// override what the job says. Every point is validated before anything runs.
pub(super) fn sweep(
    raw: &Raw,
    files: &[Vec<Section>],
    ov: &Overrides,
) -> Result<Vec<SweepPoint>, ConfigError> {
    let labels =
        points(&raw.flags.reports.sweeps).map_err(|e| ConfigError(format!("--sweep: {e}")))?;
    let mut out = Vec::new();
    for labels in labels {
        let with = |sections: &[Section]| -> Vec<Section> {
            let mut s = sections.to_vec();
            for sec in s.iter_mut().filter(|s| !s.is_global()) {
                for (k, v) in &labels {
                    sec.options.push(RawOpt {
                        key: k.clone(),
                        value: Some(v.clone()),
                        loc: Loc::CommandLine,
                    });
                }
            }
            s
        };
        let cli = with(&raw.sections);
        let files: Vec<Vec<Section>> = files.iter().map(|f| with(f)).collect();
        let a = assemble(&cli, &files, &raw.only, ov).map_err(|e| {
            let at: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            ConfigError(format!("sweep point {}: {e}", at.join(" ")))
        })?;
        let mut jobs = a.jobs;
        super::debug::mark_jobs(&raw.flags, &mut jobs);
        super::profile::mark_jobs(&raw.profile, &mut jobs);
        out.push(SweepPoint {
            labels,
            inv: Invocation {
                flags: raw.flags.clone(),
                jobs,
                global_options: a.global_options,
            },
        });
    }
    Ok(out)
}
