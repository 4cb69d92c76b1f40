//! `--cpuclock-test`: fio's cross-core CPU clock test, once per read strategy.
//!
//! Output keeps fio's shape (`cs: reliable_tsc: …`, `cs: cpu  N: … clocks seen, first
//! …`, `cs: CPU clock mismatch …`, and a final `cs: Pass!` or `cs: Failed: N`), with a
//! table before the final block: every strategy this CPU can execute, whether it is
//! documented to be ordered here, its violations, its cost per read. The final block
//! and the return value are for the strategy ferrio itself uses.

use std::io::Write;

use crate::barrier::{self, Barrier, Platform};
use crate::cross_core::{self, Outcome, Size};
use crate::{bench, calibrate, sys};

/// `--cpuclock-test`: writes the report to `out`, returns true on pass.
pub fn cpuclock_test(out: &mut dyn Write) -> bool {
    let cpus = sys::allowed_cpus();
    run_report(out, barrier::platform(), &cpus, Size::full(cpus.len()))
}

/// The report for `platform` on `cpus`; true when the chosen strategy saw no violation.
pub(crate) fn run_report(
    out: &mut dyn Write,
    platform: &Platform,
    cpus: &[usize],
    size: Size,
) -> bool {
    let Some(counter) = platform.counter else {
        let _ = writeln!(out, "cs: current platform does not support CPU clocks");
        return false;
    };
    let _ = match &platform.invariant {
        Ok(basis) => writeln!(out, "cs: reliable_tsc: yes ({basis})"),
        Err(reason) => writeln!(out, "cs: reliable_tsc: no ({reason})"),
    };
    let _ = writeln!(out, "cs: cpu: {}", platform.summary);

    let costs: Vec<(Barrier, f64)> = platform
        .supported
        .iter()
        .map(|&b| (b, bench::read_cost(b)))
        .collect();
    let cost_of = |b: Barrier| costs.iter().find(|c| c.0 == b).map_or(f64::NAN, |c| c.1);
    let candidates: Vec<Barrier> = platform.candidates.iter().map(|c| c.0).collect();
    let chosen = barrier::choose(&candidates, cost_of).map(|(b, _)| b);

    if let Some(b) = chosen {
        match calibrate::calibrate(&mut || b.read()) {
            Ok(c) => {
                let _ = writeln!(
                    out,
                    "cs: {counter} at {:.3} MHz (calibrated against CLOCK_MONOTONIC over {} ms, ±{:.1} ppm)",
                    c.scale.ticks_per_sec() / 1e6,
                    c.window_ns / 1_000_000,
                    c.uncertainty_ppm
                );
            }
            Err(e) => {
                let _ = writeln!(out, "cs: {counter} calibration failed: {e}");
            }
        }
    }

    let _ = writeln!(
        out,
        "cs: Testing {} CPUs, up to {} samples per CPU, once per read strategy",
        cpus.len(),
        size.entries_per_cpu
    );
    let mut runs: Vec<(Barrier, Result<Outcome, String>)> = Vec::new();
    for &b in &platform.supported {
        runs.push((b, cross_core::run(b, cpus, size)));
    }

    let _ = writeln!(
        out,
        "cs: {:<8} {:<24} {:<8} {:>8} {:>8} {:>10} {:>8}",
        "strategy", "sequence", "ordered", "samples", "handoffs", "violations", "ns/read"
    );
    for (b, r) in &runs {
        let ordered = if candidates.contains(b) { "yes" } else { "no" };
        let (samples, handoffs, violations) = match r {
            Ok(o) => (
                o.entries.to_string(),
                o.handoffs.to_string(),
                o.violations.to_string(),
            ),
            Err(e) => ("-".to_string(), "-".to_string(), format!("error: {e}")),
        };
        let _ = writeln!(
            out,
            "cs: {:<8} {:<24} {:<8} {:>8} {:>8} {:>10} {:>8.1}",
            b.name(),
            b.sequence(),
            ordered,
            samples,
            handoffs,
            violations,
            cost_of(*b)
        );
    }

    let Some(chosen) = chosen else {
        let _ = writeln!(
            out,
            "cs: no read sequence is documented to order the {counter} on this CPU; ferrio uses clock_gettime"
        );
        let _ = writeln!(out, "cs: Failed: no usable strategy");
        return false;
    };
    let why = platform
        .candidates
        .iter()
        .find(|c| c.0 == chosen)
        .map_or("", |c| c.1);
    let _ = writeln!(out, "cs: ferrio uses {}: {why}", chosen.name());
    if platform.invariant.is_err() {
        let _ = writeln!(
            out,
            "cs: note: the {counter} is not invariant, so the automatic clock choice is clock_gettime"
        );
    }

    let outcome = match runs.into_iter().find(|(b, _)| *b == chosen) {
        Some((_, Ok(o))) => o,
        Some((_, Err(e))) => {
            let _ = writeln!(out, "cs: test could not run: {e}");
            let _ = writeln!(out, "cs: Failed: test error");
            return false;
        }
        None => unreachable!("candidates are a subset of the supported strategies"),
    };
    print_fio_block(out, chosen, &outcome);
    outcome.violations == 0
}

