//! Shared fixtures for the normal and terse output tests: hand-built reports that mirror
//! real fio 3.33 runs (the runs are named on each builder), and the line classifier and
//! normaliser used to compare our output's structure with fio's captured output.
#![allow(dead_code)]

use ferrio_report::model::*;
use ferrio_stats::{LatencyHistogram, SampleStats};

pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// A histogram holding `n` samples of `ns` for every `(ns, n)`.
pub fn hist(values: &[(u64, u64)]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for &(ns, n) in values {
        for _ in 0..n {
            h.record(ns);
        }
    }
    h
}

/// The same samples shifted by `add` ns (total latency = completion latency + a constant).
pub fn shifted(values: &[(u64, u64)], add: u64) -> LatencyHistogram {
    let v: Vec<(u64, u64)> = values.iter().map(|&(ns, n)| (ns + add, n)).collect();
    hist(&v)
}

pub fn samples(v: &[f64]) -> SampleStats {
    let mut s = SampleStats::default();
    for &x in v {
        s.add(x);
    }
    s
}

/// A direction with `ios` I/Os of `bs` bytes over `runtime_ms`; lat = clat + `lat_add` ns.
pub fn dir(ios: u64, bs: u64, runtime_ms: u64, clat: &[(u64, u64)], lat_add: u64) -> DirReport {
    DirReport {
        io_bytes: ios * bs,
        total_ios: ios,
        runtime_ms,
        clat: hist(clat),
        lat: shifted(clat, lat_add),
        bw_agg_pct: 100.0,
        ..Default::default()
    }
}

pub fn job(name: &str, pid: u32, time: &str) -> JobReport {
    JobReport {
        name: name.into(),
        pid,
        nr_threads: 1,
        time: time.into(),
        percentile_list: DEFAULT_PERCENTILES.to_vec(),
        clat_percentiles: true,
        kb_base: 1024,
        unit_base: 0,
        iodepth: 1,
        ..Default::default()
    }
}

/// fio's group aggregation of the given jobs (one thread each).
pub fn group_of(groupid: u32, jobs: &[&JobReport]) -> GroupReport {
    let mut g = GroupReport {
        groupid,
        kb_base: jobs.first().map_or(1024, |j| j.kb_base),
        unit_base: jobs.first().map_or(0, |j| j.unit_base),
        ..Default::default()
    };
    for (i, gd) in g.dir.iter_mut().enumerate() {
        for j in jobs {
            let d = &j.dir[i];
            if d.runtime_ms == 0 {
                continue;
            }
            let bw = d.io_bytes * 1000 / d.runtime_ms;
            if gd.max_run_ms == 0 {
                gd.min_run_ms = d.runtime_ms;
                gd.min_bw = bw;
            }
            gd.min_run_ms = gd.min_run_ms.min(d.runtime_ms);
            gd.max_run_ms = gd.max_run_ms.max(d.runtime_ms);
            gd.min_bw = gd.min_bw.min(bw);
            gd.max_bw = gd.max_bw.max(bw);
            gd.io_bytes += d.io_bytes;
        }
        gd.agg_bw = (gd.io_bytes * 1000).checked_div(gd.max_run_ms).unwrap_or(0);
    }
    g
}

pub fn vda(r: u64, w: u64, rt: u64, wt: u64, q: u64, util: f64) -> DiskUtil {
    DiskUtil {
        name: "vda".into(),
        read_ios: r,
        write_ios: w,
        read_ticks: rt,
        write_ticks: wt,
        in_queue: q,
        util,
        ..Default::default()
    }
}

fn report(jobs: Vec<JobReport>, groups: Vec<GroupReport>, disks: Vec<DiskUtil>) -> RunReport {
    RunReport {
        version: "fio-3.33".into(),
        jobs,
        groups,
        disk_util: disks,
        clock_source: "clock_gettime".into(),
        cpu_idleness: None,
        ..Default::default()
    }
}

pub const RANDRW_READ_CLAT: [(u64, u64); 3] = [(55_000, 100), (60_000, 30), (250_000, 2)];
pub const RANDRW_WRITE_CLAT: [(u64, u64); 3] = [(3_000, 110), (9_000, 12), (12_600, 2)];

/// Mirrors `fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M` (fio 3.33):
/// 132 reads and 124 writes of 4 KiB in 9 ms each, reads ~55 us, writes ~3 us, no samples.
pub fn randrw() -> RunReport {
    let mut j = job("t", 3958, "Sun Nov 22 03:34:51 2026");
    j.dir[DDIR_READ] = dir(132, 4096, 9, &RANDRW_READ_CLAT, 30);
    j.dir[DDIR_WRITE] = dir(124, 4096, 9, &RANDRW_WRITE_CLAT, 40);
    for (ns, n) in RANDRW_READ_CLAT.iter().chain(RANDRW_WRITE_CLAT.iter()) {
        for _ in 0..*n {
            j.lat_buckets.record(*ns);
        }
    }
    j.sys_cpu = 50.0;
    j.ctx = 130;
    j.minf = 12;
    j.depth.level[0] = 256;
    j.depth.submit[1] = 256;
    j.depth.complete[1] = 256;
    j.job_runtime_ms = 18;
    let g = group_of(0, &[&j]);
    report(vec![j], vec![g], vec![vda(0, 0, 0, 0, 0, 0.0)])
}

