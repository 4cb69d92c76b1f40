//! latency_target / latency_window / latency_percentile / latency_run: fio's search
//! for the deepest queue depth whose latency meets a target (io_u.c lat_target_*),
//! learnt from fio 3.33 and written anew.
//!
//! The depth starts at 1 and the search keeps a low and a high bound (1 and
//! iodepth). Every `latency_window` the share of completed I/Os within the target is
//! compared with `latency_percentile`: a success raises the low bound to the current
//! depth and doubles the depth (while the high bound is still iodepth) or bisects
//! towards the high bound; a failure lowers the high bound to the current depth and
//! bisects down. With `latency_percentile=100` one I/O over the target is a failure
//! at once, and at depth 1 it is fatal (ETIMEDOUT). When a success leaves the depth
//! where it was, the search is over: the queue is emptied, the statistics restart,
//! one more window runs at that depth and the job ends — unless `latency_run=1`,
//! which keeps searching for the whole run.

use ferrio_config::ext::pacing::PacingSpec;

/// What the worker must do after a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing (the window is not over, or the depth just moved).
    Go,
    /// Empty the queue, reset the statistics and run the final window at this depth.
    FinalRun,
    /// The final window succeeded: the job is done.
    Done,
}

/// One job's search state.
#[derive(Clone, Debug)]
pub struct LatTarget {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    keep_running: bool,
    iodepth: u32,
    /// The depth in use now (fio's latency_qd), and the search bounds.
    pub qd: u32,
    qd_low: u32,
    qd_high: u32,
    stable: u32,
    /// In the final window (fio's latency_end_run).
    pub final_run: bool,
    /// Start of the current window, and completions / failures counted at its start.
    window_start_ns: u64,
    window_ios: u64,
    failed: u64,
    /// A ramp-down happened: the worker empties the queue (fio quiesces there).
    pub quiesce: bool,
    /// --debug=rate: write fio's lines at each step of the search.
    debug: bool,
}

impl LatTarget {
    /// None when the job has no latency_target.
    pub fn new(p: &PacingSpec, iodepth: u32, now: u64) -> Option<LatTarget> {
        (p.latency_target_ns > 0).then(|| {
            let mut t = LatTarget {
                target_ns: p.latency_target_ns,
                window_ns: p.latency_window_us.saturating_mul(1000),
                percentile: p.latency_percentile,
                keep_running: p.latency_run,
                iodepth: iodepth.max(1),
                qd: 1,
                qd_low: 1,
                qd_high: 1,
                stable: 0,
                final_run: false,
                window_start_ns: now,
                window_ios: 0,
                failed: 0,
                quiesce: false,
                debug: false,
            };
            t.init(now, 0);
            t
        })
    }

    /// --debug=rate: the search writes fio's `rate` lines from now on.
    pub fn with_debug(mut self, on: bool) -> LatTarget {
        self.debug = on;
        self.say(format_args!("Latency target={}", self.target_ns));
        self
    }

    #[cold]
    fn say_cold(&self, msg: std::fmt::Arguments) {
        crate::runner::debug_hooks::say(ferrio_config::DebugCategory::Rate, msg);
    }

    #[inline]
    fn say(&self, msg: std::fmt::Arguments) {
        if self.debug {
            self.say_cold(msg);
        }
    }

    fn init(&mut self, now: u64, ios: u64) {
        self.say(format_args!("Latency target={}", self.target_ns));
        self.final_run = false;
        self.qd = 1;
        self.qd_low = 1;
        self.qd_high = self.iodepth;
        self.window_start_ns = now;
        self.window_ios = ios;
    }

    /// The statistics were reset at `now` (ramp_time over): the search starts again,
    /// unless this is the reset of the final window.
    pub fn reset(&mut self, now: u64) {
        if !self.final_run {
            self.init(now, 0);
        }
        self.window_start_ns = now;
        self.window_ios = 0;
        self.failed = 0;
    }

    fn new_window(&mut self, now: u64, ios: u64) {
        self.window_start_ns = now;
        self.window_ios = ios;
        self.failed = 0;
    }

    /// An I/O completed with total latency `lat_ns`, `ios` completions so far. Err
    /// when it breaks the target at depth 1 with latency_percentile=100 (fio: fatal,
    /// ETIMEDOUT): the limit is returned.
    pub fn completed(&mut self, lat_ns: u64, now: u64, ios: u64) -> Result<(), u64> {
        if lat_ns <= self.target_ns {
            return Ok(());
        }
        if self.percentile == 100.0 {
            if self.ramp_down(now, ios) {
                return Err(self.target_ns);
            }
        } else {
            self.failed += 1;
        }
        Ok(())
    }

