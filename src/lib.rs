//! ferrio: a fast, exact, fio-compatible storage I/O benchmark.
//!
//! Layout: `ferrio-config` turns fio job files and command lines into `JobSpec`s;
//! [`runner`] plans threads, lays out files and runs the I/O loops over an
//! [`engine`]; `ferrio-stats` records; `ferrio-report` prints fio's formats;
//! `ferrio-clock` provides every timestamp. [`app`] wires them together for `main`.

pub mod app;
pub mod debug_sink;
pub mod engine;
pub mod html;
pub mod install;
pub mod live;
pub mod net;
pub mod random;
pub mod runner;
pub mod sweep;
pub mod sys;
pub mod tools;
pub mod verify;
