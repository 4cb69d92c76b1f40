//! The target's data buffers (sim_buffers=, sim_buf_cache=), after SPDK's NVMf
//! transport as the pacing study describes it: a pool shared by all channels, and per
//! channel a cache. At the start each channel fills its cache with up to `cache`
//! buffers from the pool, in channel order; a cache keeps the buffers it owns (a
//! static split: SPDK's cache counts only its free buffers, which a model that knows
//! every release time in advance cannot follow). A command takes a buffer from its
//! channel's cache, else from the pool; with none free it waits for the first one to
//! come free. A buffer goes back where it came from (a borrowed one to a cache short
//! of `cache`, else to the pool).
//!
//! Every buffer is a token carrying the time it is next free; the engine computes a
//! command's completion when it is submitted, so a buffer is released (given its free
//! time) at once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

type Tokens = BinaryHeap<Reverse<u64>>;

#[derive(Debug)]
pub struct Pool {
    shared: Tokens,
    caches: Vec<Tokens>,
    /// Buffers each cache owns, in it or in flight.
    owned: Vec<usize>,
    cache: usize,
    /// Time-weighted buffers held (ns·buffers).
    held_ns: u128,
}

/// Where a taken buffer came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum From {
    Cache,
    Shared,
    /// Another channel's cache (only when this one owns none and the pool is empty).
    Other(usize),
}

impl Pool {
    /// `buffers` > 0 shared between `groups` channels, each caching up to `cache`.
    pub fn new(buffers: u32, groups: u32, cache: u32) -> Pool {
        let mut left = buffers.max(1) as usize;
        let owned: Vec<usize> = (0..groups.max(1))
            .map(|_| {
                let n = left.min(cache as usize);
                left -= n;
                n
            })
            .collect();
        Pool {
            shared: (0..left).map(|_| Reverse(0)).collect(),
            caches: owned
                .iter()
                .map(|&n| (0..n).map(|_| Reverse(0)).collect())
                .collect(),
            owned,
            cache: cache as usize,
            held_ns: 0,
        }
    }

    /// A command of channel `g` needs a buffer at `arrive`: when it has one, and where
    /// from.
    pub fn take(&mut self, g: usize, arrive: u64) -> (u64, From) {
        let g = g % self.caches.len();
        let cached = self.caches[g].peek().map(|r| r.0);
        let shared = self.shared.peek().map(|r| r.0);
        let from = match (cached, shared) {
            (Some(c), _) if c <= arrive => From::Cache,
            (_, Some(s)) if s <= arrive => From::Shared,
            // None free now: the first to come free.
            (Some(c), Some(s)) if s < c => From::Shared,
            (Some(_), _) => From::Cache,
            (None, Some(_)) => From::Shared,
            (None, None) => {
                let h = (0..self.caches.len())
                    .filter(|&h| !self.caches[h].is_empty())
                    .min_by_key(|&h| self.caches[h].peek().map(|r| r.0))
                    .expect("a pool has at least one buffer");
                From::Other(h)
            }
        };
        let free = match from {
            From::Cache => self.caches[g].pop(),
            From::Shared => self.shared.pop(),
            From::Other(h) => self.caches[h].pop(),
        };
        (free.expect("peeked").0.max(arrive), from)
    }

    /// The buffer channel `g` took at `from` (held since `since`) is free at `at`.
    pub fn give(&mut self, g: usize, from: From, since: u64, at: u64) {
        let g = g % self.caches.len();
        self.held_ns += (at - since) as u128;
        match from {
            From::Cache => self.caches[g].push(Reverse(at)),
            From::Other(h) => self.caches[h].push(Reverse(at)),
            From::Shared if self.owned[g] < self.cache => {
                self.owned[g] += 1;
                self.caches[g].push(Reverse(at));
            }
            From::Shared => self.shared.push(Reverse(at)),
        }
    }

    /// Buffer-nanoseconds held so far (over a span: the mean buffers in flight).
    pub fn held_ns(&self) -> u128 {
        self.held_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Take at `at` on channel `g`, hold for `hold`; returns when it was taken.
    fn hold(p: &mut Pool, g: usize, at: u64, hold: u64) -> u64 {
        let (t, from) = p.take(g, at);
        p.give(g, from, t, t + hold);
        t
    }

    #[test]
    fn with_none_free_a_command_waits_for_the_first_to_come_free() {
        let mut p = Pool::new(2, 1, 0);
        assert_eq!(hold(&mut p, 0, 0, 100), 0);
        assert_eq!(hold(&mut p, 0, 0, 50), 0);
        assert_eq!(hold(&mut p, 0, 10, 10), 50);
        assert_eq!(hold(&mut p, 0, 10, 10), 60);
        assert_eq!(hold(&mut p, 0, 500, 10), 500);
        assert_eq!(p.held_ns(), 100 + 50 + 10 + 10 + 10);
    }

    #[test]
    fn a_cache_keeps_buffers_from_the_other_channels() {
        // 4 buffers, 2 channels caching 2 each: nothing is left to share, so channel 0
        // busy with 3 commands waits while channel 1's cache sits idle.
        let mut p = Pool::new(4, 2, 2);
        assert_eq!(hold(&mut p, 0, 0, 100), 0);
        assert_eq!(hold(&mut p, 0, 0, 100), 0);
        assert_eq!(hold(&mut p, 0, 0, 100), 100);
        // Without caches, the same pool serves the third at once.
        let mut p = Pool::new(4, 2, 0);
        for _ in 0..3 {
            assert_eq!(hold(&mut p, 0, 0, 100), 0);
        }
    }

    #[test]
    fn a_shared_buffer_returns_to_the_pool_when_the_cache_is_full_else_to_the_cache() {
        // 3 buffers, 2 channels caching 1: one shared. Channel 0 takes its cached one
        // (still its own while in flight) and the shared one, which goes back to the
        // pool: the cache is full.
        let mut p = Pool::new(3, 2, 1);
        let (t0, f0) = p.take(0, 0);
        assert_eq!(f0, From::Cache);
        let (t, from) = p.take(0, 0);
        assert_eq!(from, From::Shared);
        p.give(0, from, t, 10);
        p.give(0, f0, t0, 10);
        assert_eq!((p.shared.len(), p.caches[0].len()), (1, 1));
        // 1 buffer, 2 channels caching 1: channel 1's cache got none; it borrows from
        // channel 0's cache (nothing else exists) and gives it back there.
        let mut p = Pool::new(1, 2, 1);
        let (t, from) = p.take(1, 0);
        assert_eq!((t, from), (0, From::Other(0)));
        p.give(1, from, t, 10);
        assert_eq!(p.take(1, 5), (10, From::Other(0)));
    }
}
