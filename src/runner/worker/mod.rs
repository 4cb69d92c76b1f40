//! One job thread: set up its files, buffers and engine ([`setup`]), then run the
//! I/O loop ([`run`]) until a stopping rule fires, accounting every submission and
//! completion ([`account`]). The loop is the same for synchronous and asynchronous
//! engines (fio's completed / queued / busy contract), and it is the hot path: per
//! I/O it does one pattern step, the clock reads that bound the I/O, one engine call
//! and a few counter updates — no allocation, no lock, no division, no system call
//! beyond the engine's own.
//!
//! The pieces: [`units`] is the fixed pool of I/O units with their buffers and
//! times, [`state`] the loop's few counters, [`account`] what a completion does to
//! the statistics. The loop's rules are unit-tested through a scripted engine on a
//! virtual clock (`tests`).

mod account;
mod run;
mod setup;
mod state;
mod units;
mod unlink;

use super::engine_setup::engine_options;
use super::job_commands::{self, When};
use super::observer::{ObserverFactory, Observers};
use super::plan::ThreadPlan;
use super::recorder::ThreadResult;
use crate::engine;
use crate::runner::flow::Arrival;
use crate::sys::affinity;
use ferrio_clock::Clock;
use ferrio_config::ext::engine::CpusAllowedPolicy;
use ferrio_config::ClockSource;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Run one thread to completion. A job with clocksource=virtual runs on a clock of
/// its own that its engine advances (the simulated device), not on `clock`.
/// `arrival`: a flow= member's place at the group's start line (dropped on an early
/// return, so the others do not wait for it).
pub fn run_thread(
    plan: &ThreadPlan,
    clock: &Clock,
    stop: &Arc<AtomicBool>,
    factory: &dyn ObserverFactory,
    io_threads_left: &Arc<AtomicUsize>,
    arrival: Option<Arrival>,
    ticket: crate::runner::start_gate::Ticket,
) -> ThreadResult {
    let spec = &plan.spec;
    let mut result = ThreadResult::default();
    if let Err(e) = pin_and_nice(plan) {
        return setup_failed(plan, e);
    }
    // uid=, gid=, lockmem= (the pinned memory is held until the thread ends).
    let _pinned = match super::dropin::thread_setup(plan) {
        Ok(p) => p,
        Err(e) => return setup_failed(plan, e),
    };
    if spec.create_only {
        // The files were laid out before the threads started; like fio (whose
        // setup_files marks such a job done), the job runs its commands, no I/O.
        if let Err(e) = prerun(spec) {
            result.error = Some(e);
            return result;
        }
        postrun(spec);
        return result;
    }
    let (virtual_clock, virtual_handle) = if spec.clocksource == Some(ClockSource::Virtual) {
        let (c, h) = Clock::virtual_clock();
        (Some(c), Some(h))
    } else {
        (None, None)
    };
    let clock = virtual_clock.as_ref().unwrap_or(clock);
    // PACING: rate waits and think times move the virtual clock too.
    let pace_handle = virtual_handle.clone();
    let mut opts = engine_options(plan, virtual_handle, Some(io_threads_left.clone()));
    opts.stop = Some(stop.clone());
    let engine = engine::create(&spec.ioengine, opts);
    let mut io = match engine
        .map_err(|e| (libc::EINVAL, e))
        .and_then(|e| setup::Io::open(plan, e))
    {
        Ok(io) => io,
        // A setup waiting for a peer (net's listen) that the run's stop (a signal,
        // exitall) ended: said, but no failure of this job's, as fio's exitall fails
        // no one it stops.
        Err((libc::EINTR, msg)) if stop.load(Ordering::Relaxed) => {
            eprintln!("ferrio: {msg}");
            return result;
        }
        Err(e) => return setup_failed(plan, e),
    };
    // ZONES: zonemode=zbd against the engine's zoned device, or emulated zones.
    let zbd = match crate::runner::zones::Zbd::setup(plan, &mut |f| io.engine.zoned(f)) {
        Ok(z) => z,
        Err(e) => return setup_failed(plan, (libc::EINVAL, e)),
    };
    // Every thread started with this one is set up too before any goes on (then
    // exec_prerun, as fio runs it after its start line).
    ticket.wait(stop);
    if let Err(e) = prerun(spec) {
        return setup_failed(plan, e);
    }
    // One origin for the job's runtime and its observers' schedules, so a log
    // window that ends with the runtime is closed by the job's end, not by the
    // last I/O before it (which would leave a second, empty-length row at the end).
    // PACING: flow= members start their clocks together (a virtual clock is the
    // thread's own: it sets no common start).
    let own = || clock.now_ns();
    let shared: Option<&dyn Fn() -> u64> = virtual_clock.is_none().then_some(&own);
    let begin_ns = arrival
        .and_then(|a| a.wait(stop, shared))
        .unwrap_or_else(|| clock.now_ns());
    let observers = Observers::new(factory.observers(plan, begin_ns));
    let worker = run::Worker::new(plan, clock, io, observers, begin_ns).with_zones(zbd);
    let result = match pace_handle {
        Some(h) => worker.in_virtual_time(h).run(stop),
        None => worker.stoppable(stop).run(stop),
    };
    postrun(spec);
    result
}

/// A thread whose setup failed after the layout: it reports the error, and its files
/// go as at any end under unlink=1.
fn setup_failed(plan: &ThreadPlan, error: (i32, String)) -> ThreadResult {
    unlink::unlink_files(plan);
    ThreadResult {
        error: Some(error),
        ..Default::default()
    }
}

/// exec_prerun: the job fails when the command does.
fn prerun(spec: &ferrio_config::JobSpec) -> Result<(), (i32, String)> {
    match &spec.lifecycle.exec_prerun {
        Some(cmd) => job_commands::run(&spec.name, When::Prerun, cmd)
            .map_err(|e| (libc::EINVAL, format!("job '{}': {e}", spec.name))),
        None => Ok(()),
    }
}

/// exec_postrun: as fio, the job's results stand whatever the command does; a
/// failure is said.
fn postrun(spec: &ferrio_config::JobSpec) {
    if let Some(cmd) = &spec.lifecycle.exec_postrun {
        if let Err(e) = job_commands::run(&spec.name, When::Postrun, cmd) {
            eprintln!("ferrio: job '{}': {e}", spec.name);
        }
    }
}

/// cpus_allowed (split: clone N gets the Nth CPU of the set, round robin), the I/O
/// priority (prio/prioclass) and nice.
fn pin_and_nice(plan: &ThreadPlan) -> Result<(), (i32, String)> {
    let spec = &plan.spec;
    if let Some(cpus) = &spec.cpus_allowed {
        let one;
        let cpus: &[usize] = match spec.engine.cpus_allowed_policy {
            CpusAllowedPolicy::Split if !cpus.is_empty() => {
                one = [cpus[plan.clone as usize % cpus.len()]];
                &one
            }
            _ => cpus,
        };
        affinity::pin_current_thread(cpus).map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("cpus_allowed: {e}"),
            )
        })?;
    }
    if let Some(value) = spec.lifecycle.ioprio_value() {
        affinity::set_ioprio(value).map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EPERM),
                format!("ioprio_set (prio/prioclass): {e}"),
            )
        })?;
    }
    affinity::set_nice(spec.nice).map_err(|e| {
        (
            e.raw_os_error().unwrap_or(libc::EPERM),
            format!("nice: {e}"),
        )
    })
}

#[cfg(test)]
mod pace_tests;
#[cfg(test)]
mod scripted;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_errors;
