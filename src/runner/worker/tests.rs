//! The loop's rules through the scripted engine on a virtual clock: depth maps,
//! drains, wraps, Busy, short transfers, errors and exact times.

use super::run::Worker;
use super::scripted::{Call, Outcome, Script, ScriptedEngine, Step};
use super::setup::Io;
use crate::engine::IoOp;
use crate::runner::observer::{Completion, Observer, Observers, Verdict};
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::{ThreadResult, ThreadStats};
use crate::runner::region::{PlannedFile, Region};
use ferrio_clock::{Clock, VirtualHandle};
use ferrio_config::builder::Overrides;
use ferrio_config::jobfile::{parse_text, Env};
use ferrio_config::session::assemble;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

pub(super) const K4: u64 = 4096;

/// A job from job-file lines (ioengine=null stands in for the scripted engine: the
/// options are checked as for any diskless engine).
pub(crate) fn plan_of(opts: &str, synchronous: bool) -> ThreadPlan {
    let text = format!("[t]\nioengine=null\n{opts}\n");
    let sections = parse_text(&text, Path::new("t.fio"), &Env::system()).unwrap();
    let spec = assemble(&[], &[sections], &[], &Overrides::default())
        .unwrap()
        .jobs
        .remove(0);
    let len = match spec.size {
        Some(ferrio_config::values::size::SizeOrPercent::Bytes(b)) => b,
        _ => 64 * K4,
    };
    let pass_bytes = spec.io_size.unwrap_or(len);
    ThreadPlan {
        spec: Arc::new(spec),
        job_index: 0,
        clone: 0,
        groupid: 0,
        caps: crate::engine::Capabilities {
            synchronous,
            diskless: true,
            fills_buffers: false,
            virtual_time: true,
            depth_limit: Default::default(),
            accounting: Default::default(),
            queues_when_deep: false,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
        },
        files: vec![PlannedFile {
            path: "scripted".into(),
            region: Region { start: 0, len },
            tail: 0,
            beyond: 0,
            block_device: false,
            device: false,
        }],
        pass_bytes,
        seed: 7,
        seeds: crate::random::SeedSet::from_seed(7, 1),
        replay: None,
        flow: None,
        buffers: Default::default(),
        sized_at_start: false,
        replay_at_start: false,
        file_locks: Default::default(),
        confine: None,
        targets: Default::default(),
        ramp_bytes: None,
        not_laid_out: None,
    }
}

/// An observer with every hook on: it keeps each completion, is due every
/// `period` ns, and makes each of its calls cost `cost` ns of the thread's clock (as
/// log writes, samples and publishing do), which no latency may include.
struct Busybody {
    clock: VirtualHandle,
    seen: Arc<Mutex<Vec<Completion>>>,
    period: u64,
    next: u64,
    cost: u64,
}

impl Observer for Busybody {
    fn next_due_ns(&self) -> u64 {
        self.next
    }
    fn observe(&mut self, now_ns: u64, _stats: &ThreadStats) -> Verdict {
        self.next = now_ns + self.period;
        self.clock.advance_ns(self.cost);
        Verdict::Continue
    }
    fn wants_completions(&self) -> bool {
        true
    }
    fn completed(&mut self, c: &Completion) {
        self.seen.lock().unwrap().push(*c);
        self.clock.advance_ns(self.cost);
    }
}

pub(super) struct Ran {
    pub(super) result: ThreadResult,
    pub(super) calls: Vec<Call>,
    seen: Vec<Completion>,
}

