//! Run-wide live reporting flags (--status-interval, --eta-newline, --eta-interval,
//! --interval-percentiles). The --eta mode itself is `GlobalFlags::eta`.

/// Run-wide live reporting flags. Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveFlags {
    /// --status-interval=T: a full report every T (milliseconds).
    pub status_interval_ms: Option<u64>,
    /// --eta-newline=T: end the status line with a newline every T (milliseconds).
    pub eta_newline_ms: Option<u64>,
    /// --eta-interval=T: how often the status line is refreshed (milliseconds).
    pub eta_interval_ms: Option<u64>,
    /// --interval-percentiles=LIST: percentiles of the interval line format (percent).
    pub interval_percentiles: Option<Vec<f64>>,
}

impl LiveFlags {
    /// fio's default status line refresh period (ms).
    pub const DEFAULT_ETA_INTERVAL_MS: u64 = 1000;
    /// The interval line format's default period when --status-interval is not given.
    pub const DEFAULT_INTERVAL_MS: u64 = 1000;
    /// The interval line format's default percentiles.
    pub const DEFAULT_PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];
}
