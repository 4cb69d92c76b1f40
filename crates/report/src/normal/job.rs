//! One job's block (fio's `show_thread_status_normal`), from the
//! `name: (groupid=0, jobs=1): err= 0: pid=N: <time>` line to the `latency   :` line.

use super::dist::{depth_dist, rw_total};
use super::{ddir, lat};
use crate::model::{GroupReport, JobReport};
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
    if job.iodepth != 0 {
        out.push_str(&format!(
            "     latency   : target=0, window=0, percentile=100.00%, depth={}\n",
            job.iodepth
        ));
    }
    out
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
fn strerror(errno: i32) -> String {
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
