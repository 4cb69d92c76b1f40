//! One job's block (fio's `show_thread_status_normal`), from the
//! `name: (groupid=0, jobs=1): err= 0: pid=N: <time>` line to the `latency   :` line
//! (with fio's `errors    :` line before it for a continue_on_error job).

use super::dist::{depth_dist, rw_total};
use super::{ddir, lat};
use crate::model::Unified;
use crate::model::{GroupReport, JobReport};
use crate::unified;
use crate::units::cfmt;

/// The job's block; "" for a job that did no I/O at all (fio skips it).
pub fn render(job: &JobReport, group: Option<&GroupReport>) -> String {
    let total = rw_total(job);
    let bytes: u64 = job.dir.iter().map(|d| d.io_bytes).sum();
    if bytes == 0 && total == 0 {
        return String::new();
    }
    let kb_base = group.map_or(job.kb_base, |g| g.kb_base);

    let mut out = title(job);
    if let Some(desc) = job.description.as_deref().filter(|d| !d.is_empty()) {
        out.push_str(&format!("  Description  : [{desc}]\n"));
    }
    for (i, d) in job.dir.iter().enumerate() {
        if d.io_bytes != 0 {
            out.push_str(&ddir::render(job, i, kb_base));
        }
    }
    if job.unified == Unified::Both {
        out.push_str(&ddir::render(&mixed_view(job, group), 0, kb_base));
    }
    out.push_str(&lat::render(&job.lat_buckets, total));
    out.push_str(&ddir::sync_block(job));
    out.push_str(&format!(
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}\n",
        cfmt(job.usr_cpu, 3, 2),
        cfmt(job.sys_cpu, 3, 2),
        job.ctx,
        job.majf,
        job.minf
    ));
    out.push_str(&depths(job, total));
    out.push_str(&issued(job));
    if let Some(e) = job.errors {
        out.push_str(&format!(
            "     errors    : total={}, first_error={}/<{}>\n",
            e.total,
            e.first_error,
            strerror(e.first_error)
        ));
    }
    if job.iodepth != 0 {
        out.push_str(&format!(
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}\n",
            job.latency_target_ns,
            job.latency_window_us,
            job.latency_percentile.unwrap_or(100.0),
            job.iodepth
        ));
    }
    if let Some(b) = &job.block_infos {
        out.push_str(&crate::blockinfo::render(&job.percentile_list, b));
    }
    out.push_str(&super::steadystate::render(job, kb_base));
    // ferrio's extra statistics, after fio's lines (crate::extra).
    out.push_str(&crate::extra::normal_lines(&job.extra));
    out
}

/// A `both` job's mixed direction as a job of its own (fio's show_mixed_ddir_status;
/// fio 3.33 prints its IOPS and BW as 0 there, ferrio prints the real rates).
pub(crate) fn mixed_view(job: &JobReport, group: Option<&GroupReport>) -> JobReport {
    let mut m = unified::merged_dir(&job.dir);
    if m.bw_samples.samples() > 0 {
        let agg = group.map_or(0, |g| unified::merged_group(&g.dir).agg_bw);
        m.bw_agg_pct = unified::share(m.bw_samples.mean(), agg);
    }
    JobReport {
        dir: [m, Default::default(), Default::default()],
        unified: Unified::Mixed,
        ..job.clone()
    }
}

/// `t: (groupid=0, jobs=1): err= 0: pid=3958: Sun Nov 22 03:34:51 2026`
fn title(job: &JobReport) -> String {
    let err = if job.error == 0 {
        format!("err={:2}", job.error)
    } else {
        format!("err={:2} (error={})", job.error, strerror(job.error))
    };
    format!(
        "{}: (groupid={}, jobs={}): {}: pid={}: {}\n",
        job.name, job.groupid, job.nr_threads, err, job.pid, job.time
    )
}

