//! ramp_size (fio 3.42): the ramp period ends once the job has completed this many
//! bytes, or, with group_reporting, once its reporting group has together. Each
//! thread adds what it completes while ramping to a counter it shares with its
//! group (a counter of its own without group_reporting) and ends its ramp when the
//! counter reaches ramp_size. fio checks this from its helper thread once a second;
//! ferrio at each step of the I/O loop, so the ramp ends at the I/O that reaches it.

use super::plan::ThreadPlan;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes completed during a ramp, shared by the threads that ramp together.
#[derive(Debug, Default)]
pub struct RampBytes(AtomicU64);

impl RampBytes {
    /// Add a completed I/O's bytes; true once the total reaches `ramp_size`.
    pub fn add(&self, bytes: u64, ramp_size: u64) -> bool {
        self.0.fetch_add(bytes, Ordering::Relaxed) + bytes >= ramp_size
    }

    /// Whether the total has reached `ramp_size` (another thread of the group may
    /// have got it there).
    pub fn reached(&self, ramp_size: u64) -> bool {
        self.0.load(Ordering::Relaxed) >= ramp_size
    }
}

/// Give each ramp_size thread its counter, and refuse a reporting group whose
/// jobs give different ramp sizes (fio: "inconsistent ramp_size within reporting
/// group"; fio asks it of every job with a ramp).
pub fn share_counters(threads: &mut [ThreadPlan]) -> Result<(), String> {
    // As fio: a job with a ramp is compared with every job of its group before it.
    for (i, t) in threads.iter().enumerate().filter(|(_, t)| t.spec.ramps()) {
        let earlier = threads[..i]
            .iter()
            .find(|o| o.groupid == t.groupid && o.spec.ramp_size != t.spec.ramp_size);
        if let Some(o) = earlier {
            return Err(format!(
                "job '{}': ramp_size={} but job '{}' of the same reporting group has \
                 ramp_size={}: a group ramps together, so its jobs must give the same \
                 ramp_size ({})",
                t.spec.name, t.spec.ramp_size, o.spec.name, o.spec.ramp_size, t.spec.origin
            ));
        }
    }
    let mut groups: HashMap<u32, Arc<RampBytes>> = HashMap::new();
    for t in threads.iter_mut().filter(|t| t.spec.ramp_size > 0) {
        t.ramp_bytes = Some(match t.spec.group_reporting {
            true => groups.entry(t.groupid).or_default().clone(),
            false => Default::default(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::RampBytes;

    #[test]
    fn the_ramp_ends_at_the_io_that_reaches_its_size() {
        let r = RampBytes::default();
        assert!(!r.add(4096, 8192) && !r.reached(8192));
        assert!(r.add(4096, 8192) && r.reached(8192));
    }
}
