//! Run-wide helpers around a run that are not the I/O itself: drop-in mode detection,
//! `--memcpytest`, `--idle-prof`, fio's trigger (`--trigger-file`,
//! `--trigger-timeout`) and `--bandwidth-log`'s files.

pub mod compare;
pub mod dropin;
pub mod idle;
pub mod memcpy;
pub mod trigger;
