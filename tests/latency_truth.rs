//! Latency that measures the device, not ferrio (issue 13).
//!
//! Ground truth: the simulated device in virtual time, whose every service time lies
//! in a known range, run with every observer on at once (per-I/O logs, 1 ms
//! histogram logs, --status-interval=1, steady state): every recorded latency lies
//! in that range, the I/Os still in flight at the end included.
//!
//! Differential: the same file jobs under ferrio and fio 3.33, compared by structure
//! (never as absolute times): lat − clat (what lies between an I/O's start and its
//! issue) and the clat median and p99 may not be grossly above fio's.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// The tests of this file run one at a time: the comparisons with fio time real
/// I/O, which the other tests' CPU use would disturb.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn rows(path: &Path) -> Vec<Vec<u64>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect()
}

#[test]
fn every_latency_is_a_service_time_with_every_observer_on() {
    let _serial = serial();
    let d = scratch();
    let prefix = file_in(d.path(), "s");
    let (lo, hi) = (20_000_000u64, 40_000_000u64);
    let args = [
        "--name=t".to_string(),
        "--ioengine=sim".into(),
        "--clocksource=virtual".into(),
        "--sim_lat=uniform:20ms:40ms".into(),
        "--sim_channels=16".into(),
        "--sim_bw=0".into(),
        "--iodepth=16".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=64M".into(),
        "--time_based".into(),
        // 10 s of virtual time: ~5000 I/Os and 10000 1 ms histogram rows (writing
        // those rows is most of this test's wall time).
        "--runtime=10s".into(),
        format!("--write_lat_log={prefix}"),
        format!("--write_hist_log={prefix}"),
        "--log_avg_msec=0".into(),
        "--log_hist_msec=1".into(),
        "--ss=iops:0.1%".into(),
        "--ss_dur=5s".into(),
        "--status-interval=1".into(),
        "--json-lines".into(),
        "--output-format=json".into(),
    ];
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_ok(&a);
    // With --status-interval --json-lines: the final report is the last line.
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let v: Value = serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["ferrio_report"], "final");
    let r = &v["cumulative"]["jobs"][0]["read"];
    let ios = r["total_ios"].as_u64().unwrap();
    assert!(ios > 2000, "{ios}");
    for k in ["clat_ns", "lat_ns"] {
        let (min, max) = (r[k]["min"].as_u64().unwrap(), r[k]["max"].as_u64().unwrap());
        assert!(
            min >= lo && max <= hi,
            "{k}: {min}..{max} outside {lo}..{hi}"
        );
    }
    // No submission latency in virtual time.
    assert_eq!(r["slat_ns"]["max"].as_u64(), Some(0));
    // One per-I/O entry per recorded I/O, each a service time; lat == clat.
    let clat = rows(&d.path().join("s_clat.1.log"));
    let lat = rows(&d.path().join("s_lat.1.log"));
    assert_eq!(clat.len() as u64, ios);
    assert_eq!(lat.len() as u64, ios);
    for (c, l) in clat.iter().zip(&lat) {
        assert!(c[1] >= lo && c[1] <= hi, "{c:?}");
        assert_eq!(c[1], l[1]);
    }
}

