//! Pacing through the loop, on the scripted engine's virtual clock: due times and
//! waits exact, no wait inside any latency, think time, the minimum-rate check.

use super::run::Worker;
use super::scripted::{Call, Script, ScriptedEngine};
use super::setup::Io;
use super::tests::plan_of;
use crate::runner::observer::{Completion, Observer, Observers, Verdict};
use crate::runner::recorder::{ThreadResult, ThreadStats};
use ferrio_clock::Clock;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;

/// Keeps every completion.
struct Keep(Arc<Mutex<Vec<Completion>>>);

impl Observer for Keep {
    fn next_due_ns(&self) -> u64 {
        u64::MAX
    }
    fn observe(&mut self, _: u64, _: &ThreadStats) -> Verdict {
        Verdict::Continue
    }
    fn wants_completions(&self) -> bool {
        true
    }
    fn completed(&mut self, c: &Completion) {
        self.0.lock().unwrap().push(*c);
    }
}

struct Ran {
    result: ThreadResult,
    /// Virtual times of the engine's queue calls.
    queued_at: Vec<u64>,
    seen: Vec<Completion>,
}

fn run(opts: &str, script: Script) -> Ran {
    let plan = plan_of(opts, script.synchronous);
    let (clock, handle) = Clock::virtual_clock();
    let (engine, log) = ScriptedEngine::new(script, handle.clone());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let observers = Observers::new(vec![Box::new(Keep(seen.clone()))]);
    let io = Io::open(&plan, Box::new(engine)).unwrap();
    let result = Worker::new(&plan, &clock, io, observers, 0)
        .in_virtual_time(handle)
        .run(&AtomicBool::new(false));
    let queued_at = log
        .lock()
        .unwrap()
        .iter()
        .filter_map(|c| match c {
            Call::Queue { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    let seen = seen.lock().unwrap().clone();
    Ran {
        result,
        queued_at,
        seen,
    }
}

fn assert_latency_is_service(r: &Ran, n: u64, service: u64) {
    let d = &r.result.stats.dir[0];
    assert_eq!(d.total_ios, n);
    for h in [&d.clat, &d.lat] {
        assert_eq!((h.count(), h.min(), h.max()), (n, service, service));
    }
    for c in &r.seen {
        assert_eq!((c.clat_ns, c.lat_ns, c.slat_ns), (service, service, 0));
    }
}

#[test]
fn rate_iops_issues_each_io_at_its_due_time_and_no_latency_holds_the_wait() {
    // 1000 IOPS of 4 KiB: I/O k is due at k ms; the device takes 10 µs.
    let r = run(
        "rw=read\nbs=4k\nsize=64k\nrate_iops=1000",
        Script::sync(10_000),
    );
    assert!(r.result.error.is_none());
    let due: Vec<u64> = (0..16).map(|k| k * MS).collect();
    assert_eq!(r.queued_at, due);
    assert_eq!(r.seen.iter().map(|c| c.due_ns).collect::<Vec<_>>(), due);
    assert_latency_is_service(&r, 16, 10_000);
    // The last I/O starts at 15 ms and takes 10 µs.
    assert_eq!(r.result.end_ns, 15 * MS + 10_000);
}

#[test]
fn rate_in_bytes_spaces_ios_by_their_size() {
    // 4 MiB/s with 4 KiB I/Os: one every 1/1024 s = 976562.5 ns; the schedule is
    // cumulative, so no rounding error builds up.
    let r = run("rw=read\nbs=4k\nsize=64k\nrate=4m", Script::sync(1_000));
    let due: Vec<u64> = (0..16u64).map(|k| k * 1_000_000_000 / 1024).collect();
    assert_eq!(r.queued_at, due);
}

#[test]
fn at_any_depth_a_paced_io_waits_for_the_queue_to_empty_then_its_due_time() {
    for depth in [1, 8, 32] {
        let opts = format!("rw=read\nbs=4k\nsize=64k\niodepth={depth}\nrate_iops=1000");
        let r = run(&opts, Script::asynchronous(50_000));
        assert!(r.result.error.is_none());
        assert_eq!(r.queued_at, (0..16).map(|k| k * MS).collect::<Vec<_>>());
        assert_latency_is_service(&r, 16, 50_000);
    }
}

#[test]
fn a_device_slower_than_the_rate_is_not_waited_for_and_due_times_stay_on_schedule() {
    // 2000 IOPS asked, 1 ms per I/O: every I/O is late; each starts when the last one
    // ends, and its due time is still k × 0.5 ms (what coordinated omission hides).
    let r = run("rw=read\nbs=4k\nsize=32k\nrate_iops=2000", Script::sync(MS));
    assert_eq!(r.queued_at, (0..8).map(|k| k * MS).collect::<Vec<_>>());
    let due: Vec<u64> = r.seen.iter().map(|c| c.due_ns).collect();
    assert_eq!(due, (0..8).map(|k| k * MS / 2).collect::<Vec<_>>());
    assert_latency_is_service(&r, 8, MS);
}

#[test]
fn rate_iops_for_writes_only_leaves_reads_unpaced() {
    let r = run(
        "rw=read\nbs=4k\nsize=16k\nrate_iops=,1000",
        Script::sync(1_000),
    );
    assert_eq!(r.queued_at, vec![0, 1_000, 2_000, 3_000]);
}

#[test]
fn thinktime_pauses_after_every_thinktime_blocks_completions() {
    // 10 µs I/Os, a 100 µs think time after every 2 completions.
    let r = run(
        "rw=read\nbs=4k\nsize=24k\nthinktime=100\nthinktime_blocks=2",
        Script::sync(10_000),
    );
    assert_eq!(
        r.queued_at,
        vec![0, 10_000, 120_000, 130_000, 240_000, 250_000]
    );
    assert_latency_is_service(&r, 6, 10_000);
}

#[test]
fn thinktime_spin_is_part_of_thinktime() {
    let a = run(
        "rw=read\nbs=4k\nsize=8k\nthinktime=100",
        Script::sync(10_000),
    );
    let b = run(
        "rw=read\nbs=4k\nsize=8k\nthinktime=100\nthinktime_spin=40",
        Script::sync(10_000),
    );
    assert_eq!(a.queued_at, vec![0, 110_000]);
    assert_eq!(b.queued_at, a.queued_at);
}

#[test]
fn thinktime_blocks_type_issue_counts_issued_ios() {
    // iodepth 4: by issue, the pause comes after 2 issues (with 2 still in flight,
    // which it waits for); by completion only once 2 have completed.
    let by_issue = run(
        "rw=read\nbs=4k\nsize=16k\niodepth=4\nthinktime=100\nthinktime_blocks=2\nthinktime_blocks_type=issue",
        Script::asynchronous(10_000),
    );
    assert_eq!(by_issue.queued_at, vec![0, 0, 110_000, 110_000]);
    let by_completion = run(
        "rw=read\nbs=4k\nsize=16k\niodepth=4\nthinktime=100\nthinktime_blocks=2",
        Script::asynchronous(10_000),
    );
    assert_eq!(by_completion.queued_at, vec![0, 0, 0, 0]);
}

#[test]
fn rate_ignore_thinktime_catches_up_after_a_think_time() {
    // 1000 IOPS and a 5 ms think time after every 2 I/Os. Without
    // rate_ignore_thinktime the schedule stays k ms, so after the pause the I/Os
    // behind it go at once (a burst); with it, the pause counts as spent: the next
    // I/O is due when the pause ends and the one after 1 ms later.
    let opts = "rw=read\nbs=4k\nsize=16k\nrate_iops=1000\nthinktime=5ms\nthinktime_blocks=2";
    let plain = run(opts, Script::sync(0));
    assert_eq!(plain.queued_at, vec![0, MS, 6 * MS, 6 * MS]);
    let due: Vec<u64> = plain.seen.iter().map(|c| c.due_ns).collect();
    assert_eq!(due, vec![0, MS, 2 * MS, 3 * MS]);
    let ignore = run(&format!("{opts}\nrate_ignore_thinktime=1"), Script::sync(0));
    assert_eq!(ignore.queued_at, vec![0, MS, 6 * MS, 7 * MS]);
    let due: Vec<u64> = ignore.seen.iter().map(|c| c.due_ns).collect();
    assert_eq!(due, vec![0, MS, 6 * MS, 7 * MS]);
}

#[test]
fn a_missed_rate_iops_min_stops_the_job_with_fios_message() {
    // The device does 1000 IOPS at most; 2000 are required after the 2 s settling.
    let r = run(
        "rw=read\nbs=4k\nsize=64m\nrate_iops_min=2000\nruntime=10s\ntime_based",
        Script::sync(MS),
    );
    let (errno, msg) = r.result.error.expect("rate_iops_min missed");
    assert_eq!(errno, libc::EIO);
    assert_eq!(msg, "t: rate_iops_min=2000 not met, got 1000 IOPS");
    // Checked 2 s in, then one rate_cycle (1 s) later.
    assert_eq!(r.result.end_ns, 3 * 1_000_000_000);
    let ok = run(
        "rw=read\nbs=4k\nsize=64m\nrate_iops_min=900\nruntime=5s\ntime_based",
        Script::sync(MS),
    );
    assert!(ok.result.error.is_none(), "{:?}", ok.result.error);
}

#[test]
fn poisson_gaps_have_the_rate_as_mean_and_vary_as_an_exponential() {
    let r = run(
        "rw=read\nbs=4k\nsize=64m\nrate_iops=1000\nrate_process=poisson\nruntime=20s\ntime_based",
        Script::sync(0),
    );
    let q = &r.queued_at;
    let gaps: Vec<f64> = q.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n;
    assert!((n - 20_000.0).abs() < 600.0, "{n} I/Os");
    assert!((mean / MS as f64 - 1.0).abs() < 0.03, "mean gap {mean}");
    // An exponential's coefficient of variation is 1 (a linear schedule's is 0).
    let cv = var.sqrt() / mean;
    assert!((cv - 1.0).abs() < 0.05, "cv {cv}");
    // Reproducible: the same seed gives the same schedule.
    let again = run(
        "rw=read\nbs=4k\nsize=64m\nrate_iops=1000\nrate_process=poisson\nruntime=1s\ntime_based",
        Script::sync(0),
    );
    assert_eq!(again.queued_at[..100], q[..100]);
}

#[test]
fn thinktime_iotime_pauses_after_that_much_io_time() {
    // 1 ms I/Os, a 5 ms pause once 3 ms of I/O passed since the last one; the
    // default thinktime_blocks (1) does not count with thinktime_iotime (fio).
    let r = run(
        "rw=read\nbs=4k\nsize=32k\nthinktime=5ms\nthinktime_iotime=3ms",
        Script::sync(MS),
    );
    let want: Vec<u64> = [0, 1, 2, 8, 9, 10, 16, 17].iter().map(|t| t * MS).collect();
    assert_eq!(r.queued_at, want);
    // Given explicitly, thinktime_blocks counts too: a pause after every 2 I/Os.
    let r = run(
        "rw=read\nbs=4k\nsize=16k\nthinktime=5ms\nthinktime_iotime=1h\nthinktime_blocks=2",
        Script::sync(MS),
    );
    assert_eq!(r.queued_at, vec![0, MS, 7 * MS, 8 * MS]);
}

#[test]
fn a_thinktime_spin_longer_than_thinktime_is_spun_whole() {
    // fio accepts it and spins all of it.
    let r = run(
        "rw=read\nbs=4k\nsize=8k\nthinktime=100\nthinktime_spin=300",
        Script::sync(10_000),
    );
    assert_eq!(r.queued_at, vec![0, 310_000]);
}

#[test]
fn a_paced_mixed_job_turns_to_the_direction_behind_its_rate() {
    // fio's rate_ddir: 1000 IOPS each way; whichever direction the mix draws, an I/O
    // goes to the one that is due, so both keep their schedule: two I/Os per ms.
    let r = run(
        "rw=randrw\nbs=4k\nsize=64k\nrate_iops=1000,1000",
        Script::sync(1_000),
    );
    assert!(r.result.error.is_none());
    let s = &r.result.stats;
    assert_eq!((s.dir[0].total_ios, s.dir[1].total_ios), (8, 8));
    let want: Vec<u64> = (0..16).map(|k| k / 2 * MS + k % 2 * 1_000).collect();
    assert_eq!(r.queued_at, want);
}
