//! Options: pacing — rate limits and think time (docs/pacing.md).

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::ext::pacing::{RateProcess, ThinkBlocks};
use crate::values::list::per_direction;
use crate::values::TimeUnit;

/// A read,write,trim value; an empty slot is 0 (no limit), as in fio.
fn per_dir(c: &Ctx, v: &str, size: bool) -> Result<[u64; 3], String> {
    let mut out = [0; 3];
    for (slot, part) in out.iter_mut().zip(per_direction(v)?) {
        if let Some(p) = part {
            *slot = if size { c.size(p)? } else { c.uint(p)? };
        }
    }
    Ok(out)
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
];
