//! I/O engines: the only code that moves data.
//!
//! An engine never times or counts anything; the runner does all of that around
//! [`IoEngine::queue`] and [`IoEngine::reap`]. Engines declare what they can do with
//! [`Capabilities`] so the runner never special-cases an engine by name. The queue
//! contract is fio's: `queue()` either completes the I/O at once (synchronous
//! engines), accepts it for later completion, or reports that the queue is full. That
//! lets one I/O loop drive synchronous and asynchronous engines alike.

mod io_uring;
mod libaio;
mod mmap;
mod null;
mod posixaio;
pub mod sim;
mod sync;

use std::io;
use std::os::fd::RawFd;

/// What an I/O unit asks the engine to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    Read,
    Write,
    Trim,
    Fsync,
    Fdatasync,
}

/// One I/O in flight. The runner owns a fixed pool of these (indexed, never
/// reallocated); an engine refers to them by index.
#[derive(Debug)]
pub struct IoUnit {
    pub op: IoOp,
    /// Index of the file in the job's file table.
    pub file: usize,
    /// The file's descriptor (-1 for diskless engines).
    pub fd: RawFd,
    pub offset: u64,
    pub len: usize,
    /// Start of this unit's buffer (at least `len` bytes, aligned for O_DIRECT).
    pub buf: *mut u8,
    /// Bytes transferred (>= 0) or -errno, set by the engine on completion.
    pub result: i64,
    /// The exact completion time on the thread's clock, for engines that know it
    /// (a modelled device in virtual time); None: the runner reads the clock.
    pub done_ns: Option<u64>,
}

// SAFETY: an IoUnit's buffer pointer refers to memory owned by the worker thread's
// buffer pool; the unit and its buffer move together and are only used by that thread.
unsafe impl Send for IoUnit {}

/// What `queue` did with an I/O unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    /// Done already; `result` is set.
    Completed,
    /// Accepted; it will be returned by a later `reap`.
    Queued,
    /// No room: reap completions, then try again.
    Busy,
}

/// Static facts about an engine that change how the runner drives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Every `queue` call completes the I/O (fio's FIO_SYNCIO).
    pub synchronous: bool,
    /// Does no real I/O: no files are needed or created (fio's FIO_DISKLESSIO).
    pub diskless: bool,
    /// Can make time pass on a virtual clock (clocksource=virtual): a modelled device.
    pub virtual_time: bool,
}

/// The interface every engine implements.
pub trait IoEngine: Send {
    fn name(&self) -> &'static str;
    fn capabilities(&self) -> Capabilities;
    /// Start (or perform, for synchronous engines) the I/O described by `unit`.
    fn queue(&mut self, index: usize, unit: &mut IoUnit) -> Queued;
    /// Called once before the first `queue`, with the job's file descriptors (in file
    /// order; -1 for diskless engines) and every unit's buffer (in unit order). Engines
    /// that register files or buffers with the kernel, or map files, do it here.
    fn setup(&mut self, _fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        Ok(())
    }
    /// Push queued I/Os to the kernel (no-op for synchronous engines).
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Wait for at least `min` completions (and take at most `max`); push the indices
    /// of completed units into `done`, with their `result` set.
    fn reap(
        &mut self,
        _units: &mut [IoUnit],
        _min: usize,
        _max: usize,
        _done: &mut Vec<usize>,
    ) -> io::Result<()> {
        Ok(())
    }
}

/// Engines ferrio knows, as (name, one-line description). The option table lists the
/// same names; this is the single place an engine is registered with the runner.
pub const ENGINES: &[(&str, &str)] = &[
    ("null", "does no I/O; measures ferrio's own overhead"),
    (
        "sim",
        "simulated device: modelled latency, queueing, bandwidth and SSD wear",
    ),
    ("sync", "read(2)/write(2) after lseek(2)"),
    ("psync", "pread(2)/pwrite(2)"),
    ("vsync", "readv(2)/writev(2) after lseek(2)"),
    ("pvsync", "preadv(2)/pwritev(2)"),
    (
        "pvsync2",
        "preadv2(2)/pwritev2(2), with RWF_HIPRI when hipri is set",
    ),
    (
        "io_uring",
        "Linux io_uring: batched asynchronous submission and completion",
    ),
    ("libaio", "Linux native AIO: io_submit(2)/io_getevents(2)"),
    ("mmap", "memcpy to and from the file mapped with mmap(2)"),
    (
        "posixaio",
        "POSIX AIO: aio_read(3)/aio_write(3), reaped with aio_suspend(3)",
    ),
];

/// Options an engine may read at creation.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    pub iodepth: u32,
    pub hipri: bool,
    /// The whole job, for engines with options of their own (`spec.engine`, `spec.sim`).
    pub spec: Option<std::sync::Arc<ferrio_config::JobSpec>>,
    /// Set for clocksource=virtual: the engine advances this thread's clock.
    pub virtual_clock: Option<ferrio_clock::VirtualHandle>,
    /// The numjobs clone this engine serves (fio's $jobnum), for per-clone seeds.
    pub clone: u32,
}

/// Create an engine by name.
pub fn create(name: &str, opts: EngineOptions) -> Result<Box<dyn IoEngine>, String> {
    let wants_virtual_time = opts.virtual_clock.is_some();
    let engine = create_by_name(name, opts)?;
    if wants_virtual_time && !engine.capabilities().virtual_time {
        return Err(format!(
            "clocksource=virtual needs an engine that drives virtual time, such as ioengine=sim (ioengine is '{name}')"
        ));
    }
    Ok(engine)
}

fn create_by_name(name: &str, opts: EngineOptions) -> Result<Box<dyn IoEngine>, String> {
    match name {
        "null" => Ok(Box::new(null::NullEngine)),
        "sim" => Ok(Box::new(sim::SimEngine::new(&opts)?)),
        "sync" => Ok(Box::new(sync::SyncEngine::new(sync::Flavor::Sync, &opts))),
        "psync" => Ok(Box::new(sync::SyncEngine::new(sync::Flavor::Psync, &opts))),
        "vsync" => Ok(Box::new(sync::SyncEngine::new(sync::Flavor::Vsync, &opts))),
        "pvsync" => Ok(Box::new(sync::SyncEngine::new(sync::Flavor::Pvsync, &opts))),
        "pvsync2" => Ok(Box::new(sync::SyncEngine::new(
            sync::Flavor::Pvsync2,
            &opts,
        ))),
        "io_uring" => Ok(Box::new(io_uring::IoUringEngine::new(&opts)?)),
        "libaio" => Ok(Box::new(libaio::LibaioEngine::new(&opts)?)),
        "mmap" => Ok(Box::new(mmap::MmapEngine::new(&opts))),
        "posixaio" => Ok(Box::new(posixaio::PosixAioEngine::new(&opts))),
        other => Err(format!(
            "ioengine '{other}' is not available; available engines: {}",
            ENGINES.iter().map(|e| e.0).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Capabilities of an engine by name, without creating it.
pub fn capabilities_of(name: &str) -> Option<Capabilities> {
    create(name, EngineOptions::default())
        .ok()
        .map(|e| e.capabilities())
}
