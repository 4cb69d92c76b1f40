//! The cross-core monotonicity test behind `--cpuclock-test` and the automatic clock
//! choice (the method of fio's `fio_monotonic_clocktest`).
//!
//! One thread is pinned to each allowed CPU. All threads share one sequence number.
//! To take a sample a thread loads the sequence number, reads the counter with the
//! strategy under test, and then tries to compare-and-swap the sequence number to the
//! next value; only when the swap succeeds is the (sequence, counter) pair recorded,
//! so each sequence number is paired with exactly one reading, taken after the load
//! that saw the previous thread's increment. If the read is correctly ordered after
//! that load and the counters are synchronised, counter values sorted by sequence
//! number never decrease; every decrease is counted as a violation. Unlike fio, each
//! thread pauses briefly after a sample so that consecutive samples change CPU often
//! (the *handoffs* reported): only at a handoff can unsynchronised or unordered reads
//! show up.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::barrier::Barrier;
use crate::sys;

/// One recorded sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub seq: u32,
    pub cpu: u32,
    pub tsc: u64,
}

/// Per-CPU summary, as fio prints it.
#[derive(Clone, Debug)]
pub(crate) struct CpuRun {
    pub cpu: usize,
    /// Counter value read before the first sample.
    pub first: u64,
    /// Counter span between this CPU's first and last sample.
    pub clocks_seen: u64,
}

/// Result of one test run with one strategy.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub cpus: Vec<CpuRun>,
    pub entries: usize,
    /// Consecutive sequence numbers taken on different CPUs: the only places a
    /// violation can show, so a run with few handoffs proves little.
    pub handoffs: u64,
    pub violations: u64,
    /// The first few violating pairs (earlier sequence number first).
    pub examples: Vec<(Entry, Entry)>,
    pub elapsed_ns: u64,
}

/// How much work one run does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Size {
    pub entries_per_cpu: usize,
    /// Threads stop sampling after this long even if they have not filled their share.
    pub time_limit_ns: u64,
}

impl Size {
    /// `--cpuclock-test`: 5× fio's debug size (100 000 samples per CPU) on small
    /// machines, 1 000 000 samples in all on big ones, and at most 250 ms per run, so
    /// five strategies finish in under ~1.5 s.
    pub(crate) fn full(cpus: usize) -> Size {
        Size {
            entries_per_cpu: (1_000_000 / cpus.max(1)).clamp(2_000, 500_000),
            time_limit_ns: 250_000_000,
        }
    }

    /// The check made before the automatic choice uses the CPU clock.
    pub(crate) fn quick(cpus: usize) -> Size {
        Size {
            entries_per_cpu: (100_000 / cpus.max(1)).clamp(500, 20_000),
            time_limit_ns: 60_000_000,
        }
    }
}

/// Keeps the shared sequence number alone in its cache line(s).
#[repr(align(128))]
struct Padded(AtomicU32);

/// Run the test with `barrier` on `cpus`.
pub(crate) fn run(barrier: Barrier, cpus: &[usize], size: Size) -> Result<Outcome, String> {
    run_with(&|_cpu| barrier.read(), cpus, size)
}

/// Run the test with `read(cpu)` as the counter read on the thread pinned to `cpu`
/// (tests simulate unsynchronised counters through it).
fn run_with<R: Fn(usize) -> u64 + Sync>(
    read: &R,
    cpus: &[usize],
    size: Size,
) -> Result<Outcome, String> {
    let (per_cpu, mut all, elapsed_ns) = collect(read, cpus, size)?;
    if per_cpu.iter().all(|c| c.first == 0 && c.clocks_seen == 0) {
        return Err("the counter reads 0 on every CPU".to_string());
    }
    let Checked {
        handoffs,
        violations,
        examples,
    } = check(&mut all, 10);
    Ok(Outcome {
        cpus: per_cpu,
        entries: all.len(),
        handoffs,
        violations,
        examples,
        elapsed_ns,
    })
}

