//! Merging per-thread recorders equals recording everything in one (what
//! `group_reporting` and multi-thread jobs rely on), for every recorder kind.

use ferrio_stats::{DepthHistogram, LatencyBuckets, LatencyHistogram, SampleStats};

const LATS: [u64; 9] = [
    1,
    3,
    900,
    1_500,
    70_000,
    999_999,
    3_000_000,
    1_500_000_000,
    9_000_000_000,
];

#[test]
fn latency_buckets_merge_adds_every_unit() {
    let (mut a, mut b, mut all) = (
        LatencyBuckets::default(),
        LatencyBuckets::default(),
        LatencyBuckets::default(),
    );
    for (i, &ns) in LATS.iter().enumerate() {
        // Twice into `b` so that a merge that copies, doubles or subtracts differs.
        if i % 2 == 0 {
            a.record(ns);
        } else {
            b.record(ns);
            b.record(ns);
            all.record(ns);
        }
        all.record(ns);
    }
    a.record(5); // a and b share a bucket
    all.record(5);
    b.record(7);
    all.record(7);
    let before = a.clone();
    a.merge(&b);
    assert_eq!(a, all);
    assert_eq!(a.total(), before.total() + b.total());
    assert!(a.ns.iter().any(|&c| c > 0) && a.us.iter().any(|&c| c > 0));
    assert!(a.ms.iter().any(|&c| c > 0));
}

#[test]
fn depth_histogram_merge_adds_every_map_and_total() {
    let (mut a, mut b, mut all) = (
        DepthHistogram::default(),
        DepthHistogram::default(),
        DepthHistogram::default(),
    );
    for (i, d) in [1u32, 2, 5, 9, 17, 40, 70].iter().enumerate() {
        let h = if i % 2 == 0 { &mut a } else { &mut b };
        h.record_depth(*d, 3);
        h.record_submit(*d);
        h.record_complete(*d + 1);
        all.record_depth(*d, 3);
        all.record_submit(*d);
        all.record_complete(*d + 1);
    }
    b.record_submit(1);
    all.record_submit(1);
    a.merge(&b);
    assert_eq!(a, all);
    assert_eq!(a.total_submit, 8);
    assert_eq!(a.total_complete, 7);
}

#[test]
fn histogram_and_sample_merge_equal_one_recorder() {
    let (mut a, mut b, mut all) = (
        LatencyHistogram::new(),
        LatencyHistogram::new(),
        LatencyHistogram::new(),
    );
    let (mut sa, mut sb, mut sall) = (
        SampleStats::default(),
        SampleStats::default(),
        SampleStats::default(),
    );
    for (i, &ns) in LATS.iter().enumerate() {
        if i % 3 == 0 {
            a.record(ns);
            sa.add(ns as f64);
        } else {
            b.record(ns);
            sb.add(ns as f64);
        }
        all.record(ns);
        sall.add(ns as f64);
    }
    a.merge(&b);
    sa.merge(&sb);
    assert_eq!(a.count(), all.count());
    assert_eq!((a.min(), a.max()), (all.min(), all.max()));
    assert!((a.mean() - all.mean()).abs() <= all.mean() * 1e-12);
    assert!((a.stddev() - all.stddev()).abs() <= all.stddev() * 1e-9);
    let list = [1.0, 50.0, 99.0, 99.99];
    assert_eq!(a.percentiles(&list), all.percentiles(&list));
    assert_eq!(a.bins(), all.bins());
    assert_eq!(sa.samples(), sall.samples());
    assert_eq!((sa.min(), sa.max()), (sall.min(), sall.max()));
    assert!((sa.mean() - sall.mean()).abs() <= sall.mean() * 1e-12);
    assert!((sa.stddev() - sall.stddev()).abs() <= sall.stddev() * 1e-9);
}
