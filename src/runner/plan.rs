//! A thread's plan: what the planner (planner.rs) decides for each thread before
//! anything touches the disk. It imports only the types its fields hold (region,
//! replay, flow, buffers), none of which imports it back, so every part of the run
//! can read a plan without an import circle.

use super::buffers::BufferPolicy;
use super::region::PlannedFile;
use super::replay::IoLog;
use crate::engine::Capabilities;
use crate::random::SeedSet;
use ferrio_config::values::size::SizeOrPercent;
use ferrio_config::JobSpec;
use std::sync::Arc;

/// One worker thread (a job or one of its numjobs clones).
#[derive(Clone, Debug)]
pub struct ThreadPlan {
    pub spec: Arc<JobSpec>,
    /// Index of the job in the invocation (for stonewall/wait_for ordering).
    pub job_index: usize,
    /// Clone number within the job, in thread order (0 for the job itself; see
    /// [`ThreadPlan::subjob`] for fio's $jobnum).
    pub clone: u32,
    pub groupid: u32,
    pub caps: Capabilities,
    pub files: Vec<PlannedFile>,
    /// Bytes per pass (io_size, or the sum of the regions).
    pub pass_bytes: u64,
    /// Seed of this thread's generators that have no fio counterpart.
    pub seed: u64,
    /// fio's seeds for this thread (offsets, sizes, directions, ...): crate::random::seeds.
    pub seeds: SeedSet,
    /// read_iolog: the I/Os to replay (the files are the log's).
    pub replay: Option<Arc<IoLog>>,
    /// flow=: the flow group (flow_id) the thread shares with other jobs.
    pub flow: Option<Arc<super::flow::FlowGroup>>,
    /// What the thread's buffer contents share with the run (dedupe_global's peers,
    /// the streams its file layout advanced).
    pub buffers: crate::runner::buffers::Shared,
    /// The files' sizes are resolved when the job starts (late_sizes.rs): until then
    /// `files` has empty regions and `pass_bytes` is 0.
    pub sized_at_start: bool,
    /// read_iolog names a log an earlier job writes: it is read when the job starts
    /// (replay_plan.rs); until then the job has no files and `pass_bytes` is 0.
    pub replay_at_start: bool,
    /// lockfile=: the locks of the thread's files (filelock.rs; empty: none).
    pub file_locks: super::filelock::ThreadLocks,
    /// On a server: every open and unlink of the files stays beneath its
    /// `--server-allow` directories (openat2), whatever changed since admission.
    pub confine: Option<Arc<crate::sys::confine::Confine>>,
    /// The run's state shared per target (zones/: one zone table per zoned file or
    /// device, the sim's zoned devices), one registry for every thread of a run.
    pub targets: Arc<crate::engine::zone::Targets>,
    /// ramp_size: the bytes completed while ramping, shared with the reporting
    /// group under group_reporting (ramp.rs); None without ramp_size.
    pub ramp_bytes: Option<Arc<super::ramp::RampBytes>>,
    /// Why the thread's files were not laid out: as in fio, such a thread never
    /// starts, and the others run (layout.rs; the runner's `never_starts`). Set once
    /// the layout is done.
    pub not_laid_out: Option<NotLaidOut>,
}

/// Why a thread's files were not laid out.
#[derive(Clone, Debug)]
pub enum NotLaidOut {
    /// The system would not make them (errno, message): the thread reports that error.
    Failed(i32, String),
    /// A stop signal came first: the thread reports no I/O and no error (fio's report
    /// after a signal during its setup).
    Interrupted,
    /// file_append with size= on files already within filesize=: nothing to lay out
    /// or append, so, as in fio, no I/O and no error.
    NothingToAppend,
}

impl NotLaidOut {
    /// The error the thread reports (none for a stop or nothing to do).
    pub fn error(&self) -> Option<(i32, String)> {
        match self {
            NotLaidOut::Failed(errno, msg) => Some((*errno, msg.clone())),
            NotLaidOut::Interrupted | NotLaidOut::NothingToAppend => None,
        }
    }
}

/// fio's subjob number (its `$jobnum`) of clone `clone` of a job of `numjobs`: fio
/// makes the clones counting down, so the job is 0, its first clone numjobs-1 and
/// its last 1. File names, `directory=a:b`, `offset_increment` and a network job's
/// port follow it.
pub fn fio_subjob(numjobs: u32, clone: u32) -> u32 {
    if clone == 0 {
        0
    } else {
        numjobs.max(1).saturating_sub(clone)
    }
}

impl ThreadPlan {
    /// fio's subjob number of this thread ([`fio_subjob`]).
    pub fn subjob(&self) -> u32 {
        fio_subjob(self.spec.numjobs, self.clone)
    }

    /// The engine keeps nothing the thread writes (diskless, and no remote target as
    /// nbd's export): its verify pretends, as fio's does for such engines.
    pub fn discards(&self) -> bool {
        self.caps.diskless && !crate::engine::registry::keeps_data(&self.spec.ioengine)
    }
}

// The buffer policy a planned thread starts with is built here rather than in
// buffers/, whose `Shared` a plan holds: buffers must not import the plan back.
impl BufferPolicy {
    /// The policies a planned thread fills its units' buffers with and then writes
    /// with: where its file layout left its streams, or new. fio lays a
    /// `create_serialize=0` job's files out in the job's own thread after it has
    /// filled its units (init_io_u, then setup_files), so such a job's units take the
    /// first draws from a new policy and its writes go on from its layout's (the
    /// second policy).
    pub fn for_units(plan: &ThreadPlan) -> Result<(BufferPolicy, Option<BufferPolicy>), String> {
        let laid_out = plan.buffers.laid_out.lock().ok().and_then(|mut p| p.take());
        Ok(match laid_out {
            Some(p) if !plan.spec.local.create_serialize => {
                (BufferPolicy::new_for_thread(plan)?, Some(p))
            }
            Some(p) => (p, None),
            None => (BufferPolicy::new_for_thread(plan)?, None),
        })
    }

    /// The policy a planned thread lays its files out with. A `create_serialize=0`
    /// job's layout draws after its units' first fills (`for_units`), so this one
    /// starts past them: fio fills `iodepth` units whatever the engine.
    pub fn for_layout(plan: &ThreadPlan) -> Result<BufferPolicy, String> {
        let mut policy = BufferPolicy::new_for_thread(plan)?;
        if !plan.spec.local.create_serialize {
            policy.skip_units(plan.spec.iodepth.max(1) as usize);
        }
        Ok(policy)
    }

    /// A new policy for a planned thread, its streams as seeded.
    pub fn new_for_thread(plan: &ThreadPlan) -> Result<BufferPolicy, String> {
        let peers = plan.spec.buffers.dedupe_global.then(|| {
            let me = plan.seeds.thread_number.saturating_sub(1) as usize;
            (
                &plan.buffers.peers[..],
                me.min(plan.buffers.peers.len().saturating_sub(1)),
            )
        });
        let size = match plan.spec.size {
            Some(SizeOrPercent::Bytes(n)) => n,
            _ => plan.files.iter().map(|f| f.region.len).sum(),
        };
        BufferPolicy::with_seeds(&plan.spec, &plan.seeds, size, peers)
    }
}
