//! ioengine=sim end to end: the reported statistics agree with the device model
//! (quantiles, 1/mean, Little's law), runs repeat exactly from the seed, and the
//! output has the shape of a real engine's. Expected numbers are computed here,
//! independently of the engine's code.

mod common;
use common::*;
use serde_json::Value;

/// A virtual-time sim job with a 1 GiB address space; `extra` adds or overrides options.
fn sim_args(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--sim_bw=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn sim_json(extra: &[&str]) -> Value {
    let a = sim_args(extra);
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    run_json(&a)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Standard normal quantile by bisection on erf's series-free relative, Φ via erfc
/// from the continued fraction; accurate to ~1e-9 — independent of the engine's.
fn normal_quantile(p: f64) -> f64 {
    fn phi(x: f64) -> f64 {
        // Φ(x) by Simpson integration of the density from 0 (plenty accurate for |x| < 6).
        let n = 2000;
        let h = x / n as f64;
        let dens = |t: f64| (-t * t / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let mut s = dens(0.0) + dens(x);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            s += w * dens(i as f64 * h);
        }
        0.5 + s * h / 3.0
    }
    let (mut lo, mut hi) = (-8.0, 8.0);
    for _ in 0..80 {
        let mid = (lo + hi) / 2.0;
        if phi(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Reported clat percentiles within `tol` of `quantile(p)`, IOPS within 0.5 % of 1/mean.
fn check_distribution(
    dist: &str,
    ios: u64,
    mean_ns: f64,
    quantile: impl Fn(f64) -> f64,
    pcts: &[f64],
    tol: f64,
) {
    let n = format!("--number_ios={ios}");
    let lat = format!("--sim_lat={dist}");
    let v = sim_json(&[&n, &lat, "--iodepth=1"]);
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["total_ios"].as_u64(), Some(ios));
    let got = &r["clat_ns"]["percentile"];
    for &p in pcts {
        let q = p / 100.0;
        let want = quantile(q);
        // A sample quantile scatters around the true one by sqrt(q(1-q)/n) / density;
        // allow three of those on top of the histogram's 1 % (zero for a fixed time).
        let h = 1e-4;
        let slope = (quantile(q + h) - quantile(q - h)) / (2.0 * h);
        let sampling = (q * (1.0 - q) / ios as f64).sqrt() * slope / want;
        let key = format!("{p:.6}");
        let have = f(&got[&key]);
        assert!(
            (have / want - 1.0).abs() <= tol + 3.0 * sampling,
            "{dist}: {p}th percentile {have} ns, true quantile {want:.1} ns"
        );
    }
    let iops = f(&r["iops"]);
    let want = 1e9 / mean_ns;
    assert!(
        (iops / want - 1.0).abs() <= 0.005,
        "{dist}: IOPS {iops}, 1/mean = {want:.2}"
    );
}

const PCTS: [f64; 11] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 50.0, 70.0, 80.0, 90.0, 95.0, 99.0,
];

#[test]
fn fixed_service_time_gives_exact_percentiles_and_iops() {
    check_distribution("fixed:100us", 20_000, 100_000.0, |_| 100_000.0, &PCTS, 0.01);
    check_distribution("fixed:1ms", 5_000, 1e6, |_| 1e6, &[1.0, 50.0, 99.99], 0.01);
}

#[test]
fn uniform_exponential_normal_lognormal_empirical_match_their_quantiles() {
    let n = 200_000;
    check_distribution(
        "uniform:50us:150us",
        n,
        100_000.0,
        |p| 50_000.0 + 100_000.0 * p,
        &PCTS,
        0.01,
    );
    check_distribution(
        "exponential:100us",
        n,
        100_000.0,
        |p| -100_000.0 * (1.0 - p).ln(),
        &[5.0, 10.0, 20.0, 30.0, 50.0, 70.0, 80.0, 90.0, 95.0],
        0.01,
    );
    check_distribution(
        "normal:100us:15us",
        n,
        100_000.0,
        |p| 100_000.0 + 15_000.0 * normal_quantile(p),
        &PCTS,
        0.01,
    );
    // Lognormal with mean 100 us, sd 50 us: sigma^2 = ln(1 + 0.25), mu = ln(mean) - sigma^2/2.
    let s2 = 1.25f64.ln();
    let mu = 100_000f64.ln() - s2 / 2.0;
    check_distribution(
        "lognormal:100us:50us",
        n,
        100_000.0,
        |p| (mu + s2.sqrt() * normal_quantile(p)).exp(),
        &[5.0, 10.0, 20.0, 30.0, 50.0, 70.0, 80.0, 90.0, 95.0],
        0.01,
    );
    // Empirical: linear between the points; mean = sum of trapezoids.
    let pts = [
        (0.0, 40_000.0),
        (50.0, 80_000.0),
        (90.0, 120_000.0),
        (100.0, 400_000.0),
    ];
    let q = move |p: f64| {
        let p = p * 100.0;
        let i = pts.iter().position(|&(x, _)| x >= p).unwrap().max(1);
        let ((p0, v0), (p1, v1)) = (pts[i - 1], pts[i]);
        v0 + (v1 - v0) * (p - p0) / (p1 - p0)
    };
    let mean: f64 = pts
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) / 100.0 * (w[0].1 + w[1].1) / 2.0)
        .sum();
    check_distribution(
        "empirical:0=40us:50=80us:90=120us:100=400us",
        n,
        mean,
        q,
        &[5.0, 10.0, 20.0, 30.0, 50.0, 70.0, 80.0, 90.0, 95.0],
        0.01,
    );
}

/// Closed queueing system: N commands always in flight, C identical channels, FIFO.
/// With no idle channel while work waits, throughput is min(N, C)/E[S] whatever the
/// distribution, and Little's law gives the mean latency N/X.
#[test]
fn littles_law_with_channels_and_iodepth() {
    for (dist, mean_ns, tol) in [
        ("fixed:100us", 100_000.0, 0.005),
        ("exponential:100us", 100_000.0, 0.02),
    ] {
        for (c, n) in [
            (1u32, 1u32),
            (1, 4),
            (4, 1),
            (4, 2),
            (4, 4),
            (4, 16),
            (8, 32),
        ] {
            let v = sim_json(&[
                &format!("--sim_lat={dist}"),
                &format!("--sim_channels={c}"),
                &format!("--iodepth={n}"),
                "--number_ios=60000",
            ]);
            let r = &v["jobs"][0]["read"];
            let x = f(&r["iops"]);
            let lat = f(&r["clat_ns"]["mean"]);
            let want_x = c.min(n) as f64 * 1e9 / mean_ns;
            let want_lat = n as f64 * 1e9 / want_x;
            assert!(
                (x / want_x - 1.0).abs() <= tol,
                "{dist} C={c} N={n}: IOPS {x}, model {want_x}"
            );
            assert!(
                (lat / want_lat - 1.0).abs() <= tol,
                "{dist} C={c} N={n}: mean clat {lat}, model {want_lat}"
            );
            // Little's law on the report's own numbers.
            assert!(((x * lat / 1e9) / n as f64 - 1.0).abs() <= 0.01);
        }
    }
}

#[test]
fn bandwidth_ceiling_bounds_throughput_and_adds_transfer_time() {
    // QD1: latency = 64 KiB / 1 GiB/s + 50 us.
    let v = sim_json(&[
        "--bs=64k",
        "--sim_bw=1g",
        "--sim_lat=fixed:50us",
        "--number_ios=20000",
    ]);
    let xfer = 65536.0 / (1u64 << 30) as f64 * 1e9;
    let lat = f(&v["jobs"][0]["read"]["clat_ns"]["mean"]);
    assert!((lat / (xfer + 50_000.0) - 1.0).abs() < 0.001, "{lat}");
    // QD8 over 4 channels: channels could do 80k IOPS, the link only 1/xfer.
    let v = sim_json(&[
        "--bs=64k",
        "--sim_bw=1g",
        "--sim_lat=fixed:50us",
        "--sim_channels=4",
        "--iodepth=8",
        "--number_ios=50000",
    ]);
    let x = f(&v["jobs"][0]["read"]["iops"]);
    assert!((x / (1e9 / xfer) - 1.0).abs() < 0.005, "{x}");
}

/// Lines of a JSON report with the fields that depend on the wall clock or the
/// process (not on the model) blanked.
fn masked(json: &[u8]) -> String {
    const WALL: [&str; 8] = [
        "\"timestamp\"",
        "\"timestamp_ms\"",
        "\"time\"",
        "\"usr_cpu\"",
        "\"sys_cpu\"",
        "\"ctx\"",
        "\"majf\"",
        "\"minf\"",
    ];
    String::from_utf8_lossy(json)
        .lines()
        .map(|l| {
            let t = l.trim_start();
            match WALL.iter().find(|k| t.starts_with(*k)) {
                Some(k) => format!("{k} : 0{}", if t.ends_with(',') { "," } else { "" }),
                None => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn sim_stdout(extra: &[&str]) -> Vec<u8> {
    let a = sim_args(extra);
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    run_ok(&a).stdout
}

#[test]
fn same_seed_same_json_and_another_seed_differs() {
    let job = [
        "--rw=randrw",
        "--rwmixread=70",
        "--bssplit=4k/60:16k/30:64k/10",
        "--iodepth=8",
        "--numjobs=2",
        "--sim_lat=lognormal:90us:40us,exponential:30us",
        "--sim_channels=4",
        "--sim_bw=2g",
        "--sim_ssd=1",
        "--sim_capacity=64m",
        "--runtime=3s",
        "--time_based",
        "--output-format=json+",
    ];
    let with_seed = |s: &str| {
        let mut a = job.to_vec();
        a.push(s);
        masked(&sim_stdout(&a))
    };
    let a = with_seed("--sim_seed=11");
    let b = with_seed("--sim_seed=11");
    assert_eq!(a, b, "same seed, different JSON");
    assert!(a.contains("\"clat_ns\""));
    let c = with_seed("--sim_seed=12");
    assert_ne!(a, c, "another seed gave the same samples");
    // Only the samples change: both run 3 virtual seconds (plus the last completions).
    let pa = parse_json(a.as_bytes());
    let pc = parse_json(c.as_bytes());
    for v in [&pa, &pc] {
        let ms = v["jobs"][0]["job_runtime"].as_u64().unwrap();
        assert!((3000..3010).contains(&ms), "{ms}");
    }
    // numjobs clones are separate devices with their own draws.
    let mean = |v: &Value, j: usize| f(&v["jobs"][j]["read"]["clat_ns"]["mean"]);
    assert_ne!(mean(&pa, 0), mean(&pa, 1));
}

/// Every key path of a JSON value (array indices dropped).
fn shape(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // Percentile keys name values, not structure.
                let p = format!("{prefix}/{k}");
                out.push(p.clone());
                if k != "percentile" && k != "bins" {
                    shape(x, &p, out);
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                shape(x, prefix, out);
            }
        }
        _ => {}
    }
}

#[test]
fn report_has_the_shape_of_a_real_engine() {
    let common = [
        "--name=t",
        "--size=4m",
        "--rw=randrw",
        "--bs=4k",
        "--iodepth=4",
    ];
    let mut null_args = common.to_vec();
    null_args.push("--ioengine=null");
    let mut sim_a = common.to_vec();
    sim_a.extend(["--ioengine=sim", "--clocksource=virtual"]);
    let (mut s1, mut s2) = (Vec::new(), Vec::new());
    shape(&run_json(&null_args), "", &mut s1);
    shape(&run_json(&sim_a), "", &mut s2);
    s1.sort();
    s2.sort();
    s1.dedup();
    s2.dedup();
    // "job options" lists the options given, which differ on purpose.
    let opts = |s: &Vec<String>| -> Vec<String> {
        s.iter()
            .filter(|k| !k.contains("/job options/"))
            .cloned()
            .collect()
    };
    assert_eq!(opts(&s1), opts(&s2));
    // Normal output: same section lines.
    let norm = |a: &[&str]| -> Vec<String> {
        String::from_utf8_lossy(&run_ok(a).stdout)
            .lines()
            .filter_map(|l| l.split(':').next().map(|s| s.trim().to_string()))
            // Value-dependent lines (percentiles, latency units and buckets) and
            // slat, which fio prints for asynchronous engines only, are left out.
            .filter(|s| {
                !s.is_empty()
                    && !s.starts_with('t')
                    && !s.starts_with('|')
                    && !s.starts_with("slat")
                    && !s.starts_with("clat")
                    && !s.starts_with("lat")
            })
            .collect()
    };
    assert_eq!(norm(&null_args), norm(&sim_a));
}

#[test]
fn every_rw_mode_moves_what_the_null_engine_moves() {
    for rw in [
        "read",
        "write",
        "trim",
        "randread",
        "randwrite",
        "randtrim",
        "rw",
        "randrw",
        "trimwrite",
    ] {
        for extra in [
            &["--bs=4k"][..],
            &["--bssplit=4k/50:64k/50", "--iodepth=16"][..],
        ] {
            let mut base = vec!["--name=t", "--size=8m", "--numjobs=2", "--group_reporting"];
            let rwa = format!("--rw={rw}");
            base.push(&rwa);
            base.extend_from_slice(extra);
            let mut null = base.clone();
            null.push("--ioengine=null");
            let mut sim = base.clone();
            sim.extend(["--ioengine=sim", "--clocksource=virtual", "--sim_ssd=1"]);
            let (a, b) = (run_json(&null), run_json(&sim));
            for d in ["read", "write", "trim"] {
                assert_eq!(
                    dir_counts(&a, d),
                    dir_counts(&b, d),
                    "rw={rw} {extra:?} {d}"
                );
            }
        }
    }
}

#[test]
fn real_time_runs_are_never_faster_than_the_model() {
    // The engine sleeps and spins: every completion is at or after its modelled time on
    // the engine's clock. Total latency (generation → completion) brackets the engine's
    // whole service time, so it is never below the model. clat starts at the runner's
    // post-submit timestamp, which a preempted thread may take late (the gap shows up as
    // slat), so clat is not checked against the model here.
    let v = run_json(&[
        "--name=t",
        "--ioengine=sim",
        "--size=1g",
        "--rw=randread",
        "--sim_lat=fixed:2ms",
        "--sim_bw=0",
        "--runtime=300ms",
        "--time_based",
    ]);
    let r = &v["jobs"][0]["read"];
    let min = r["lat_ns"]["min"].as_u64().unwrap();
    // 2 ms less the TSC-vs-CLOCK_MONOTONIC calibration error (a few ppm).
    assert!(
        min >= 1_999_900,
        "lat min {min} ns for a fixed 2 ms service time"
    );
    let ios = r["total_ios"].as_u64().unwrap();
    assert!((1..=151).contains(&ios), "{ios} I/Os of 2 ms in 300 ms");
}

#[test]
fn virtual_time_needs_the_sim_engine_and_ten_minutes_take_no_time() {
    let out = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--clocksource=virtual",
            "--size=1m",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("clocksource=virtual needs ioengine=sim"),
        "{err}"
    );
    // A 10-minute job at QD1 with 5 ms commands: 120,000 I/Os, exactly 600 s.
    let v = sim_json(&["--sim_lat=fixed:5ms", "--runtime=10m", "--time_based"]);
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(120_000));
    assert_eq!(v["jobs"][0]["read"]["runtime"].as_u64(), Some(600_000));
}

#[test]
fn bad_sim_options_are_rejected_with_the_reason() {
    for (opt, why) in [
        ("--sim_lat=gamma:1us", "unknown distribution"),
        ("--sim_lat=uniform:2us:1us", "high is below low"),
        ("--sim_channels=0", "out of range"),
        ("--sim_spare=0", "outside"),
        ("--sim_prefill=101", "outside"),
    ] {
        let out = ferrio()
            .args(["--name=t", "--ioengine=sim", "--size=1m", opt])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{opt} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{opt}: {err}");
    }
    let out = run_ok(&["--cmdhelp=sim_lat"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("lognormal"));
}

#[test]
fn fsync_every_n_writes_is_a_device_flush() {
    let v = run_json(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--rw=write",
        "--bs=4k",
        "--size=1M",
        "--fsync=4",
    ]);
    // As fio: one sync after every 4th write, except after the job's last write.
    assert_eq!(v["jobs"][0]["sync"]["total_ios"].as_u64(), Some(63));
    assert_eq!(v["jobs"][0]["write"]["total_ios"].as_u64(), Some(256));
}
