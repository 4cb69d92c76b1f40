//! Options: job description, jobs and groups, time and stopping.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::values::{parse_time_range, TimeUnit};

pub const DESCRIPTION: &[OptSpec] = &[
    opt("name", K::Str, C::Description, "Name of this job (on the command line, --name starts a new job; --name=global a global section)", |j, _, v| {
        j.name = v.to_string();
        Ok(())
    }),
    opt("description", K::Str, C::Description, "Text description of the job, printed when it runs", |j, _, v| {
        j.description = Some(v.to_string());
        Ok(())
    }),
];

pub const JOBS: &[OptSpec] = &[
    opt(
        "numjobs",
        K::Int,
        C::Jobs,
        "Number of clones of this job to run",
        |j, c, v| {
            j.numjobs = c.u32(v)?;
            Ok(())
        },
    )
    .def("1")
    .range(1, 4096),
    opt(
        "thread",
        K::Flag,
        C::Jobs,
        "Run clones as threads instead of forked processes",
        |j, c, v| {
            j.thread = c.bool(v)?;
            Ok(())
        },
    )
    // fio 3.33 also accepts "threads" (fio's own steadystate.fio example uses it).
    .alias(&["threads"])
    .def("0"),
    opt(
        "group_reporting",
        K::Flag,
        C::Jobs,
        "Report the jobs of a group as one",
        |j, c, v| {
            j.group_reporting = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "stonewall",
        K::Flag,
        C::Jobs,
        "Wait for all preceding jobs to finish before starting this one (starts a new group)",
        |j, c, v| {
            j.stonewall = c.bool(v)?;
            Ok(())
        },
    )
    .alias(&["wait_for_previous"])
    .def("0"),
    opt(
        "new_group",
        K::Flag,
        C::Jobs,
        "Start a new reporting group with this job",
        |j, c, v| {
            j.new_group = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "wait_for",
        K::Str,
        C::Jobs,
        "Start this job only after the named job has finished",
        |j, _, v| {
            j.wait_for = Some(v.to_string());
            Ok(())
        },
    ),
    opt(
        "exitall",
        K::Flag,
        C::Jobs,
        "When one job finishes, stop all others",
        |j, c, v| {
            j.exitall = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
];

pub const TIME: &[OptSpec] = &[
    opt(
        "time_based",
        K::Flag,
        C::Time,
        "Keep running until runtime expires, looping over the workload",
        |j, c, v| {
            j.time_based = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "runtime",
        K::Time(TimeUnit::S),
        C::Time,
        "Stop the job after this long (0 = no limit)",
        |j, c, v| {
            let t = c.time(v)?;
            j.runtime_us = (t > 0).then_some(t);
            Ok(())
        },
    )
    .alias(&["timeout"])
    .def("0"),
    opt(
        "ramp_time",
        K::Time(TimeUnit::S),
        C::Time,
        "Run this long before starting to record statistics",
        |j, c, v| {
            j.ramp_time_us = c.time(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "ramp_size",
        K::Size,
        C::Time,
        "Bytes the job completes (with group_reporting: its group together) before starting to record statistics (fio 3.42)",
        |j, c, v| {
            j.ramp_size = c.size(v)?;
            Ok(())
        },
    )
    .min(1),
    opt(
        "startdelay",
        K::TimeRange(TimeUnit::S),
        C::Time,
        "Delay the start of the job by this time, or a random time within a range",
        |j, _, v| {
            j.startdelay_us = parse_time_range(v, TimeUnit::S)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "loops",
        K::Int,
        C::Time,
        "Run the workload this many times (0 runs it once, as in fio)",
        |j, c, v| {
            j.loops = c.u32(v)?.max(1);
            Ok(())
        },
    )
    .def("1"),
];
