//! The steady-state rules at their edges, where a near-miss implementation differs:
//! fio's strict `<` for every criterion (a value equal to its limit is not steady),
//! and fio's percentile rule (x87 `long double` threshold) for the latency
//! distribution of the steady-state window, not a plain f64 comparison.

use ferrio_stats::steadystate::{judge, slope, SparseHistogram, WindowTest};
use ferrio_stats::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram};

/// fio 3.33 steadystate.c: `steadystate_slope` tests `fabs(slope) < limit` (and
/// `steadystate_deviation` `deviation < limit`): equal is not steady.
#[test]
fn slope_equal_to_its_limit_is_not_steady() {
    // y = 10, 12, 14, 16: slope exactly 2 (all values exact in binary).
    let up = [10u64, 12, 14, 16];
    assert_eq!(slope(&up), 2.0);
    let j = judge(&up, WindowTest::Slope, 2.0, false);
    assert_eq!(j.criterion, 2.0);
    assert!(!j.met, "slope 2 with limit 2 must not be steady (fio: <)");
    assert!(judge(&up, WindowTest::Slope, 2.0 + 1e-9, false).met);
    // A falling window is judged by magnitude, with the same strict rule.
    let down = [16u64, 14, 12, 10];
    let j = judge(&down, WindowTest::Slope, 2.0, false);
    assert_eq!(j.slope, -2.0);
    assert!(!j.met, "|-2| with limit 2 must not be steady");
    assert!(judge(&down, WindowTest::Slope, 2.5, false).met);
    // Percent of the integer mean: [0, 4]: slope 4, integer mean 2 → 200 %.
    let j = judge(&[0, 4], WindowTest::Slope, 200.0, true);
    assert_eq!(j.criterion, 200.0);
    assert!(!j.met, "200 % with limit 200 % must not be steady");
    assert!(judge(&[0, 4], WindowTest::Slope, 200.5, true).met);
    // A flat window has slope 0, and a limit of 0 is never met.
    let j = judge(&[7, 7, 7], WindowTest::Slope, 0.0, false);
    assert_eq!(j.criterion, 0.0);
    assert!(!j.met, "0 < 0 is false");
}

#[test]
fn deviation_equal_to_its_limit_is_not_steady() {
    // 8, 12: mean 10, max deviation 2 = 20 %.
    let ys = [8u64, 12];
    let j = judge(&ys, WindowTest::Deviation, 2.0, false);
    assert_eq!(j.criterion, 2.0);
    assert!(!j.met);
    let j = judge(&ys, WindowTest::Deviation, 20.0, true);
    assert_eq!(j.criterion, 20.0);
    assert!(!j.met);
    assert!(judge(&ys, WindowTest::Deviation, 20.001, true).met);
    let j = judge(&[5, 5], WindowTest::Deviation, 0.0, false);
    assert!(!j.met, "0 < 0 is false");
}

/// SNIA PTS 2.0 §2.1.24 says "within" 20 % / 10 %: ≤, unlike fio's own criteria.
#[test]
fn snia_limits_are_inclusive() {
    let ys = [90u64, 110, 100, 100, 100];
    let t = |r: f64, s: f64| WindowTest::Snia {
        range_pct: r,
        slope_pct: s,
    };
    let j = judge(&ys, t(20.0, 4.0), 0.0, true);
    assert_eq!((j.range_pct, j.excursion_pct), (20.0, 4.0));
    assert!(j.met);
    assert!(!judge(&ys, t(19.99, 4.0), 0.0, true).met);
    assert!(!judge(&ys, t(20.0, 3.99), 0.0, true).met);
}

/// A window histogram with `low` samples of `a` ns then `high` samples of `b` ns
/// (built directly: the table below has windows of up to 10^9 samples).
fn window(a: u64, low: u64, b: u64, high: u64) -> SparseHistogram {
    let buckets = [(a, low), (b, high)]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|&(v, n)| (plat_val_to_idx(v) as u32, n))
        .collect();
    SparseHistogram {
        buckets,
        count: low + high,
        sum: (a * low + b * high) as f64,
    }
}

