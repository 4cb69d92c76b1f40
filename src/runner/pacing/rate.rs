//! The rate schedule (rate=, rate_iops=, rate_process=) and the minimum-rate check
//! (rate_min=, rate_iops_min=, rate_cycle=).

use crate::random::seeds::{SeedSet, Stream};
use crate::random::taus::FioRand;
use ferrio_config::ext::pacing::{PacingSpec, RateProcess};

const NS: u128 = 1_000_000_000;

/// When each direction's next I/O is due. Linear (fio's usec_for_io): after `b`
/// bytes issued at `bps` bytes/s, the next I/O is due `b / bps` after the start, so
/// a late I/O is followed by others at once until the schedule is caught up.
/// Poisson: each gap is exponential with mean one I/O time (`min_bs / bps`), drawn
/// from fio's per-direction generator and seed.
pub struct Rate {
    /// Bytes per second per direction (0: not paced); rate_iops is rate_iops × the
    /// direction's smallest block size, as in fio.
    bps: [u64; 3],
    min_bs: [u64; 3],
    /// Bytes issued per direction since `base_ns` (fio's rate_io_issue_bytes).
    issued: [u64; 3],
    /// Offset of each direction's next due time from `base_ns`.
    next: [u64; 3],
    base_ns: u64,
    poisson: Option<[FioRand; 3]>,
    /// --debug=rate: each poisson gap is written as fio's `poisson rate` line.
    debug: bool,
}

impl Rate {
    /// None when no direction is paced.
    pub fn new(p: &PacingSpec, min_bs: [u64; 3], seeds: &SeedSet, base_ns: u64) -> Option<Rate> {
        let bps: [u64; 3] = std::array::from_fn(|d| {
            if p.rate[d] > 0 {
                p.rate[d]
            } else {
                p.rate_iops[d].saturating_mul(min_bs[d])
            }
        });
        if bps.iter().all(|&b| b == 0) {
            return None;
        }
        let poisson = (p.process == RateProcess::Poisson).then(|| {
            // fio seeds one 32-bit generator per direction (FIO_RAND_POISSON_OFF + d).
            [Stream::Poisson, Stream::Poisson2, Stream::Poisson3]
                .map(|s| FioRand::new(seeds.get(s), false))
        });
        Some(Rate {
            bps,
            min_bs,
            issued: [0; 3],
            next: [0; 3],
            base_ns,
            poisson,
            debug: false,
        })
    }

    /// --debug=rate: write fio's lines from now on.
    pub fn with_debug(mut self, on: bool) -> Rate {
        self.debug = on;
        self
    }

    /// The absolute due time of direction `dir`'s next I/O (None: not paced).
    #[inline]
    pub fn due_ns(&self, dir: usize) -> Option<u64> {
        (self.bps[dir] > 0).then(|| self.base_ns + self.next[dir])
    }

    /// `bytes` were issued in direction `dir`.
    pub fn issued(&mut self, dir: usize, bytes: u64) {
        let bps = self.bps[dir];
        if bps == 0 {
            return;
        }
        self.issued[dir] += bytes;
        self.next[dir] = match &mut self.poisson {
            Some(gens) => {
                // fio: whole-µs mean gap × −ln(u), u in (0, 1], in single precision,
                // truncated to µs.
                let iops = (bps / self.min_bs[dir]).max(1);
                let mean_us = (1_000_000 / iops) as f32;
                let g = &mut gens[dir];
                let u = (g.draw() as f64 + 1.0) / (g.max() as f64 + 1.0);
                let gap_us = (mean_us * -(u as f32).ln()) as u64;
                if self.debug && gap_us > 0 {
                    crate::runner::debug_hooks::say(
                        ferrio_config::DebugCategory::Rate,
                        format_args!("poisson rate iops={}, ddir={dir}", 1_000_000 / gap_us),
                    );
                }
                self.next[dir] + gap_us * 1000
            }
            None => (self.issued[dir] as u128 * NS / bps as u128) as u64,
        };
    }

    /// rate_ignore_thinktime: a think time of `ns` in direction `dir` does not slow
    /// the rate, so the schedule skips what would have been issued meanwhile (fio
    /// credits the bytes, less one block so the next I/O goes at once).
    pub fn skip(&mut self, dir: usize, ns: u64) {
        if self.bps[dir] == 0 {
            return;
        }
        if self.poisson.is_some() {
            self.next[dir] += ns;
        } else {
            let missed = (self.bps[dir] as u128 * ns as u128 / NS) as u64;
            self.issued[dir] += missed.saturating_sub(self.min_bs[dir]);
            self.next[dir] = (self.issued[dir] as u128 * NS / self.bps[dir] as u128) as u64;
        }
    }

    /// Start the schedule again at `now`.
    pub fn restart(&mut self, now: u64) {
        self.base_ns = now;
        self.issued = [0; 3];
        self.next = [0; 3];
    }
}

/// fio's rate_ddir for a mixed (read and write) job at `now`: the mix chose
/// direction `d`; `due` is each direction's next due time (None: not paced, so never
/// ahead); `other_mixed`: the mix gives the other direction a share. A direction
/// behind its rate keeps `d`; else the other one when it is behind, or when both are
/// ahead, whichever is due first (ties keep `d`), and the pace wait is for that one.
pub fn rate_ddir(d: usize, now: u64, due: [Option<u64>; 2], other_mixed: bool) -> usize {
    let at = |x: usize| due[x].unwrap_or(0);
    let o = d ^ 1;
    if at(d) <= now || !other_mixed || at(d) <= at(o) {
        d
    } else {
        o
    }
}