/// Run `opts` against `script`; with `busy_cost` > 0 an observer that costs that
/// much per call (per I/O and every 1 µs) is on.
pub(super) fn run(opts: &str, script: Script, busy_cost: u64) -> Ran {
    let plan = plan_of(opts, script.synchronous);
    let (clock, handle) = Clock::virtual_clock();
    let (engine, log) = ScriptedEngine::new(script, handle.clone());
    assert_eq!(engine.capabilities().diskless, plan.caps.diskless);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let observers: Vec<Box<dyn Observer>> = if busy_cost > 0 {
        vec![Box::new(Busybody {
            clock: handle.clone(),
            seen: seen.clone(),
            period: 1_000,
            next: 1_000,
            cost: busy_cost,
        })]
    } else {
        Vec::new()
    };
    let io = Io::open(&plan, Box::new(engine)).unwrap();
    let stop = AtomicBool::new(false);
    let begin = clock.now_ns();
    let result = Worker::new(&plan, &clock, io, Observers::new(observers), begin).run(&stop);
    let calls = log.lock().unwrap().clone();
    let seen = seen.lock().unwrap().clone();
    Ran {
        result,
        calls,
        seen,
    }
}

pub(super) fn queued_offsets(calls: &[Call]) -> Vec<u64> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Queue { offset, .. } => Some(*offset),
            _ => None,
        })
        .collect()
}

#[test]
fn a_synchronous_engine_records_depth_1_and_one_submit_and_completion_per_io() {
    let o = run("rw=read\nbs=4k\nsize=64k", Script::sync(1_000), 0);
    let s = &o.result.stats;
    assert!(o.result.error.is_none());
    assert_eq!(s.dir[0].total_ios, 16);
    assert_eq!(s.dir[0].io_bytes, 64 * 1024);
    assert_eq!(s.depth.level, [16, 0, 0, 0, 0, 0, 0]);
    assert_eq!(s.depth.submit, [0, 16, 0, 0, 0, 0, 0]);
    assert_eq!(s.depth.complete, [0, 16, 0, 0, 0, 0, 0]);
    assert_eq!((s.depth.total_submit, s.depth.total_complete), (16, 16));
    // fio has no slat for synchronous engines; clat and lat are the service time.
    assert_eq!(s.dir[0].slat.count(), 0);
    for h in [&s.dir[0].clat, &s.dir[0].lat] {
        assert_eq!((h.count(), h.min(), h.max()), (16, 1_000, 1_000));
    }
    assert_eq!(
        queued_offsets(&o.calls),
        (0..16).map(|i| i * K4).collect::<Vec<_>>()
    );
}

#[test]
fn an_asynchronous_engine_counts_depth_at_commit_and_completions_per_reap() {
    let o = run(
        "rw=read\nbs=4k\nsize=64k\niodepth=4",
        Script::asynchronous(1_000),
        0,
    );
    let s = &o.result.stats;
    assert!(o.result.error.is_none());
    assert_eq!(s.dir[0].total_ios, 16);
    // iodepth_batch=1: one commit per I/O, at depths 1, 2, 3, then 4 for the rest.
    assert_eq!(s.depth.level, [1, 2, 13, 0, 0, 0, 0]);
    assert_eq!(s.depth.submit, [0, 16, 0, 0, 0, 0, 0]);
    let reaps: Vec<usize> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Reap { got, .. } if *got > 0 => Some(*got),
            _ => None,
        })
        .collect();
    // Every reap that returned something is one entry of the complete map, of its size.
    assert_eq!(reaps.iter().sum::<usize>(), 16);
    assert_eq!(s.depth.total_complete, reaps.len() as u64);
    assert_eq!(s.depth.complete[1], reaps.len() as u64);
    // Submission takes no time here.
    assert_eq!((s.dir[0].slat.count(), s.dir[0].slat.max()), (16, 0));
}

