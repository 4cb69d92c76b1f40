//! Run-wide live reporting flags (--status-interval, --eta-newline, ...).

/// Run-wide live reporting flags (--status-interval, --eta-newline, ...). Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveFlags {}
