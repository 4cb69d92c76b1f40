//! I/O engines: the only code that moves data.
//!
//! An engine never times or counts anything; the runner does all of that around
//! [`IoEngine::queue`] and [`IoEngine::reap`]. Engines declare what they can do with
//! [`Capabilities`] in their [`registry`] row, so the runner never special-cases (or
//! names) an engine. The queue contract is fio's: `queue()` either completes the I/O
//! at once (synchronous engines), accepts it for later completion, or reports that
//! the queue is full. That lets one I/O loop drive synchronous and asynchronous
//! engines alike.

mod cpuio;
mod e4defrag;
mod exec;
mod falloc;
mod fileops;
mod ftruncate;
mod io_uring;
mod libaio;
mod libpmem;
mod mmap;
mod nbd;
mod net;
mod null;
mod posixaio;
pub mod raw_loop;
pub mod registry;
pub mod sim;
mod splice;
mod sync;
mod uring_sqe;
pub mod zone;

use ferrio_config::ext::{EngineTuning, LocalSpec, SimSpec};
use std::io;
use std::ops::Range;
use std::os::fd::RawFd;
use std::path::PathBuf;

/// What an I/O unit asks the engine to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    Read,
    Write,
    Trim,
    Fsync,
    Fdatasync,
    /// sync_file_range(2) of the unit's offset and len (sync_file_range=FLAGS:N).
    SyncFileRange {
        flags: u32,
    },
}

impl IoOp {
    /// The action fio's iologs name this I/O by (its io_ddir_name); a
    /// sync_file_range's flags are not logged.
    pub fn iolog_action(self) -> &'static str {
        match self {
            IoOp::Read => "read",
            IoOp::Write => "write",
            IoOp::Trim => "trim",
            IoOp::Fsync => "sync",
            IoOp::Fdatasync => "datasync",
            IoOp::SyncFileRange { .. } => "sync_file_range",
        }
    }

    /// The I/O a log's action issues (None: a file action, a wait or unknown).
    /// A logged sync_file_range replays as nothing (fio refuses it too).
    pub fn of_iolog_action(action: &str) -> Option<IoOp> {
        [
            IoOp::Read,
            IoOp::Write,
            IoOp::Trim,
            IoOp::Fsync,
            IoOp::Fdatasync,
        ]
        .into_iter()
        .find(|op| op.iolog_action() == action)
    }
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

#[cfg(test)]
impl IoUnit {
    /// A unit for engine unit tests: file 0, no buffer (set `buf` where the engine
    /// moves data), no result yet.
    pub fn for_test(op: IoOp, fd: RawFd, offset: u64, len: usize) -> IoUnit {
        IoUnit {
            op,
            file: 0,
            fd,
            offset,
            len,
            buf: std::ptr::null_mut(),
            result: 0,
            done_ns: None,
        }
    }
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
    /// The peer ended the stream (a network engine's close message or end of
    /// stream): the job is over and this unit moved nothing (fio's td->done).
    Ended,
}

/// Static facts about an engine that change how the runner drives it (one per
/// registry row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Every `queue` call completes the I/O (fio's FIO_SYNCIO).
    pub synchronous: bool,
    /// Does no real I/O: no files are needed or created (fio's FIO_DISKLESSIO).
    pub diskless: bool,
    /// Diskless, but a write's buffer goes somewhere (the network engines send it):
    /// buffers are filled as the buffer options say, as fio fills them for every
    /// engine that moves data. (Other diskless engines' buffers are never touched.)
    pub fills_buffers: bool,
    /// Can make time pass on a virtual clock (clocksource=virtual): a modelled device.
    pub virtual_time: bool,
    /// The kernel's limit on the queue depth, checked before the run.
    pub depth_limit: DepthLimit,
    /// What a completed I/O counts for in the statistics.
    pub accounting: Accounting,
    /// Synchronous only at iodepth=1; above it `queue` queues and `commit` completes
    /// the batch (fio's null engine). See [`capabilities_for`].
    pub queues_when_deep: bool,
    /// fio's prepopulate_file (libpmem): before the run each file is written from its
    /// start with the job's buffer contents ("Prepopulating IO file"), whatever the
    /// job's directions, instead of being laid out; the engine sizes it when it maps it.
    pub prepopulates: bool,
    /// The engine maps its files and moves data with loads and stores, bypassing the
    /// block layer (fio's libpmem: FIO_DISKLESSIO | FIO_NODISKUTIL): no disk
    /// statistics, no page-cache invalidation, and direct= and sync= are the engine's
    /// own flags ([`EngineOptions`]), not open flags: its files are opened without
    /// O_DIRECT or O_SYNC, so direct=1 needs neither aligned blocks nor a file system
    /// that accepts O_DIRECT.
    pub maps_files: bool,
    /// The engine wants page-aligned I/O buffers whatever the job says (fio's
    /// FIO_MEMALIGN / FIO_RAWIO: libpmem's non-temporal copies). Other engines get
    /// them aligned only where the job asks (direct=1, iomem_align=, atomic=1), as
    /// in fio: see `runner::resources::buffer_stride`.
    pub aligned_buffers: bool,
    /// The engine cannot grow a file (fio's FIO_NOEXTEND: mmap maps the file as it
    /// is): a writing job's files are laid out whole first, as a reading job's.
    pub no_extend: bool,
}