/// The issue's own case, at its scale: service times of 20 s to 40 s (16 channels, so
/// no I/O queues behind another), iodepth 16, in virtual time. The I/Os still in
/// flight when the runtime ends are completed and timed, never stamped with the end
/// time (their clat was up to 67.7 s against the 40 s ceiling); and the json+ bins go
/// on past fio's ~17.1 s last bin instead of folding every sample into it, covering
/// every I/O with keys inside the modelled range.
#[test]
fn long_latencies_in_virtual_time_stay_in_range_and_fill_bins_past_17s() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=uniform:20s:40s",
        "--sim_channels=16",
        "--sim_bw=0",
        "--iodepth=16",
        "--rw=randread",
        "--bs=4k",
        "--size=64M",
        "--time_based",
        "--runtime=300s",
        "--output-format=json+",
    ]);
    let v = parse_json(&out.stdout);
    let (lo, hi) = (20_000_000_000u64, 40_000_000_000u64);
    let r = &v["jobs"][0]["read"];
    let ios = r["total_ios"].as_u64().unwrap();
    // 16 at a time, 20-40 s each, for 300 s: about 160, the last 16 in flight at the end.
    assert!(ios >= 16 * 300 / 40, "{ios}");
    for k in ["clat_ns", "lat_ns"] {
        let (min, max) = (r[k]["min"].as_u64().unwrap(), r[k]["max"].as_u64().unwrap());
        assert!(
            min >= lo && max <= hi,
            "{k}: {min}..{max} outside {lo}..{hi}"
        );
    }
    // json+ bins (clat's, as fio: lat has them only with lat_percentiles=1).
    let bins = r["clat_ns"]["bins"].as_object().expect("json+ bins");
    let keys: Vec<u64> = bins.keys().map(|b| b.parse().unwrap()).collect();
    let counted: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(counted, ios, "every I/O in a bin");
    // A bin's key is its bucket's midpoint: within 1/64 of every value in it.
    assert!(
        keys.iter().all(|&b| b >= lo - lo / 64 && b <= hi + hi / 64),
        "{keys:?}"
    );
    assert!(keys.len() > 10, "spread over many bins: {keys:?}");
    assert!(
        !keys.contains(&ferrio_stats::FIO_MAX_BIN),
        "nothing above 20 s belongs in fio's last bin: {keys:?}"
    );
}

/// The run's JSON for one tool (ferrio or fio) and job.
fn run_tool(fio: bool, args: &[String]) -> Value {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    if fio {
        fio_json(&a)
    } else {
        run_json(&a)
    }
}

#[derive(Clone, Copy)]
struct Timing {
    /// Mean lat − mean clat.
    lat_minus_clat: f64,
    /// lat median − clat median: the typical gap, blind to the rare preemption
    /// between an I/O's start and its issue that a shared machine adds to the mean.
    median_gap: f64,
    p50: f64,
    p99: f64,
    p999: f64,
    iops: f64,
}

fn timing(v: &Value, dir: &str) -> Timing {
    let r = &v["jobs"][0][dir];
    let pct = |p: &str| r["clat_ns"]["percentile"][p].as_f64().unwrap();
    let lat_pct = |p: &str| r["lat_ns"]["percentile"][p].as_f64().unwrap();
    Timing {
        lat_minus_clat: r["lat_ns"]["mean"].as_f64().unwrap()
            - r["clat_ns"]["mean"].as_f64().unwrap(),
        median_gap: lat_pct("50.000000") - pct("50.000000"),
        p50: pct("50.000000"),
        p99: pct("99.000000"),
        p999: pct("99.900000"),
        iops: r["iops"].as_f64().unwrap(),
    }
}

/// Runs each job with both tools, alternating (fio, ferrio, fio, ferrio, …), `rounds`
/// times each, and keeps each tool's best (lowest) value of every measure: on a shared
/// machine the best run is the one least disturbed by others, and alternating gives
/// both tools the same chances at a quiet moment. Returns (fio, ferrio) and every
/// round's pair, measured back to back (under the same load).
fn best_of_both(args: &[String], dir: &str, rounds: usize) -> (Timing, Timing, Vec<[Timing; 2]>) {
    let worst = || Timing {
        lat_minus_clat: f64::MAX,
        median_gap: f64::MAX,
        p50: f64::MAX,
        p99: f64::MAX,
        p999: f64::MAX,
        iops: 0.0,
    };
    let mut best = [worst(), worst()];
    let mut pairs = Vec::new();
    for _ in 0..rounds {
        let mut pair = [worst(), worst()];
        for (i, fio) in [true, false].into_iter().enumerate() {
            let t = timing(&run_tool(fio, args), dir);
            pair[i] = t;
            let b = &mut best[i];
            b.lat_minus_clat = b.lat_minus_clat.min(t.lat_minus_clat);
            b.median_gap = b.median_gap.min(t.median_gap);
            b.p50 = b.p50.min(t.p50);
            b.p99 = b.p99.min(t.p99);
            b.p999 = b.p999.min(t.p999);
            b.iops = b.iops.max(t.iops);
        }
        pairs.push(pair);
    }
    let [f, o] = best;
    (f, o, pairs)
}

