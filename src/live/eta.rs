//! The status line, in fio's format:
//! `Jobs: 1 (f=1): [R(1)][15.5%][r=12.6GiB/s][r=3292k IOPS][eta 08m:27s]`.
//!
//! Pure formatting here; [`super::Live`] decides when to print it and where.

use super::hub::{Hub, DONE, FAILED, NOT_STARTED, RAMPING, RUNNING};
use crate::runner::plan::ThreadPlan;
use ferrio_config::RwKind;
use ferrio_report::units::{is_pow2_base, num2str, N2sUnit, SIG_FIGS};
use std::sync::atomic::Ordering;

/// What the status line needs to know about a thread besides its live counters.
#[derive(Clone, Debug)]
pub struct ThreadInfo {
    /// fio's run-state letter while running: R/r read, W/w write, M/m mixed, D/d trim
    /// (upper case sequential, lower case random).
    pub letter: char,
    pub files: usize,
    pub dirs: [bool; 3],
    /// ramp_time + runtime in ns, when the job has a runtime.
    pub time_ns: Option<u64>,
    /// Bytes the job moves in all, when it ends by size.
    pub total_bytes: Option<u64>,
    pub kb_base: u32,
}

impl ThreadInfo {
    pub fn of(p: &ThreadPlan) -> ThreadInfo {
        let s = &p.spec;
        let letter = match (s.rw.kind, s.rw.random) {
            (RwKind::Read, false) => 'R',
            (RwKind::Read, true) => 'r',
            (RwKind::Write, false) => 'W',
            (RwKind::Write, true) => 'w',
            (RwKind::Trim, false) => 'D',
            (RwKind::Trim, true) => 'd',
            (_, false) => 'M',
            (_, true) => 'm',
        };
        let dirs = match s.rw.kind {
            RwKind::Read => [true, false, false],
            RwKind::Write => [false, true, false],
            RwKind::Trim => [false, false, true],
            RwKind::ReadWrite => [true, true, false],
            RwKind::TrimWrite => [false, true, true],
        };
        let time_ns = s.runtime_us.map(|r| (r + s.ramp_time_us) * 1000);
        let total_bytes = if s.time_based && time_ns.is_some() {
            None
        } else {
            Some(p.pass_bytes.saturating_mul(s.loops.max(1) as u64))
        };
        ThreadInfo {
            letter,
            files: p.files.len(),
            dirs,
            time_ns,
            total_bytes,
            kb_base: s.kb_base,
        }
    }
}

/// fio's ETA text: `08m:27s`, `01h:02m:03s`, `2d:01h:02m:03s`.
pub fn eta_str(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if d > 0 {
        out.push_str(&format!("{d}d:"));
    }
    if d > 0 || h > 0 {
        out.push_str(&format!("{h:02}h:"));
    }
    out.push_str(&format!("{m:02}m:{s:02}s"));
    out
}

/// Run-length state string: `R(2),_(1)`.
pub fn states(letters: &[char]) -> String {
    let mut parts: Vec<(char, usize)> = Vec::new();
    for &c in letters {
        match parts.last_mut() {
            Some((l, n)) if *l == c => *n += 1,
            _ => parts.push((c, 1)),
        }
    }
    parts
        .iter()
        .map(|(c, n)| format!("{c}({n})"))
        .collect::<Vec<_>>()
        .join(",")
}

const DIR_KEYS: [&str; 3] = ["r", "w", "t"];

/// Everything one status line shows.
#[derive(Clone, Debug, Default)]
pub struct LineFacts {
    pub running: usize,
    pub files: usize,
    pub letters: Vec<char>,
    pub percent: f64,
    /// bytes/s and I/Os per second per direction; None for a direction no job does.
    pub bw: [Option<u64>; 3],
    pub iops: [Option<u64>; 3],
    pub eta_secs: u64,
    pub pow2: bool,
}

/// The status line (no `\r`, no newline).
pub fn format_line(f: &LineFacts) -> String {
    let mut s = format!(
        "Jobs: {} (f={}): [{}]",
        f.running,
        f.files,
        states(&f.letters)
    );
    s.push_str(&format!("[{:.1}%]", f.percent));
    let bw: Vec<String> = (0..3)
        .filter_map(|d| {
            f.bw[d].map(|v| {
                format!(
                    "{}={}",
                    DIR_KEYS[d],
                    num2str(v, SIG_FIGS, 1, f.pow2, N2sUnit::BytePerSec)
                )
            })
        })
        .collect();
    if !bw.is_empty() {
        s.push_str(&format!("[{}]", bw.join(",")));
        let iops: Vec<String> = (0..3)
            .filter_map(|d| {
                f.iops[d].map(|v| {
                    format!(
                        "{}={}",
                        DIR_KEYS[d],
                        num2str(v, SIG_FIGS, 1, false, N2sUnit::None)
                    )
                })
            })
            .collect();
        s.push_str(&format!("[{} IOPS]", iops.join(",")));
    }
    s.push_str(&format!("[eta {}]", eta_str(f.eta_secs)));
    s
}

