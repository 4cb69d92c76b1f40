//! The report's number rules at their boundaries, where an off-by-one or a swapped
//! operator would change what is printed.

use ferrio_report::interval::{line, LineData};
use ferrio_report::units::{num2str, LatUnit, N2sUnit, PercentileScale};
use ferrio_stats::LatencyHistogram;

/// fio 3.33 stat.c nsec_to_usec / nsec_to_msec: strict `>` on min, max and stdev.
#[test]
fn latency_unit_thresholds_are_strict() {
    assert_eq!(LatUnit::choose(2001, 100_000, 1000.5), LatUnit::Usec);
    assert_eq!(LatUnit::choose(2000, 1_000_000, 5000.0), LatUnit::Nsec);
    assert_eq!(LatUnit::choose(3000, 99_999, 5000.0), LatUnit::Nsec);
    assert_eq!(LatUnit::choose(3000, 100_000, 1000.0), LatUnit::Nsec);
    assert_eq!(
        LatUnit::choose(2_000_001, 100_000_000, 1_000_000.5),
        LatUnit::Msec
    );
    assert_eq!(LatUnit::choose(2_000_000, 900_000_000, 9e6), LatUnit::Usec);
    assert_eq!(LatUnit::choose(3_000_000, 99_999_999, 9e6), LatUnit::Usec);
    assert_eq!(
        LatUnit::choose(3_000_000, 900_000_000, 1_000_000.0),
        LatUnit::Usec
    );
}

/// fio 3.33 stat.c show_clat_percentiles: the table's unit from its smallest and
/// largest value, both conditions needed.
#[test]
fn percentile_scale_needs_both_bounds() {
    let s = |a, b| PercentileScale::choose(a, b).unit;
    assert_eq!(s(2_000_001, 100_000_000), LatUnit::Msec);
    assert_eq!(s(3_000_000, 5_000_000), LatUnit::Usec);
    assert_eq!(s(1_000, 900_000_000), LatUnit::Nsec);
    assert_eq!(s(2_000, 900_000), LatUnit::Nsec);
    assert_eq!(s(2_001, 99_999), LatUnit::Nsec);
    assert_eq!(s(2_001, 100_000), LatUnit::Usec);
    assert_eq!(PercentileScale::choose(2_001, 100_000).scale(2_001), 3);
}

/// fio 3.33 lib/num2str.c: the division stops after the last prefix ("P"); one step
/// past it the number is printed without a prefix (the index wraps to 0).
#[test]
fn num2str_past_the_last_prefix() {
    // 18446744073709551615 / 1000^6 = 18, one step past "P": no prefix.
    assert_eq!(num2str(u64::MAX, 2, 1, false, N2sUnit::None), "18");
    assert_eq!(num2str(u64::MAX, 5, 1, false, N2sUnit::None), "18447P"); // 744 left over: rounds up
    assert_eq!(
        num2str(u64::MAX, 20, 1, false, N2sUnit::None),
        "18446744073709551615"
    );
    // Even when it still does not fit: 18 in 1 digit, 16383 (KiB based) in 4.
    assert_eq!(num2str(u64::MAX, 1, 1, false, N2sUnit::None), "18");
    assert_eq!(num2str(u64::MAX, 4, 1024, true, N2sUnit::None), "16384");
    assert_eq!(num2str(999, 3, 1, false, N2sUnit::None), "999");
    assert_eq!(num2str(1000, 3, 1, false, N2sUnit::None), "1.0k");
    assert_eq!(num2str(1000, 4, 1, false, N2sUnit::None), "1000");
    assert_eq!(num2str(10000, 4, 1, false, N2sUnit::None), "10.0k");
}

/// The interval line's rates are per second of the interval, not per interval.
#[test]
fn interval_line_rates_per_second() {
    let mut h = LatencyHistogram::new();
    h.record(1000);
    let d = LineData {
        dir: "read",
        elapsed_ms: 4000,
        span_ms: 2000,
        ios: 1000,
        bytes: 4 << 20,
        lat: &h,
        percentiles: &[],
        total: false,
    };
    let s = line(&d);
    assert!(s.contains("  500.0 ios/s"), "{s}");
    assert!(s.contains("   2.00 MiB/s"), "{s}");
    assert!(s.starts_with("  4.000s read "), "{s}");
}

/// fio 3.33 stat.c convert_agg_kbytes_percent: only an aggregate above 1024 B/s is
/// divided by; the job's mean is truncated to an int first; capped at 100.
#[test]
fn bandwidth_share_of_the_group() {
    use ferrio_report::json::ddir::bw_agg_percent;
    use ferrio_report::GroupDir;
    let g = |agg_bw| GroupDir {
        agg_bw,
        ..GroupDir::default()
    };
    assert_eq!(bw_agg_percent(Some(&g(1024)), 0.5), 100.0);
    assert_eq!(bw_agg_percent(Some(&g(1025)), 0.9), 0.0);
    assert_eq!(bw_agg_percent(Some(&g(4096)), 2.9), 50.0);
    assert_eq!(bw_agg_percent(Some(&g(4096)), 4.5), 100.0);
    assert_eq!(bw_agg_percent(Some(&g(40960)), 10.0), 25.0);
    assert_eq!(bw_agg_percent(None, 10.0), 100.0);
}

/// The interval line's latency format switches unit at 10 000 of the smaller one.
#[test]
fn interval_latency_units_switch_at_ten_thousand() {
    use ferrio_report::interval::fmt_lat;
    assert_eq!(fmt_lat(9_999.0), "9999ns");
    assert_eq!(fmt_lat(10_000.0), "10.0us");
    assert_eq!(fmt_lat(9_999_999.0), "10000.0us");
    assert_eq!(fmt_lat(10_000_000.0), "10.0ms");
    assert_eq!(fmt_lat(10_000_000_000.0), "10.0s");
}

/// Compact JSON escapes control characters only; a space stays a space.
#[test]
fn compact_json_escapes_control_characters_only() {
    use ferrio_report::interval::compact;
    use ferrio_report::json::value::Object;
    let mut o = Object::new();
    o.str("a b", "x\u{1f} y\u{7f}");
    assert_eq!(compact(&o), "{\"a b\":\"x\\u001f y\u{7f}\"}");
}
