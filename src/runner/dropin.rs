//! Hooks for fio options that job files and harnesses use (issue 14), kept out of
//! the worker loop: what a job thread does before its files are opened (uid=, gid=,
//! lockmem=, numa_cpu_nodes=, numa_mem_policy=, ioscheduler=), between passes (unlink_each_loop=) and which threads the report shows
//! (stats=0).

use super::plan::ThreadPlan;
use super::RunResults;
use crate::sys::file::{self, OpenFlags};
use crate::sys::jobctl::{self, Pinned};
use ferrio_config::ext::dropin::{DropinSpec, NumaMem};
use std::fs::File;

/// fio never pins all of memory: it leaves this much to the system.
const LOCKMEM_RESERVE: u64 = 128 << 20;

/// In the job thread, before its files are opened: switch to gid=/uid= (fio's
/// order: group first), then pin lockmem= bytes, held until the guard is dropped
/// at the thread's end.
pub fn thread_setup(plan: &ThreadPlan) -> Result<Option<Pinned>, (i32, String)> {
    let d = &plan.spec.dropin;
    jobctl::set_thread_ids(d.uid, d.gid)?;
    numa(d)?;
    if let Some(name) = &d.ioscheduler {
        switch_ioscheduler(plan, name)?;
    }
    if d.lockmem == 0 {
        return Ok(None);
    }
    let mut len = d.lockmem;
    if let Some(phys) = jobctl::phys_mem() {
        if len + LOCKMEM_RESERVE > phys {
            len = phys.saturating_sub(LOCKMEM_RESERVE);
            eprintln!("ferrio: limiting mlocked memory to {}MiB", len >> 20);
        }
    }
    Pinned::new(len as usize).map(Some).map_err(|e| {
        (
            e.raw_os_error().unwrap_or(libc::ENOMEM),
            format!("lockmem: mlock of {len} bytes: {e}"),
        )
    })
}

/// unlink_each_loop=1, at the start of every pass after the first: delete each
/// regular file and open a new one under the same descriptor number (a job that
/// writes creates it, as fio's reopen with O_CREAT; a read-only job fails with
/// ENOENT, as fio's does).
pub fn unlink_and_reopen(plan: &ThreadPlan, files: &[Option<File>]) -> Result<(), (i32, String)> {
    let spec = &plan.spec;
    for (f, open) in plan.files.iter().zip(files) {
        let Some(open) = open else { continue };
        if f.device {
            continue;
        }
        if let Err(e) = file::remove_in(plan.confine.as_deref(), &f.path, false) {
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err((
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!(
                        "unlink_each_loop: cannot unlink '{}': {e}",
                        f.path.display()
                    ),
                ));
            }
        }
        let flags = OpenFlags {
            read: true,
            write: spec.writes(),
            // A job that only reads finds the file gone (ENOENT), as in fio, unless
            // create_on_open creates it again.
            create: spec.writes() || (spec.create_on_open && spec.allow_file_create),
            direct: spec.direct,
            sync: spec.sync,
            dsync: spec.dsync,
            private: true,
            nonblock: false,
        };
        let fresh = file::open_in(plan.confine.as_deref(), &f.path, flags)
            .and_then(|n| jobctl::replace_fd(open, n));
        fresh.map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("cannot open '{}': {e}", f.path.display()),
            )
        })?;
    }
    Ok(())
}

/// stats=0: the threads the report leaves out, removed from `results`; returns
/// how many of them failed (the run's exit status still counts them).
pub fn drop_unreported(results: &mut RunResults) -> usize {
    let mut failed = 0;
    results.threads.retain(|(plan, r)| {
        if plan.spec.dropin.stats {
            return true;
        }
        if let Some((_, msg)) = &r.error {
            eprintln!("ferrio: {msg}");
            failed += 1;
        }
        false
    });
    failed
}

