//! The job lifecycle: plan threads, lay out files, start threads in fio's order
//! (groups, stonewall, wait_for, startdelay), run the I/O loops, and gather results.

pub mod act;
mod append;
pub mod blockinfo;
pub mod buffers;
pub mod cgroup;
pub mod cmdprio;
pub mod collect;
pub mod debug_hooks;
pub mod debug_line;
pub mod debug_trace;
mod device_guard;
pub mod direct_io;
pub mod distribution;
pub mod dropin;
pub mod engine_setup;
pub mod exitall;
pub mod filelock;
pub mod filesize_range;
pub mod flow;
pub mod iolog;
pub mod job_commands;
pub mod laid_out;
pub mod late_sizes;
pub mod layout;
pub mod logs;
pub mod metaops;
pub mod observer;
pub mod pacing;
pub mod pattern;
pub mod plan;
pub mod planner;
pub mod ramp;
pub mod recorder;
pub mod region;
pub mod replay;
mod replay_plan;
pub mod resources;
pub mod start_gate;
pub mod steadystate;
pub mod work_dirs;
pub mod work_size;
pub mod worker;
pub mod zones;

use ferrio_clock::Clock;
use ferrio_config::DebugCategory;
use observer::ObserverFactory;
use plan::ThreadPlan;
use recorder::ThreadResult;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Every thread's plan and result, in plan order, plus the run's wall time.
pub struct RunResults {
    pub threads: Vec<(ThreadPlan, ThreadResult)>,
    pub wall_ms: u64,
}

