//! Options: steady-state detection (fio's steadystate, ss_dur, ss_ramp, ss_interval).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::steadystate::parse_criteria;
use crate::values::TimeUnit;

pub const STEADYSTATE: &[OptSpec] = &[
    opt(
        "steadystate",
        K::Special,
        C::Time,
        "Define the criterion and limit to judge when a job has reached steady state: \
         CRITERION:LIMIT, LIMIT absolute (IOPS, bytes/s, latency time) or a percentage of the window \
         mean (iops:2%). Several comma-separated criteria must all hold. ferrio adds latency \
         percentiles (clat_p99:5%, lat_p50_slope:1%), per-direction criteria (write_iops_slope:1%) \
         and SNIA PTS steady state (iops_snia, or iops_snia:20%/10%). See docs/steadystate.md",
        |j, c, v| {
            j.steadystate.criteria = parse_criteria(v, c.kb_base)?;
            Ok(())
        },
    )
    .alias(&["ss"])
    .def("iops_slope:0.01%")
    .vals(&[
        ("iops", "maximum mean deviation of IOPS measurements"),
        ("iops_slope", "slope calculated from IOPS measurements"),
        ("bw", "maximum mean deviation of bandwidth measurements"),
        ("bw_slope", "slope calculated from bandwidth measurements"),
        ("lat", "maximum mean deviation of mean completion latency measurements"),
        ("lat_slope", "slope calculated from mean completion latency measurements"),
        ("clat_pN / lat_pN", "ferrio: a completion/total latency percentile per interval (clat_p99, lat_p99.9), with _slope or _snia"),
        ("read_ / write_ / trim_", "ferrio: prefix: measure that direction only (write_iops_slope)"),
        ("*_snia", "ferrio: SNIA PTS 2.0 steady state: range <= 20% and slope excursion <= 10% of the average"),
    ]),
    opt(
        "steadystate_duration",
        K::Time(TimeUnit::S),
        C::Time,
        "Stop workload upon attaining steady state for specified duration (the rolling window: a multiple of steadystate_check_interval, at least 2 of them; 0 disables steady-state detection)",
        |j, c, v| {
            j.steadystate.duration_us = c.time(v)?;
            Ok(())
        },
    )
    .alias(&["ss_dur"])
    .def("0"),
    opt(
        "steadystate_ramp_time",
        K::Time(TimeUnit::S),
        C::Time,
        "Delay before initiation of data collection for steady state job termination testing",
        |j, c, v| {
            j.steadystate.ramp_us = c.time(v)?;
            Ok(())
        },
    )
    .alias(&["ss_ramp"])
    .def("0"),
    opt(
        "steadystate_check_interval",
        K::Time(TimeUnit::S),
        C::Time,
        "Period of the steady-state measurements (ss_dur must be a multiple of it; each one is a SNIA round)",
        |j, c, v| {
            let t = c.time(v)?;
            if t < 1000 || t % 1000 != 0 {
                return Err("must be a whole number of milliseconds, at least 1".into());
            }
            j.steadystate.interval_us = t;
            Ok(())
        },
    )
    .alias(&["ss_interval"])
    .def("1"),
];
