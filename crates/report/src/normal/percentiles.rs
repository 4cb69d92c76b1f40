//! The `clat percentiles (usec):` tables (fio's `show_clat_percentiles`).
//!
//! Values come from the histogram in nanoseconds; the unit is chosen from the smallest
//! and largest value shown, values are scaled by rounding up, the column is at least five
//! wide, and as many entries as fit in 73 columns go on each `     |` row.

use ferrio_stats::LatencyHistogram;

use crate::units::PercentileScale;

/// fio keeps at most this many percentiles (FIO_IO_U_LIST_MAX_LEN).
pub const MAX_LEN: usize = 20;

/// A job's percentile list as fio uses it: up to the first 0 and at most 20 entries,
/// sorted ascending, with the number of decimals the entries were written with.
#[derive(Clone, Debug, PartialEq)]
pub struct PercentileList {
    pub values: Vec<f64>,
    pub precision: usize,
}

impl PercentileList {
    pub fn new(list: &[f64]) -> PercentileList {
        let mut values: Vec<f64> = list
            .iter()
            .copied()
            .take_while(|&p| p != 0.0)
            .take(MAX_LEN)
            .collect();
        values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        // fio counts the digits after the point as typed; the shortest decimal spelling of
        // each value gives the same count unless trailing zeros were typed ("99.90").
        let precision = values
            .iter()
            .map(|p| {
                let s = p.to_string();
                s.find('.').map_or(0, |i| s.len() - i - 1)
            })
            .max()
            .unwrap_or(0);
        PercentileList { values, precision }
    }

    /// Percentile values in ns, in list order; all 0 for an empty histogram, as fio's
    /// calculation yields when it has no samples.
    pub fn values_of(&self, h: &LatencyHistogram) -> Vec<u64> {
        if h.count() == 0 {
            vec![0; self.values.len()]
        } else {
            h.percentiles(&self.values)
        }
    }
}

/// The table for one histogram (`pre` is "clat", "lat", "slat" or "sync"), or "" when the
/// histogram is empty or the list is.
pub fn table(h: &LatencyHistogram, list: &PercentileList, pre: &str) -> String {
    if h.count() == 0 || list.values.is_empty() {
        return String::new();
    }
    let vals = list.values_of(h);
    render(&vals, list, pre)
}

