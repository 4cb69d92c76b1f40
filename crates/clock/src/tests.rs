//! Tests of the public `Clock` API: source selection and fallback, and the accuracy
//! and monotonicity of the CPU clock on this machine.

use super::*;

fn leak(r: Result<CpuSetup, String>) -> &'static Result<CpuSetup, String> {
    Box::leak(Box::new(r))
}

fn no_probe() -> &'static Result<CpuSetup, String> {
    panic!("the CPU clock must not be probed for this source")
}

#[test]
fn unknown_source_is_rejected() {
    let err = Clock::for_source(Some("tsc")).unwrap_err();
    assert!(err.contains("unknown clocksource 'tsc'"), "{err}");
    assert!(err.contains("clock_gettime"), "{err}");
    assert!(select(Some("CPU"), no_probe).is_err());
}

#[test]
fn named_system_sources_never_probe() {
    let (c, why) = select(Some("clock_gettime"), no_probe).unwrap();
    assert_eq!((c.source_name(), why), ("clock_gettime", None));
    let (c, why) = select(Some("gettimeofday"), no_probe).unwrap();
    assert_eq!((c.source_name(), why), ("gettimeofday", None));
}

#[test]
fn automatic_choice_falls_back_with_the_reason() {
    let unusable = leak(Err("TSC is not invariant (simulated)".to_string()));
    let (c, why) = select(None, || unusable).unwrap();
    assert_eq!(c.source_name(), "clock_gettime");
    let why = why.unwrap();
    assert!(why.contains("TSC is not invariant (simulated)"), "{why}");
    assert!(why.contains("using clock_gettime"), "{why}");
    assert!(!why.contains('\n'));
}

#[test]
fn explicit_cpu_on_unusable_counter_is_an_error() {
    let unusable = leak(Err("TSC failed the cross-core test (simulated)".to_string()));
    let err = select(Some("cpu"), || unusable).unwrap_err();
    assert!(err.contains("clocksource=cpu"), "{err}");
    assert!(err.contains("cross-core test (simulated)"), "{err}");
}

#[test]
fn automatic_choice_on_this_machine_is_consistent() {
    let (c, why) = Clock::for_source(None).unwrap();
    match probe::cpu_setup() {
        Ok(_) => assert_eq!((c.source_name(), why), ("cpu", None)),
        Err(reason) => {
            assert_eq!(c.source_name(), "clock_gettime");
            assert!(why.unwrap().contains(reason.as_str()));
        }
    }
    match Clock::for_source(Some("cpu")) {
        Ok((c, None)) => assert_eq!(c.source_name(), "cpu"),
        Ok((_, Some(_))) => panic!("explicit cpu has no fallback reason"),
        Err(e) => assert!(probe::cpu_setup().is_err(), "{e}"),
    }
}

/// Every source starts near 0 and never goes backwards, from several threads.
#[test]
fn sources_start_at_zero_and_are_monotonic_across_threads() {
    for source in [None, Some("clock_gettime"), Some("gettimeofday")] {
        let (clock, _) = Clock::for_source(source).unwrap();
        let start = clock.now_ns();
        assert!(start < 50_000_000, "{source:?}: {start}");
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let c = clock.clone();
                std::thread::spawn(move || {
                    let mut prev = c.now_ns();
                    for _ in 0..200_000 {
                        let now = c.now_ns();
                        assert!(now >= prev, "{}: {prev} -> {now}", c.source_name());
                        prev = now;
                    }
                    prev
                })
            })
            .collect();
        for t in threads {
            assert!(t.join().unwrap() > start);
        }
    }
}

#[test]
fn cpu_clock_before_origin_reads_zero() {
    let Some(&b) = barrier::platform().supported.first() else {
        return;
    };
    let c = Clock {
        kind: Kind::Cpu {
            barrier: b,
            origin: u64::MAX,
            scale: Scale::from_ratio(1, 1).unwrap(),
        },
    };
    assert_eq!(c.now_ns(), 0);
}

#[test]
fn details_name_the_mechanism() {
    let (c, _) = Clock::for_source(Some("clock_gettime")).unwrap();
    assert!(c.details().contains("CLOCK_MONOTONIC"));
    if let Ok((c, _)) = Clock::for_source(Some("cpu")) {
        let d = c.details();
        assert!(d.contains(" MHz") && d.contains("ppm"), "{d}");
    }
}

/// Elapsed time on `clock` and on CLOCK_MONOTONIC over `window`, each endpoint taken
/// as the narrowest of several (monotonic, clock, monotonic) brackets.
fn elapsed_pair(clock: &Clock, window: std::time::Duration) -> (f64, f64) {
    let sample = || {
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..32 {
            let m0 = sys::monotonic_ns();
            let c = clock.now_ns();
            let m1 = sys::monotonic_ns();
            if m1 - m0 < best.0 {
                best = (m1 - m0, m0 + (m1 - m0) / 2, c);
            }
        }
        (best.1, best.2)
    };
    let (m0, c0) = sample();
    std::thread::sleep(window);
    let (m1, c1) = sample();
    ((c1 - c0) as f64, (m1 - m0) as f64)
}

/// The CPU clock agrees with CLOCK_MONOTONIC to better than 0.01 %.
#[test]
fn cpu_clock_drift_against_monotonic_below_100ppm() {
    let Ok((clock, _)) = Clock::for_source(Some("cpu")) else {
        return; // no usable CPU clock here; the fallback is tested above
    };
    let (dc, dm) = elapsed_pair(&clock, std::time::Duration::from_millis(1_000));
    let ppm = (dc - dm) / dm * 1e6;
    assert!(ppm.abs() < 100.0, "drift {ppm:.2} ppm ({dc} ns vs {dm} ns)");
}

/// The full criterion, 10 s; run with `--ignored`.
#[test]
#[ignore]
fn cpu_clock_drift_over_10s() {
    let (clock, _) = Clock::for_source(Some("cpu")).unwrap();
    let (dc, dm) = elapsed_pair(&clock, std::time::Duration::from_secs(10));
    let ppm = (dc - dm) / dm * 1e6;
    println!("drift over {:.3} s: {ppm:.3} ppm", dm / 1e9);
    assert!(ppm.abs() < 100.0, "drift {ppm:.2} ppm");
}

/// A start read with `start_ns` is never after the `now_ns` that ends its interval,
/// on the same thread, for every source: an interval can only come out as long or
/// longer, never shorter (the unordered read may be early, never late).
#[test]
fn start_reads_never_come_after_the_end_read() {
    for source in [None, Some("clock_gettime"), Some("gettimeofday")] {
        let (clock, _) = Clock::for_source(source).unwrap();
        let mut longest = 0;
        for _ in 0..200_000 {
            let start = clock.start_ns();
            let end = clock.now_ns();
            assert!(start <= end, "{}: {start} -> {end}", clock.source_name());
            longest = longest.max(end - start);
        }
        // And it reads the same clock (not some other origin or scale).
        assert!(longest < 50_000_000, "{source:?}: {longest} ns");
        let (a, b) = (clock.now_ns(), clock.start_ns());
        assert!(b + 1_000_000 > a && b < a + 50_000_000, "{a} vs {b}");
    }
}

#[test]
fn start_read_of_a_virtual_clock_is_its_value() {
    let (c, h) = Clock::virtual_clock();
    h.set_ns(1234);
    assert_eq!((c.start_ns(), c.now_ns()), (1234, 1234));
}
