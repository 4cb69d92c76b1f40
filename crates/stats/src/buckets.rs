//! Fixed-edge counters fio prints as "lat (usec): 4=39.45%, ..." and "IO depths".
//!
//! The rules are those of fio's `io_u_mark_latency` (with `io_u_mark_lat_nsec/usec/msec`),
//! `io_u_mark_depth`, `io_u_mark_submit` and `io_u_mark_complete`.

/// Upper edges of the ns and us buckets, as fio labels them.
pub const LAT_EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
/// Labels of the ms buckets; the last one is ">=2000".
pub const LAT_MS_EDGES: [u64; 12] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000, 2000];
/// Labels of the depth map (`1, 2, 4, 8, 16, 32, >=64`).
pub const DEPTH_LABELS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
/// Labels of the submit/complete maps (`0, 4, 8, 16, 32, 64, >=64`).
pub const SUBMIT_LABELS: [u32; 7] = [0, 4, 8, 16, 32, 64, 64];

/// Index of `v` (0..=999) among the 10 ns/us buckets: the bucket whose label is the
/// smallest edge strictly above `v` (0-1 -> "2", 2-3 -> "4", 4-9 -> "10", ...,
/// 750-999 -> "1000").
/// A table lookup (v < 1000 always: the callers split units at 1000).
#[inline]
fn sub_1000_index(v: u64) -> usize {
    SUB_1000[v as usize] as usize
}

/// `sub_1000_index` for every v below 1000, built at compile time (one load per
/// latency instead of a search of the edges).
static SUB_1000: [u8; 1000] = {
    let mut table = [0u8; 1000];
    let mut v = 0;
    while v < 1000 {
        let mut i = 0;
        while LAT_EDGES[i] <= v as u64 {
            i += 1;
        }
        table[v] = i as u8;
        v += 1;
    }
    table
};

/// fio's latency distribution buckets (`latency_ns`, `latency_us`, `latency_ms`).
/// A latency below 1 µs goes to `ns`, below 1 ms to `us` (in whole µs), otherwise to
/// `ms` (in whole ms). Within a unit the bucket labelled `L` holds values from the
/// previous label up to `L - 1` (fio's labels are exclusive upper edges): 0-1 ns is
/// "2", 2-3 is "4", 4-9 is "10", ..., 750-999 is "1000"; for ms additionally
/// 1000-1999 is "2000" and 2000 ms or more is ">=2000".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LatencyBuckets {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

impl LatencyBuckets {
    /// Count one completion latency in nanoseconds (fio's io_u_mark_latency).
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.record_n(ns, 1);
    }

    /// Count `n` completions of latency `ns` (the same as `n` calls of `record`).
    #[inline(always)]
    pub fn record_n(&mut self, ns: u64, n: u64) {
        let slot = if ns < 1000 {
            &mut self.ns[sub_1000_index(ns)]
        } else if ns < 1_000_000 {
            &mut self.us[sub_1000_index(ns / 1000)]
        } else {
            let ms = ns / 1_000_000;
            let idx = match ms {
                0..=999 => sub_1000_index(ms),
                1000..=1999 => 10,
                _ => 11,
            };
            &mut self.ms[idx]
        };
        *slot += n;
    }

    pub fn merge(&mut self, other: &LatencyBuckets) {
        for (d, s) in self.ns.iter_mut().zip(other.ns.iter()) {
            *d += s;
        }
        for (d, s) in self.us.iter_mut().zip(other.us.iter()) {
            *d += s;
        }
        for (d, s) in self.ms.iter_mut().zip(other.ms.iter()) {
            *d += s;
        }
    }

    /// Number of latencies counted.
    pub fn total(&self) -> u64 {
        self.ns
            .iter()
            .chain(self.us.iter())
            .chain(self.ms.iter())
            .sum()
    }
}