/// Mirrors `fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M --time_based
/// --runtime=2 --rate_iops=500` (captured in golden/normal_fio333_randrw_timebased.txt):
/// 1000 reads and 1000 writes in 2001 ms, three bw/iops samples each.
pub fn timebased() -> RunReport {
    let mut j = job("t", 4788, "Sun Nov 22 03:35:16 2026");
    let rclat = [
        (1242, 1),
        (60_000, 300),
        (118_000, 500),
        (200_000, 198),
        (390_192, 1),
    ];
    let wclat = [
        (2100, 5),
        (4000, 30),
        (9000, 600),
        (14_000, 250),
        (30_000, 80),
        (60_000, 33),
        (175_000, 2),
    ];
    j.dir[DDIR_READ] = dir(1000, 4096, 2001, &rclat, 10);
    j.dir[DDIR_WRITE] = dir(1000, 4096, 2001, &wclat, 300);
    for d in [DDIR_READ, DDIR_WRITE] {
        j.dir[d].bw_samples = samples(&[2000.0, 2008.0, 2000.0]);
        j.dir[d].iops_samples = samples(&[500.0, 502.0, 500.0]);
    }
    j.lat_buckets.us = [8, 64, 570, 289, 48, 314, 702, 5, 0, 0];
    j.usr_cpu = 0.6;
    j.sys_cpu = 4.95;
    j.ctx = 1962;
    j.minf = 15;
    j.depth.level[0] = 2000;
    j.depth.submit[1] = 2000;
    j.depth.complete[1] = 2000;
    let g = group_of(0, &[&j]);
    report(vec![j], vec![g], vec![vda(913, 457, 86, 237, 324, 52.71)])
}

/// Mirrors `fio --name=t --ioengine=psync --rw=write --bs=4k --size=256k --fsync=1
/// --description="my desc" --percentile_list=50:99 --lat_percentiles=1`
/// (captured in golden/normal_fio333_fsync_desc.txt).
pub fn fsync_desc() -> RunReport {
    let mut j = job("t", 4025, "Sun Nov 22 03:34:53 2026");
    j.description = Some("my desc".into());
    j.percentile_list = vec![50.0, 99.0];
    j.lat_percentiles = true;
    let wclat = [(3825, 5), (4900, 56), (15_000, 2), (47_311, 1)];
    j.dir[DDIR_WRITE] = dir(64, 4096, 9, &wclat, 120);
    j.lat_buckets.us = [0, 5, 56, 2, 1, 0, 0, 0, 0, 0];
    j.sync.total_ios = 63;
    j.sync.lat = hist(&[(83_000, 20), (98_000, 42), (984_000, 1)]);
    j.usr_cpu = 37.5;
    j.ctx = 130;
    j.minf = 16;
    j.depth.level[0] = 127;
    j.depth.submit[1] = 127;
    j.depth.complete[1] = 127;
    let g = group_of(0, &[&j]);
    report(vec![j], vec![g], vec![vda(0, 0, 0, 0, 0, 0.0)])
}

/// Mirrors `fio --name=a --ioengine=null --rw=read --size=1M --bs=4k --name=b --stonewall
/// --rw=write --size=2M --numjobs=2 --group_reporting`
/// (captured in golden/normal_fio333_two_groups.txt): two groups, null engine, no disks.
pub fn two_groups() -> RunReport {
    let mut a = job("a", 5402, "Sun Nov 22 03:35:59 2026");
    let aclat = [(10, 6), (25, 249), (12_078, 1)];
    a.dir[DDIR_READ] = dir(256, 4096, 1, &aclat, 20);
    a.lat_buckets.ns = [0, 0, 0, 6, 249, 0, 0, 0, 0, 0];
    a.lat_buckets.us = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
    a.minf = 9;
    a.depth.level[0] = 256;

    let mut b = job("b", 5412, "Sun Nov 22 03:35:59 2026");
    b.groupid = 1;
    b.nr_threads = 2;
    let bclat = [(10, 530), (25, 491), (400, 1), (7456, 1), (10_806, 1)];
    b.dir[DDIR_WRITE] = dir(1024, 4096, 1, &bclat, 25);
    b.lat_buckets.ns = [0, 0, 0, 530, 491, 0, 0, 1, 0, 0];
    b.lat_buckets.us = [0, 0, 1, 1, 0, 0, 0, 0, 0, 0];
    b.minf = 18;
    b.depth.level[0] = 1024;
    let ga = group_of(0, &[&a]);
    let gb = group_of(1, &[&b]);
    report(vec![a, b], vec![ga, gb], vec![])
}

