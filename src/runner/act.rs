//! ACT's per-thread latency slices (fio's `profiles/act.c`, attached by
//! `profile=act` or `--profile=act`): each completion's latency is counted in the
//! current hour's slice; the slices of every thread are summed after the run and
//! printed with `ferrio_report::act` before the normal output, as fio does. Only a job with the report attached has a
//! counter, and the completion path looks at it behind its one extras test.
//!
//! As fio's act_io_u_lat, the I/O that closes a slice of the test-duration over a
//! pass criterion fails (EPERM, fio's return of 1 from the hook): the job stops with
//! that error unless continue_on_error and ignore_error=EPERM let it go on.

use crate::runner::RunResults;
use ferrio_report::act::{self, Slice, SLICE_SECS};

/// One thread's slices.
#[derive(Clone, Debug, Default)]
pub struct ActCounter {
    pub slices: Vec<Slice>,
    /// The current slice and when it began (ns).
    cur: usize,
    start_ns: u64,
    /// The slices of test-duration: only those are judged when they close (fio has
    /// no others).
    judged: usize,
}

impl ActCounter {
    /// `min_slices`: slices shown even when the run never reaches them, and judged
    /// when they close (0: none shown, 24 judged).
    pub fn new(now_ns: u64, min_slices: u32) -> Box<Self> {
        Box::new(ActCounter {
            slices: vec![Slice::default(); (min_slices as usize).max(1)],
            cur: 0,
            start_ns: now_ns,
            // profile=act alone: fio's default test-duration, 24 hours.
            judged: if min_slices == 0 {
                24
            } else {
                min_slices as usize
            },
        })
    }

    /// The end of ramp_time at `now`: the counts so far are dropped.
    pub fn restart(&self, now_ns: u64) -> Box<Self> {
        let mut c = ActCounter::new(now_ns, 0);
        c.slices = vec![Slice::default(); self.slices.len()];
        c.judged = self.judged;
        c
    }

    /// One completion: as fio, the I/O that finds its slice an hour old is the
    /// slice's last, and the next slice starts then (a run longer than its
    /// test-duration gets more slices, where fio drops those I/Os). Returns the
    /// error of that last I/O when the slice fails a criterion.
    #[inline]
    pub fn record(&mut self, now_ns: u64, lat_ns: u64) -> Option<String> {
        if self.cur == self.slices.len() {
            self.slices.push(Slice::default());
        }
        self.slices[self.cur].record(lat_ns);
        if now_ns.saturating_sub(self.start_ns) < SLICE_SECS * 1_000_000_000 {
            return None;
        }
        self.start_ns = now_ns;
        self.cur += 1;
        if self.cur > self.judged {
            return None;
        }
        let (pct, c) = self.slices[self.cur - 1].first_failure()?;
        Some(format!(
            "act: slice {}: {pct:.2}% of I/Os over {} ms exceeds the pass criterion of {:.1}%",
            self.cur,
            c.max_us / 1000,
            c.max_perm as f64 / 10.0
        ))
    }
}

/// The run's table: every thread's slices summed, slice by slice (empty when no
/// job has the report attached).
pub fn render(results: &RunResults) -> String {
    let mut sum: Vec<Slice> = Vec::new();
    let mut any = false;
    for (_, r) in &results.threads {
        let Some(c) = &r.stats.act else { continue };
        any = true;
        if sum.len() < c.slices.len() {
            sum.resize(c.slices.len(), Slice::default());
        }
        for (a, b) in sum.iter_mut().zip(&c.slices) {
            a.add(b);
        }
    }
    if !any {
        return String::new();
    }
    act::render(&sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_ends_with_the_io_that_finds_it_an_hour_old() {
        let h = SLICE_SECS * 1_000_000_000;
        let mut c = ActCounter::new(5, 2);
        c.record(10, 2_000_000);
        c.record(h + 5, 10);
        c.record(h + 6, 70_000_000);
        assert_eq!(c.slices[0].total, 2);
        assert_eq!(c.slices[0].over, [1, 0, 0]);
        assert_eq!(c.slices[1].over, [0, 0, 1]);
        // Beyond the slices asked for, more are added.
        c.record(2 * h + 6, 10);
        c.record(2 * h + 7, 10);
        assert_eq!(c.slices.len(), 3);
        assert_eq!(c.slices[2].total, 1);
    }

    #[test]
    fn the_io_closing_a_slice_over_a_criterion_fails() {
        let h = SLICE_SECS * 1_000_000_000;
        let mut c = ActCounter::new(0, 2);
        // Slice 1: 1 of 20 I/Os over 8 ms is 5 %, past 8 ms's 1 %; only the I/O
        // that closes the slice (an hour on) fails.
        assert_eq!(c.record(1, 9_000_000), None);
        for i in 0..18 {
            assert_eq!(c.record(2 + i, 10_000), None);
        }
        let e = c.record(h, 10_000).expect("slice 1 fails");
        assert_eq!(
            e,
            "act: slice 1: 5.00% of I/Os over 8 ms exceeds the pass criterion of 1.0%"
        );
        // Slice 2 passes: its closing I/O is fine.
        assert_eq!(c.record(h + 1, 10_000), None);
        assert_eq!(c.record(2 * h, 10_000), None);
        // Past test-duration's slices nothing is judged (fio has no slice for them).
        c.record(2 * h + 1, 90_000_000);
        assert_eq!(c.record(3 * h, 90_000_000), None);
        // fio's order: the 1 ms criterion (5 %) is checked first.
        let mut c = ActCounter::new(0, 1);
        c.record(1, 2_000_000);
        assert!(c.record(h, 70_000_000).unwrap().contains("over 1 ms"));
    }
}