/// fio's I/O depth maps (`io_u_map`: 1,2,4,8,16,32,>=64 and the submit/complete maps
/// 0,4,8,16,32,64,>=64), plus the submit/complete call counts fio divides by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DepthHistogram {
    pub level: [u64; 7],
    pub submit: [u64; 7],
    pub complete: [u64; 7],
    /// Number of submit calls (fio's total_submit).
    pub total_submit: u64,
    /// Number of reaps (fio's total_complete).
    pub total_complete: u64,
}

/// fio's `__io_u_mark_map` index: 0 | 1-4 | 5-8 | 9-16 | 17-32 | 33-64 | >64.
#[inline]
fn map_index(nr: u32) -> usize {
    match nr {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

impl DepthHistogram {
    /// `nr` I/Os issued while `depth` I/Os were in flight (fio's io_u_mark_depth with
    /// cur_depth = depth): 1 | 2-3 | 4-7 | 8-15 | 16-31 | 32-63 | 64+, each adding `nr`.
    /// Like fio, a depth of 0 (which the runner never reports) lands in ">=64".
    #[inline]
    pub fn record_depth(&mut self, depth: u32, nr: u64) {
        let idx = match depth {
            1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        self.level[idx] += nr;
    }

    /// One submit call that submitted `nr` I/Os: fio's io_u_mark_submit.
    #[inline]
    pub fn record_submit(&mut self, nr: u32) {
        self.submit[map_index(nr)] += 1;
        self.total_submit += 1;
    }

    /// One reap that completed `nr` I/Os: fio's io_u_mark_complete.
    #[inline]
    pub fn record_complete(&mut self, nr: u32) {
        self.complete[map_index(nr)] += 1;
        self.total_complete += 1;
    }

    pub fn merge(&mut self, other: &DepthHistogram) {
        for i in 0..7 {
            self.level[i] += other.level[i];
            self.submit[i] += other.submit[i];
            self.complete[i] += other.complete[i];
        }
        self.total_submit += other.total_submit;
        self.total_complete += other.total_complete;
    }
}

/// fio's `stat_calc_dist`: each count as a percentage of `total`, with non-zero
/// counts below 0.1% shown as 0.1%; all zero when `total` is 0. Used for the
/// "IO depths", "submit" and "complete" lines and JSON "iodepth_*" objects.
pub fn calc_dist(map: &[u64; 7], total: u64) -> [f64; 7] {
    let mut out = [0.0; 7];
    if total == 0 {
        return out;
    }
    for (o, &m) in out.iter_mut().zip(map.iter()) {
        *o = m as f64 / total as f64;
        *o *= 100.0;
        if *o < 0.1 && m != 0 {
            *o = 0.1;
        }
    }
    out
}

/// fio's `stat_calc_lat`: each count as a percentage of `total` (the sum of all
/// completed I/Os), with non-zero counts below 0.01% shown as 0.01%.
pub fn calc_lat_pct<const N: usize>(counts: &[u64; N], total: u64) -> [f64; N] {
    let mut out = [0.0; N];
    if total == 0 {
        return out;
    }
    for (o, &c) in out.iter_mut().zip(counts.iter()) {
        *o = c as f64 / total as f64;
        *o *= 100.0;
        if *o < 0.01 && c != 0 {
            *o = 0.01;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket_of(ns: u64) -> (usize, usize) {
        let mut b = LatencyBuckets::default();
        b.record(ns);
        assert_eq!(b.total(), 1);
        for (unit, arr) in [(0, &b.ns[..]), (1, &b.us[..]), (2, &b.ms[..])] {
            if let Some(i) = arr.iter().position(|&c| c == 1) {
                return (unit, i);
            }
        }
        unreachable!()
    }

    #[test]
    fn the_table_is_the_search_of_the_edges() {
        for v in 0..1000u64 {
            let searched = LAT_EDGES.iter().position(|&e| v < e).unwrap();
            assert_eq!(sub_1000_index(v), searched, "{v}");
        }
    }

    #[test]
    fn nsec_edges() {
        let cases = [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (9, 2),
            (10, 3),
            (19, 3),
            (20, 4),
            (49, 4),
            (50, 5),
            (99, 5),
            (100, 6),
            (249, 6),
            (250, 7),
            (499, 7),
            (500, 8),
            (749, 8),
            (750, 9),
            (999, 9),
        ];
        for (ns, idx) in cases {
            assert_eq!(bucket_of(ns), (0, idx), "{ns} ns");
        }
    }

    #[test]
    fn usec_edges() {
        assert_eq!(bucket_of(1000), (1, 0));
        assert_eq!(bucket_of(1999), (1, 0));
        assert_eq!(bucket_of(2000), (1, 1));
        assert_eq!(bucket_of(3999), (1, 1));
        assert_eq!(bucket_of(4000), (1, 2));
        assert_eq!(bucket_of(9999), (1, 2));
        assert_eq!(bucket_of(10_000), (1, 3));
        assert_eq!(bucket_of(749_999), (1, 8));
        assert_eq!(bucket_of(750_000), (1, 9));
        assert_eq!(bucket_of(999_999), (1, 9));
    }

    #[test]
    fn msec_edges() {
        assert_eq!(bucket_of(1_000_000), (2, 0));
        assert_eq!(bucket_of(1_999_999), (2, 0));
        assert_eq!(bucket_of(2_000_000), (2, 1));
        assert_eq!(bucket_of(999_999_999), (2, 9));
        assert_eq!(bucket_of(1_000_000_000), (2, 10));
        assert_eq!(bucket_of(1_999_999_999), (2, 10));
        assert_eq!(bucket_of(2_000_000_000), (2, 11));
        assert_eq!(bucket_of(u64::MAX), (2, 11));
    }

    #[test]
    fn record_n_equals_repeated_record() {
        for ns in [0, 999, 1000, 999_999, 1_000_000, 1_500_000_000, u64::MAX] {
            let (mut a, mut b) = (LatencyBuckets::default(), LatencyBuckets::default());
            a.record_n(ns, 5);
            a.record_n(ns.wrapping_add(1), 0);
            for _ in 0..5 {
                b.record(ns);
            }
            assert_eq!(a, b, "{ns} ns");
        }
    }

    #[test]
    fn depth_levels() {
        let mut d = DepthHistogram::default();
        for (depth, idx) in [
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (7, 2),
            (8, 3),
            (15, 3),
            (16, 4),
            (31, 4),
            (32, 5),
            (63, 5),
            (64, 6),
            (1000, 6),
            (0, 6),
        ] {
            let before = d.level;
            d.record_depth(depth, 3);
            assert_eq!(d.level[idx], before[idx] + 3, "depth {depth}");
        }
    }

    #[test]
    fn submit_and_complete_maps() {
        let mut d = DepthHistogram::default();
        for (nr, idx) in [
            (0, 0),
            (1, 1),
            (4, 1),
            (5, 2),
            (8, 2),
            (9, 3),
            (16, 3),
            (17, 4),
            (32, 4),
            (33, 5),
            (64, 5),
            (65, 6),
        ] {
            let before = d.submit;
            d.record_submit(nr);
            d.record_complete(nr);
            assert_eq!(d.submit[idx], before[idx] + 1, "nr {nr}");
        }
        assert_eq!(d.submit, d.complete);
        assert_eq!((d.total_submit, d.total_complete), (12, 12));
        let mut m = d.clone();
        m.merge(&d);
        assert_eq!(m.total_submit, 24);
        assert_eq!(m.submit[1], 4);
    }

    #[test]
    fn distributions() {
        assert_eq!(calc_dist(&[1, 999, 0, 0, 0, 0, 2000], 3000)[0], 0.1);
        assert_eq!(calc_dist(&[1, 0, 0, 0, 0, 0, 0], 0), [0.0; 7]);
        let p = calc_lat_pct(&[1u64, 0, 99_999], 100_000);
        assert_eq!(p[0], 0.01);
        assert_eq!(p[1], 0.0);
        assert!((p[2] - 99.999).abs() < 1e-9);
    }
}
