//! Golden tests: hand-built reports rendered and compared byte for byte with expected
//! files under `golden/`. The expected files were written by reasoning from fio 3.33's
//! rules and real output (see each test), not by copying this crate's output.

mod normal_support;

use ferrio_report::model::*;
use ferrio_report::normal;
use normal_support::*;

fn assert_golden(ours: &str, want: &str) {
    if ours != want {
        for (i, (o, w)) in ours.lines().zip(want.lines()).enumerate() {
            assert_eq!(o, w, "first difference at line {}", i + 1);
        }
        assert_eq!(
            ours.lines().count(),
            want.lines().count(),
            "line counts differ"
        );
        assert_eq!(ours, want);
    }
}

#[test]
fn randrw_psync() {
    // Layout and every number-format checked against
    //   fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M --filename=/tmp/fo/x
    // (fio 3.33: same I/O counts, 9 ms runtimes, so the read:/write:/group lines are
    // identical to fio's; latencies are the fixture's: 55/60/250 us reads, 3/9/12.6 us
    // writes, whose bucket values 55040/60160/250880 and 2992/9024/12608 give the tables).
    assert_golden(
        &normal::render(&randrw()),
        include_str!("golden/normal_randrw.txt"),
    );
}

/// Units and corner cases fio chooses by value: msec latencies and percentiles, slat,
/// bit rates with kb_base=1000, the bw line switching to "MiB" past kb_base², an error,
/// a trim-only job without percentiles, a job without I/O (skipped) and an empty group.
fn edge_report() -> RunReport {
    let mut slow = job("slow", 100, "Mon Jan  1 00:00:00 2024");
    slow.error = 5;
    slow.kb_base = 1000;
    slow.unit_base = 1;
    slow.iodepth = 4;
    slow.percentile_list = vec![50.0, 99.9];
    slow.slat_percentiles = true;
    let r = &mut slow.dir[DDIR_READ];
    *r = dir(
        10,
        1 << 20,
        5000,
        &[(5_000_000, 8), (400_000_000, 2)],
        1_000_000,
    );
    r.short_ios = 1;
    r.slat = hist(&[(3_000_000, 5), (250_000_000, 5)]);
    r.bw_samples = samples(&[1_500_000.0, 2_500_000.0, 2_000_000.0]);
    r.iops_samples = samples(&[1.0, 3.0, 2.0]);
    slow.lat_buckets.ms = [0, 0, 8, 0, 0, 0, 0, 2, 0, 0, 0, 0];
    slow.usr_cpu = 1.5;
    slow.sys_cpu = 2.25;
    slow.ctx = 7;
    slow.majf = 1;
    slow.minf = 2;
    slow.depth.level[0] = 10;
    slow.depth.submit[1] = 10;
    slow.depth.complete[1] = 10;

    let idle = job("idle", 101, "Mon Jan  1 00:00:00 2024");

    let mut tr = job("tr", 102, "Mon Jan  1 00:00:00 2024");
    tr.groupid = 1;
    tr.clat_percentiles = false;
    tr.dir[DDIR_TRIM] = dir(3, 4096, 1, &[(800, 3)], 40);
    tr.lat_buckets.ns[9] = 3;
    tr.depth.level[0] = 3;

    let g0 = group_of(0, &[&slow]);
    let g1 = group_of(1, &[&tr]);
    let g2 = GroupReport {
        groupid: 2,
        kb_base: 1024,
        ..Default::default()
    };
    RunReport {
        version: "ferrio-0.1.0".into(),
        jobs: vec![slow, idle, tr],
        groups: vec![g0, g1, g2],
        ..Default::default()
    }
}

#[test]
fn units_and_corner_cases() {
    // Rules from fio 3.33 stat.c (show_ddir_status, display_lat, show_clat_percentiles,
    // show_group_stats) and checked outputs: `--unit_base=1` prints "Mibit/s"/"Mbit/s",
    // `--kb_base=1000` puts SI first, and a 1 GB/s+ null run prints "bw (  MiB/s)" with
    // values divided by kb_base even when kb_base=1000.
    assert_golden(
        &normal::render(&edge_report()),
        include_str!("golden/normal_edge_units.txt"),
    );
}

#[test]
fn a_report_without_jobs_prints_only_the_leading_blank_line() {
    assert_eq!(normal::render(&RunReport::default()), "\n");
}
