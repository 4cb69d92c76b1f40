//! fio's terse (minimal) output, version 3, as fio 3.33 prints it.
//!
//! One `;`-separated line per job: `3;<version>;<name>;<groupid>;<error>`, then the read
//! and write fields ([`ddir`]), CPU usage, the I/O depth distribution, the usec and msec
//! latency distributions (nsec buckets folded into the first usec bucket), the disk
//! utilisation of every device, and the description when there is one. Latencies are in
//! microseconds (integer division of min/max, `%f` of mean/stdev); bandwidth in KiB/s.

use crate::model::{DiskUtil, JobReport, RunReport, DDIR_READ, DDIR_WRITE};
use crate::normal::disk::clamp_util;
use crate::normal::dist::{depth_dist, lat_dist, rw_total};
use crate::units::cfmt;

pub(crate) mod ddir;

/// fio's terse format version printed first on every line.
pub const TERSE_VERSION: u32 = 3;

/// One semicolon-separated line per job (each ending in '\n'), terse version 3.
pub fn render(report: &RunReport) -> String {
    report
        .jobs
        .iter()
        .map(|j| {
            let g = report.groups.iter().find(|g| g.groupid == j.groupid);
            job_line(&report.version, j, g.map(|g| &g.dir), &report.disk_util)
        })
        .collect()
}

/// One job's line. `group` holds its group's aggregate bandwidths (for the bw share).
pub fn job_line(
    version: &str,
    job: &JobReport,
    group: Option<&[crate::model::GroupDir; 3]>,
    disks: &[DiskUtil],
) -> String {
    let mut out = format!(
        "{};{};{};{};{}",
        TERSE_VERSION, version, job.name, job.groupid, job.error
    );
    for d in [DDIR_READ, DDIR_WRITE] {
        let agg = group.map_or(0, |g| g[d].agg_bw);
        out.push_str(&ddir::fields(job, d, agg));
    }
    out.push_str(&format!(
        ";{}%;{}%;{};{};{}",
        cfmt(job.usr_cpu, 0, 6),
        cfmt(job.sys_cpu, 0, 6),
        job.ctx,
        job.majf,
        job.minf
    ));
    let total = rw_total(job);
    for p in depth_dist(&job.depth.level, total) {
        out.push_str(&format!(";{}%", cfmt(p, 3, 1)));
    }
    for p in lat_usec_with_nsec(job, total) {
        out.push_str(&format!(";{}%", cfmt(p, 3, 2)));
    }
    for p in lat_dist(&job.lat_buckets.ms, total) {
        out.push_str(&format!(";{}%", cfmt(p, 3, 2)));
    }
    for d in disks {
        out.push_str(&format!(
            ";{};{};{};{};{};{};{};{};{}%",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            cfmt(clamp_util(d.util), 3, 2)
        ));
    }
    if let Some(e) = job.errors {
        out.push_str(&format!(";{};{}", e.total, e.first_error));
    }
    if let Some(desc) = job.description.as_deref().filter(|d| !d.is_empty()) {
        out.push(';');
        out.push_str(desc);
    }
    out.push('\n');
    out
}

/// The usec distribution with every nsec bucket added to the first one (fio's
/// `stat_calc_lat_nu`, which keeps the terse layout unchanged since fio measured in ns).
/// With no I/O at all fio divides 0 by 0 here and prints "-nan".
fn lat_usec_with_nsec(job: &JobReport, total: u64) -> Vec<f64> {
    let mut us = lat_dist(&job.lat_buckets.us, total);
    let ntotal: u64 = job.lat_buckets.ns.iter().sum();
    if total == 0 {
        us[0] = f64::NAN.copysign(-1.0);
    } else {
        us[0] += 100.0 * ntotal as f64 / total as f64;
    }
    us
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nsec_buckets_fold_into_the_first_usec_bucket() {
        let mut j = JobReport::default();
        j.dir[0].total_ios = 4;
        j.lat_buckets.ns = [1, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        j.lat_buckets.us = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        let us = lat_usec_with_nsec(&j, 4);
        assert_eq!(us[0], 75.0);
        assert_eq!(us[1], 25.0);
    }

    #[test]
    fn no_io_prints_minus_nan_like_glibc() {
        let j = JobReport::default();
        let line = job_line("v", &j, None, &[]);
        assert!(
            line.contains(";0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;-nan%;0.00%;"),
            "{line}"
        );
    }

    #[test]
    fn header_fields_and_field_count() {
        let mut j = JobReport {
            name: "job one".into(),
            groupid: 3,
            error: 5,
            ..Default::default()
        };
        j.dir[0].total_ios = 1;
        let line = job_line("ferrio-0.1.0", &j, None, &[]);
        assert!(line.starts_with("3;ferrio-0.1.0;job one;3;5;"));
        // 5 + 2 * (4 + 4 + 4 + 20 + 4 + 5) + 5 + 7 + 10 + 12 fields: no disks, no description
        assert_eq!(
            line.trim_end().split(';').count(),
            5 + 2 * 41 + 5 + 7 + 10 + 12
        );
        // continue_on_error adds total_err;first_error before the description.
        j.errors = Some(crate::model::ErrorTotals {
            total: 7,
            first_error: 28,
        });
        j.description = Some("d".into());
        let line = job_line("ferrio-0.1.0", &j, None, &[]);
        assert!(line.ends_with(";7;28;d\n"), "{line}");
    }
}