/// Run the pinned threads and gather their samples (unsorted).
fn collect<R: Fn(usize) -> u64 + Sync>(
    read: &R,
    cpus: &[usize],
    size: Size,
) -> Result<(Vec<CpuRun>, Vec<Entry>, u64), String> {
    if cpus.is_empty() {
        return Err("no CPUs to test".to_string());
    }
    let seq = Padded(AtomicU32::new(0));
    let start = std::sync::Barrier::new(cpus.len());
    let t0 = sys::monotonic_ns();
    let deadline = t0 + size.time_limit_ns;
    let results: Vec<Result<(Vec<Entry>, u64), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let (seq, start) = (&seq.0, &start);
                s.spawn(move || {
                    let pinned = sys::pin_current_thread(cpu);
                    // Everyone waits here, pinned or not, so no thread is left waiting.
                    start.wait();
                    pinned?;
                    Ok(sample(read, cpu, seq, size.entries_per_cpu, deadline))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("test thread panicked".to_string()))
            })
            .collect()
    });
    let elapsed_ns = sys::monotonic_ns() - t0;
    let mut all = Vec::new();
    let mut per_cpu = Vec::new();
    for (&cpu, r) in cpus.iter().zip(results) {
        let (entries, first) = r?;
        let clocks_seen = match (entries.first(), entries.last()) {
            (Some(a), Some(b)) => b.tsc.wrapping_sub(a.tsc),
            _ => 0,
        };
        per_cpu.push(CpuRun {
            cpu,
            first,
            clocks_seen,
        });
        all.extend(entries);
    }
    Ok((per_cpu, all, elapsed_ns))
}

/// One pinned thread's loop: up to `n` (sequence, counter) pairs.
fn sample<R: Fn(usize) -> u64>(
    read: &R,
    cpu: usize,
    seq: &AtomicU32,
    n: usize,
    deadline: u64,
) -> (Vec<Entry>, u64) {
    let first = read(cpu);
    let mut entries = Vec::with_capacity(n);
    for i in 0..n {
        if i % 1024 == 0 && sys::monotonic_ns() > deadline {
            break;
        }
        let entry = loop {
            let s = seq.load(Ordering::Relaxed);
            // The read under test. Its asm is a compiler barrier, so the load above
            // stays before it in program order; hardware order is the strategy's job.
            let tsc = read(cpu);
            if seq
                .compare_exchange(s, s.wrapping_add(1), Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                break Entry {
                    seq: s,
                    cpu: cpu as u32,
                    tsc,
                };
            }
        };
        entries.push(entry);
        // Without a pause the CPU that won the swap still owns the cache line and
        // usually wins again, so consecutive sequence numbers rarely change CPU and the
        // test sees few of the handoffs where a violation can show. On a 2-vCPU AMD
        // EPYC some runs without it saw ~1 000 handoffs in 1 000 000 samples; with two
        // `pause`s every run saw ~100 000 or more.
        for _ in 0..2 {
            std::hint::spin_loop();
        }
    }
    (entries, first)
}

/// What [`check`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Checked {
    pub handoffs: u64,
    pub violations: u64,
    pub examples: Vec<(Entry, Entry)>,
}

