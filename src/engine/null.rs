//! `ioengine=null`: completes every I/O at once without touching memory or files.
//! It measures the benchmark's own per-I/O overhead.

use super::{IoEngine, IoUnit, Queued};

pub struct NullEngine;

impl IoEngine for NullEngine {
    #[inline]
    fn queue(&mut self, _index: usize, unit: &mut IoUnit) -> Queued {
        unit.result = unit.len as i64;
        Queued::Completed
    }
}
