//! Pacing through the binary (docs/pacing.md): on the simulated device in virtual
//! time, latency is the device's service time at every rate and depth and the
//! achieved rate is the target; in real time the achieved rate is the target; fio
//! 3.33 does the same I/Os on a paced file job; bad pacing options are refused.

mod common;
use common::*;
use serde_json::Value;

fn read(v: &Value) -> &Value {
    &v["jobs"][0]["read"]
}

fn mean(v: &Value, lat: &str) -> f64 {
    read(v)[lat]["mean"].as_f64().unwrap()
}

/// A 4 KiB random-read job on the sim device (50 µs fixed service) for 10 virtual
/// seconds.
fn sim(depth: u32, rate_iops: Option<u32>) -> Value {
    let depth = format!("--iodepth={depth}");
    let mut args = vec![
        "--name=p",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:50us",
        "--rw=randread",
        "--size=1g",
        "--runtime=10s",
        "--time_based",
        depth.as_str(),
    ];
    let rate = rate_iops.map(|r| format!("--rate_iops={r}"));
    if let Some(r) = &rate {
        args.push(r);
    }
    run_json(&args)
}

#[test]
fn on_the_sim_paced_latency_is_the_service_time_at_every_rate_and_depth() {
    // Unpaced at depth 1: nothing queues, so clat = lat = the device's service time
    // (50 µs plus the 4 KiB transfer over the link).
    let base = sim(1, None);
    let service = mean(&base, "clat_ns");
    assert_eq!(mean(&base, "lat_ns"), service);
    assert!((50_000.0..52_000.0).contains(&service), "{service}");
    for depth in [1, 8, 32] {
        for rate in [300u32, 6000] {
            let v = sim(depth, Some(rate));
            let tag = format!("rate_iops={rate} iodepth={depth}");
            // Exactly: virtual time has no jitter, and no wait is in any latency.
            assert_eq!(mean(&v, "clat_ns"), service, "{tag}");
            assert_eq!(mean(&v, "lat_ns"), service, "{tag}");
            assert_eq!(
                read(&v)["clat_ns"]["max"].as_f64().unwrap(),
                service,
                "{tag}"
            );
            let iops = read(&v)["iops"].as_f64().unwrap();
            assert!(
                (iops / rate as f64 - 1.0).abs() < 0.01,
                "{tag}: {iops} IOPS"
            );
        }
    }
}

#[test]
fn on_the_sim_rate_in_bytes_and_per_direction_rates_are_met() {
    // rate=2m of 8 KiB writes: 256 IOPS; reads unpaced would be far faster.
    let v = run_json(&[
        "--name=p",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:20us",
        "--rw=randwrite",
        "--bs=8k",
        "--size=1g",
        "--runtime=20s",
        "--time_based",
        "--rate=,2m",
    ]);
    let w = &v["jobs"][0]["write"];
    let bw = w["bw_bytes"].as_f64().unwrap();
    assert!((bw / (2 << 20) as f64 - 1.0).abs() < 0.01, "{bw} B/s");
}