#[test]
fn lat_minus_clat_and_clat_percentiles_are_fios() {
    let _serial = serial();
    if !have_fio() {
        return;
    }
    let d = scratch();
    let file = file_in(d.path(), "data");
    let base = |engine: &str, rw: &str, extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "--name=d",
            &format!("--filename={file}"),
            &format!("--ioengine={engine}"),
            &format!("--rw={rw}"),
            "--bs=4k",
            "--size=16M",
            "--time_based",
            // Half a second: tens of thousands of I/Os, enough for p99.9.
            "--runtime=500ms",
            "--invalidate=0",
            "--lat_percentiles=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    // Lay the file out once (both tools then find it complete).
    run_json(&refs(&base("psync", "write", &["--time_based=0"])));
    let mut jobs = vec![
        ("psync", "randwrite", "write", vec![]),
        ("psync", "randread", "read", vec![]),
        ("pvsync2", "randwrite", "write", vec![]),
    ];
    if engine_works("libaio", &file) {
        jobs.push(("libaio", "randread", "read", vec!["--iodepth=8"]));
    }
    if engine_works("io_uring", &file) {
        jobs.push(("io_uring", "randwrite", "write", vec!["--iodepth=8"]));
    }
    for (engine, rw, dir, extra) in jobs {
        let args = base(engine, rw, &extra);
        // Asynchronous completions depend on when the reaping thread runs, which other
        // load on a 2-core machine disturbs most: one more round each for those.
        let rounds = if extra.is_empty() { 2 } else { 3 };
        // A defect (ferrio's own work inside a latency) shows in every measurement; a
        // burst of load from elsewhere shows in some. So a job passes when one of up
        // to three measurements meets every bound, and fails when none does.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let (f, o, pairs) = best_of_both(&args, dir, rounds);
            match within_bounds(engine, rw, &f, &o, &pairs, extra.is_empty()) {
                Ok(what) => {
                    eprintln!("{what}");
                    failures.clear();
                    break;
                }
                Err(why) => {
                    eprintln!("{why}");
                    failures.push(why);
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// Whether ferrio's timing `o` is within the bounds of fio's `f` on the same job:
/// Ok(summary) or Err(summary with the bound it broke). The tail bounds (p99, p99.9)
/// are checked on `pairs`, runs of the two tools back to back: met by one pair.
fn within_bounds(
    engine: &str,
    rw: &str,
    f: &Timing,
    o: &Timing,
    pairs: &[[Timing; 2]],
    synchronous: bool,
) -> Result<String, String> {
    let what = format!(
        "{engine} {rw}: ferrio lat-clat {:.0} ns (medians {}) p50 {} p99 {} p99.9 {} \
         IOPS {:.0}; fio lat-clat {:.0} ns (medians {}) p50 {} p99 {} p99.9 {} IOPS {:.0}",
        o.lat_minus_clat,
        o.median_gap,
        o.p50,
        o.p99,
        o.p999,
        o.iops,
        f.lat_minus_clat,
        f.median_gap,
        f.p50,
        f.p99,
        f.p999,
        f.iops
    );
    // Before issue 13, psync randwrite showed lat - clat of ~3.8 us against fio's
    // ~60 ns (release build): every I/O carried the previous one's bookkeeping.
    // The typical gap is what fio's is, plus what an unoptimised test build
    // spends scrambling a buffer; the mean may only not be grossly above.
    // (For asynchronous engines the gap is slat, which holds ferrio's own,
    // unoptimised in a test build, submission code.)
    let slack = if synchronous { 1_000.0 } else { 3_000.0 };
    // With iodepth > 1 a completion waits until the loop comes round to reap it, so
    // clat scales with the loop's own speed (Little's law: depth / IOPS). The test
    // runs an unoptimised ferrio against a release fio, so the percentiles are
    // compared per unit of throughput there; a synchronous I/O's clat is the system
    // call alone and is compared as it is.
    let scale = |f: &Timing, o: &Timing| {
        if synchronous {
            1.0
        } else {
            (f.iops / o.iops).max(1.0)
        }
    };
    // The tail is what load from elsewhere moves most, and differently from one
    // second to the next: each best-of value may come from a different moment, so a
    // quiet second for fio and none for ferrio broke the p99 bound at load 13. A pair
    // of runs back to back shares its moment: the bound holds when one pair meets it,
    // with that pair's own throughput ratio.
    let tail = |q: fn(&Timing) -> f64, times: f64, plus: f64| {
        pairs
            .iter()
            .any(|[f, o]| q(o) <= times * q(f) * scale(f, o) + plus)
    };
    let scale = scale(f, o);
    let bounds = [
        (
            "median lat-clat",
            o.median_gap <= 2.0 * f.median_gap.max(0.0) + slack,
        ),
        (
            "mean lat-clat",
            o.lat_minus_clat <= 2.0 * f.lat_minus_clat.max(0.0) + 5_000.0,
        ),
        ("clat p50", o.p50 <= 2.0 * f.p50 * scale + 2_000.0),
        ("clat p99", tail(|t| t.p99, 3.0, 20_000.0)),
        // The tail is where a shared machine disturbs most: only a gross excess.
        ("clat p99.9", tail(|t| t.p999, 5.0, 100_000.0)),
    ];
    match bounds.iter().find(|(_, ok)| !ok) {
        None => Ok(what),
        Some((name, _)) => Err(format!("{what}: {name} out of bounds")),
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Whether both tools can run `engine` here (containers may forbid io_uring or aio).
fn engine_works(engine: &str, file: &str) -> bool {
    let args = [
        "--name=probe".to_string(),
        format!("--filename={file}"),
        format!("--ioengine={engine}"),
        "--rw=read".into(),
        "--bs=4k".into(),
        "--size=64k".into(),
        "--output-format=json".into(),
    ];
    let ok = |mut c: std::process::Command| {
        c.args(&args)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let works = ok(std::process::Command::new("fio")) && ok(ferrio());
    if !works {
        common::skip::skip(&format!("{engine} is not available here"));
    }
    works
}

/// The first column of every row of a log.
fn times(path: &Path) -> Vec<u64> {
    rows(path).iter().map(|r| r[0]).collect()
}

/// Averaged logs of the same job under both tools (docs/live.md, "Differences from
/// fio"). ferrio's rows, latency and bw/iops alike, are stamped as fio stamps its
/// latency rows: at the completion that closes a window, so each lies in the
/// window after the grid point it closes (100, 200, ... ms), one row per window; a
/// window whose end passed with no completion (the job descheduled) gets no row of
/// its own, it is not stamped late; the last row is the job's end, and there is no
/// extra row after a window that ends with the job. fio's bw/iops rows come from its
/// helper thread, at or after each window's end.
#[test]
fn averaged_log_rows_are_stamped_like_fios() {
    let _serial = serial();
    if !have_fio() {
        return;
    }
    let d = scratch();
    let file = file_in(d.path(), "data");
    let job = |prefix: &str, runtime_ms: u64| -> Vec<String> {
        let p = file_in(d.path(), prefix);
        [
            "--name=t".to_string(),
            format!("--filename={file}"),
            "--ioengine=psync".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=8M".into(),
            "--invalidate=0".into(),
            "--time_based".into(),
            format!("--runtime={runtime_ms}ms"),
            "--log_avg_msec=100".into(),
            format!("--write_bw_log={p}"),
            format!("--write_iops_log={p}"),
            format!("--write_lat_log={p}"),
        ]
        .to_vec()
    };
    run_json(&refs(&job("layout", 100)));
    for runtime in [1000u64, 1050] {
        fio_json(&refs(&job("f", runtime)));
        let ran = run_json(&refs(&job("r", runtime)))["jobs"][0]["job_runtime"]
            .as_u64()
            .unwrap();
        let log = |who: &str, kind: &str| times(&d.path().join(format!("{who}_{kind}.1.log")));
        for kind in ["bw", "iops", "clat", "lat"] {
            let r = log("r", kind);
            let f = log("f", kind);
            let what = format!("{kind}, runtime {runtime} ms: ferrio {r:?}, fio {f:?}");
            let (last, rest) = r.split_last().expect("rows");
            // The last row is the job's end: at its runtime, or later by as much as
            // the job itself reports it ran over (a deschedule on a loaded machine
            // may delay the end, and that completion then closes the last window).
            assert!(
                *last >= runtime && *last <= ran.max(runtime) + 1,
                "ran {ran} ms: {what}"
            );
            let mut prev = 0;
            for &x in rest {
                // In the window after the grid point it closes; one per window.
                let m = x / 100;
                assert!(m >= 1 && m > prev, "{what}");
                prev = m;
            }
            // No extra row after the window that ends with the job.
            assert!(
                *rest.last().unwrap() < runtime.max(100 * prev + 1),
                "{what}"
            );
            if runtime % 100 == 0 {
                assert!(rest.iter().all(|&x| x < runtime), "{what}");
            }
            if kind == "bw" || kind == "iops" {
                for (k, &x) in f.iter().enumerate() {
                    assert!(x >= (k as u64 + 1) * 100, "{what}");
                }
            }
        }
    }
}

/// A window that passes with no completion in it gets no row of its own, and none is
/// stamped late (fio's rule in `add_log_sample`: a row at the completion that closes
/// a window, then the next window starts at that completion's grid point). In
/// virtual time with 250 ms service times and 100 ms windows every completion closes
/// one window and the one before it passed empty: one row per completion, at the
/// completion, and none after the last (which is the job's end).
#[test]
fn a_window_without_a_completion_gets_no_row_of_its_own() {
    let _serial = serial();
    let d = scratch();
    let prefix = file_in(d.path(), "w");
    let v = run_json(&[
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:250ms",
        "--sim_bw=0",
        "--rw=randread",
        "--bs=4k",
        "--size=64M",
        "--time_based",
        "--runtime=2s",
        "--log_avg_msec=100",
        &format!("--write_bw_log={prefix}"),
        &format!("--write_iops_log={prefix}"),
        &format!("--write_lat_log={prefix}"),
    ]);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 8);
    let at: Vec<u64> = (1..=8).map(|k| k * 250).collect();
    for kind in ["bw", "iops", "clat", "lat"] {
        let r = rows(&d.path().join(format!("w_{kind}.1.log")));
        let times: Vec<u64> = r.iter().map(|row| row[0]).collect();
        assert_eq!(times, at, "{kind}: {r:?}");
        if kind == "clat" || kind == "lat" {
            assert!(r.iter().all(|row| row[1] == 250_000_000), "{kind}: {r:?}");
        }
    }
}

/// The same ground truth while the live machinery really runs: a few seconds of
/// wall time with 1 ms averaged logs, --status-interval=1, steady state and a
/// SIGUSR1 report: every latency, in every report and log row, is a service time.
#[test]
fn live_reports_logs_and_sigusr1_leave_latencies_alone() {
    let _serial = serial();
    let d = scratch();
    let prefix = file_in(d.path(), "g");
    let (lo, hi) = (20_000u64, 40_000u64);
    let args = [
        "--name=t".to_string(),
        "--ioengine=sim".into(),
        "--clocksource=virtual".into(),
        "--sim_lat=uniform:20us:40us".into(),
        "--sim_bw=0".into(),
        "--iodepth=4".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=64M".into(),
        "--time_based".into(),
        "--runtime=4s".into(),
        format!("--write_lat_log={prefix}"),
        format!("--write_bw_log={prefix}"),
        format!("--write_hist_log={prefix}"),
        "--log_avg_msec=1".into(),
        "--log_window_value=both".into(),
        "--ss=iops:0.001%".into(),
        "--ss_dur=2s".into(),
        "--status-interval=1".into(),
        "--json-lines".into(),
        "--output-format=json".into(),
    ];
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    // The run lasts as long as the CPU takes to simulate 4 s (about 0.6 s in a
    // release build, 5 s in a debug one): the report asked for must come early
    // enough to land before the end on a fast machine too.
    let out = run_signalled(&a, Duration::from_millis(100), "-USR1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut reports = 0;
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).unwrap();
        let r = &v["cumulative"]["jobs"][0]["read"];
        if r["total_ios"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        reports += 1;
        for k in ["clat_ns", "lat_ns"] {
            let (min, max) = (r[k]["min"].as_u64().unwrap(), r[k]["max"].as_u64().unwrap());
            assert!(min >= lo && max <= hi, "{k}: {min}..{max}: {line}");
        }
    }
    assert!(reports >= 2, "{text}");
    // time, mean, max, ddir, bs, prio: both within the modelled range.
    for kind in ["clat", "lat"] {
        let r = rows(&d.path().join(format!("g_{kind}.1.log")));
        assert!(r.len() > 100);
        for row in r {
            assert!(row[1] >= lo && row[2] <= hi, "{kind}: {row:?}");
        }
    }
}
