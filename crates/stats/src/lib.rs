//! ferrio-stats: the measurement data structures shared by the runner and the reporters.
//!
//! Everything here is pure data: recording, merging and summarising. Nothing prints,
//! nothing does I/O, nothing reads a clock. Worker threads own their recorders and the
//! reporter merges them (the HdrHistogram "per-thread recorder" pattern), so the hot path
//! never takes a lock.

pub mod histogram;
pub mod buckets;
pub mod sample;

pub use buckets::{DepthHistogram, LatencyBuckets};
pub use histogram::LatencyHistogram;
pub use sample::SampleStats;
