//! The state the worker threads share with the live reporters: per-thread progress
//! counters (atomics, updated a few times a second) and a snapshot slot that a
//! thread fills with a copy of its statistics when a report asks for one.

use crate::runner::recorder::ThreadStats;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

/// Where a thread is in its life (what the status line shows).
pub const NOT_STARTED: u8 = 0;
pub const RAMPING: u8 = 1;
pub const RUNNING: u8 = 2;
pub const DONE: u8 = 3;
pub const FAILED: u8 = 4;

/// A copy of one thread's statistics at `now_ns` on its clock.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The request generation this snapshot answers (see [`Hub::request`]).
    pub gen: u64,
    pub stats: ThreadStats,
    /// The thread's measured phase began at `start_ns`; the snapshot was taken at `now_ns`.
    pub start_ns: u64,
    pub now_ns: u64,
    /// Nanoseconds from the thread's first I/O to `now_ns` (ramp included).
    pub elapsed_ns: u64,
    /// The thread has ended: these are its final statistics.
    pub done: bool,
    pub error: Option<(i32, String)>,
}

/// One thread's shared slot.
#[derive(Default)]
pub struct Slot {
    pub state: AtomicU8,
    /// Cumulative bytes and I/Os per direction since the end of ramp_time.
    pub bytes: [AtomicU64; 3],
    pub ios: [AtomicU64; 3],
    /// Nanoseconds the thread has run (its own clock), ramp included.
    pub elapsed_ns: AtomicU64,
    /// Wall time the thread started, in ns since the hub was made (0: not yet); lets
    /// the status line follow a thread in ramp_time, when its observers are quiet.
    pub started_wall_ns: AtomicU64,
    pub snapshot: Mutex<Option<Snapshot>>,
}

/// Every thread's slot, in plan order, and the snapshot request counter.
pub struct Hub {
    pub slots: Vec<Slot>,
    /// The wall-clock origin of `Slot::started_wall_ns`.
    pub t0: std::time::Instant,
    /// Raised by a reporter that wants fresh snapshots; a thread answers at its next
    /// publishing point by storing a snapshot with `gen` equal to this value.
    pub request: AtomicU64,
}

impl Hub {
    pub fn new(threads: usize) -> Hub {
        Hub {
            slots: (0..threads).map(|_| Slot::default()).collect(),
            t0: std::time::Instant::now(),
            request: AtomicU64::new(0),
        }
    }

    /// Ask every running thread for a snapshot; returns the generation to wait for.
    pub fn request_snapshots(&self) -> u64 {
        self.request.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Wall nanoseconds since the hub was made.
    pub fn wall_ns(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Whether thread `i` has answered generation `gen` (or cannot: not running).
    pub fn answered(&self, i: usize, gen: u64) -> bool {
        let s = &self.slots[i];
        match s.state.load(Ordering::Acquire) {
            RUNNING => s
                .snapshot
                .lock()
                .map(|g| g.as_ref().is_some_and(|x| x.gen >= gen || x.done))
                .unwrap_or(true),
            _ => true,
        }
    }

    /// The latest snapshot of thread `i` (None before its first).
    pub fn snapshot(&self, i: usize) -> Option<Snapshot> {
        self.slots[i].snapshot.lock().ok().and_then(|g| g.clone())
    }
}
