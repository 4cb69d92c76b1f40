//! Pacing features checked exactly on the simulated device in virtual time
//! (docs/pacing.md): latency from the due time (due_lat=1) against a device that
//! stalls, computed independently here.

mod common;
use common::*;
use serde_json::Value;

/// A paced depth-1 sequential reader on a one-channel device with a fixed service time
/// and no link time, `rate_iops=1000` for one virtual second, stalling at 500 ms for
/// 20 ms.
fn stalled(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=co",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_channels=1",
        "--sim_stall=500ms:20ms",
        "--rw=read",
        "--bs=4k",
        "--size=1g",
        "--iodepth=1",
        "--rate_iops=1000",
        "--runtime=1s",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// The same schedule, modelled independently: I/O k is due at k ms; it is issued at
/// its due time or when the one before it completed (depth 1), whichever is later;
/// service starts then, or at the end of the stall when it would start inside it.
/// Returns (service latency, latency from the due time) per I/O, in ns.
fn model(n: u64) -> Vec<(u64, u64)> {
    let (svc, period, stall) = (100_000u64, 1_000_000u64, 500_000_000..520_000_000u64);
    let mut prev_done = 0;
    (0..n)
        .map(|k| {
            let due = k * period;
            let issue = due.max(prev_done);
            let start = if stall.contains(&issue) {
                stall.end
            } else {
                issue
            };
            prev_done = start + svc;
            (prev_done - issue, prev_done - due)
        })
        .collect()
}

fn stats(v: &[u64]) -> (u64, u64, f64) {
    let sum: u64 = v.iter().sum();
    (
        *v.iter().min().unwrap(),
        *v.iter().max().unwrap(),
        sum as f64 / v.len() as f64,
    )
}

fn check(o: &Value, want: (u64, u64, f64), n: u64, what: &str) {
    assert_eq!(o["N"].as_u64(), Some(n), "{what}: {o}");
    assert_eq!(o["min"].as_u64(), Some(want.0), "{what}: {o}");
    assert_eq!(o["max"].as_u64(), Some(want.1), "{what}: {o}");
    let mean = o["mean"].as_f64().unwrap();
    assert!(
        (mean - want.2).abs() < 0.01,
        "{what}: mean {mean} != {}",
        want.2
    );
}

#[test]
fn a_stall_under_a_fixed_rate_shows_in_the_due_time_latency_not_in_clat() {
    let args = stalled(&["--due_lat=1"]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let v = run_json(&args);
    let r = &v["jobs"][0]["read"];
    let n = r["total_ios"].as_u64().unwrap();
    // One I/O per ms of the second (and one due at the deadline itself).
    assert!((1000..=1001).contains(&n), "{n}");
    let m = model(n);
    let svc: Vec<u64> = m.iter().map(|x| x.0).collect();
    let due: Vec<u64> = m.iter().map(|x| x.1).collect();
    // fio's clat: one long I/O (the one the stall held), every other one 100 µs.
    check(&r["clat_ns"], stats(&svc), n, "clat");
    check(&r["lat_ns"], stats(&svc), n, "lat");
    assert_eq!(svc.iter().filter(|&&l| l > 100_000).count(), 1);
    // From the due time: the 22 I/Os scheduled during the stall waited too.
    check(&r["due_lat_ns"], stats(&due), n, "due_lat");
    assert_eq!(due.iter().filter(|&&l| l > 100_000).count(), 23);
    // The 99th percentile tells the two apart: clat's is the service time, the due
    // time's is in the stall (ms).
    let p99 = |k: &str| r[k]["percentile"]["99.000000"].as_u64().unwrap();
    assert!(p99("clat_ns") < 110_000, "{}", p99("clat_ns"));
    assert!(p99("due_lat_ns") > 10_000_000, "{}", p99("due_lat_ns"));
}

#[test]
fn due_lat_is_opt_in_and_printed_after_fios_lines() {
    let args = stalled(&[]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let v = run_json(&args);
    assert!(v["jobs"][0]["read"].get("due_lat_ns").is_none());
    let args = stalled(&["--due_lat=1"]);
    let mut args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    args.push("--output-format=normal");
    let out = String::from_utf8(run_ok(&args).stdout).unwrap();
    let lat = out.find("     lat (usec)").expect("fio's lat line");
    let due = out
        .find("    due lat (usec): min=100, max=20100,")
        .expect(&out);
    assert!(due > lat, "{out}");
    assert!(out.contains("due lat percentiles (usec):"), "{out}");
}

/// A depth-`depth` random reader on a device with 8 channels and a fixed 100 µs
/// service: latency is 100 µs up to depth 8 and longer beyond (requests queue).
fn channels8(depth: u32, extra: &[&str]) -> Value {
    let depth = format!("--iodepth={depth}");
    let mut a = vec![
        "--name=lt",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_channels=8",
        "--rw=randread",
        "--size=1g",
        "--runtime=5s",
        "--time_based",
        depth.as_str(),
    ];
    a.extend_from_slice(extra);
    run_json(&a)
}

#[test]
fn latency_target_finds_the_depth_a_brute_force_search_finds() {
    let target_ns = 150_000u64;
    // Brute force: the deepest depth whose every I/O meets the target.
    let mut best = 0u64;
    for depth in 1..=12u32 {
        let v = channels8(depth, &["--runtime=200ms"]);
        let max = v["jobs"][0]["read"]["lat_ns"]["max"].as_u64().unwrap();
        if max <= target_ns {
            best = depth as u64;
        } else {
            break;
        }
    }
    assert_eq!(best, 8, "the device's curve");
    // (With latency_percentile=100 every I/O over the target ramps the depth down
    // at once, in flight ones included, as in fio; a unit test covers that rule.)
    for pct in ["99", "95"] {
        let v = channels8(
            32,
            &[
                "--latency_target=150us",
                "--latency_window=10ms",
                &format!("--latency_percentile={pct}"),
            ],
        );
        let j = &v["jobs"][0];
        assert_eq!(j["latency_depth"].as_u64(), Some(best), "{pct}: {j}");
        assert_eq!(j["latency_target"].as_u64(), Some(target_ns));
        assert_eq!(j["latency_window"].as_u64(), Some(10_000));
        assert_eq!(j["latency_percentile"].as_f64(), Some(pct.parse().unwrap()));
        assert_eq!(j["error"].as_u64(), Some(0));
        // The search ends after one more window at the depth found, and the
        // statistics are that window's alone: every I/O within the target.
        let r = &j["read"];
        assert!(r["lat_ns"]["max"].as_u64().unwrap() <= target_ns, "{r}");
        let runtime = r["runtime"].as_u64().unwrap();
        assert!((10..=11).contains(&runtime), "{runtime} ms");
        // Depth 8 on 8 channels of 100 µs: 80k IOPS.
        let iops = r["iops"].as_f64().unwrap();
        assert!((79_000.0..=81_000.0).contains(&iops), "{iops}");
    }
}

#[test]
fn latency_run_keeps_searching_for_the_whole_run() {
    let v = channels8(
        32,
        &[
            "--latency_target=150us",
            "--latency_window=10ms",
            "--latency_percentile=99",
            "--latency_run=1",
        ],
    );
    let j = &v["jobs"][0];
    // Never settles, so the job runs its whole runtime at depths around 8.
    let runtime = j["read"]["runtime"].as_u64().unwrap();
    assert!((5000..=5001).contains(&runtime), "{runtime}");
    let d = j["latency_depth"].as_u64().unwrap();
    assert!((7..=10).contains(&d), "{d}");
}

#[test]
fn max_latency_is_an_etimedout_error_that_obeys_the_error_policy() {
    // Unpaced depth 1 through a 20 ms stall: one read takes 20.1 ms.
    let base = |extra: &[&str]| {
        let mut a = stalled(extra);
        a.retain(|s| s != "--rate_iops=1000");
        a
    };
    let args = base(&["--max_latency=10ms"]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = ferrio()
        .args(&args)
        .arg("--output-format=json")
        .output()
        .unwrap();
    let v = parse_json(&out.stdout);
    let j = &v["jobs"][0];
    assert_eq!(j["error"].as_i64(), Some(libc_etimedout()), "{j}");
    // fio counts the slow I/O before it fails the job: 5000 at 100 µs, then it.
    assert_eq!(j["read"]["total_ios"].as_u64(), Some(5001));
    assert_eq!(j["read"]["lat_ns"]["max"].as_u64(), Some(20_100_000));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("latency of 20100000 nsec exceeds specified max (10000000 nsec):"),
        "{err}"
    );
    assert_ne!(out.status.code(), Some(0));
    // Below the limit: no error.
    let args = base(&["--max_latency=,10ms"]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        run_json(&args)["jobs"][0]["error"].as_i64(),
        Some(0),
        "writes only"
    );
    // ignore_error makes it non-fatal: counted, and the job runs its whole second.
    let args = base(&["--max_latency=10ms", "--ignore_error=ETIMEDOUT"]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let j = &run_json(&args)["jobs"][0];
    assert_eq!(j["total_err"].as_u64(), Some(1), "{j}");
    assert_eq!(j["first_error"].as_i64(), Some(libc_etimedout()));
    assert_eq!(j["read"]["runtime"].as_u64(), Some(1000));
}

fn libc_etimedout() -> i64 {
    110
}

#[test]
fn the_latency_logs_carry_the_due_time_latency_per_io() {
    let d = scratch();
    let prefix = format!("--write_lat_log={}", d.path().join("co").display());
    let args = stalled(&["--due_lat=1", &prefix]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_json(&args);
    let values = |kind: &str| -> Vec<u64> {
        let text = std::fs::read_to_string(d.path().join(format!("co_{kind}.1.log"))).unwrap();
        text.lines()
            .map(|l| l.split(',').nth(1).unwrap().trim().parse().unwrap())
            .collect()
    };
    let (clat, due) = (values("clat"), values("duelat"));
    assert_eq!(clat.len(), due.len());
    let model = model(due.len() as u64);
    assert_eq!(due, model.iter().map(|x| x.1).collect::<Vec<_>>());
    assert_eq!(clat, model.iter().map(|x| x.0).collect::<Vec<_>>());
    // Without due_lat=1, no such log.
    let d2 = scratch();
    let prefix = format!("--write_lat_log={}", d2.path().join("co").display());
    let args = stalled(&[&prefix]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_json(&args);
    assert!(!d2.path().join("co_duelat.1.log").exists());
    assert!(d2.path().join("co_clat.1.log").exists());
}

/// Kolmogorov–Smirnov statistic of `xs` against an exponential distribution of mean
/// `mean`: the largest distance between the empirical and the exponential CDF.
fn ks_exponential(mut xs: Vec<f64>, mean: f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = 1.0 - (-x / mean).exp();
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// The gaps (ms) between successive I/Os of a depth-1 reader at `rate_iops=1` for
/// 3000 virtual seconds, from the per-I/O completion times of its clat log (a fixed
/// 10 µs service, so the gaps between completions are the gaps between starts).
fn gaps_ms(process: &str) -> Vec<f64> {
    let d = scratch();
    let prefix = format!("--write_lat_log={}", d.path().join("p").display());
    let process = format!("--rate_process={process}");
    run_json(&[
        "--name=p",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:10us",
        "--sim_bw=0",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--rate_iops=1",
        &process,
        "--runtime=3000s",
        "--time_based",
        &prefix,
    ]);
    let text = std::fs::read_to_string(d.path().join("p_clat.1.log")).unwrap();
    let t: Vec<f64> = text
        .lines()
        .map(|l| l.split(',').next().unwrap().trim().parse().unwrap())
        .collect();
    t.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn poisson_inter_arrival_times_pass_a_goodness_of_fit_test_against_the_exponential() {
    // Fixed seeds and virtual time: the same gaps every run, so this cannot flake.
    let gaps = gaps_ms("poisson");
    let n = gaps.len();
    assert!(n > 2500, "{n} gaps");
    // Critical value of the one-sample KS test at the 0.1 % level (1.95 / √n): a
    // fully specified exponential of mean 1000 ms (the rate's), so the mean counts too.
    let critical = 1.95 / (n as f64).sqrt();
    let d = ks_exponential(gaps, 1000.0);
    assert!(d < critical, "KS D = {d} >= {critical}");
    // The test tells: evenly spaced arrivals (rate_process=linear) fail it by far.
    let d = ks_exponential(gaps_ms("linear"), 1000.0);
    assert!(d > 0.5, "linear: KS D = {d}");
}

/// A depth-1 reader behind the adaptive pacer (floor 100 µs) on a one-channel
/// device of 10 µs that stalls for 50 ms at 500 ms, for one virtual second: its
/// I/Os, and the pacer's period at the end and its mean (the job's extra statistics).
fn paced_through_a_stall(tune: &str) -> (u64, u64, f64) {
    let tune = format!("--pacer_tune={tune}");
    let v = run_json(&[
        "--name=p",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:10us",
        "--sim_bw=0",
        "--sim_channels=1",
        "--sim_stall=500ms:50ms",
        "--rw=read",
        "--bs=4k",
        "--size=1g",
        "--iodepth=1",
        "--pacer_period=100us",
        &tune,
        "--runtime=1s",
        "--time_based",
    ]);
    let j = &v["jobs"][0];
    (
        j["read"]["total_ios"].as_u64().unwrap(),
        j["pacer_period_ns"].as_f64().unwrap() as u64,
        j["pacer_period_mean_ns"].as_f64().unwrap(),
    )
}

/// The same run, modelled from the study's rule (docs/pacing.md): an I/O leaves at
/// its due time or when the one before it completed (depth 1); at each departure,
/// every tuning window that ended moves the period one step (1 µs) toward the window's
/// measured I/O period less one step, within [floor, 2 × floor]; the next one is due
/// a period after this one. One that would leave at or after the deadline does not
/// (fio's rate wait gives up at the runtime's end too), and the job, idle then, ends
/// at the deadline. The period's mean weighs each period by the time from the end of
/// the window that set it (the windows that end by the deadline are closed there).
fn pacer_model(tune: u64) -> (u64, u64, f64) {
    let (floor, step, svc, deadline) = (100_000u64, 1_000u64, 10_000u64, 1_000_000_000u64);
    let stall = 500_000_000..550_000_000u64;
    let (mut period, mut due, mut win, mut win_ios, mut done, mut n) = (floor, 0, 0, 0, 0, 0);
    let (mut area, mut since) = (0u128, 0u64);
    let mut close_windows = |now: u64, period: &mut u64, win: &mut u64, win_ios: &mut u64| {
        while tune > 0 && now >= *win + tune {
            let target = (tune / u64::max(*win_ios, 1)).saturating_sub(step);
            area += *period as u128 * (*win + tune - since) as u128;
            since = *win + tune;
            *period = if target > *period {
                (*period + step).min(target)
            } else {
                period.saturating_sub(step).max(target)
            };
            *period = (*period).clamp(floor, 2 * floor);
            *win += tune;
            *win_ios = 0;
        }
    };
    loop {
        let leave = due.max(done);
        if leave >= deadline {
            break;
        }
        close_windows(leave, &mut period, &mut win, &mut win_ios);
        win_ios += 1;
        n += 1;
        due = leave + period;
        let start = if stall.contains(&leave) {
            stall.end
        } else {
            leave
        };
        done = start + svc;
    }
    close_windows(deadline, &mut period, &mut win, &mut win_ios);
    let area = area + period as u128 * (deadline - since) as u128;
    (n, period, area as f64 / deadline as f64)
}

#[test]
fn the_adaptive_pacer_slows_after_a_stall_and_returns_to_its_floor_by_the_rule() {
    // Fixed (pacer_tune=0): one I/O per 100 µs except during the stall; the period
    // is the floor throughout.
    let fixed = paced_through_a_stall("0");
    assert_eq!(fixed, pacer_model(0));
    assert_eq!(fixed, (fixed.0, 100_000, 100_000.0));
    // Tuned every 10 ms: the stall's empty windows raise the period a step each, and
    // it steps back down once the pacer sets the pace again: fewer I/Os, exactly; the
    // period ends at its floor and its mean is above it, as the model's.
    let (n, period, mean) = paced_through_a_stall("10ms");
    let (want_n, want_period, want_mean) = pacer_model(10_000_000);
    assert_eq!((n, period), (want_n, want_period));
    assert!((mean - want_mean).abs() < 0.01, "{mean} {want_mean}");
    assert!(n < fixed.0, "{n}");
    assert_eq!(period, 100_000);
    assert!(mean > 100_000.0 && mean < 101_000.0, "{mean}");
}

#[test]
fn extra_statistics_come_after_fios_keys_and_lines() {
    // A pacer and a buffer pool: their statistics are keys after fio's last one in
    // the job object, and lines after fio's last line of the job.
    let a = [
        "--name=x",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_channels=8",
        "--sim_buffers=2",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--iodepth=8",
        "--pacer_period=20us",
        "--pacer_tune=0",
        "--runtime=100ms",
        "--time_based",
    ];
    let mut j = a.to_vec();
    j.push("--output-format=json");
    let json = String::from_utf8(run_ok(&j).stdout).unwrap();
    // (The options' names come first, in "job options": the last match is the key.)
    let at = |k: &str| json.rfind(&format!("\"{k}\" :")).expect(k);
    assert!(at("latency_window") < at("sim_buffers"), "{json}");
    assert!(
        at("sim_buffers") < at("sim_buffers_in_flight_mean"),
        "{json}"
    );
    assert!(
        at("sim_buffers_in_flight_mean") < at("pacer_period_ns"),
        "{json}"
    );
    assert!(at("pacer_period_ns") < at("pacer_period_mean_ns"), "{json}");
    let v = parse_json(json.as_bytes());
    assert_eq!(v["jobs"][0]["pacer_period_ns"].as_f64(), Some(20_000.0));
    // 2 buffers, 8 channels of 100 µs: the pool is the bottleneck, both held from
    // their first I/O (the second leaves the pacer 20 µs after the first) to the end.
    let held = v["jobs"][0]["sim_buffers_in_flight_mean"].as_f64().unwrap();
    assert!(held > 1.999 && held < 2.0, "{held}");
    let mut n = a.to_vec();
    n.push("--output-format=normal");
    let out = String::from_utf8(run_ok(&n).stdout).unwrap();
    let lat = out.find("     latency   : target=0").expect(&out);
    let sim = out
        .find("\n     sim       : buffers=2, in_flight_mean=2.0\n")
        .expect(&out);
    let pacer = out
        .find("\n     pacer     : period=20.000us, mean_period=20.000us\n")
        .expect(&out);
    assert!(lat < sim && sim < pacer, "{out}");
    assert!(pacer < out.find("Run status group 0").unwrap(), "{out}");
    // A job without either has neither.
    let plain: Vec<&str> = a
        .iter()
        .copied()
        .filter(|o| !o.starts_with("--sim_buffers") && !o.starts_with("--pacer"))
        .collect();
    let plain = run_json(&plain);
    assert!(plain["jobs"][0].get("sim_buffers").is_none(), "{plain}");
    assert!(plain["jobs"][0].get("pacer_period_ns").is_none(), "{plain}");
}

/// Clones of a job with a pool of 2 buffers each and a fixed 10 µs pacer, reported
/// as one (group_reporting).
fn grouped(numjobs: &str) -> Value {
    let v = run_json(&[
        "--name=g",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_buffers=2",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--iodepth=8",
        "--pacer_period=10us",
        "--pacer_tune=0",
        "--runtime=100ms",
        "--time_based",
        numjobs,
        "--group_reporting",
    ]);
    v["jobs"][0].clone()
}

#[test]
fn group_reporting_sums_buffers_in_flight_and_averages_the_pacer() {
    // Two clones hold twice one clone's buffers; the pool's size and the period
    // are each clone's.
    let (one, two) = (grouped("--numjobs=1"), grouped("--numjobs=2"));
    let held = |j: &Value| j["sim_buffers_in_flight_mean"].as_f64().unwrap();
    assert!(held(&one) > 1.99, "{one}");
    assert!((held(&two) - 2.0 * held(&one)).abs() < 1e-5, "{two}");
    assert_eq!(two["sim_buffers"].as_u64(), Some(2), "{two}");
    assert_eq!(two["pacer_period_ns"].as_f64(), Some(10_000.0), "{two}");
    assert_eq!(
        two["pacer_period_mean_ns"].as_f64(),
        Some(10_000.0),
        "{two}"
    );
}

#[test]
fn a_sweep_shows_the_extra_statistics_as_columns() {
    let out = run_ok(&[
        "--name=s",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--sim_channels=8",
        "--sim_buffers=4",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--runtime=100ms",
        "--time_based",
        "--sweep=iodepth=2,8",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let l: Vec<&str> = text.lines().collect();
    assert!(
        l[0].ends_with("| sim buffers | sim in_flight_mean |"),
        "{text}"
    );
    // Depth 2 holds 2 buffers, depth 8 all 4 of the pool.
    assert!(
        l[2].ends_with("|           4 |                  2 |"),
        "{text}"
    );
    assert!(
        l[3].ends_with("|           4 |                  4 |"),
        "{text}"
    );
}

#[test]
fn the_pacer_spaces_submissions_with_ios_in_flight() {
    // 8 channels of 500 µs at depth 8 could do 16k IOPS; the pacer lets one I/O out
    // per 100 µs without waiting for the ones in flight (a rate wait would empty the
    // queue first and hold it to 2k IOPS): 10k IOPS, each I/O its 500 µs service.
    let v = run_json(&[
        "--name=p",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:500us",
        "--sim_bw=0",
        "--sim_channels=8",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--iodepth=8",
        "--pacer_period=100us",
        "--runtime=2s",
        "--time_based",
    ]);
    let r = &v["jobs"][0]["read"];
    let iops = r["iops"].as_f64().unwrap();
    assert!((iops / 10_000.0 - 1.0).abs() < 0.01, "{iops} IOPS");
    assert_eq!(r["clat_ns"]["max"].as_u64(), Some(500_000), "{r}");
    assert_eq!(r["clat_ns"]["min"].as_u64(), Some(500_000), "{r}");
}

/// A virtual-time sim reader on a device of `channels` channels of a fixed 100 µs and
/// no link time; `extra` adds options. Returns (read object, job object).
fn target(depth: &str, channels: &str, extra: &[&str]) -> (Value, Value) {
    let (depth, channels) = (
        format!("--iodepth={depth}"),
        format!("--sim_channels={channels}"),
    );
    let mut a = vec![
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:100us",
        "--sim_bw=0",
        "--bs=4k",
        "--output-format=json",
        &depth,
        &channels,
    ];
    a.extend_from_slice(extra);
    let v = run_json(&a);
    (v["jobs"][0]["read"].clone(), v["jobs"][0].clone())
}

#[test]
fn a_delay_device_adds_its_time_to_the_share_of_the_device_it_covers() {
    // A sequential pass over 1 MiB at depth 1: the first half (sim_delay=1ms:50) takes
    // 100 µs + 1 ms per read, the second half 100 µs.
    let (r, _) = target("1", "1", &["--rw=read", "--size=1m", "--sim_delay=1ms:50"]);
    let lat = &r["clat_ns"];
    assert_eq!(lat["N"].as_u64(), Some(256), "{r}");
    assert_eq!(lat["min"].as_u64(), Some(100_000), "{r}");
    assert_eq!(lat["max"].as_u64(), Some(1_100_000), "{r}");
    assert_eq!(lat["mean"].as_f64(), Some(600_000.0), "{r}");
    // The delay holds no channel: at depth 16 on one channel, delayed reads overlap.
    let (r, _) = target(
        "16",
        "1",
        &[
            "--rw=randread",
            "--size=1g",
            "--runtime=1s",
            "--time_based",
            "--sim_delay=1ms",
        ],
    );
    let iops = r["iops"].as_f64().unwrap();
    assert!((iops / 10_000.0 - 1.0).abs() < 0.01, "{iops} IOPS");
}

#[test]
fn a_shared_buffer_pool_caps_what_is_in_flight() {
    // 8 channels at depth 8 would do 80k IOPS; 2 buffers let 2 commands in at once:
    // 20k IOPS, each I/O waiting its turn for a buffer (mean latency 8 / 20k s).
    let common = ["--rw=randread", "--size=1g", "--runtime=1s", "--time_based"];
    let mut a = common.to_vec();
    a.push("--sim_buffers=2");
    let (r, job) = target("8", "8", &a);
    let iops = r["iops"].as_f64().unwrap();
    assert!((iops / 20_000.0 - 1.0).abs() < 0.01, "{iops} IOPS");
    let lat = r["lat_ns"]["mean"].as_f64().unwrap();
    assert!((lat / 400_000.0 - 1.0).abs() < 0.01, "{lat} ns");
    // The study's "Bufs in-flight", after fio's keys in the job object.
    assert_eq!(job["sim_buffers"].as_u64(), Some(2), "{job}");
    assert_eq!(
        job["sim_buffers_in_flight_mean"].as_f64(),
        Some(2.0),
        "{job}"
    );
    // (The per-channel caches' rule is unit-tested in src/engine/sim/buffers.rs.)
    // Without sim_buffers the pool is no limit, and there are no buffer keys.
    let (r, job) = target("8", "8", &common);
    let iops = r["iops"].as_f64().unwrap();
    assert!((iops / 80_000.0 - 1.0).abs() < 0.01, "{r}");
    assert!(job.get("sim_buffers").is_none(), "{job}");
}

#[test]
fn with_io_submit_mode_offload_a_rate_wait_does_not_empty_the_queue() {
    // rate_iops=10000 at depth 8 on 8 channels of 500 µs. Inline (fio's default), an
    // early I/O first waits for the ones in flight, so I/Os start up to 400 µs after
    // their due times and catch up in bursts; offload submits each at its due time.
    let run = |mode: &str| {
        let mode = format!("--io_submit_mode={mode}");
        let v = run_json(&[
            "--name=p",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:500us",
            "--sim_bw=0",
            "--sim_channels=8",
            "--rw=randread",
            "--bs=4k",
            "--size=1g",
            "--iodepth=8",
            "--rate_iops=10000",
            "--due_lat=1",
            &mode,
            "--runtime=2s",
            "--time_based",
        ]);
        v["jobs"][0]["read"].clone()
    };
    let (inline, offload) = (run("inline"), run("offload"));
    let max = |r: &Value| r["due_lat_ns"]["max"].as_u64().unwrap();
    assert_eq!(max(&offload), 500_000, "{offload}");
    assert_eq!(offload["clat_ns"]["max"].as_u64(), Some(500_000));
    assert!(max(&inline) > 500_000, "{inline}");
    // Both meet the rate.
    for r in [&inline, &offload] {
        let iops = r["iops"].as_f64().unwrap();
        assert!((iops / 10_000.0 - 1.0).abs() < 0.01, "{iops}");
    }
}

#[test]
fn terse_lines_keep_fios_fields_only() {
    // fio's terse tail is variable (disk blocks, error counts, the description), so
    // neither due lat nor the extra statistics are appended: a paced job with both
    // has exactly the fields of the same job without them (docs/pacing.md).
    let terse = |extra: &[&str]| {
        let mut a = vec![
            "--name=t",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:100us",
            "--rw=randread",
            "--size=1g",
            "--rate_iops=1000",
            "--runtime=100ms",
            "--time_based",
            "--output-format=terse",
        ];
        a.extend_from_slice(extra);
        let out = String::from_utf8(run_ok(&a).stdout).unwrap();
        out.trim_end().split(';').count()
    };
    let plain = terse(&[]);
    assert_eq!(
        terse(&["--due_lat=1", "--sim_buffers=4", "--pacer_period=500us"]),
        plain
    );
    // terse v3 of a diskless job: 121 fields, as fio 3.33 prints for ioengine=null.
    assert_eq!(plain, 121);
}
