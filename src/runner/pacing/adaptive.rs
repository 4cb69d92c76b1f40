//! ferrio's adaptive pacer (pacer_period=, pacer_tune=, pacer_step=): the rate-based
//! I/O pacer of the SPDK pacing study (its Test 14), as a job option.
//!
//! At most one I/O leaves the pacer per *period*. Every tuning period the pacer
//! measures the I/O period (the tuning period over the I/Os that left in it; the
//! tuning period itself when none did) and moves its period one step toward the
//! measured period less one step, never below the configured floor nor above twice
//! it: measured 35 µs at a period of 25 µs gives 26 µs; measured 22.9 µs at a floor
//! of 22.8 µs stays 22.8 µs. A pacer that is not tuned (pacer_tune=0) is the study's
//! fixed pacer (its Test 15).
//!
//! Unlike rate=, the pacer spaces submissions without first emptying the queue: it
//! sits in front of a device that has other I/Os in flight, as the study's does.

use ferrio_config::ext::pacing::PacingSpec;

pub struct Adaptive {
    floor: u64,
    period: u64,
    tune_ns: u64,
    step: u64,
    /// When the next I/O may leave.
    next: u64,
    /// The current tuning window: its start and the I/Os that left in it.
    window_start: u64,
    window_ios: u64,
    /// The period integrated over time (ns·ns) since `start`, up to `since` (the last
    /// change): the mean period is its time-weighted average.
    area: u128,
    since: u64,
    start: u64,
}

impl Adaptive {
    /// None when the job has no pacer; times count from `begin_ns`.
    pub fn new(p: &PacingSpec, begin_ns: u64) -> Option<Adaptive> {
        (p.pacer_period_ns > 0).then_some(Adaptive {
            floor: p.pacer_period_ns,
            period: p.pacer_period_ns,
            tune_ns: p.pacer_tune_ns,
            step: p.pacer_step_ns,
            next: begin_ns,
            window_start: begin_ns,
            window_ios: 0,
            area: 0,
            since: begin_ns,
            start: begin_ns,
        })
    }

    /// When the next I/O may leave the pacer.
    #[inline]
    pub fn due_ns(&self) -> u64 {
        self.next
    }

    /// The pacer's period now (ns).
    pub fn period_ns(&self) -> u64 {
        self.period
    }

    /// An I/O left the pacer at `now`: tune for the windows that ended, count it, and
    /// hold the next one a period.
    pub fn released(&mut self, now: u64) {
        self.tune(now);
        self.window_ios += 1;
        self.next = now.saturating_add(self.period);
    }

    /// Close every tuning window that ended by `now`.
    fn tune(&mut self, now: u64) {
        if self.tune_ns == 0 {
            return;
        }
        while now >= self.window_start.saturating_add(self.tune_ns) {
            let measured = self.tune_ns / self.window_ios.max(1);
            let target = measured.saturating_sub(self.step);
            let end = self.window_start.saturating_add(self.tune_ns);
            self.area += self.period as u128 * end.saturating_sub(self.since) as u128;
            self.since = end;
            self.period = if target > self.period {
                (self.period + self.step).min(target)
            } else {
                self.period.saturating_sub(self.step).max(target)
            }
            .clamp(self.floor, self.floor.saturating_mul(2));
            self.window_start += self.tune_ns;
            self.window_ios = 0;
        }
    }

    /// Start again at `now` (ramp_time over): the floor, a new window.
    pub fn restart(&mut self, now: u64) {
        self.period = self.floor;
        self.next = now;
        self.window_start = now;
        self.window_ios = 0;
        self.area = 0;
        self.since = now;
        self.start = now;
    }

