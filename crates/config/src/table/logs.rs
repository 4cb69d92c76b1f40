//! Options: per-job logs in fio's formats (see `ext/logs.rs` and docs/live.md).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::logs::WindowValue;

/// A log's file name prefix (the bare key gives the job's name: [`K::OptStr`]).
fn prefix(v: &str) -> Result<Option<String>, String> {
    let v = v.trim();
    if v.is_empty() {
        return Err("needs a file name prefix".into());
    }
    Ok(Some(v.to_string()))
}

pub const LOGS: &[OptSpec] = &[
    opt("read_iolog", K::Str, C::Stats, "Replay the I/Os of an fio iolog (v2 or v3, gzip-compressed when it starts with gzip's magic) instead of generating them, at the log's timing unless replay_no_stall=1", |j, _, v| {
        j.logs.read_iolog = prefix(v)?;
        Ok(())
    }),
    opt("replay_no_stall", K::Bool, C::Stats, "Replay a read_iolog as fast as possible, ignoring its timestamps", |j, c, v| {
        j.logs.replay_no_stall = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("replay_redirect", K::Str, C::Stats, "Replay every I/O of a read_iolog onto this one file or device", |j, _, v| {
        j.logs.replay_redirect = prefix(v)?;
        Ok(())
    }),
    opt("replay_scale", K::Int, C::Stats, "Divide replayed offsets by this factor", |j, c, v| {
        let n = c.uint(v)?;
        if n == 0 {
            return Err("replay_scale must be at least 1".into());
        }
        j.logs.replay_scale = n;
        Ok(())
    })
    .def("1"),
    opt("replay_align", K::Int, C::Stats, "Align replayed offsets down to this many bytes (a power of 2)", |j, c, v| {
        let n = c.uint(v)?;
        if n != 0 && !n.is_power_of_two() {
            return Err(format!("replay_align={n} is not a power of 2"));
        }
        j.logs.replay_align = n;
        Ok(())
    })
    .def("0"),
    opt("replay_time_scale", K::Int, C::Stats, "Scale the timing of a replayed iolog: a percentage of the original rate (50: half as fast, 200: twice)", |j, c, v| {
        let n = c.uint(v)?;
        if n == 0 {
            return Err("replay_time_scale must be at least 1".into());
        }
        j.logs.replay_time_scale = n;
        Ok(())
    })
    .def("100"),
    opt("replay_skip", K::Str, C::Stats, "Leave these I/O types out of a replayed iolog: a comma-separated list of read, write, trim, sync", |j, _, v| {
        let mut mask = 0u8;
        for part in v.split(',').map(str::trim) {
            mask |= match part {
                "read" => 1,
                "write" => 2,
                "trim" => 4,
                "sync" => 8,
                other => return Err(format!("unknown skip type '{other}' (read, write, trim, sync)")),
            };
        }
        j.logs.replay_skip = mask;
        Ok(())
    }),
    opt("read_iolog_chunked", K::Bool, C::Stats, "Read the iolog in chunks of 4096 entries as the replay goes on, so a long log needs little memory (the replayed I/Os are the same)", |j, c, v| {
        j.logs.read_iolog_chunked = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("write_iolog", K::Str, C::Stats, "Record every issued I/O (file, direction, offset, length) in fio's iolog v3 format, appended to FILE (gzip data when FILE ends in .gz)", |j, _, v| {
        j.logs.write_iolog = prefix(v)?;
        Ok(())
    }),
    opt("write_bw_log", K::OptStr, C::Stats, "Write a bandwidth log: PREFIX_bw.N.log (KiB/s per log_avg_msec window), streamed during the run", |j, _, v| {
        j.logs.bw_log = prefix(v)?;
        Ok(())
    }),
    opt("write_iops_log", K::OptStr, C::Stats, "Write an IOPS log: PREFIX_iops.N.log, streamed during the run", |j, _, v| {
        j.logs.iops_log = prefix(v)?;
        Ok(())
    }),
    opt("write_lat_log", K::OptStr, C::Stats, "Write latency logs: PREFIX_slat.N.log, PREFIX_clat.N.log, PREFIX_lat.N.log (ns), streamed during the run", |j, _, v| {
        j.logs.lat_log = prefix(v)?;
        Ok(())
    }),
    opt("write_hist_log", K::OptStr, C::Stats, "Write a completion latency histogram log: PREFIX_clat_hist.N.log (one line of fio's histogram bins per log_hist_msec)", |j, _, v| {
        j.logs.hist_log = prefix(v)?;
        Ok(())
    }),
    opt("log_avg_msec", K::Int, C::Stats, "Average log entries over this many milliseconds (0: one entry per I/O, which ferrio does not support yet)", |j, c, v| {
        j.logs.avg_msec = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_hist_msec", K::Int, C::Stats, "Period of the histogram log in milliseconds (0: log_avg_msec)", |j, c, v| {
        j.logs.hist_msec = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_hist_coarseness", K::Int, C::Stats, "Merge 2^N adjacent bins in the histogram log: 1856, 928, 464, 232, 116, 58 or 29 bins for N = 0..6", |j, c, v| {
        j.logs.hist_coarseness = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 6),
    opt("log_window_value", K::Choice, C::Stats, "Value of an averaged log entry: the window's average, maximum, or both (avg then max)", |j, c, v| {
        j.logs.window_value = match c.choice(v)? {
            "avg" | "0" => WindowValue::Avg,
            "max" | "1" => WindowValue::Max,
            _ => WindowValue::Both,
        };
        Ok(())
    })
    .alias(&["log_max_value"])
    .def("avg")
    .vals(&[
        ("avg", "average over the window"),
        ("0", "same as avg"),
        ("max", "maximum over the window"),
        ("1", "same as max"),
        ("both", "average and maximum (two value columns)"),
        ("2", "same as both"),
    ]),
    opt("log_offset", K::Bool, C::Stats, "Add the I/O offset column to log entries (0 in averaged entries)", |j, c, v| {
        j.logs.offset = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_prio", K::Bool, C::Stats, "Log the I/O priority as 0x%04x instead of the real-time class bit", |j, c, v| {
        j.logs.prio = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_issue_time", K::Bool, C::Stats, "Add the issue time column (ns) to log entries (0 in averaged entries)", |j, c, v| {
        j.logs.issue_time = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_unix_epoch", K::Bool, C::Stats, "Log timestamps as Unix epoch milliseconds instead of milliseconds since the job started", |j, c, v| {
        j.logs.unix_epoch = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("per_job_logs", K::Bool, C::Stats, "One log file per thread (PREFIX_bw.N.log); 0: one file shared by every thread (PREFIX_bw.log)", |j, c, v| {
        j.logs.per_job_logs = c.bool(v)?;
        Ok(())
    })
    .def("1"),
];
