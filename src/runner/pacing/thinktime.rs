//! Think time (thinktime=, thinktime_spin=, thinktime_blocks=,
//! thinktime_blocks_type=): after every thinktime_blocks I/Os — completed, or
//! issued — the job empties its queue and pauses: first spinning thinktime_spin,
//! then sleeping the rest of thinktime.

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
}

impl Think {
    /// None without thinktime.
    pub fn new(p: &PacingSpec) -> Option<Think> {
        (p.thinktime_us > 0).then(|| Think {
            spin_ns: p.thinktime_spin_us.min(p.thinktime_us) * 1000,
            total_ns: p.thinktime_us * 1000,
            blocks: p.thinktime_blocks,
            count: p.blocks_type,
            last: 0,
            ignore_for_rate: p.ignore_thinktime,
        })
    }

    /// Whether a pause is due with `issued` I/Os issued and `completed` completed
    /// so far; if so, it is taken (the count restarts from here).
    pub fn take(&mut self, issued: u64, completed: u64) -> bool {
        let b = match self.count {
            ThinkBlocks::Complete => completed,
            ThinkBlocks::Issue => issued,
        };
        if b >= self.last + self.blocks {
            self.last = b;
            true
        } else {
            false
        }
    }
}
