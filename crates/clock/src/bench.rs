//! Per-read cost measurement: the helper used to rank read strategies, and
//! `clock_bench` (`ferrio --clock-bench`), which prints the cost of every clock source.

use std::hint::black_box;
use std::io::Write;

use crate::barrier::Barrier;
use crate::{sys, Clock};

/// Best-of-`rounds` average cost in ns of one call of `f` over `iters` calls.
/// The results are summed into a black box so no call can be optimised away.
pub(crate) fn ns_per_call(mut f: impl FnMut() -> u64, iters: u32, rounds: u32) -> f64 {
    let mut best = f64::INFINITY;
    let mut sink = 0u64;
    for _ in 0..rounds {
        let t0 = sys::monotonic_ns();
        for _ in 0..iters {
            sink = sink.wrapping_add(f());
        }
        let dt = sys::monotonic_ns() - t0;
        best = best.min(dt as f64 / iters as f64);
    }
    black_box(sink);
    best
}

/// Cost of one counter read with `b` (a few ms of measurement).
pub(crate) fn read_cost(b: Barrier) -> f64 {
    ns_per_call(|| black_box(b).read(), 20_000, 7)
}

/// Smallest positive step between consecutive readings of `clock` (its effective
/// resolution), or `None` if it never moved.
fn min_step(clock: &Clock) -> Option<u64> {
    let mut prev = clock.now_ns();
    let mut best: Option<u64> = None;
    for _ in 0..20_000 {
        let now = clock.now_ns();
        if now > prev {
            let d = now - prev;
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        prev = now;
    }
    best
}

/// Measure and print the per-read cost of every clock source.
pub fn clock_bench(out: &mut dyn Write) {
    const ITERS: u32 = 100_000;
    const ROUNDS: u32 = 9;
    let _ = writeln!(
        out,
        "clock source     ns/read   step ns  notes   (best of {ROUNDS} x {ITERS} reads)"
    );
    for source in ["cpu", "clock_gettime", "gettimeofday", "virtual"] {
        let made = if source == "virtual" {
            Ok(Clock::virtual_clock().0)
        } else {
            Clock::for_source(Some(source)).map(|(c, _)| c)
        };
        let clock = match made {
            Ok(v) => v,
            Err(reason) => {
                let _ = writeln!(
                    out,
                    "{source:<14} {:>9} {:>9}  unavailable: {reason}",
                    "-", "-"
                );
                continue;
            }
        };
        let cost = ns_per_call(|| black_box(&clock).now_ns(), ITERS, ROUNDS);
        let step = min_step(&clock).map_or("-".to_string(), |s| s.to_string());
        let _ = writeln!(
            out,
            "{source:<14} {cost:>9.1} {step:>9}  {}",
            clock.details()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns_per_call_measures_real_work() {
        let cheap = ns_per_call(|| black_box(1u64), 10_000, 3);
        let sleepy = ns_per_call(
            || {
                std::thread::sleep(std::time::Duration::from_micros(50));
                1
            },
            20,
            1,
        );
        assert!(cheap < 1_000.0, "{cheap}");
        assert!(sleepy >= 50_000.0, "{sleepy}");
    }

    #[test]
    fn clock_bench_prints_every_source() {
        let mut out = Vec::new();
        clock_bench(&mut out);
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), 4, "{text}");
        for (row, name) in rows
            .iter()
            .zip(["cpu", "clock_gettime", "gettimeofday", "virtual"])
        {
            assert!(row.starts_with(name), "{text}");
        }
        // gettimeofday has microsecond resolution.
        let gtod: Vec<&str> = rows[2].split_whitespace().collect();
        assert!(
            gtod[2] == "1000" || gtod[2].parse::<u64>().unwrap() % 1000 == 0,
            "{text}"
        );
    }
}
