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