/// numa_cpu_nodes= (run on those nodes' CPUs) and numa_mem_policy=, as fio applies
/// them through libnuma, here through the system calls themselves.
fn numa(d: &DropinSpec) -> Result<(), (i32, String)> {
    if let Some(nodes) = &d.numa_cpu_nodes {
        let mut cpus = Vec::new();
        for n in nodes {
            let path = format!("/sys/devices/system/node/node{n}/cpulist");
            let list = std::fs::read_to_string(&path).unwrap_or_else(|_| "0".into());
            // A node without CPUs (memory only) has an empty list.
            if !list.trim().is_empty() {
                cpus.extend(
                    ferrio_config::values::list::parse_cpus(list.trim())
                        .map_err(|e| (libc::EINVAL, format!("{path}: {e}")))?,
                );
            }
        }
        if cpus.is_empty() {
            return Err((
                libc::EINVAL,
                format!("numa_cpu_nodes: nodes {nodes:?} have no CPUs"),
            ));
        }
        crate::sys::affinity::pin_current_thread(&cpus).map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("numa_cpu_nodes: {e}"),
            )
        })?;
    }
    let (mode, nodes): (i32, &[usize]) = match &d.numa_mem {
        None | Some(NumaMem::Default) => return Ok(()),
        Some(NumaMem::Prefer(n)) => (1, std::slice::from_ref(n)),
        Some(NumaMem::Bind(n)) => (2, n),
        Some(NumaMem::Interleave(n)) => (3, n),
        Some(NumaMem::Local) => (4, &[]),
    };
    jobctl::set_mempolicy(mode, nodes).map_err(|e| {
        (
            e.raw_os_error().unwrap_or(libc::EINVAL),
            format!("numa_mem_policy: set_mempolicy: {e}"),
        )
    })
}

/// ioscheduler=: write the name to each block device's queue/scheduler and read it
/// back (fio's set_ioscheduler: "none" alone means not tunable, a warning; the name
/// not shown in brackets is EINVAL). Unlike fio, a file on a file system never
/// changes its disk's scheduler (a benchmark of a file must not retune the system
/// disk); skipped, as in fio, for diskless engines and with disk_util=0.
fn switch_ioscheduler(plan: &ThreadPlan, name: &str) -> Result<(), (i32, String)> {
    if plan.caps.diskless || !plan.spec.disk_util {
        return Ok(());
    }
    for f in plan.files.iter().filter(|f| f.block_device) {
        let Some(disk) = file::device_numbers(&f.path)
            .and_then(|(maj, min)| crate::sys::diskstats::disk_name(maj, min))
        else {
            continue;
        };
        let path = format!("/sys/block/{disk}/queue/scheduler");
        if !std::path::Path::new(&path).exists() {
            eprintln!("ferrio: os or kernel doesn't support IO scheduler switching ({path})");
            return Ok(());
        }
        let fail = |e: std::io::Error| {
            (
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("ioscheduler: cannot set '{name}' in {path}: {e}"),
            )
        };
        std::fs::write(&path, name).map_err(fail)?;
        let now = std::fs::read_to_string(&path).map_err(fail)?;
        let now = now.lines().next().unwrap_or("").trim_end();
        if now == "none" {
            eprintln!("ferrio: io scheduler is not tunable ({path})");
            continue;
        }
        if !now.split_whitespace().any(|s| s == format!("[{name}]")) {
            return Err((
                libc::EINVAL,
                format!("unable to set io scheduler to {name} ({path}: {now})"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::recorder::ThreadResult;
    use crate::runner::worker::tests::plan_of;

    #[test]
    fn stats_0_threads_leave_the_report_and_only_their_errors_fail_the_run() {
        let failed = |error: Option<(i32, String)>| ThreadResult {
            error,
            ..Default::default()
        };
        let mut results = RunResults {
            threads: vec![
                (plan_of("stats=1", true), failed(None)),
                (plan_of("stats=0", true), failed(None)),
            ],
            wall_ms: 0,
        };
        assert_eq!(drop_unreported(&mut results), 0);
        assert_eq!(results.threads.len(), 1);
        assert!(results.threads[0].0.spec.dropin.stats);
        let mut results = RunResults {
            threads: vec![(plan_of("stats=0", true), failed(Some((5, "x".into()))))],
            wall_ms: 0,
        };
        assert_eq!(drop_unreported(&mut results), 1);
        assert!(results.threads.is_empty());
    }
}
