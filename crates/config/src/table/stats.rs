//! Options: statistics, units and process placement.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::spec::{ClockSource, UnifiedRw};
use crate::values::{parse_cpus, parse_float_list, TimeUnit};

pub const STATS: &[OptSpec] = &[
    opt("unified_rw_reporting", K::Choice, C::Stats, "Report reads, writes and trims of a job separately, as one \"mixed\" direction, or both (normal, json and terse output)", |j, c, v| {
        j.unified_rw_reporting = match c.choice(v)? {
            "none" | "0" => UnifiedRw::None,
            "mixed" | "1" => UnifiedRw::Mixed,
            _ => UnifiedRw::Both,
        };
        Ok(())
    })
    .def("none")
    .vals(&[
        ("none", "each direction on its own"),
        ("mixed", "one \"mixed\" direction with the sum of all"),
        ("both", "each direction, then the mixed one"),
        ("0", "same as none"),
        ("1", "same as mixed"),
        ("2", "same as both"),
    ]),
    opt("percentile_list", K::FloatList, C::Stats, "Completion latency percentiles to report", |j, _, v| {
        let l = parse_float_list(v)?;
        if l.len() > 20 {
            return Err(format!("{} percentiles given, at most 20 allowed", l.len()));
        }
        if let Some(p) = l.iter().find(|p| !(0.0..=100.0).contains(*p)) {
            return Err(format!("percentile {p} out of range [0, 100]"));
        }
        j.percentile_list = l;
        Ok(())
    })
    .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"),
    opt("clat_percentiles", K::Bool, C::Stats, "Report completion latency percentiles", |j, c, v| {
        j.clat_percentiles = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("lat_percentiles", K::Bool, C::Stats, "Report total latency percentiles", |j, c, v| {
        j.lat_percentiles = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("slat_percentiles", K::Bool, C::Stats, "Report submission latency percentiles", |j, c, v| {
        j.slat_percentiles = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("disable_lat", K::Bool, C::Stats, "Do not measure total latency", |j, c, v| {
        j.disable_lat = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("disable_clat", K::Bool, C::Stats, "Do not measure completion latency", |j, c, v| {
        j.disable_clat = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("disable_slat", K::Bool, C::Stats, "Do not measure submission latency", |j, c, v| {
        j.disable_slat = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("gtod_reduce", K::Bool, C::Stats, "Reduce clock calls: =1 sets disable_lat, disable_clat, disable_slat and turns all latency percentiles off (=0 changes nothing else)", |j, c, v| {
        let on = c.bool(v)?;
        j.gtod_reduce = on;
        // fio: only gtod_reduce=1 touches the other options.
        if on {
            j.disable_lat = true;
            j.disable_clat = true;
            j.disable_slat = true;
            j.clat_percentiles = false;
            j.lat_percentiles = false;
            j.slat_percentiles = false;
        }
        Ok(())
    })
    .def("0"),
    opt("bwavgtime", K::Time(TimeUnit::Ms), C::Stats, "Period over which bandwidth samples are averaged", |j, c, v| {
        j.bw_avg_time_ms = interval_ms(c.time(v)?)?;
        Ok(())
    })
    .def("500"),
    opt("iopsavgtime", K::Time(TimeUnit::Ms), C::Stats, "Period over which IOPS samples are averaged", |j, c, v| {
        j.iops_avg_time_ms = interval_ms(c.time(v)?)?;
        Ok(())
    })
    .def("500"),
    opt("kb_base", K::Choice, C::Stats, "Meaning of unit prefixes in input and output", |j, c, v| {
        j.kb_base = c.choice(v)?.parse().map_err(|_| "not an allowed value")?;
        Ok(())
    })
    .def("1024")
    .vals(&[("1024", "k = 1024 (KiB = 1000, fio's compatibility mode)"), ("1000", "k = 1000, KiB = 1024 (SI/IEC)")]),
    opt("unit_base", K::Choice, C::Stats, "Report bandwidth in bits or bytes", |j, c, v| {
        j.unit_base = c.choice(v)?.parse().map_err(|_| "not an allowed value")?;
        Ok(())
    })
    .def("0")
    .vals(&[("0", "auto-detect"), ("8", "bytes"), ("1", "bits")]),
    opt("significant_figures", K::Int, C::Stats, "Significant figures of the normal report's shortened numbers (block sizes, bandwidths, IOPS, amounts of I/O); a group's summary uses its last job's value", |j, c, v| {
        j.sig_figs = c.u32(v)?;
        Ok(())
    })
    .def("4")
    .range(1, 10),
    opt("disk_util", K::Bool, C::Stats, "Report disk utilization statistics", |j, c, v| {
        j.disk_util = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("job_start_clock_id", K::Int, C::Stats, "The clock_gettime(2) clock fio 3.36+ reads for the JSON job_start field; accepted and checked, as ferrio's JSON has fio 3.33's fields, without job_start", |_, c, v| {
        c.uint(v).map(|_| ())
    })
    .def("0"),
    opt("clocksource", K::Choice, C::Stats, "Clock used for timing", |j, c, v| {
        j.clocksource = ClockSource::from_name(c.choice(v)?);
        Ok(())
    })
    .vals(&[
        ("cpu", "CPU time stamp counter (fastest; used when reliable)"),
        ("clock_gettime", "clock_gettime(2)"),
        ("gettimeofday", "gettimeofday(2)"),
        ("virtual", "ferrio: virtual time, advanced by a simulated engine (ioengine=sim)"),
    ]),
];

fn interval_ms(us: u64) -> Result<u64, String> {
    if us < 1000 || (us / 1000) * 1000 != us {
        return Err("must be a whole number of milliseconds, at least 1".into());
    }
    Ok(us / 1000)
}

pub const PROCESS: &[OptSpec] = &[
    opt(
        "cpus_allowed",
        K::Special,
        C::Process,
        "CPUs the job may run on: list of CPUs and ranges (0-3,5)",
        |j, _, v| {
            j.cpus_allowed = Some(parse_cpus(v)?);
            Ok(())
        },
    ),
    opt(
        "comm",
        K::Str,
        C::Process,
        "Name the job's threads this (what ps -L, top -H and /proc/PID/task/*/comm show; Linux keeps the first 15 bytes), instead of JOB.CLONE (fio 3.42: its job process's comm)",
        |j, _, v| {
            if v.is_empty() || v.contains('\0') {
                return Err("a thread name must be non-empty text without NUL bytes".into());
            }
            j.comm = Some(v.to_string());
            Ok(())
        },
    ),
    opt(
        "nice",
        K::SignedInt,
        C::Process,
        "Run the job at this nice value",
        |j, _, v| {
            let n: i32 = v
                .trim()
                .parse()
                .map_err(|_| format!("malformed integer '{v}'"))?;
            if !(-20..=19).contains(&n) {
                return Err(format!("{n} is out of range"));
            }
            j.nice = n;
            Ok(())
        },
    )
    .def("0")
    .vals(&[("-20..19", "lower is higher priority")]),
];