/// Lays out already computed percentile values (ns).
pub fn render(vals: &[u64], list: &PercentileList, pre: &str) -> String {
    let minv = vals.iter().copied().min().unwrap_or(0);
    let maxv = vals.iter().copied().max().unwrap_or(0);
    let scale = PercentileScale::choose(minv, maxv);
    let width = scale.width(maxv);
    let prec = list.precision;
    let per_line = ((80 - 7) / (prec + 10 + width)).max(1);

    let mut out = format!("    {} percentiles ({}):\n     |", pre, scale.unit.name());
    let len = vals.len();
    for (j, (&p, &v)) in list.values.iter().zip(vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j == len - 1;
        out.push_str(&format!(
            " {:>pw$.prec$}th=[{:>width$}]{}",
            p,
            scale.scale(v),
            if last { '\n' } else { ',' },
            pw = prec + 3,
        ));
        if last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No table for an empty histogram, nor for an empty list (fio 3.33 show_clat:
    /// percentiles only when there are samples and a list).
    #[test]
    fn no_table_without_samples_or_list() {
        let list = PercentileList::new(&[50.0, 99.0]);
        assert_eq!(table(&LatencyHistogram::new(), &list, "clat"), "");
        let mut h = LatencyHistogram::new();
        h.record(1000);
        assert!(!table(&h, &list, "clat").is_empty());
        assert_eq!(table(&h, &PercentileList::new(&[]), "clat"), "");
    }

    const DEFAULT: [f64; 17] = [
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ];

    #[test]
    fn list_rules() {
        let l = PercentileList::new(&DEFAULT);
        assert_eq!(l.precision, 2);
        assert_eq!(l.values.len(), 17);
        let l = PercentileList::new(&[99.0, 50.0]);
        assert_eq!(l.values, vec![50.0, 99.0]);
        assert_eq!(l.precision, 0);
        let l = PercentileList::new(&[50.0, 99.5, 0.0, 99.999]);
        assert_eq!(l.values, vec![50.0, 99.5]);
        assert_eq!(l.precision, 1);
        let many: Vec<f64> = (1..=30).map(|i| i as f64).collect();
        assert_eq!(PercentileList::new(&many).values.len(), 20);
    }

    #[test]
    fn usec_table_like_fio() {
        // Read clat percentiles of `fio --rw=randrw --bs=4k --size=1M --ioengine=psync`
        // (fio 3.33), values as the histogram's bucket values in ns.
        let ns = [
            51968, 52992, 54528, 54528, 55552, 55552, 56576, 56576, 57600, 60160, 71168, 75264,
            107008, 254976, 254976, 254976, 254976,
        ];
        let out = render(&ns, &PercentileList::new(&DEFAULT), "clat");
        let want = "    clat percentiles (usec):
     |  1.00th=[   52],  5.00th=[   53], 10.00th=[   55], 20.00th=[   55],
     | 30.00th=[   56], 40.00th=[   56], 50.00th=[   57], 60.00th=[   57],
     | 70.00th=[   58], 80.00th=[   61], 90.00th=[   72], 95.00th=[   76],
     | 99.00th=[  108], 99.50th=[  255], 99.90th=[  255], 99.95th=[  255],
     | 99.99th=[  255]
";
        assert_eq!(out, want);
    }

    #[test]
    fn nsec_table_six_wide() {
        // kb_base=1000 run: `99.00th=[203776], 99.50th=[246784]` makes the column 6 wide
        let ns = [
            644, 708, 724, 764, 804, 820, 844, 868, 924, 980, 1080, 1208, 203776, 246784, 358400,
            358400, 358400,
        ];
        let out = render(&ns, &PercentileList::new(&DEFAULT), "clat");
        let want = "    clat percentiles (nsec):
     |  1.00th=[   644],  5.00th=[   708], 10.00th=[   724], 20.00th=[   764],
     | 30.00th=[   804], 40.00th=[   820], 50.00th=[   844], 60.00th=[   868],
     | 70.00th=[   924], 80.00th=[   980], 90.00th=[  1080], 95.00th=[  1208],
     | 99.00th=[203776], 99.50th=[246784], 99.90th=[358400], 99.95th=[358400],
     | 99.99th=[358400]
";
        assert_eq!(out, want);
    }

    #[test]
    fn short_list_precision_zero() {
        // `--percentile_list=50:99 --lat_percentiles=1`:
        let l = PercentileList::new(&[50.0, 99.0]);
        assert_eq!(
            render(&[4896, 47360], &l, "clat"),
            "    clat percentiles (nsec):\n     |  50th=[ 4896],  99th=[47360]\n"
        );
        assert_eq!(
            render(&[97792, 987136], &l, "sync"),
            "    sync percentiles (usec):\n     |  50th=[   98],  99th=[  988]\n"
        );
    }

    #[test]
    fn unsorted_list_is_sorted_and_precision_follows_the_entries() {
        // fio --percentile_list=99.9:50:1.25 --clat_percentiles=0 --lat_percentiles=1:
        //     |  1.25th=[   502], 50.00th=[   548], 99.90th=[333824]
        let l = PercentileList::new(&[99.9, 50.0, 1.25]);
        assert_eq!(l.values, vec![1.25, 50.0, 99.9]);
        assert_eq!(l.precision, 2);
        assert_eq!(
            render(&[502, 548, 333_824], &l, "lat"),
            "    lat percentiles (nsec):\n     |  1.25th=[   502], 50.00th=[   548], 99.90th=[333824]\n"
        );
    }

    #[test]
    fn row_breaks_at_exact_multiple() {
        // 8 entries at 4 per row: the last row ends with '\n' once, no empty "|" row.
        let l = PercentileList::new(&[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.5]);
        let out = render(&[1, 2, 3, 4, 5, 6, 7, 8], &l, "lat");
        assert_eq!(
            out,
            "    lat percentiles (nsec):
     | 10.0th=[    1], 20.0th=[    2], 30.0th=[    3], 40.0th=[    4],
     | 50.0th=[    5], 60.0th=[    6], 70.0th=[    7], 80.5th=[    8]
"
        );
    }
}