/// fio's per-CPU lines, mismatches and verdict for one run.
fn print_fio_block(out: &mut dyn Write, b: Barrier, o: &Outcome) {
    let _ = writeln!(
        out,
        "cs: Testing {} CPUs ({}, {} ms)",
        o.cpus.len(),
        b.name(),
        o.elapsed_ns / 1_000_000
    );
    for c in &o.cpus {
        let _ = writeln!(
            out,
            "cs: cpu{:>3}: {} clocks seen, first {}",
            c.cpu, c.clocks_seen, c.first
        );
    }
    for (prev, this) in &o.examples {
        let _ = writeln!(
            out,
            "cs: CPU clock mismatch (diff={}):",
            prev.tsc - this.tsc
        );
        for e in [prev, this] {
            let _ = writeln!(out, "\t CPU{:>3}: TSC={}, SEQ={}", e.cpu, e.tsc, e.seq);
        }
    }
    if o.violations > o.examples.len() as u64 {
        let _ = writeln!(
            out,
            "cs: ({} more mismatches not shown)",
            o.violations - o.examples.len() as u64
        );
    }
    if o.violations == 0 {
        let _ = writeln!(out, "cs: Pass!");
    } else {
        let _ = writeln!(out, "cs: Failed: {}", o.violations);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cross_core::{CpuRun, Entry};

    #[test]
    fn fio_block_format() {
        let e = |seq, cpu, tsc| Entry { seq, cpu, tsc };
        let o = Outcome {
            cpus: vec![CpuRun {
                cpu: 1,
                first: 100,
                clocks_seen: 5000,
            }],
            entries: 3,
            handoffs: 2,
            violations: 12,
            examples: vec![(e(4, 1, 47), e(5, 0, 45))],
            elapsed_ns: 3_000_000,
        };
        let mut buf = Vec::new();
        // Generic architectures have no strategy to name; nothing to format.
        let Some(&b) = barrier::platform().supported.first() else {
            return;
        };
        print_fio_block(&mut buf, b, &o);
        let text = String::from_utf8(buf).unwrap();
        assert!(
            text.contains("cs: cpu  1: 5000 clocks seen, first 100\n"),
            "{text}"
        );
        assert!(text.contains("cs: CPU clock mismatch (diff=2):\n\t CPU  1: TSC=47, SEQ=4\n\t CPU  0: TSC=45, SEQ=5\n"), "{text}");
        assert!(text.contains("(11 more mismatches not shown)"), "{text}");
        assert!(text.ends_with("cs: Failed: 12\n"), "{text}");
    }

    #[test]
    fn report_without_counter_fails_like_fio() {
        let p = Platform {
            counter: None,
            summary: "none".into(),
            invariant: Err("no counter".into()),
            candidates: vec![],
            supported: vec![],
        };
        let mut buf = Vec::new();
        assert!(!run_report(&mut buf, &p, &[0], Size::quick(1)));
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "cs: current platform does not support CPU clocks\n"
        );
    }

    #[test]
    fn report_on_this_machine() {
        let p = barrier::platform();
        if p.counter.is_none() {
            return;
        }
        let cpus = sys::allowed_cpus();
        let size = Size {
            entries_per_cpu: 5_000,
            time_limit_ns: 100_000_000,
        };
        let mut buf = Vec::new();
        let pass = run_report(&mut buf, p, &cpus, size);
        let text = String::from_utf8(buf).unwrap();
        assert!(text.starts_with("cs: reliable_tsc: "), "{text}");
        for b in &p.supported {
            assert!(
                text.contains(&format!("cs: {:<8} {}", b.name(), b.sequence())),
                "{text}"
            );
        }
        let last = text.lines().last().unwrap();
        assert_eq!(pass, last == "cs: Pass!", "{text}");
        if !p.candidates.is_empty() {
            assert!(text.contains("cs: ferrio uses "), "{text}");
            assert!(
                pass,
                "the chosen strategy must pass on this machine:\n{text}"
            );
        }
    }
}
