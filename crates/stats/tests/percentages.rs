//! The percentages fio prints for the depth maps and latency buckets (fio 3.33
//! stat.c `stat_calc_dist` and `stat_calc_lat`): count / total · 100, computed in that
//! order, with a floor for non-zero counts (0.1 % for depths, 0.01 % for latencies).

use ferrio_stats::{calc_dist, calc_lat_pct};

#[test]
fn depth_percentages() {
    // fio 3.33, randrw null job, iodepth 8: 1992 + 2104 I/Os in one bucket → 100.0.
    assert_eq!(
        calc_dist(&[0, 0, 0, 4096, 0, 0, 0], 4096),
        [0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0]
    );
    let p = calc_dist(&[1, 3, 0, 0, 0, 0, 4], 8);
    assert_eq!(p, [12.5, 37.5, 0.0, 0.0, 0.0, 0.0, 50.0]);
    // The division comes first: 1/3 · 100, not 100/3.
    assert_eq!(calc_dist(&[1, 2, 0, 0, 0, 0, 0], 3)[0], 1.0 / 3.0 * 100.0);
    // Below 0.1 % but non-zero shows as 0.1; exactly 0.1 % stays; zero stays zero.
    let p = calc_dist(&[1, 9_999, 0, 0, 0, 0, 0], 10_000);
    assert_eq!(p[0], 0.1);
    assert_eq!(p[2], 0.0);
    let p = calc_dist(&[2, 998, 0, 0, 0, 0, 0], 1000);
    assert_eq!(p[0], 0.2);
    // A total larger than the map's sum (fio divides by all I/Os issued).
    assert_eq!(calc_dist(&[50, 0, 0, 0, 0, 0, 0], 200)[0], 25.0);
    assert_eq!(calc_dist(&[5, 5, 5, 5, 5, 5, 5], 0), [0.0; 7]);
}

#[test]
fn latency_percentages() {
    let p = calc_lat_pct(&[1u64, 1, 2], 4);
    assert_eq!(p, [25.0, 25.0, 50.0]);
    assert_eq!(calc_lat_pct(&[1u64, 2], 3)[0], 1.0 / 3.0 * 100.0);
    // Floor at 0.01 %, only for non-zero counts.
    let p = calc_lat_pct(&[1u64, 0, 999_999], 1_000_000);
    assert_eq!((p[0], p[1]), (0.01, 0.0));
    let p = calc_lat_pct(&[2u64, 9_998], 10_000);
    assert_eq!(p[0], 0.02);
    assert_eq!(calc_lat_pct(&[3u64, 4], 0), [0.0, 0.0]);
}