/// A 50/50 mixed job paced at 1 MiB/s of reads and 3 MiB/s of writes (`rate=1m,3m`).
fn mixed_rates(engine: &str, runtime: &str) -> Vec<String> {
    [
        "--name=mix",
        engine,
        "--rw=randrw",
        "--rwmixread=50",
        "--bs=4k",
        "--size=1g",
        "--rate=1m,3m",
        runtime,
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_mixed_job_turns_to_the_direction_behind_its_rate_so_both_rates_are_met() {
    // fio's rate_ddir: the mix says 50/50, but when writes are ahead of their rate and
    // reads are not, the job reads (and back), so each direction gets its own rate
    // (keeping the mix's direction would hold writes to the reads' 1 MiB/s).
    let mut a = mixed_rates("--ioengine=sim", "--runtime=10s");
    a.extend([
        "--clocksource=virtual".into(),
        "--sim_lat=fixed:20us".into(),
    ]);
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    let v = run_json(&a);
    let j = &v["jobs"][0];
    for (d, want) in [("read", 10u64 << 20), ("write", 30 << 20)] {
        let got = j[d]["io_bytes"].as_u64().unwrap();
        assert!(
            (got as f64 / want as f64 - 1.0).abs() < 0.01,
            "{d}: {got} bytes, want {want}"
        );
    }
}

#[test]
fn a_mixed_job_with_two_rates_moves_what_fio_moves() {
    if !have_fio() {
        return;
    }
    let a = mixed_rates("--ioengine=null", "--runtime=2s");
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    let (ours, fio) = (run_json(&a), fio_json(&a));
    let bytes = |v: &Value, d: &str| v["jobs"][0][d]["io_bytes"].as_u64().unwrap() as f64;
    // The schedule fixes the bytes (2 s at each direction's rate) for both; a loaded
    // machine can only cut the end short, for both directions alike, so the split
    // between them is what tells: 1:3 as fio (keeping the mix's 50/50 gives 1:1).
    let split = |v: &Value| bytes(v, "write") / bytes(v, "read");
    assert!(
        (split(&ours) / split(&fio) - 1.0).abs() < 0.1,
        "write/read: ferrio {}, fio {}",
        split(&ours),
        split(&fio)
    );
    for d in ["read", "write"] {
        assert!(
            (bytes(&ours, d) / bytes(&fio, d) - 1.0).abs() < 0.25,
            "{d}: ferrio {} bytes, fio {}",
            bytes(&ours, d),
            bytes(&fio, d)
        );
    }
}

/// Each paced direction's (I/Os, bytes) of a run, and the job's runtime in ms.
fn moved(v: &Value) -> (Vec<(u64, u64)>, u64) {
    let j = &v["jobs"][0];
    let dirs = ["read", "write", "trim"]
        .iter()
        .map(|d| {
            let o = &j[d];
            (
                o["total_ios"].as_u64().unwrap(),
                o["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    (
        dirs,
        j["read"]["runtime"]
            .as_u64()
            .unwrap()
            .max(j["write"]["runtime"].as_u64().unwrap())
            .max(j["trim"]["runtime"].as_u64().unwrap()),
    )
}

/// Paced jobs of several rates, block sizes and directions, 3 s each: (options,
/// I/Os per second of read, write, trim). Every rate is a whole number of I/Os per
/// second except 1 MiB/s of 3 KiB (341⅓: 1024 I/Os in 3 s).
const PACED: [(&[&str], [f64; 3]); 10] = [
    (
        &["--rw=randread", "--bs=4k", "--rate_iops=10"],
        [10.0, 0.0, 0.0],
    ),
    (
        &["--rw=randread", "--bs=4k", "--rate_iops=2000"],
        [2000.0, 0.0, 0.0],
    ),
    (&["--rw=read", "--bs=64k", "--rate=8m"], [128.0, 0.0, 0.0]),
    (
        &["--rw=read", "--bs=3k", "--rate=1m"],
        [1024.0 / 3.0, 0.0, 0.0],
    ),
    (
        &["--rw=randwrite", "--bs=16k", "--rate=,7m"],
        [0.0, 448.0, 0.0],
    ),
    (
        &["--rw=randtrim", "--bs=4k", "--rate=,,1m"],
        [0.0, 0.0, 256.0],
    ),
    (
        &["--rw=randrw", "--bs=4k", "--rate=1m,3m"],
        [256.0, 768.0, 0.0],
    ),
    (
        &["--rw=randrw", "--bs=8k", "--rate_iops=100,300"],
        [100.0, 300.0, 0.0],
    ),
    (
        &[
            "--rw=randread",
            "--bs=4k",
            "--rate_iops=300",
            "--iodepth=16",
        ],
        [300.0, 0.0, 0.0],
    ),
    (
        &[
            "--rw=randread",
            "--bs=4k",
            "--rate_iops=300",
            "--ramp_time=1s",
        ],
        [300.0, 0.0, 0.0],
    ),
];

#[test]
fn in_virtual_time_a_paced_run_moves_exactly_its_rate_times_its_runtime() {
    // The I/O due at the runtime's end is not issued (fio's rate_ddir gives up
    // there), so a run of T seconds at R I/Os per second issues R×T of them (the
    // first one is due at 0), and ends at T: the achieved rate is the target.
    for (opts, per_s) in PACED {
        let mut a = vec![
            "--name=p",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:50us",
            "--size=1g",
            "--runtime=3s",
            "--time_based",
        ];
        a.extend_from_slice(opts);
        let v = run_json(&a);
        let (dirs, runtime) = moved(&v);
        assert_eq!(runtime, 3000, "{opts:?}");
        for (d, (&(ios, bytes), want)) in dirs.iter().zip(per_s).enumerate() {
            let want_ios = (want * 3.0).round() as u64;
            assert_eq!(ios, want_ios, "{opts:?} direction {d}");
            let got = bytes as f64 / 3.0;
            let bs = bytes.checked_div(ios).unwrap_or(0) as f64;
            assert!(
                (got - want * bs).abs() <= 0.01 * want * bs,
                "{opts:?} direction {d}: {got} B/s"
            );
        }
    }
}

#[test]
fn in_real_time_the_null_engine_meets_the_rate() {
    for (opts, per_s) in [
        (
            &["--rw=read", "--bs=4k", "--rate_iops=2000"][..],
            [2000.0, 0.0],
        ),
        (&["--rw=read", "--bs=64k", "--rate=8m"], [128.0, 0.0]),
        (
            &["--rw=randrw", "--bs=4k", "--rate_iops=300,600"],
            [300.0, 600.0],
        ),
    ] {
        let mut a = vec![
            "--name=p",
            "--ioengine=null",
            "--size=100g",
            "--runtime=2s",
            "--time_based",
        ];
        a.extend_from_slice(opts);
        let v = run_json(&a);
        rate_met(&v, opts, per_s);
        // The null engine takes no time: no latency holds a wait.
        assert!(mean(&v, "lat_ns") < 1_000_000.0, "{opts:?}: {v}");
    }
}

/// A 2 s real-time run at `per_s` I/Os per second (read, write). The schedule fixes
/// the count: never more than R×T, whatever the machine does (the I/O due at the
/// end is not issued). A busy machine can only make it fewer, when the thread is
/// woken late in the last milliseconds (I/Os due after the deadline's check are not
/// issued, as in fio): measured on a 2-vCPU VM at load 9-13, 100 runs of each of
/// four such jobs (null and psync files), at most 1 % (20 ms of I/Os) short; the
/// bound allows 2.5 %.
fn rate_met(v: &Value, opts: &[&str], per_s: [f64; 2]) {
    let (dirs, _) = moved(v);
    for (d, want) in per_s.iter().enumerate() {
        let (ios, want) = (dirs[d].0 as f64, want * 2.0);
        assert!(ios <= want, "{opts:?} direction {d}: {ios} I/Os in 2 s");
        assert!(
            ios >= want * 0.975,
            "{opts:?} direction {d}: {ios} I/Os in 2 s"
        );
    }
}

#[test]
fn in_real_time_a_paced_file_job_meets_the_rate() {
    let dir = scratch();
    let file = format!("--filename={}", file_in(dir.path(), "paced.dat"));
    let v = run_json(&[
        "--name=p",
        "--ioengine=psync",
        &file,
        "--size=4m",
        "--rw=randrw",
        "--bs=4k",
        "--rate=1m,2m",
        "--runtime=2s",
        "--time_based",
    ]);
    rate_met(&v, &["psync", "rate=1m,2m"], [256.0, 512.0]);
}

#[test]
fn a_paced_file_job_does_what_fio_does() {
    if !have_fio() {
        return;
    }
    let dir = scratch();
    let opts = [
        "--name=p",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=2m",
        "--rate_iops=1000",
    ];
    let mut f = opts.to_vec();
    let fio_file = format!("--filename={}", file_in(dir.path(), "fio.dat"));
    f.push(&fio_file);
    let fio = fio_json(&f);
    let mut r = opts.to_vec();
    let ferrio_file = format!("--filename={}", file_in(dir.path(), "ferrio.dat"));
    r.push(&ferrio_file);
    let ours = run_json(&r);
    assert_eq!(dir_counts(&ours, "read"), dir_counts(&fio, "read"));
    assert_eq!(dir_counts(&ours, "read"), (2 << 20, 512));
    // 512 I/Os at 1000 IOPS: the last one is due at 511 ms, so the runtime is at
    // least 511 ms and the rate at most 512/0.511 s, whatever the load. How close to
    // the rate a real clock gets depends on the machine's load (fio: 842 IOPS seen on
    // a busy one), so only a floor no load has reached is asserted here: a pacer that
    // waited twice per I/O would be under it. The exact schedule is checked in
    // virtual time (tests/pacing_sim.rs), where no load can move it.
    let iops = |v: &serde_json::Value| read(v)["iops"].as_f64().unwrap();
    assert!(
        iops(&ours) <= 512.0 / 0.511,
        "ferrio ran above its rate: {}",
        iops(&ours)
    );
    assert!(
        iops(&ours) >= 500.0,
        "ferrio {} IOPS (fio {} on the same machine just before), for rate_iops=1000",
        iops(&ours),
        iops(&fio)
    );
}

#[test]
fn a_time_based_paced_job_issues_what_fio_issues() {
    if !have_fio() {
        return;
    }
    // fio 3.33 gives up a rate wait that reaches the runtime's end (rate_ddir's
    // DDIR_INVAL), so it issues R×T I/Os per direction, as ferrio does: 200 reads
    // and 400 writes in 2 s. ferrio never issues more; fio, whose mixed job turns
    // to a direction behind its rate without that check and times its rate from
    // its own epoch, sometimes more (seen: 401 writes in 9 of 26 runs; allowed: 1 %).
    // A busy machine can make either a little short at the end (fio, which sleeps
    // without spinning, more: seen 395 writes).
    let a = [
        "--name=p",
        "--ioengine=null",
        "--size=100g",
        "--rw=randrw",
        "--bs=4k",
        "--rate_iops=100,200",
        "--runtime=2s",
        "--time_based",
    ];
    let (ours, fio) = (run_json(&a), fio_json(&a));
    rate_met(&ours, &a, [100.0, 200.0]);
    for (d, want) in [("read", 200.0), ("write", 400.0)] {
        let ios = fio["jobs"][0][d]["total_ios"].as_u64().unwrap() as f64;
        assert!(
            ios <= want * 1.01 && ios >= want * 0.9,
            "fio {d}: {ios} I/Os"
        );
    }
}

fn refused(args: &[&str]) -> String {
    let out = ferrio().args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} was accepted");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_pacing_options_are_refused_as_fio_does() {
    let e = refused(&[
        "--name=p",
        "--ioengine=null",
        "--size=1m",
        "--rate=1m",
        "--rate_min=2m",
    ]);
    assert!(e.contains("minimum rate exceeds rate"), "{e}");
    let e = refused(&[
        "--name=p",
        "--ioengine=null",
        "--size=1m",
        "--rate=1m",
        "--rate_iops=10",
    ]);
    assert!(e.contains("mutually exclusive"), "{e}");
    let e = refused(&[
        "--name=p",
        "--ioengine=null",
        "--size=1m",
        "--rate_iops=10",
        "--rate_process=burst",
    ]);
    assert!(
        e.contains("rate_process") && e.contains("linear, poisson"),
        "{e}"
    );
    let e = refused(&[
        "--name=p",
        "--ioengine=null",
        "--size=1m",
        "--latency_target=1ms",
        "--latency_percentile=101",
    ]);
    assert!(
        e.contains("latency_percentile") && e.contains("from 0 to 100"),
        "{e}"
    );
    let e = refused(&["--name=p", "--ioengine=null", "--size=1m", "--flow=1001"]);
    assert!(e.contains("'flow'") && e.contains("out of range"), "{e}");
}

#[test]
fn a_missed_rate_min_stops_the_job_with_fios_message() {
    // The sim does 1000 IOPS at most at depth 1 (1 ms per read); 4 MiB/s is asked.
    let out = ferrio()
        .args([
            "--name=slow",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:1ms",
            "--rw=read",
            "--size=1g",
            "--runtime=30s",
            "--time_based",
            "--rate_min=4m",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        all.contains("slow: rate_min=4194304B/s not met, got "),
        "{all}"
    );
    assert_eq!(out.status.code(), Some(1), "{all}");
}

/// The latency-target line and JSON keys are fio's: a null job shorter than its
/// latency_window never judges a window, so both stay at depth 1.
#[test]
fn the_latency_target_line_and_keys_match_fio() {
    if !have_fio() {
        return;
    }
    let args = [
        "--name=t",
        "--ioengine=null",
        "--size=16m",
        "--iodepth=16",
        "--latency_target=10ms",
        "--latency_window=20s",
        "--latency_percentile=99.5",
    ];
    let keys = [
        "latency_depth",
        "latency_target",
        "latency_window",
        "latency_percentile",
    ];
    let (ours, fio) = (run_json(&args), fio_json(&args));
    for k in keys {
        assert_eq!(ours["jobs"][0][k], fio["jobs"][0][k], "{k}");
    }
    assert_eq!(ours["jobs"][0]["latency_target"].as_u64(), Some(10_000_000));
    let line = |out: &[u8]| {
        String::from_utf8_lossy(out)
            .lines()
            .find(|l| l.contains("latency   :"))
            .map(str::to_string)
    };
    let ours = line(&run_ok(&args).stdout);
    let fio = std::process::Command::new("fio")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(ours, line(&fio.stdout));
    assert_eq!(
        ours.as_deref(),
        Some("     latency   : target=10000000, window=20000000, percentile=99.50%, depth=1")
    );
}

/// A depth-1 reader on the sim (one channel of a fixed 100 µs, virtual time) for one
/// second; `extra` adds options. Returns the job's JSON.
fn sim_job(extra: &[&str]) -> Value {
    let mut a = vec![
        "--name=s",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_channels=1",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--runtime=1s",
        "--time_based",
    ];
    a.extend_from_slice(extra);
    run_json(&a)
}

#[test]
fn think_time_between_ios_is_the_option() {
    // thinktime=1ms after every I/O: one I/O per 1.1 ms; after every 4th: 4 per
    // 1.4 ms. In virtual time the counts are exact (the I/O due at the end included).
    for (blocks, period_ns, per) in [("1", 1_100_000u64, 1u64), ("4", 1_400_000, 4)] {
        let blocks = format!("--thinktime_blocks={blocks}");
        let v = sim_job(&["--thinktime=1ms", &blocks]);
        let ios = read(&v)["total_ios"].as_u64().unwrap();
        let want = 1_000_000_000 / period_ns * per;
        assert!(
            ios.abs_diff(want) <= per,
            "{blocks}: {ios} I/Os, want {want}"
        );
        // No latency holds a think time.
        assert_eq!(
            read(&v)["lat_ns"]["max"].as_u64(),
            Some(100_000),
            "{blocks}"
        );
    }
}

#[test]
fn with_numjobs_and_group_reporting_the_rate_is_per_job() {
    // As fio: rate_iops=500 for each of 4 clones, reported together: 2000 IOPS.
    let v = sim_job(&["--rate_iops=500", "--numjobs=4", "--group_reporting"]);
    let iops = read(&v)["iops"].as_f64().unwrap();
    assert!((iops / 2000.0 - 1.0).abs() < 0.01, "{iops} IOPS");
}

/// thinkcycles= (fio 3.37; fio 3.33 refuses it): a busy loop of that many
/// iterations after each I/O. 20 I/Os of 50 M iterations are 10^9 iterations:
/// 0.5 s here (2.3 GHz), and at least 0.1 s on any CPU (an iteration stores its
/// value, at most two a cycle at 5 GHz), which the job's runtime holds; no latency
/// does (each I/O's start is stamped after the loop), so lat stays a null I/O's.
#[test]
fn thinkcycles_busy_loops_after_each_io_outside_latency() {
    let v = run_json(&[
        "--name=t",
        "--ioengine=null",
        "--rw=read",
        "--bs=4k",
        "--size=80k",
        "--thinkcycles=50000000",
    ]);
    let job = &v["jobs"][0];
    assert_eq!(read(&v)["total_ios"].as_u64(), Some(20));
    let runtime_ms = job["job_runtime"].as_u64().unwrap();
    assert!(
        runtime_ms >= 50,
        "runtime {runtime_ms} ms for 10^9 iterations"
    );
    // Inside the latency, every I/O would take at least 5 ms (50 M iterations).
    let lat_mean_ns = read(&v)["lat_ns"]["mean"].as_f64().unwrap();
    assert!(lat_mean_ns < 2e6, "lat mean {lat_mean_ns} ns");
    // A malformed count is refused, naming the option.
    let out = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=4k",
            "--thinkcycles=many",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("thinkcycles"));
}