#[test]
fn the_end_of_a_pass_drains_like_fio() {
    // 4 I/Os at depth 4: all queued, then no work is left: fio's do_io ends with one
    // wait for everything in flight (no look without waiting first: that is
    // cleanup_pending_aio, after an error).
    let o = run(
        "rw=read\nbs=4k\nsize=16k\niodepth=4\niodepth_batch_complete_max=4",
        Script::asynchronous(1_000),
        0,
    );
    assert_eq!(o.result.stats.dir[0].total_ios, 4);
    let reaps: Vec<(usize, usize, usize)> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Reap { min, max, got, .. } => Some((*min, *max, *got)),
            _ => None,
        })
        .collect();
    // The queue filled with the 4th I/O: one reap of at least 1 (all 4 are ready at
    // once); nothing left in flight, so no drain.
    assert_eq!(reaps, vec![(1, 4, 4)]);

    let o = run(
        "rw=read\nbs=4k\nsize=8k\niodepth=4",
        Script::asynchronous(1_000),
        0,
    );
    let reaps: Vec<(usize, usize, usize)> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Reap { min, max, got, .. } => Some((*min, *max, *got)),
            _ => None,
        })
        .collect();
    // 2 I/Os never fill the queue: the drain waits for them as they come (at least
    // one per reap; both are done at the same time here, so one reap takes both and
    // the complete map has one entry, as fio's). It used to look first (min 0, max
    // 1), which with I/Os already done took one of them: two entries.
    assert_eq!(reaps, vec![(1, 2, 2)]);
    assert_eq!(o.result.stats.depth.total_complete, 1);
    assert_eq!(o.result.stats.dir[0].total_ios, 2);
}

#[test]
fn loops_and_number_ios_and_runtime_bound_the_job() {
    let o = run("rw=read\nbs=4k\nsize=16k\nloops=3", Script::sync(10), 0);
    let want: Vec<u64> = (0..12).map(|i| (i % 4) * K4).collect();
    assert_eq!(queued_offsets(&o.calls), want);

    let o = run(
        "rw=read\nbs=4k\nsize=64k\nnumber_ios=5",
        Script::sync(10),
        0,
    );
    assert_eq!(o.result.stats.dir[0].total_ios, 5);

    // 1 ms per I/O, 10 ms of runtime over a 4-block file: 10 I/Os, wrapping.
    let o = run(
        "rw=read\nbs=4k\nsize=16k\ntime_based\nruntime=10ms",
        Script::sync(1_000_000),
        0,
    );
    assert_eq!(o.result.stats.dir[0].total_ios, 10);
    assert_eq!(queued_offsets(&o.calls)[4..6], [0, K4]);
    assert_eq!(o.result.stats.runtime_us, 10_000);
}

#[test]
fn an_ended_stream_ends_the_job_with_what_was_done_and_no_error() {
    // A network receiver whose sender is done: 3 of the 16 blocks came, then the end.
    let script = Script::sync(1_000).first(&[
        Step::Now(1_000, Outcome::Full),
        Step::Now(1_000, Outcome::Full),
        Step::Now(1_000, Outcome::Full),
        Step::Ended,
    ]);
    let o = run("rw=read\nbs=4k\nsize=64k", script, 0);
    assert!(o.result.error.is_none(), "{:?}", o.result.error);
    assert_eq!(o.result.stats.dir[0].total_ios, 3);
    let queued = o
        .calls
        .iter()
        .filter(|c| matches!(c, Call::Queue { .. }))
        .count();
    assert_eq!(queued, 4, "nothing is queued after the end");
}

#[test]
fn busy_requeues_the_same_unit_after_a_reap() {
    let script = Script::asynchronous(1_000).first(&[
        Step::Later(1_000, Outcome::Full),
        Step::Busy,
        Step::Later(1_000, Outcome::Full),
    ]);
    let o = run("rw=read\nbs=4k\nsize=16k\niodepth=4", script, 0);
    assert!(o.result.error.is_none());
    assert_eq!(o.result.stats.dir[0].total_ios, 4);
    let kinds: Vec<String> = o
        .calls
        .iter()
        .map(|c| match c {
            Call::Queue { unit, offset, .. } => format!("q{unit}@{offset}"),
            Call::Commit { n, .. } => format!("c{n}"),
            Call::Reap { got, .. } => format!("r{got}"),
        })
        .collect();
    // The busy unit (2, offset 4k: units go out last first, as fio's) is queued
    // again after a reap, not regenerated.
    assert_eq!(kinds[..6], ["q3@0", "c1", "q2@4096", "r1", "q2@4096", "c1"]);
}

