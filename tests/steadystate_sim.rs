//! Steady-state detection in virtual time, on the simulated device (ioengine=sim,
//! clocksource=virtual): a fresh SSD under random writes follows a known curve (fast
//! while erased blocks last, a write cliff, then garbage-collection cycles).
//!
//! Each test first records the whole curve with a criterion that can never hold
//! (a window as long as the run), recomputes the criterion here, independently,
//! for every window of the real run, chooses a limit the curve crosses for the first
//! time at a known interval, and then checks that the real run stopped exactly there
//! (not one interval later), that its JSON window is the recorded one, and that the
//! reported criterion is the recomputed one. Runs that never settle must say
//! attained=no and run their whole runtime.
//!
//! The sim engine is built in: nothing here is ever skipped.

mod common;
use common::*;
use serde_json::Value;

/// Seconds of ss_ramp before the window starts, window length, recorded intervals.
const N: usize = 5;
const RECORDED: usize = 40;

/// The device and workload; `extra` adds the steady-state options.
fn job(ramp: u64, extra: &[String]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randwrite",
        "--bs=4k",
        "--iodepth=1",
        "--sim_ssd=1",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--runtime={}", ramp + RECORDED as u64 + 1));
    a.push(format!("--ss_ramp={ramp}"));
    a.extend(extra.iter().cloned());
    a
}

fn run(args: &[String]) -> Value {
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_json(&a)
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The per-interval values a criterion judged, over the whole recorded run.
fn record(ramp: u64, criterion: &str, extra: &[&str]) -> Vec<u64> {
    record_all(ramp, &[criterion], extra).remove(0)
}

/// The per-interval values of each of `criteria`, judged together over one recorded
/// run (criteria only watch the job: each one's values are those it has alone).
fn record_all(ramp: u64, criteria: &[&str], extra: &[&str]) -> Vec<Vec<u64>> {
    let mut opts = vec![
        format!("--ss={}", criteria.join(",")),
        format!("--ss_dur={RECORDED}"),
    ];
    opts.extend(extra.iter().map(|s| s.to_string()));
    let v = run(&job(ramp, &opts));
    let s = &v["jobs"][0]["steadystate"];
    assert_eq!(s["attained"], 0, "the recording run must not stop: {s}");
    assert_eq!(s["measured"], RECORDED as u64, "{s}");
    let judged = s["criteria"].as_array().expect("criteria");
    assert_eq!(judged.len(), criteria.len(), "{s}");
    judged
        .iter()
        .zip(criteria)
        .map(|(c, asked)| {
            assert_eq!(c["name"].as_str(), asked.split(':').next(), "{s}");
            u64s(&c["values"])
        })
        .collect()
}

/// The ramp and criteria the tests below record on the plain job.
const SHARED_RAMP: u64 = 8;
const SHARED: [&str; 5] = [
    "iops:0%",
    "bw_slope:0%",
    "iops_slope:0",
    "clat_p99:0%",
    "lat_slope:0%",
];

/// [`record`] of one of [`SHARED`] on the plain job: one run records them all, once
/// for the whole file (each run's 49 s of virtual time is a second or two of CPU in a
/// debug build).
fn shared_record(ramp: u64, criterion: &str) -> Vec<u64> {
    static RECORDS: std::sync::OnceLock<Vec<Vec<u64>>> = std::sync::OnceLock::new();
    assert_eq!(ramp, SHARED_RAMP, "the shared recording's ramp");
    let i = SHARED
        .iter()
        .position(|c| *c == criterion)
        .expect("a shared criterion");
    RECORDS.get_or_init(|| record_all(SHARED_RAMP, &SHARED, &[]))[i].clone()
}

// Independent recomputation (plain textbook formulas, not the runner's code).

fn mean(w: &[u64]) -> f64 {
    w.iter().map(|&y| y as f64).sum::<f64>() / w.len() as f64
}

fn deviation_pct(w: &[u64]) -> f64 {
    let m = mean(w);
    100.0 * w.iter().map(|&y| (y as f64 - m).abs()).fold(0.0, f64::max) / m
}

fn slope(w: &[u64]) -> f64 {
    let xm = (w.len() - 1) as f64 / 2.0;
    let ym = mean(w);
    let num: f64 = w
        .iter()
        .enumerate()
        .map(|(i, &y)| (i as f64 - xm) * (y as f64 - ym))
        .sum();
    let den: f64 = (0..w.len()).map(|i| (i as f64 - xm).powi(2)).sum();
    num / den
}

/// fio's slope percentage: relative to the integer mean of the window.
fn slope_pct(w: &[u64]) -> f64 {
    let int_mean = w.iter().sum::<u64>() / w.len() as u64;
    100.0 * slope(w) / int_mean as f64
}

fn range_pct(w: &[u64]) -> f64 {
    let (lo, hi) = (w.iter().min().unwrap(), w.iter().max().unwrap());
    100.0 * (hi - lo) as f64 / mean(w)
}

/// For the criterion values `c[k]` of the windows ending at interval k (k >= N-1),
/// a limit whose first crossing is a later record low, and that interval.
fn pick_limit(c: &[(usize, f64)]) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut records = Vec::new();
    for &(k, v) in c {
        if v < best {
            records.push((k, v, best));
            best = v;
        }
    }
    // The last record low with a clear margin below the previous one.
    let &(k, v, prev) = records
        .iter()
        .rev()
        .find(|r| r.2.is_finite() && r.1 < r.2 * 0.95)
        .unwrap_or_else(|| panic!("the curve has no record low after its first window: {c:?}"));
    ((v + prev) / 2.0, k)
}

