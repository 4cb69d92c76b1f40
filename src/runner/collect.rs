//! Thread results → the report model: merges threads (group_reporting), derives
//! per-direction runtimes, CPU percentages, group aggregates and disk utilisation,
//! with fio's arithmetic.

use super::plan::ThreadPlan;
use super::recorder::ThreadResult;
use super::recorder::ThreadStats;
use super::RunResults;
use crate::engine::Accounting;
use crate::sys::diskstats::DiskCounters;
use crate::sys::rusage::Usage;
use ferrio_report::Unified;
use ferrio_report::{
    DirReport, DiskUtil, ErrorTotals, GroupDir, GroupReport, JobReport, RunReport, SyncReport,
};
use std::collections::BTreeMap;

/// Run-level facts the threads don't know.
pub struct RunInfo {
    pub version: String,
    pub global_options: Vec<(String, String)>,
    pub clock_source: String,
    pub timestamp: u64,
    pub timestamp_ms: u64,
    pub time: String,
    /// Seconds since the run started, rounded up: one value for every job, as fio
    /// prints it (in virtual time, the longest thread's virtual run counts).
    pub elapsed_s: u64,
}

/// ms as fio stores a direction's runtime: rounded up, and only if it moved data
/// (an engine that moves none, such as cpuio, has none: fio's FIO_NOIO).
fn dir_runtime_ms(stats: &ThreadStats, d: usize, moves_data: bool) -> u64 {
    if stats.dir[d].io_bytes == 0 && (stats.dir[d].total_ios == 0 || !moves_data) {
        0
    } else {
        stats
            .dir_runtime_us
            .map_or(stats.runtime_us, |us| us[d])
            .div_ceil(1000)
    }
}

struct Acc {
    report: JobReport,
    usage: Usage,
}

/// A thread's I/O priority (fio's td->ioprio: prio/prioclass, else 0).
fn thread_ioprio(plan: &ThreadPlan) -> u32 {
    plan.spec.lifecycle.ioprio_value().unwrap_or(0)
}

/// fio's init_per_prio_stats: which reports keep per-priority statistics — those
/// with a thread that uses cmdprio, or whose threads run at different priorities.
/// One flag per thread, the same for every thread of a group_reporting group.
fn prio_stats_wanted(results: &RunResults) -> Vec<bool> {
    let mut group: BTreeMap<u32, (u32, bool)> = BTreeMap::new();
    for (plan, _) in &results.threads {
        let want = plan.spec.prio.cmdprio_in_use();
        if plan.spec.group_reporting {
            let e = group
                .entry(plan.groupid)
                .or_insert((thread_ioprio(plan), false));
            e.1 |= want || e.0 != thread_ioprio(plan);
        }
    }
    results
        .threads
        .iter()
        .map(|(plan, _)| match group.get(&plan.groupid) {
            Some(&(_, w)) if plan.spec.group_reporting => w,
            _ => plan.spec.prio.cmdprio_in_use(),
        })
        .collect()
}

/// One direction's per-priority latencies as the thread adds them to its report:
/// its cmdprio slots, or (fio's single-prio case) all its I/Os at the thread's own.
fn thread_prios(plan: &ThreadPlan, s: &ThreadStats, d: usize) -> Vec<ferrio_stats::PrioLat> {
    if !s.dir[d].prios.is_empty() {
        return s.dir[d].prios.clone();
    }
    let lat = if plan.spec.lat_percentiles {
        &s.dir[d].lat
    } else {
        &s.dir[d].clat
    };
    let mut out = Vec::new();
    ferrio_stats::prio::add_prio(&mut out, thread_ioprio(plan), lat);
    out
}

