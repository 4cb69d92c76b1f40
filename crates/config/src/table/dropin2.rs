//! Options: fio options that job files and harnesses pass and ferrio now honours
//! (issue 14): opendir, file_append, unlink_each_loop, stats, disable_bw_measurement,
//! lockmem, uid, gid, cpumask, and the two fio 3.33 itself ignores
//! (write_barrier, log_entries). See docs/dropin.md.

use super::{opt, Category as C, Ctx, Kind as K, OptSpec, Support};
use crate::ext::dropin::{ExitWhat, LockMode, NumaMem};

/// An integer option accepted (value range-checked) and ignored: fio 3.33 does not
/// act on it either (each help says why).
const fn noop_int(name: &'static str, help: &'static str, default: &'static str) -> OptSpec {
    let mut o = opt(name, K::Int, C::NoOp, help, check_int);
    o.support = Support::NoOp;
    o.default = default;
    o
}

fn check_int(_: &mut crate::JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.uint(v).map(|_| ())
}

/// cpumask=N: bit i set allows CPU i (fio reads the low 32 bits of the value).
pub fn cpumask_cpus(mask: u64) -> Result<Vec<usize>, String> {
    if mask >> 32 != 0 {
        return Err(format!(
            "{mask:#x} has bits above CPU 31; use cpus_allowed= for more CPUs"
        ));
    }
    let cpus: Vec<usize> = (0..32).filter(|i| mask & (1 << i) != 0).collect();
    if cpus.is_empty() {
        return Err("0 allows no CPU at all".into());
    }
    Ok(cpus)
}

/// opendir=DIR: every regular file below DIR, in directory-read order, depth first
/// (fio's recurse_dir: symbolic links and other file types are skipped).
pub fn files_below(dir: &str, out: &mut Vec<String>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("opendir({dir}): {e}"))?;
    for e in entries {
        let e = e.map_err(|e| format!("opendir({dir}): {e}"))?;
        let path = format!("{dir}/{}", e.file_name().to_string_lossy());
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_file() => out.push(path),
            Ok(m) if m.file_type().is_dir() => files_below(&path, out)?,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("stat({path}): {e}")),
        }
    }
    Ok(())
}

/// The NUMA nodes this machine has (from sysfs; node 0 alone where it has none).
fn numa_nodes() -> Vec<usize> {
    std::fs::read_to_string("/sys/devices/system/node/online")
        .ok()
        .and_then(|t| crate::values::list::parse_cpus(t.trim()).ok())
        .unwrap_or_else(|| vec![0])
}

/// A NUMA node list (`0`, `0-1`, `0,2`, `all`: this machine's nodes). Whether the
/// nodes exist is checked when a job runs ([`missing_numa_node`]): fio's
/// `--parse-only` accepts a job written for a larger machine.
pub fn parse_nodes(v: &str) -> Result<Vec<usize>, String> {
    if v == "all" {
        return Ok(numa_nodes());
    }
    crate::values::list::parse_cpus(v)
        .map_err(|_| format!("malformed NUMA node list '{v}' (e.g. 0, 0-1, 0,2, all)"))
}

/// Why a job cannot run on `nodes`: the first one this machine lacks, if any.
pub fn missing_numa_node(nodes: &[usize]) -> Option<String> {
    let have = numa_nodes();
    let n = nodes.iter().find(|n| !have.contains(n))?;
    let names: Vec<String> = have.iter().map(|n| n.to_string()).collect();
    Some(format!(
        "NUMA node {n} does not exist (this machine has node {})",
        names.join(",")
    ))
}