/// What the runner records for an engine's completed I/Os.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accounting {
    /// Bytes, I/O count, slat/clat/lat: an engine that moves data.
    #[default]
    Data,
    /// fio's FIO_FAKEIO + FIO_NOSTATS (the metadata engines): bytes and I/Os are
    /// counted, but only the I/Os that carried a file operation
    /// ([`IoEngine::timed`]) give a latency, as a clat sample alone.
    FileOps,
    /// fio's FIO_NOIO (cpuio, exec): I/Os are counted and timed, no bytes move.
    NoData,
}

/// A kernel limit on an engine's queue depth (iodepth), checked when the run is planned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepthLimit {
    /// None beyond memory.
    #[default]
    None,
    /// At most this many entries per queue (io_uring: 32768 ring entries).
    Max(u64),
    /// Each thread takes iodepth events from the system-wide fs.aio-max-nr (libaio).
    AioMaxNr,
}

/// The interface every engine implements. Its name, help and [`Capabilities`] are
/// constants of its row in [`registry::ENGINES`], readable without creating it.
pub trait IoEngine: Send {
    /// Start (or perform, for synchronous engines) the I/O described by `unit`.
    fn queue(&mut self, index: usize, unit: &mut IoUnit) -> Queued;
    /// Called once before the first `queue`, with the job's file descriptors (in file
    /// order; -1 for diskless engines) and every unit's buffer (in unit order). Engines
    /// that register files or buffers with the kernel, or map files, do it here.
    fn setup(&mut self, _fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        Ok(())
    }
    /// openfiles < nrfiles: file `file` was opened (`fd`) or is about to be closed
    /// (`fd` = -1) during the run; `setup` saw -1 for every file not open then.
    /// Engines that hold something per file (a mapping) take or drop it here.
    fn file_changed(&mut self, _file: usize, _fd: RawFd) -> io::Result<()> {
        Ok(())
    }
    /// I/Os per direction the engine knows were lost on the way (a UDP reader's gaps
    /// in its sender's sequence numbers): the job's drop_ios, read at its end.
    fn dropped(&self) -> [u64; 3] {
        [0; 3]
    }
    /// The I/O priority (`class << 13 | level`) unit `index`'s next reads and writes
    /// carry, told before they are queued: `chosen` when cmdprio chose it for this
    /// I/O, else the job's own (prio/prioclass). Engines that send a priority per
    /// command (io_uring, libaio) keep it; the others ignore it.
    fn set_ioprio(&mut self, _index: usize, _ioprio: u16, _chosen: bool) {}
    /// Whether fio's engine of this name has a commit hook (libaio, io_uring, null):
    /// fio then leaves an I/O that `queue` completed at once (libaio's syncs and
    /// trims, null at iodepth=1) out of the submit and complete maps.
    fn fio_commit_hook(&self) -> bool {
        false
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
    /// The zoned device behind the engine's file `file`, if it is one (docs/zones.md).
    fn zoned(&mut self, _file: usize) -> Option<zone::SharedZoned> {
        None
    }
    /// A new pass over the files begins (loops, a time_based wrap): fio closes and
    /// reopens every file between passes, so the metadata engines operate again.
    fn new_pass(&mut self) {}
    /// With [`Accounting::FileOps`]: whether the I/O last completed by `queue`
    /// carried a file operation (its time is then the operation's latency).
    fn timed(&self) -> bool {
        true
    }
    /// With a think time configured, the think time the engine wants after the I/O
    /// just completed (cpuio's qsort mode adapts it to how long the sort took);
    /// None keeps the configured one.
    fn think_time_ns(&self) -> Option<u64> {
        None
    }
    /// With [`Accounting::NoData`]: the engine ended its job (cpuio's
    /// exit_on_io_done once no I/O thread is left); checked after each I/O.
    fn ended(&self) -> bool {
        false
    }
    /// Statistics the engine publishes beyond fio's (a modelled device's buffers in
    /// flight), read once at the job's end; the report prints them after fio's fields.
    fn extra_stats(&self) -> Vec<ferrio_report::extra::ExtraStat> {
        Vec::new()
    }
}

/// What an engine is given at creation: its own tuning and the few facts about the
/// job it needs, never the whole job. The runner fills it from the thread's plan.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// The job's name, for error messages.
    pub job: String,
    pub iodepth: u32,
    pub hipri: bool,
    /// direct=1: the files are open with O_DIRECT (or, for an engine that
    /// [`Capabilities::maps_files`], its own meaning of direct=1).
    pub direct: bool,
    /// sync=1 (or dsync): the files are open with O_SYNC (or, for an engine that
    /// [`Capabilities::maps_files`], its own meaning: libpmem drains each write).
    pub sync: bool,
    /// The directions the job issues: [read, write, trim].
    pub directions: [bool; 3],
    /// Engine tuning options (batching, io_uring and libaio flags, nowait, hipri share).
    pub tuning: EngineTuning,
    /// The simulated device's options (`sim_*`), for ioengine=sim.
    pub sim: SimSpec,
    /// uncached=1 (io_uring, pvsync2): RWF_DONTCACHE on buffered reads and writes.
    pub uncached: bool,
    /// atomic=1 (io_uring, libaio, pvsync2; fio 3.4x): RWF_ATOMIC on every write.
    pub atomic: bool,
    /// The network engines' options (net, netsplice), resolved by the config.
    pub net: ferrio_config::ext::net::NetSpec,
    /// ioengine=nbd: the server's URI (uri=).
    pub nbd_uri: Option<String>,
    /// The run's stop request (signals, exitall), for engines that wait on a peer.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The byte range the thread addresses in each of its files, as planned.
    pub regions: Vec<Range<u64>>,
    /// The job set its size (size= or filesize=); without it a diskless job's regions
    /// are open-ended, not a device size.
    pub sized: bool,
    /// Set for clocksource=virtual: the engine advances this thread's clock.
    pub virtual_clock: Option<ferrio_clock::VirtualHandle>,
    /// The numjobs clone this engine serves (fio's $jobnum), for per-clone seeds.
    pub clone: u32,
    /// The thread's files, in file order (the metadata engines operate on the names).
    pub paths: Vec<PathBuf>,
    /// The local engines' options (stat_type, cpuio, exec, e4defrag).
    pub local: LocalSpec,
    /// The job's runtime= (exec: %r, and when the program is stopped), µs.
    pub runtime_us: Option<u64>,
    /// The job's directory= (e4defrag's donor file goes there), if given.
    pub directory: Option<PathBuf>,
    /// How many threads that do I/O (every engine but the no-data ones) have not
    /// finished yet, started or not: cpuio's exit_on_io_done waits for 0.
    pub io_threads_left: Option<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
    /// On a server: the allowed directories, so the engines that act on names (the
    /// metadata engines, e4defrag's donor) do so beneath them at run time.
    pub confine: Option<std::sync::Arc<crate::sys::confine::Confine>>,
    /// The run's state shared per target (a zoned device is one for every job on it).
    pub targets: std::sync::Arc<zone::Targets>,
}

