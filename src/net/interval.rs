//! `--status-interval` in client mode: every interval, the hosts' latest cumulative
//! reports (each host sends one with its heartbeat, once a second) printed as the
//! final report is, each host's jobs and "All clients" summed from them. A host that
//! has sent nothing yet is left out of that report.

use super::outcome::{HostResult, Outcome};
use super::print;
use ferrio_config::GlobalFlags;
use ferrio_report::RunReport;
use std::io::Write as _;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Each host's latest cumulative report, by host index.
pub type Latest = Arc<Mutex<Vec<Option<Box<RunReport>>>>>;

/// The printing thread; stopped (and joined) when the run ends.
pub struct Reporter {
    stop: mpsc::Sender<()>,
    handle: JoinHandle<()>,
}

impl Reporter {
    /// Start printing every `every`; `--output` is truncated now (the reports and
    /// then the final one are appended to it).
    pub fn start(
        flags: GlobalFlags,
        labels: Vec<String>,
        latest: Latest,
        every: Duration,
        gone: crate::live::StdoutGone,
    ) -> Result<Reporter, String> {
        print::output(&flags, false)?;
        let (stop, wake) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            // A timeout is the next interval; a message or a hang-up is the end.
            while let Err(mpsc::RecvTimeoutError::Timeout) = wake.recv_timeout(every) {
                let results = snapshot(&labels, &latest);
                if results.is_empty() {
                    continue;
                }
                let text: String = flags
                    .output_formats
                    .iter()
                    .map(|f| print::render_interval(*f, &flags, &results))
                    .collect();
                let mut out = match print::output(&flags, true) {
                    Ok(o) => o,
                    Err(e) => {
                        eprintln!("ferrio: --status-interval: {e}");
                        return;
                    }
                };
                if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                    // stdout's reader gone: the hosts are stopped (the caller ends by
                    // SIGPIPE after the final report), as a local run's reporter does.
                    match e.kind() {
                        std::io::ErrorKind::BrokenPipe => gone.check(Err(e)),
                        _ => eprintln!("ferrio: --status-interval: {e}"),
                    }
                    return;
                }
            }
        });
        Ok(Reporter { stop, handle })
    }

    pub fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.handle.join();
    }
}

/// The hosts that have reported, as finished ones (what the printers take).
fn snapshot(labels: &[String], latest: &Latest) -> Vec<HostResult> {
    let Ok(latest) = latest.lock() else {
        return Vec::new();
    };
    labels
        .iter()
        .zip(latest.iter())
        .filter_map(|(label, r)| {
            let report = r.clone()?;
            let mut h = HostResult::failed(label.clone(), "running", String::new());
            h.outcome = Outcome::Done { report, code: 0 };
            Some(h)
        })
        .collect()
}
