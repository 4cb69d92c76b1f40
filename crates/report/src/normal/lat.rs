//! The `lat (nsec)   : 20=8.00%, 50=91.96%` lines (fio's `show_latencies`).
//!
//! Buckets are percents of all issued reads, writes and trims; empty buckets are left
//! out, a non-empty one shows at least 0.01%, five entries go on a line.

use ferrio_stats::LatencyBuckets;

use super::dist::lat_dist;

const RANGES: [&str; 12] = [
    "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000=",
];

/// All three unit groups (nsec, usec, msec) for `total` issued I/Os.
pub fn render(b: &LatencyBuckets, total: u64) -> String {
    let mut out = String::new();
    out.push_str(&unit_lines(&lat_dist(&b.ns, total), "nsec"));
    out.push_str(&unit_lines(&lat_dist(&b.us, total), "usec"));
    out.push_str(&unit_lines(&lat_dist(&b.ms, total), "msec"));
    out
}

/// The lines of one unit: "" when every bucket is empty.
pub fn unit_lines(pct: &[f64], unit: &str) -> String {
    let mut out = String::new();
    let mut on_line = 0;
    for (i, &p) in pct.iter().enumerate() {
        if p <= 0.0 {
            continue;
        }
        if on_line == 0 {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("  lat ({unit})   : "));
        } else {
            out.push_str(", ");
        }
        out.push_str(&format!("{}{:3.2}%", RANGES[i], p));
        on_line = (on_line + 1) % 5;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33 stat.c show_lat: at most five buckets per line, empty ones left out.
    #[test]
    fn five_buckets_per_line() {
        let pct = [
            0.0, 22.27, 22.66, 3.12, 12.89, 28.12, 10.16, 0.0, 0.39, 0.39,
        ];
        assert_eq!(
            unit_lines(&pct, "usec"),
            "  lat (usec)   : 4=22.27%, 10=22.66%, 20=3.12%, 50=12.89%, 100=28.12%\n  \
             lat (usec)   : 250=10.16%, 750=0.39%, 1000=0.39%\n"
        );
        assert_eq!(unit_lines(&[0.0; 10], "nsec"), "");
    }

    #[test]
    fn wraps_after_five_like_fio() {
        // fio --rw=randrw ... 2 s run: 2000 I/Os
        let b = LatencyBuckets {
            us: [8, 64, 570, 289, 48, 314, 702, 5, 0, 0],
            ..Default::default()
        };
        assert_eq!(
            render(&b, 2000),
            "  lat (usec)   : 2=0.40%, 4=3.20%, 10=28.50%, 20=14.45%, 50=2.40%\n  lat (usec)   : 100=15.70%, 250=35.10%, 500=0.25%\n"
        );
    }

    #[test]
    fn units_in_order_and_tiny_shares() {
        // null engine read: 16384 I/Os
        let b = LatencyBuckets {
            ns: [0, 0, 0, 1311, 15066, 6, 0, 0, 0, 0],
            us: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
            ..Default::default()
        };
        assert_eq!(
            render(&b, 16384),
            "  lat (nsec)   : 20=8.00%, 50=91.96%, 100=0.04%\n  lat (usec)   : 20=0.01%\n"
        );
        let b = LatencyBuckets {
            ms: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3],
            ..Default::default()
        };
        assert_eq!(
            render(&b, 4),
            "  lat (msec)   : 2000=25.00%, >=2000=75.00%\n"
        );
        assert_eq!(render(&LatencyBuckets::default(), 0), "");
    }
}
