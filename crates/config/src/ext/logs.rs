//! Per-job logs (write_bw_log, write_lat_log, write_hist_log, ...).

/// Per-job logs (write_bw_log, write_lat_log, write_hist_log, ...). Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogSpec {}
