//! A deterministic, hand-built RunReport shared by the JSON golden and clat2csv tests.

use ferrio_report::model::*;
use ferrio_stats::{LatencyBuckets, LatencyHistogram, SampleStats};

/// One hour in ns: far beyond fio's ~17 s histogram ceiling.
pub const HOUR_NS: u64 = 3_600_000_000_000;

/// 1000 deterministic latencies from 100 ns to ~5 ms, plus 100 s and one hour.
pub fn clat_values() -> Vec<u64> {
    let mut v: Vec<u64> = (0..998u64)
        .map(|i| 100 + (i * i * 7919) % 5_000_000)
        .collect();
    v.push(100_000_000_000);
    v.push(HOUR_NS);
    v
}

fn hist(values: impl IntoIterator<Item = u64>) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for v in values {
        h.record(v);
    }
    h
}

fn samples(values: &[f64]) -> SampleStats {
    let mut s = SampleStats::default();
    for &v in values {
        s.add(v);
    }
    s
}

fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn report() -> RunReport {
    let clat = clat_values();
    let mut buckets = LatencyBuckets::default();
    for &v in &clat {
        buckets.record(v);
    }
    let mut a = JobReport {
        name: "reader".into(),
        description: Some("say \"hi\"".into()),
        groupid: 0,
        pid: 4242,
        nr_threads: 1,
        elapsed_s: 5,
        job_options: opts(&[
            ("rw", "randread"),
            ("fsync", "10"),
            ("percentile_list", "99:50:1"),
        ]),
        job_runtime_ms: 2000,
        usr_cpu: 12.5,
        sys_cpu: 100.0 / 3.0,
        ctx: 1234,
        majf: 1,
        minf: 56,
        lat_buckets: buckets,
        percentile_list: vec![99.0, 50.0, 1.0],
        clat_percentiles: true,
        kb_base: 1024,
        iodepth: 1,
        ..Default::default()
    };
    a.dir[DDIR_READ] = DirReport {
        io_bytes: 4096 * 1000,
        total_ios: 1000,
        runtime_ms: 2000,
        clat: hist(clat.iter().copied()),
        lat: hist(clat.iter().map(|v| v + 500)),
        bw_samples: samples(&[4000.0, 4100.0, 3900.0, 4050.0]),
        iops_samples: samples(&[1000.0, 1025.0, 975.0, 1012.0]),
        ..Default::default()
    };
    a.sync = SyncReport {
        total_ios: 100,
        lat: hist((1..=100u64).map(|i| i * 1000)),
    };
    a.depth.level[0] = 1000;
    a.depth.submit[1] = 1000;
    a.depth.complete[1] = 1000;
    a.depth.total_submit = 1000;
    a.depth.total_complete = 1000;

    let mut b = JobReport {
        name: "writer".into(),
        groupid: 1,
        pid: 4243,
        nr_threads: 2,
        elapsed_s: 2,
        job_options: Vec::new(),
        job_runtime_ms: 1500,
        percentile_list: vec![99.99, 0.5],
        lat_percentiles: true,
        slat_percentiles: true,
        kb_base: 1024,
        iodepth: 0,
        ..Default::default()
    };
    b.dir[DDIR_WRITE] = DirReport {
        io_bytes: 3 * 1024 * 1024 + 7,
        total_ios: 769,
        short_ios: 1,
        drop_ios: 2,
        runtime_ms: 1499,
        slat: hist((0..769u64).map(|i| 200 + i)),
        clat: hist((0..769u64).map(|i| 20_000 + 13 * i)),
        lat: hist((0..769u64).map(|i| 20_200 + 14 * i)),
        bw_samples: samples(&[2100.0]),
        iops_samples: samples(&[525.0]),
        ..Default::default()
    };
    b.depth.level[2] = 769;
    b.depth.submit[1] = 700;
    b.depth.submit[2] = 1;
    b.depth.total_submit = 701;
    b.depth.complete[1] = 769;
    b.depth.total_complete = 769;
    for i in 0..769u64 {
        b.lat_buckets.record(20_200 + 14 * i);
    }

    let mut g0 = GroupReport {
        groupid: 0,
        kb_base: 1024,
        ..Default::default()
    };
    g0.dir[DDIR_READ] = GroupDir {
        io_bytes: 2 * 4096 * 1000,
        agg_bw: 8_192_000,
        min_bw: 2_048_000,
        max_bw: 2_048_000,
        min_run_ms: 2000,
        max_run_ms: 2000,
    };
    let mut g1 = GroupReport {
        groupid: 1,
        kb_base: 1024,
        ..Default::default()
    };
    g1.dir[DDIR_WRITE] = GroupDir {
        io_bytes: 3 * 1024 * 1024 + 7,
        agg_bw: 1000,
        min_bw: 1000,
        max_bw: 1000,
        min_run_ms: 1499,
        max_run_ms: 1499,
    };

    RunReport {
        version: "ferrio-0.1.0".into(),
        timestamp: 1_700_000_000,
        timestamp_ms: 1_700_000_000_123,
        time: "Tue Nov 14 22:13:20 2023".into(),
        global_options: opts(&[("ioengine", "psync"), ("directory", "/tmp/a \\ b")]),
        jobs: vec![a, b],
        groups: vec![g0, g1],
        disk_util: vec![DiskUtil {
            name: "nvme0n1".into(),
            read_ios: 1000,
            write_ios: 769,
            read_merges: 3,
            write_merges: 4,
            read_ticks: 1900,
            write_ticks: 1400,
            in_queue: 3300,
            util: 87.654321,
        }],
        clock_source: "clock_gettime".into(),
        cpu_idleness: None,
        series: Vec::new(),
    }
}
