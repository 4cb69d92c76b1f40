//! The ACT profile's report (fio's `profiles/act.c`): per slice of an hour, the
//! share of I/Os whose latency is over 1, 8 and 64 ms, and a PASSED/FAILED verdict
//! from ACT's pass criteria. The runner counts the slices (`src/runner/act.rs`);
//! this module only judges and prints them, in fio's layout.

/// One criterion: I/Os over `max_us` microseconds may be less than `max_perm`
/// per mille of a slice's I/Os.
pub struct Criterion {
    pub max_us: u64,
    pub max_perm: u32,
}

/// ACT's criteria, as fio's act profile has them.
pub const CRITERIA: [Criterion; 3] = [
    Criterion {
        max_us: 1_000,
        max_perm: 50,
    },
    Criterion {
        max_us: 8_000,
        max_perm: 10,
    },
    Criterion {
        max_us: 64_000,
        max_perm: 1,
    },
];

/// Seconds in a slice (fio's SAMPLE_SEC: hourly checks).
pub const SLICE_SECS: u64 = 3600;

/// One slice's counts. An I/O is counted in the bucket of the highest threshold
/// it exceeds only (as fio: the buckets are the ranges 1-8 ms, 8-64 ms, > 64 ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slice {
    pub over: [u64; 3],
    pub total: u64,
}

impl Slice {
    /// Count one I/O of `lat_ns` nanoseconds (fio compares whole microseconds).
    #[inline]
    pub fn record(&mut self, lat_ns: u64) {
        self.total += 1;
        let us = lat_ns / 1000;
        if let Some(i) = CRITERIA.iter().rposition(|c| us > c.max_us) {
            self.over[i] += 1;
        }
    }

    pub fn add(&mut self, o: &Slice) {
        self.total += o.total;
        for (a, b) in self.over.iter_mut().zip(o.over) {
            *a += b;
        }
    }

    /// Percent of the slice's I/Os in each bucket (0 for an empty slice).
    fn percents(&self) -> [f64; 3] {
        self.over.map(|n| match self.total {
            0 => 0.0,
            t => 100.0 * n as f64 / t as f64,
        })
    }

    /// Whether the slice fails a criterion (its share in per mille reaches the limit).
    pub fn failed(&self) -> bool {
        self.first_failure().is_some()
    }

    /// The first criterion the slice fails, in fio's order (1 ms, 8 ms, 64 ms), with
    /// the slice's percentage over it.
    pub fn first_failure(&self) -> Option<(f64, &'static Criterion)> {
        self.percents()
            .into_iter()
            .zip(&CRITERIA)
            .find(|(p, c)| p * 10.0 >= c.max_perm as f64)
    }
}

/// Whether every slice passes.
pub fn passed(slices: &[Slice]) -> bool {
    !slices.iter().any(Slice::failed)
}

/// fio's table: the "trans" and "device" columns (fio fills both from the same
/// counts), one row per slice, then the verdict.
pub fn render(slices: &[Slice]) -> String {
    let mut out = String::from("        trans                   device\n");
    out.push_str("        %>(ms)                  %>(ms)\n");
    out.push_str(" slice");
    for c in CRITERIA.iter().chain(&CRITERIA) {
        out.push_str(&format!("\t {:2}", c.max_us / 1000));
    }
    out.push_str("\n -----  -----   -----  ------   -----   -----  ------\n");
    for (i, s) in slices.iter().enumerate() {
        out.push_str(&format!("   {:2}", i + 1));
        let p = s.percents();
        for v in p.iter().chain(&p) {
            out.push_str(&format!("\t{v:.2}"));
        }
        out.push('\n');
    }
    let verdict = if passed(slices) { "PASSED" } else { "FAILED" };
    out.push_str(&format!("\nact: test complete, device(s): {verdict}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(lats_us: &[u64]) -> Slice {
        let mut s = Slice::default();
        for &u in lats_us {
            s.record(u * 1000);
        }
        s
    }

    #[test]
    fn each_io_counts_in_its_highest_bucket_only() {
        let s = slice(&[1000, 1001, 8000, 8001, 64000, 64001, 5]);
        assert_eq!(s.over, [2, 2, 1]);
        assert_eq!(s.total, 7);
        // 1000.999 us is 1000 whole microseconds: not over 1 ms.
        let mut t = Slice::default();
        t.record(1_000_999);
        assert_eq!(t.over, [0, 0, 0]);
    }

    #[test]
    fn the_limits_are_reached_at_their_per_mille() {
        // 5 % over 1 ms fails; 4.9 % passes.
        let mut lats = vec![10; 95];
        lats.extend([2000; 5]);
        assert!(slice(&lats).failed());
        let mut lats = vec![10; 951];
        lats.extend([2000; 49]);
        assert!(!slice(&lats).failed());
        // 0.1 % over 64 ms fails.
        let mut lats = vec![10; 999];
        lats.push(70_000);
        assert!(slice(&lats).failed());
        assert!(!Slice::default().failed());
    }

    #[test]
    fn the_table_has_fios_layout() {
        let mut lats = vec![10; 90];
        lats.extend([2000; 6]);
        lats.extend([9000; 3]);
        lats.push(70_000);
        let t = render(&[slice(&lats), Slice::default()]);
        let want = "        trans                   device\n\
                    \x20       %>(ms)                  %>(ms)\n\
                    \x20slice\t  1\t  8\t 64\t  1\t  8\t 64\n\
                    \x20-----  -----   -----  ------   -----   -----  ------\n\
                    \x20   1\t6.00\t3.00\t1.00\t6.00\t3.00\t1.00\n\
                    \x20   2\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00\n\
                    \n\
                    act: test complete, device(s): FAILED\n";
        assert_eq!(t, want);
        assert!(render(&[slice(&[10, 20])]).ends_with("device(s): PASSED\n"));
    }
}