fn windows(h: &[u64], f: impl Fn(&[u64]) -> f64) -> Vec<(usize, f64)> {
    (N - 1..h.len())
        .map(|k| (k, f(&h[k + 1 - N..=k])))
        .collect()
}

fn criterion_value(s: &Value) -> f64 {
    s["criterion"]
        .as_str()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap()
}

/// Run with `crit` over an N-interval window and check that it stopped at the end of
/// interval `k` after the ramp, with the recorded window.
fn check_stop(
    ramp: u64,
    crit: &str,
    extra: &[&str],
    history: &[u64],
    k: usize,
    want: f64,
) -> Value {
    let mut opts = vec![format!("--ss={crit}"), format!("--ss_dur={N}")];
    opts.extend(extra.iter().map(|s| s.to_string()));
    let v = run(&job(ramp, &opts));
    let j = &v["jobs"][0];
    let s = &j["steadystate"];
    assert_eq!(s["attained"], 1, "{crit}: {s}");
    assert_eq!(
        s["measured"],
        (k + 1) as u64,
        "{crit}: stopped at the wrong interval"
    );
    assert_eq!(s["first_interval"], (k + 2 - N) as u64);
    assert_eq!(
        u64s(&s["criteria"][0]["values"]),
        history[k + 1 - N..=k].to_vec(),
        "{crit}: the window is not the recorded one"
    );
    let got = criterion_value(s);
    assert!(
        (got - want).abs() <= 1e-4 * want.abs().max(1e-3),
        "{crit}: criterion {got}, recomputed {want}"
    );
    // The job ends at the boundary of interval k (virtual time: one I/O at most later).
    let runtime_ms = j["job_runtime"].as_u64().unwrap();
    assert_eq!(
        runtime_ms,
        (ramp + k as u64 + 1) * 1000,
        "{crit}: the job did not stop at the first interval where the criterion held"
    );
    v
}

fn check_never(ramp: u64, crit: &str) {
    let opts = vec![format!("--ss={crit}"), format!("--ss_dur={N}")];
    let v = run(&job(ramp, &opts));
    let j = &v["jobs"][0];
    assert_eq!(j["steadystate"]["attained"], 0, "{crit}");
    assert_eq!(
        j["job_runtime"].as_u64().unwrap(),
        (ramp + RECORDED as u64 + 1) * 1000,
        "{crit}: a run that never settles runs its whole runtime"
    );
}

#[test]
fn iops_deviation_stops_at_the_first_steady_window() {
    let ramp = 8;
    let h = shared_record(ramp, "iops:0%");
    let c = windows(&h, deviation_pct);
    let (limit, k) = pick_limit(&c);
    let want = c.iter().find(|w| w.0 == k).unwrap().1;
    let v = check_stop(ramp, &format!("iops:{limit:.6}%"), &[], &h, k, want);
    // fio's data arrays are the same window.
    let s = &v["jobs"][0]["steadystate"];
    assert_eq!(u64s(&s["data"]["iops"]), h[k + 1 - N..=k].to_vec());
    let min = c.iter().map(|w| w.1).fold(f64::INFINITY, f64::min);
    check_never(ramp, &format!("iops:{:.6}%", min * 0.9));
}