/// numa_mem_policy=MODE[:NODES] with fio's rules for each mode.
pub fn parse_numa_mem(v: &str) -> Result<NumaMem, String> {
    let (mode, nodes) = match v.split_once(':') {
        Some((m, n)) => (m, Some(n)),
        None => (v, None),
    };
    Ok(match (mode, nodes) {
        ("default" | "local", Some(_)) => return Err(format!("no node list allowed for '{mode}'")),
        ("default", None) => NumaMem::Default,
        ("local", None) => NumaMem::Local,
        ("prefer", Some(n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            NumaMem::Prefer(parse_nodes(n)?[0])
        }
        ("prefer", _) => return Err("'prefer' needs exactly one node (prefer:N)".into()),
        ("bind", Some(n)) => NumaMem::Bind(parse_nodes(n)?),
        ("bind", None) => return Err("a node list is needed for 'bind' (bind:NODES)".into()),
        ("interleave", n) => NumaMem::Interleave(parse_nodes(n.unwrap_or("all"))?),
        _ => {
            return Err("memory policy should be: default, prefer, bind, interleave, local".into())
        }
    })
}

pub const DROPIN: &[OptSpec] = &[
    opt("numa_cpu_nodes", K::Special, C::Process, "Run the job on the CPUs of these NUMA nodes: 0, 0-1, 0,2 or all (sched_setaffinity; replaces cpus_allowed, as in fio)", |j, _, v| {
        j.dropin.numa_cpu_nodes = Some(parse_nodes(v)?);
        Ok(())
    }),
    opt("numa_mem_policy", K::Special, C::Process, "The job thread's NUMA memory policy (set_mempolicy): default, local, prefer:N, bind:NODES, interleave[:NODES]", |j, _, v| {
        j.dropin.numa_mem = Some(parse_numa_mem(v)?);
        Ok(())
    })
    .vals(&[
        ("default", "no change"),
        ("local", "allocate on the node the thread runs on"),
        ("prefer:N", "prefer node N"),
        ("bind:NODES", "only these nodes"),
        ("interleave:NODES", "round robin over these nodes (all when none are given)"),
    ]),
    opt("opendir", K::Str, C::Files, "Recursively add files from this directory and down: every regular file below it joins the job's files (after any filename=), in directory order", |j, _, v| {
        let mut found = Vec::new();
        files_below(v, &mut found)?;
        if found.is_empty() {
            return Err(format!("no regular file below '{v}'"));
        }
        j.filenames.extend(found);
        Ok(())
    }),
    opt("file_append", K::Bool, C::Files, "IO will start at the end of the file(s): a regular file's region starts at its size when the job starts (as offset= set to it); devices are unaffected", |j, c, v| {
        j.dropin.file_append = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("unlink_each_loop", K::Bool, C::Files, "Unlink (delete) the job's files after each loop: every pass after the first starts on new, empty files", |j, c, v| {
        j.dropin.unlink_each_loop = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("stats", K::Bool, C::Stats, "Enable collection of stats: with stats=0 the job runs but is left out of the final report and its group's sums", |j, c, v| {
        j.dropin.stats = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("disable_bw_measurement", K::Bool, C::Stats, "Disable bandwidth logging: with log_avg_msec=0 the bandwidth log gets no per-I/O entries (the report's bandwidth statistics stay)", |j, c, v| {
        j.dropin.disable_bw = c.bool(v)?;
        Ok(())
    })
    .alias(&["disable_bw"])
    .def("0"),
    opt("lockmem", K::Size, C::Process, "Lock down this amount of memory (per worker) with mlock(2) while the job runs, to simulate a smaller amount of memory (limited to the machine's memory less 128 MiB, as fio)", |j, c, v| {
        j.dropin.lockmem = c.size(v)?;
        Ok(())
    })
    .def("0"),
    opt("uid", K::Int, C::Process, "Run job with this user ID: the job's thread switches to it (setuid) before opening its files; files are laid out beforehand as the invoking user, as fio does", |j, c, v| {
        j.dropin.uid = Some(c.u32(v)?);
        Ok(())
    }),
    opt("gid", K::Int, C::Process, "Run job with this group ID (setgid before uid is applied)", |j, c, v| {
        j.dropin.gid = Some(c.u32(v)?);
        Ok(())
    }),
    opt("cpumask", K::Int, C::Process, "CPU affinity mask: bit i allows CPU i (34 = CPUs 1 and 5); CPUs 0-31 only, use cpus_allowed for more", |j, c, v| {
        j.cpus_allowed = Some(cpumask_cpus(c.uint(v)?)?);
        Ok(())
    }),
    opt("exit_what", K::Choice, C::Jobs, "Which jobs a job ending under exitall (or failing under exitall_on_error) terminates", |j, c, v| {
        j.dropin.exit_what = match c.choice(v)? {
            "stonewall" => ExitWhat::Stonewall,
            "all" => ExitWhat::All,
            _ => ExitWhat::Group,
        };
        Ok(())
    })
    .def("group")
    .vals(&[
        ("group", "the jobs of the same reporting group"),
        ("stonewall", "every job running now, in any group; the next stonewalled group still runs"),
        ("all", "every job, also those not started yet"),
    ]),
    opt("log_alternate_epoch", K::Bool, C::Stats, "Log timestamps from the epoch of clock_gettime's log_alternate_epoch_clock_id clock (the clock's time at the job's start plus the elapsed ms) instead of from 0", |j, c, v| {
        j.dropin.alt_epoch = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_alternate_epoch_clock_id", K::Int, C::Stats, "The clock_gettime clock id of log_alternate_epoch (and of log_unix_epoch): 0 = CLOCK_REALTIME, 1 = CLOCK_MONOTONIC, 7 = CLOCK_BOOTTIME, ...", |j, c, v| {
        j.dropin.alt_epoch_clock_id = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 11),
    opt("ioscheduler", K::Str, C::Files, "Switch the I/O scheduler of the job's block devices to this one (written to /sys/block/DEV/queue/scheduler and read back, as fio); files on a file system leave their disk's scheduler alone in ferrio", |j, _, v| {
        if v.is_empty() || v.contains(['/', '\n', ' ']) {
            return Err("a scheduler name is needed (e.g. none, mq-deadline, kyber, bfq)".into());
        }
        j.dropin.ioscheduler = Some(v.to_string());
        Ok(())
    }),
    opt("lockfile", K::Choice, C::Files, "Lock file when doing IO to it: the lock is held from an I/O's preparation until the engine has taken it (the whole I/O with a synchronous engine), as in fio", |j, c, v| {
        j.dropin.lockfile = match c.choice(v)? {
            "exclusive" => LockMode::Exclusive,
            "readwrite" => LockMode::ReadWrite,
            _ => LockMode::None,
        };
        Ok(())
    })
    .def("none")
    .vals(&[
        ("none", "No file locking"),
        ("exclusive", "Exclusive file lock: one I/O at a time per file, shared by every job with lockfile=exclusive that uses the file"),
        ("readwrite", "Read vs write lock: reads run together, a write or trim alone (among the job's numjobs clones, as in fio)"),
    ]),
    noop_int("write_barrier", "Make every Nth write a barrier write (no-op: no engine of fio 3.33 acts on barrier writes, and none of ferrio's)", "0"),
    noop_int("log_entries", "Initial number of entries in a job IO log (no-op: ferrio streams its logs to disk and never allocates log entries during the run)", "1024").range(1024, 1024 * 1024),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpumask_bits_are_cpus() {
        assert_eq!(cpumask_cpus(34).unwrap(), vec![1, 5]);
        assert_eq!(cpumask_cpus(1).unwrap(), vec![0]);
        assert_eq!(cpumask_cpus(0x8000_0000).unwrap(), vec![31]);
        assert!(cpumask_cpus(0).is_err());
        assert!(cpumask_cpus(1 << 32).is_err());
    }

    #[test]
    fn numa_policies_follow_fios_rules() {
        assert_eq!(parse_numa_mem("bind:0").unwrap(), NumaMem::Bind(vec![0]));
        assert_eq!(
            parse_numa_mem("interleave").unwrap(),
            NumaMem::Interleave(numa_nodes())
        );
        assert_eq!(parse_numa_mem("prefer:0").unwrap(), NumaMem::Prefer(0));
        assert_eq!(parse_numa_mem("local").unwrap(), NumaMem::Local);
        assert_eq!(parse_numa_mem("default").unwrap(), NumaMem::Default);
        for bad in [
            "bind",
            "prefer",
            "prefer:0-1",
            "local:0",
            "default:0",
            "spread:0",
            "bind:x",
        ] {
            assert!(parse_numa_mem(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_nodes("all").unwrap(), numa_nodes());
        // A node this machine lacks parses (fio's --parse-only accepts it); a run
        // refuses it (missing_numa_node, checked by the planner).
        assert_eq!(parse_nodes("4096").unwrap(), vec![4096]);
        assert_eq!(
            parse_numa_mem("bind:4096").unwrap(),
            NumaMem::Bind(vec![4096])
        );
        assert!(missing_numa_node(&[0, 4096])
            .unwrap()
            .contains("NUMA node 4096 does not exist"));
        assert_eq!(missing_numa_node(&numa_nodes()), None);
    }
}
