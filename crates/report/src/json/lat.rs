//! fio's `add_ddir_lat_json`: one `slat_ns`/`clat_ns`/`lat_ns` object.

use super::value::Object;
use ferrio_stats::LatencyHistogram;

/// fio's FIO_IO_U_LIST_MAX_LEN: at most this many percentiles are printed.
pub const MAX_PERCENTILES: usize = 20;

/// The percentile list as fio prints it: fio's list ends at its first 0.0 entry and
/// holds at most [`MAX_PERCENTILES`] values, and fio sorts it ascending in place
/// before computing.
pub fn sorted_list(list: &[f64]) -> Vec<f64> {
    let mut l: Vec<f64> = list
        .iter()
        .copied()
        .take(MAX_PERCENTILES)
        .take_while(|&p| p != 0.0)
        .collect();
    l.sort_by(|a, b| a.total_cmp(b));
    l
}

/// `{min, max, mean, stddev, N[, percentile[, bins]]}`. The percentile object is
/// present when `percentiles` is set and the histogram has samples; "bins" (json+)
/// only together with it. Percentiles and bins cover ferrio's full range: the bin
/// keys are fio's (`plat_idx_to_val` of each non-empty bucket, in decimal), and past
/// fio's ~17.1 s ceiling the same formula continues instead of clamping every longer
/// latency into fio's last bucket (README, "Where ferrio differs").
pub fn lat_object(h: &LatencyHistogram, percentiles: bool, list: &[f64], plus: bool) -> Object {
    let mut o = Object::new();
    o.int("min", h.min())
        .int("max", h.max())
        .float("mean", h.mean())
        .float("stddev", h.stddev())
        .int("N", h.count());
    if percentiles && h.count() > 0 {
        // fio adds the object even when its list is empty.
        let list = sorted_list(list);
        let vals = h.percentiles(&list);
        let mut p = Object::new();
        for (pct, v) in list.iter().zip(vals) {
            p.int(&super::value::fmt_f(*pct), v);
        }
        o.obj("percentile", p);
        if plus {
            let mut b = Object::new();
            for (v, c) in h.bins() {
                b.int(&v.to_string(), c);
            }
            o.obj("bins", b);
        }
    }
    o
}
