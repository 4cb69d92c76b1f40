//! Pacing: rate limits (rate=, rate_iops=, their minimums, rate_process=,
//! rate_cycle=, rate_ignore_thinktime=) and think time (thinktime=,
//! thinktime_spin=, thinktime_blocks=, thinktime_blocks_type=), the queue-depth
//! search for a latency target (latency_*), max_latency= and flow control across
//! jobs (flow*), and ferrio's adaptive pacer (pacer_*). Values are per direction (read, write, trim) where fio's are; 0
//! means "no limit".

/// How paced I/Os are spaced (rate_process=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateProcess {
    /// Evenly: the n-th byte is due at n / rate.
    #[default]
    Linear,
    /// Exponentially distributed gaps with the same mean (a Poisson arrival process).
    Poisson,
}

/// What thinktime_blocks counts (thinktime_blocks_type=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThinkBlocks {
    /// Completed I/Os (fio's default).
    #[default]
    Complete,
    /// Issued I/Os.
    Issue,
}

/// The job's pacing options.
#[derive(Clone, Debug, PartialEq)]
pub struct PacingSpec {
    /// rate=: bytes per second, per direction.
    pub rate: [u64; 3],
    /// rate_min=: bytes per second the job must reach, per direction.
    pub rate_min: [u64; 3],
    /// rate_iops=: I/Os per second, per direction.
    pub rate_iops: [u64; 3],
    /// rate_iops_min=: I/Os per second the job must reach, per direction.
    pub rate_iops_min: [u64; 3],
    pub process: RateProcess,
    /// rate_cycle=: the window the minimum rates are checked over, ms.
    pub cycle_ms: u64,
    /// rate_ignore_thinktime=: think time does not slow the rate down.
    pub ignore_thinktime: bool,
    /// thinktime=: µs to pause.
    pub thinktime_us: u64,
    /// thinktime_spin=: µs of the pause spent spinning (the rest sleeps).
    pub thinktime_spin_us: u64,
    /// thinktime_blocks=: pause after this many I/Os.
    pub thinktime_blocks: u64,
    /// thinktime_blocks was given (with thinktime_iotime, only then do blocks count).
    pub thinktime_blocks_set: bool,
    /// thinktime_iotime=: also pause once this many µs of I/O passed since the last
    /// pause (0: off).
    pub thinktime_iotime_us: u64,
    pub blocks_type: ThinkBlocks,
    /// thinkcycles= (fio 3.37): iterations of a busy loop after each I/O, before
    /// the next (0: none); not part of thinktime.
    pub thinkcycles: u64,
    /// due_lat= (ferrio): also record each I/O's latency from its due time
    /// (coordinated omission: a paced I/O issued late still had a schedule).
    pub due_lat: bool,
    /// latency_target=: ns (0: no queue-depth search).
    pub latency_target_ns: u64,
    /// latency_window=: µs each depth is tried for (0: every step).
    pub latency_window_us: u64,
    /// latency_percentile=: share of I/Os (percent) that must meet the target.
    pub latency_percentile: f64,
    /// latency_run=: keep searching instead of settling on a depth.
    pub latency_run: bool,
    /// max_latency=: ns per direction (0: none); a longer I/O is an ETIMEDOUT error.
    pub max_latency_ns: [u64; 3],
    /// flow=: this job's weight in its flow group (0: no flow control).
    pub flow: u32,
    /// flow_id=: the flow group.
    pub flow_id: u32,
    /// flow_sleep=: µs to sleep when held back by flow control.
    pub flow_sleep_us: u64,
    /// pacer_period= (ferrio): the adaptive pacer's floor, ns between I/Os leaving
    /// it (0: no pacer).
    pub pacer_period_ns: u64,
    /// pacer_tune=: how often the pacer's period is tuned, ns (0: a fixed pacer).
    pub pacer_tune_ns: u64,
    /// pacer_step=: one tuning step, ns, and the margin kept below the measured period.
    pub pacer_step_ns: u64,
    /// io_submit_mode=offload: a rate wait does not first empty the queue (fio
    /// quiesces only in inline mode).
    pub offload: bool,
}

/// The seed's tuning period and step.
pub const DEFAULT_PACER_TUNE_NS: u64 = 10_000_000;
pub const DEFAULT_PACER_STEP_NS: u64 = 1_000;

impl Default for PacingSpec {
    fn default() -> Self {
        PacingSpec {
            rate: [0; 3],
            rate_min: [0; 3],
            rate_iops: [0; 3],
            rate_iops_min: [0; 3],
            process: RateProcess::Linear,
            cycle_ms: 1000,
            ignore_thinktime: false,
            thinktime_us: 0,
            thinktime_spin_us: 0,
            thinktime_blocks: 1,
            thinktime_blocks_set: false,
            thinktime_iotime_us: 0,
            blocks_type: ThinkBlocks::Complete,
            thinkcycles: 0,
            due_lat: false,
            latency_target_ns: 0,
            latency_window_us: 0,
            latency_percentile: 100.0,
            latency_run: false,
            max_latency_ns: [0; 3],
            flow: 0,
            flow_id: 0,
            flow_sleep_us: 0,
            pacer_period_ns: 0,
            pacer_tune_ns: DEFAULT_PACER_TUNE_NS,
            pacer_step_ns: DEFAULT_PACER_STEP_NS,
            offload: false,
        }
    }
}

impl PacingSpec {
    /// Some direction has a rate limit.
    pub fn rated(&self) -> bool {
        self.rate.iter().chain(&self.rate_iops).any(|&r| r > 0)
    }

    /// Some direction has a minimum rate.
    pub fn has_minimum(&self) -> bool {
        self.rate_min
            .iter()
            .chain(&self.rate_iops_min)
            .any(|&r| r > 0)
    }

    /// fio's cross-option rules (init.c fixup_options): rate and rate_iops (or their
    /// minimums) are mutually exclusive, and a minimum may not exceed its rate.
    pub fn check(&self) -> Result<(), String> {
        let sum = |a: &[u64; 3]| a.iter().any(|&v| v > 0);
        if (sum(&self.rate) && sum(&self.rate_iops))
            || (sum(&self.rate_min) && sum(&self.rate_iops_min))
        {
            return Err(
                "rate and rate_iops are mutually exclusive (and so are rate_min and rate_iops_min)"
                    .into(),
            );
        }
        const DIR: [&str; 3] = ["read", "write", "trim"];
        for (d, dir) in DIR.iter().enumerate() {
            if self.rate[d] > 0 && self.rate[d] < self.rate_min[d] {
                return Err(format!(
                    "minimum rate exceeds rate for {} (rate_min={} > rate={})",
                    dir, self.rate_min[d], self.rate[d]
                ));
            }
            if self.rate_iops[d] > 0 && self.rate_iops[d] < self.rate_iops_min[d] {
                return Err(format!(
                    "minimum rate exceeds rate for {} (rate_iops_min={} > rate_iops={})",
                    dir, self.rate_iops_min[d], self.rate_iops[d]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimum_in_any_direction_is_a_minimum() {
        let none = PacingSpec::default();
        assert!(!none.has_minimum() && !none.rated());
        let min = PacingSpec {
            rate_min: [0, 1000, 0],
            ..Default::default()
        };
        assert!(min.has_minimum() && !min.rated());
        let iops = PacingSpec {
            rate_iops_min: [0, 0, 5],
            ..Default::default()
        };
        assert!(iops.has_minimum());
    }
}