fn job_report_for(plan: &ThreadPlan, r: &ThreadResult, info: &RunInfo, prios: bool) -> Acc {
    let spec = &plan.spec;
    let s = &r.stats;
    let dir: [DirReport; 3] = std::array::from_fn(|d| DirReport {
        io_bytes: s.dir[d].io_bytes,
        // fio's issued count: failed I/Os too (they moved no bytes).
        total_ios: s.dir[d].total_ios + s.dir[d].failed_ios,
        short_ios: s.dir[d].short_ios,
        drop_ios: s.dir[d].drop_ios,
        runtime_ms: dir_runtime_ms(s, d, plan.caps.accounting != Accounting::NoData),
        slat: s.dir[d].slat.clone(),
        clat: s.dir[d].clat.clone(),
        lat: s.dir[d].lat.clone(),
        due_lat: s.dir[d].due_lat.clone(),
        bw_samples: s.dir[d].bw_samples.clone(),
        iops_samples: s.dir[d].iops_samples.clone(),
        bw_agg_pct: 0.0,
        prios: if prios && d < 2 {
            thread_prios(plan, s, d)
        } else {
            Vec::new()
        },
    });
    let report = JobReport {
        name: spec.name.clone(),
        description: spec.description.clone(),
        groupid: plan.groupid,
        error: job_error(spec, r),
        pid: std::process::id(),
        nr_threads: 1,
        time: info.time.clone(),
        elapsed_s: info.elapsed_s,
        job_options: spec.job_options.clone(),
        dir,
        sync: SyncReport {
            total_ios: s.sync_ios,
            lat: s.sync_lat.clone(),
        },
        job_runtime_ms: s.runtime_us / 1000,
        usr_cpu: 0.0,
        sys_cpu: 0.0,
        ctx: s.usage.ctx,
        majf: s.usage.majf,
        minf: s.usage.minf,
        depth: s.depth.clone(),
        lat_buckets: s.lat_buckets.clone(),
        percentile_list: spec.percentile_list.clone(),
        clat_percentiles: spec.clat_percentiles,
        lat_percentiles: spec.lat_percentiles,
        slat_percentiles: spec.slat_percentiles,
        kb_base: spec.kb_base,
        unit_base: spec.unit_base,
        sig_figs: spec.sig_figs,
        iodepth: if spec.pacing.latency_target_ns > 0 {
            s.latency_depth
        } else {
            spec.iodepth
        },
        latency_target_ns: spec.pacing.latency_target_ns,
        latency_window_us: spec.pacing.latency_window_us,
        latency_percentile: Some(spec.pacing.latency_percentile),
        unified: match spec.unified_rw_reporting {
            ferrio_config::UnifiedRw::None => Unified::None,
            ferrio_config::UnifiedRw::Mixed => Unified::Mixed,
            ferrio_config::UnifiedRw::Both => Unified::Both,
        },
        steadystate: None,
        zone_resets: r.zone_resets,
        block_infos: r.block_infos.clone(),
        extra: r.extra.clone(),
        errors: spec.errors.continues().then_some(ErrorTotals {
            total: s.errors.total,
            first_error: s.errors.first,
        }),
    };
    Acc {
        report,
        usage: s.usage,
    }
}

/// The job's err=: the error that stopped it, else (fio) a continue_on_error job's
/// first counted error.
fn job_error(spec: &ferrio_config::JobSpec, r: &ThreadResult) -> i32 {
    match &r.error {
        Some(e) => e.0,
        None if spec.errors.continues() => r.stats.errors.first,
        None => 0,
    }
}

/// fio's sum_thread_stats: add `src` into `dst` (group_reporting).
fn merge_into(dst: &mut Acc, src: Acc) {
    let (d, s) = (&mut dst.report, src.report);
    for (a, b) in d.dir.iter_mut().zip(&s.dir) {
        a.add(b);
    }
    d.sync.total_ios += s.sync.total_ios;
    d.sync.lat.merge(&s.sync.lat);
    if d.error == 0 {
        d.error = s.error;
    }
    // fio adds the counts; first_error is the last thread's.
    if let (Some(a), Some(b)) = (&mut d.errors, s.errors) {
        a.total += b.total;
        a.first_error = b.first_error;
    } else if d.errors.is_none() {
        d.errors = s.errors;
    }
    d.nr_threads += s.nr_threads;
    d.zone_resets += s.zone_resets;
    if s.block_infos.is_some() {
        // fio's group report keeps the last thread's blocks.
        d.block_infos = s.block_infos.clone();
    }
    ferrio_report::extra::merge(&mut d.extra, &s.extra);
    d.job_runtime_ms += s.job_runtime_ms;
    d.ctx += s.ctx;
    d.majf += s.majf;
    d.minf += s.minf;
    d.depth.merge(&s.depth);
    d.lat_buckets.merge(&s.lat_buckets);
    dst.usage.add(&src.usage);
}

