//! fio-format log files (write_bw_log, write_iops_log, write_lat_log,
//! write_hist_log), written by per-thread observers while the run goes on: each
//! window's line is formatted and appended through a small buffer that is flushed at
//! least every second of the thread's clock, so memory stays bounded and a crash
//! loses at most the last second.
//!
//! File names and line formats are fio's (HOWTO "Log File Formats"):
//! `PREFIX_bw.N.log` (or `PREFIX_bw.log` with per_job_logs=0), lines
//! `time, value[, max], ddir, bs[, offset], prio[, issue_time]`; histogram logs
//! `time, ddir, bs, bin0, bin1, ...` with fio's 1856 bins merged by
//! 2^log_hist_coarseness. See docs/live.md for what differs from fio.

pub mod files;
pub mod format;
pub mod fz;
pub mod window;

use super::observer::{Observer, ObserverFactory};
use super::plan::ThreadPlan;
use files::LogFiles;
use std::collections::HashMap;
use std::sync::Mutex;

/// With log_avg_msec=0 (one entry per I/O), how often the files are flushed and, when
/// log_hist_msec is not set, how often histogram entries are written.
pub const PER_IO_FALLBACK_MS: u64 = 500;

/// Builds the log observers of every thread that asks for logs.
pub struct LogFactory {
    /// (job_index, clone) -> fio's thread number (1-based, in start order).
    numbers: HashMap<(usize, u32), usize>,
    /// Files shared by every thread (per_job_logs=0), by path.
    shared: Mutex<files::Shared>,
}

impl LogFactory {
    /// A factory if any thread writes a log.
    pub fn for_threads(threads: &[ThreadPlan]) -> Option<LogFactory> {
        if !threads.iter().any(|t| t.spec.logs.any()) {
            return None;
        }
        Some(LogFactory {
            numbers: threads
                .iter()
                .enumerate()
                .map(|(i, t)| ((t.job_index, t.clone), i + 1))
                .collect(),
            shared: Mutex::new(files::Shared::default()),
        })
    }
}

impl ObserverFactory for LogFactory {
    fn observers(&self, plan: &ThreadPlan, start_ns: u64) -> Vec<Box<dyn Observer>> {
        let spec = &plan.spec.logs;
        if !spec.any() {
            return Vec::new();
        }
        let number = self
            .numbers
            .get(&(plan.job_index, plan.clone))
            .copied()
            .unwrap_or(1);
        let origin_unix_ms = window::WindowLogger::epoch_origin_ms(plan);
        let files = match self.shared.lock() {
            Ok(mut shared) => {
                let store = files::Store::of(spec, &plan.spec.compat);
                LogFiles::open(spec, number, &mut shared, plan.spec.pacing.due_lat, store)
            }
            Err(_) => return Vec::new(),
        };
        match files {
            Ok(files) => vec![Box::new(window::WindowLogger::new(
                plan,
                files,
                start_ns,
                origin_unix_ms,
            ))],
            Err(e) => {
                eprintln!("ferrio: {e}");
                Vec::new()
            }
        }
    }
}