/// Create an engine by name (see [`registry::ENGINES`]).
pub fn create(name: &str, opts: EngineOptions) -> Result<Box<dyn IoEngine>, String> {
    let entry = registry::find(name).ok_or_else(|| {
        format!(
            "ioengine '{name}' is not available; available engines: {}",
            registry::names().join(", ")
        )
    })?;
    if opts.virtual_clock.is_some() && !entry.caps.virtual_time {
        return Err(format!(
            "clocksource=virtual needs an engine that drives virtual time, such as ioengine=sim (ioengine is '{name}')"
        ));
    }
    (entry.create)(&opts)
}

/// Capabilities of an engine by name: a constant of its registry row.
pub fn capabilities_of(name: &str) -> Option<Capabilities> {
    registry::find(name).map(|e| e.caps)
}

/// Capabilities of an engine for a job with this `iodepth`: an engine that queues
/// when deep (fio's null engine) is asynchronous above iodepth=1.
pub fn capabilities_for(name: &str, iodepth: u32) -> Option<Capabilities> {
    capabilities_of(name).map(|mut caps| {
        if caps.queues_when_deep && iodepth > 1 {
            caps.synchronous = false;
        }
        caps
    })
}

/// [`capabilities_for`] a job, or the error that names its engine as unavailable.
pub fn capabilities_for_job(spec: &ferrio_config::JobSpec) -> Result<Capabilities, String> {
    capabilities_for(&spec.ioengine, spec.iodepth).ok_or_else(|| {
        format!(
            "job '{}': ioengine '{}' is not available ({})",
            spec.name, spec.ioengine, spec.origin
        )
    })
}
