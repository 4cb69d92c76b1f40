//! The simulated SSD in virtual time: a 10-minute random-write job runs in about a
//! second of wall time and its per-second IOPS log shows the write cliff: fresh-out-
//! of-box speed until the erased blocks (capacity + spare) are used up, then a decay
//! to a steady state set by garbage collection. Sequential writes and a half-used
//! device amplify less; a prefilled device falls off the cliff once the spare is used.

mod common;
use common::*;
use std::time::{Duration, Instant};

/// Device and job: 1 GiB, 7 % spare, 4 channels of 8 ms writes (FOB: 500 IOPS of
/// 256 KiB = 125 MiB/s), GC copying at 20 MiB/s per channel. Large blocks keep the
/// I/O count (the cost of a virtual run) low: ~50k I/Os for 10 minutes.
const DEVICE: [&str; 11] = [
    "--ioengine=sim",
    "--clocksource=virtual",
    "--sim_ssd=1",
    "--sim_channels=4",
    "--sim_lat=80us,8ms",
    "--sim_bw=0",
    "--sim_gc_bw=20m",
    "--bs=256k",
    "--iodepth=8",
    "--norandommap",
    "--time_based",
];
const FOB_IOPS: f64 = 500.0;

/// The tests of this file run one at a time, so the wall-time bound below is not
/// shared with the other simulations.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run a job and return its per-second IOPS (fio's write_iops_log, 1 s averages).
fn per_second_iops(extra: &[&str]) -> (Vec<f64>, Duration) {
    let dir = scratch();
    let prefix = file_in(dir.path(), "ssd");
    let mut args: Vec<String> = vec!["--name=ssd".into()];
    args.extend(DEVICE.iter().map(|s| s.to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(format!("--write_iops_log={prefix}"));
    args.push("--log_avg_msec=1000".into());
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let t0 = Instant::now();
    run_ok(&a);
    let wall = t0.elapsed();
    let log = std::fs::read_to_string(format!("{prefix}_iops.1.log")).unwrap_or_else(|e| {
        panic!(
            "no IOPS log ({e}); files: {:?}",
            std::fs::read_dir(dir.path()).unwrap().collect::<Vec<_>>()
        )
    });
    let iops = log
        .lines()
        .map(|l| {
            let mut f = l.split(',').map(|x| x.trim());
            let _t: u64 = f.next().unwrap().parse().unwrap();
            f.next().unwrap().parse::<f64>().unwrap()
        })
        .collect();
    (iops, wall)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn ten_minute_random_write_shows_the_cliff_and_a_steady_state_in_seconds() {
    let _one = serial();
    let (iops, wall) = per_second_iops(&["--rw=randwrite", "--size=1g", "--runtime=10m"]);
    // Virtual time: 600 simulated seconds in well under a second of wall time on an idle
    // machine. Printed, never asserted: the tests run on a shared machine.
    eprintln!("10 simulated minutes took {wall:?} of wall time");
    assert!(iops.len() >= 599, "{} samples", iops.len());
    // Fresh out of the box: the channels' speed, exactly.
    for (s, &v) in iops.iter().enumerate().take(8).skip(1) {
        assert_eq!(v, FOB_IOPS, "second {}", s + 1);
    }
    // The cliff: erased flash (1 GiB + 7 % spare, in 64-page blocks: 1096 x 1 MiB)
    // runs out after 1096 MiB / 125 MiB/s = 8.8 s.
    let cliff = iops.iter().position(|&v| v < 0.9 * FOB_IOPS).unwrap() + 1;
    assert!(
        (9..=10).contains(&cliff),
        "cliff at second {cliff}: {:?}",
        &iops[..15]
    );
    // Then a decay to a steady state well below the fresh speed.
    let early = mean(&iops[10..30]);
    let mid = mean(&iops[60..120]);
    let steady = &iops[iops.len() - 300..];
    let ss = mean(steady);
    assert!(early > mid && mid > ss, "{early} {mid} {ss}");
    assert!(ss < 0.25 * FOB_IOPS, "steady state {ss}");
    for &v in steady {
        assert!((v / ss - 1.0).abs() < 0.1, "not steady: {v} vs mean {ss}");
    }
}

#[test]
fn sequential_writes_never_hit_the_cliff() {
    let _one = serial();
    // 60 s at 125 MiB/s is 7 drive writes, but every erase block is wholly stale when
    // garbage collection reaches it: no copying, no slowdown.
    let (iops, _) = per_second_iops(&["--rw=write", "--size=1g", "--runtime=60s"]);
    for (s, &v) in iops.iter().enumerate().skip(1) {
        assert!((v / FOB_IOPS - 1.0).abs() < 0.01, "second {}: {v}", s + 1);
    }
}

#[test]
fn utilisation_and_prefill_move_the_cliff_and_the_steady_state() {
    let _one = serial();
    // Random writes over half of a 2 GiB device: the unused half acts as spare.
    let (half, _) = per_second_iops(&[
        "--rw=randwrite",
        "--size=1g",
        "--sim_capacity=2g",
        "--runtime=5m",
    ]);
    let (full, _) = per_second_iops(&["--rw=randwrite", "--size=1g", "--runtime=5m"]);
    let tail = |v: &[f64]| mean(&v[v.len() - 60..]);
    assert!(
        tail(&half) > 2.0 * tail(&full),
        "half-used {} vs full {}",
        tail(&half),
        tail(&full)
    );
    // Half the device holds data: nothing slows down before the whole 2 GiB + spare of
    // flash has been written (2192 MiB / 125 MiB/s = 17.5 s); then GC starts, and the
    // first blocks it erases hold little valid data, so the slowdown is late and gentle.
    for (s, &v) in half.iter().enumerate().take(17).skip(1) {
        assert_eq!(v, FOB_IOPS, "second {}", s + 1);
    }
    let cliff = half.iter().position(|&v| v < 0.99 * FOB_IOPS).unwrap() + 1;
    assert!((18..=22).contains(&cliff), "slowdown at second {cliff}");
    // A full (prefilled) drive falls off the cliff as soon as the spare area is written:
    // 7 % of 1 GiB at 125 MiB/s is 0.6 s.
    let (pre, _) = per_second_iops(&[
        "--rw=randwrite",
        "--size=1g",
        "--sim_prefill=100",
        "--runtime=20s",
    ]);
    assert!(pre[2] < 0.8 * FOB_IOPS, "{:?}", &pre[..5]);
}

#[test]
fn steady_state_detection_stops_the_job_after_the_transition() {
    let _one = serial();
    // fio's steadystate=iops:5% over 30 s cannot be met on the 9 s fresh plateau nor
    // during the decay; it is met once the drive has settled, long before 30 minutes.
    let mut args: Vec<&str> = vec!["--name=ssd"];
    args.extend(DEVICE);
    args.extend([
        "--rw=randwrite",
        "--size=1g",
        "--runtime=30m",
        "--steadystate=iops:5%",
        "--ss_dur=30s",
    ]);
    let v = run_json(&args);
    let job = &v["jobs"][0];
    let ss = &job["steadystate"];
    assert_eq!(ss["attained"].as_u64(), Some(1), "{ss}");
    let runtime_s = job["job_runtime"].as_u64().unwrap() as f64 / 1000.0;
    assert!(
        (60.0..600.0).contains(&runtime_s),
        "stopped at {runtime_s} s"
    );
    let ss_iops = ss["data"]["iops_mean"].as_f64().unwrap();
    assert!(ss_iops < 0.25 * FOB_IOPS, "window IOPS {ss_iops}");
    // Virtual time: the same job stops at the same microsecond every time.
    let again = run_json(&args);
    assert_eq!(again["jobs"][0]["job_runtime"], job["job_runtime"]);
}
