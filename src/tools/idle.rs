//! `--idle-prof`: how idle the CPUs were during the run, as fio's "CPU idleness".
//!
//! fio runs an idle-priority thread per CPU and counts the units of work it gets
//! through; ferrio reads the kernel's per-CPU idle time (`/proc/stat`: idle + iowait
//! over all time) before and after the run instead, which measures the same share
//! without taking that CPU time from the jobs. The unit of work is still timed
//! (`unit work: mean=..us`) so the section keeps fio's fields.

use ferrio_report::CpuIdleness;
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

/// Idle and total jiffies: all CPUs first, then each CPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot(Vec<(u64, u64)>);

/// Reads /proc/stat now (empty when it cannot be read).
pub fn snapshot() -> Snapshot {
    parse(&std::fs::read_to_string("/proc/stat").unwrap_or_default())
}

fn parse(text: &str) -> Snapshot {
    let rows = text
        .lines()
        .filter(|l| l.starts_with("cpu"))
        .map(|l| {
            let v: Vec<u64> = l
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            // user nice system idle iowait irq softirq steal (guest time is in user).
            let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
            let total = v.iter().take(8).sum();
            (idle, total)
        })
        .collect();
    Snapshot(rows)
}

fn share(before: (u64, u64), after: (u64, u64)) -> f64 {
    let total = after.1.saturating_sub(before.1);
    if total == 0 {
        return 0.0;
    }
    100.0 * after.0.saturating_sub(before.0) as f64 / total as f64
}

/// The section for a run between two snapshots.
pub fn measure(before: &Snapshot, after: &Snapshot, percpu: bool) -> CpuIdleness {
    let pairs: Vec<f64> = before
        .0
        .iter()
        .zip(&after.0)
        .map(|(b, a)| share(*b, *a))
        .collect();
    let (unit_mean_us, unit_stddev) = calibrate();
    CpuIdleness {
        system: pairs.first().copied().unwrap_or(0.0),
        percpu: percpu.then(|| pairs.iter().skip(1).copied().collect()),
        unit_mean_us,
        unit_stddev,
    }
}

/// One unit of work: a pass over 4 KiB of words, a few microseconds.
fn unit(buf: &[u64]) -> u64 {
    buf.iter().fold(0u64, |a, &x| {
        black_box(a.rotate_left(5) ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    })
}

/// Times the unit of work 50 times: mean (us) and standard deviation.
pub fn calibrate() -> (f64, f64) {
    let buf: Vec<u64> = (0..512u64).collect();
    black_box(unit(&buf));
    let times: Vec<f64> = (0..50)
        .map(|_| {
            let t = Instant::now();
            black_box(unit(black_box(&buf)));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    let n = times.len() as f64;
    let mean = times.iter().sum::<f64>() / n;
    let var = times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// `--idle-prof=calibrate`: fio prints only the unit of work, then exits.
pub fn print_calibration(out: &mut dyn Write) {
    let (mean, sd) = calibrate();
    let _ = write!(
        out,
        "CPU idleness:\n  unit work: mean={mean:.2}us, stddev={sd:.2}\n"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_share_from_two_snapshots() {
        let a = parse("cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0\nintr 1\n");
        let b = parse("cpu  200 0 200 1400 200 0 0 0 0 0\ncpu0 150 0 150 400 0 0 0 0\ncpu1 50 0 50 1000 200 0 0 0\n");
        let c = measure(&a, &b, true);
        // System: 800 idle+iowait jiffies of 1000; cpu0 none, cpu1 all.
        assert_eq!(c.system, 80.0);
        assert_eq!(c.percpu, Some(vec![0.0, 100.0]));
        assert!(c.unit_mean_us > 0.0);
        assert_eq!(measure(&a, &b, false).percpu, None);
    }
}