/// Build the whole report.
pub fn build(results: &RunResults, info: RunInfo, disks: Vec<DiskUtil>) -> RunReport {
    // Merge threads: group_reporting folds every thread of a group into the group's
    // first job; otherwise each thread is reported on its own.
    let mut accs: Vec<Acc> = Vec::new();
    let mut group_slot: BTreeMap<u32, usize> = BTreeMap::new();
    let prios = prio_stats_wanted(results);
    for ((plan, r), &prios) in results.threads.iter().zip(&prios) {
        let acc = job_report_for(plan, r, &info, prios);
        if plan.spec.group_reporting {
            if let Some(&slot) = group_slot.get(&plan.groupid) {
                merge_into(&mut accs[slot], acc);
                continue;
            }
            group_slot.insert(plan.groupid, accs.len());
        }
        accs.push(acc);
    }
    let mut jobs: Vec<JobReport> = accs
        .into_iter()
        .map(|a| {
            let mut j = a.report;
            if j.job_runtime_ms > 0 {
                // fio: usr_time and sys_time in ms, as a percentage of the job runtime.
                j.usr_cpu = (a.usage.user_us / 1000) as f64 * 100.0 / j.job_runtime_ms as f64;
                j.sys_cpu = (a.usage.sys_us / 1000) as f64 * 100.0 / j.job_runtime_ms as f64;
            }
            // unified_rw_reporting=mixed: one direction, before the groups sum them.
            ferrio_report::unified::fold_mixed(&mut j);
            j
        })
        .collect();
    let groups = group_reports(&jobs);
    for j in &mut jobs {
        let g = groups.iter().find(|g| g.groupid == j.groupid);
        for d in 0..3 {
            let agg = g.map(|g| g.dir[d].agg_bw).unwrap_or(0);
            if j.dir[d].bw_samples.samples() > 0 {
                j.dir[d].bw_agg_pct = share_of_aggregate(j.dir[d].bw_samples.mean(), agg);
            }
        }
    }
    RunReport {
        version: info.version,
        timestamp: info.timestamp,
        timestamp_ms: info.timestamp_ms,
        time: info.time,
        global_options: info.global_options,
        jobs,
        groups,
        disk_util: disks,
        clock_source: info.clock_source,
        cpu_idleness: None,
        series: Vec::new(),
    }
}

/// fio's "per=": a job's mean bandwidth sample (truncated to KiB/s) as a percentage of
/// its group's aggregate bandwidth, capped at 100 (and 100 for an aggregate ≤ 1 KiB/s).
fn share_of_aggregate(mean_kib: f64, agg_bytes: u64) -> f64 {
    if agg_bytes <= 1024 {
        return 100.0;
    }
    ((mean_kib.trunc() * 100.0) / (agg_bytes as f64 / 1024.0)).min(100.0)
}

/// fio's group_run_stats over the reported jobs.
pub fn group_reports(jobs: &[JobReport]) -> Vec<GroupReport> {
    let mut groups: BTreeMap<u32, GroupReport> = BTreeMap::new();
    for j in jobs {
        let g = groups.entry(j.groupid).or_insert_with(|| GroupReport {
            groupid: j.groupid,
            kb_base: j.kb_base,
            unit_base: j.unit_base,
            sig_figs: j.sig_figs,
            dir: Default::default(),
            unified: j.unified,
        });
        g.unified = g.unified.or(j.unified);
        // fio: the group takes the value of its last job
        g.sig_figs = j.sig_figs;
        for d in 0..3 {
            let rt = j.dir[d].runtime_ms;
            if rt == 0 {
                continue;
            }
            let gd: &mut GroupDir = &mut g.dir[d];
            let bw = j.dir[d].io_bytes * 1000 / rt;
            if gd.max_run_ms == 0 {
                gd.min_run_ms = rt;
                gd.min_bw = bw;
            }
            gd.min_run_ms = gd.min_run_ms.min(rt);
            gd.max_run_ms = gd.max_run_ms.max(rt);
            gd.min_bw = gd.min_bw.min(bw);
            gd.max_bw = gd.max_bw.max(bw);
            gd.io_bytes += j.dir[d].io_bytes;
        }
    }
    for g in groups.values_mut() {
        for d in &mut g.dir {
            d.agg_bw = (d.io_bytes * 1000).checked_div(d.max_run_ms).unwrap_or(0);
        }
    }
    groups.into_values().collect()
}