#[test]
fn bw_slope_stops_at_the_first_flat_window() {
    let ramp = 8;
    let h = shared_record(ramp, "bw_slope:0%");
    let c = windows(&h, |w| slope_pct(w).abs());
    let (limit, k) = pick_limit(&c);
    let want = slope_pct(&h[k + 1 - N..=k]);
    check_stop(ramp, &format!("bw_slope:{limit:.6}%"), &[], &h, k, want);
    let min = c.iter().map(|w| w.1).fold(f64::INFINITY, f64::min);
    check_never(ramp, &format!("bw_slope:{:.6}%", min * 0.9));
}

#[test]
fn absolute_iops_slope_limit() {
    let ramp = 8;
    let h = shared_record(ramp, "iops_slope:0");
    let c = windows(&h, |w| slope(w).abs());
    let (limit, k) = pick_limit(&c);
    check_stop(
        ramp,
        &format!("iops_slope:{limit:.6}"),
        &[],
        &h,
        k,
        slope(&h[k + 1 - N..=k]),
    );
}

#[test]
fn latency_percentile_criterion() {
    let ramp = 8;
    let h = shared_record(ramp, "clat_p99:0%");
    assert!(h.iter().all(|&v| v > 0));
    let c = windows(&h, deviation_pct);
    let (limit, k) = pick_limit(&c);
    let want = c.iter().find(|w| w.0 == k).unwrap().1;
    let v = check_stop(ramp, &format!("clat_p99:{limit:.6}%"), &[], &h, k, want);
    // The window's latency distribution is reported alone.
    let wl = &v["jobs"][0]["steadystate"]["window_latency"]["write"]["clat_ns"];
    assert!(wl["N"].as_u64().unwrap() > 0, "{wl}");
}

#[test]
fn mean_latency_slope_criterion() {
    let ramp = 8;
    let h = shared_record(ramp, "lat_slope:0%");
    let c = windows(&h, |w| slope_pct(w).abs());
    let (limit, k) = pick_limit(&c);
    let v = check_stop(
        ramp,
        &format!("lat_slope:{limit:.6}%"),
        &[],
        &h,
        k,
        slope_pct(&h[k + 1 - N..=k]),
    );
    // fio's lat criteria add lat_mean and lat_ns to "data".
    let d = &v["jobs"][0]["steadystate"]["data"];
    assert_eq!(u64s(&d["lat_ns"]), h[k + 1 - N..=k].to_vec());
}

#[test]
fn snia_range_and_excursion() {
    let ramp = 8;
    let h = shared_record(ramp, "iops:0%");
    let c = windows(&h, range_pct);
    let (limit, k) = pick_limit(&c);
    let v = check_stop(
        ramp,
        &format!("iops_snia:{limit:.6}%/10000%"),
        &[],
        &h,
        k,
        range_pct(&h[k + 1 - N..=k]),
    );
    let cr = &v["jobs"][0]["steadystate"]["criteria"][0];
    let w = &h[k + 1 - N..=k];
    let exc = 100.0 * (slope(w) * (N - 1) as f64).abs() / mean(w);
    assert!((cr["excursion_pct"].as_f64().unwrap() - exc).abs() < 1e-6 * exc.max(1.0));
}

#[test]
fn several_criteria_must_all_hold() {
    let ramp = 8;
    let h = shared_record(ramp, "iops:0%");
    let c = windows(&h, deviation_pct);
    let (limit, k) = pick_limit(&c);
    let want = c.iter().find(|w| w.0 == k).unwrap().1;
    // A second criterion that always holds does not change where the run stops...
    check_stop(
        ramp,
        &format!("iops:{limit:.6}%,bw:100000%"),
        &[],
        &h,
        k,
        want,
    );
    // ...one that never holds keeps it running.
    check_never(ramp, &format!("iops:{limit:.6}%,bw_slope:0%"));
}