#[test]
fn a_short_transfer_is_short_and_its_rest_is_issued_again() {
    // fio's residual rule (synchronous engines): the I/O counts as short, and the
    // rest is issued at once from where it stopped; the I/O is accounted once.
    let script = Script::sync(100).first(&[
        Step::Now(100, Outcome::Full),
        Step::Now(100, Outcome::Short(1024)),
        Step::Now(250, Outcome::Full),
    ]);
    let o = run("rw=read\nbs=4k\nsize=16k", script, 0);
    assert!(o.result.error.is_none());
    let d = &o.result.stats.dir[0];
    assert_eq!((d.total_ios, d.short_ios), (4, 1));
    assert_eq!(d.io_bytes, 4 * K4);
    let queued: Vec<(u64, usize)> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Queue { offset, len, .. } => Some((*offset, *len)),
            _ => None,
        })
        .collect();
    assert_eq!(
        queued,
        [
            (0, 4096),
            (4096, 4096),
            (5120, 3072),
            (8192, 4096),
            (12288, 4096)
        ]
    );
    // lat covers both parts (fio's start_time stays); clat only the rest (fio stamps
    // issue_time again when it queues the rest).
    assert_eq!((d.lat.max(), d.clat.max()), (350, 250));
}

#[test]
fn a_read_that_moves_nothing_is_an_eio_error_not_an_io() {
    // A file truncated under a running read job: the read at the old size returns
    // 0 bytes. fio: err=5 ("full resid"); never a counted, zero-byte I/O.
    for first in [Outcome::Short(0), Outcome::Short(512)] {
        let script = Script::sync(100).first(&[
            Step::Now(100, Outcome::Full),
            Step::Now(100, first),
            Step::Now(100, Outcome::Short(0)),
        ]);
        let o = run("rw=read\nbs=4k\nsize=64k", script, 0);
        let (errno, msg) = o.result.error.clone().expect("an error");
        assert_eq!(errno, libc::EIO, "{msg}");
        assert!(msg.contains("full resid"), "{msg}");
        let d = &o.result.stats.dir[0];
        assert_eq!((d.total_ios, d.io_bytes), (1, K4), "{first:?}");
    }
}

#[test]
fn an_asynchronous_short_transfer_is_queued_again_for_its_rest() {
    // io_u.c io_completed: counted short, the rest requeued from where it stopped.
    let script = Script::asynchronous(1_000).first(&[
        Step::Later(1_000, Outcome::Short(1024)),
        Step::Later(1_000, Outcome::Full),
        Step::Later(1_000, Outcome::Full),
        Step::Later(1_000, Outcome::Full),
        Step::Later(700, Outcome::Full),
    ]);
    let o = run("rw=read\nbs=4k\nsize=16k\niodepth=2", script, 0);
    assert!(o.result.error.is_none(), "{:?}", o.result.error);
    let d = &o.result.stats.dir[0];
    assert_eq!((d.total_ios, d.short_ios, d.io_bytes), (4, 1, 4 * K4));
    let queued: Vec<(u64, usize)> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Queue { offset, len, .. } => Some((*offset, *len)),
            _ => None,
        })
        .collect();
    assert_eq!(queued.len(), 5);
    assert!(queued.contains(&(1024, 3072)), "{queued:?}");
    // The I/O's lat runs from its first start to the rest's completion.
    assert!(d.lat.max() >= 1_700, "{}", d.lat.max());
}

#[test]
fn an_asynchronous_read_that_moves_nothing_is_an_eio_error() {
    let script = Script::asynchronous(1_000).first(&[
        Step::Later(1_000, Outcome::Full),
        Step::Later(1_000, Outcome::Short(0)),
    ]);
    let o = run("rw=read\nbs=4k\nsize=64k\niodepth=4", script, 0);
    let (errno, msg) = o.result.error.clone().expect("an error");
    assert_eq!(errno, libc::EIO, "{msg}");
    let d = &o.result.stats.dir[0];
    assert_eq!(d.io_bytes, d.total_ios * K4);
    assert!(d.total_ios < 16);
}

