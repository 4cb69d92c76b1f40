//! fio's terse (minimal) output, versions 2 to 5, as fio 3.33 prints them.
//!
//! One `;`-separated line per job: `3;<version>;<name>;<groupid>;<error>` (version 2:
//! `2;<name>;<groupid>;<error>`), then the read and write fields ([`ddir`]; versions 2,
//! 4 and 5 add trim; version 5 adds bandwidth and IOPS sample statistics), CPU usage, the I/O depth distribution, the usec and msec
//! latency distributions (nsec buckets folded into the first usec bucket), the disk
//! utilisation of every device (not in version 2), and the description when there is
//! one (on its own line in version 2). fio 3.33 writes 161 (v2), 130 (v3), 171 (v4)
//! and 189 (v5) fields for one job on one disk. Latencies are in
//! microseconds (integer division of min/max, `%f` of mean/stdev); bandwidth in KiB/s.

use crate::model::Unified;
use crate::model::{DiskUtil, JobReport, RunReport, DDIR_READ, DDIR_TRIM, DDIR_WRITE};
use crate::normal::disk::clamp_util;
use crate::normal::dist::{depth_dist, lat_dist, rw_total};
use crate::unified;
use crate::units::cfmt;

pub(crate) mod ddir;

/// fio's terse format version printed first on every line.
pub const TERSE_VERSION: u32 = 3;

/// The terse versions fio 3.33 writes.
pub const VERSIONS: [u32; 4] = [2, 3, 4, 5];

/// One semicolon-separated line per job (each ending in '\n'), terse version 3.
pub fn render(report: &RunReport) -> String {
    render_version(report, TERSE_VERSION)
}

/// [`render`] in terse version `ver` (one of [`VERSIONS`]).
pub fn render_version(report: &RunReport, ver: u32) -> String {
    report
        .jobs
        .iter()
        .map(|j| {
            let g = report.groups.iter().find(|g| g.groupid == j.groupid);
            job_line_version(
                ver,
                &report.version,
                j,
                g.map(|g| &g.dir),
                &report.disk_util,
            )
        })
        .collect()
}

/// One job's line, version 3. `group` holds its group's aggregate bandwidths (for
/// the bw share).
pub fn job_line(
    version: &str,
    job: &JobReport,
    group: Option<&[crate::model::GroupDir; 3]>,
    disks: &[DiskUtil],
) -> String {
    job_line_version(TERSE_VERSION, version, job, group, disks)
}

/// One job's line in terse version `ver`.
pub fn job_line_version(
    ver: u32,
    version: &str,
    job: &JobReport,
    group: Option<&[crate::model::GroupDir; 3]>,
    disks: &[DiskUtil],
) -> String {
    let mut out = if ver == 2 {
        format!("2;{};{};{}", job.name, job.groupid, job.error)
    } else {
        format!("{ver};{version};{};{};{}", job.name, job.groupid, job.error)
    };
    let dirs: &[usize] = if job.unified == Unified::Mixed {
        &[DDIR_READ]
    } else if ver == 3 {
        &[DDIR_READ, DDIR_WRITE]
    } else {
        &[DDIR_READ, DDIR_WRITE, DDIR_TRIM]
    };
    let mut push_dir = |job: &JobReport, d: usize, agg: u64| {
        out.push_str(&ddir::fields(job, d, agg));
        if ver == 5 {
            out.push_str(&ddir::samples(job, d));
        }
    };
    for &d in dirs {
        push_dir(job, d, group.map_or(0, |g| g[d].agg_bw));
    }
    if job.unified == Unified::Both {
        // fio's show_mixed_ddir_status_terse: the mixed direction after the others.
        let m = JobReport {
            dir: [
                unified::merged_dir(&job.dir),
                Default::default(),
                Default::default(),
            ],
            ..job.clone()
        };
        push_dir(
            &m,
            DDIR_READ,
            group.map_or(0, |g| unified::merged_group(g).agg_bw),
        );
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
    for d in disks.iter().filter(|_| ver >= 3) {
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
        if ver == 2 {
            out.push('\n');
        }
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
    fn versions_2_4_5_have_fios_field_counts() {
        let mut j = JobReport {
            name: "j".into(),
            description: Some("about".into()),
            ..Default::default()
        };
        j.dir[0].total_ios = 1;
        let disk = DiskUtil {
            name: "vda".into(),
            ..Default::default()
        };
        let disks = [disk];
        let count = |ver| {
            let l = job_line_version(ver, "v", &j, None, &disks);
            (l.matches(';').count() + 1, l)
        };
        // fio 3.33 on one job and one disk: 161 / 130 / 171 / 189 fields, plus the
        // description.
        let (n2, l2) = count(2);
        assert_eq!(n2, 161 + 1);
        assert!(
            l2.starts_with("2;j;0;0;") && l2.ends_with("\n;about\n"),
            "{l2}"
        );
        assert!(!l2.contains("vda"));
        assert_eq!(count(3).0, 130 + 1);
        let (n4, l4) = count(4);
        assert_eq!(n4, 171 + 1);
        assert!(l4.starts_with("4;v;j;0;0;"));
        assert_eq!(count(5).0, 189 + 1);
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
