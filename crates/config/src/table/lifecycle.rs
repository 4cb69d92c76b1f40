//! Options: the job's lifecycle — commands around it, its I/O priority, and what is
//! done to each file as it is opened (ext/lifecycle.rs).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::lifecycle::{FadviseHint, WriteHint};

pub const LIFECYCLE: &[OptSpec] = &[
    opt("exec_prerun", K::Str, C::Process, "Shell command to run before the job's I/O (output saved in JOBNAME.prerun.txt; a failure is the job's error)", |j, _, v| {
        j.lifecycle.exec_prerun = Some(v.to_string());
        Ok(())
    }),
    opt("exec_postrun", K::Str, C::Process, "Shell command to run after the job's I/O (output saved in JOBNAME.postrun.txt)", |j, _, v| {
        j.lifecycle.exec_postrun = Some(v.to_string());
        Ok(())
    }),
    opt("prio", K::Int, C::Process, "Set the job's I/O priority level (0 highest to 7; best-effort class unless prioclass= is given)", |j, c, v| {
        j.lifecycle.prio = Some(c.u32(v)?);
        Ok(())
    })
    .range(0, 7),
    opt("prioclass", K::Int, C::Process, "Set the job's I/O priority class (1 realtime, 2 best effort, 3 idle)", |j, c, v| {
        j.lifecycle.prioclass = Some(c.u32(v)?);
        Ok(())
    })
    .range(0, 3),
    opt("fadvise_hint", K::Choice, C::Files, "posix_fadvise(2) advice for each file when it is opened", |j, c, v| {
        j.lifecycle.fadvise_hint = match c.choice(v)? {
            "0" => FadviseHint::None,
            "sequential" => FadviseHint::Sequential,
            "random" => FadviseHint::Random,
            _ => FadviseHint::ByPattern,
        };
        Ok(())
    })
    .def("1")
    .vals(&[
        ("0", "Don't issue fadvise/madvise"),
        ("1", "Advise using fio IO pattern"),
        ("random", "Advise using FADV_RANDOM"),
        ("sequential", "Advise using FADV_SEQUENTIAL"),
    ]),
    opt("write_hint", K::Choice, C::Files, "Write lifetime hint set on each file (fcntl F_SET_RW_HINT)", |j, c, v| {
        j.lifecycle.write_hint = Some(match c.choice(v)? {
            "none" => WriteHint::None,
            "short" => WriteHint::Short,
            "medium" => WriteHint::Medium,
            "long" => WriteHint::Long,
            _ => WriteHint::Extreme,
        });
        Ok(())
    })
    .vals(&[
        ("none", "No particular life time associated"),
        ("short", "Data written has a short life time"),
        ("medium", "Data written has a medium life time"),
        ("long", "Data written has a long life time"),
        ("extreme", "Data written has an extremely long life time"),
    ]),
    opt("pre_read", K::Bool, C::Files, "Read each file's region once before the I/O starts, so it is in the page cache (turns invalidate off)", |j, c, v| {
        j.lifecycle.pre_read = c.bool(v)?;
        Ok(())
    })
    .def("0"),
];
