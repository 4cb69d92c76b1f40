//! ferrio-report: turns a finished run's statistics into fio's output formats.
//!
//! The reporters read a [`model::RunReport`] only; they never touch the runner or
//! the engines. One module per format: `json` (json and json+), `normal`, `terse`.

pub mod act;
pub mod blockinfo;
pub mod extra;
pub mod html;
pub mod interval;
pub mod json;
pub mod mdtable;
pub mod model;
pub mod normal;
pub mod series;
pub mod sweep;
pub mod terse;
pub mod unified;
pub mod units;

pub use model::*;