#[test]
fn the_first_error_stops_the_job_with_its_errno() {
    let script = Script::sync(100).first(&[
        Step::Now(100, Outcome::Full),
        Step::Now(100, Outcome::Full),
        Step::Now(100, Outcome::Errno(libc::EIO)),
    ]);
    let o = run("rw=write\nbs=4k\nsize=64k", script, 0);
    let (errno, msg) = o.result.error.clone().unwrap();
    assert_eq!(errno, libc::EIO);
    assert!(msg.contains("write offset=8192"), "{msg}");
    assert_eq!(o.result.stats.dir[1].total_ios, 2);
    assert_eq!(queued_offsets(&o.calls).len(), 3);

    // Asynchronous: the failed I/O stops the job, what is in flight is still reaped.
    let script = Script::asynchronous(1_000).first(&[
        Step::Later(1_000, Outcome::Errno(libc::ENOSPC)),
        Step::Later(2_000, Outcome::Full),
    ]);
    let o = run("rw=write\nbs=4k\nsize=64k\niodepth=2", script, 0);
    assert_eq!(o.result.error.as_ref().unwrap().0, libc::ENOSPC);
    assert_eq!(o.result.stats.dir[1].total_ios, 1);
    assert!(matches!(o.calls.last(), Some(Call::Reap { got: 1, .. })));
}

#[test]
fn a_failed_commit_stops_the_job_and_waits_for_nothing() {
    let mut script = Script::asynchronous(1_000);
    script.commits.extend([None, Some(libc::EAGAIN)]);
    let o = run("rw=read\nbs=4k\nsize=64k\niodepth=4", script, 0);
    let (errno, msg) = o.result.error.clone().unwrap();
    assert_eq!(errno, libc::EAGAIN);
    assert!(msg.starts_with("submit:"), "{msg}");
    // The committed I/O is still in flight after the failure: nothing is waited for.
    let after: Vec<&Call> = o
        .calls
        .iter()
        .skip_while(|c| !matches!(c, Call::Commit { n: 1, at: _ }))
        .skip(1)
        .skip_while(|c| !matches!(c, Call::Commit { .. }))
        .skip(1)
        .collect();
    assert!(after.is_empty(), "{after:?}");
    assert_eq!(o.result.stats.dir[0].total_ios, 0);
}

