//! Per-job logs (write_bw_log, write_lat_log, write_hist_log, ...), written in fio's
//! file names and line formats. The options are in `table/logs.rs`.

/// What an averaged log line carries (log_window_value, fio's log_max_value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowValue {
    /// The mean over the window (fio's default).
    #[default]
    Avg,
    /// The largest value in the window.
    Max,
    /// Both: `time, avg, max, ddir, ...`.
    Both,
}

/// Per-job logs. Defaults are fio's: no logs, per_job_logs=1.
#[derive(Clone, Debug, PartialEq)]
pub struct LogSpec {
    /// write_bw_log=PREFIX: `PREFIX_bw.N.log` (KiB/s).
    pub bw_log: Option<String>,
    /// write_iops_log=PREFIX: `PREFIX_iops.N.log`.
    pub iops_log: Option<String>,
    /// write_lat_log=PREFIX: `PREFIX_slat.N.log`, `PREFIX_clat.N.log`, `PREFIX_lat.N.log` (ns).
    pub lat_log: Option<String>,
    /// write_hist_log=PREFIX: `PREFIX_clat_hist.N.log`.
    pub hist_log: Option<String>,
    /// log_avg_msec: averaging window in ms (0 = one entry per I/O).
    pub avg_msec: u64,
    /// log_hist_msec: histogram log period in ms (0 = log_avg_msec, or per I/O).
    pub hist_msec: u64,
    /// log_hist_coarseness: 0..=6, merges 2^N adjacent histogram bins.
    pub hist_coarseness: u32,
    pub window_value: WindowValue,
    /// log_offset: add the I/O offset column.
    pub offset: bool,
    /// log_prio: print the full I/O priority (0x%04x) instead of the RT-class bit.
    pub prio: bool,
    /// log_issue_time: add the issue time column (ns).
    pub issue_time: bool,
    /// log_unix_epoch: timestamps in Unix epoch milliseconds instead of job time.
    pub unix_epoch: bool,
    /// per_job_logs: `PREFIX_bw.N.log` per thread (1) or one shared `PREFIX_bw.log` (0).
    pub per_job_logs: bool,
    /// write_iolog=FILE: every issued I/O in fio's iolog version 3 format (appended).
    pub write_iolog: Option<String>,
    /// read_iolog=FILE: replay the I/Os of an fio iolog instead of generating them.
    pub read_iolog: Option<String>,
    /// replay_no_stall: replay without the log's delays.
    pub replay_no_stall: bool,
    /// replay_redirect=FILE: every replayed I/O goes to this one file.
    pub replay_redirect: Option<String>,
    /// replay_scale=N: replayed offsets are divided by N (1: unchanged).
    pub replay_scale: u64,
    /// replay_align=N: replayed offsets are aligned down to N bytes (0: unchanged).
    pub replay_align: u64,
    /// replay_time_scale=PCT: timed replay runs at PCT % of the log's rate (100).
    pub replay_time_scale: u64,
    /// replay_skip=read,write,trim,sync: entries of these directions are left out
    /// (bit d for fio's ddir d: 0 read, 1 write, 2 trim, 3 sync).
    pub replay_skip: u8,
    /// read_iolog_chunked: the replay reads the log a chunk at a time (bounded memory).
    pub read_iolog_chunked: bool,
    /// merge_blktrace_*: merge the read_iolog traces into one first.
    pub merge: crate::ext::blktrace::MergeSpec,
}

impl Default for LogSpec {
    fn default() -> Self {
        LogSpec {
            bw_log: None,
            iops_log: None,
            lat_log: None,
            hist_log: None,
            avg_msec: 0,
            hist_msec: 0,
            hist_coarseness: 0,
            window_value: WindowValue::Avg,
            offset: false,
            prio: false,
            issue_time: false,
            unix_epoch: false,
            write_iolog: None,
            read_iolog: None,
            replay_no_stall: false,
            replay_redirect: None,
            replay_scale: 1,
            replay_align: 0,
            replay_time_scale: 100,
            replay_skip: 0,
            read_iolog_chunked: false,
            merge: Default::default(),
            per_job_logs: true,
        }
    }
}

impl LogSpec {
    /// Whether any log is asked for.
    pub fn any(&self) -> bool {
        self.bw_log.is_some()
            || self.iops_log.is_some()
            || self.lat_log.is_some()
            || self.hist_log.is_some()
    }
}
