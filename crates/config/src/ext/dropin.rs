//! fio options that make ferrio a drop-in for fio's job files and harnesses
//! (issue 14): appending to files, unlinking files between loops, hiding a job from
//! the report (stats=0), per-I/O bandwidth log entries (disable_bw_measurement),
//! pinned memory (lockmem), the user and group a job runs as (uid, gid).

/// The job's drop-in options. Defaults are fio's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DropinSpec {
    /// file_append=1: a regular file's I/O region starts at its size when the job
    /// starts (fio's get_start_offset), so writes extend it.
    pub file_append: bool,
    /// unlink_each_loop=1: delete the job's files before every pass after the first.
    pub unlink_each_loop: bool,
    /// stats=0: the job runs but is left out of every report and group sum.
    pub stats: bool,
    /// disable_bw_measurement=1: no per-I/O entries in the bandwidth log.
    pub disable_bw: bool,
    /// lockmem=N: bytes the job pins with mlock(2) while it runs (0: none).
    pub lockmem: u64,
    /// uid=N / gid=N: the job thread's user and group ids (None: unchanged).
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// exit_what=: which jobs an exitall (or exitall_on_error) stops.
    pub exit_what: ExitWhat,
    /// log_alternate_epoch=1: log times from clock_gettime(alt_epoch_clock_id)'s epoch.
    pub alt_epoch: bool,
    /// log_alternate_epoch_clock_id=: the clock (0 = CLOCK_REALTIME); also the clock
    /// of log_unix_epoch, as in fio 3.33.
    pub alt_epoch_clock_id: u32,
    /// numa_cpu_nodes=: run on the CPUs of these NUMA nodes (None: anywhere).
    pub numa_cpu_nodes: Option<Vec<usize>>,
    /// numa_mem_policy=: the job thread's memory policy (None: unchanged).
    pub numa_mem: Option<NumaMem>,
    /// ioscheduler=: the I/O scheduler to switch the job's block devices to.
    pub ioscheduler: Option<String>,
    /// lockfile=: how the job locks its files around each I/O's submission.
    pub lockfile: LockMode,
}

/// numa_mem_policy=MODE[:NODES], as set_mempolicy(2) takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumaMem {
    /// `default`: no change (as fio).
    Default,
    /// `prefer:N`: MPOL_PREFERRED on one node.
    Prefer(usize),
    /// `bind:NODES`: MPOL_BIND.
    Bind(Vec<usize>),
    /// `interleave[:NODES]`: MPOL_INTERLEAVE (all nodes when none are given).
    Interleave(Vec<usize>),
    /// `local`: MPOL_LOCAL.
    Local,
}

/// lockfile=: fio's per-file lock, held from an I/O's preparation until the engine
/// has taken it (the whole I/O with a synchronous engine).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockMode {
    #[default]
    None,
    /// One I/O at a time per file, across every job with this mode using the file.
    Exclusive,
    /// Reads share the file, a write or trim has it alone (among the job's clones).
    ReadWrite,
}

/// Which jobs a job ending under exitall stops (fio's exit_what=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its reporting group (fio's default).
    #[default]
    Group,
    /// Every job running now, in any group; later stonewalled groups still run.
    Stonewall,
    /// Every job, including those not started yet.
    All,
}

impl Default for DropinSpec {
    fn default() -> Self {
        DropinSpec {
            file_append: false,
            unlink_each_loop: false,
            stats: true,
            disable_bw: false,
            lockmem: 0,
            uid: None,
            gid: None,
            exit_what: ExitWhat::Group,
            alt_epoch: false,
            alt_epoch_clock_id: 0,
            numa_cpu_nodes: None,
            numa_mem: None,
            ioscheduler: None,
            lockfile: LockMode::None,
        }
    }
}
