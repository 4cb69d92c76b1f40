//! fio's `normal` (human) output, as fio 3.33 prints it.
//!
//! One file per part of the output, each printing exactly what fio's matching routine in
//! `stat.c` prints:
//! * [`header`]: the per-job line before the run and "Starting N processes";
//! * [`job`]: one job's block (`name: (groupid=..)` to `latency   :`);
//! * [`ddir`]: one data direction inside it (`read: IOPS=..`, latency, bw and iops lines);
//! * [`percentiles`]: the `clat percentiles (usec):` tables;
//! * [`lat`]: the `lat (usec)   : 4=39.45%, ..` distribution lines;
//! * [`dist`]: the percent arithmetic shared with the terse output;
//! * [`group`]: `Run status group N (all jobs):`;
//! * [`disk`]: `Disk stats (read/write):`.

use crate::model::{JobHeader, RunReport};

pub(crate) mod ddir;
pub(crate) mod disk;
pub(crate) mod dist;
pub(crate) mod group;
pub(crate) mod header;
pub(crate) mod job;

pub use job::strerror;
pub(crate) mod lat;
pub(crate) mod percentiles;
pub(crate) mod steadystate;

/// The line printed for a job before the run starts (no trailing newline).
pub fn job_header(h: &JobHeader) -> String {
    header::job_header(h)
}

/// "Starting 1 process" / "Starting 2 threads" (no trailing newline).
pub fn starting_line(nr: usize, threads: bool) -> String {
    header::starting_line(nr, threads)
}

/// Everything printed after the run: job blocks, "Run status group" lines, "Disk stats".
///
/// Starts with the empty line fio prints before the first job block.
pub fn render(report: &RunReport) -> String {
    let mut out = String::from("\n");
    for j in &report.jobs {
        let g = report.groups.iter().find(|g| g.groupid == j.groupid);
        out.push_str(&job::render(j, g));
    }
    for g in &report.groups {
        out.push_str(&group::render(g));
    }
    out.push_str(&disk::render(&report.disk_util));
    if let Some(c) = &report.cpu_idleness {
        out.push('\n');
        out.push_str(&idleness(c));
    }
    out
}

/// fio's `CPU idleness:` block (without the empty line before it).
pub fn idleness(c: &crate::model::CpuIdleness) -> String {
    let mut s = format!("CPU idleness:\n  system: {:.2}%\n", c.system);
    if let Some(p) = &c.percpu {
        let v: Vec<String> = p.iter().map(|x| format!("{x:.2}%")).collect();
        s.push_str(&format!("  percpu: {}\n", v.join(", ")));
    }
    s.push_str(&format!(
        "  unit work: mean={:.2}us, stddev={:.2}\n",
        c.unit_mean_us, c.unit_stddev
    ));
    s
}