/// Sort `entries` by sequence number and count the places where the counter
/// decreases, keeping up to `keep` offending pairs, and the CPU handoffs.
pub(crate) fn check(entries: &mut [Entry], keep: usize) -> Checked {
    entries.sort_unstable_by_key(|e| e.seq);
    let mut c = Checked {
        handoffs: 0,
        violations: 0,
        examples: Vec::new(),
    };
    for w in entries.windows(2) {
        c.handoffs += (w[0].cpu != w[1].cpu) as u64;
        if w[1].tsc < w[0].tsc {
            c.violations += 1;
            if c.examples.len() < keep {
                c.examples.push((w[0], w[1]));
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(seq: u32, cpu: u32, tsc: u64) -> Entry {
        Entry { seq, cpu, tsc }
    }

    #[test]
    fn check_counts_decreases_in_sequence_order() {
        let mut v = vec![e(3, 1, 30), e(0, 0, 5), e(2, 0, 25), e(1, 1, 10)];
        let c = check(&mut v, 10);
        assert_eq!((c.handoffs, c.violations, c.examples), (3, 0, vec![]));
        // seq 2 on cpu 1 reads behind seq 1 on cpu 0 (the AMD lock-or failure shape).
        let mut v = vec![
            e(1, 0, 47),
            e(2, 1, 45),
            e(3, 0, 60),
            e(4, 1, 59),
            e(0, 1, 1),
        ];
        let c = check(&mut v, 1);
        assert_eq!((c.handoffs, c.violations), (4, 2));
        assert_eq!(c.examples, vec![(e(1, 0, 47), e(2, 1, 45))]);
        // Equal values are not a violation (counter granularity).
        let mut v = vec![e(0, 0, 7), e(1, 1, 7), e(2, 1, 8)];
        let c = check(&mut v, 10);
        assert_eq!((c.handoffs, c.violations), (1, 0));
    }

    #[test]
    fn sizes_stay_bounded() {
        assert_eq!(Size::full(2).entries_per_cpu, 500_000);
        assert_eq!(Size::full(1024).entries_per_cpu, 2_000);
        assert!(Size::quick(1).entries_per_cpu <= 20_000);
        assert_eq!(Size::quick(10_000).entries_per_cpu, 500);
    }

    #[test]
    fn sequence_numbers_are_unique_and_dense() {
        let p = crate::barrier::platform();
        let Some(&(b, _)) = p.candidates.first() else {
            return; // no CPU counter on this architecture
        };
        let cpus = sys::allowed_cpus();
        let size = Size {
            entries_per_cpu: 2_000,
            time_limit_ns: 2_000_000_000,
        };
        let (per_cpu, mut all, _) = collect(&|_| b.read(), &cpus, size).unwrap();
        assert_eq!(per_cpu.len(), cpus.len());
        assert!(per_cpu.iter().all(|c| c.first > 0 && c.clocks_seen > 0));
        for &cpu in &cpus {
            assert_eq!(all.iter().filter(|e| e.cpu as usize == cpu).count(), 2_000);
        }
        all.sort_unstable_by_key(|e| e.seq);
        assert!(all.iter().enumerate().all(|(i, e)| e.seq == i as u32));
        let out = run(b, &cpus, size).unwrap();
        assert_eq!(out.entries, 2_000 * cpus.len());
        assert_eq!(out.violations, 0, "{:?}", out.examples);
    }

    /// A counter that runs ahead on one CPU must fail at exactly the handoffs away
    /// from that CPU.
    #[test]
    fn skewed_counter_is_caught_at_every_handoff_away_from_it() {
        let p = crate::barrier::platform();
        let Some(&(b, _)) = p.candidates.first() else {
            return;
        };
        let cpus = sys::allowed_cpus();
        if cpus.len() < 2 {
            return; // a single CPU cannot disagree with itself
        }
        let ahead = cpus[0];
        let read = |cpu: usize| b.read() + if cpu == ahead { 1 << 40 } else { 0 };
        let size = Size {
            entries_per_cpu: 5_000,
            time_limit_ns: 2_000_000_000,
        };
        let out = run_with(&read, &cpus, size).unwrap();
        assert!(out.handoffs >= 1);
        let (_, mut all, _) = collect(&read, &cpus, size).unwrap();
        all.sort_unstable_by_key(|e| e.seq);
        let away = all
            .windows(2)
            .filter(|w| w[0].cpu as usize == ahead && w[1].cpu as usize != ahead)
            .count() as u64;
        let c = check(&mut all, 0);
        assert!(away >= 1 || all[0].cpu as usize != ahead);
        assert_eq!(c.violations, away);
        if cpus.len() == 2 {
            // Two or more handoffs between two CPUs include one away from `ahead`.
            assert!(out.violations >= 1 || out.handoffs == 1, "{out:?}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pinning_to_a_forbidden_cpu_is_an_error_not_a_hang() {
        let p = crate::barrier::platform();
        let Some(&(b, _)) = p.candidates.first() else {
            return;
        };
        let mut cpus = sys::allowed_cpus();
        cpus.push(100_000); // beyond CPU_SETSIZE
        let err = run(
            b,
            &cpus,
            Size {
                entries_per_cpu: 100,
                time_limit_ns: 1_000_000_000,
            },
        )
        .unwrap_err();
        assert!(err.contains("100000"), "{err}");
    }
}