    /// At the job's end `now`: (the period now, its time-weighted mean since the
    /// start), ns; the tuning windows that ended by `now` are closed first.
    pub fn periods_at_end(&mut self, now: u64) -> (u64, f64) {
        self.tune(now);
        let span = now.saturating_sub(self.start);
        if span == 0 {
            return (self.period, self.period as f64);
        }
        let area = self.area + self.period as u128 * now.saturating_sub(self.since) as u128;
        (self.period, area as f64 / span as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pacer(floor_ns: u64, tune_ns: u64) -> Adaptive {
        let p = PacingSpec {
            pacer_period_ns: floor_ns,
            pacer_tune_ns: tune_ns,
            pacer_step_ns: 1_000,
            ..Default::default()
        };
        Adaptive::new(&p, 0).unwrap()
    }

    /// `ios` I/Os leave evenly in the window from `at`; returns the period after it.
    fn window(a: &mut Adaptive, at: u64, ios: u64) -> u64 {
        for k in 0..ios {
            a.released(at + k * (10_000_000 / ios));
        }
        a.tune(at + 10_000_000);
        a.period_ns()
    }

    #[test]
    fn the_period_moves_one_step_toward_the_measured_period_less_one_step() {
        // The study's example: period 25 µs, measured 35 µs: 26 µs.
        let mut a = pacer(20_000, 10_000_000);
        a.period = 25_000;
        assert_eq!(window(&mut a, 0, 10_000_000 / 35_000 + 1), 26_000);
        // Close to the target: the rest of the way, not a whole step (measured
        // 29,069 ns: target 28,069; measured 28,011: target 27,011).
        a.period = 27_500;
        assert_eq!(window(&mut a, 10_000_000, 344), 28_069);
        assert_eq!(window(&mut a, 20_000_000, 357), 27_069);
        a.period = 27_500;
        assert_eq!(window(&mut a, 30_000_000, 357), 27_011);
        // Down as well: measured 22 µs at 30 µs gives 29 µs.
        a.period = 30_000;
        assert_eq!(window(&mut a, 40_000_000, 10_000_000 / 22_000), 29_000);
    }

    #[test]
    fn the_period_stays_between_the_floor_and_twice_it() {
        let mut a = pacer(22_800, 10_000_000);
        // A pacer that sets the pace: the period measured is its own, so the target
        // (one step under) is under the floor: it stays there.
        assert_eq!(window(&mut a, 0, 10_000_000 / 22_800), 22_800);
        // No I/O at all: the measured period is the whole window; up a step each
        // window, up to twice the floor.
        let mut t = 10_000_000;
        for want in [23_800, 24_800, 25_800] {
            assert_eq!(window(&mut a, t, 0), want);
            t += 10_000_000;
        }
        for _ in 0..30 {
            window(&mut a, t, 0);
            t += 10_000_000;
        }
        assert_eq!(a.period_ns(), 45_600);
    }

    #[test]
    fn the_mean_period_weighs_each_period_by_its_time() {
        // The first window sets the pace: 22.8 µs until its end at 10 ms and through
        // the second, which has no I/O, so at its end (20 ms) the period goes up a
        // step: 23.8 µs for the last 5 ms.
        let mut a = pacer(22_800, 10_000_000);
        window(&mut a, 0, 10_000_000 / 22_800);
        let (now, mean) = a.periods_at_end(25_000_000);
        assert_eq!(now, 23_800);
        assert_eq!(mean, (22_800.0 * 20.0 + 23_800.0 * 5.0) / 25.0);
        // Not tuned: the floor throughout.
        let mut a = pacer(10_000, 0);
        a.released(0);
        assert_eq!(a.periods_at_end(1_000_000), (10_000, 10_000.0));
    }

    #[test]
    fn a_fixed_pacer_spaces_ios_by_its_period() {
        let mut a = pacer(10_000, 0);
        a.released(0);
        assert_eq!(a.due_ns(), 10_000);
        // Late: the next one is a period after this one, no catching up.
        a.released(50_000);
        assert_eq!(a.due_ns(), 60_000);
        window(&mut a, 100_000, 0);
        assert_eq!(a.period_ns(), 10_000);
    }
}