/// fio 3.33 stat.c `calc_clat_percentiles`: percentile p is reached when
/// `sum >= (long double) p / 100.0 * nr`. 99.9 as a double is slightly above 99.9,
/// so 99.9 % of 1000 needs all 1000 samples; f64 arithmetic accepts 999.
#[test]
fn window_percentile_uses_fios_threshold() {
    let (a, b) = (10_000u64, 500_000u64);
    let w = window(a, 999, b, 1);
    assert_eq!(w.percentile(99.9), plat_idx_to_val(plat_val_to_idx(b)));
    assert_eq!(w.percentile(99.0), plat_idx_to_val(plat_val_to_idx(a)));
    // The same through the whole-run histogram: both must agree.
    let mut h = LatencyHistogram::new();
    h.record_n(a, 999);
    h.record_n(b, 1);
    assert_eq!(w.percentiles(&[99.9, 50.0]), h.percentiles(&[99.9, 50.0]));
}

/// Every row of the x87 threshold table (computed by gcc with `long double`; see the
/// file's header): with `s - 1` samples low and the rest high, percentile p is the
/// high value; with `s` samples low it is the low value.
#[test]
fn window_percentile_matches_the_x87_table() {
    let table = include_str!("../testdata/x87_thresholds.txt");
    let (a, b) = (1_000u64, 1_000_000u64);
    let (va, vb) = (
        plat_idx_to_val(plat_val_to_idx(a)),
        plat_idx_to_val(plat_val_to_idx(b)),
    );
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let p: f64 = f[0].parse().unwrap();
        let nr: u64 = f[1].parse().unwrap();
        let s: u64 = f[2].parse().unwrap();
        if s == 0 || s > nr {
            continue;
        }
        rows += 1;
        let w = window(a, s, b, nr - s);
        assert_eq!(
            w.percentile(p),
            va,
            "p={p} nr={nr}: {s} low samples reach it"
        );
        if s < nr {
            let w = window(a, s - 1, b, nr - s + 1);
            assert_eq!(w.percentile(p), vb, "p={p} nr={nr}: {} do not", s - 1);
        }
    }
    assert!(rows > 200, "table rows used: {rows}");
}

#[test]
fn window_percentiles_keep_the_input_order() {
    let w = window(1_000, 50, 1_000_000, 50);
    let lo = plat_idx_to_val(plat_val_to_idx(1_000));
    let hi = plat_idx_to_val(plat_val_to_idx(1_000_000));
    assert_eq!(
        w.percentiles(&[90.0, 10.0, 50.0, 50.1]),
        vec![hi, lo, lo, hi]
    );
    assert_eq!(w.percentiles(&[]), Vec::<u64>::new());
}

/// fio 3.33 steadystate.c: the deviation is max |y - mean|, so a value far *below*
/// the mean counts as much as one above it.
#[test]
fn deviation_below_the_mean_counts() {
    use ferrio_stats::steadystate::max_deviation;
    // mean 8: deviations 2, 2, 2, 6 (the last one below the mean).
    assert_eq!(max_deviation(&[10, 10, 10, 2]), 6.0);
    let j = judge(&[10, 10, 10, 2], WindowTest::Deviation, 5.0, false);
    assert_eq!(j.criterion, 6.0);
    assert!(!j.met);
    assert_eq!(max_deviation(&[2, 10, 10, 10]), 6.0);
}

/// The x87 threshold's second rounding (p/100 · nr to 64 bits) at an exact tie:
/// 75 % of nr = (2^65 + 22) / 3 is exactly 2^63 + 5.5, which `long double` rounds to
/// even, 2^63 + 6. So 2^63 + 5 samples do not reach p75 (fio needs one more).
#[test]
fn x87_tie_rounds_to_even() {
    let nr: u64 = 12_297_829_382_473_034_418; // (2^65 + 22) / 3
    assert_eq!(nr as u128 * 3, (1u128 << 65) + 22);
    let low = (1u64 << 63) + 5;
    let w = SparseHistogram {
        buckets: vec![(100, low), (200, nr - low)],
        count: nr,
        sum: 0.0,
    };
    assert_eq!(w.percentile(75.0), plat_idx_to_val(200));
    let w = SparseHistogram {
        buckets: vec![(100, low + 1), (200, nr - low - 1)],
        count: nr,
        sum: 0.0,
    };
    assert_eq!(w.percentile(75.0), plat_idx_to_val(100));
}

/// A percentile above 100 is never reached (its threshold exceeds every count; here
/// 200 % of 2^63 is 2^64).
#[test]
fn percentile_above_100_is_never_reached() {
    let w = SparseHistogram {
        buckets: vec![(100, 1 << 63)],
        count: 1 << 63,
        sum: 0.0,
    };
    assert_eq!(w.percentile(200.0), 0);
    assert_eq!(w.percentile(100.0), plat_idx_to_val(100));
}
