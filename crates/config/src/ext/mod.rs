//! Per-feature option groups carried by every [`crate::JobSpec`] (and the run-wide
//! [`LiveFlags`]). Each feature owns one file here, so features grow without editing
//! the core spec: the engine tuning knobs, the simulated device, steady-state
//! detection, logging, zones, buffer contents, verify and the local engines' options.

pub mod blktrace;
pub mod buffers;
pub mod cgroup;
pub mod compat;
pub mod debug;
pub mod dropin;
pub mod engine;
pub mod errors;
pub mod foreign;
pub mod lifecycle;
pub mod live;
pub mod local;
pub mod logs;
pub mod nbd;
pub mod net;
pub mod pacing;
pub mod prio;
pub mod reports;
pub mod sim;
pub mod sprandom;
pub mod steadystate;
pub mod verify;
pub mod zones;

pub use buffers::{BuffersSpec, DedupeMode};
pub use compat::CompatSpec;
pub use dropin::DropinSpec;
pub use engine::EngineTuning;
pub use errors::ErrorPolicy;
pub use lifecycle::LifecycleSpec;
pub use live::LiveFlags;
pub use local::LocalSpec;
pub use logs::LogSpec;
pub use pacing::PacingSpec;
pub use prio::PrioSpec;
pub use reports::{ReportFlags, SweepAxis};
pub use sim::SimSpec;
pub use steadystate::SteadyStateSpec;
pub use verify::VerifySpec;
pub use zones::{SimZoneSpec, ZoneSpec};
