//! Property tests of the latency histogram against exact computations on the raw values.

use ferrio_stats::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram, SampleStats};
use proptest::prelude::*;

const PLIST: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..256,
        0u64..10_000_000,
        0u64..(1u64 << 50),
        // Beyond fio's 2^34 ns (17.2 s) ceiling: 100 s .. 1 day.
        100_000_000_000u64..86_400_000_000_000,
    ]
}

fn build(values: &[u64]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

/// |approx - exact| within fio's resolution: exact below 128, else half a bucket (<= 1/128).
fn close(approx: u64, exact: u64) -> bool {
    if exact < 128 {
        approx == exact
    } else {
        (approx as f64 - exact as f64).abs() / exact as f64 <= 1.0 / 128.0
    }
}

fn rel_close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn bucket_contains_value(v in any::<u64>()) {
        let idx = plat_val_to_idx(v);
        let rep = plat_idx_to_val(idx);
        prop_assert_eq!(plat_val_to_idx(rep), idx);
        prop_assert!(close(rep, v), "v={} rep={}", v, rep);
    }

    #[test]
    fn percentiles_track_sorted_values(values in prop::collection::vec(value(), 1..400)) {
        let h = build(&values);
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        let got = h.percentiles(&PLIST);
        for (p, g) in PLIST.iter().zip(got.iter()) {
            // fio's rank is the smallest count reaching p% of n; extended-precision
            // rounding can push it one past the exact ceiling.
            let r = ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n);
            let ok = close(*g, sorted[r - 1]) || (r < n && close(*g, sorted[r]));
            prop_assert!(ok, "p={} n={} got={} exact={}", p, n, g, sorted[r - 1]);
        }
        // Input order is kept.
        let rev: Vec<f64> = PLIST.iter().rev().copied().collect();
        let mut got_rev = h.percentiles(&rev);
        got_rev.reverse();
        prop_assert_eq!(got_rev, got);
    }

    #[test]
    fn exact_stats(values in prop::collection::vec(value(), 1..400)) {
        let h = build(&values);
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        prop_assert_eq!(h.count(), values.len() as u64);
        prop_assert_eq!(h.min(), *values.iter().min().unwrap());
        prop_assert_eq!(h.max(), *values.iter().max().unwrap());
        prop_assert!(rel_close(h.mean(), mean), "{} vs {}", h.mean(), mean);
        if values.len() > 1 {
            let sd = var.sqrt();
            prop_assert!((h.stddev() - sd).abs() <= 1e-6 * sd.max(1.0), "{} vs {}", h.stddev(), sd);
        } else {
            prop_assert_eq!(h.stddev(), 0.0);
        }
        let total: u64 = h.bins().iter().map(|b| b.1).sum();
        prop_assert_eq!(total, values.len() as u64);
    }

    #[test]
    fn merge_equals_recording_all(a in prop::collection::vec(value(), 0..200),
                                  b in prop::collection::vec(value(), 0..200)) {
        let mut m = build(&a);
        m.merge(&build(&b));
        let all: Vec<u64> = a.iter().chain(b.iter()).copied().collect();
        let d = build(&all);
        prop_assert_eq!(m.bins(), d.bins());
        prop_assert_eq!(m.count(), d.count());
        prop_assert_eq!(m.min(), d.min());
        prop_assert_eq!(m.max(), d.max());
        prop_assert_eq!(m.percentiles(&PLIST), d.percentiles(&PLIST));
        prop_assert!(rel_close(m.mean(), d.mean()));
        prop_assert!((m.stddev() - d.stddev()).abs() <= 1e-6 * d.stddev().max(1.0));
    }

    #[test]
    fn sample_stats_merge(a in prop::collection::vec(0.0f64..1e7, 0..100),
                          b in prop::collection::vec(0.0f64..1e7, 0..100)) {
        let mut sa = SampleStats::default();
        let mut sb = SampleStats::default();
        let mut all = SampleStats::default();
        for &x in &a { sa.add(x); all.add(x); }
        for &x in &b { sb.add(x); all.add(x); }
        sa.merge(&sb);
        prop_assert_eq!(sa.samples(), all.samples());
        prop_assert_eq!(sa.min(), all.min());
        prop_assert_eq!(sa.max(), all.max());
        prop_assert!(rel_close(sa.mean(), all.mean()));
        prop_assert!((sa.stddev() - all.stddev()).abs() <= 1e-6 * all.stddev().max(1.0));
    }
}

#[test]
fn long_latencies_are_reported() {
    let mut h = LatencyHistogram::new();
    let hundred_s = 100_000_000_000u64;
    let hour = 3_600_000_000_000u64;
    for _ in 0..99 {
        h.record(hundred_s);
    }
    h.record(hour);
    let p = h.percentiles(&[50.0, 99.0, 99.99]);
    assert!(close(p[0], hundred_s) && close(p[1], hundred_s), "{p:?}");
    assert!(close(p[2], hour), "{p:?}");
    // fio would have clamped both into its last bucket (~17 s).
    assert!(p[2] > 17_200_000_000 * 200);
    assert_eq!(h.bins().len(), 2);
    assert_eq!(h.max(), hour);
}
