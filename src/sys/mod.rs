//! Thin, safe wrappers over the system calls ferrio needs. Every `unsafe` block that
//! talks to the kernel lives here or in `engine/`, each with a `// SAFETY:` comment.

pub mod affinity;
pub mod aio;
pub mod confine;
pub mod daemon;
pub mod diskstats;
pub mod file;
pub mod io;
pub mod iomem;
pub mod jobctl;
pub mod limits;
pub mod memory;
pub mod mounts;
pub mod net;
pub mod open_flags;
pub mod rusage;
pub mod signals;
pub mod time;
