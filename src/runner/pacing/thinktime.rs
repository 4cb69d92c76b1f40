//! Think time (thinktime=, thinktime_spin=, thinktime_blocks=,
//! thinktime_blocks_type=, thinktime_iotime=): after every thinktime_blocks I/Os
//! — completed, or issued — or once thinktime_iotime has passed since the last
//! pause, the job empties its queue and pauses: first spinning thinktime_spin, then
//! sleeping the rest of thinktime.

use ferrio_config::ext::pacing::{PacingSpec, ThinkBlocks};

pub struct Think {
    pub spin_ns: u64,
    /// The whole pause (spin included).
    pub total_ns: u64,
    blocks: u64,
    count: ThinkBlocks,
    /// The count at the last pause.
    last: u64,
    /// rate_ignore_thinktime.
    pub ignore_for_rate: bool,
    /// thinktime_iotime (0: off), and whether thinktime_blocks still counts with it.
    iotime_ns: u64,
    blocks_too: bool,
    /// When the last pause ended (or the job began).
    last_ns: u64,
}

impl Think {
    /// None without thinktime.
    pub fn new(p: &PacingSpec, begin_ns: u64) -> Option<Think> {
        (p.thinktime_us > 0).then(|| Think {
            // fio spins all of thinktime_spin, even past thinktime.
            spin_ns: p.thinktime_spin_us * 1000,
            total_ns: p.thinktime_us.max(p.thinktime_spin_us) * 1000,
            blocks: p.thinktime_blocks,
            count: p.blocks_type,
            last: 0,
            ignore_for_rate: p.ignore_thinktime,
            iotime_ns: p.thinktime_iotime_us * 1000,
            blocks_too: p.thinktime_blocks_set,
            last_ns: begin_ns,
        })
    }

    /// Whether a pause is due with `issued` I/Os issued and `completed` completed
    /// so far (`now` reads the clock, for thinktime_iotime); if so, it is taken
    /// (the count restarts from here).
    pub fn take(&mut self, issued: u64, completed: u64, now: impl FnOnce() -> u64) -> bool {
        let mut stall = false;
        if self.iotime_ns > 0 {
            // fio: with thinktime_iotime, blocks count only when given explicitly
            // (their default of 1 would pause after every I/O).
            if now().saturating_sub(self.last_ns) >= self.iotime_ns {
                stall = true;
            } else if !self.blocks_too {
                return false;
            }
        }
        let b = match self.count {
            ThinkBlocks::Complete => completed,
            ThinkBlocks::Issue => issued,
        };
        if stall || b >= self.last + self.blocks {
            self.last = b;
            true
        } else {
            false
        }
    }

    /// The pause ended at `now` (thinktime_iotime counts from here).
    pub fn ended(&mut self, now: u64) {
        self.last_ns = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinktime_iotime_counts_from_the_end_of_the_last_pause() {
        let p = PacingSpec {
            thinktime_us: 10,
            thinktime_iotime_us: 1000,
            ..Default::default()
        };
        let mut t = Think::new(&p, 0).unwrap();
        // 1 ms of I/O since the job began: pause; blocks (not given) never count.
        assert!(!t.take(5, 5, || 999_999));
        assert!(t.take(6, 6, || 1_000_000));
        t.ended(1_500_000);
        assert!(
            !t.take(7, 7, || 2_000_000),
            "only 0.5 ms since the pause ended"
        );
        assert!(t.take(8, 8, || 2_500_000));
    }

    #[test]
    fn thinktime_blocks_counts_completions_or_issues() {
        let p = PacingSpec {
            thinktime_us: 10,
            thinktime_blocks: 4,
            ..Default::default()
        };
        let mut t = Think::new(&p, 0).unwrap();
        assert!(!t.take(8, 3, || 0));
        assert!(t.take(8, 4, || 0));
        assert!(!t.take(12, 7, || 0));
        assert!(t.take(12, 8, || 0));
        let mut t = Think::new(
            &PacingSpec {
                blocks_type: ThinkBlocks::Issue,
                ..p
            },
            0,
        )
        .unwrap();
        assert!(t.take(4, 0, || 0));
    }
}
