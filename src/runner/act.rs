//! ACT's per-thread latency slices (fio's `profiles/act.c`, attached by
//! `profile=act` or `--profile=act`): each completion's latency is counted in the
//! current hour's slice; the slices of every thread are summed after the run and
//! printed with `ferrio_report::act` before the normal output, as fio does. Only a job with the report attached has a
//! counter, and the completion path looks at it behind its one extras test.

use crate::runner::RunResults;
use ferrio_report::act::{self, Slice, SLICE_SECS};

/// One thread's slices.
#[derive(Clone, Debug, Default)]
pub struct ActCounter {
    pub slices: Vec<Slice>,
    /// The current slice and when it began (ns).
    cur: usize,
    start_ns: u64,
}

impl ActCounter {
    /// `min_slices`: slices shown even when the run never reaches them.
    pub fn new(now_ns: u64, min_slices: u32) -> Box<Self> {
        Box::new(ActCounter {
            slices: vec![Slice::default(); (min_slices as usize).max(1)],
            cur: 0,
            start_ns: now_ns,
        })
    }

    /// The end of ramp_time at `now`: the counts so far are dropped.
    pub fn restart(&self, now_ns: u64) -> Box<Self> {
        let n = self.slices.len().min(u32::MAX as usize) as u32;
        ActCounter::new(now_ns, n)
    }

    /// One completion: as fio, the I/O that finds its slice an hour old is the
    /// slice's last, and the next slice starts then (a run longer than its
    /// test-duration gets more slices, where fio drops those I/Os).
    #[inline]
    pub fn record(&mut self, now_ns: u64, lat_ns: u64) {
        if self.cur == self.slices.len() {
            self.slices.push(Slice::default());
        }
        self.slices[self.cur].record(lat_ns);
        if now_ns.saturating_sub(self.start_ns) >= SLICE_SECS * 1_000_000_000 {
            self.start_ns = now_ns;
            self.cur += 1;
        }
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
}