/// The OS's message for an errno value, without Rust's " (os error N)" suffix.
pub fn strerror(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    match s.rfind(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// `IO depths`, `submit` and `complete` lines.
fn depths(job: &JobReport, total: u64) -> String {
    let line = |label: &str, keys: [&str; 7], pct: [f64; 7]| {
        let parts: Vec<String> = keys
            .iter()
            .zip(pct)
            .map(|(k, p)| format!("{}={}%", k, cfmt(p, 3, 1)))
            .collect();
        format!("{}{}\n", label, parts.join(", "))
    };
    let d = &job.depth;
    let sum = |m: &[u64; 7]| m.iter().sum::<u64>();
    let level = ["1", "2", "4", "8", "16", "32", ">=64"];
    let sub = ["0", "4", "8", "16", "32", "64", ">=64"];
    let mut out = line("  IO depths    : ", level, depth_dist(&d.level, total));
    out.push_str(&line(
        "     submit    : ",
        sub,
        depth_dist(&d.submit, sum(&d.submit)),
    ));
    out.push_str(&line(
        "     complete  : ",
        sub,
        depth_dist(&d.complete, sum(&d.complete)),
    ));
    out
}

/// `     issued rwts: total=132,124,0,0 short=0,0,0,0 dropped=0,0,0,0`
fn issued(job: &JobReport) -> String {
    let [r, w, t] = &job.dir;
    format!(
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0\n",
        r.total_ios,
        w.total_ios,
        t.total_ios,
        job.sync.total_ios,
        r.short_ios,
        w.short_ios,
        t.short_ios,
        r.drop_ios,
        w.drop_ios,
        t.drop_ios
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> JobReport {
        JobReport {
            name: "t".into(),
            pid: 7,
            nr_threads: 1,
            time: "Sun Nov 22 03:34:51 2026".into(),
            iodepth: 1,
            ..Default::default()
        }
    }

    #[test]
    fn job_without_io_is_skipped() {
        assert_eq!(render(&base(), None), "");
    }

    #[test]
    fn title_with_and_without_error() {
        let mut j = base();
        assert_eq!(
            title(&j),
            "t: (groupid=0, jobs=1): err= 0: pid=7: Sun Nov 22 03:34:51 2026\n"
        );
        j.error = 28;
        j.groupid = 2;
        j.nr_threads = 4;
        assert_eq!(
            title(&j),
            "t: (groupid=2, jobs=4): err=28 (error=No space left on device): pid=7: Sun Nov 22 03:34:51 2026\n"
        );
    }

    #[test]
    fn depth_lines_use_their_own_denominators() {
        let mut j = base();
        j.depth.level = [1, 1, 0, 0, 0, 0, 1];
        j.depth.submit = [0, 3, 1, 0, 0, 0, 0];
        j.depth.complete = [1, 1, 0, 0, 0, 0, 0];
        assert_eq!(
            depths(&j, 3),
            "  IO depths    : 1=33.3%, 2=33.3%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=33.3%\n     submit    : 0=0.0%, 4=75.0%, 8=25.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n     complete  : 0=50.0%, 4=50.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
        );
    }

    #[test]
    fn issued_counts_syncs_fourth() {
        let mut j = base();
        j.dir[0].total_ios = 5;
        j.dir[1].total_ios = 6;
        j.dir[2].total_ios = 7;
        j.dir[1].short_ios = 2;
        j.dir[2].drop_ios = 3;
        j.sync.total_ios = 9;
        assert_eq!(
            issued(&j),
            "     issued rwts: total=5,6,7,9 short=0,2,0,0 dropped=0,0,3,0\n"
        );
    }

    #[test]
    fn latency_line_needs_a_depth_and_description_is_optional() {
        let mut j = base();
        j.dir[0].total_ios = 1;
        j.iodepth = 0;
        j.description = Some(String::new());
        let out = render(&j, None);
        assert!(!out.contains("latency   :"));
        assert!(!out.contains("Description"));
        j.iodepth = 8;
        j.description = Some("d".into());
        let out = render(&j, None);
        assert!(out.ends_with("     latency   : target=0, window=0, percentile=100.00%, depth=8\n"));
        assert_eq!(out.lines().nth(1), Some("  Description  : [d]"));
    }

    #[test]
    fn errors_line_follows_issued_for_a_continue_on_error_job() {
        let mut j = base();
        j.dir[0].total_ios = 3;
        assert!(!render(&j, None).contains("errors"));
        j.errors = Some(crate::model::ErrorTotals {
            total: 1024,
            first_error: 5,
        });
        let out = render(&j, None);
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("issued rwts"))
            .unwrap();
        assert_eq!(
            lines[at + 1],
            "     errors    : total=1024, first_error=5/<Input/output error>"
        );
        assert!(lines[at + 2].starts_with("     latency   :"));
        j.errors = Some(Default::default());
        assert!(render(&j, None).contains("     errors    : total=0, first_error=0/<Success>\n"));
    }
}