#[test]
fn group_reporting_uses_one_window_for_the_group() {
    let ramp = 8;
    let group = ["--numjobs=2", "--group_reporting"];
    let h = record(ramp, "iops:0%", &group);
    // The group's measurement is the sum of its threads' (each thread alone, without
    // group_reporting, has a window of its own).
    let mut opts = vec!["--ss=iops:0%".to_string(), format!("--ss_dur={RECORDED}")];
    opts.push("--numjobs=2".into());
    let alone = run(&job(ramp, &opts));
    let a = u64s(&alone["jobs"][0]["steadystate"]["criteria"][0]["values"]);
    let b = u64s(&alone["jobs"][1]["steadystate"]["criteria"][0]["values"]);
    for i in 0..RECORDED {
        assert!(
            h[i].abs_diff(a[i] + b[i]) <= 2,
            "group {} vs {} + {}",
            h[i],
            a[i],
            b[i]
        );
    }
    let c = windows(&h, deviation_pct);
    let (limit, k) = pick_limit(&c);
    let mut opts = vec![format!("--ss=iops:{limit:.6}%"), format!("--ss_dur={N}")];
    opts.extend(group.iter().map(|s| s.to_string()));
    let v = run(&job(ramp, &opts));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    let s = &jobs[0]["steadystate"];
    assert_eq!(s["attained"], 1);
    assert_eq!(s["measured"], (k + 1) as u64);
    assert_eq!(u64s(&s["data"]["iops"]), h[k + 1 - N..=k].to_vec());
    // Both threads stopped at the same interval boundary of their own clocks.
    assert_eq!(
        jobs[0]["job_runtime"].as_u64().unwrap(),
        2 * (ramp + k as u64 + 1) * 1000
    );
}

#[test]
fn per_direction_criterion_in_a_mixed_job() {
    let ramp = 8;
    let mixed = ["--rw=randrw", "--rwmixread=50"];
    let h = record(ramp, "write_iops:0%", &mixed);
    let c = windows(&h, deviation_pct);
    let (limit, k) = pick_limit(&c);
    let want = c.iter().find(|w| w.0 == k).unwrap().1;
    let v = check_stop(
        ramp,
        &format!("write_iops:{limit:.6}%"),
        &mixed,
        &h,
        k,
        want,
    );
    let s = &v["jobs"][0]["steadystate"];
    assert_eq!(
        u64s(&s["dir_data"]["write"]["iops"]),
        h[k + 1 - N..=k].to_vec()
    );
    let r = u64s(&s["dir_data"]["read"]["iops"]);
    let w = u64s(&s["dir_data"]["write"]["iops"]);
    let all = u64s(&s["data"]["iops"]);
    for i in 0..N {
        assert!(all[i].abs_diff(r[i] + w[i]) <= 1, "read + write != all");
    }
}

#[test]
fn ramp_time_restarts_the_measurements() {
    // ramp_time discards everything before it (fio resets its statistics); the
    // window then measures from the end of the ramp, latency included.
    let v = run(&[
        "--name=t".into(),
        "--ioengine=sim".into(),
        "--clocksource=virtual".into(),
        "--size=1g".into(),
        "--rw=randread".into(),
        "--time_based".into(),
        "--ramp_time=3".into(),
        "--runtime=10".into(),
        "--ss=lat:0%".into(),
        "--ss_dur=5".into(),
    ]);
    let j = &v["jobs"][0];
    let s = &j["steadystate"];
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((9990..=10000).contains(&rt), "{rt}");
    // Boundaries at 1..9 s after the ramp (the 10th is the end of the run).
    assert_eq!(s["measured"], 9);
    let lat = u64s(&s["data"]["lat_ns"]);
    let iops = u64s(&s["data"]["iops"]);
    assert!(lat.iter().all(|&l| l > 0), "{lat:?}");
    assert!(iops.iter().all(|&i| i > 0), "{iops:?}");
    // The device serves reads in a fixed time: the window's mean latency is it.
    let clat_mean = j["read"]["clat_ns"]["mean"].as_f64().unwrap();
    for l in lat {
        assert!((l as f64 - clat_mean).abs() <= 1.0, "{l} vs {clat_mean}");
    }
}
