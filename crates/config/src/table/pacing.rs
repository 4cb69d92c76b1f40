//! Options: pacing — rate limits and think time (docs/pacing.md).

use super::{deprecated, opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::ext::pacing::{RateProcess, ThinkBlocks};
use crate::values::list::{per_direction, per_direction_numbers};
use crate::values::TimeUnit;

/// A read,write,trim value; an empty slot is 0 (no limit), as in fio.
fn per_dir(c: &Ctx, v: &str, size: bool) -> Result<[u64; 3], String> {
    let mut out = [0; 3];
    for (slot, part) in out.iter_mut().zip(per_direction_numbers(v)?) {
        if let Some(p) = part {
            *slot = if size { c.size(p)? } else { c.uint(p)? };
        }
    }
    Ok(out)
}

/// A pacer time: ns resolution (`22.8us`), µs when no unit is given.
fn pacer_ns(v: &str) -> Result<u64, String> {
    Ok(crate::ext::sim::parse_duration_ns(v)?.round() as u64)
}

pub const PACING: &[OptSpec] = &[
    opt("rate", K::PerDirSize, C::Pacing, "Cap the bandwidth (bytes/s), per direction: rate=1m, rate=1m,500k, rate=,500k (writes only)", |j, c, v| {
        j.pacing.rate = per_dir(c, v, true)?;
        Ok(())
    }),
    opt("rate_min", K::PerDirSize, C::Pacing, "Job must meet this bandwidth (bytes/s) over every rate_cycle or it is stopped with an error", |j, c, v| {
        j.pacing.rate_min = per_dir(c, v, true)?;
        Ok(())
    })
    .alias(&["ratemin"]),
    opt("rate_iops", K::PerDirInt, C::Pacing, "Cap the I/Os per second, per direction (converted to bytes/s with the smallest block size, as fio)", |j, c, v| {
        j.pacing.rate_iops = per_dir(c, v, false)?;
        Ok(())
    }),
    opt("rate_iops_min", K::PerDirInt, C::Pacing, "Job must meet this many I/Os per second over every rate_cycle or it is stopped with an error", |j, c, v| {
        j.pacing.rate_iops_min = per_dir(c, v, false)?;
        Ok(())
    }),
    opt("rate_process", K::Choice, C::Pacing, "How paced I/Os are spaced in time", |j, c, v| {
        j.pacing.process = match c.choice(v)? {
            "poisson" => RateProcess::Poisson,
            _ => RateProcess::Linear,
        };
        Ok(())
    })
    .def("linear")
    .vals(&[("linear", "Linear rate of IO"), ("poisson", "Rate follows Poisson process")]),
    opt("rate_cycle", K::Int, C::Pacing, "Window for the rate_min / rate_iops_min checks (msec)", |j, c, v| {
        j.pacing.cycle_ms = c.uint(v)?;
        Ok(())
    })
    .alias(&["ratecycle"])
    .def("1000"),
    opt("rate_ignore_thinktime", K::Bool, C::Pacing, "Rated IO ignores thinktime settings: after a think time, catch up to the rate", |j, c, v| {
        j.pacing.ignore_thinktime = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("thinkcycles", K::Int, C::Pacing, "Busy-loop this many iterations (fio's 'cycles': one nop each) after each I/O before the next, as work an application does (fio 3.37); apart from thinktime", |j, c, v| {
        j.pacing.thinkcycles = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("thinktime", K::Time(TimeUnit::Us), C::Pacing, "Idle time between IO buffers (usec): pause this long after every thinktime_blocks I/Os", |j, c, v| {
        j.pacing.thinktime_us = c.time(v)?;
        Ok(())
    })
    .def("0"),
    opt("thinktime_spin", K::Time(TimeUnit::Us), C::Pacing, "Start think time by spinning this amount (usec); the rest of thinktime sleeps", |j, c, v| {
        j.pacing.thinktime_spin_us = c.time(v)?;
        Ok(())
    })
    .def("0"),
    opt("thinktime_blocks", K::Int, C::Pacing, "IO buffer period between 'thinktime' (1 when not given; given explicitly, it also counts with thinktime_iotime)", |j, c, v| {
        j.pacing.thinktime_blocks = c.uint(v)?;
        j.pacing.thinktime_blocks_set = true;
        Ok(())
    }),
    opt("thinktime_blocks_type", K::Choice, C::Pacing, "How thinktime_blocks takes effect", |j, c, v| {
        j.pacing.blocks_type = match c.choice(v)? {
            "issue" => ThinkBlocks::Issue,
            _ => ThinkBlocks::Complete,
        };
        Ok(())
    })
    .def("complete")
    .vals(&[
        ("complete", "thinktime_blocks takes effect at the completion side"),
        ("issue", "thinktime_blocks takes effect at the issue side"),
    ]),
    opt("thinktime_iotime", K::Time(TimeUnit::S), C::Pacing, "IO time interval between 'thinktime': also pause once this long (seconds by default) has passed since the last pause; without thinktime_blocks, only time triggers a pause", |j, c, v| {
        j.pacing.thinktime_iotime_us = c.time(v)?;
        Ok(())
    })
    .def("0"),
    opt("due_lat", K::Bool, C::Pacing, "ferrio: also report latency from each I/O's due time under its rate (coordinated omission: a stall shows in every I/O it delayed), as 'due lat' / JSON due_lat_ns", |j, c, v| {
        j.pacing.due_lat = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("latency_target", K::Time(TimeUnit::Us), C::Pacing, "Ramp to the deepest queue depth that meets this latency (usec by default): fio's search between 1 and iodepth", |j, c, v| {
        j.pacing.latency_target_ns = c.time(v)?.saturating_mul(1000);
        Ok(())
    }),
    opt("latency_window", K::Time(TimeUnit::Us), C::Pacing, "Time each queue depth of the latency_target search is tried for (usec by default)", |j, c, v| {
        j.pacing.latency_window_us = c.time(v)?;
        Ok(())
    }),
    opt("latency_percentile", K::FloatList, C::Pacing, "Percentage of I/Os in a latency_window that must be within latency_target", |j, _, v| {
        let p = crate::values::list::parse_float_list(v)?;
        match p.as_slice() {
            [x] if (0.0..=100.0).contains(x) => j.pacing.latency_percentile = *x,
            _ => return Err(format!("latency_percentile takes one percentage from 0 to 100, not '{v}'")),
        }
        Ok(())
    })
    .def("100"),
    opt("latency_run", K::Bool, C::Pacing, "Keep adjusting the queue depth to match latency_target for the whole run", |j, c, v| {
        j.pacing.latency_run = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("max_latency", K::Time(TimeUnit::Us), C::Pacing, "Maximum tolerated I/O latency (usec by default), per direction: a longer I/O is an error (ETIMEDOUT) unless continue_on_error covers it", |j, c, v| {
        let mut out = [0; 3];
        for (slot, part) in out.iter_mut().zip(per_direction(v)?) {
            if let Some(p) = part {
                *slot = c.time(p)?.saturating_mul(1000);
            }
        }
        j.pacing.max_latency_ns = out;
        Ok(())
    }),
    opt("flow_id", K::Int, C::Pacing, "The flow index ID to use: jobs with the same flow_id share one flow-control group", |j, c, v| {
        j.pacing.flow_id = c.u32(v)?;
        Ok(())
    })
    .def("0"),
    opt("flow", K::Int, C::Pacing, "Weight for flow control of this job: the jobs of a flow_id group issue I/Os in proportion to their weights", |j, c, v| {
        j.pacing.flow = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 1000),
    opt("flow_sleep", K::Int, C::Pacing, "How many microseconds to sleep after being held back by flow control", |j, c, v| {
        j.pacing.flow_sleep_us = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("flow_watermark", K::Int, C::Pacing, "Deprecated in fio (which ignores it with a warning); accepted and ignored the same way", |j, c, v| {
        c.uint(v)?;
        deprecated(j, "flow_watermark")
    }),
    opt("pacer_period", K::Str, C::Pacing, "ferrio: adaptive pacer: at most one I/O leaves the pacer per period (e.g. 22.8us, us by default); the period is tuned toward the measured I/O period, between this floor and twice it", |j, _, v| {
        j.pacing.pacer_period_ns = pacer_ns(v)?;
        Ok(())
    })
    .def("0"),
    opt("pacer_tune", K::Str, C::Pacing, "ferrio: how often the adaptive pacer's period is tuned (us by default); 0 keeps it fixed", |j, _, v| {
        j.pacing.pacer_tune_ns = pacer_ns(v)?;
        Ok(())
    })
    .def("10ms"),
    opt("pacer_step", K::Str, C::Pacing, "ferrio: one tuning step of the adaptive pacer, also the margin kept below the measured I/O period (us by default)", |j, _, v| {
        j.pacing.pacer_step_ns = pacer_ns(v)?;
        Ok(())
    })
    .def("1us"),
    opt("io_submit_mode", K::Choice, C::Pacing, "How IO submissions and completions are done: offload paces submissions without first waiting for the I/Os in flight (ferrio submits from the job's own thread)", |j, c, v| {
        j.pacing.offload = c.choice(v)? == "offload";
        Ok(())
    })
    .def("inline")
    .vals(&[
        ("inline", "Submit and complete IO inline"),
        ("offload", "Offload submit and complete to threads"),
    ]),
];
