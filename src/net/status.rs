//! The client's status line across hosts (where fio's client shows its ETA line):
//! each host's state letter and the summed read/write rates from the heartbeats'
//! cumulative reports, once a second on a terminal (or with `--eta=always`), and the
//! final state when every host has finished.

use ferrio_report::units::{num2str, N2sUnit, SIG_FIGS};
use ferrio_report::RunReport;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A host's state letter: connecting, ready, running, done, failed.
pub const CONNECTING: char = 'C';
pub const READY: char = 'R';
pub const RUNNING: char = 'r';
pub const DONE: char = 'D';
pub const FAILED: char = 'X';

#[derive(Clone, Debug)]
struct Cell {
    state: char,
    /// Cumulative read and write bytes and I/Os at `at` (the latest heartbeat).
    bytes: [u64; 2],
    ios: [u64; 2],
    at: Option<Instant>,
    /// Rates between the two latest heartbeats.
    bw: [f64; 2],
    iops: [f64; 2],
}

/// Every host's state, shared by the host threads and the status thread.
pub struct Board {
    cells: Mutex<Vec<Cell>>,
}

impl Board {
    pub fn new(hosts: usize) -> Arc<Board> {
        let cell = Cell {
            state: CONNECTING,
            bytes: [0; 2],
            ios: [0; 2],
            at: None,
            bw: [0.0; 2],
            iops: [0.0; 2],
        };
        Arc::new(Board {
            cells: Mutex::new(vec![cell; hosts]),
        })
    }

    pub fn set(&self, host: usize, state: char) {
        if let Some(c) = self
            .cells
            .lock()
            .ok()
            .as_mut()
            .and_then(|c| c.get_mut(host))
        {
            c.state = state;
            if state == DONE || state == FAILED {
                c.bw = [0.0; 2];
                c.iops = [0.0; 2];
            }
        }
    }

    /// A heartbeat's cumulative report: the rates since the previous one.
    pub fn progress(&self, host: usize, report: &RunReport) {
        let now = Instant::now();
        let mut bytes = [0u64; 2];
        let mut ios = [0u64; 2];
        for j in &report.jobs {
            for d in 0..2 {
                bytes[d] += j.dir[d].io_bytes;
                ios[d] += j.dir[d].total_ios;
            }
        }
        let Ok(mut cells) = self.cells.lock() else {
            return;
        };
        let Some(c) = cells.get_mut(host) else { return };
        if let Some(at) = c.at {
            let secs = now.duration_since(at).as_secs_f64().max(1e-3);
            for d in 0..2 {
                c.bw[d] = bytes[d].saturating_sub(c.bytes[d]) as f64 / secs;
                c.iops[d] = ios[d].saturating_sub(c.ios[d]) as f64 / secs;
            }
        }
        c.state = RUNNING;
        (c.bytes, c.ios, c.at) = (bytes, ios, Some(now));
    }

    /// The line: `Hosts: 2 running: [rrD][r=1.2GiB/s,w=0KiB/s][r=300k,w=0 IOPS]`.
    pub fn line(&self) -> String {
        let cells = self.cells.lock().map(|c| c.clone()).unwrap_or_default();
        let running = cells.iter().filter(|c| c.state == RUNNING).count();
        let letters: String = cells.iter().map(|c| c.state).collect();
        let bw: Vec<String> = ["r", "w"]
            .iter()
            .enumerate()
            .map(|(d, k)| {
                let v: f64 = cells.iter().map(|c| c.bw[d]).sum();
                format!(
                    "{k}={}",
                    num2str(v as u64, SIG_FIGS, 1, true, N2sUnit::BytePerSec)
                )
            })
            .collect();
        let iops: Vec<String> = ["r", "w"]
            .iter()
            .enumerate()
            .map(|(d, k)| {
                let v: f64 = cells.iter().map(|c| c.iops[d]).sum();
                format!(
                    "{k}={}",
                    num2str(v as u64, SIG_FIGS, 1, false, N2sUnit::None)
                )
            })
            .collect();
        format!(
            "Hosts: {running} running: [{letters}][{}][{} IOPS]",
            bw.join(","),
            iops.join(",")
        )
    }
}

/// The status thread: a line a second on stdout until `stop`, then a newline.
pub struct Status {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Status {
    /// `gone`: a write that finds stdout's reader gone stops the hosts (and the line).
    pub fn start(board: Arc<Board>, gone: crate::live::StdoutGone) -> Status {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut last = 0usize;
            let mut tick = 0u32;
            while !s.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                tick += 1;
                if tick.is_multiple_of(10) {
                    let line = board.line();
                    let pad = last.saturating_sub(line.len());
                    last = line.len();
                    let mut out = std::io::stdout().lock();
                    let written =
                        write!(out, "{line}{}\r", " ".repeat(pad)).and_then(|_| out.flush());
                    gone.check(written);
                    if gone.gone.load(Ordering::SeqCst) {
                        return;
                    }
                }
            }
            // The final state (every host done or failed), then a newline.
            let line = board.line();
            let pad = last.saturating_sub(line.len());
            let mut out = std::io::stdout().lock();
            let written = writeln!(out, "{line}{}", " ".repeat(pad)).and_then(|_| out.flush());
            gone.check(written);
        });
        Status {
            stop,
            thread: Some(thread),
        }
    }

    pub fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_sums_the_hosts_rates() {
        let b = Board::new(3);
        b.set(0, READY);
        b.set(2, FAILED);
        let mut r = RunReport::default();
        r.jobs.push(Default::default());
        b.progress(1, &r);
        assert_eq!(
            b.line(),
            "Hosts: 1 running: [RrX][r=0B/s,w=0B/s][r=0,w=0 IOPS]"
        );
        // A second heartbeat with more bytes gives a read rate, no write rate.
        r.jobs[0].dir[0].io_bytes = 1 << 20;
        r.jobs[0].dir[0].total_ios = 256;
        b.progress(1, &r);
        let line = b.line();
        assert!(
            !line.contains("[r=0B/s") && line.contains(",w=0B/s]"),
            "{line}"
        );
        assert!(
            !line.contains("[r=0,") && line.contains(",w=0 IOPS]"),
            "{line}"
        );
        b.set(1, DONE);
        assert!(b.line().starts_with("Hosts: 0 running: [RDX][r=0B/s"));
    }
}
