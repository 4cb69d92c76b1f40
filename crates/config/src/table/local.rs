//! Options: the local engines' own options — filestat/dirstat (stat_type), cpuio,
//! exec and e4defrag (docs/engines.md). Each is private to its engines.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::local::{CpuMode, StatType};

/// The engines that do one file or directory operation per file and pass (fio's
/// fileoperations engines): their I/Os move no data.
pub const METADATA_ENGINES: &[&str] = &[
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
];

/// The engines that cannot grow a file (fio's FIO_NOEXTEND; the registry's
/// `Capabilities::no_extend`, which a test keeps equal to this list): fio refuses
/// file_append with them. (In the registry's order.)
pub const NO_EXTEND_ENGINES: &[&str] = &["mmap", "nbd", "libpmem"];

pub const LOCAL: &[OptSpec] = &[
    opt("unique_filename", K::Bool, C::Files, "On a server (--server), put the server's listening address and a dot before the name of each relative file in directory= (dir/ADDR.job.0.0), so clients sharing a directory do not collide; no effect otherwise", |j, c, v| {
        j.local.unique_filename = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("create_serialize", K::Bool, C::Files, "Lay files out one after another (1), or each job's files on a thread of its own, all jobs at once (0; fio: in the job's thread as it starts). ferrio lays every file out before the start either way (a job whose files an earlier job makes is sized when it starts); the layout is never timed, so results are the same. Not with zonemode=zbd when 0", |j, c, v| {
        j.local.create_serialize = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("openfiles", K::Int, C::Files, "Files kept open at once: a file is opened when first chosen and closed when done (after its I/Os in flight complete), and a closed file is not chosen while this many are open (as fio); below nrfiles not with io_uring with registerfiles or sqthread_poll, nor engines that open no files (cpuio, exec, net), nor with read_iolog, zonemode=zbd or unlink_each_loop", |j, c, v| {
        j.local.openfiles = Some(c.u32(v)?);
        Ok(())
    })
    .min(1),
    opt("stat_type", K::Choice, C::Engine, "filestat/dirstat: the system call that looks each name up", |j, c, v| {
        j.local.stat_type = match c.choice(v)? {
            "lstat" => StatType::Lstat,
            "statx" => StatType::Statx,
            _ => StatType::Stat,
        };
        Ok(())
    })
    .def("stat")
    .vals(&[("stat", "Use stat(2)"), ("lstat", "Use lstat(2)"), ("statx", "Use statx(2)")])
    .private_to(&["filestat", "dirstat"]),
    opt("cpuload", K::Int, C::Engine, "cpuio: percentage of one CPU to use (required by ioengine=cpuio; above 100 counts as 100)", |j, c, v| {
        j.local.cpuload = c.u32(v)?;
        Ok(())
    })
    .private_to(&["cpuio"]),
    opt("cpuchunks", K::Int, C::Engine, "cpuio: length of one CPU burn cycle (usec)", |j, c, v| {
        j.local.cpuchunks_us = c.uint(v)?;
        Ok(())
    })
    .def("50000")
    .min(1)
    .private_to(&["cpuio"]),
    opt("cpumode", K::Choice, C::Engine, "cpuio: what a burn cycle does", |j, c, v| {
        j.local.cpumode = match c.choice(v)? {
            "qsort" => CpuMode::Qsort,
            _ => CpuMode::Noop,
        };
        Ok(())
    })
    .def("noop")
    .vals(&[("noop", "NOOP instructions (a busy loop)"), ("qsort", "QSORT computation")])
    .private_to(&["cpuio"]),
    opt("exit_on_io_done", K::Bool, C::Engine, "cpuio: end the job once every job that does I/O (not cpuio or exec) has ended, started or not", |j, c, v| {
        j.local.exit_on_io_done = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["cpuio"]),
    opt("program", K::Str, C::Engine, "exec: the program to run in the background for the job's runtime (searched in PATH)", |j, _, v| {
        if v.trim().is_empty() {
            return Err("empty program".into());
        }
        j.local.program = Some(v.to_string());
        Ok(())
    })
    .private_to(&["exec"]),
    opt("arguments", K::Str, C::Engine, "exec: the program's arguments, split at spaces; %r is the runtime in seconds, %n the job's name", |j, _, v| {
        j.local.arguments = Some(v.to_string());
        Ok(())
    })
    .private_to(&["exec"]),
    opt("grace_time", K::Int, C::Engine, "exec: seconds between SIGTERM at the job's end and SIGKILL", |j, c, v| {
        j.local.grace_time_s = c.uint(v)?;
        Ok(())
    })
    .def("1")
    .private_to(&["exec"]),
    opt("std_redirect", K::Bool, C::Engine, "exec: send the program's stdout and stderr to JOBNAME.stdout and JOBNAME.stderr", |j, c, v| {
        j.local.std_redirect = c.bool(v)?;
        Ok(())
    })
    .def("1")
    .private_to(&["exec"]),
    opt("donorname", K::Str, C::Engine, "e4defrag: the file that donates blocks (created in the job's directory; ext4 only)", |j, _, v| {
        j.local.donorname = Some(v.to_string());
        Ok(())
    })
    .private_to(&["e4defrag"]),
    opt("inplace", K::Int, C::Engine, "e4defrag: 1 allocates the donor's blocks for each I/O and frees them after it; 0 allocates the whole donor once", |j, c, v| {
        j.local.inplace = c.uint(v)? == 1;
        Ok(())
    })
    .def("0")
    .range(0, 1)
    .private_to(&["e4defrag"]),
];