/// Run all planned threads. `stop` ends the run early (signals, exitall); `factory`
/// gives each thread its observers.
pub fn execute(
    mut threads: Vec<ThreadPlan>,
    clock: &Clock,
    stop: &Arc<AtomicBool>,
    factory: Arc<dyn ObserverFactory>,
) -> RunResults {
    let t0 = clock.now_ns();
    // cgroup=: made (v2: the process moved) now, removed when this run ends.
    let cgroups = match cgroup::Cgroups::prepare(&threads) {
        Ok(c) => c.map(Arc::new),
        Err(e) => return cgroup::Cgroups::refused(threads, e),
    };
    // cpuio's exit_on_io_done: the threads that do I/O and have not finished.
    let io_left = Arc::new(AtomicUsize::new(
        threads.iter().filter(|p| does_io(p)).count(),
    ));
    let mut handles: Vec<Option<JoinHandle<ThreadResult>>> = Vec::with_capacity(threads.len());
    let mut results: Vec<Option<ThreadResult>> = (0..threads.len()).map(|_| None).collect();
    // exitall: any job's exitall makes every job's end stop others (fio's global
    // exitall_on_terminate); each job's exit_what says which (exitall.rs).
    let any_exitall = threads.iter().any(|p| p.spec.exitall);
    let stops = exitall::GroupStops::new(stop);
    // Per-group flags (and their forwarder) only where a job can stop others.
    let per_group = any_exitall || threads.iter().any(|p| p.spec.errors.exitall_on_error);
    let forwarder = per_group.then(|| stops.forward());
    // Whether the current job starts: not when it is sized at its start and cannot be
    // (the error is its threads'), or the run was stopped before.
    let mut starts: Result<bool, String> = Ok(true);
    let mutex = threads
        .iter()
        .any(|p| debug_hooks::on(&p.spec, DebugCategory::Mutex));
    // The threads started since the runner last waited start their I/O together.
    let mut gate = start_gate::StartGate::new();
    for i in 0..threads.len() {
        let plan = &threads[i];
        let first_of_job = i == 0 || threads[i - 1].job_index != plan.job_index;
        if first_of_job {
            if plan.spec.stonewall || plan.spec.wait_for.is_some() {
                // (The threads waited for may still be at the start line.)
                gate.close();
                gate = start_gate::StartGate::new();
            }
            if plan.spec.stonewall {
                // Wait for every earlier job to finish.
                let m = debug_hooks::Wait::on(mutex, "stonewall");
                join_where(&mut handles, &mut results, |_| true);
                m.done();
            }
            if let Some(name) = &plan.spec.wait_for {
                let name = name.clone();
                let waits: Vec<bool> = (0..handles.len())
                    .map(|j| threads[j].spec.name == name)
                    .collect();
                let m = debug_hooks::Wait::on(mutex, "wait_for");
                join_where(&mut handles, &mut results, |j| waits[j]);
                m.done();
            }
            let job = threads[i].job_index;
            let end = i + threads[i..]
                .iter()
                .take_while(|t| t.job_index == job)
                .count();
            starts = late_sizes::resolve(&mut threads[i..end], stop);
        }
        let plan = threads[i].clone();
        // PACING: a flow= member's place at its group's start line; dropped unused
        // (the job never runs), it takes the job's weight out of the group.
        let arrival = plan.flow.as_ref().map(|g| {
            g.arrival(
                plan.spec.pacing.flow as u64,
                flow::starts_at_once(&plan.spec),
            )
        });
        // A thread that never starts: its job could not be sized at its start, the
        // run was stopped before (also during the layout), its files could not be
        // laid out (as in fio, it fails without I/O, and under exitall stops no one),
        // or it has nothing to append (no error).
        let never_starts = match &starts {
            Ok(true) => plan.not_laid_out.as_ref().map(plan::NotLaidOut::error),
            Ok(false) => Some(None),
            Err(e) => Some(Some((libc::EINVAL, e.clone()))),
        };
        if let Some(error) = never_starts {
            if does_io(&plan) {
                io_left.fetch_sub(1, Ordering::SeqCst);
            }
            results[i] = Some(ThreadResult {
                error,
                ..Default::default()
            });
            handles.push(None);
            continue;
        }
        // A delayed start is not part of the batch (fio starts it when it is due), nor
        // is a diskless engine's thread: it shares no file, and its setup may wait for
        // a peer (net's listen) that must not hold the others back.
        let ticket = if plan.spec.startdelay_us == (0, 0) && !plan.caps.diskless {
            gate.ticket()
        } else {
            start_gate::Ticket::none()
        };
        let clock = clock.clone();
        let stop = if per_group {
            stops.for_group(plan.groupid)
        } else {
            stop.clone()
        };
        let stops = stops.clone();
        let factory = factory.clone();
        let io_left = io_left.clone();
        let cgroups = cgroups.clone();
        let handle = std::thread::Builder::new()
            // comm=: fio names its job process so; ferrio names each thread.
            .name(match &plan.spec.comm {
                Some(comm) => comm.clone(),
                None => format!("{}.{}", plan.spec.name, plan.clone),
            })
            .spawn(move || {
                let mut r = if sleep_start_delay(&plan, &stop) {
                    ThreadResult::default()
                } else {
                    match cgroups.as_deref().map(|c| c.enter(&plan)).transpose() {
                        Err(e) => ThreadResult {
                            error: Some((libc::EINVAL, e)),
                            ..Default::default()
                        },
                        Ok(origin) => {
                            let r = worker::run_thread(
                                &plan,
                                &clock,
                                &stop,
                                factory.as_ref(),
                                &io_left,
                                arrival,
                                ticket,
                            );
                            if let Some(c) = &cgroups {
                                c.leave(origin.flatten());
                            }
                            r
                        }
                    }
                };
                if does_io(&plan) {
                    io_left.fetch_sub(1, Ordering::SeqCst);
                }
                // exitall: any job's end stops others; exitall_on_error: a job stopped
                // by an error does (fio's fio_terminate_threads(groupid, exit_what)).
                if any_exitall || (plan.spec.errors.exitall_on_error && r.error.is_some()) {
                    stops.exit(plan.groupid, plan.spec.dropin.exit_what);
                }
                // Only now leave the flow group: leaving first would let the group's
                // other jobs run unthrottled until exitall stops them.
                drop(r.held.take());
                r
            })
            .expect("spawn a job thread");
        handles.push(Some(handle));
    }
    gate.close();
    let m = debug_hooks::Wait::on(mutex, "job threads");
    join_where(&mut handles, &mut results, |_| true);
    m.done();
    drop(cgroups);
    stops.finish();
    if let Some(f) = forwarder {
        let _ = f.join();
    }
    let wall_ms = (clock.now_ns() - t0) / 1_000_000;
    RunResults {
        threads: threads
            .into_iter()
            .zip(results.into_iter().map(|r| r.unwrap_or_default()))
            .collect(),
        wall_ms,
    }
}

/// Whether a thread does I/O (fio: its engine is not FIO_NOIO).
fn does_io(p: &ThreadPlan) -> bool {
    p.caps.accounting != crate::engine::Accounting::NoData
}

fn join_where(
    handles: &mut [Option<JoinHandle<ThreadResult>>],
    results: &mut [Option<ThreadResult>],
    pick: impl Fn(usize) -> bool,
) {
    for (j, h) in handles.iter_mut().enumerate() {
        if pick(j) {
            if let Some(h) = h.take() {
                results[j] = Some(h.join().unwrap_or_else(|_| ThreadResult {
                    error: Some((libc::EIO, "job thread panicked".into())),
                    ..Default::default()
                }));
            }
        }
    }
}

/// Sleep for the job's startdelay; true if the run was stopped meanwhile.
fn sleep_start_delay(plan: &ThreadPlan, stop: &AtomicBool) -> bool {
    let (lo, hi) = plan.spec.startdelay_us;
    let us = if hi > lo {
        lo + crate::random::Rng::new(plan.seed).below(hi - lo + 1)
    } else {
        lo
    };
    let until = std::time::Instant::now() + std::time::Duration::from_micros(us);
    while std::time::Instant::now() < until {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(
            std::time::Duration::from_millis(10).min(until - std::time::Instant::now()),
        );
    }
    false
}

#[cfg(test)]
mod plan_tests;