/// Rate sampler: turns the hub's cumulative counters into per-second rates.
pub struct Eta {
    infos: Vec<ThreadInfo>,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    last_ns: u64,
    /// The rates last shown, reused when asked again within [`MIN_RATE_NS`].
    last_rates: ([Option<u64>; 3], [Option<u64>; 3]),
}

/// Shortest span rates are measured over (the final line comes right after a tick).
const MIN_RATE_NS: u64 = 200_000_000;

impl Eta {
    pub fn new(infos: Vec<ThreadInfo>) -> Eta {
        Eta {
            infos,
            last_bytes: [0; 3],
            last_ios: [0; 3],
            last_ns: 0,
            last_rates: ([None; 3], [None; 3]),
        }
    }

    /// The facts at wall time `now_ns` since the run started (rates over the time since
    /// the previous call).
    pub fn facts(&mut self, hub: &Hub, now_ns: u64) -> LineFacts {
        let mut f = LineFacts {
            pow2: self.infos.first().is_none_or(|i| is_pow2_base(i.kb_base)),
            ..Default::default()
        };
        let mut bytes = [0u64; 3];
        let mut ios = [0u64; 3];
        let mut dirs = [false; 3];
        let mut eta_ns = 0u64;
        let mut progress_sum = 0.0;
        for (i, info) in self.infos.iter().enumerate() {
            let slot = &hub.slots[i];
            let state = slot.state.load(Ordering::Acquire);
            let mut done_bytes = 0;
            for d in 0..3 {
                let b = slot.bytes[d].load(Ordering::Relaxed);
                bytes[d] += b;
                ios[d] += slot.ios[d].load(Ordering::Relaxed);
                dirs[d] |= info.dirs[d];
                done_bytes += b;
            }
            let mut elapsed = slot.elapsed_ns.load(Ordering::Relaxed);
            if state == RAMPING {
                // Observers are quiet during ramp_time: follow the wall clock.
                let started = slot.started_wall_ns.load(Ordering::Relaxed);
                if started > 0 {
                    elapsed = elapsed.max(hub.wall_ns().saturating_sub(started));
                }
            }
            let (letter, progress, left_ns) = match state {
                NOT_STARTED => ('P', 0.0, info.time_ns.unwrap_or(0)),
                DONE => ('_', 1.0, 0),
                FAILED => ('X', 1.0, 0),
                s => {
                    let letter = if s == RAMPING { '/' } else { info.letter };
                    let by_time = info.time_ns.map(|t| {
                        (
                            (elapsed as f64 / t.max(1) as f64).min(1.0),
                            t.saturating_sub(elapsed),
                        )
                    });
                    let by_size = info.total_bytes.filter(|&t| t > 0).map(|t| {
                        let p = (done_bytes as f64 / t as f64).min(1.0);
                        let left = if p > 0.0 {
                            (elapsed as f64 * (1.0 - p) / p) as u64
                        } else {
                            0
                        };
                        (p, left)
                    });
                    let (p, left) = match (by_time, by_size) {
                        (Some(a), Some(b)) => {
                            if a.1 <= b.1 {
                                a
                            } else {
                                b
                            }
                        }
                        (Some(a), None) | (None, Some(a)) => a,
                        (None, None) => (0.0, 0),
                    };
                    (letter, p, left)
                }
            };
            if state == RUNNING || state == RAMPING {
                f.running += 1;
                f.files += info.files;
            }
            f.letters.push(letter);
            progress_sum += progress;
            eta_ns = eta_ns.max(left_ns);
        }
        let n = self.infos.len().max(1) as f64;
        f.percent = (progress_sum / n * 100.0).clamp(0.0, 100.0);
        f.eta_secs = eta_ns.div_ceil(1_000_000_000);
        let dt = now_ns.saturating_sub(self.last_ns);
        if dt < MIN_RATE_NS && self.last_ns > 0 {
            (f.bw, f.iops) = self.last_rates;
            return f;
        }
        for d in 0..3 {
            if dirs[d] {
                let (db, di) = (
                    bytes[d].saturating_sub(self.last_bytes[d]),
                    ios[d].saturating_sub(self.last_ios[d]),
                );
                f.bw[d] = Some(rate(db, dt));
                f.iops[d] = Some(rate(di, dt));
            }
        }
        self.last_bytes = bytes;
        self.last_ios = ios;
        self.last_ns = now_ns;
        self.last_rates = (f.bw, f.iops);
        f
    }
}