/// What kind of line this is in fio's normal output (used to compare structure).
pub fn kind(line: &str) -> String {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    let k = if line.is_empty() {
        "blank"
    } else if line.contains(": (groupid=") {
        "job-title"
    } else if t.starts_with("Description") {
        "description"
    } else if t.starts_with("read:") || t.starts_with("write:") || t.starts_with("trim:") {
        "dir-header"
    } else if t.contains("percentiles (") {
        "percentile-title"
    } else if t.starts_with('|') {
        "percentile-row"
    } else if t.starts_with("bw (") {
        "bw"
    } else if t.starts_with("iops") {
        "iops"
    } else if indent == 2 && t.starts_with("lat (") {
        "lat-buckets"
    } else if t.starts_with("slat (")
        || t.starts_with("clat (")
        || t.starts_with("lat (")
        || t.starts_with("sync (")
    {
        "lat-summary"
    } else if t.starts_with("fsync/") {
        "sync-title"
    } else if t.starts_with("cpu") {
        "cpu"
    } else if t.starts_with("IO depths") {
        "io-depths"
    } else if t.starts_with("submit") {
        "submit"
    } else if t.starts_with("complete") {
        "complete"
    } else if t.starts_with("issued rwts") {
        "issued"
    } else if t.starts_with("latency") {
        "latency-target"
    } else if t.starts_with("Run status group") {
        "group-title"
    } else if t.starts_with("READ:") || t.starts_with("WRITE:") || t.starts_with("TRIM:") {
        "group-dir"
    } else if t.starts_with("Disk stats") {
        "disk-title"
    } else if t.contains(": ios=") {
        "disk"
    } else {
        "other"
    };
    k.to_string()
}

/// The line with every number replaced by '#', runs of spaces collapsed, and the spaces
/// fio pads numbers with (after '[', '=', '(') removed: lines that differ only in their
/// values normalise to the same text.
pub fn normalize(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || n == '.' {
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('#');
        } else if c == ' ' {
            while chars.peek() == Some(&' ') {
                chars.next();
            }
            if !matches!(out.chars().last(), Some('[') | Some('=') | Some('(')) {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The lines of a captured fio run from the empty line after "Starting ..." on.
pub fn after_start(capture: &str) -> Vec<&str> {
    let lines: Vec<&str> = capture.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Starting "))
        .expect("capture has a Starting line");
    lines[start + 1..].to_vec()
}

/// Mirrors `fio --name=t --ioengine=posixaio --iodepth=4 --rw=randread --bs=4k --size=1M
/// --time_based --runtime=2 --rate_iops=300 --kb_base=1000 --slat_percentiles=1`
/// (captured in golden/normal_fio333_posixaio_kb1000.txt): slat, msec buckets, kB units.
pub fn posixaio_kb1000() -> RunReport {
    let mut j = job("t", 16438, "Sun Nov 22 03:42:08 2026");
    j.kb_base = 1000;
    j.iodepth = 4;
    j.slat_percentiles = true;
    let clat = [
        (59_000, 1),
        (70_000, 5),
        (130_000, 560),
        (2_278_000, 24),
        (5_000_000, 10),
    ];
    let r = &mut j.dir[DDIR_READ];
    *r = dir(600, 4096, 2001, &clat, 2000);
    r.slat = hist(&[
        (100, 1),
        (171, 6),
        (2300, 90),
        (4600, 400),
        (9000, 102),
        (117_325, 1),
    ]);
    r.bw_samples = samples(&[1197.0, 1208.0, 1200.0]);
    r.iops_samples = samples(&[299.0, 302.0, 300.0]);
    j.lat_buckets.us = [0, 0, 0, 0, 0, 44, 523, 14, 3, 1];
    j.lat_buckets.ms = [7, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    j.sys_cpu = 1.05;
    j.ctx = 1203;
    j.minf = 26;
    j.depth.level = [587, 10, 3, 0, 0, 0, 0];
    j.depth.submit[1] = 600;
    j.depth.complete[1] = 600;
    let g = group_of(0, &[&j]);
    let mut d = vda(615, 73, 79, 104, 185, 0.40);
    d.write_merges = 282;
    report(vec![j], vec![g], vec![d])
}

/// Mirrors `fio --name=t --ioengine=psync --rw=write --bs=4k --size=64k --filename=/dev/full`
/// (captured in golden/normal_fio333_error_enospc.txt): the first write fails with ENOSPC,
/// so the job has one issued write, no bytes, no latencies, and its group no direction.
pub fn error_enospc() -> RunReport {
    let mut j = job("t", 16652, "Sun Nov 22 03:42:13 2026");
    j.error = 28;
    j.dir[DDIR_WRITE].total_ios = 1;
    j.minf = 19;
    j.depth.level[0] = 1;
    j.depth.submit[1] = 1;
    j.depth.complete = [1, 1, 0, 0, 0, 0, 0];
    let g = GroupReport {
        groupid: 0,
        kb_base: 1024,
        ..Default::default()
    };
    report(vec![j], vec![g], vec![])
}
