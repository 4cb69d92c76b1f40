//! ferrio-stats: the measurement data structures shared by the runner and the reporters.
//!
//! Everything here is pure data: recording, merging and summarising. Nothing prints,
//! nothing does I/O, nothing reads a clock. Worker threads own their recorders and the
//! reporter merges them (the HdrHistogram "per-thread recorder" pattern), so the hot path
//! never takes a lock.

pub mod buckets;
pub mod compare;
pub mod histogram;
mod moments;
pub mod prio;
pub mod sample;
pub mod steadystate;
mod threshold;
mod welford;

pub use buckets::{calc_dist, calc_lat_pct, DepthHistogram, LatencyBuckets};
pub use histogram::{plat_idx_to_val, plat_val_to_idx, LatencyHistogram, FIO_MAX_BIN};
pub use prio::PrioLat;
pub use sample::SampleStats;