/// Disk utilisation deltas for `names`, fio's print_disk_util figures.
pub fn disk_utils(
    names: &[String],
    before: &BTreeMap<String, DiskCounters>,
    after: &BTreeMap<String, DiskCounters>,
    wall_ms: u64,
) -> Vec<DiskUtil> {
    names
        .iter()
        .filter_map(|n| {
            let (b, a) = (before.get(n)?, after.get(n)?);
            let io_ticks = a.io_ticks.saturating_sub(b.io_ticks);
            Some(DiskUtil {
                name: n.clone(),
                read_ios: a.read_ios.saturating_sub(b.read_ios),
                write_ios: a.write_ios.saturating_sub(b.write_ios),
                read_merges: a.read_merges.saturating_sub(b.read_merges),
                write_merges: a.write_merges.saturating_sub(b.write_merges),
                read_ticks: a.read_ticks.saturating_sub(b.read_ticks),
                write_ticks: a.write_ticks.saturating_sub(b.write_ticks),
                in_queue: a.in_queue.saturating_sub(b.in_queue),
                util: if wall_ms > 0 {
                    (io_ticks as f64 * 100.0 / wall_ms as f64).min(100.0)
                } else {
                    0.0
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_of_aggregate_follows_fio() {
        // Two equal jobs: each has half the group's bandwidth.
        assert_eq!(share_of_aggregate(1000.7, 2000 * 1024), 50.0);
        // A single job sampled slightly above the aggregate is capped.
        assert_eq!(share_of_aggregate(1100.0, 1000 * 1024), 100.0);
        assert_eq!(share_of_aggregate(5.0, 1024), 100.0);
    }

    fn spec(opts: &str) -> ferrio_config::JobSpec {
        use ferrio_config::builder::Overrides;
        use ferrio_config::jobfile::{parse_text, Env};
        let text = format!("[t]\n{opts}\n");
        let sections = parse_text(&text, std::path::Path::new("t.fio"), &Env::system()).unwrap();
        let mut jobs =
            ferrio_config::session::assemble(&[], &[sections], &[], &Overrides::default())
                .unwrap()
                .jobs;
        jobs.remove(0)
    }

    #[test]
    fn err_is_the_stopping_error_else_a_continuing_jobs_first() {
        let mut r = ThreadResult::default();
        r.stats.errors = crate::runner::recorder::ErrorCount { total: 3, first: 5 };
        // fio: a continue_on_error job reports its first counted error as err=.
        assert_eq!(job_error(&spec("continue_on_error=io"), &r), 5);
        assert_eq!(job_error(&spec("rw=read"), &r), 0);
        r.error = Some((28, "no space".into()));
        assert_eq!(job_error(&spec("continue_on_error=io"), &r), 28);
    }

    fn job(groupid: u32, bytes: u64, runtime_ms: u64) -> JobReport {
        let mut j = JobReport {
            groupid,
            ..Default::default()
        };
        j.dir[0].io_bytes = bytes;
        j.dir[0].runtime_ms = runtime_ms;
        j
    }

    #[test]
    fn group_figures_follow_fios_group_run_stats() {
        // fio's group_run_stats: per-thread min/max runtime and bandwidth, the
        // aggregate over the longest runtime; a direction with no runtime is skipped.
        let g = group_reports(&[
            job(0, 4_000_000, 2000),
            job(0, 1_000_000, 1000),
            job(1, 0, 0),
        ]);
        assert_eq!(g.len(), 2);
        let d = &g[0].dir[0];
        assert_eq!(
            (
                d.io_bytes,
                d.min_run_ms,
                d.max_run_ms,
                d.min_bw,
                d.max_bw,
                d.agg_bw
            ),
            (5_000_000, 1000, 2000, 1_000_000, 2_000_000, 2_500_000)
        );
        let d = &g[1].dir[0];
        assert_eq!(
            (d.io_bytes, d.min_run_ms, d.max_run_ms, d.agg_bw),
            (0, 0, 0, 0)
        );
        // One job alone: its own figures are the group's minimum too.
        let g = group_reports(&[job(0, 3_000_000, 1500)]);
        let d = &g[0].dir[0];
        assert_eq!(
            (d.min_run_ms, d.min_bw, d.max_bw),
            (1500, 2_000_000, 2_000_000)
        );
    }

    #[test]
    fn cpu_times_are_whole_ms_as_a_share_of_the_job_runtime() {
        let mut r = ThreadResult::default();
        r.stats.runtime_us = 2_000_000;
        r.stats.usage.user_us = 500_900; // fio keeps whole ms: 500
        r.stats.usage.sys_us = 1_000_000;
        let results = RunResults {
            threads: vec![(crate::runner::worker::tests::plan_of("size=64k", true), r)],
            wall_ms: 2000,
        };
        let info = RunInfo {
            version: String::new(),
            global_options: Vec::new(),
            clock_source: String::new(),
            timestamp: 0,
            timestamp_ms: 0,
            time: String::new(),
            elapsed_s: 2,
        };
        let report = build(&results, info, Vec::new());
        let j = &report.jobs[0];
        assert_eq!((j.job_runtime_ms, j.usr_cpu, j.sys_cpu), (2000, 25.0, 50.0));
    }
}