#[test]
fn fsync_every_n_writes_is_a_unit_of_its_own() {
    let o = run("rw=write\nbs=4k\nsize=32k\nfsync=3", Script::sync(50), 0);
    let ops: Vec<IoOp> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Queue { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    let w = IoOp::Write;
    let f = IoOp::Fsync;
    assert_eq!(ops, [w, w, w, f, w, w, w, f, w, w]);
    assert_eq!(o.result.stats.sync_ios, 2);
    assert_eq!(o.result.stats.sync_lat.max(), 50);
}

#[test]
fn timing_is_exactly_the_scripted_service_time() {
    // Varied service times, synchronous.
    let steps: Vec<Step> = (0..16)
        .map(|i| Step::Now(1_000 + 37 * i, Outcome::Full))
        .collect();
    let o = run(
        "rw=randread\nbs=4k\nsize=64k",
        Script::sync(1).first(&steps),
        0,
    );
    let c = &o.result.stats.dir[0].clat;
    assert_eq!((c.count(), c.min(), c.max()), (16, 1_000, 1_000 + 37 * 15));
    let mean = (0..16).map(|i| 1_000 + 37 * i).sum::<u64>() as f64 / 16.0;
    assert!((c.mean() - mean).abs() < 1e-9);
    assert_eq!(o.result.stats.dir[0].lat, *c);
}

/// Ground truth: with an observer whose every call costs time (per-I/O logging,
/// periodic work every µs), each I/O's recorded latencies are still exactly its
/// scripted service time — ferrio's bookkeeping is in no latency.
#[test]
fn bookkeeping_is_in_no_latency_synchronous() {
    let service = |i: u64| 1_000 + 37 * i;
    let steps: Vec<Step> = (0..64)
        .map(|i| Step::Now(service(i), Outcome::Full))
        .collect();
    let o = run(
        "rw=randwrite\nbs=4k\nsize=256k",
        Script::sync(1).first(&steps),
        500,
    );
    assert_eq!(o.seen.len(), 64);
    for (i, c) in o.seen.iter().enumerate() {
        let want = service(i as u64);
        assert_eq!((c.slat_ns, c.clat_ns, c.lat_ns), (0, want, want), "I/O {i}");
        assert_eq!(c.due_ns, c.issue_ns);
    }
    let s = &o.result.stats.dir[1];
    assert_eq!((s.clat.min(), s.clat.max()), (service(0), service(63)));
    assert_eq!(s.lat, s.clat);
    // The time between I/Os really was spent: 64 completions and the periodic calls.
    let queued: Vec<u64> = o
        .calls
        .iter()
        .filter_map(|c| match c {
            Call::Queue { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    assert!(queued[1] - queued[0] >= service(0) + 500);
}

#[test]
fn bookkeeping_is_in_no_latency_asynchronous() {
    let service = |i: u64| 10_000 + 1_000 * (i % 7);
    let steps: Vec<Step> = (0..64)
        .map(|i| Step::Later(service(i), Outcome::Full))
        .collect();
    let o = run(
        "rw=randread\nbs=4k\nsize=256k\niodepth=8",
        Script::asynchronous(1).first(&steps),
        300,
    );
    assert_eq!(o.seen.len(), 64);
    // Completions arrive out of order: match them to their I/O by offset.
    let order: Vec<u64> = queued_offsets(&o.calls);
    for c in &o.seen {
        let i = order.iter().position(|&off| off == c.offset).unwrap() as u64;
        assert_eq!(c.slat_ns, 0, "I/O {i}");
        assert_eq!(c.clat_ns, service(i), "I/O {i}");
        assert_eq!(c.lat_ns, service(i), "I/O {i}");
    }
}

/// I/Os still in flight when the runtime ends are waited for and stamped with their
/// own completion, never with the time the last of them completed (the sim engine's
/// `uniform:20s:40s` at depth 16 once showed a 67.7 s clat).
#[test]
fn ios_in_flight_at_the_end_keep_their_own_times() {
    let service = |i: u64| 20_000_000_000 + 1_250_000_000 * (i % 17);
    let steps: Vec<Step> = (0..4096)
        .map(|i| Step::Later(service(i), Outcome::Full))
        .collect();
    let o = run(
        "rw=randread\nbs=4k\nsize=1m\niodepth=16\ntime_based\nruntime=100s",
        Script::asynchronous(1).first(&steps),
        1_000,
    );
    let c = &o.result.stats.dir[0].clat;
    assert!(c.count() > 16);
    assert!(c.max() <= service(16), "clat max {}", c.max());
    assert!(c.min() >= service(0));
    // Every I/O queued was completed and recorded, the last 16 included.
    assert_eq!(c.count() as usize, queued_offsets(&o.calls).len());
    for s in &o.seen {
        assert_eq!(s.clat_ns, s.lat_ns);
        assert!(s.clat_ns >= service(0) && s.clat_ns <= service(16));
    }
}

#[test]
fn serialize_overlap_holds_back_only_overlapping_ios() {
    // Sequential writes never overlap: the queue fills as without the option.
    let o = run(
        "rw=write\nbs=4k\nsize=64k\niodepth=4\nserialize_overlap=1",
        Script::asynchronous(1_000),
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(o.result.stats.depth.level, [1, 2, 13, 0, 0, 0, 0]);
    // Random writes over two blocks: at most two I/Os (one per block) are in flight.
    let o = run(
        "rw=randwrite\nbs=4k\nsize=8k\nio_size=64k\nnorandommap\niodepth=4\nserialize_overlap=1",
        Script::asynchronous(1_000),
        0,
    );
    assert!(o.result.error.is_none());
    let level = o.result.stats.depth.level;
    assert_eq!(level[2..], [0; 5], "{level:?}");
    assert_eq!(o.result.stats.dir[1].total_ios, 16);
    // (Without the option the same job queues deeper: the bound above means something.)
    let o = run(
        "rw=randwrite\nbs=4k\nsize=8k\nio_size=64k\nnorandommap\niodepth=4",
        Script::asynchronous(1_000),
        0,
    );
    assert!(o.result.stats.depth.level[2] > 0);
}

#[test]
fn a_buffered_job_is_not_held_to_o_directs_alignment() {
    // bs=1000 is no multiple of any logical block size: only direct=1 refuses it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![0u8; 64_000]).unwrap();
    let mut plan = plan_of("rw=read\nbs=1000\nsize=64000", true);
    plan.caps.diskless = false;
    plan.files[0].path = path;
    let (_, handle) = Clock::virtual_clock();
    let (engine, _) = ScriptedEngine::new(Script::sync(1_000), handle);
    assert!(Io::open(&plan, Box::new(engine)).is_ok());
}

/// A reap's equal clats are recorded as one run (`Accounting::begin_batch`): the
/// histograms and fio's latency buckets must be exactly those of recording each
/// completion alone, in both directions, with runs broken by direction and value.
#[test]
fn a_reaps_equal_clats_are_recorded_exactly_as_one_by_one() {
    // Groups of four share a service time: one commit of four, one reap of four.
    let service = |i: u64| 5_000 + 1_000 * ((i / 4) % 3);
    let steps: Vec<Step> = (0..128)
        .map(|i| Step::Later(service(i), Outcome::Full))
        .collect();
    let o = run(
        "rw=randrw\nbs=4k\nsize=512k\niodepth=8\niodepth_batch_submit=4\n\
         iodepth_batch_complete_min=4",
        Script::asynchronous(1).first(&steps),
        1,
    );
    assert!(o.result.error.is_none());
    let s = &o.result.stats;
    let mut clat = [
        ferrio_stats::LatencyHistogram::new(),
        ferrio_stats::LatencyHistogram::new(),
    ];
    let mut buckets = ferrio_stats::LatencyBuckets::default();
    for c in &o.seen {
        clat[c.ddir].record(c.clat_ns);
        buckets.record(c.clat_ns);
    }
    assert_eq!(o.seen.len(), 128);
    for (d, h) in clat.iter().enumerate() {
        assert!(h.count() > 0, "direction {d}");
        assert_eq!(s.dir[d].clat, *h, "direction {d}");
    }
    assert_eq!(s.lat_buckets, buckets);
    // The test means something only if reaps did hold equal clats in a row.
    let runs = o
        .seen
        .windows(2)
        .filter(|w| w[0].clat_ns == w[1].clat_ns && w[0].ddir == w[1].ddir)
        .count();
    assert!(runs > 16, "only {runs} equal neighbours");
}

/// fio aligns its buffers only for direct=1, mem_align, atomic or an engine that wants
/// it (init_io_u_buffers); otherwise they lie back to back from malloc's pointer, and
/// the kernel's copy of buffered I/O pays for that placement in both tools alike.
#[test]
fn buffers_are_aligned_only_where_fio_aligns_them() {
    use super::units::Units;
    let page = crate::sys::memory::page_size();
    let job = "rw=write\nbs=6000\nsize=60000\niodepth=3";
    let buffered = Units::new(&plan_of(job, false), 3, true).unwrap();
    let b = buffered.buffers();
    assert_eq!(b[0].1, 6000);
    assert_eq!(b[1].0 as usize - b[0].0 as usize, 6000);
    assert_eq!(b[2].0 as usize - b[1].0 as usize, 6000);
    let mut wants = plan_of(job, false);
    wants.caps.aligned_buffers = true;
    for plan in [
        plan_of(&format!("{job}\ndirect=1"), false),
        plan_of(&format!("{job}\niomem_align=4k"), false),
        wants,
    ] {
        let units = Units::new(&plan, 3, true).unwrap();
        for (ptr, stride) in units.buffers() {
            assert_eq!(ptr as usize % page, 0, "{:?}", plan.spec.engine);
            assert_eq!(stride, 6000usize.div_ceil(page) * page);
        }
    }
}
