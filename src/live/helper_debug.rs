//! `--debug=helperthread` lines from ferrio's helper thread (the live reporter: ETA
//! line and status reports). fio's helper thread writes `clk_tck = N` and its
//! next-event arithmetic; ferrio's loop differs (a fixed tick), so it writes its own
//! words: what it will do at start, each report it makes, and its exit.

use super::LoopConfig;
use crate::runner::debug_hooks::say;
use ferrio_config::DebugCategory::Helperthread;
use std::time::Duration;

/// The loop starts: its tick and schedules.
pub(super) fn started(cfg: &LoopConfig) {
    let status = cfg.status_every.map_or("never".to_string(), |d| {
        format!("every {} ms", d.as_millis())
    });
    say(
        Helperthread,
        format_args!(
            "helper thread started: tick 20 ms, eta line {}, status reports {status}",
            if cfg.eta {
                format!("every {} ms", cfg.eta_every.as_millis())
            } else {
                "off".to_string()
            }
        ),
    );
}

/// A status report is made `at` after the start (`periodic`, else for SIGUSR1).
pub(super) fn report(periodic: bool, at: Duration) {
    say(
        Helperthread,
        format_args!(
            "status report at {} ms ({})",
            at.as_millis(),
            if periodic {
                "status-interval"
            } else {
                "SIGUSR1"
            }
        ),
    );
}

/// The loop ends (the jobs are done).
pub(super) fn exiting() {
    say(Helperthread, format_args!("helper thread exiting"));
}