/// rate_min / rate_iops_min (fio's check_min_rate): after a 2 s settling period,
/// every rate_cycle the bytes (or I/Os) completed in each direction since the last
/// check must reach the minimum, else the job stops with an error.
pub struct MinRate {
    min_bps: [u64; 3],
    min_iops: [u64; 3],
    cycle_ns: u64,
    name: String,
    start_ns: u64,
    /// Per direction: (bytes, ios, time) at the last check; None before the first.
    last: [Option<(u64, u64, u64)>; 3],
}

/// fio lets a job settle this long before checking its minimum rate.
const SETTLE_NS: u64 = 2_000_000_000;

impl MinRate {
    pub fn new(p: &PacingSpec, name: &str, start_ns: u64) -> Option<MinRate> {
        p.has_minimum().then(|| MinRate {
            min_bps: p.rate_min,
            min_iops: p.rate_iops_min,
            cycle_ns: p.cycle_ms * 1_000_000,
            name: name.to_string(),
            start_ns,
            last: [None; 3],
        })
    }

    pub fn restart(&mut self, now: u64) {
        self.start_ns = now;
        self.last = [None; 3];
    }

    /// Check at `now` with `done[d]` = (bytes, ios) completed so far; the failure
    /// message (fio's) when a minimum was missed.
    pub fn check(&mut self, now: u64, done: [(u64, u64); 3]) -> Option<String> {
        if now.saturating_sub(self.start_ns) < SETTLE_NS {
            return None;
        }
        for (d, &(bytes, ios)) in done.iter().enumerate() {
            // fio checks only the directions that moved data.
            if (self.min_bps[d] == 0 && self.min_iops[d] == 0) || bytes == 0 {
                continue;
            }
            if let Some((b0, i0, t0)) = self.last[d] {
                let spent_ms = (now - t0) / 1_000_000;
                if spent_ms == 0 || spent_ms * 1_000_000 < self.cycle_ns {
                    continue;
                }
                if self.min_bps[d] > 0 {
                    let rate = bytes.saturating_sub(b0) * 1000 / spent_ms;
                    if rate < self.min_bps[d] {
                        return Some(format!(
                            "{}: rate_min={}B/s not met, got {rate}B/s",
                            self.name, self.min_bps[d]
                        ));
                    }
                } else {
                    let rate = ios.saturating_sub(i0) * 1000 / spent_ms;
                    if rate < self.min_iops[d] {
                        return Some(format!(
                            "{}: rate_iops_min={} not met, got {rate} IOPS",
                            self.name, self.min_iops[d]
                        ));
                    }
                }
            }
            self.last[d] = Some((bytes, ios, now));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::rate_ddir;

    #[test]
    fn a_mixed_job_turns_to_the_direction_behind_its_rate_as_fio() {
        // Behind its own rate: keep it.
        assert_eq!(rate_ddir(0, 100, [Some(50), Some(10)], true), 0);
        // Ahead, the other behind (or not paced): switch.
        assert_eq!(rate_ddir(0, 100, [Some(150), Some(90)], true), 1);
        assert_eq!(rate_ddir(1, 100, [None, Some(150)], true), 0);
        // Both ahead: the one due first; a tie keeps the mix's choice.
        assert_eq!(rate_ddir(0, 100, [Some(300), Some(200)], true), 1);
        assert_eq!(rate_ddir(1, 100, [Some(300), Some(200)], true), 1);
        assert_eq!(rate_ddir(1, 100, [Some(200), Some(200)], true), 1);
        // The mix gives the other direction nothing (rwmixread=100): never switch.
        assert_eq!(rate_ddir(0, 100, [Some(300), None], false), 0);
    }

    #[test]
    fn a_minimum_rate_is_checked_per_cycle_after_settling() {
        use super::MinRate;
        let s = 1_000_000_000u64;
        let spec = |bps: u64, iops: u64| ferrio_config::ext::pacing::PacingSpec {
            rate_min: [bps, 0, 0],
            rate_iops_min: [iops, 0, 0],
            cycle_ms: 1000,
            ..Default::default()
        };
        // rate_min=1000: 999 bytes in the cycle after the first check fail it.
        let mut m = MinRate::new(&spec(1000, 0), "j", 0).unwrap();
        assert_eq!(m.check(s, [(10, 1); 3]), None, "settling");
        assert_eq!(m.check(2 * s, [(1000, 10), (0, 0), (0, 0)]), None);
        assert_eq!(m.check(3 * s, [(2000, 20), (0, 0), (0, 0)]), None);
        let e = m.check(4 * s, [(2999, 21), (0, 0), (0, 0)]).unwrap();
        assert_eq!(e, "j: rate_min=1000B/s not met, got 999B/s");
        // rate_iops_min=10: 9 I/Os in a cycle fail it, whatever the bytes.
        let mut m = MinRate::new(&spec(0, 10), "j", 0).unwrap();
        assert_eq!(m.check(2 * s, [(1 << 20, 10), (0, 0), (0, 0)]), None);
        assert_eq!(m.check(3 * s, [(2 << 20, 20), (0, 0), (0, 0)]), None);
        let e = m.check(4 * s, [(3 << 20, 29), (0, 0), (0, 0)]).unwrap();
        assert_eq!(e, "j: rate_iops_min=10 not met, got 9 IOPS");
    }
}
