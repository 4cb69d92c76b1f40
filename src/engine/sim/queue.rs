//! Queueing inside the simulated device: a host link with a bandwidth ceiling, then
//! `channels` identical servers. Both stages serve in arrival order (FIFO), so the
//! completion time of a command is known the moment it is submitted: the engine
//! computes it once and the event list only has to hand completions back in time
//! order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The host link: one transfer at a time at `bw` bytes/s. Time is kept exactly, in
/// units of 1/bw ns, so back-to-back transfers accumulate no rounding.
#[derive(Debug)]
pub struct Link {
    bw: u128,
    /// When the link is next free, in ns·bw.
    free_scaled: u128,
}

impl Link {
    /// `bw` > 0 bytes per second.
    pub fn new(bw: u64) -> Link {
        Link {
            bw: bw as u128,
            free_scaled: 0,
        }
    }

    /// A transfer of `bytes` arriving at `arrive_ns`; returns when it has crossed (ns,
    /// rounded up).
    pub fn transfer(&mut self, arrive_ns: u64, bytes: u64) -> u64 {
        let start = (arrive_ns as u128 * self.bw).max(self.free_scaled);
        let done = start + bytes as u128 * 1_000_000_000;
        self.free_scaled = done;
        done.div_ceil(self.bw) as u64
    }
}

/// `n` servers, first come first served: a command starts on the server that frees
/// first (at once if one is idle) and holds it for its service time.
#[derive(Debug)]
pub struct Channels {
    free_at: BinaryHeap<Reverse<u64>>,
    /// sim_stall: [from, to) in which no service starts.
    stall: Option<(u64, u64)>,
}

impl Channels {
    pub fn new(n: u32) -> Channels {
        Channels {
            free_at: (0..n.max(1)).map(|_| Reverse(0)).collect(),
            stall: None,
        }
    }

    /// How many channels.
    pub fn count(&self) -> usize {
        self.free_at.len()
    }

    /// No service starts in `[from, to)` (a stalled device); one due then waits.
    pub fn stalled(mut self, from: u64, to: u64) -> Channels {
        self.stall = Some((from, to));
        self
    }

    /// A command arriving at `arrive_ns` needing `service_ns`; returns its completion time.
    pub fn serve(&mut self, arrive_ns: u64, service_ns: u64) -> u64 {
        let mut slot = self.free_at.peek_mut().expect("at least one channel");
        let mut start = slot.0.max(arrive_ns);
        if let Some((from, to)) = self.stall {
            if (from..to).contains(&start) {
                start = to;
            }
        }
        let done = start + service_ns;
        slot.0 = done;
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_transfers_back_to_back_without_rounding_drift() {
        let mut l = Link::new(3);
        // 1 byte at 3 B/s = 333333333.33 ns; three of them take exactly 1 s.
        assert_eq!(l.transfer(0, 1), 333_333_334);
        assert_eq!(l.transfer(0, 1), 666_666_667);
        assert_eq!(l.transfer(0, 1), 1_000_000_000);
        // An idle link starts at the arrival.
        assert_eq!(l.transfer(5_000_000_000, 3), 6_000_000_000);
    }

    #[test]
    fn channels_queue_beyond_their_number() {
        let mut c = Channels::new(2);
        assert_eq!(c.serve(0, 10), 10);
        assert_eq!(c.serve(0, 10), 10);
        assert_eq!(c.serve(0, 10), 20); // waited for a channel
        assert_eq!(c.serve(0, 4), 14);
        assert_eq!(c.serve(100, 1), 101); // idle again
    }

    #[test]
    fn nothing_starts_during_a_stall() {
        let mut c = Channels::new(1).stalled(100, 150);
        assert_eq!(c.serve(0, 10), 10);
        assert_eq!(c.serve(95, 10), 105); // started before the stall: served through
        assert_eq!(c.serve(120, 10), 160); // arrived during it: waits for its end
        assert_eq!(c.serve(160, 10), 170);
    }
}
