//! The histogram's exact-bucket region (values below 128 ns have one bucket each, as
//! in fio's plat_val_to_idx) seen through the public API: interval deltas and bins.

use ferrio_stats::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram};

/// An interval whose extreme did not move reports its bucket's edge, and below 128 ns
/// every bucket holds one value, so the edge is the value itself.
#[test]
fn delta_min_and_max_in_the_exact_buckets() {
    for v in [0u64, 1, 31, 32, 40, 63, 64, 100, 127] {
        let mut cum = LatencyHistogram::new();
        cum.record(0);
        cum.record(1_000_000);
        let before = cum.clone();
        cum.record(v);
        let d = cum.delta(&before);
        assert_eq!(d.count(), 1);
        assert_eq!((d.min(), d.max()), (v, v), "value {v}");
        assert_eq!(plat_val_to_idx(v), v as usize);
        assert_eq!(plat_idx_to_val(v as usize), v);
    }
    // Above 128 ns the edges are the bucket's: 200 ns shares a bucket of width 2.
    let mut cum = LatencyHistogram::new();
    cum.record(0);
    cum.record(1_000_000);
    let before = cum.clone();
    cum.record(201);
    let d = cum.delta(&before);
    assert_eq!((d.min(), d.max()), (200, 201));
}

/// Tiny positive percentiles (down to the smallest subnormal double) are reached by
/// the first sample, as `sum >= p / 100 * nr` is in fio with any p > 0.
#[test]
fn tiny_percentiles_land_on_the_first_sample() {
    let mut h = LatencyHistogram::new();
    for v in [500u64, 1_000, 2_000] {
        h.record(v);
    }
    let first = plat_idx_to_val(plat_val_to_idx(500));
    let list = [1e-30, f64::MIN_POSITIVE, 5e-324, 1e-300];
    assert_eq!(h.percentiles(&list), vec![first; 4]);
    let w = ferrio_stats::steadystate::SparseHistogram::between(&h, &LatencyHistogram::new());
    assert_eq!(w.percentiles(&list), vec![first; 4]);
}