fn rate(n: u64, dt_ns: u64) -> u64 {
    if dt_ns == 0 {
        0
    } else {
        (n as u128 * 1_000_000_000 / dt_ns as u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_from_the_hub() {
        let hub = Hub::new(3);
        let info = |time_ns: Option<u64>, total: Option<u64>| ThreadInfo {
            letter: 'r',
            files: 1,
            dirs: [true, false, false],
            time_ns,
            total_bytes: total,
            kb_base: 1024,
        };
        // A timed thread half way, a sized one a quarter way, one done.
        let mut eta = Eta::new(vec![
            info(Some(10_000_000_000), None),
            info(None, Some(4 << 20)),
            info(Some(1), None),
        ]);
        let set = |i: usize, state: u8, bytes: u64, elapsed: u64| {
            let s = &hub.slots[i];
            s.state.store(state, Ordering::Relaxed);
            s.bytes[0].store(bytes, Ordering::Relaxed);
            s.ios[0].store(bytes / 4096, Ordering::Relaxed);
            s.elapsed_ns.store(elapsed, Ordering::Relaxed);
        };
        set(0, RUNNING, 8 << 20, 5_000_000_000);
        set(1, RUNNING, 1 << 20, 2_000_000_000);
        set(2, DONE, 0, 0);
        let f = eta.facts(&hub, 1_000_000_000);
        assert_eq!((f.running, f.files), (2, 2));
        assert_eq!(f.letters, vec!['r', 'r', '_']);
        // (0.5 + 0.25 + 1) / 3
        assert!((f.percent - 175.0 / 3.0).abs() < 1e-9, "{}", f.percent);
        // max(5 s left by time, 6 s left by extrapolating 1 MiB in 2 s to 4 MiB)
        assert_eq!(f.eta_secs, 6);
        assert_eq!(f.bw, [Some(9 << 20), None, None]);
        assert_eq!(f.iops, [Some(9 * 256), None, None]);
        // One second later, 1 MiB more: rates over the last second only.
        set(0, RUNNING, 9 << 20, 6_000_000_000);
        let f = eta.facts(&hub, 2_000_000_000);
        assert_eq!(f.bw[0], Some(1 << 20));
        // Asked again right away: the last rates are kept.
        let f = eta.facts(&hub, 2_000_000_001);
        assert_eq!(f.bw[0], Some(1 << 20));
    }

    #[test]
    fn eta_text_like_fio() {
        assert_eq!(eta_str(0), "00m:00s");
        assert_eq!(eta_str(507), "08m:27s");
        assert_eq!(eta_str(3723), "01h:02m:03s");
        assert_eq!(eta_str(2 * 86400 + 3723), "2d:01h:02m:03s");
    }

    #[test]
    fn run_length_states() {
        assert_eq!(states(&['R']), "R(1)");
        assert_eq!(states(&['m', 'm', '_', 'P']), "m(2),_(1),P(1)");
    }

    #[test]
    fn line_like_fio() {
        let f = LineFacts {
            running: 1,
            files: 1,
            letters: vec!['R'],
            percent: 15.5,
            bw: [Some(13_529_146_982), None, None],
            iops: [Some(3_292_000), None, None],
            eta_secs: 507,
            pow2: true,
        };
        assert_eq!(
            format_line(&f),
            "Jobs: 1 (f=1): [R(1)][15.5%][r=12.6GiB/s][r=3292k IOPS][eta 08m:27s]"
        );
        let mixed = LineFacts {
            running: 2,
            files: 2,
            letters: vec!['m', 'm'],
            percent: 75.0,
            bw: [Some(16_965_120_000), Some(16_965_120_000), None],
            iops: [Some(4_148_000), Some(4_150_000), None],
            eta_secs: 1,
            pow2: true,
        };
        assert_eq!(
            format_line(&mixed),
            "Jobs: 2 (f=2): [m(2)][75.0%][r=15.8GiB/s,w=15.8GiB/s][r=4148k,w=4150k IOPS][eta 00m:01s]"
        );
    }
}