    /// A window failed: bisect down. True at depth 1 (nothing left to try).
    fn ramp_down(&mut self, now: u64, ios: u64) -> bool {
        if self.qd == 1 {
            return true;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = (self.qd + self.qd_low) / 2;
        self.stable = 0;
        let (l, q, h) = (self.qd_low, self.qd, self.qd_high);
        self.say(format_args!("Ramped down: {l} {q} {h}"));
        self.quiesce = true;
        self.new_window(now, ios);
        false
    }

    fn ramp_up(&mut self, now: u64, ios: u64) -> Step {
        let before = self.qd;
        self.qd_low = self.qd;
        if self.qd + 1 == self.qd_high {
            // Stuck one below the high bound: after three successes in a row, the
            // bound moves up by one (fio's heuristic).
            self.stable += 1;
            if self.stable >= 3 {
                self.qd_high += 1;
                self.stable = 0;
            }
        }
        self.qd = if self.qd_high != self.iodepth {
            (self.qd + self.qd_high) / 2
        } else {
            self.qd * 2
        };
        self.qd = self.qd.min(self.iodepth);
        let (l, q, h) = (self.qd_low, self.qd, self.qd_high);
        self.say(format_args!("Ramped up: {l} {q} {h}"));
        let mut step = Step::Go;
        if !self.keep_running && self.qd == before {
            step = if self.final_run {
                self.say(format_args!("We are done"));
                Step::Done
            } else {
                self.say(format_args!("Quiesce and final run"));
                self.final_run = true;
                Step::FinalRun
            };
        }
        self.new_window(now, ios);
        step
    }

    /// After a step at `now` with `ios` completions so far: at the end of a window,
    /// judge it.
    pub fn check(&mut self, now: u64, ios: u64) -> Step {
        if now.saturating_sub(self.window_start_ns) < self.window_ns {
            return Step::Go;
        }
        let n = ios.saturating_sub(self.window_ios);
        // fio divides by the count: a window without completions is a failure (NaN).
        let rate = (n - self.failed.min(n)) as f64 * 100.0 / n as f64;
        let pct = self.percentile;
        self.say(format_args!("Success rate: {rate:.2}% (target {pct:.2}%)"));
        let ok = n > 0 && rate >= pct;
        if ok {
            self.ramp_up(now, ios)
        } else {
            self.ramp_down(now, ios);
            Step::Go
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(depth: u32, pct: f64, run: bool) -> LatTarget {
        let p = PacingSpec {
            latency_target_ns: 1000,
            latency_window_us: 1,
            latency_percentile: pct,
            latency_run: run,
            ..Default::default()
        };
        LatTarget::new(&p, depth, 0).unwrap()
    }

    /// Drive windows where every depth up to `max_ok` meets the target and deeper
    /// ones miss it entirely; returns the depths visited and the final step.
    fn search(t: &mut LatTarget, max_ok: u32, windows: usize) -> (Vec<u32>, Step) {
        let (mut now, mut ios, mut seen) = (0, 0, vec![t.qd]);
        for _ in 0..windows {
            now += 1000;
            ios += 10;
            if t.qd > max_ok {
                t.failed = 10;
            }
            let s = t.check(now, ios);
            seen.push(t.qd);
            if s == Step::Done {
                return (seen, s);
            }
        }
        (seen, Step::Go)
    }

    #[test]
    fn doubles_then_bisects_to_the_deepest_depth_that_meets_the_target() {
        let mut t = target(64, 99.0, false);
        let (seen, step) = search(&mut t, 12, 100);
        assert_eq!(step, Step::Done);
        // 1 2 4 8 16(miss) → 12 → 14(miss) → 13(miss) → 12 ... stable at 12.
        assert_eq!(&seen[..8], &[1, 2, 4, 8, 16, 12, 14, 13]);
        assert_eq!(t.qd, 12);
        assert!(t.final_run);
    }

    #[test]
    fn the_whole_depth_when_every_depth_meets_it_and_latency_run_keeps_going() {
        let mut t = target(16, 100.0, false);
        let (seen, step) = search(&mut t, 16, 100);
        assert_eq!(
            (seen.as_slice(), step),
            (&[1, 2, 4, 8, 16, 16, 16][..], Step::Done)
        );
        let mut t = target(16, 100.0, true);
        let (_, step) = search(&mut t, 16, 100);
        assert_eq!((step, t.qd), (Step::Go, 16));
    }

    #[test]
    fn at_percentile_100_one_slow_io_ramps_down_and_is_fatal_at_depth_1() {
        let mut t = target(8, 100.0, false);
        for (now, qd) in [(1000, 2), (2000, 4), (3000, 8)] {
            t.check(now, now / 100);
            assert_eq!(t.qd, qd);
        }
        assert_eq!(t.completed(999, 3000, 30), Ok(()));
        assert_eq!(t.completed(1001, 3000, 30), Ok(()));
        // Bisect between the low bound (4) and the failed depth; at the low bound
        // itself the bound gives way.
        assert_eq!((t.qd, t.quiesce), (6, true));
        let mut seen = vec![];
        while t.qd > 1 {
            t.completed(5000, 3000, 30).unwrap();
            seen.push(t.qd);
        }
        assert_eq!(seen, [5, 4, 3, 2, 1]);
        assert_eq!(t.completed(5000, 3000, 30), Err(1000));
    }

    #[test]
    fn stuck_one_below_the_high_bound_the_bound_moves_up_after_three_successes() {
        // latency_run: the search goes on; 12 meets the target, 13 does not.
        let mut t = target(64, 99.0, true);
        let (seen, _) = search(&mut t, 12, 14);
        // After 13 missed: three successes at 12, then fio's heuristic tries 13 again.
        assert_eq!(&seen[7..], &[13, 12, 12, 12, 13, 12, 12, 12]);
    }
}
